/// @file warps.cu
/// @brief Lab ch03_01: record how blocks become warps, and count warps, inactive lanes and
/// registers on the host (see README.md and warps.cuh).
#include "warps.cuh"

__global__ void recordWarpLayout(WarpSlot *slots) {
  // TODO(ch03_01): compute this thread's linear id in its block (x fastest, then y, then z),
  // its warp id and lane id, and the linear index of its block in the grid; then write
  // {threadIdx.x, threadIdx.y, threadIdx.z, linear, warp, lane} to
  // slots[block * threadsPerBlock + linear]. Use the built-in warpSize.
  (void)slots;
}

int warps_per_block(dim3 block) {
  // TODO(ch03_01): ceil(threads per block / 32).
  (void)block;
  return 0;
}

int inactive_threads(dim3 block) {
  // TODO(ch03_01): lanes allocated for the block's warps minus the block's threads.
  (void)block;
  return 0;
}

int registers_per_block(dim3 block, int regs_per_thread) {
  // TODO(ch03_01): registers are allocated per warp (all 32 lanes, active or not),
  // rounded up to a multiple of 256.
  (void)block;
  (void)regs_per_thread;
  return 0;
}
