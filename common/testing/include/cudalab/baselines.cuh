/// @file baselines.cuh
/// @brief Same-structure bandwidth baselines for the timed tests.
///
/// A "fraction of cudaMemcpy bandwidth" threshold depends on the GPU: cudaMemcpy keeps many bytes
/// in flight per thread, a kernel that moves one element per thread does not, and by Little's law
/// (ch03_04) the gap grows with the memory system's bandwidth (measured: 0.84 of the copy on an
/// H100, 0.70 on an H200 for the same kernel). So the timed tests compare a student's kernel with
/// one of these baselines instead: the same bytes, the same elements per thread, the simplest
/// possible indexing (a flat 1D grid, one element per thread, no grid-stride loop). They are
/// written here, in the tests, never taken from a lab's answer. The copy fraction is still printed
/// as a figure (cudalab::PerfReport::bytes), it just does not decide the grade.
#pragma once
#include "cudalab/launch.cuh"

#include <cuda_runtime.h>

#include <cstddef>

namespace cudalab {

namespace detail {
/// @brief c[i] = a[i] + b[i] (b == nullptr: c[i] = a[i]) for i < n, one element per thread.
template <typename T>
__global__ void streamBaselineKernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c,
                                     std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  c[i] = b ? a[i] + b[i] : a[i];
}
}  // namespace detail

/// @brief Launches the same-structure baseline: one element per thread on a flat 1D grid of
/// @p block threads, `c[i] = a[i] + b[i]` (two loads, one store) or, with @p b null,
/// `c[i] = a[i]` (one load, one store). Enqueued on @p stream; launch errors are left for the
/// caller's cudaGetLastError.
template <typename T>
void launch_stream_baseline(const T *a, const T *b, T *c, std::size_t n, int block = 256, cudaStream_t stream = 0) {
  if (n == 0) return;
  const std::size_t blocks = (n + block - 1) / block;
  cudalab::launch(detail::streamBaselineKernel<T>, unsigned(blocks), block, 0, stream)(a, b, c, n);
}

}  // namespace cudalab
