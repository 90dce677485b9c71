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
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/reference.hpp"
#include "cudalab/timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char **argv) {
  const bool csv = argc > 1 && std::strcmp(argv[1], "--csv") == 0;
  const unsigned int n = 1u << 24;
  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  const double copy_gbs = cudalab::measured_copy_bandwidth_gbs();

  std::vector<int> input = cudalab::random_ints(n, 0, 255, 2024);  // the book's rand() & 0xFF
  const long long cpu_sum = cudalab::cpu::sum(input);
  cudalab::DeviceBuffer<int> d_in, d_out;
  CUDALAB_CHECK(d_in.upload(input));
  CUDALAB_CHECK(d_out.allocate(complete_unroll_grid(n, 64)));

  if (csv) {
    std::printf("block,template_ms,template_gbs,template_pct_copy,runtime_ms,runtime_gbs,runtime_over_template\n");
  } else {
    std::printf(
        "%s\nn = 2^24 ints, measured copy bandwidth %.0f GB/s (theoretical %.0f)\n"
        "book (Tesla M2070, block 512): reduceCompleteUnrollWarps8 1.280 ms, templated 1.253 ms (1.02x)\n\n",
        cudalab::describe_device(dev).c_str(), copy_gbs, dev.theoretical_bandwidth_gbs());
    std::printf("%6s | %-26s %9s %8s %7s | %-26s %9s %8s | %s  %s\n", "block", "template", "ms", "GB/s", "%copy",
                "runtime blockDim", "ms", "GB/s", "runtime/template", "result");
  }
  for (unsigned int block = 64; block <= 1024; block *= 2) {
    const unsigned int grid = complete_unroll_grid(n, block);
    cudalab::TimingOptions opts;
    opts.flush_l2 = true;
    opts.reps = 51;
    cudalab::Comparison cmp =
        cudalab::compare_kernels([&] { reduceCompleteUnrollWarps8<<<grid, block>>>(d_in.get(), d_out.get(), n); },
                                 [&] { launch_complete_unroll(block, d_in.get(), d_out.get(), n); }, opts);
    if (!cmp.baseline.ok || !cmp.candidate.ok) {
      std::fprintf(stderr, "block %u: %s%s\n", block, cmp.baseline.error.c_str(), cmp.candidate.error.c_str());
      return EXIT_FAILURE;
    }
    CUDALAB_CHECK(d_out.poison());
    CUDALAB_CHECK(launch_complete_unroll(block, d_in.get(), d_out.get(), n));
    CUDALAB_CHECK_LAUNCH("reduceCompleteUnroll");
    std::vector<int> partial;
    CUDALAB_CHECK(d_out.download(&partial));
    long long gpu_sum = 0;
    for (unsigned int b = 0; b < grid; ++b) gpu_sum += partial[b];
    const double t_ms = cmp.candidate.median_ms, r_ms = cmp.baseline.median_ms;
    const double t_bw = cudalab::gbs(double(n) * sizeof(int), t_ms), r_bw = cudalab::gbs(double(n) * sizeof(int), r_ms);
    const char *result = gpu_sum == cpu_sum ? "ok" : "WRONG SUM";
    char tname[40];
    std::snprintf(tname, sizeof tname, "reduceCompleteUnroll<%u>", block);
    if (csv) {
      std::printf("%u,%.4f,%.1f,%.1f,%.4f,%.1f,%.3f\n", block, t_ms, t_bw, 100 * t_bw / copy_gbs, r_ms, r_bw,
                  cmp.speedup());
    } else {
      std::printf("%6u | %-26s %9.4f %8.1f %6.1f%% | %-26s %9.4f %8.1f | %15.3fx  %s\n", block, tname, t_ms, t_bw,
                  100 * t_bw / copy_gbs, "reduceCompleteUnrollWarps8", r_ms, r_bw, cmp.speedup(), result);
    }
  }
  if (!csv) {
    const cudaError_t err = launch_complete_unroll(96, d_in.get(), d_out.get(), n);
    std::printf("\nlaunch_complete_unroll(block=96): %s (%s)%s\n", cudaGetErrorName(err), cudaGetErrorString(err),
                complete_unroll_supported(96) ? "" : " -- 96 has no instantiation");
  }
  return EXIT_SUCCESS;
}
