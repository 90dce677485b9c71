/// @file data.hpp
/// @brief Seeded random inputs and poisoned output buffers.
///
/// Every test draws a fresh seed (or takes CUDALAB_SEED from the environment to reproduce a
/// failure) and prints it; outputs are filled with a poison pattern before a kernel runs, so an
/// element the kernel never wrote is recognised and reported as such.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace cudalab {

/// Byte written over every output buffer before a kernel runs.
constexpr unsigned char kPoisonByte = 0xCD;
/// An int made of poison bytes (-842150451): "the kernel never wrote this element".
constexpr int kPoisonInt = static_cast<int>(0xCDCDCDCDu);

/// @brief The seed for this run: $CUDALAB_SEED if set, otherwise a fresh random one.
std::uint64_t choose_seed();

/// @brief n uniformly distributed ints in [lo, hi], reproducible from @p seed.
std::vector<int> random_ints(std::size_t n, int lo, int hi, std::uint64_t seed);

/// @brief n uniformly distributed floats in [lo, hi), reproducible from @p seed.
std::vector<float> random_floats(std::size_t n, float lo, float hi, std::uint64_t seed);

/// @brief True if @p v consists of poison bytes only (the kernel never wrote it).
template <class T>
bool is_poison(const T &v) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  for (unsigned char b : bytes)
    if (b != kPoisonByte) return false;
  return true;
}

}  // namespace cudalab
