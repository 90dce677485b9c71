/// @file blocks_that_talk.cu
/// @brief Lab ch05_06: the student's part (see README.md and blocks_that_talk.cuh).
#include "blocks_that_talk.cuh"

#include <cuda/atomic>  // cuda::atomic_ref, if you prefer release/acquire atomics to fences

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
  // BEGIN SOLUTION
  __shared__ bool s_is_last;
  long long sum = 0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) sum += in[i];
  sum = block_sum(sum);

  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    __threadfence();  // release: partial[blockIdx.x] is visible GPU-wide before the ticket is
    const unsigned int ticket = atomicAdd(counter, 1u);
    s_is_last = ticket == gridDim.x - 1;
    if (s_is_last) __threadfence();  // acquire: every other block's partial is visible from here on
  }
  __syncthreads();
  if (!s_is_last) return;

  long long total = 0;
  for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += partial[b];
  total = block_sum(total);
  if (threadIdx.x == 0) {
    *out = total;
    *counter = 0;  // ready for the next launch (which cannot start before this one ends)
  }
  // STUB: // TODO(ch05_06): the single-pass sum (contract in blocks_that_talk.cuh).
  // STUB: //  1. a grid-stride loop over in[0, n) with a 64-bit index, summing into a long long;
  // STUB: //  2. block_sum() (given above) -- thread 0 gets the block's sum;
  // STUB: //  3. thread 0: partial[blockIdx.x] = sum; make it visible; take a ticket with atomicAdd;
  // STUB: //     remember in a __shared__ flag whether the ticket was gridDim.x - 1;
  // STUB: //  4. __syncthreads(); blocks that were not last return;
  // STUB: //  5. the last block: (acquire) add partial[0, gridDim.x), block_sum(), thread 0 writes
  // STUB: //     *out and resets *counter to 0.
  // STUB: (void)in;
  // STUB: (void)partial;
  // STUB: (void)counter;
  // STUB: (void)out;
  // STUB: (void)n;
  // END SOLUTION
}

int single_pass_grid(int n, int block) {
  // BEGIN SOLUTION
  if (block < 64 || block > 1024 || (block & (block - 1)) != 0) return 0;
  if (n <= 0) return 1;
  const long long blocks = (static_cast<long long>(n) + block - 1) / block;
  return static_cast<int>(blocks < kMaxSinglePassBlocks ? blocks : kMaxSinglePassBlocks);
  // STUB: // TODO(ch05_06): 0 for a block that is not a power of two in [64, 1024]; otherwise
  // STUB: // ceil(n / block) (64-bit: n + block - 1 may overflow int), at least 1, at most
  // STUB: // kMaxSinglePassBlocks.
  // STUB: (void)n;
  // STUB: (void)block;
  // STUB: return 0;
  // END SOLUTION
}

cudaError_t launch_reduce_single_pass(const int *in, long long *partial, unsigned int *counter, long long *out,
                                      int n, int block, cudaStream_t stream) {
  // BEGIN SOLUTION
  const int grid = single_pass_grid(n, block);
  if (grid == 0 || n < 0) return cudaErrorInvalidValue;
  reduceSinglePass<<<grid, block, 0, stream>>>(in, partial, counter, out, n);
  return cudaGetLastError();
  // STUB: // TODO(ch05_06): cudaErrorInvalidValue for a bad block or n < 0 (no launch); otherwise
  // STUB: // launch reduceSinglePass on single_pass_grid(n, block) blocks and return cudaGetLastError().
  // STUB: (void)in;
  // STUB: (void)partial;
  // STUB: (void)counter;
  // STUB: (void)out;
  // STUB: (void)n;
  // STUB: (void)block;
  // STUB: (void)stream;
  // STUB: return cudaErrorNotYetImplemented;
  // END SOLUTION
}

int max_cooperative_blocks(const SmLimits &sm, const KernelUse &use) {
  // BEGIN SOLUTION
  if (use.threads_per_block < 1 || use.threads_per_block > sm.max_threads_per_sm) return 0;
  const int warps = (use.threads_per_block + 31) / 32;
  int blocks = sm.max_threads_per_sm / (warps * 32);
  if (sm.max_blocks_per_sm < blocks) blocks = sm.max_blocks_per_sm;
  if (use.regs_per_thread > 0) {
    const int unit = sm.reg_alloc_unit > 0 ? sm.reg_alloc_unit : 1;
    const int regs_per_warp = (use.regs_per_thread * 32 + unit - 1) / unit * unit;
    const int warps_per_sub = (sm.regs_per_sm / sm.sub_partitions) / regs_per_warp;
    const int by_regs = warps_per_sub * sm.sub_partitions / warps;
    if (by_regs < blocks) blocks = by_regs;
  }
  const std::size_t smem = use.smem_per_block + sm.smem_reserved_per_block;
  if (smem > 0) {
    const std::size_t unit = sm.smem_alloc_unit > 0 ? sm.smem_alloc_unit : 1;
    const std::size_t by_smem = sm.smem_per_sm / ((smem + unit - 1) / unit * unit);
    if (by_smem < static_cast<std::size_t>(blocks)) blocks = static_cast<int>(by_smem);
  }
  return blocks * sm.sm_count;
  // STUB: // TODO(ch05_06): blocks per SM = the smallest of the thread, block-slot, register and
  // STUB: // shared-memory limits (the rules are in blocks_that_talk.cuh), times sm.sm_count.
  // STUB: (void)sm;
  // STUB: (void)use;
  // STUB: return 0;
  // END SOLUTION
}
