/// @file memory_operations.cuh
/// @brief Lab ch03_08 -- checking memory operations (book section 3.8): why the order in which a
/// warp's threads touch memory decides the bandwidth, predicted on paper and measured.
///
/// The matrix is nx x ny floats stored row by row: element (ix, iy) is at index iy * nx + ix.
/// A warp is 32 threads with consecutive linear ids t = threadIdx.y * blockDim.x + threadIdx.x.
#pragma once

#include <cuda_runtime.h>

/// @brief GIVEN (the pattern to fix): the x index of the thread walks DOWN a column -- thread
/// (x, y) adds element (ix = y, iy = x), so the 32 threads of a warp touch 32 different rows.
/// Correct, but every load of a warp needs 32 separate memory transactions. Launch with
/// grid_for_column_major(nx, ny, block).
__global__ void sumMatrixColumnMajor(const float *A, const float *B, float *C, int nx, int ny);

/// @brief YOURS: the same C = A + B, with consecutive threadIdx.x on consecutive elements of a
/// row, so each warp's loads are coalesced. Launch with grid_for(nx, ny, block); correct for any
/// nx, ny >= 1 and any block.
__global__ void sumMatrixCoalesced(const float *A, const float *B, float *C, int nx, int ny);

/// @brief Grid for sumMatrixCoalesced: x covers the nx columns, y the ny rows.
inline dim3 grid_for(int nx, int ny, dim3 block) {
  return dim3((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
}

/// @brief Grid for sumMatrixColumnMajor: x covers the ny rows, y the nx columns.
inline dim3 grid_for_column_major(int nx, int ny, dim3 block) {
  return dim3((ny + block.x - 1) / block.x, (nx + block.y - 1) / block.y);
}

/// How a thread's (x, y) position in the grid maps onto the matrix.
enum class Mapping {
  kRowMajor,    ///< ix = x, iy = y: threadIdx.x runs along a row (sumMatrixCoalesced)
  kColumnMajor  ///< ix = y, iy = x: threadIdx.x runs down a column (sumMatrixColumnMajor)
};

/// @brief What one block's global loads of one array cost, warp by warp.
struct LoadEfficiency {
  long long requested_bytes = 0;    ///< bytes the threads asked for (threads x element size)
  long long transferred_bytes = 0;  ///< transactions x transaction size
  long long transactions = 0;       ///< distinct aligned segments touched, summed over the warps
  double efficiency = 0.0;          ///< requested / transferred (nvprof: gld_efficiency)
};

/// @brief Predicts the global load efficiency of the block at the matrix's origin (blockIdx
/// (0, 0)) for one load instruction (one array). For each warp: every lane's byte address is
/// (iy * nx + ix) * elem_bytes (the array starts at address 0); the memory system moves every
/// aligned @p transaction_bytes segment that at least one lane touches -- 32-byte sectors since
/// Maxwell, 128-byte L1 lines on Fermi (the book's figures). A last warp with fewer than 32 threads
/// counts only its threads. Assume the block lies inside the matrix.
/// @param block the block shape (blockDim.z is 1)
/// @param nx row length in elements (the stride between rows)
/// @param mapping how the block's threads map onto the matrix
/// @param elem_bytes bytes per element (4 for float)
/// @param transaction_bytes the memory transaction size (32 for sectors, 128 for Fermi's L1 lines)
LoadEfficiency load_efficiency(dim3 block, int nx, Mapping mapping, int elem_bytes, int transaction_bytes);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_memory_operations.hpp")
#include "cudalab_apart_memory_operations.hpp"
#endif
