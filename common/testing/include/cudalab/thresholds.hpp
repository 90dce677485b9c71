/// @file thresholds.hpp
/// @brief Performance thresholds: defaults from tests/LAB/grading.json, per-GPU overrides from the
/// instructor's thresholds-overrides.json, overridable at run time.
///
/// threshold("interleaved_speedup") returns, in order of precedence:
///   1. $CUDALAB_THRESHOLD_INTERLEAVED_SPEEDUP (the key upper-cased), if set;
///   2. the value for the running GPU in the threshold override file (tools/calibrate.py
///      --write-overrides; cache variable CUDALAB_THRESHOLD_OVERRIDES, by default
///      thresholds-overrides.json at the repository root), matched by the exact device name
///      (cudaDeviceProp::name, e.g. "NVIDIA H200");
///   3. the value in tests/LAB/grading.json ("thresholds": {"interleaved_speedup": {"value": ..}}).
/// Rows 2 and 3 are compiled into the test binary at configure time (cmake/CudaLab.cmake).
#pragma once

#include <string>

namespace cudalab {

namespace detail {
/// One row of the generated thresholds table.
struct ThresholdEntry {
  const char *key;
  double value;
  const char *device;  ///< the GPU this row is for (override file), nullptr for grading.json's value
};
extern const char *const kLabName;             ///< the lab these tests grade (generated)
extern const char *const kThresholdOverrides;  ///< the override file's name, "" if none (generated)
extern const ThresholdEntry kThresholds[];     ///< terminated by {nullptr, 0, nullptr} (generated)

/// @brief The row of @p table for @p key on the GPU named @p device: the row for exactly that
/// device if there is one, else the default row (device nullptr); nullptr when the key has neither.
/// Pure (no CUDA calls), so the selection is testable without a GPU.
const ThresholdEntry *find_threshold(const ThresholdEntry *table, const std::string &key, const std::string &device);

/// @brief Whether @p table has any device rows (only then is the GPU's name queried).
bool has_device_rows(const ThresholdEntry *table);

/// @brief The name of the current CUDA device (cudaDeviceProp::name), queried once; "" without one.
const std::string &current_device_name();
}  // namespace detail

/// @brief The threshold @p key for this lab on this GPU; fails the current test if it is not defined.
double threshold(const std::string &key);

/// @brief Where threshold(@p key) came from: "$CUDALAB_THRESHOLD_<KEY>", "thresholds-overrides.json
/// for NVIDIA H200" or "tests/<lab>/grading.json".
std::string threshold_source(const std::string &key);

/// @brief "" when threshold(@p key) is grading.json's value, else " (threshold from <source>)":
/// appended to a [ PERF ] line so a measurement shows which thresholds were not the lab's own.
std::string threshold_note(const std::string &key);

/// @brief The name of the lab these tests grade.
const char *lab_name();

}  // namespace cudalab
