/// @file adjacent_difference.cu
/// @brief Lab ch05_02: adjacent difference with a shared-memory tile and its halo (see README.md
/// and adjacent_difference.cuh).
#include "adjacent_difference.cuh"

#include <algorithm>
#include <initializer_list>

__global__ void adjacentDifferenceNaive(const int *input, int *result, int n) {
  // Given: every element is read twice from global memory -- input[i] by thread i, and again
  // as input[i - 1] by thread i + 1.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int x_i = input[i];
    const int x_left = i > 0 ? input[i - 1] : 0;  // i == 0 has no left neighbour: result[0] = input[0]
    result[i] = x_i - x_left;
  }
}

__global__ void adjacentDifferenceShared(const int *input, int *result, int n) {
  // TODO(ch05_02): declare the tile `extern __shared__ int s_data[];` (blockDim.x ints).
  // 1. i = blockIdx.x * blockDim.x + threadIdx.x; if i < n, copy input[i] into s_data[threadIdx.x].
  // 2. __syncthreads(): every thread of the block must have stored its element before any
  //    thread reads its neighbour's.
  // 3. if i < n: the left neighbour is s_data[threadIdx.x - 1] for threadIdx.x > 0; for thread 0
  //    it lives in the previous block's tile: read input[i - 1] from global memory (the halo),
  //    except for i == 0, which has none (result[0] = input[0]).
  //    result[i] = s_data[threadIdx.x] - left. Write nothing at or past n.
  (void)input;
  (void)result;
  (void)n;
}

LoadCounts predict_global_loads(long long n, unsigned int block) {
  LoadCounts c;
  // TODO(ch05_02): for every block b (adjacent_difference_grid(n, block) of them) and every warp
  // of it (32 consecutive threads; only lanes with i < n load), add up for each kernel:
  //  - loads: one per lane that loads (naive: input[i] and, for i > 0, input[i - 1]; shared:
  //    input[i], plus the halo input[i - 1] by thread 0 of every block b > 0),
  //  - warp_loads: one per load instruction of the warp with at least one lane loading,
  //  - sectors: the distinct 32-byte sectors (element k is in sector 4k / 32) of that instruction.
  (void)n;
  (void)block;
  return c;
}
