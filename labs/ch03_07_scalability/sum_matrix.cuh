/// @file sum_matrix.cuh
/// @brief Lab ch03_07 -- scalability (book section 3.7): the seeds' sumMatrixOnGPU2D and a
/// grid-stride version whose grid can have any size, so it runs on any number of SMs.
///
/// Both kernels compute C = A + B for an nx x ny float matrix stored row by row: element (ix, iy)
/// is at index iy * nx + ix (ix runs along a row, the contiguous dimension).
/// C may be A itself (in place): each element is read and written by its own thread only.
#pragma once

#include <cuda_runtime.h>

/// @brief One thread per element: thread (ix, iy) with ix = blockIdx.x * blockDim.x + threadIdx.x
/// and iy likewise in y adds element (ix, iy). Launched with grid_for(nx, ny, block); correct for
/// any nx, ny >= 1 (threads outside the matrix do nothing).
__global__ void sumMatrixOnGPU2D(const float *A, const float *B, float *C, int nx, int ny);

/// @brief Grid-stride version: correct for ANY grid and block (even one block): each thread
/// starts at its (ix, iy) and steps by the whole grid's width (gridDim.x * blockDim.x) along x
/// and by its height along y until it leaves the matrix.
__global__ void sumMatrixGridStride(const float *A, const float *B, float *C, int nx, int ny);

/// @brief The grid that gives every element its own thread: ceil(nx / block.x) x ceil(ny / block.y).
inline dim3 grid_for(int nx, int ny, dim3 block) {
  return dim3((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
}

/// @brief A grid of about @p blocks blocks for sumMatrixGridStride: as wide as the matrix needs
/// in x (at most @p blocks), the rest stacked in y. Used to run the same work on fewer or more
/// resident blocks (a fraction of the GPU) -- transparent scalability, measured.
inline dim3 grid_with_blocks(int nx, int ny, dim3 block, unsigned int blocks) {
  unsigned int gx = (nx + block.x - 1) / block.x;
  if (gx > blocks) gx = blocks;
  unsigned int gy = blocks / gx;
  const unsigned int max_gy = (ny + block.y - 1) / block.y;
  if (gy > max_gy) gy = max_gy;
  return dim3(gx, gy > 0 ? gy : 1);
}
