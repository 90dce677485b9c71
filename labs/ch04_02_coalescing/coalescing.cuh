/// @file coalescing.cuh
/// @brief Lab ch04_02 -- aligned, misaligned and strided global memory accesses, and an array of
/// structures against a structure of arrays (book section 4.3): what one warp's request costs,
/// predicted on paper and measured.
///
/// Every kernel here is 1-D: thread i = blockIdx.x * blockDim.x + threadIdx.x, launched with
/// grid_1d(n, block) blocks; a warp is 32 consecutive i. Arrays come from cudaMalloc (256-byte
/// aligned), so element 0 starts a 32-byte sector and a 128-byte line.
#pragma once

#include <cuda_runtime.h>

/// @brief Blocks for one thread per element: ceil(n / block), for n >= 1.
/// @param n elements
/// @param block threads per block
inline unsigned int grid_1d(int n, unsigned int block) { return (static_cast<unsigned int>(n) + block - 1) / block; }

// ---------------------------------------------------------------------------------------------
// Offsets (the book's readSegment.cu)
// ---------------------------------------------------------------------------------------------

/// @brief GIVEN (the book's readOffset): C[i] = A[i + offset] + B[i + offset] for every i with
/// i + offset < n. The reads start @p offset floats past an aligned address, the writes are aligned.
/// @param A input, n floats
/// @param B input, n floats
/// @param C output, n floats; C[n - offset .. n - 1] is not written
/// @param n elements, >= 1
/// @param offset shift of the reads in floats, >= 0
__global__ void readOffset(const float *A, const float *B, float *C, int n, int offset);

/// @brief GIVEN (the book's writeOffset): C[i + offset] = A[i] + B[i] for every i with
/// i + offset < n. Aligned reads, writes shifted by @p offset floats.
/// @param A input, n floats
/// @param B input, n floats
/// @param C output, n floats; C[0 .. offset - 1] is not written
/// @param n elements, >= 1
/// @param offset shift of the writes in floats, >= 0
__global__ void writeOffset(const float *A, const float *B, float *C, int n, int offset);

/// @brief YOURS (the book's readWriteOffset): C[k] = A[k] + B[k] for k = i + offset, for every
/// k with offset <= k < n: reads and writes both shifted. It must touch nothing outside
/// [offset, n) -- no read and no write -- for any n >= 1, any offset >= 0 (offset >= n: nothing
/// to do) and any block. Launch with grid_1d(n, block).
/// @param A input, n floats
/// @param B input, n floats
/// @param C output, n floats; C[0 .. offset - 1] is not written
/// @param n elements, >= 1
/// @param offset shift of reads and writes in floats, >= 0
__global__ void readWriteOffset(const float *A, const float *B, float *C, int n, int offset);

// ---------------------------------------------------------------------------------------------
// Strides
// ---------------------------------------------------------------------------------------------

/// @brief GIVEN: C[i] = A[i * stride] for i < n -- neighbouring threads read floats @p stride
/// apart, and write contiguously.
/// @param A input, at least (n - 1) * stride + 1 floats
/// @param C output, n floats
/// @param n elements written, >= 1
/// @param stride distance between the floats neighbouring threads read, >= 1
__global__ void readStride(const float *A, float *C, int n, int stride);

// ---------------------------------------------------------------------------------------------
// Array of structures (AoS) against structure of arrays (SoA)
// ---------------------------------------------------------------------------------------------

/// @brief One particle, 32 bytes: the book's innerStruct {x, y}, grown into a record with six more
/// fields that the kernels here do not use.
struct innerStruct {
  float x;       ///< position x: updated by the kernels
  float y;       ///< position y: updated by the kernels
  float z;       ///< position z
  float vx;      ///< velocity x
  float vy;      ///< velocity y
  float vz;      ///< velocity z
  float mass;    ///< mass
  float charge;  ///< charge
};

