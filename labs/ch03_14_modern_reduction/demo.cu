// ch03_14 demo: then and now -- every reduction kernel of ch03_10 to ch03_14 on your GPU, beside
// the book's Tesla M2070 (Fermi) column, then the modern kernel against CUB and the copy at 1 GiB.
//
//   ./ch03_14_modern_reduction_demo [--csv]
//
// Every row is your kernel: ch03_10 to ch03_12 from those labs (a lab you have not done yet shows
// as a wrong sum), ch03_14 from this one.
#include "modern_reduction.cuh"
#include "reduction.cuh"
#include "templates.cuh"
#include "unrolling.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/demo.cuh"
#include "cudalab/timing.cuh"

#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {

// ---- ch03_14 ablation: reduceModern's structure with 4-byte loads ------------------------------
__global__ void reduceGridStrideScalar(const int *g_idata, unsigned int n, int *g_sum) {
  __shared__ int warp_sums[32];
  int sum = 0;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += g_idata[i];
  for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
    for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if (threadIdx.x == 0) atomicAdd(g_sum, sum);
  }
}

struct Row {
  const char *name;
  const char *lab;
  double book_s;  // the book's Tesla M2070 time in seconds (0: not in the book)
  std::function<void()> launch;
  bool in_place;
  std::function<long long()> result;  // the sum the run produced
};

}  // namespace

