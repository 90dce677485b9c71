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
  // TODO(ch05_06): the single-pass sum (contract in blocks_that_talk.cuh).
  //  1. a grid-stride loop over in[0, n) with a 64-bit index, summing into a long long;
  //  2. block_sum() (given above) -- thread 0 gets the block's sum;
  //  3. thread 0: partial[blockIdx.x] = sum; make it visible; take a ticket with atomicAdd;
  //     remember in a __shared__ flag whether the ticket was gridDim.x - 1;
  //  4. __syncthreads(); blocks that were not last return;
  //  5. the last block: (acquire) add partial[0, gridDim.x), block_sum(), thread 0 writes
  //     *out and resets *counter to 0.
  (void)in;
  (void)partial;
  (void)counter;
  (void)out;
  (void)n;
}

int single_pass_grid(int n, int block) {
  // TODO(ch05_06): 0 for a block that is not a power of two in [64, 1024]; otherwise
  // ceil(n / block) (64-bit: n + block - 1 may overflow int), at least 1, at most
  // kMaxSinglePassBlocks.
  (void)n;
  (void)block;
  return 0;
}

cudaError_t launch_reduce_single_pass(const int *in, long long *partial, unsigned int *counter, long long *out,
                                      int n, int block, cudaStream_t stream) {
  // TODO(ch05_06): cudaErrorInvalidValue for a bad block or n < 0 (no launch); otherwise
  // launch reduceSinglePass on single_pass_grid(n, block) blocks and return cudaGetLastError().
  (void)in;
  (void)partial;
  (void)counter;
  (void)out;
  (void)n;
  (void)block;
  (void)stream;
  return cudaErrorNotYetImplemented;
}

int max_cooperative_blocks(const SmLimits &sm, const KernelUse &use) {
  // TODO(ch05_06): blocks per SM = the smallest of the thread, block-slot, register and
  // shared-memory limits (the rules are in blocks_that_talk.cuh), times sm.sm_count.
  (void)sm;
  (void)use;
  return 0;
}
