/// @file adjacent_difference.cuh
/// @brief Lab ch05_02 -- adjacent difference: a shared-memory tile with its halo, so that every
/// element is read from global memory once instead of twice (memory-hierarchy notes, "Example -
/// shared variables").
///
/// result[i] = input[i] - input[i - 1] for 0 < i < n, and result[0] = input[0] (the convention of
/// std::adjacent_difference and thrust::adjacent_difference: the first element has no left
/// neighbour and is copied). Thread i of the grid (i = blockIdx.x * blockDim.x + threadIdx.x)
/// writes result[i] if i < n, and nothing else.
#pragma once

#include "cudalab/launch.cuh"

#include <cuda_runtime.h>

#include <cstddef>

/// Block size of the performance tests, the profile and the demo.
constexpr unsigned int kAdjacentBlock = 256;

/// @brief GIVEN (the naive version): thread i reads input[i] and input[i - 1] straight from
/// global memory, so every element is read twice -- once by its own thread and once by the thread
/// to its right. Launch with adjacent_difference_grid(n, block) blocks; no shared memory.
/// @param input n ints (read only)
/// @param result n ints: result[i] = input[i] - input[i - 1], result[0] = input[0]
/// @param n number of elements (>= 0)
__global__ void adjacentDifferenceNaive(const int *input, int *result, int n);

/// @brief YOURS: the same result, reading each element from global memory once. Each block
/// copies its tile (one element per thread) into shared memory, waits at a barrier, and takes the
/// left neighbour from the tile; thread 0 of every block but block 0 reads its left neighbour --
/// the last element of the previous block's tile, the halo -- from global memory. Launch with
/// launch_adjacent_difference_shared(); correct for any n >= 0 and any block of 1 to 1024 threads.
/// @param input n ints (read only)
/// @param result n ints: result[i] = input[i] - input[i - 1], result[0] = input[0]
/// @param n number of elements (>= 0)
__global__ void adjacentDifferenceShared(const int *input, int *result, int n);

/// @brief Blocks for n elements, one thread per element (at least 1, so n = 0 is a valid launch).
/// @param n number of elements
/// @param block threads per block
inline unsigned int adjacent_difference_grid(int n, unsigned int block) {
  return n > 0 ? static_cast<unsigned int>((static_cast<long long>(n) + block - 1) / block) : 1u;
}

/// @brief Dynamic shared memory for adjacentDifferenceShared: room for the tile (blockDim.x
/// ints) and one halo slot. The seed's form uses the first blockDim.x; a kernel that keeps the
/// halo in shared memory too may use all blockDim.x + 1.
/// @param block threads per block
inline std::size_t adjacent_difference_smem_bytes(unsigned int block) { return (block + 1) * sizeof(int); }

/// @brief Launches adjacentDifferenceShared on @p stream with adjacent_difference_grid(n, block)
/// blocks of @p block threads and adjacent_difference_smem_bytes(block) bytes of dynamic shared
/// memory (`extern __shared__ int s_data[];` in the kernel).
/// @param input n ints on the device
/// @param result n ints on the device
/// @param n number of elements
/// @param block threads per block (1 to 1024)
/// @param stream CUDA stream (default: the default stream)
inline void launch_adjacent_difference_shared(const int *input, int *result, int n, unsigned int block,
                                              cudaStream_t stream = 0) {
  cudalab::launch(adjacentDifferenceShared, adjacent_difference_grid(n, block), block,
                  adjacent_difference_smem_bytes(block), stream)(input, result, n);
}

/// @brief What one kernel asks of global memory for its loads of @p input.
struct LoadCount {
  long long loads = 0;       ///< element loads by threads (the seed's count: 2N vs N + N/block)
  long long warp_loads = 0;  ///< warp-level load instructions in which at least one lane loads
  long long sectors = 0;     ///< 32-byte sectors those instructions touch, summed over the instructions
};

/// @brief The naive and the shared-memory kernel side by side.
struct LoadCounts {
  LoadCount naive;   ///< adjacentDifferenceNaive
  LoadCount shared;  ///< adjacentDifferenceShared in the seed's form
};

/// @brief Predicts, on paper, the global loads of both kernels for n elements launched with
/// adjacent_difference_grid(n, block) blocks of @p block threads (the seed's "optimization
/// analysis", refined to what a profiler counts).
///
/// Thread t of block b handles element i = b * block + t if i < n (other threads load nothing).
/// The naive kernel has two load instructions: input[i], then input[i - 1] (not for i = 0). The
/// shared kernel loads input[i] into the tile, and thread 0 of every block b > 0 loads the halo
/// input[i - 1] (one more instruction, in warp 0 of that block). A warp is 32 consecutive threads
/// of one block (the last warp of a block may have fewer). For each warp and each load
/// instruction with at least one lane loading: one warp load, and one sector for every distinct
/// 32-byte sector among the lanes' addresses (input is 32-byte aligned: element k lies in sector
/// 4k / 32). Nsight Compute counts the sectors as l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum.
/// @param n number of elements (>= 0), at most 2^31 - 1 blocks of @p block threads (gridDim.x's
///        limit: a launch cannot have more)
/// @param block threads per block (>= 1)
LoadCounts predict_global_loads(long long n, unsigned int block);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_adjacent_difference.hpp")
#include "cudalab_apart_adjacent_difference.hpp"
#endif
