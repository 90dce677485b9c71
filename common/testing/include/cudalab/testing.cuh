/// @file testing.cuh
/// @brief GoogleTest support for the labs: fixtures that skip without a GPU, CUDA assertions that
/// fail only the current test, array comparison that names the first wrong element, and the
/// performance check that prints its measurements whether it passes or fails.
#pragma once

#include "cudalab/test_support.cuh"

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

/// Fails the current test (and returns from it) if a CUDA runtime call fails. Out of memory
/// (cudaErrorMemoryAllocation) is the machine's, not the kernel's: the call is tried again while
/// other programs may free memory (cudalab::MemoryWait, up to 30 s), then the test is skipped with
/// 0 points and the reason (on a grading machine that must run every test, it fails).
#define CUDALAB_ASSERT_OK(expr)                                                                 \
  do {                                                                                          \
    cudaError_t cudalab_err_ = (expr);                                                          \
    for (::cudalab::MemoryWait cudalab_wait_; cudalab_wait_.again(cudalab_err_);)               \
      cudalab_err_ = (expr);                                                                    \
    if (cudalab_err_ == cudaErrorMemoryAllocation && !::cudalab::counters_required())           \
      GTEST_SKIP() << ::cudalab::out_of_memory(#expr, __FILE__, __LINE__);                      \
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
