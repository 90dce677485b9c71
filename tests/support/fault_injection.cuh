/// @file fault_injection.cuh
/// @brief The one test body for every lab function that promises to report errors.
///
/// A lab declares in tests/<lab>/grading.json which of its functions promise what:
///
///     "reports_errors": [{"function": "gatherChecked", "reports": ["launch", "kernel"]}]
///
/// ("launch": returns the error of a launch that failed and leaves none pending; "kernel": also the
/// error of a kernel that faulted, so it waits for its kernels). Its GPU test source then gives, once,
/// how to call each declared function with valid arguments:
///
///     const bool kFaultInjection = cudalab::testing::register_fault_injection({
///         {"gatherChecked", [](const cudalab::testing::Run &run) {
///            ...allocate and fill valid arguments...
///            return run([&] { return gatherChecked(src, idx, dst, n, 256); });
///          }},
///     });
///
/// and gets, per declared function, the GPU tests (GoogleTest names)
///
/// - FaultInjection.<function>_launch_failure ("launch"): each launch the function makes is made to
///   fail for real in turn (cudalab::testing::FailLaunches: the runtime refuses it as a bad
///   configuration); the function must return the runtime's error, and cudaGetLastError()
///   must return cudaSuccess afterwards (no error left pending);
/// - FaultInjection.<function>_kernel_fault ("kernel"): a kernel that faults is enqueued right
///   after each of its launches (cudalab::testing::FaultAfterLaunches); the function must return a
///   CUDA error, not cudaSuccess;
/// - FaultInjection.<function>_no_fault: without injection it returns cudaSuccess, leaves no error
///   pending, and the GPU has no error afterwards.
///
/// A declared function without an entry fails FaultInjection.<function>_table_entry, an entry
/// that grading.json does not declare fails FaultInjection.<function>_declared.
#pragma once

#include "cudalab/launch_checks.hpp"
#include "cudalab/launch_recorder.hpp"
#include "cudalab/testing.cuh"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cudalab::testing {

/// @brief One call of the function under test, returning what it returned.
using CallOnce = std::function<cudaError_t()>;
/// @brief Runs a CallOnce with the test's injection around it (and only around it: the entry's
/// setup before it is not injected); returns what the call returned.
using Run = std::function<cudaError_t(const CallOnce &)>;

/// @brief One row of a lab's table: the function's name (as in grading.json) and how to call it once
/// with valid arguments: prepare them, then `return run([&] { return function(args...); });`.
struct ErrorReporter {
  const char *function;
  std::function<cudaError_t(const Run &)> call;
};

namespace fault_injection_detail {

enum class Case { kLaunchFailure, kKernelFault, kNoFault, kNoTableEntry, kUndeclared };

inline std::string error_name(cudaError_t e) { return std::string(cudaGetErrorName(e)); }

class FaultInjectionTest : public cudalab::GpuTest {
 public:
  FaultInjectionTest(ErrorReporter reporter, Case c) : reporter_(std::move(reporter)), case_(c) {}

 protected:
  bool table_problem() const { return case_ == Case::kNoTableEntry || case_ == Case::kUndeclared; }
  void SetUp() override {
    if (!table_problem()) cudalab::GpuTest::SetUp();
  }
  void TearDown() override {
    if (!table_problem()) cudalab::GpuTest::TearDown();
  }

  void TestBody() override {
    const std::string fn = reporter_.function;
    switch (case_) {
      case Case::kNoTableEntry:
        FAIL() << "tests/" << cudalab::lab_name() << "/grading.json declares " << fn
               << " in \"reports_errors\", but the lab's fault-injection table (register_fault_injection in its "
                  "GPU tests) has no entry that calls it";
      case Case::kUndeclared:
        FAIL() << "the lab's fault-injection table has an entry for " << fn << ", but tests/" << cudalab::lab_name()
               << "/grading.json does not declare it in \"reports_errors\" (what does it promise to report?)";
      case Case::kNoFault:
        return no_fault(fn);
      case Case::kLaunchFailure:
        return launch_failure(fn);
      case Case::kKernelFault:
        return kernel_fault(fn);
    }
  }

 private:
  /// One call of the function with nothing injected; @p launches receives how many kernels it launched.
  cudaError_t call_counting_launches(std::size_t *launches) {
    return reporter_.call([&](const CallOnce &f) {
      cudalab::LaunchRecorder recorder;
      const cudaError_t e = f();
      *launches = recorder.launches().size();
      return e;
    });
  }

  void no_fault(const std::string &fn) {
    std::size_t launches = 0;
    const cudaError_t got = call_counting_launches(&launches);
    const cudaError_t pending = cudaGetLastError();
    const cudaError_t device = cudaDeviceSynchronize();
    // A function that launches nothing reports nothing: a stub that returns cudaSuccess must not pass.
    EXPECT_GT(launches, 0u) << fn << " launched no kernel with valid arguments (it is a launcher: launch, then "
                            << "report what the runtime says)";
    EXPECT_EQ(got, cudaSuccess) << fn << " returned " << error_name(got)
                                << " with valid arguments and nothing injected: it must return cudaSuccess";
    EXPECT_EQ(pending, cudaSuccess) << fn << " left the error " << error_name(pending)
                                    << " pending (cudaGetLastError() after it returned) with valid arguments";
    EXPECT_EQ(device, cudaSuccess) << "after " << fn << " with valid arguments, cudaDeviceSynchronize() returned "
                                   << error_name(device);
  }

