/// @file histogram.cu
/// @brief one_histogram_variant counted with hist[b]++ instead of atomicAdd: load, add, store,
/// so two threads on one bin lose a count (a plausible wrong submission).
#include "histogram.cuh"

#include <algorithm>
#include <cstdint>

__global__ void histogramGlobal(const unsigned char *colors, unsigned int *buckets, size_t n) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&buckets[colors[i]], 1u);
}

namespace {

__device__ __forceinline__ void count4(unsigned int *hist, unsigned int w) {
  hist[w & 0xFFu]++;
  hist[(w >> 8) & 0xFFu]++;
  hist[(w >> 16) & 0xFFu]++;
  hist[w >> 24]++;
}

}  // namespace

__global__ void histogramShared(const unsigned char *colors, unsigned int *buckets, size_t n) {
  __shared__ unsigned int hist[kNumBins];
  for (unsigned int b = threadIdx.x; b < kNumBins; b += blockDim.x) hist[b] = 0;
  __syncthreads();

  const size_t misalign = reinterpret_cast<std::uintptr_t>(colors) % 16;
  const size_t to_boundary = (16 - misalign) % 16;
  const size_t head = n < to_boundary ? n : to_boundary;
  const uint4 *vec = reinterpret_cast<const uint4 *>(colors + head);
  const size_t nvec = (n - head) / 16;
  const size_t start = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = start; i < nvec; i += stride) {
    const uint4 v = vec[i];
    count4(hist, v.x);
    count4(hist, v.y);
    count4(hist, v.z);
    count4(hist, v.w);
  }
  for (size_t i = start; i < head; i += stride) hist[colors[i]]++;
  for (size_t i = head + 16 * nvec + start; i < n; i += stride) hist[colors[i]]++;
  __syncthreads();

  for (unsigned int b = threadIdx.x; b < kNumBins; b += blockDim.x)
    if (hist[b] != 0) atomicAdd(&buckets[b], hist[b]);
}

unsigned int histogram_grid(size_t n, int sm_count, int blocks_per_sm, unsigned int block) {
  const size_t wave = static_cast<size_t>(std::max(sm_count, 0)) * static_cast<size_t>(std::max(blocks_per_sm, 0));
  const size_t needed = ((n + 15) / 16 + block - 1) / block;
  return static_cast<unsigned int>(std::max<size_t>(1, std::min(wave, needed)));
}

unsigned int histogram_shared_grid(size_t n, unsigned int block) {
  int device = 0, sm_count = 0, blocks_per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, histogramShared, static_cast<int>(block), 0);
  return histogram_grid(n, sm_count, blocks_per_sm, block);
}

cudaError_t run_histogram_shared(const unsigned char *colors, unsigned int *buckets, size_t n, unsigned int grid,
                                 unsigned int block, cudaStream_t stream) {
  cudaError_t err = cudaMemsetAsync(buckets, 0, kNumBins * sizeof(unsigned int), stream);
  if (err != cudaSuccess) return err;
  histogramShared<<<grid, block, 0, stream>>>(colors, buckets, n);
  return cudaGetLastError();
}
