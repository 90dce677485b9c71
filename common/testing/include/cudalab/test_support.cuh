/// @file test_support.cuh
/// @brief What the labs' test helpers need without GoogleTest: device buffers, random data, error
/// descriptions, timing, the performance report and measurement records, and the limits a test
/// sizes its data by. Result checkers (the labs' `*_check.cuh`, tests/support) include this, not
/// cudalab/testing.cuh, so nvcc does not parse GoogleTest for every file with a kernel in it; the
/// GoogleTest fixtures and assertions are in cudalab/testing.cuh, which includes this.
#pragma once

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/memory_wait.hpp"
#include "cudalab/ncu.hpp"
#include "cudalab/thresholds.hpp"
#include "cudalab/timing.cuh"

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>

namespace cudalab {

/// @brief One line per graded speed-up: what was compared, both medians and their noise, the
/// speed-up and the threshold, and the candidate's bandwidth as % of the measured copy bandwidth.
struct PerfReport {
  std::string candidate;      ///< kernel being graded, e.g. "reduceInterleaved"
  std::string baseline;       ///< what it is compared with
  Comparison cmp;             ///< the side-by-side timing
  double threshold = 0.0;     ///< required speedup (baseline time / candidate time)
  std::string threshold_key;  ///< key of the threshold in grading.json
  double bytes = 0.0;         ///< bytes the candidate moves (0: no bandwidth figure)
  /// @brief The report line.
  std::string line() const;
};

/// @brief Prints report.line() and fails the current test if the speed-up is below the threshold
/// or if timing failed. Also records the figures in the test's result record (record_measurement:
/// key, measured speed-up, required, both medians and the line).
void expect_speedup(const PerfReport &report);

/// @brief One measured figure of a test, for its result record (docs/grading.md, "How results
/// travel"): in the normal case a figure compared with a grading.json threshold.
struct Measurement {
  std::string key;              ///< the threshold's key in grading.json ("": a figure without one)
  double measured = -1.0;       ///< the measured figure (with a key: what the threshold is compared with)
  double required = -1.0;       ///< the threshold's value in effect (cudalab::threshold(key))
  const char *compare = ">=";   ///< ">=": measured must reach required (a minimum); "<=": a maximum
  double baseline_ms = -1.0;    ///< timed comparisons: the baseline's median time (< 0: none)
  double candidate_ms = -1.0;   ///< timed comparisons: the candidate's median time (< 0: none)
  std::string text;             ///< the line printed for the student, without its tag
};

/// @brief Records @p m in the current test's result record as the flat properties
/// "<tag>.<n>.key", ".measured", ".required", ".compare", ".baseline_ms", ".candidate_ms" and
/// ".text" (n = 1, 2, ... per tag and test, in the order recorded; numbers in full precision; a
/// field that does not apply is left out). @p tag is "perf" for a "[ PERF     ]" line (the score
/// table's performance measurements, which tools/calibrate.py recalibrates) or "profile" for a
/// "[ PROFILE  ]" line (hardware counters). Prints nothing.
void record_measurement(const std::string &tag, const Measurement &m);

/// @brief Prints "[ PERF     ] <m.text>" and records @p m under "perf" (record_measurement).
void report_perf(const Measurement &m);

/// @brief Prints "[ PROFILE  ] <m.text>" and records @p m under "profile" (record_measurement).
void report_profile(const Measurement &m);

/// @brief report_profile() of a hardware-counter figure compared with the grading.json threshold
/// @p key: prints "[ PROFILE  ] <text>" and records measured, required and compare (">=" or "<=").
void report_profile(const std::string &key, double measured, double required, const char *compare,
                    const std::string &text);

/// @brief "n=1000 block=256 seed=42"-style context for failure messages.
std::string context(std::initializer_list<std::pair<const char *, long long>> values);

/// True when the test binary runs under compute-sanitizer for a SanitizeAll check: the check sets
/// CUDALAB_SANITIZING (to the tool's name) in the binary's environment (cmake/RunSanitizer.cmake).
bool sanitizing();

/// The largest input, in elements, a test runs under compute-sanitizer (2^21: the ragged 2^20 + k
/// sizes stay, the book's 2^24 goes; racecheck on 2^24 elements takes minutes per kernel). 0 (no
/// limit) when not sanitizing.
std::size_t sanitizer_max_elements();

/// True when a test should leave out an input of @p n elements because it runs under
/// compute-sanitizer and @p n is over sanitizer_max_elements(); prints a note the first time.
/// Only for sizes that repeat what smaller sizes of the same test already check.
bool skipped_under_sanitizer(std::size_t n);

/// Bytes of device memory free now: cudaMemGetInfo's figure, or at most CUDALAB_FREE_MEMORY_MIB
/// mebibytes when that variable is set (to see on a large GPU what a smaller one would do). 0 when
/// it cannot be read.
std::size_t free_device_memory();

/// "" when @p bytes of device memory (plus 256 MiB to spare) fit in the free memory; else why not,
/// naming @p what and the figures, and *gpu_too_small says whether the whole GPU is too small (or
/// only busy). Both are capped by CUDALAB_FREE_MEMORY_MIB. Use CUDALAB_REQUIRE_FREE_MEMORY(),
/// before any student code runs in the test.
std::string lacks_free_memory(std::size_t bytes, const std::string &what, bool *gpu_too_small = nullptr);

// cudalab::MemoryWait: cudalab/memory_wait.hpp (included above).


/// @brief Whether this machine must run every test (CUDALAB_REQUIRE_COUNTERS, cudalab/ncu.hpp).
bool counters_required();

/// @brief Why a test's own allocation (@p expr at @p file:@p line) still found no memory after the
/// wait: the free and total memory, and that it is not the student's kernel.
std::string out_of_memory(const char *expr, const char *file, int line);

}  // namespace cudalab
