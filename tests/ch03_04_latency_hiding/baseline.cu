// The baseline the performance tests compare against: a grid-stride copy with one 16-byte load in
// flight per thread. `#pragma unroll 1` keeps the compiler from batching loads of several
// iterations (it could not anyway without __restrict__: a store may alias the next load).
#include "latency_check.cuh"

__global__ void copyInt4Baseline(const int4 *in, int4 *out, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i];
}
