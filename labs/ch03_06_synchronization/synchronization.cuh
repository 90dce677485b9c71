/// @file synchronization.cuh
/// @brief Lab ch03_06 -- synchronization (book section 3.6): block-level barriers against
/// RAW/WAR hazards in shared memory, system-level synchronization to see a kernel's errors, and a
/// grid-wide dependency split into two launches.
///
/// Block-level kernels share one contract: launched with `sync_grid(n, block)` blocks of `block`
/// threads (any block size from 32 to 1024, not only powers of two) and `block * sizeof(T)` bytes
/// of dynamic shared memory; block b owns the chunk [b * blockDim.x, min(n, (b + 1) * blockDim.x))
/// and never reads or writes outside [0, n).
#pragma once

#include <cuda_runtime.h>

/// @brief Reverses each block's chunk through shared memory:
/// out[start + i] = in[start + count - 1 - i], with count the chunk's length.
/// One RAW hazard: a thread reads the element another warp wrote.
__global__ void reverseBlock(const int *in, int *out, unsigned int n);

/// @brief Smooths each block's chunk in place in shared memory, @p steps times:
/// t[i] = t[i - 1] + t[i] + t[i + 1] (unsigned, wrapping; 0 outside the chunk), then writes it out.
/// RAW hazards (read neighbours only after they were written) and WAR hazards (overwrite t[i]
/// only after both neighbours have read it).
__global__ void smoothTile(const unsigned int *in, unsigned int *out, unsigned int n, int steps);

/// @brief Grid step 1: partial[b] = the minimum of block b's chunk (tree in shared memory).
__global__ void blockMin(const int *in, int *partial, unsigned int n);

/// @brief Grid step 2: out[i] = in[i] - m, where m is the minimum of partial[0, num_partials)
/// (every block computes m from all partial minima; launched after blockMin has finished).
__global__ void subtractMin(const int *in, const int *partial, unsigned int num_partials, int *out,
                            unsigned int n);

/// @brief out[i] = in[i] - min(in) on the device: blockMin, then subtractMin, two launches on the
/// default stream (the kernel boundary is the only grid-wide barrier). @p d_partial holds
/// sync_grid(n, block) ints. Returns the first launch error; does not synchronize.
cudaError_t subtractGlobalMin(const int *d_in, int *d_out, int *d_partial, unsigned int n, unsigned int block);

/// @brief dst[i] = src[idx[i]] for i < n (one thread per element).
__global__ void gatherKernel(const int *src, const unsigned int *idx, int *dst, unsigned int n);

/// @brief Launches gatherKernel with sync_grid(n, block) blocks of @p block threads and reports
/// what went wrong: the launch error (bad configuration) if there is one, otherwise the error of
/// the kernel's execution (a fault is only visible after synchronizing), otherwise cudaSuccess.
cudaError_t gatherChecked(const int *d_src, const unsigned int *d_idx, int *d_dst, unsigned int n,
                          unsigned int block);

/// @brief Number of blocks for n elements: ceil(n / block).
inline unsigned int sync_grid(unsigned int n, unsigned int block) { return (n + block - 1) / block; }

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_synchronization.hpp")
#include "cudalab_apart_synchronization.hpp"
#endif
