// The program LayoutMetrics.* runs under Nsight Compute: one launch of the handed-out AoS kernel
// (test-side copy, testInnerStructBaseline) and one of the student's testInnerArray, both on
// 2^22 + 5 particles, block 256. testInnerArray's result is checked; a wrong result prints a
// reason and exits 1, so a wrong kernel earns no profile.
//
//   profile_target           run both kernels
//   profile_target --probe   print "[ CUDALAB  ] skipped: <why>" if there is no usable GPU
#include "cudalab/launch.cuh"
#include "layout_check.cuh"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  if (!cudalab::driver_start(argc, argv, nullptr)) return 0;  // no GPU (skip line printed) or --probe
  const int n = (1 << 22) + 5;
  const unsigned int block = 256;
  cudalab::DeviceBuffer<innerStruct> data, result;
  if (data.allocate(n) != cudaSuccess || result.allocate(n) != cudaSuccess ||
      cudaMemset(data.get(), 0, data.bytes()) != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: profile target: cannot allocate device memory\n");
    return 1;
  }
  cudalab::launch(testInnerStructBaseline, grid_1d(n, block), block)(data.get(), result.get(), n);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: profile target: the AoS baseline failed to run\n");
    return 1;
  }
  const std::string error = inner_array_error(n, block, 0, 7);
  if (!error.empty()) {
    std::printf("[ CUDALAB  ] reason: testInnerArray is not profiled until it is correct: %s\n", error.c_str());
    return 1;
  }
  std::printf("profile target: testInnerArray correct\n");
  return 0;
}
