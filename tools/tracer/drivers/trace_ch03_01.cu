/// @file trace_ch03_01.cu
/// @brief Small-input driver for ch03_01: recordWarpLayout on a 2D block (16 x 3 = 48 threads:
/// one full warp, one half-empty) and a 3D block (4 x 4 x 3 = 48 threads), one block each.
#include "warps.cuh"

#include "driver_util.cuh"

/// @brief Launches recordWarpLayout once per block shape.
int main() {
  require_gpu();
  const dim3 shapes[] = {dim3(16, 3, 1), dim3(4, 4, 3)};
  for (const dim3 &b : shapes) {
    auto slots = zeroed<WarpSlot>(static_cast<size_t>(b.x) * b.y * b.z);
    recordWarpLayout<<<1, b>>>(slots.get());
    finish("recordWarpLayout");
  }
  return EXIT_SUCCESS;
}
