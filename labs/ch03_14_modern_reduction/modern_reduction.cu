/// @file modern_reduction.cu
/// @brief Lab ch03_14: the reduction as it is written today (see README.md and modern_reduction.cuh).
///
/// The book's last warp (`volatile int *vmem; vmem[tid] += vmem[tid + 32]; ...`) relies on the 32
/// lanes of a warp executing in lockstep. Since Volta (independent thread scheduling) they do not
/// have to: that code is a data race. Warp-level data exchange is done with __shfl_down_sync (or
/// cooperative groups' cg::reduce), which moves values between registers of the lanes named in
/// the mask -- no shared memory, no race, fewer instructions.
#include "modern_reduction.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>
#include <cstdint>

namespace cg = cooperative_groups;

/// @brief Sum of @p v over the 32 lanes of the calling warp; the result is valid in lane 0.
/// All 32 lanes must call it (full mask).
__device__ __forceinline__ int warpReduceSum(int v) {
  // TODO(ch03_14): five steps of v += __shfl_down_sync(0xffffffff, v, offset) for
  // offset = 16, 8, 4, 2, 1 (lane i adds lane i + offset's value); lane 0 ends with the sum.
  return v;
}

__global__ void reduceShuffle8(const int *g_idata, int *g_odata, unsigned int n) {
  // TODO(ch03_14): the Unrolling8 chunk, reduced with shuffles instead of a tree.
  //  - each thread adds g_idata[base + k * blockDim.x] for k = 0..7 where the index is < n,
  //    base = blockIdx.x * blockDim.x * 8 + threadIdx.x
  //  - sum = warpReduceSum(sum); lane 0 of each warp stores it in __shared__ int warp_sums[32]
  //  - __syncthreads(); warp 0 loads warp_sums[lane] (0 for lanes >= blockDim.x / 32),
  //    reduces again, and lane 0 writes g_odata[blockIdx.x]
}

__global__ void reduceModern(const int *g_idata, unsigned int n, int *g_sum) {
  // TODO(ch03_14): one pass over [0, n), one atomicAdd(g_sum, block_sum) per block.
  //  1. head = ints before the first 16-byte boundary of g_idata (0..3, at most n);
  //     vec = (const int4 *)(g_idata + head); nvec = (n - head) / 4; tail = what is left after vec
  //  2. grid-stride loop over vec[i], i = global thread id, step gridDim.x * blockDim.x
  //     (several int4 per iteration keep more loads in flight); the first threads also add
  //     the head and tail ints
  //  3. warp sums with cg::reduce(tile, sum, cg::plus<int>()) (or warpReduceSum), warp sums
  //     through __shared__ memory and a barrier, warp 0 reduces them, one atomicAdd per block
}

unsigned int modern_grid(unsigned int n, int sm_count, int max_threads_per_sm, unsigned int block) {
  // TODO(ch03_14): min(one full wave, blocks needed for ceil(n / 4) int4 groups), at least 1.
  (void)n, (void)sm_count, (void)max_threads_per_sm, (void)block;
  return 1;
}
