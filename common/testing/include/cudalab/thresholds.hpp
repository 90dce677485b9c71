/// @file thresholds.hpp
/// @brief Performance thresholds: defaults from tests/LAB/grading.json, overridable at run time.
///
/// threshold("interleaved_speedup") returns, in order of precedence:
///   1. $CUDALAB_THRESHOLD_INTERLEAVED_SPEEDUP (the key upper-cased), if set;
///   2. the value in tests/LAB/grading.json ("thresholds": {"interleaved_speedup": {"value": ..}}),
///      compiled into the test binary at configure time.
#pragma once

#include <string>

namespace cudalab {

namespace detail {
/// One row of the generated thresholds table.
struct ThresholdEntry {
  const char *key;
  double value;
};
extern const char *const kLabName;         ///< the lab these tests grade (generated)
extern const ThresholdEntry kThresholds[];  ///< terminated by {nullptr, 0} (generated)
}  // namespace detail

/// @brief The threshold @p key for this lab; fails the current test if it is not defined.
double threshold(const std::string &key);

/// @brief Where threshold(@p key) came from: "grading.json" or "$CUDALAB_THRESHOLD_<KEY>".
std::string threshold_source(const std::string &key);

/// @brief The name of the lab these tests grade.
const char *lab_name();

}  // namespace cudalab
