/// @file parallelism.cuh
/// @brief Lab ch03_09 -- exposing more parallelism (book section 3.9): a launcher that checks a
/// block shape against the device before it launches, and a heuristic that picks the shape.
///
/// The matrix is nx x ny floats stored row by row: element (ix, iy) is at index iy * nx + ix.
#pragma once

#include <cuda_runtime.h>

#include <string>

/// @brief One thread per element, as in ch03_07: C = A + B for any nx, ny >= 1.
/// Launched with grid_for(nx, ny, block).
__global__ void sumMatrixOnGPU2D(const float *A, const float *B, float *C, int nx, int ny);

/// @brief The launch limits of a device (cudaDeviceGetAttribute).
struct LaunchLimits {
  int max_threads_per_block = 0;  ///< threads in one block (1024 since Fermi)
  int max_block[3] = {0, 0, 0};   ///< blockDim.x, .y, .z limits (1024, 1024, 64)
  int max_grid[3] = {0, 0, 0};    ///< gridDim.x, .y, .z limits (2^31 - 1, 65535, 65535)
  int warp_size = 0;              ///< threads per warp (32)
  int sm_count = 0;               ///< multiprocessors
  int max_threads_per_sm = 0;     ///< resident threads per SM
};

/// @brief Fills @p limits for @p device from cudaDeviceGetAttribute; returns the first error.
cudaError_t launch_limits(int device, LaunchLimits *limits);

/// @brief The grid that gives every element its own thread: ceil(nx / block.x) x ceil(ny / block.y).
inline dim3 grid_for(int nx, int ny, dim3 block) {
  return dim3(block.x ? (nx + block.x - 1) / block.x : 0, block.y ? (ny + block.y - 1) / block.y : 0);
}

/// @brief Checks a launch configuration against @p limits WITHOUT launching anything.
/// @return cudaSuccess, or cudaErrorInvalidConfiguration with @p why set to one line that names
/// the dimension, its value and the limit it breaks, e.g. "block (256,8) has 2048 threads, more
/// than the device's limit of 1024 threads per block". Every dimension must be >= 1.
cudaError_t check_configuration(const LaunchLimits &limits, dim3 grid, dim3 block, std::string *why);

/// @brief Validates (check_configuration, grid = grid_for(nx, ny, block)), then launches
/// sumMatrixOnGPU2D on the default stream. Returns cudaErrorInvalidConfiguration with @p why for
/// a configuration the device cannot run (nothing is launched, no error is left pending), else
/// the launch's error (cudaGetLastError; @p why describes it). Does not synchronize.
cudaError_t launch_sum_matrix(const LaunchLimits &limits, const float *A, const float *B, float *C, int nx, int ny,
                              dim3 block, std::string *why);

/// @brief Your heuristic: a block shape for sumMatrixOnGPU2D on an nx x ny matrix. It must be a
/// valid configuration for @p limits, and should run within a few percent of the fastest shape.
dim3 pick_block_shape(const LaunchLimits &limits, int nx, int ny);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_parallelism.hpp")
#include "cudalab_apart_parallelism.hpp"
#endif
