// The program DivergenceMetrics.* runs under Nsight Compute: one launch of the divergent baseline
// and one of heavyKernel2 (2^20 elements, block 256, 256-iteration arms). heavyKernel2's result
// is checked; a wrong result prints a reason and exits 1, so a wrong kernel earns no profile.
//
//   profile_target           run both kernels
//   profile_target --probe   print "[ CUDALAB  ] skipped: <why>" if there is no usable GPU
#include "cudalab/launch.cuh"
#include "divergence.cuh"
#include "divergence_check.cuh"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  if (!cudalab::driver_start(argc, argv, nullptr)) return 0;  // no GPU (skip line printed) or --probe
  const int n = 1 << 20, iters = 256;
  const unsigned block = 256, grid = divergence_grid(n, block);
  cudalab::DeviceBuffer<float> in, out;
  if (in.upload(heavy_input(n, 7)) != cudaSuccess || out.allocate(n) != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: profile target: cannot allocate device memory\n");
    return 1;
  }
  cudalab::launch(heavyDivergentBaseline, grid, block)(in.get(), out.get(), n, iters);
  const std::string error = heavy_error("heavyKernel2", heavyKernel2, n, block, iters, 7);
  if (!error.empty()) {
    std::printf("[ CUDALAB  ] reason: heavyKernel2 is not profiled until it is correct: %s\n", error.c_str());
    return 1;
  }
  std::printf("profile target: heavyKernel2 correct\n");
  return 0;
}