  void launch_failure(const std::string &fn) {
    // How many launches one call makes, without injection.
    std::size_t launches = 0;
    const cudaError_t clean = call_counting_launches(&launches);
    (void)cudaGetLastError();
    const cudaError_t device = cudaDeviceSynchronize();
    ASSERT_EQ(device, cudaSuccess) << "after " << fn << " with valid arguments, cudaDeviceSynchronize() returned "
                                   << error_name(device) << " (see FaultInjection." << fn << "_no_fault)";
    ASSERT_EQ(clean, cudaSuccess) << fn << " returned " << error_name(clean)
                                  << " with valid arguments and nothing injected (see FaultInjection." << fn
                                  << "_no_fault)";
    ASSERT_GT(launches, 0u) << fn << " launched no kernel with valid arguments";
    int tried = 0;
    for (std::size_t i = 0; i < launches; ++i) {
      int failed = 0;
      cudaError_t injected = cudaSuccess;
      const cudaError_t got = reporter_.call([&](const CallOnce &f) {
        FailLaunches fail(static_cast<int>(i));
        const cudaError_t e = f();
        failed = fail.failed();
        injected = fail.error();
        return e;
      });
      const cudaError_t pending = cudaGetLastError();
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "the GPU failed after an injected launch failure";
      if (failed == 0) continue;  // this call made fewer launches
      ASSERT_NE(injected, cudaSuccess)
          << "the runtime accepted a launch of 1025 threads per block (a problem of the test)";
      ++tried;
      const std::string which = "launch " + std::to_string(i + 1) + " of " + std::to_string(launches);
      EXPECT_EQ(got, injected)
          << fn << ": " << which << " failed (the runtime refused it with " << error_name(injected)
          << ", injected by the test), but " << fn << " returned " << error_name(got)
          << ": it promises to return the launch's error -- read cudaGetLastError() right after the launch";
      EXPECT_EQ(pending, cudaSuccess) << fn << ": after " << which << " failed, " << fn << " left the error "
                                      << error_name(pending)
                                      << " pending (cudaGetLastError() afterwards): read the launch error with "
                                         "cudaGetLastError(), which also clears it, not cudaPeekAtLastError()";
      if (HasFailure()) return;
    }
    EXPECT_GT(tried, 0) << "no launch of " << fn << " could be made to fail";
  }

  void kernel_fault(const std::string &fn) {
    expect_sticky_error();  // the injected fault leaves the GPU unusable for this process
    int faults = 0;
    const cudaError_t got = reporter_.call([&](const CallOnce &f) {
      FaultAfterLaunches fault;
      const cudaError_t e = f();
      faults = fault.faults();
      return e;
    });
    const cudaError_t device = cudaDeviceSynchronize();
    ASSERT_GT(faults, 0) << fn << " made no launch that the runtime accepted, so no fault could follow it";
    ASSERT_NE(device, cudaSuccess) << "the injected kernel fault did not happen (a problem of the test)";
    EXPECT_NE(got, cudaSuccess) << fn << ": a kernel it launched was followed by a fault (injected by the test; "
                                << "the GPU reported " << error_name(device) << "), but " << fn
                                << " returned cudaSuccess: it promises to report the errors of its kernels, so it "
                                   "must wait for them (cudaDeviceSynchronize()) and return what that reports";
  }

  ErrorReporter reporter_;
  Case case_;
};

}  // namespace fault_injection_detail

/// @brief Registers the FaultInjection.* tests (see the file comment) for @p table against the
/// lab's "reports_errors" (compiled in from grading.json). Call once, at namespace scope of the
/// lab's GPU test source: `const bool kFaultInjection = register_fault_injection({...});`.
inline bool register_fault_injection(std::vector<ErrorReporter> table, const char *file = __builtin_FILE(),
                                     int line = __builtin_LINE()) {
  using fault_injection_detail::Case;
  using fault_injection_detail::FaultInjectionTest;
  auto add = [&](const ErrorReporter &r, Case c, const char *suffix) {
    const std::string name = std::string(r.function) + suffix;
    ::testing::RegisterTest("FaultInjection", name.c_str(), nullptr, nullptr, file, line,
                            [r, c]() -> FaultInjectionTest * { return new FaultInjectionTest(r, c); });
  };
  for (const detail::ErrorPromise *p = detail::kErrorPromises; p->function; ++p) {
    const ErrorReporter *entry = nullptr;
    for (const ErrorReporter &r : table)
      if (std::strcmp(r.function, p->function) == 0) entry = &r;
    if (!entry) {
      add(ErrorReporter{p->function, nullptr}, Case::kNoTableEntry, "_table_entry");
      continue;
    }
    if (p->launch) add(*entry, Case::kLaunchFailure, "_launch_failure");
    if (p->kernel) add(*entry, Case::kKernelFault, "_kernel_fault");
    add(*entry, Case::kNoFault, "_no_fault");
  }
  for (const ErrorReporter &r : table) {
    bool declared = false;
    for (const detail::ErrorPromise *p = detail::kErrorPromises; p->function; ++p)
      declared = declared || std::strcmp(r.function, p->function) == 0;
    if (!declared) add(r, Case::kUndeclared, "_declared");
  }
  return true;
}

}  // namespace cudalab::testing
