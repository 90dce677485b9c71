/// @file histogram.cu
/// @brief Lab ch05_01: the histogram of bytes, from global atomics to a privatised shared-memory
/// histogram (see README.md and histogram.cuh).
///
/// The lecture notes' shared kernel zeroes and merges bin t in thread t, which assumes a block of
/// at least 256 threads: with 128 threads half of the bins are never zeroed nor merged. A loop over
/// the bins must run t, t + blockDim.x, t + 2 * blockDim.x, ... so that any block size works.
#include "histogram.cuh"

#include <algorithm>
#include <cstdint>

// ---- given: the seed's naive kernel -------------------------------------------------------------
__global__ void histogramGlobal(const unsigned char *colors, unsigned int *buckets, size_t n) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&buckets[colors[i]], 1u);  // n global atomics on 256 addresses
}

// ---- yours ----------------------------------------------------------------------------------------
// (optional) your __device__ helper functions go here.

__global__ void histogramShared(const unsigned char *colors, unsigned int *buckets, size_t n) {
  // TODO(ch05_01): the privatised histogram (contract in histogram.cuh).
  //  1. __shared__ unsigned int s_hist[kNumBins]; every thread zeroes bins threadIdx.x,
  //     threadIdx.x + blockDim.x, ... (a block of 128 threads must still zero all 256);
  //     then __syncthreads()
  //  2. a grid-stride loop over the input: atomicAdd(&s_hist[byte], 1u) for every byte. For
  //     speed read 16 bytes at a time as uint4, from the first 16-byte boundary of colors
  //     on; count the head (bytes before it) and the tail (after the last whole uint4) one
  //     byte at a time
  //  3. __syncthreads(); then every thread adds bins threadIdx.x, threadIdx.x + blockDim.x,
  //     ... to buckets with atomicAdd: one global atomic per bin and block
}

unsigned int histogram_grid(size_t n, int sm_count, int blocks_per_sm, unsigned int block) {
  // TODO(ch05_01): min(one full wave = sm_count * blocks_per_sm, blocks needed to give every
  // thread one 16-byte group = ceil(ceil(n / 16) / block)), at least 1. Keep n in 64 bits.
  (void)n, (void)sm_count, (void)blocks_per_sm, (void)block;
  return 1;
}

// ---- given: the launch helpers ------------------------------------------------------------------
unsigned int histogram_shared_grid(size_t n, unsigned int block) {
  int device = 0, sm_count = 0, blocks_per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  // How many blocks of this kernel fit on one SM: its registers and shared memory decide.
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, histogramShared, static_cast<int>(block), 0);
  return histogram_grid(n, sm_count, blocks_per_sm, block);
}

cudaError_t run_histogram_shared(const unsigned char *colors, unsigned int *buckets, size_t n, unsigned int grid,
                                 unsigned int block, cudaStream_t stream) {
  cudaError_t err = cudaMemsetAsync(buckets, 0, kNumBins * sizeof(unsigned int), stream);  // the caller zeroes
  if (err != cudaSuccess) return err;
  histogramShared<<<grid, block, 0, stream>>>(colors, buckets, n);
  return cudaGetLastError();
}
