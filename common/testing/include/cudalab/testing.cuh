/// @file testing.cuh
/// @brief GoogleTest support for the labs: fixtures that skip without a GPU, CUDA assertions that
/// fail only the current test, array comparison that names the first wrong element, and the
/// performance check that prints its measurements whether it passes or fails.
#pragma once

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/ncu.hpp"
#include "cudalab/thresholds.hpp"
#include "cudalab/timing.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace cudalab {

/// @brief Base fixture for tests that need no GPU: draws and prints the seed.
class HostTest : public ::testing::Test {
 protected:
  void SetUp() override;
  /// @brief The seed of this test (printed at the start; set CUDALAB_SEED to reproduce).
  std::uint64_t seed() const { return seed_; }

 private:
  std::uint64_t seed_ = 0;
};

/// @brief Base fixture for GPU tests. Skips the test in SetUp (so CTest reports it as Skipped,
/// not Passed) when no usable GPU exists, otherwise queries the device and draws the seed. Fails
/// it at once, without touching the GPU, when an earlier test of the same lab did not finish in
/// its time budget in this ctest run (see cudalab/watchdog.hpp). A derived fixture's SetUp should
/// return when `IsSkipped() || HasFatalFailure()` after calling this one.
class GpuTest : public HostTest {
 protected:
  void SetUp() override;
  void TearDown() override;
  /// @brief The device this test runs on.
  const DeviceInfo &device() const { return device_; }
  /// @brief This test broke the GPU on purpose (an injected kernel fault, a sticky error):
  /// TearDown does not fail it for the device state it leaves.
  void expect_sticky_error() { sticky_expected_ = true; }

 private:
  DeviceInfo device_;
  bool not_run_ = false;          // failed in SetUp because the lab hung earlier
  bool sticky_expected_ = false;  // expect_sticky_error()
};

/// @brief Compares @p actual with @p expected element by element. On mismatch the message names
/// @p kernel, @p context (sizes, seed), the first wrong index with expected and actual values,
/// whether the element was never written (poison), and how many elements are wrong.
template <class E, class A>
::testing::AssertionResult equal_arrays(const std::string &kernel, const std::string &context,
                                        const std::vector<E> &expected, const std::vector<A> &actual,
                                        const char *index_name = "index") {
  if (expected.size() != actual.size()) {
    return ::testing::AssertionFailure() << kernel << ": result has " << actual.size()
                                         << " elements, expected " << expected.size() << " (" << context << ")";
  }
  std::size_t first = expected.size(), wrong = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (static_cast<E>(actual[i]) != expected[i]) {
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure();
  f << kernel << ": wrong result at " << index_name << " " << first << ": expected " << expected[first]
    << ", got " << actual[first];
  if (is_poison(actual[first])) f << " (never written: still the poison value)";
  f << "; " << wrong << " of " << expected.size() << " wrong (" << context << ")";
  return f;
}

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

}  // namespace cudalab

/// Stops the current test when @p bytes of device memory plus 256 MiB are not free: "not applicable
/// on this GPU" (left out of the total) when the whole GPU has too little memory, skipped with 0
/// points when it has enough but other programs (or code of this process) hold it. On a grading
/// machine (CUDALAB_REQUIRE_COUNTERS, cudalab/ncu.hpp) the test fails: there every test must run.
#define CUDALAB_REQUIRE_FREE_MEMORY(bytes, what)                                                      \
  do {                                                                                                \
    bool cudalab_small_ = false;                                                                      \
    const std::string cudalab_why_ = ::cudalab::lacks_free_memory((bytes), (what), &cudalab_small_); \
    if (!cudalab_why_.empty() && ::cudalab::counters_required())                                     \
      GTEST_FAIL() << cudalab_why_ << " (this grading machine must run every test)";                 \
    if (!cudalab_why_.empty() && cudalab_small_) CUDALAB_SKIP_NOT_APPLICABLE() << cudalab_why_;      \
    if (!cudalab_why_.empty()) GTEST_SKIP() << cudalab_why_;                                          \
  } while (0)

/// Skips the current test as one this GPU cannot run (not enough memory, an unknown architecture),
/// as opposed to one that failed: the score table (tools/grade.py) lists it as "not applicable on
/// this GPU" and leaves its points out of the total. Stream the reason after it.
#define CUDALAB_SKIP_NOT_APPLICABLE() GTEST_SKIP() << "not applicable on this GPU: "

/// Fails the current test (and returns from it) if a CUDA runtime call fails.
#define CUDALAB_ASSERT_OK(expr)                                                                 \
  do {                                                                                          \
    cudaError_t cudalab_err_ = (expr);                                                          \
    if (cudalab_err_ != cudaSuccess)                                                            \
      GTEST_FAIL() << ::cudalab::describe_error(cudalab_err_, #expr, __FILE__, __LINE__);       \
  } while (0)

/// Fails the current test if the launch of kernel @p name failed or the kernel faulted.
#define CUDALAB_ASSERT_LAUNCH(name)                                                             \
  do {                                                                                          \
    cudaError_t cudalab_err_ = cudaGetLastError();                                              \
    if (cudalab_err_ != cudaSuccess)                                                            \
      GTEST_FAIL() << ::cudalab::describe_error(cudalab_err_, "launch of " name, __FILE__, __LINE__); \
    cudalab_err_ = cudaDeviceSynchronize();                                                     \
    if (cudalab_err_ != cudaSuccess)                                                            \
      GTEST_FAIL() << ::cudalab::describe_error(cudalab_err_, "kernel " name, __FILE__, __LINE__); \
  } while (0)
