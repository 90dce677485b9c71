/// @file sum_matrix.cu
/// @brief Lab ch03_07: your two matrix-sum kernels (see README.md and sum_matrix.cuh).
///
/// The seeds compute the index as `unsigned int idx = iy * nx + ix`, which wraps around beyond
/// 2^32 elements; compute it in 64 bits (std::size_t) so the kernels stay right for any size.
#include "sum_matrix.cuh"

#include <cstddef>

__global__ void sumMatrixOnGPU2D(const float *A, const float *B, float *C, int nx, int ny) {
  // TODO(ch03_07): ix from blockIdx.x, blockDim.x, threadIdx.x; iy likewise in y.
  // If (ix, iy) lies inside the nx x ny matrix, C[idx] = A[idx] + B[idx] with
  // idx = iy * nx + ix computed as std::size_t.
}

__global__ void sumMatrixGridStride(const float *A, const float *B, float *C, int nx, int ny) {
  // TODO(ch03_07): like sumMatrixOnGPU2D, but loop: start at this thread's (ix, iy) and
  // step by the whole grid (gridDim.x * blockDim.x in x, gridDim.y * blockDim.y in y) until
  // you leave the matrix. Consecutive threadIdx.x must still touch consecutive elements.
}
