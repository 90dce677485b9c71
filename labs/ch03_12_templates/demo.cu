// ch03_12 demo: the templated reduction for every block size, beside the runtime-blockDim version.
//
//   ./ch03_12_templates_demo [--csv]
//
// For 2^24 ints and each block size 64 ... 1024: time, GB/s and % of the measured copy bandwidth of
// reduceCompleteUnroll<block> (through your launch_complete_unroll) and of ch03_11's
// your reduceCompleteUnrollWarps8 from ch03_11, their ratio, and the book's figures. Then one
// unsupported block size, to show the launcher's error.
#include "templates.cuh"
#include "unrolling.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.cuh"
#include "cudalab/timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char **argv) {
  const bool csv = argc > 1 && std::strcmp(argv[1], "--csv") == 0;
  const unsigned int n = 1u << 24;
  const auto [dev, copy_gbs] = cudalab::demo::start();
  const cudalab::demo::ReductionInput in = cudalab::demo::reduction_input(n, /*in_place=*/false);
  cudalab::DeviceBuffer<int> d_out;
  CUDALAB_CHECK(d_out.allocate(complete_unroll_grid(n, 64)));
  int *d_in = in.pristine.get();  // int *: the kernels' parameter type

  cudalab::demo::Table table({{"block", "block", "%6u", "%u", ""},
                              {nullptr, "template", "%-26s", "%s", " | "},
                              {"template_ms", "ms", "%9.4f", "%.4f"},
                              {"template_gbs", "GB/s", "%8.1f", "%.1f"},
                              {"template_pct_copy", "%copy", "%6.1f%%", "%.1f"},
                              {nullptr, "runtime blockDim", "%-26s", "%s", " | "},
                              {"runtime_ms", "ms", "%9.4f", "%.4f"},
                              {"runtime_gbs", "GB/s", "%8.1f", "%.1f"},
                              {"runtime_over_template", "runtime/template", "%15.3fx", "%.3f", " | "},
                              {nullptr, "result", "%s", "%s", "  "}},
                             csv);
  if (!csv)
    std::printf(
        "%s\nn = 2^24 ints, measured copy bandwidth %.0f GB/s (theoretical %.0f)\n"
        "book (Tesla M2070, block 512): reduceCompleteUnrollWarps8 1.280 ms, templated 1.253 ms (1.02x)\n\n",
        cudalab::describe_device(dev).c_str(), copy_gbs, dev.theoretical_bandwidth_gbs());
  table.header();
  for (unsigned int block = 64; block <= 1024; block *= 2) {
    const unsigned int grid = complete_unroll_grid(n, block);
    cudalab::TimingOptions opts;
    opts.flush_l2 = true;
    opts.reps = 51;
    cudalab::Comparison cmp =
        cudalab::compare_kernels([&] { reduceCompleteUnrollWarps8<<<grid, block>>>(d_in, d_out.get(), n); },
                                 [&] { launch_complete_unroll(block, d_in, d_out.get(), n); }, opts);
    if (!cmp.baseline.ok || !cmp.candidate.ok) {
      std::fprintf(stderr, "block %u: %s%s\n", block, cmp.baseline.error.c_str(), cmp.candidate.error.c_str());
      return EXIT_FAILURE;
    }
    CUDALAB_CHECK(d_out.poison());
    CUDALAB_CHECK(launch_complete_unroll(block, d_in, d_out.get(), n));
    CUDALAB_CHECK_LAUNCH("reduceCompleteUnroll");
    const long long gpu_sum = cudalab::demo::sum_of_partials(d_out, grid);
    const double t_ms = cmp.candidate.median_ms, r_ms = cmp.baseline.median_ms;
    const double t_bw = cudalab::gbs(double(n) * sizeof(int), t_ms), r_bw = cudalab::gbs(double(n) * sizeof(int), r_ms);
    table.row({block, cudalab::demo::format("reduceCompleteUnroll<%u>", block), t_ms, t_bw, 100 * t_bw / copy_gbs,
               "reduceCompleteUnrollWarps8", r_ms, r_bw, cmp.speedup(), gpu_sum == in.sum ? "ok" : "WRONG SUM"});
  }
  if (!csv) {
    const cudaError_t err = launch_complete_unroll(96, d_in, d_out.get(), n);
    std::printf("\nlaunch_complete_unroll(block=96): %s (%s)%s\n", cudaGetErrorName(err), cudaGetErrorString(err),
                complete_unroll_supported(96) ? "" : " -- 96 has no instantiation");
  }
  return EXIT_SUCCESS;
}
