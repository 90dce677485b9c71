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
  // BEGIN SOLUTION
  extern __shared__ int s_data[];  // the tile: blockDim.x ints (adjacent_difference_smem_bytes)
  const unsigned int tx = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + tx;
  if (i < n) s_data[tx] = input[i];  // each element is read from global memory once
  __syncthreads();                   // the whole tile is in before any thread reads its neighbour
  if (i < n) {
    int left = 0;  // i == 0: result[0] = input[0]
    if (tx > 0)
      left = s_data[tx - 1];  // the neighbour is in this block's tile
    else if (i > 0)
      left = input[i - 1];  // block boundary: the halo is the previous block's last element
    result[i] = s_data[tx] - left;
  }
  // STUB: // TODO(ch05_02): declare the tile `extern __shared__ int s_data[];` (blockDim.x ints).
  // STUB: // 1. i = blockIdx.x * blockDim.x + threadIdx.x; if i < n, copy input[i] into s_data[threadIdx.x].
  // STUB: // 2. __syncthreads(): every thread of the block must have stored its element before any
  // STUB: //    thread reads its neighbour's.
  // STUB: // 3. if i < n: the left neighbour is s_data[threadIdx.x - 1] for threadIdx.x > 0; for thread 0
  // STUB: //    it lives in the previous block's tile: read input[i - 1] from global memory (the halo),
  // STUB: //    except for i == 0, which has none (result[0] = input[0]).
  // STUB: //    result[i] = s_data[threadIdx.x] - left. Write nothing at or past n.
  // STUB: (void)input;
  // STUB: (void)result;
  // STUB: (void)n;
  // END SOLUTION
}

LoadCounts predict_global_loads(long long n, unsigned int block) {
  LoadCounts c;
  // BEGIN SOLUTION
  if (n <= 0 || block == 0) return c;
  // Lanes load consecutive elements first..last: the sectors from 4*first/32 to 4*last/32.
  auto sectors = [](long long first, long long last) { return last * 4 / 32 - first * 4 / 32 + 1; };
  const long long blocks = (n + block - 1) / block;
  for (long long b = 0; b < blocks; ++b) {
    const long long begin = b * block, end = std::min(n, begin + block);  // this block's elements
    for (long long first = begin; first < end; first += 32) {             // one warp: up to 32 lanes
      const long long last = std::min(end, first + 32) - 1;
      // input[i]: the same in both kernels.
      for (LoadCount *k : {&c.naive, &c.shared}) {
        k->loads += last - first + 1;
        k->warp_loads += 1;
        k->sectors += sectors(first, last);
      }
      // Naive: input[i - 1] for the lanes with i > 0.
      const long long lo = std::max(first, 1LL);
      if (lo <= last) {
        c.naive.loads += last - lo + 1;
        c.naive.warp_loads += 1;
        c.naive.sectors += sectors(lo - 1, last - 1);
      }
    }
    // Shared: the halo, one element loaded by thread 0 of every block but block 0.
    if (b > 0) {
      c.shared.loads += 1;
      c.shared.warp_loads += 1;
      c.shared.sectors += 1;
    }
  }
  // STUB: // TODO(ch05_02): for every block b (adjacent_difference_grid(n, block) of them) and every warp
  // STUB: // of it (32 consecutive threads; only lanes with i < n load), add up for each kernel:
  // STUB: //  - loads: one per lane that loads (naive: input[i] and, for i > 0, input[i - 1]; shared:
  // STUB: //    input[i], plus the halo input[i - 1] by thread 0 of every block b > 0),
  // STUB: //  - warp_loads: one per load instruction of the warp with at least one lane loading,
  // STUB: //  - sectors: the distinct 32-byte sectors (element k is in sector 4k / 32) of that instruction.
  // STUB: (void)n;
  // STUB: (void)block;
  // END SOLUTION
  return c;
}
