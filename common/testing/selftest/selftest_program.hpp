/// @file selftest_program.hpp
/// @brief What a lab's test program gets from its grading.json (cmake/CudaLab.cmake: the lab's
/// name, thresholds and error promises), empty, for a self-test program of the harness that links
/// cudalab::testing without being a lab's.
#pragma once

#include "cudalab/launch_checks.hpp"
#include "cudalab/thresholds.hpp"

/// Defines the generated tables of a test program named @p name, with no thresholds, overrides or
/// error promises. Use once, at namespace scope, in a self-test's source.
#define CUDALAB_SELFTEST_PROGRAM(name)                             \
  namespace cudalab::testing::detail {                             \
  const ErrorPromise kErrorPromises[] = {{nullptr, false, false}}; \
  }                                                                \
  namespace cudalab::detail {                                      \
  const char *const kLabName = name;                               \
  const char *const kThresholdOverrides = "";                      \
  const ThresholdEntry kThresholds[] = {{nullptr, 0.0, nullptr}};  \
  }
