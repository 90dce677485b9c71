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
  // BEGIN SOLUTION
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
  // STUB: // TODO(ch03_14): five steps of v += __shfl_down_sync(0xffffffff, v, offset) for
  // STUB: // offset = 16, 8, 4, 2, 1 (lane i adds lane i + offset's value); lane 0 ends with the sum.
  // STUB: return v;
  // END SOLUTION
}

__global__ void reduceShuffle8(const int *g_idata, int *g_odata, unsigned int n) {
  // BEGIN SOLUTION
  __shared__ int warp_sums[32];
  const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const unsigned int base = blockIdx.x * blockDim.x * 8 + tid;

  int sum = 0;
#pragma unroll
  for (unsigned int k = 0; k < 8; ++k) {  // 8 independent, coalesced loads in flight per thread
    const unsigned int i = base + k * blockDim.x;
    if (i < n) sum += g_idata[i];
  }
  sum = warpReduceSum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();  // warp 0 reads what the other warps' lane 0 wrote
  if (warp == 0) {
    sum = lane < blockDim.x / 32 ? warp_sums[lane] : 0;
    sum = warpReduceSum(sum);
    if (lane == 0) g_odata[blockIdx.x] = sum;
  }
  // STUB: // TODO(ch03_14): the Unrolling8 chunk, reduced with shuffles instead of a tree.
  // STUB: //  - each thread adds g_idata[base + k * blockDim.x] for k = 0..7 where the index is < n,
  // STUB: //    base = blockIdx.x * blockDim.x * 8 + threadIdx.x
  // STUB: //  - sum = warpReduceSum(sum); lane 0 of each warp stores it in __shared__ int warp_sums[32]
  // STUB: //  - __syncthreads(); warp 0 loads warp_sums[lane] (0 for lanes >= blockDim.x / 32),
  // STUB: //    reduces again, and lane 0 writes g_odata[blockIdx.x]
  // END SOLUTION
}

__global__ void reduceModern(const int *g_idata, unsigned int n, int *g_sum) {
  // BEGIN SOLUTION
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ int warp_sums[32];

  // Split [0, n) into a head (ints before the first 16-byte boundary), whole int4 groups, and a tail.
  const unsigned int misalign = static_cast<unsigned int>(reinterpret_cast<std::uintptr_t>(g_idata) % 16);
  const unsigned int head = min(n, ((16 - misalign) % 16) / 4u);
  const int4 *vec = reinterpret_cast<const int4 *>(g_idata + head);
  const unsigned int nvec = (n - head) / 4;
  const unsigned int tail_start = head + 4 * nvec;

  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  int sum = 0;
  unsigned int i = t;
  for (; i + 3 * stride < nvec; i += 4 * stride) {  // four 16-byte loads in flight per thread
    const int4 a = vec[i], b = vec[i + stride], c = vec[i + 2 * stride], d = vec[i + 3 * stride];
    sum += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) + (d.x + d.y + d.z + d.w);
  }
  for (; i < nvec; i += stride) {
    const int4 a = vec[i];
    sum += a.x + a.y + a.z + a.w;
  }
  if (t < head) sum += g_idata[t];                         // at most 3 ints
  if (t < n - tail_start) sum += g_idata[tail_start + t];  // at most 3 ints

  sum = cg::reduce(warp, sum, cg::plus<int>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = sum;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    sum = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0;
    sum = cg::reduce(warp, sum, cg::plus<int>());
    if (warp.thread_rank() == 0) atomicAdd(g_sum, sum);  // one atomic per block
  }
  // STUB: // TODO(ch03_14): one pass over [0, n), one atomicAdd(g_sum, block_sum) per block.
  // STUB: //  1. head = ints before the first 16-byte boundary of g_idata (0..3, at most n);
  // STUB: //     vec = (const int4 *)(g_idata + head); nvec = (n - head) / 4; tail = what is left after vec
  // STUB: //  2. grid-stride loop over vec[i], i = global thread id, step gridDim.x * blockDim.x
  // STUB: //     (several int4 per iteration keep more loads in flight); the first threads also add
  // STUB: //     the head and tail ints
  // STUB: //  3. warp sums with cg::reduce(tile, sum, cg::plus<int>()) (or warpReduceSum), warp sums
  // STUB: //     through __shared__ memory and a barrier, warp 0 reduces them, one atomicAdd per block
  // END SOLUTION
}

unsigned int modern_grid(unsigned int n, int sm_count, int max_threads_per_sm, unsigned int block) {
  // BEGIN SOLUTION
  const unsigned long long wave = static_cast<unsigned long long>(std::max(sm_count, 0)) *
                                  (static_cast<unsigned int>(std::max(max_threads_per_sm, 0)) / block);
  const unsigned long long groups = (static_cast<unsigned long long>(n) + 3) / 4;  // int4 groups, tail included
  const unsigned long long needed = (groups + block - 1) / block;
  return static_cast<unsigned int>(std::max(1ull, std::min(wave, needed)));
  // STUB: // TODO(ch03_14): min(one full wave, blocks needed for ceil(n / 4) int4 groups), at least 1.
  // STUB: (void)n, (void)sm_count, (void)max_threads_per_sm, (void)block;
  // STUB: return 1;
  // END SOLUTION
}
