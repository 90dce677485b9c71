/// @file coalescing.cu
/// @brief Lab ch04_02: misaligned, strided and structure-of-arrays accesses, and the sector model
/// that predicts their cost (see README.md and coalescing.cuh).
#include "coalescing.cuh"

#include <cstddef>
#include <set>

__global__ void readOffset(const float *A, const float *B, float *C, int n, int offset) {
  // Given (book): the reads start `offset` floats past the aligned start, the writes do not.
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int k = i + static_cast<unsigned int>(offset);
  if (k < static_cast<unsigned int>(n)) C[i] = A[k] + B[k];
}

__global__ void writeOffset(const float *A, const float *B, float *C, int n, int offset) {
  // Given (book): aligned reads, writes shifted by `offset` floats.
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int k = i + static_cast<unsigned int>(offset);
  if (k < static_cast<unsigned int>(n)) C[k] = A[i] + B[i];
}

__global__ void readWriteOffset(const float *A, const float *B, float *C, int n, int offset) {
  // BEGIN SOLUTION
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int k = i + static_cast<unsigned int>(offset);  // the element, not the thread
  if (k < static_cast<unsigned int>(n)) C[k] = A[k] + B[k];      // guard before any access
  // STUB: // TODO(ch04_02): like readOffset and writeOffset above, but shift both the reads and
  // STUB: // the write: C[k] = A[k] + B[k] with k = i + offset. Guard the element k (k < n), not
  // STUB: // the thread i, and read nothing before the guard has passed.
  // END SOLUTION
}

__global__ void readStride(const float *A, float *C, int n, int stride) {
  // Given: neighbouring threads read floats `stride` apart; the writes are contiguous.
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < static_cast<unsigned int>(n)) C[i] = A[static_cast<std::size_t>(i) * stride];
}

__global__ void testInnerStruct(const innerStruct *data, innerStruct *result, int n) {
  // Given: two of the eight fields of each particle. Lane l of a warp reads bytes 32 l .. 32 l + 3
  // of the warp's 1 KiB of particles: one float from each of 32 sectors.
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < static_cast<unsigned int>(n)) {
    const float x = data[i].x, y = data[i].y;  // both loads before the stores (the book's tmp)
    result[i].x = x + 10.f;
    result[i].y = y + 20.f;
  }
}

__global__ void testInnerArray(innerArray data, innerArray result, int n) {
  // BEGIN SOLUTION
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < static_cast<unsigned int>(n)) {      // 32 lanes read 32 consecutive floats of each array
    const float x = data.x[i], y = data.y[i];  // both loads in flight before either store
    result.x[i] = x + 10.f;
    result.y[i] = y + 20.f;
  }
  // STUB: // TODO(ch04_02): the update of testInnerStruct on the structure of arrays:
  // STUB: // result.x[i] = data.x[i] + 10.f and result.y[i] = data.y[i] + 20.f for i < n. Touch no
  // STUB: // other field. Consecutive threads then read and write consecutive floats of each array.
  // STUB: // Like testInnerStruct, load both fields before storing either (see README.md: a store
  // STUB: // to result.x might alias data.y, so the compiler keeps a later load after it).
  // END SOLUTION
}

AccessCost access_cost(long long threads, long long offset, long long stride, int elem_bytes, int segment_bytes) {
  AccessCost c;
  // BEGIN SOLUTION
  c.segment_bytes = segment_bytes;
  std::set<long long> all;  // every segment of the whole access, each once
  for (long long first = 0; first < threads; first += 32) {
    std::set<long long> warp;  // the segments of this warp's request
    for (long long t = first; t < threads && t < first + 32; ++t) {
      const long long address = (offset + t * stride) * elem_bytes;
      warp.insert(address / segment_bytes);  // elem_bytes divides segment_bytes: one segment each
      c.requested_bytes += elem_bytes;
    }
    ++c.requests;
    c.segments += static_cast<long long>(warp.size());
    all.insert(warp.begin(), warp.end());
  }
  c.unique_segments = static_cast<long long>(all.size());
  // STUB: // TODO(ch04_02): for each warp (threads 32w .. 32w + 31, the last one may be partial):
  // STUB: // thread t's byte address is (offset + t * stride) * elem_bytes; collect the aligned
  // STUB: // segments (address / segment_bytes) the warp touches. Count one request per warp, add
  // STUB: // its segments to c.segments and its threads' bytes to c.requested_bytes; count the
  // STUB: // distinct segments of all warps together in c.unique_segments; set c.segment_bytes.
  // STUB: (void)threads;
  // STUB: (void)offset;
  // STUB: (void)stride;
  // STUB: (void)elem_bytes;
  // STUB: (void)segment_bytes;
  // END SOLUTION
  return c;
}
