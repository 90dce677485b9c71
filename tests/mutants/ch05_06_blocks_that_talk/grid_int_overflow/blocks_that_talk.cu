/// @file blocks_that_talk.cu
/// @brief Lab ch05_06: the student's part (see README.md and blocks_that_talk.cuh).
#include "blocks_that_talk.cuh"

#include <cuda/atomic>  // cuda::atomic_ref, if you prefer release/acquire atomics to fences

#include <algorithm>

namespace {

/// Given: the sum of @p v over the block (blockDim.x a power of two from 64 to 1024), returned
/// to thread 0 (the other threads get an unspecified value). Warp shuffles, then warp 0 adds the
/// warp sums from shared memory. Every thread of the block must call it.
[[maybe_unused]] __device__ long long block_sum(long long v) {
  __shared__ long long s_warp[32];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) s_warp[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? s_warp[lane] : 0;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  __syncthreads();  // s_warp may be used again by a second call
  return v;
}

}  // namespace


__global__ void reduceSinglePass(const int *in, long long *partial, unsigned int *counter, long long *out, int n) {
  __shared__ bool s_is_last;

  // 1. grid-stride loop, 64-bit index and 64-bit sum from the first addition.
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long sum = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) sum += in[i];

  // 2. the block's sum, in thread 0.
  sum = block_sum(sum);

  // 3. publish it, release, then take a ticket.
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    __threadfence();  // release: the partial is visible GPU-wide before the ticket
    const unsigned int ticket = atomicAdd(counter, 1u);
    s_is_last = (ticket == gridDim.x - 1);
  }
  __syncthreads();
  if (!s_is_last) return;

  // 4. the last block: acquire, then add the partials.
  __threadfence();  // acquire: don't read partials from before the other blocks' releases
  long long total = 0;
  for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += partial[b];
  total = block_sum(total);
  if (threadIdx.x == 0) {
    *out = total;
    *counter = 0;  // ready for the next launch
  }
}

namespace {
bool valid_block(int block) { return block >= 64 && block <= 1024 && (block & (block - 1)) == 0; }
}  // namespace

int single_pass_grid(int n, int block) {
  if (!valid_block(block)) return 0;
  const int grid = (n + block - 1) / block;
  return std::min(std::max(grid, 1), kMaxSinglePassBlocks);
}

cudaError_t launch_reduce_single_pass(const int *in, long long *partial, unsigned int *counter, long long *out,
                                      int n, int block, cudaStream_t stream) {
  if (n < 0 || !valid_block(block)) return cudaErrorInvalidValue;
  const int grid = single_pass_grid(n, block);
  reduceSinglePass<<<grid, block, 0, stream>>>(in, partial, counter, out, n);
  return cudaGetLastError();
}

int max_cooperative_blocks(const SmLimits &sm, const KernelUse &use) {
  if (use.threads_per_block < 1) return 0;
  const long long warps_per_block = (use.threads_per_block + 31) / 32;

  // threads
  long long per_sm = sm.max_threads_per_sm / (warps_per_block * 32);
  // block slots
  if (sm.max_blocks_per_sm < per_sm) per_sm = sm.max_blocks_per_sm;

  // registers: whole warps per sub-partition
  if (use.regs_per_thread > 0) {
    const long long unit = sm.reg_alloc_unit > 0 ? sm.reg_alloc_unit : 1;
    const long long regs_per_warp = (static_cast<long long>(use.regs_per_thread) * 32 + unit - 1) / unit * unit;
    const long long parts = sm.sub_partitions > 0 ? sm.sub_partitions : 1;
    const long long regs_per_part = sm.regs_per_sm / parts;
    const long long warps = (regs_per_part / regs_per_warp) * parts;
    const long long by_regs = warps / warps_per_block;
    if (by_regs < per_sm) per_sm = by_regs;
  }

  // shared memory
  const std::size_t smem = use.smem_per_block + sm.smem_reserved_per_block;
  if (smem > 0) {
    const std::size_t unit = sm.smem_alloc_unit > 0 ? sm.smem_alloc_unit : 1;
    const std::size_t alloc = (smem + unit - 1) / unit * unit;
    const long long by_smem = static_cast<long long>(sm.smem_per_sm / alloc);
    if (by_smem < per_sm) per_sm = by_smem;
  }

  if (per_sm < 0) per_sm = 0;
  return static_cast<int>(per_sm * sm.sm_count);
}
