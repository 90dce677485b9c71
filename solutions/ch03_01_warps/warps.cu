/// @file warps.cu
/// @brief Lab ch03_01: record how blocks become warps, and count warps, inactive lanes and
/// registers on the host (see README.md and warps.cuh).
#include "warps.cuh"

__global__ void recordWarpLayout(WarpSlot *slots) {
  // BEGIN SOLUTION
  const int linear = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const int threads_per_block = blockDim.x * blockDim.y * blockDim.z;
  const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  WarpSlot s;
  s.x = threadIdx.x;
  s.y = threadIdx.y;
  s.z = threadIdx.z;
  s.linear = linear;
  s.warp = linear / warpSize;
  s.lane = linear % warpSize;
  slots[static_cast<long long>(block) * threads_per_block + linear] = s;
  // STUB: // TODO(ch03_01): compute this thread's linear id in its block (x fastest, then y, then z),
  // STUB: // its warp id and lane id, and the linear index of its block in the grid; then write
  // STUB: // {threadIdx.x, threadIdx.y, threadIdx.z, linear, warp, lane} to
  // STUB: // slots[block * threadsPerBlock + linear]. Use the built-in warpSize.
  // STUB: (void)slots;
  // END SOLUTION
}

int warps_per_block(dim3 block) {
  // BEGIN SOLUTION
  const int threads = static_cast<int>(block.x * block.y * block.z);
  return (threads + kWarpSize - 1) / kWarpSize;
  // STUB: // TODO(ch03_01): ceil(threads per block / 32).
  // STUB: (void)block;
  // STUB: return 0;
  // END SOLUTION
}

int inactive_threads(dim3 block) {
  // BEGIN SOLUTION
  return warps_per_block(block) * kWarpSize - static_cast<int>(block.x * block.y * block.z);
  // STUB: // TODO(ch03_01): lanes allocated for the block's warps minus the block's threads.
  // STUB: (void)block;
  // STUB: return 0;
  // END SOLUTION
}

int registers_per_block(dim3 block, int regs_per_thread) {
  // BEGIN SOLUTION
  const int per_warp = (regs_per_thread * kWarpSize + 255) / 256 * 256;
  return warps_per_block(block) * per_warp;
  // STUB: // TODO(ch03_01): registers are allocated per warp (all 32 lanes, active or not),
  // STUB: // rounded up to a multiple of 256.
  // STUB: (void)block;
  // STUB: (void)regs_per_thread;
  // STUB: return 0;
  // END SOLUTION
}
