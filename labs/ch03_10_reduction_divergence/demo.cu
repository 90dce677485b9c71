// ch03_10 demo: the book's reduceInteger table for your GPU.
//
//   ./ch03_10_reduction_divergence_demo [block=512] [--csv]
//
// Prints, for 2^24 ints: time, GB/s, % of the measured copy bandwidth, step and cumulative
// speed-up of your three kernels, beside the book's Tesla M2070 (Fermi) figures.
#include "reduction.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.cuh"
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

  const auto [dev, copy_gbs] = cudalab::demo::start();
  cudalab::demo::ReductionInput in = cudalab::demo::reduction_input(n);
  cudalab::DeviceBuffer<int> out;
  CUDALAB_CHECK(out.allocate(grid));
  auto restore = [&] { in.restore(); };

  struct Row {
    const char *name;
    void (*kernel)(int *, int *, unsigned int);
    double book_ms;  // Tesla M2070, the book's table
  } rows[] = {{"reduceNeighbored", reduceNeighbored, 11.722},
              {"reduceNeighboredLess", reduceNeighboredLess, 9.321},
              {"reduceInterleaved", reduceInterleaved, 6.967}};

  cudalab::demo::Table table(cudalab::demo::reduction_columns("%-22s", /*grid=*/false), csv);
  if (!csv)
    std::printf("%s\nn = 2^24 ints, grid %u, block %u, measured copy bandwidth %.0f GB/s (theoretical %.0f)\n\n",
                cudalab::describe_device(dev).c_str(), grid, block, copy_gbs, dev.theoretical_bandwidth_gbs());
  table.header();
  double first_ms = 0, prev_ms = 0;
  for (const Row &r : rows) {
    cudalab::TimingOptions opts;
    opts.flush_l2 = true;
    const cudalab::TimingStats t = cudalab::demo::time_or_exit(
        r.name, [&] { r.kernel<<<grid, block>>>(in.work.get(), out.get(), n); }, opts, restore);
    restore();
    r.kernel<<<grid, block>>>(in.work.get(), out.get(), n);
    CUDALAB_CHECK_LAUNCH("reduction");
    const long long gpu_sum = cudalab::demo::sum_of_partials(out, grid);
    if (first_ms == 0) first_ms = prev_ms = t.median_ms;
    const double bw = cudalab::gbs(double(n) * sizeof(int), t.median_ms);
    table.row({r.name, t.median_ms, bw, 100 * bw / copy_gbs, prev_ms / t.median_ms, first_ms / t.median_ms, r.book_ms,
               rows[0].book_ms / r.book_ms, gpu_sum == in.sum ? "ok" : "WRONG SUM"});
    prev_ms = t.median_ms;
  }
  return EXIT_SUCCESS;
}
