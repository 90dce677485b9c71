/// @file histogram_check.cuh
/// @brief Test support for ch05_01: inputs (uniform bytes, one repeated value), the CPU histogram,
/// and a run of histogramShared on guarded buffers compared with it. Needs only cudalab::common
/// (the sanitizer driver links it without the GoogleTest support).
#pragma once

#include "histogram.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

/// What the input bytes look like.
enum class Pattern {
  kUniform,     ///< independent uniform random bytes: all 256 bins, ~n/256 each
  kSingleValue,  ///< every byte the same: all n counts in one bin (worst-case contention)
  kSparse        ///< bytes drawn from 5 values (0, 255 and 3 from the seed): 251 bins never hit
};

/// Byte value written around the input: a kernel that reads outside colors[0, n) raises this bin.
constexpr unsigned char kGuardByte = 0xA5;

/// @brief n input bytes reproducible from @p seed: uniform random, or all equal to @p value
/// (kSingleValue; value < 0: a value drawn from the seed, never kGuardByte).
std::vector<unsigned char> make_bytes(size_t n, Pattern pattern, std::uint64_t seed, int value = -1);

/// @brief "uniform" or "single value V" for messages.
std::string pattern_name(Pattern pattern, const std::vector<unsigned char> &bytes);

/// @brief The exact histogram of @p bytes (256 counts).
std::vector<unsigned long long> cpu_histogram(const std::vector<unsigned char> &bytes);

/// @brief Compares @p got (256 counters after the kernel) with @p start + @p counts; returns ""
/// when they agree, otherwise one line: the first wrong bin (expected, got, what was there before,
/// what was counted), how many bins are wrong, how many bytes were counted in all against n (lost
/// counts point to bins never merged or a non-atomic update; extra counts to reads outside the
/// input), and @p context.
std::string compare_histogram(const std::string &kernel, const std::vector<unsigned long long> &start,
                              const std::vector<unsigned long long> &counts, const std::vector<unsigned int> &got,
                              unsigned long long n, const std::string &context);

/// One launch of histogramShared on guarded, checked buffers.
struct SharedRun {
  size_t n = 0;                          ///< number of input bytes
  unsigned int offset = 0;               ///< the input starts this many bytes past a 16-byte boundary
  unsigned int block = kHistogramBlock;  ///< threads per block
  unsigned int grid = 0;                 ///< blocks; 0: histogram_shared_grid(n, block)
  Pattern pattern = Pattern::kUniform;   ///< the input
  int value = -1;                        ///< kSingleValue: the byte (-1: drawn from the seed)
  std::uint64_t seed = 0;                ///< input and start values
  bool poison_shared = false;            ///< fill every SM's shared memory with 0xCDCDCDCD first
};

/// @brief Runs histogramShared once: the input sits between guard bytes (kGuardByte), buckets
/// start at random values in [0, 1000) (the kernel must ADD its counts) and are followed by
/// poisoned guard counters. Returns "" when buckets equal start + the CPU's counts, the input is
/// unchanged and nothing past buckets[255] was written (with poison_shared, right after every SM's
/// shared memory was filled with 0xCDCDCDCD: a private count that was never zeroed shows); otherwise the reason, with n, offset, block,
/// grid, the input and the seed.
std::string shared_error(const SharedRun &run);

/// One launch of histogramShared on an input longer than 32-bit indices reach.
struct LongRun {
  size_t min_bytes = 0;     ///< the input is longer than this (2^32: byte indices; 2^36: uint4 indices)
  unsigned int offset = 1;  ///< the input starts this many bytes past a 16-byte boundary
  unsigned int cut = 5;     ///< and ends this many bytes before the end of the last chunk
  std::uint64_t seed = 0;   ///< the chunk's bytes and the buckets' start values
};

/// @brief Runs histogramShared once (block kHistogramBlock, histogram_shared_grid's grid) on an
/// input of more than run.min_bytes bytes that occupies only one chunk (128 MiB) of device memory:
/// the chunk, uniform random bytes, is mapped again and again into one reserved address range with
/// the driver's virtual memory management, so byte i of the input is byte (i + offset) % chunk of
/// the chunk. Returns "" when every bin is its start value plus the exact count; otherwise the
/// reason, with n, the mapping and the seed. When this GPU, driver or process cannot map it
/// (no virtual memory management, no address range that long), returns "" and sets
/// @p not_applicable to why.
std::string long_input_error(const LongRun &run, std::string *not_applicable);
