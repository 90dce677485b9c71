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
  // TODO(ch04_02): like readOffset and writeOffset above, but shift both the reads and
  // the write: C[k] = A[k] + B[k] with k = i + offset. Guard the element k (k < n), not
  // the thread i, and read nothing before the guard has passed.
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
  // TODO(ch04_02): the update of testInnerStruct on the structure of arrays:
  // result.x[i] = data.x[i] + 10.f and result.y[i] = data.y[i] + 20.f for i < n. Touch no
  // other field. Consecutive threads then read and write consecutive floats of each array.
  // Like testInnerStruct, load both fields before storing either (see README.md: a store
  // to result.x might alias data.y, so the compiler keeps a later load after it).
}

AccessCost access_cost(long long threads, long long offset, long long stride, int elem_bytes, int segment_bytes) {
  AccessCost c;
  // TODO(ch04_02): for each warp (threads 32w .. 32w + 31, the last one may be partial):
  // thread t's byte address is (offset + t * stride) * elem_bytes; collect the aligned
  // segments (address / segment_bytes) the warp touches. Count one request per warp, add
  // its segments to c.segments and its threads' bytes to c.requested_bytes; count the
  // distinct segments of all warps together in c.unique_segments; set c.segment_bytes.
  (void)threads;
  (void)offset;
  (void)stride;
  (void)elem_bytes;
  (void)segment_bytes;
  return c;
}
