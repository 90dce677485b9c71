/// @file modern_check.cuh
/// @brief Test support for ch03_14: run reduceShuffle8 / reduceModern on guarded, poisoned buffers
/// and compare with the CPU.
#pragma once

#include "cudalab/test_support.cuh"

#include <cstdint>
#include <string>

/// @brief Runs reduceShuffle8 once through reduction_error() (tests/support/reduce_check.cuh), its
/// input read-only: returns what is wrong ("" if nothing).
std::string shuffle8_error(unsigned int n, unsigned int block, std::uint64_t seed);

/// @brief Runs reduceModern once on n fresh random ints that start @p offset ints (0..3) past a
/// 16-byte boundary, with guard values before and after them, with @p grid blocks of kModernBlock
/// threads (0: modern_grid() for this GPU); returns what is wrong ("" if nothing). *g_sum starts
/// at 0 and is followed by a poisoned guard.
std::string modern_error(unsigned int n, unsigned int offset, unsigned int grid, std::uint64_t seed);

/// Elements of the reduceModern launch that ModernAtomics.* profiles (profile_target.cpp).
constexpr unsigned int kModernProfileN = (1u << 22) + 3;

/// @brief modern_grid() for device 0 with kModernBlock threads per block.
unsigned int modern_grid_here(unsigned int n);
