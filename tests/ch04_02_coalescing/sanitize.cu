// ch04_02 compute-sanitizer driver: `ch04_02_coalescing_sanitize <case>` runs one case. Every
// array is allocated with exactly n elements, so any access past the end is outside an allocation.
//
//   rw_offset         readWriteOffset, n = 100003, offsets 0, 1, 11, 4096 and n - 3, block 256
//                                                                        memcheck: clean
//   inner_array       testInnerArray, n = 100003, block 256              memcheck: clean
//   offset_past_end   exhibit: readWriteOffset guarding the thread (i < n) instead of the element
//                     (i + offset < n), offset 11                        memcheck: flagged
// The clean cases check the student's kernel's result too and exit 1 with a reason if it is wrong
// (so they fail for a kernel that is wrong but stays in bounds). The exhibit is test-side, broken on
// purpose, and independent of the student's code: it proves the check can fail. `--probe` prints a
// skip line when there is no GPU.
#include "cudalab/launch.cuh"
#include "layout_check.cuh"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

/// Exhibit: the guard tests the thread, not the element it touches -- the last `offset` threads
/// read and write past the end of the arrays.
__global__ void readWriteOffsetGuardOnThread(const float *A, const float *B, float *C, int n, int offset) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int k = i + static_cast<unsigned int>(offset);
  if (i < static_cast<unsigned int>(n)) C[k] = A[k] + B[k];
}

}  // namespace

int main(int argc, char **argv) {
  std::string c;
  if (!cudalab::driver_start(argc, argv, &c)) return 0;  // no GPU (skip line printed) or --probe
  const int n = 100003;
  const unsigned int block = 256;

  if (c == "rw_offset") {
    for (int offset : {0, 1, 11, 4096, n - 3}) {
      const std::string error = read_write_offset_error(n, offset, block, 0, 42 + offset);
      if (!error.empty()) return cudalab::driver_fail(error);
    }
    return 0;
  }
  if (c == "inner_array") {
    const std::string error = inner_array_error(n, block, 0, 42);
    return error.empty() ? 0 : cudalab::driver_fail(error);
  }
  if (c == "offset_past_end") {
    cudalab::DeviceBuffer<float> a, b, out;
    a.upload(cudalab::random_floats(n, -1.f, 1.f, 1));
    b.upload(cudalab::random_floats(n, -1.f, 1.f, 2));
    out.allocate(n);
    cudalab::launch(readWriteOffsetGuardOnThread, grid_1d(n, block), block)(a.get(), b.get(), out.get(), n, 11);
    cudaDeviceSynchronize();
    return 0;
  }
  std::printf("usage: %s rw_offset|inner_array|offset_past_end|--probe\n", argv[0]);
  return 2;
}
