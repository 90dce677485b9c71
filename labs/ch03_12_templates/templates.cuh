/// @file templates.cuh
/// @brief Lab ch03_12 -- reducing with template functions (book section 3.12).
///
/// reduceCompleteUnroll is ch03_11's reduceCompleteUnrollWarps8 with the block size as a template
/// parameter instead of blockDim.x, so every `if (iBlockSize >= 1024 && ...)` is decided by the
/// compiler. Contract (as in ch03_11):
///  * launched with `iBlockSize` threads per block (a power of two in [64, 1024]) and
///    complete_unroll_grid(n, iBlockSize) blocks, any n >= 1;
///  * block b sums g_idata[b * 8 * iBlockSize, min(n, (b + 1) * 8 * iBlockSize)) and writes the sum to
///    g_odata[b]; it never reads or writes past element n - 1 or past g_odata[gridDim.x - 1].
#pragma once

#include <cuda_runtime.h>

/// @brief Reduction with eight data blocks per thread block, the stride loop completely unrolled
/// against the compile-time block size, and a race-free last warp. Instantiated in templates.cu
/// for iBlockSize = 64, 128, 256, 512 and 1024 only (see complete_unroll_kernel); must be launched
/// with blockDim.x == iBlockSize.
template <unsigned int iBlockSize>
__global__ void reduceCompleteUnroll(int *g_idata, int *g_odata, unsigned int n);

/// A pointer to one instantiation of reduceCompleteUnroll.
using CompleteUnrollKernel = void (*)(int *, int *, unsigned int);

/// @brief reduceCompleteUnroll<block> as a pointer (given in templates.cu: an instantiation of a
/// kernel template cannot be named from another file), or nullptr for an unsupported block size.
CompleteUnrollKernel complete_unroll_kernel(unsigned int block);

/// @brief The host-side `switch` on the block size: launches
/// `reduceCompleteUnroll<block><<<complete_unroll_grid(n, block), block>>>(g_idata, g_odata, n)`.
/// @return cudaErrorInvalidValue -- without launching anything or touching the GPU -- when @p block
///         has no instantiation (complete_unroll_supported(block) is false); otherwise the launch's
///         error (cudaGetLastError()); cudaSuccess without a launch when n == 0.
cudaError_t launch_complete_unroll(unsigned int block, int *g_idata, int *g_odata, unsigned int n);

/// @brief True for the block sizes reduceCompleteUnroll is instantiated for: 64, 128, 256, 512, 1024.
inline bool complete_unroll_supported(unsigned int block) {
  return block == 64 || block == 128 || block == 256 || block == 512 || block == 1024;
}

/// @brief Number of blocks (and partial sums) when each block sums 8 * block elements:
/// ceil(n / (8 * block)).
inline unsigned int complete_unroll_grid(unsigned int n, unsigned int block) {
  return n == 0 ? 0 : (n - 1) / (8 * block) + 1;
}

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_templates.hpp")
#include "cudalab_apart_templates.hpp"
#endif
