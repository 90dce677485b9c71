/// @file trace_ch04_02.cu
/// @brief Small-input driver for ch04_02: readOffset with offsets 0 and 1, and readStride with
/// strides 1 and 32, on n = 128 floats in blocks of 64 threads (2 blocks of 2 warps).
#include "coalescing.cuh"

#include "driver_util.cuh"

/// @brief Runs the aligned, misaligned, unit-stride and 32-stride reads once each.
int main() {
  require_gpu();
  const int n = 128;
  const unsigned int block = 64;
  auto a = zeroed<float>(n * 32);
  auto b = zeroed<float>(n * 32);
  auto c = zeroed<float>(n);
  for (int offset : {0, 1}) {
    readOffset<<<grid_1d(n, block), block>>>(a.get(), b.get(), c.get(), n, offset);
    finish(offset == 0 ? "readOffset offset 0" : "readOffset offset 1");
  }
  for (int stride : {1, 32}) {
    readStride<<<grid_1d(n, block), block>>>(a.get(), c.get(), n, stride);
    finish(stride == 1 ? "readStride stride 1" : "readStride stride 32");
  }
  return EXIT_SUCCESS;
}
