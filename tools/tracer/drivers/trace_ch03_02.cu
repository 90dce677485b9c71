/// @file trace_ch03_02.cu
/// @brief Small-input driver for ch03_02: every kernel on n = 128 elements in blocks of 64 threads
/// (2 blocks of 2 warps); the heavy kernels with 4 iterations per arm.
#include "divergence.cuh"

#include "driver_util.cuh"

/// @brief Runs mathKernel1..4, heavyKernel1 and heavyKernel2 once each.
int main() {
  require_gpu();
  const int n = 128;
  const unsigned int block = 64, grid = divergence_grid(n, block);
  auto in = zeroed<float>(n);
  auto out = zeroed<float>(n);
  CUDALAB_CHECK(in.upload(std::vector<float>(n, 1.0f)));
  void (*math[])(float *, int) = {mathKernel1, mathKernel2, mathKernel3, mathKernel4};
  for (auto k : math) {
    k<<<grid, block>>>(out.get(), n);
    finish("mathKernel");
  }
  heavyKernel1<<<grid, block>>>(in.get(), out.get(), n, 4);
  finish("heavyKernel1");
  heavyKernel2<<<grid, block>>>(in.get(), out.get(), n, 4);
  finish("heavyKernel2");
  return EXIT_SUCCESS;
}
