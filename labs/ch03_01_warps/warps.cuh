/// @file warps.cuh
/// @brief Lab ch03_01 -- how blocks become warps (book section 3.1).
///
/// A block of any shape is laid out in one dimension, x fastest, then y, then z:
///   linear id = threadIdx.z * blockDim.y * blockDim.x + threadIdx.y * blockDim.x + threadIdx.x
/// and consecutive groups of 32 linear ids form the block's warps:
///   warp id = linear id / 32, lane id = linear id % 32.
/// A block whose size is not a multiple of 32 leaves the last warp partly empty: those lanes are
/// *inactive*, yet the warp is scheduled and its registers are allocated as for 32 lanes.
#pragma once

#include <cuda_runtime.h>

/// Threads per warp on every NVIDIA GPU so far (the device-side built-in is `warpSize`).
constexpr int kWarpSize = 32;

/// @brief What one thread records about itself (see recordWarpLayout).
struct WarpSlot {
  int x, y, z;  ///< threadIdx.x, threadIdx.y, threadIdx.z
  int linear;   ///< linear id of the thread in its block
  int warp;     ///< warp id in the block: linear / 32
  int lane;     ///< lane id in the warp: linear % 32
};

/// @brief Every thread writes its WarpSlot to
///   slots[block * threadsPerBlock + linear]
/// where block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z) is the linear
/// index of its block in the grid and threadsPerBlock = blockDim.x * blockDim.y * blockDim.z.
/// Works for any 1D, 2D or 3D block and grid; writes nothing else.
__global__ void recordWarpLayout(WarpSlot *slots);

/// @brief Warps the hardware allocates for one block: ceil(threads / 32).
int warps_per_block(dim3 block);

/// @brief Inactive lanes of a block: lanes of its warps that hold no thread (0 to 31).
int inactive_threads(dim3 block);

/// @brief Registers allocated to one block of a kernel using @p regs_per_thread registers per
/// thread. Registers are given to whole warps, in units of 256 per warp:
///   warps_per_block(block) * roundup(regs_per_thread * 32, 256).
/// Inactive lanes are paid for. 0 registers per thread give 0.
int registers_per_block(dim3 block, int regs_per_thread);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_warps.hpp")
#include "cudalab_apart_warps.hpp"
#endif
