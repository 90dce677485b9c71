/// @file memory_operations.cu
/// @brief Lab ch03_08: predict and fix a warp's memory access pattern (see README.md and
/// memory_operations.cuh).
#include "memory_operations.cuh"

#include <cstddef>
#include <set>

__global__ void sumMatrixColumnMajor(const float *A, const float *B, float *C, int nx, int ny) {
  // Given: x walks down a column. Run the demo and ncu on this one before you fix it.
  const int iy = blockIdx.x * blockDim.x + threadIdx.x;  // row
  const int ix = blockIdx.y * blockDim.y + threadIdx.y;  // column
  if (ix < nx && iy < ny) {
    const std::size_t idx = std::size_t(iy) * nx + ix;
    C[idx] = A[idx] + B[idx];
  }
}

__global__ void sumMatrixCoalesced(const float *A, const float *B, float *C, int nx, int ny) {
  // TODO(ch03_08): the same sum as sumMatrixColumnMajor, but let the thread's x index
  // run along a row (ix) and its y index down the columns (iy), so the 32 lanes of a warp
  // read 32 neighbouring floats. Guard with ix < nx && iy < ny; index in std::size_t.
}

LoadEfficiency load_efficiency(dim3 block, int nx, Mapping mapping, int elem_bytes, int transaction_bytes) {
  LoadEfficiency e;
  // TODO(ch03_08): for each warp (32 consecutive linear thread ids of the block):
  // find every lane's (ix, iy) from `mapping`, its byte address (iy * nx + ix) * elem_bytes,
  // and the set of aligned transaction_bytes segments the warp touches. Sum requested and
  // transferred bytes and transactions over the warps; efficiency = requested / transferred.
  (void)block;
  (void)nx;
  (void)mapping;
  (void)elem_bytes;
  (void)transaction_bytes;
  return e;
}