int main(int argc, char **argv) {
  const bool csv = argc > 1 && std::strcmp(argv[1], "--csv") == 0;
  const auto [dev, copy_gbs] = cudalab::demo::start();
  const unsigned int n = 1u << 24, block = 512;

  const cudalab::demo::ReductionInput input = cudalab::demo::reduction_input(n);
  cudalab::DeviceBuffer<int> out, sum;
  CUDALAB_CHECK(out.allocate(n / 64 + 1));
  CUDALAB_CHECK(sum.allocate(1));
  auto restore = [&] { input.restore(); };
  auto partial_total = [&](unsigned int grid) { return cudalab::demo::sum_of_partials(out, grid); };
  auto scalar_total = [&] {
    std::vector<int> s;
    CUDALAB_CHECK(sum.download(&s));
    return static_cast<long long>(s[0]);
  };
  std::size_t cub_bytes = 0;
  CUDALAB_CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, input.pristine.get(), sum.get(), static_cast<int>(n)));
  cudalab::DeviceBuffer<unsigned char> cub_temp;
  CUDALAB_CHECK(cub_temp.allocate(cub_bytes));

  const unsigned int g1 = n / block, g8 = n / (8 * block),
                     gm = modern_grid(n, dev.sm_count, dev.max_threads_per_sm, kModernBlock);
  int *w = input.work.get(), *o = out.get(), *s = sum.get();
  const int *in = input.pristine.get();
  auto with_zero = [&](auto launch) {
    return [&, launch] {
      cudaMemsetAsync(s, 0, sizeof(int));
      launch();
    };
  };
  std::vector<Row> rows = {
      {"reduceNeighbored", "ch03_10", 0.011722, [&] { reduceNeighbored<<<g1, block>>>(w, o, n); }, true,
       [&] { return partial_total(g1); }},
      {"reduceNeighboredLess", "ch03_10", 0.009321, [&] { reduceNeighboredLess<<<g1, block>>>(w, o, n); }, true,
       [&] { return partial_total(g1); }},
      {"reduceInterleaved", "ch03_10", 0.006967, [&] { reduceInterleaved<<<g1, block>>>(w, o, n); }, true,
       [&] { return partial_total(g1); }},
      {"reduceUnrolling2", "ch03_11", 0.003430, [&] { reduceUnrolling2<<<g1 / 2, block>>>(w, o, n); }, true,
       [&] { return partial_total(g1 / 2); }},
      {"reduceUnrolling4", "ch03_11", 0.001829, [&] { reduceUnrolling4<<<g1 / 4, block>>>(w, o, n); }, true,
       [&] { return partial_total(g1 / 4); }},
      {"reduceUnrolling8", "ch03_11", 0.001422, [&] { reduceUnrolling8<<<g8, block>>>(w, o, n); }, true,
       [&] { return partial_total(g8); }},
      {"reduceUnrollWarps8", "ch03_11", 0.001355, [&] { reduceUnrollWarps8<<<g8, block>>>(w, o, n); }, true,
       [&] { return partial_total(g8); }},
      {"reduceCompleteUnrollWarps8", "ch03_11", 0.001280, [&] { reduceCompleteUnrollWarps8<<<g8, block>>>(w, o, n); },
       true, [&] { return partial_total(g8); }},
      {"reduceCompleteUnroll<512>", "ch03_12", 0.001253, [&] { complete_unroll_kernel(512)<<<g8, block>>>(w, o, n); },
       true, [&] { return partial_total(g8); }},
      {"reduceShuffle8 (yours)", "ch03_14", 0, [&] { reduceShuffle8<<<g8, block>>>(in, o, n); }, false,
       [&] { return partial_total(g8); }},
      {"grid-stride, 4-byte loads", "ch03_14", 0,
       with_zero([&] { reduceGridStrideScalar<<<gm, kModernBlock>>>(in, n, s); }), false, scalar_total},
      {"reduceModern (yours)", "ch03_14", 0, with_zero([&] { reduceModern<<<gm, kModernBlock>>>(in, n, s); }), false,
       scalar_total},
      {"cub::DeviceReduce::Sum", "CUB", 0,
       [&] { cub::DeviceReduce::Sum(cub_temp.get(), cub_bytes, in, s, static_cast<int>(n)); }, false, scalar_total},
  };

  cudalab::demo::Table table({{"kernel", "kernel", "%-27s", "%s", ""},
                              {"lab", "lab", "%-8s"},
                              {"ms", "ms", "%8.4f", "%.4f"},
                              {"gbs", "GB/s", "%7.0f", "%.1f"},
                              {"pct_copy", "%copy", "%5.1f%%", "%.1f"},
                              {"step_speedup", "step", "%5.2fx", "%.3f"},
                              {"cumulative_speedup", "cumul", "%6.2fx", "%.3f"},
                              {"book_ms", "book ms", "%8s", "%s", " | "},
                              {"book_cumulative", "cumul", "%7s"},
                              {nullptr, "result", "%s", "%s", "  "}},
                             csv);
  if (!csv)
    std::printf(
        "%s\nn = 2^24 ints, block 512 (reduceModern: %u x %u), cold L2, measured copy bandwidth %.0f GB/s "
        "(theoretical %.0f)\n\n",
        cudalab::describe_device(dev).c_str(), gm, kModernBlock, copy_gbs, dev.theoretical_bandwidth_gbs());
  table.header();
  double first_ms = 0, prev_ms = 0;
  for (const Row &r : rows) {
    cudalab::TimingOptions opts;
    opts.flush_l2 = true;
    opts.reps = 31;
    const cudalab::TimingStats t =
        cudalab::demo::time_or_exit(r.name, r.launch, opts, r.in_place ? std::function<void()>(restore) : nullptr);
    restore();
    CUDALAB_CHECK(cudaMemset(s, 0, sizeof(int)));
    r.launch();
    CUDALAB_CHECK_LAUNCH("reduction");
    // One int holds the total modulo 2^32 (the book's own sum, 2139353471, is just below 2^31).
    const bool ok = static_cast<std::uint32_t>(r.result()) == static_cast<std::uint32_t>(input.sum);
    if (first_ms == 0) first_ms = prev_ms = t.median_ms;
    const double bw = cudalab::gbs(double(n) * sizeof(int), t.median_ms);
    char book[32] = "-", book_cum[32] = "-";
    if (r.book_s > 0) {
      std::snprintf(book, sizeof book, "%.3f", 1e3 * r.book_s);
      std::snprintf(book_cum, sizeof book_cum, "%.2fx", rows[0].book_s / r.book_s);
    }
    table.row({r.name, r.lab, t.median_ms, bw, 100 * bw / copy_gbs, prev_ms / t.median_ms, first_ms / t.median_ms, book,
               book_cum, ok ? "ok" : "WRONG SUM"});
    prev_ms = t.median_ms;
  }

  // 1 GiB: where the bandwidth ceiling, not the launch, decides.
  const unsigned int big = 1u << 28;
  cudalab::DeviceBuffer<int> b_in, b_dst;
  CUDALAB_CHECK(b_in.upload(cudalab::random_ints(big, -1000, 1000, 7)));
  CUDALAB_CHECK(b_dst.allocate(big));
  std::size_t big_bytes = 0;
  CUDALAB_CHECK(cub::DeviceReduce::Sum(nullptr, big_bytes, b_in.get(), s, static_cast<int>(big)));
  cudalab::DeviceBuffer<unsigned char> big_temp;
  CUDALAB_CHECK(big_temp.allocate(big_bytes));
  const unsigned int gb = modern_grid(big, dev.sm_count, dev.max_threads_per_sm, kModernBlock);
  struct Big {
    const char *name;
    double bytes_factor;  // bytes moved / (4 n)
    std::function<void()> launch;
  } bigs[] = {
      {"cudaMemcpy D2D (read + write)", 2.0,
       [&] { cudaMemcpyAsync(b_dst.get(), b_in.get(), b_in.bytes(), cudaMemcpyDeviceToDevice); }},
      {"cub::DeviceReduce::Sum", 1.0,
       [&] { cub::DeviceReduce::Sum(big_temp.get(), big_bytes, b_in.get(), s, static_cast<int>(big)); }},
      {"reduceModern + zeroing (yours)", 1.0,
       [&] {
         cudaMemsetAsync(s, 0, sizeof(int));
         reduceModern<<<gb, kModernBlock>>>(b_in.get(), big, s);
       }},
      {"reduceModern kernel only", 1.0, [&] { reduceModern<<<gb, kModernBlock>>>(b_in.get(), big, s); }},
      {"grid-stride, 4-byte loads", 1.0,
       [&] {
         cudaMemsetAsync(s, 0, sizeof(int));
         reduceGridStrideScalar<<<gb, kModernBlock>>>(b_in.get(), big, s);
       }},
  };
  std::printf("\nn = 2^28 ints (1 GiB), median of 21 runs\n%-32s %8s %7s %8s\n", "", "ms", "GB/s", "% copy");
  double copy_big = 0;
  for (const Big &b : bigs) {
    cudalab::TimingOptions opts;
    cudalab::TimingStats t = cudalab::time_kernel(b.launch, opts);
    CUDALAB_CHECK_LAUNCH("1 GiB runs");
    const double bw = cudalab::gbs(b.bytes_factor * big * sizeof(int), t.median_ms);
    if (copy_big == 0) copy_big = bw;
    std::printf("%-32s %8.4f %7.0f %7.1f%%\n", b.name, t.median_ms, bw, 100 * bw / copy_big);
  }
  return EXIT_SUCCESS;
}
