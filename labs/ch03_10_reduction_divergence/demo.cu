// ch03_10 demo: the book's reduceInteger table for your GPU.
//
//   ./ch03_10_reduction_divergence_demo [block=512] [--csv]
//
// Prints, for 2^24 ints: time, GB/s, % of the measured copy bandwidth, step and cumulative
// speed-up of your three kernels, beside the book's Tesla M2070 (Fermi) figures.
#include "reduction.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/reference.hpp"
#include "cudalab/timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char **argv) {
  unsigned int block = 512;
  bool csv = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--csv") == 0) csv = true;
    else block = static_cast<unsigned int>(std::atoi(argv[i]));
  }
  const unsigned int n = 1u << 24, grid = reduce_grid(n, block);

  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  const double copy_gbs = cudalab::measured_copy_bandwidth_gbs();

  std::vector<int> input = cudalab::random_ints(n, 0, 255, 2024);  // the book's rand() & 0xFF
  const long long cpu_sum = cudalab::cpu::sum(input);
  cudalab::DeviceBuffer<int> pristine, work, out;
  CUDALAB_CHECK(pristine.upload(input));
  CUDALAB_CHECK(work.allocate(n));
  CUDALAB_CHECK(out.allocate(grid));
  auto restore = [&] { cudaMemcpyAsync(work.get(), pristine.get(), work.bytes(), cudaMemcpyDeviceToDevice); };

  struct Row {
    const char *name;
    void (*kernel)(int *, int *, unsigned int);
    double book_ms;  // Tesla M2070, the book's table
  } rows[] = {{"reduceNeighbored", reduceNeighbored, 11.722},
              {"reduceNeighboredLess", reduceNeighboredLess, 9.321},
              {"reduceInterleaved", reduceInterleaved, 6.967}};

  if (csv) {
    std::printf("kernel,ms,gbs,pct_copy,step_speedup,cumulative_speedup,book_ms,book_cumulative\n");
  } else {
    std::printf("%s\nn = 2^24 ints, grid %u, block %u, measured copy bandwidth %.0f GB/s (theoretical %.0f)\n\n",
                cudalab::describe_device(dev).c_str(), grid, block, copy_gbs, dev.theoretical_bandwidth_gbs());
    std::printf("%-22s %9s %8s %7s %6s %6s | %9s %6s  %s\n", "kernel", "ms", "GB/s", "%copy", "step", "cumul",
                "book ms", "cumul", "result");
  }
  double first_ms = 0, prev_ms = 0;
  for (const Row &r : rows) {
    cudalab::TimingOptions opts;
    opts.flush_l2 = true;
    cudalab::TimingStats t =
        cudalab::time_kernel([&] { r.kernel<<<grid, block>>>(work.get(), out.get(), n); }, opts, restore);
    if (!t.ok) {
      std::fprintf(stderr, "%s: %s\n", r.name, t.error.c_str());
      return EXIT_FAILURE;
    }
    restore();
    r.kernel<<<grid, block>>>(work.get(), out.get(), n);
    CUDALAB_CHECK_LAUNCH("reduction");
    std::vector<int> partial;
    CUDALAB_CHECK(out.download(&partial));
    long long gpu_sum = 0;
    for (int p : partial) gpu_sum += p;
    if (first_ms == 0) first_ms = prev_ms = t.median_ms;
    const double bw = cudalab::gbs(double(n) * sizeof(int), t.median_ms);
    const char *result = gpu_sum == cpu_sum ? "ok" : "WRONG SUM";
    if (csv) {
      std::printf("%s,%.4f,%.1f,%.1f,%.3f,%.3f,%.3f,%.3f\n", r.name, t.median_ms, bw, 100 * bw / copy_gbs,
                  prev_ms / t.median_ms, first_ms / t.median_ms, r.book_ms, rows[0].book_ms / r.book_ms);
    } else {
      std::printf("%-22s %9.4f %8.1f %6.1f%% %5.2fx %5.2fx | %9.3f %5.2fx  %s\n", r.name, t.median_ms, bw,
                  100 * bw / copy_gbs, prev_ms / t.median_ms, first_ms / t.median_ms, r.book_ms,
                  rows[0].book_ms / r.book_ms, result);
    }
    prev_ms = t.median_ms;
  }
  return EXIT_SUCCESS;
}
