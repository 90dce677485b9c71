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
// BEGIN SOLUTION
namespace {

/// Copies of the histogram in each block: one per lane of a warp. Lane l counts into
/// s_hist[bin * kReplicas + l], which lies in shared-memory bank l whatever the bin, so the 32
/// atomics of a warp never wait for each other -- not even when every byte has the same value.
constexpr unsigned int kReplicas = 32;

/// Counts one byte into the calling lane's copy of the histogram.
__device__ __forceinline__ void countByte(unsigned int *lane_hist, unsigned int byte) {
  atomicAdd(&lane_hist[byte * kReplicas], 1u);
}

/// Counts the 4 bytes of a 32-bit word.
__device__ __forceinline__ void countWord(unsigned int *lane_hist, unsigned int w) {
  countByte(lane_hist, w & 0xFFu);
  countByte(lane_hist, (w >> 8) & 0xFFu);
  countByte(lane_hist, (w >> 16) & 0xFFu);
  countByte(lane_hist, w >> 24);
}

/// Counts the 16 bytes of a uint4.
__device__ __forceinline__ void countVector(unsigned int *lane_hist, const uint4 &v) {
  countWord(lane_hist, v.x);
  countWord(lane_hist, v.y);
  countWord(lane_hist, v.z);
  countWord(lane_hist, v.w);
}

}  // namespace
// STUB: // (optional) your __device__ helper functions go here.
// END SOLUTION

__global__ void histogramShared(const unsigned char *colors, unsigned int *buckets, size_t n) {
  // BEGIN SOLUTION
  __shared__ unsigned int s_hist[kNumBins * kReplicas];  // 32 KB: s_hist[bin * 32 + lane]
  const unsigned int tid = threadIdx.x;

  // 1. Zero every copy. Thread tid clears entries tid, tid + blockDim.x, ...: any block size.
  for (unsigned int i = tid; i < kNumBins * kReplicas; i += blockDim.x) s_hist[i] = 0;
  __syncthreads();  // no thread counts into a bin before it is zero

  // 2. Count. [0, n) = head (bytes before the first 16-byte boundary) + whole uint4 + tail.
  unsigned int *lane_hist = s_hist + tid % kReplicas;
  const size_t misalign = reinterpret_cast<std::uintptr_t>(colors) % kBytesPerVector;
  const size_t to_boundary = (kBytesPerVector - misalign) % kBytesPerVector;
  const size_t head = n < to_boundary ? n : to_boundary;
  const uint4 *vec = reinterpret_cast<const uint4 *>(colors + head);
  const size_t nvec = (n - head) / kBytesPerVector;
  const size_t tail_start = head + nvec * kBytesPerVector;
  const size_t t = static_cast<size_t>(blockIdx.x) * blockDim.x + tid;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = t;
  for (; i + stride < nvec; i += 2 * stride) {  // two 16-byte loads in flight per thread
    const uint4 a = vec[i], b = vec[i + stride];
    countVector(lane_hist, a);
    countVector(lane_hist, b);
  }
  if (i < nvec) {
    const uint4 a = vec[i];
    countVector(lane_hist, a);
  }
  for (size_t k = t; k < head; k += stride) countByte(lane_hist, colors[k]);            // 0..15 bytes
  for (size_t k = tail_start + t; k < n; k += stride) countByte(lane_hist, colors[k]);  // 0..15 bytes
  __syncthreads();  // every count is in before any bin is read

  // 3. Merge: thread tid adds up the 32 copies of bins tid, tid + blockDim.x, ... (starting each
  // at a different copy, so a warp's reads fall in 32 different banks) and makes one global
  // atomicAdd per non-zero bin: at most 256 per block.
  for (unsigned int bin = tid; bin < kNumBins; bin += blockDim.x) {
    unsigned int sum = 0;
    for (unsigned int r = 0; r < kReplicas; ++r) sum += s_hist[bin * kReplicas + (r + bin) % kReplicas];
    if (sum != 0) atomicAdd(&buckets[bin], sum);
  }
  // STUB: // TODO(ch05_01): the privatised histogram (contract in histogram.cuh).
  // STUB: //  1. __shared__ unsigned int s_hist[kNumBins]; every thread zeroes bins threadIdx.x,
  // STUB: //     threadIdx.x + blockDim.x, ... (a block of 128 threads must still zero all 256);
  // STUB: //     then __syncthreads()
  // STUB: //  2. a grid-stride loop over the input: atomicAdd(&s_hist[byte], 1u) for every byte. For
  // STUB: //     speed read 16 bytes at a time as uint4, from the first 16-byte boundary of colors
  // STUB: //     on; count the head (bytes before it) and the tail (after the last whole uint4) one
  // STUB: //     byte at a time
  // STUB: //  3. __syncthreads(); then every thread adds bins threadIdx.x, threadIdx.x + blockDim.x,
  // STUB: //     ... to buckets with atomicAdd: one global atomic per bin and block
  // END SOLUTION
}

unsigned int histogram_grid(size_t n, int sm_count, int blocks_per_sm, unsigned int block) {
  // BEGIN SOLUTION
  const unsigned long long wave = static_cast<unsigned long long>(std::max(sm_count, 0)) *
                                  static_cast<unsigned long long>(std::max(blocks_per_sm, 0));
  const unsigned long long groups = (static_cast<unsigned long long>(n) + kBytesPerVector - 1) / kBytesPerVector;
  const unsigned long long needed = (groups + block - 1) / block;
  return static_cast<unsigned int>(std::max(1ull, std::min(wave, needed)));
  // STUB: // TODO(ch05_01): min(one full wave = sm_count * blocks_per_sm, blocks needed to give every
  // STUB: // thread one 16-byte group = ceil(ceil(n / 16) / block)), at least 1. Keep n in 64 bits.
  // STUB: (void)n, (void)sm_count, (void)blocks_per_sm, (void)block;
  // STUB: return 1;
  // END SOLUTION
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
