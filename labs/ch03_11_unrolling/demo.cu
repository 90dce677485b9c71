// ch03_11 demo: the book's unrolling table for your GPU.
//
//   ./ch03_11_unrolling_demo [block=512] [--csv]
//
// Prints, for 2^24 ints: time, GB/s, % of the measured copy bandwidth, step and cumulative
// speed-up of your five kernels (cumulative from your reduceInterleaved, ch03_10's best), beside
// the book's Tesla M2070 (Fermi) figures.
#include "reduction.cuh"
#include "unrolling.cuh"

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
    if (std::strcmp(argv[i], "--csv") == 0)
      csv = true;
    else
      block = static_cast<unsigned int>(std::atoi(argv[i]));
  }
  const unsigned int n = 1u << 24;

  const auto [dev, copy_gbs] = cudalab::demo::start();
  cudalab::demo::ReductionInput in = cudalab::demo::reduction_input(n);
  cudalab::DeviceBuffer<int> out;
  CUDALAB_CHECK(out.allocate(reduce_grid(n, block, 1)));
  auto restore = [&] { in.restore(); };

  const double book_neighbored_ms = 11.722;  // the book's first kernel, for its cumulative column
  struct Row {
    const char *name;
    void (*kernel)(int *, int *, unsigned int);
    unsigned int factor;
    double book_ms;  // Tesla M2070, the book's tables
  } rows[] = {{"reduceInterleaved", reduceInterleaved, 1, 6.967},
              {"reduceUnrolling2", reduceUnrolling2, 2, 3.430},
              {"reduceUnrolling4", reduceUnrolling4, 4, 1.829},
              {"reduceUnrolling8", reduceUnrolling8, 8, 1.422},
              {"reduceUnrollWarps8", reduceUnrollWarps8, 8, 1.355},
              {"reduceCompleteUnrollWarps8", reduceCompleteUnrollWarps8, 8, 1.280}};

  cudalab::demo::Table table(cudalab::demo::reduction_columns("%-27s", /*grid=*/true), csv);
  if (!csv)
    std::printf(
        "%s\nn = 2^24 ints, block %u, measured copy bandwidth %.0f GB/s (theoretical %.0f)\n"
        "cumulative: from reduceInterleaved here; from the book's reduceNeighbored (11.722 ms) in the book\n\n",
        cudalab::describe_device(dev).c_str(), block, copy_gbs, dev.theoretical_bandwidth_gbs());
  table.header();
  double first_ms = 0, prev_ms = 0;
  for (const Row &r : rows) {
    const unsigned int grid = reduce_grid(n, block, r.factor);
    cudalab::TimingOptions opts;
    opts.flush_l2 = true;
    const cudalab::TimingStats t = cudalab::demo::time_or_exit(
        r.name, [&] { r.kernel<<<grid, block>>>(in.work.get(), out.get(), n); }, opts, restore);
    restore();
    CUDALAB_CHECK(out.poison());
    r.kernel<<<grid, block>>>(in.work.get(), out.get(), n);
    CUDALAB_CHECK_LAUNCH("reduction");
    const long long gpu_sum = cudalab::demo::sum_of_partials(out, grid);
    if (first_ms == 0) first_ms = prev_ms = t.median_ms;
    const double bw = cudalab::gbs(double(n) * sizeof(int), t.median_ms);
    table.row({r.name, grid, t.median_ms, bw, 100 * bw / copy_gbs, prev_ms / t.median_ms, first_ms / t.median_ms,
               r.book_ms, book_neighbored_ms / r.book_ms, gpu_sum == in.sum ? "ok" : "WRONG SUM"});
    prev_ms = t.median_ms;
  }
  return EXIT_SUCCESS;
}
