/// @file histogram.cuh
/// @brief Lab ch05_01 -- a 256-bin histogram of bytes (the lecture notes' "histogram of color
/// usage"): every thread adding to global memory, against a per-block histogram in shared memory
/// merged into global memory once per block.
///
/// Contract of both kernels: they ADD the counts of colors[0, n) to buckets[0, 256) with
/// atomicAdd; the caller zeroes buckets first (run_histogram_shared() does, with
/// cudaMemsetAsync). Neither kernel writes colors or anything past buckets[255].
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

/// Number of bins: one per byte value 0..255.
constexpr unsigned int kNumBins = 256;

/// Threads per block of the tuned launch (run_histogram_shared(), the performance tests, the demo).
constexpr unsigned int kHistogramBlock = 512;

/// Bytes per 16-byte vector load (one uint4 holds 16 bytes).
constexpr unsigned int kBytesPerVector = 16;

/// @brief GIVEN (the seed's naive kernel): one thread per byte, each thread does
/// atomicAdd(&buckets[colors[i]], 1) in global memory -- n global atomics on 256 addresses that
/// every SM of the GPU fights over. Launch with <<<global_grid(n, block), block>>>.
/// @param colors the n input bytes
/// @param buckets 256 counters; the counts are added to them
/// @param n number of bytes
__global__ void histogramGlobal(const unsigned char *colors, unsigned int *buckets, size_t n);

/// @brief Grid of histogramGlobal: one thread per byte, ceil(n / block) blocks, at least 1.
/// @param n number of bytes
/// @param block threads per block
inline unsigned int global_grid(size_t n, unsigned int block) {
  const size_t blocks = (n + block - 1) / block;
  return blocks == 0 ? 1u : static_cast<unsigned int>(blocks);
}

/// @brief YOURS: the privatised histogram. Each block zeroes a histogram in __shared__ memory,
/// counts its part of the input into it with shared-memory atomicAdd, waits at a barrier, and
/// adds its bins to buckets with one global atomicAdd per (non-zero) bin -- once per block.
/// Must be right for
///  - any blockDim.x from 32 to 1024, also below 256 and not a multiple of 32 (every thread
///    zeroes and merges the bins t, t + blockDim.x, t + 2 * blockDim.x, ... -- not just bin t);
///  - any grid >= 1 (a grid-stride loop covers the input however many blocks there are);
///  - any n >= 0 and any colors address (16-byte loads start at the first 16-byte boundary;
///    the bytes before it and after the last whole uint4 are counted one by one).
/// Uses static shared memory only. Launch with <<<histogram_shared_grid(n, block), block>>> or
/// through run_histogram_shared().
/// @param colors the n input bytes (any address)
/// @param buckets 256 counters; the counts are added to them
/// @param n number of bytes
__global__ void histogramShared(const unsigned char *colors, unsigned int *buckets, size_t n);

/// @brief YOURS: grid size of histogramShared -- one full wave (sm_count x blocks_per_sm
/// blocks), but no more blocks than there are 16-byte groups to give each thread at least one
/// (ceil(ceil(n / 16) / block)), and at least 1. Host function, tested without a GPU; n may exceed
/// 2^32.
/// @param n number of bytes
/// @param sm_count multiprocessors of the GPU
/// @param blocks_per_sm blocks of histogramShared that fit on one SM at once (occupancy)
/// @param block threads per block
unsigned int histogram_grid(size_t n, int sm_count, int blocks_per_sm, unsigned int block);

/// @brief GIVEN: histogram_grid() for the current device and histogramShared as compiled: asks
/// the occupancy API how many blocks of @p block threads fit on one SM (your kernel's registers
/// and shared memory decide that).
/// @param n number of bytes
/// @param block threads per block
unsigned int histogram_shared_grid(size_t n, unsigned int block = kHistogramBlock);

/// @brief GIVEN: the whole job, as timed against CUB: cudaMemsetAsync(buckets, 0, 256 counters)
/// then histogramShared<<<grid, block, 0, stream>>>(colors, buckets, n). Returns the first error
/// (the launch is asynchronous: synchronise to see errors of the kernel itself).
/// @param colors the n input bytes
/// @param buckets 256 counters, overwritten with the histogram
/// @param n number of bytes
/// @param grid blocks, e.g. histogram_shared_grid(n, block)
/// @param block threads per block
/// @param stream the stream to enqueue on
cudaError_t run_histogram_shared(const unsigned char *colors, unsigned int *buckets, size_t n, unsigned int grid,
                                 unsigned int block = kHistogramBlock, cudaStream_t stream = 0);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_histogram.hpp")
#include "cudalab_apart_histogram.hpp"
#endif
