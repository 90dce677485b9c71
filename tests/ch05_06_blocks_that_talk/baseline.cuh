/// @file baseline.cuh
/// @brief Test-side baselines for ch05_06: the two-launch reduction the single pass is timed
/// against, and a cooperative kernel that needs every block resident (grid.sync()).
#pragma once

#include <cuda_runtime.h>

/// The test's own grid: ceil(n / block), at least 1, at most kMaxSinglePassBlocks (the same grid
/// the launcher's contract asks for, computed here so a wrong single_pass_grid cannot change it).
int baseline_grid(int n, int block);

/// Blocks of @p block threads of the two-launch baseline's first kernel that one SM holds at once
/// (the occupancy calculator; 0 if it fails).
int baseline_blocks_per_sm(int block);

/// @brief Two launches, the same loads per thread as reduceSinglePass: kernel 1 (grid
/// baseline_grid(n, block)) writes one 64-bit partial sum per block with the same grid-stride
/// loop; kernel 2 (one block of @p block threads) adds the partials into *out.
cudaError_t launch_two_pass_baseline(const int *in, long long *partial, long long *out, int n, int block,
                                     cudaStream_t stream = 0);

/// @brief A cooperative kernel: every block adds 1 to *arrived, grid.sync(), then block 0 copies
/// *arrived to *seen. Only right (and only finishes) when every block is resident.
__global__ void gridSyncCount(unsigned int *arrived, unsigned int *seen);
