/// @file baseline.cu
/// @brief Test-side baselines for ch05_06 (see baseline.cuh).
#include "baseline.cuh"
#include "blocks_that_talk.cuh"
#include "cudalab/launch.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

__device__ long long baseline_block_sum(long long v) {
  __shared__ long long s_warp[32];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) s_warp[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? s_warp[lane] : 0;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  __syncthreads();
  return v;
}

__global__ void twoPassPartials(const int *in, long long *partial, int n) {
  long long sum = 0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) sum += in[i];
  sum = baseline_block_sum(sum);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

__global__ void twoPassFinal(const long long *partial, int count, long long *out) {
  long long sum = 0;
  for (int b = threadIdx.x; b < count; b += blockDim.x) sum += partial[b];
  sum = baseline_block_sum(sum);
  if (threadIdx.x == 0) *out = sum;
}

}  // namespace

int baseline_grid(int n, int block) {
  if (n <= 0) return 1;
  const long long blocks = (static_cast<long long>(n) + block - 1) / block;
  return static_cast<int>(blocks < kMaxSinglePassBlocks ? blocks : kMaxSinglePassBlocks);
}

int baseline_blocks_per_sm(int block) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, twoPassPartials, block, 0) != cudaSuccess) return 0;
  return blocks;
}

cudaError_t launch_two_pass_baseline(const int *in, long long *partial, long long *out, int n, int block,
                                     cudaStream_t stream) {
  const int grid = baseline_grid(n, block);
  cudalab::launch(twoPassPartials, grid, block, 0, stream)(in, partial, n);
  cudalab::launch(twoPassFinal, 1, block, 0, stream)(partial, grid, out);
  return cudaGetLastError();
}

__global__ void gridSyncCount(unsigned int *arrived, unsigned int *seen) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) atomicAdd(arrived, 1u);
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) *seen = *arrived;
}
