/// @file modern_check.cuh
/// @brief Test support for ch03_14: run reduceShuffle8 / reduceModern on guarded, poisoned buffers
/// and compare with the CPU.
#pragma once

#include "cudalab/test_support.cuh"

#include <cstdint>
#include <functional>
#include <string>

/// @brief Runs reduceShuffle8 once through reduction_error() (tests/support/reduce_check.cuh), its
/// input read-only: returns what is wrong ("" if nothing).
std::string shuffle8_error(unsigned int n, unsigned int block, std::uint64_t seed);

/// @brief Runs reduceModern once on n fresh random ints that start @p offset ints (0..3) past a
/// 16-byte boundary, with guard values before and after them, with @p grid blocks of kModernBlock
/// threads (0: modern_grid() for this GPU); returns what is wrong ("" if nothing). *g_sum starts
/// at 0 and is followed by a poisoned guard.
std::string modern_error(unsigned int n, unsigned int offset, unsigned int grid, std::uint64_t seed);

/// A launch of a one-pass reduction with reduceModern's signature, (g_idata, n, g_sum), on @p grid
/// blocks of kModernBlock threads on the default stream; returns the launch's error.
using ModernLaunch = std::function<cudaError_t(const int *g_idata, unsigned int n, int *g_sum, unsigned int grid)>;

/// @brief modern_error() for @p launch (named @p name in the messages) on @p grid blocks (not 0):
/// the same input, guards and checks.
std::string modern_error(const char *name, const ModernLaunch &launch, unsigned int n, unsigned int offset,
                         unsigned int grid, std::uint64_t seed);

/// Elements of the reduceModern launch that ModernAtomics.* profiles (profile_target.cpp).
constexpr unsigned int kModernProfileN = (1u << 22) + 3;

/// @brief modern_grid() for device 0 with kModernBlock threads per block.
unsigned int modern_grid_here(unsigned int n);

/// @brief The grid the reference solution's modern_grid() gives on device 0 for kModernBlock
/// threads per block: one full wave (SMs x (threads per SM / kModernBlock)), but no more blocks
/// than the ceil(n / 4) int4 groups need, at least 1. Restated here so that the reference kernel's
/// launch never depends on the student's modern_grid().
unsigned int reference_modern_grid(unsigned int n);
