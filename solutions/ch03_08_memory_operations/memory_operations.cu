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
  // BEGIN SOLUTION
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;  // column: consecutive lanes, consecutive floats
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;  // row
  if (ix < nx && iy < ny) {
    const std::size_t idx = std::size_t(iy) * nx + ix;
    C[idx] = A[idx] + B[idx];
  }
  // STUB: // TODO(ch03_08): the same sum as sumMatrixColumnMajor, but let the thread's x index
  // STUB: // run along a row (ix) and its y index down the columns (iy), so the 32 lanes of a warp
  // STUB: // read 32 neighbouring floats. Guard with ix < nx && iy < ny; index in std::size_t.
  // END SOLUTION
}

LoadEfficiency load_efficiency(dim3 block, int nx, Mapping mapping, int elem_bytes, int transaction_bytes) {
  LoadEfficiency e;
  // BEGIN SOLUTION
  const long long threads = static_cast<long long>(block.x) * block.y;
  for (long long first = 0; first < threads; first += 32) {  // one warp at a time
    std::set<long long> segments;
    for (long long t = first; t < threads && t < first + 32; ++t) {
      const long long x = t % block.x, y = t / block.x;  // the thread's position in the block
      const long long ix = mapping == Mapping::kRowMajor ? x : y;
      const long long iy = mapping == Mapping::kRowMajor ? y : x;
      const long long address = (iy * nx + ix) * elem_bytes;
      segments.insert(address / transaction_bytes);
      e.requested_bytes += elem_bytes;
    }
    e.transactions += static_cast<long long>(segments.size());
  }
  e.transferred_bytes = e.transactions * transaction_bytes;
  e.efficiency = e.transferred_bytes > 0 ? double(e.requested_bytes) / double(e.transferred_bytes) : 0.0;
  // STUB: // TODO(ch03_08): for each warp (32 consecutive linear thread ids of the block):
  // STUB: // find every lane's (ix, iy) from `mapping`, its byte address (iy * nx + ix) * elem_bytes,
  // STUB: // and the set of aligned transaction_bytes segments the warp touches. Sum requested and
  // STUB: // transferred bytes and transactions over the warps; efficiency = requested / transferred.
  // STUB: (void)block;
  // STUB: (void)nx;
  // STUB: (void)mapping;
  // STUB: (void)elem_bytes;
  // STUB: (void)transaction_bytes;
  // END SOLUTION
  return e;
}
