/// @file parallelism.cu
/// @brief Lab ch03_09: a validating launcher and a block-shape heuristic (see README.md and
/// parallelism.cuh).
#include "parallelism.cuh"

#include <cstddef>
#include <sstream>

__global__ void sumMatrixOnGPU2D(const float *A, const float *B, float *C, int nx, int ny) {
  // TODO(ch03_09): the seeds' kernel (your ch03_07 one): ix, iy from the block and
  // thread indices; if inside the matrix, C[idx] = A[idx] + B[idx], idx in std::size_t.
}

cudaError_t launch_limits(int device, LaunchLimits *limits) {
  LaunchLimits l;
  // TODO(ch03_09): every field from cudaDeviceGetAttribute (cudaDevAttrMaxThreadsPerBlock,
  // cudaDevAttrMaxBlockDimX/Y/Z, cudaDevAttrMaxGridDimX/Y/Z, cudaDevAttrWarpSize,
  // cudaDevAttrMultiProcessorCount, cudaDevAttrMaxThreadsPerMultiProcessor); return the first error.
  (void)device;
  *limits = l;
  return cudaSuccess;
}

cudaError_t check_configuration(const LaunchLimits &limits, dim3 grid, dim3 block, std::string *why) {
  // TODO(ch03_09): return cudaErrorInvalidConfiguration with *why naming the value and the
  // limit ("block (256,8,1) has 2048 threads, more than the device's limit of 1024 threads per
  // block") when: a dimension is 0, block.x * block.y * block.z > max_threads_per_block, or a
  // block or grid dimension exceeds its own limit. Otherwise cudaSuccess.
  (void)limits;
  (void)grid;
  (void)block;
  (void)why;
  return cudaErrorNotSupported;
}

cudaError_t launch_sum_matrix(const LaunchLimits &limits, const float *A, const float *B, float *C, int nx, int ny,
                              dim3 block, std::string *why) {
  // TODO(ch03_09): grid = grid_for(nx, ny, block); check_configuration first (return its
  // error, launch nothing); then launch sumMatrixOnGPU2D and return cudaGetLastError().
  (void)limits, (void)A, (void)B, (void)C, (void)nx, (void)ny, (void)block, (void)why;
  return cudaErrorNotSupported;
}

dim3 pick_block_shape(const LaunchLimits &limits, int nx, int ny) {
  // TODO(ch03_09): pick (bx, by) for this matrix. Think about: whole sectors along x
  // (section 3.8), threads left idle past the end of short rows, enough blocks to fill every
  // SM, the grid.y limit for tall matrices, and the threads-per-block limit. Measure with the demo.
  (void)limits, (void)nx, (void)ny;
  return dim3(0, 0, 0);
}