/// @brief The same particles as a structure of arrays: one device array of n floats per field.
/// Kernels take it by value (the struct of pointers travels in the kernel's parameters).
struct innerArray {
  float *x;       ///< position x, n floats
  float *y;       ///< position y, n floats
  float *z;       ///< position z, n floats
  float *vx;      ///< velocity x, n floats
  float *vy;      ///< velocity y, n floats
  float *vz;      ///< velocity z, n floats
  float *mass;    ///< mass, n floats
  float *charge;  ///< charge, n floats
};

/// @brief GIVEN (the pattern to fix): result[i].x = data[i].x + 10, result[i].y = data[i].y + 20
/// for i < n; the other fields of result are not written. A warp's load of x touches 32 particles
/// 32 bytes apart: 32 sectors for 128 useful bytes. Launch with grid_1d(n, block).
/// @param data n particles
/// @param result n particles; only x and y are written
/// @param n particles, >= 1
__global__ void testInnerStruct(const innerStruct *data, innerStruct *result, int n);

/// @brief YOURS: the same update on the structure of arrays -- result.x[i] = data.x[i] + 10,
/// result.y[i] = data.y[i] + 20 for i < n -- with coalesced loads and stores. Reads only data.x
/// and data.y, writes only result.x[0 .. n-1] and result.y[0 .. n-1]. Launch with
/// grid_1d(n, block); correct for any n >= 1 and any block.
/// @param data the particles' fields (only x and y are read)
/// @param result the output fields (only x and y are written)
/// @param n particles, >= 1
__global__ void testInnerArray(innerArray data, innerArray result, int n);

// ---------------------------------------------------------------------------------------------
// The sector model, on paper
// ---------------------------------------------------------------------------------------------

/// @brief What one 1-D access pattern costs, counted in aligned memory segments.
struct AccessCost {
  long long requests = 0;         ///< warp requests: one per warp (a last partial warp counts once)
  long long segments = 0;         ///< segments each request touches, summed (nvprof: gld_transactions)
  long long unique_segments = 0;  ///< distinct segments of the whole access: the least DRAM must deliver
  long long requested_bytes = 0;  ///< bytes the threads asked for: threads x elem_bytes
  int segment_bytes = 0;          ///< the segment size the costs are counted in

  /// @brief Segments per request: ncu's l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio
  /// (nvprof: gld_transactions_per_request).
  double segments_per_request() const { return requests > 0 ? double(segments) / double(requests) : 0.0; }
  /// @brief Requested bytes / bytes of the segments the requests touch (nvprof: gld_efficiency).
  double efficiency() const {
    return segments > 0 ? double(requested_bytes) / (double(segments) * segment_bytes) : 0.0;
  }
  /// @brief Bytes the memory must deliver at least (every distinct segment once) per byte used.
  double traffic_ratio() const {
    return requested_bytes > 0 ? double(unique_segments) * segment_bytes / double(requested_bytes) : 0.0;
  }
};

/// @brief Predicts the cost of a 1-D access: thread t (0 <= t < threads) accesses the element at
/// index offset + t * stride of an array of @p elem_bytes-byte elements that starts at a
/// segment-aligned address (byte address = index x elem_bytes). Threads 32w .. 32w + 31 form warp
/// w and issue one request; the memory moves every aligned @p segment_bytes segment that at least
/// one of its threads touches -- 32-byte sectors since Maxwell, 128-byte L1 lines on Fermi (the
/// book's figures). unique_segments counts the segments of all requests together, each once.
/// @param threads threads taking part, 0 <= threads <= 2^30 (the model visits every thread)
/// @param offset index of thread 0's element, >= 0
/// @param stride distance in elements between neighbouring threads' elements, >= 1
/// @param elem_bytes bytes per element: 1, 2, 4, 8 or 16 (it divides segment_bytes)
/// @param segment_bytes transaction size: 32, 64 or 128
AccessCost access_cost(long long threads, long long offset, long long stride, int elem_bytes, int segment_bytes);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_coalescing.hpp")
#include "cudalab_apart_coalescing.hpp"
#endif
