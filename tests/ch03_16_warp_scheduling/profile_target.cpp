// The program SchedulerPredictions.* and IssueBound.* run under Nsight Compute.
//
//   profile_target predictions   the probe (test-side chainsProbe<ILP>) at each configuration of
//                                probe_configs(), in that order: warps per scheduler pinned with
//                                dynamic shared memory, one chain per thread or 2 or 4 interleaved
//   profile_target kernels       the tests' copy of chainsSequential, then your chainsInterleaved,
//                                both at one block of 128 threads per SM (one warp per scheduler),
//                                2 elements per thread, kProfileSteps steps; yours is checked bit
//                                for bit on that very launch, so a wrong kernel earns no profile
//   profile_target --probe       print "[ CUDALAB  ] skipped: <why>" if there is no usable GPU
#include "baseline.cuh"
#include "scheduling_check.cuh"
#include "warp_scheduling.cuh"

#include "cudalab/testing.cuh"

#include <cstdio>

namespace {

constexpr int kProfileSteps = 4096;

int predictions(const cudalab::DeviceInfo &dev) {
  int most = 0;
  for (const ProbeConfig &p : probe_configs()) most = std::max(most, p.warps * p.ilp);
  const std::size_t floats = std::size_t(dev.sm_count) * most * kChainsBlock;
  const std::vector<float> x0 = cudalab::random_floats(floats, -1.0f, 1.0f, 3);
  const std::vector<float> c = cudalab::random_floats(floats, -1.9f, -1.4f, 4);
  cudalab::DeviceBuffer<float> d_x0, d_c, d_out;
  cudaError_t err = d_x0.upload(x0);
  if (err == cudaSuccess) err = d_c.upload(c);
  if (err == cudaSuccess) err = d_out.allocate(floats);
  if (err != cudaSuccess) return cudalab::driver_fail(std::string("profile target: setup: ") + cudaGetErrorString(err));
  for (const ProbeConfig &p : probe_configs()) {
    err = launch_probe(p.warps, p.ilp, dev.sm_count, d_x0.get(), d_c.get(), d_out.get());
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess)
      return cudalab::driver_fail("profile target: the probe at " + std::to_string(p.warps) + " warps per scheduler, ILP " +
                                  std::to_string(p.ilp) + " failed: " + cudaGetErrorString(err));
    std::printf("profile target: probe, %d warp(s) per scheduler, ILP %d\n", p.warps, p.ilp);
  }
  return 0;
}

int kernels(const cudalab::DeviceInfo &dev) {
  const unsigned int grid = unsigned(dev.sm_count);
  const int n = 2 * int(grid) * kChainsBlock;
  std::size_t dyn_base = 0, dyn = 0;
  cudaError_t err = pin_blocks_per_sm((const void *)chainsSequentialBaseline, kChainsBlock, 1, &dyn_base);
  if (err == cudaSuccess) err = pin_blocks_per_sm((const void *)chainsInterleaved, kChainsBlock, 1, &dyn);
  if (err != cudaSuccess)
    return cudalab::driver_fail(std::string("profile target: cannot pin one block per SM: ") + cudaGetErrorString(err));
  // The baseline: correct by construction (the tests' own copy), launched the same way.
  const std::string base = chains_error("chainsSequentialBaseline", chainsSequentialBaseline, n, kProfileSteps, grid,
                                        kChainsBlock, dyn_base, 11);
  if (!base.empty()) return cudalab::driver_fail("profile target: the baseline failed: " + base);
  const std::string error =
      chains_error("chainsInterleaved", chainsInterleaved, n, kProfileSteps, grid, kChainsBlock, dyn, 11);
  if (!error.empty()) return cudalab::driver_fail("chainsInterleaved is not profiled until it is correct: " + error);
  std::printf("profile target: chainsSequentialBaseline and chainsInterleaved correct (n=%d, steps=%d, grid %u x %d)\n",
              n, kProfileSteps, grid, kChainsBlock);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  std::string which;
  if (!cudalab::driver_start(argc, argv, &which)) return 0;  // no GPU (skip line printed) or --probe
  cudalab::DeviceInfo dev;
  if (cudalab::query_device(0, &dev) != cudaSuccess) return cudalab::driver_fail("profile target: cannot query the GPU");
  if (which == "predictions") return predictions(dev);
  if (which == "kernels") return kernels(dev);
  return cudalab::driver_fail("profile target: usage: profile_target predictions|kernels");
}
