/// @file ncu.hpp
/// @brief Graded profiler checks: run a lab's profile-target program under Nsight Compute (ncu)
/// and read the metrics per kernel. Used by tests that grade a hardware counter (divergent
/// branches, sectors per request, global load instructions). Where ncu is missing or profiling
/// is not permitted (ERR_NVGPUCTRPERM), the result says "skip" and the test is skipped, never
/// passed.
///
/// The target program is built by cudalab_add_ncu_target() (cmake/CudaLab.cmake), which also
/// compiles the paths of ncu and of the target into the lab's GPU test binary as CUDALAB_NCU and
/// CUDALAB_PROFILE_TARGET. A target prints "[ CUDALAB  ] reason: ..." and exits 1 when the
/// student's kernel is wrong (a wrong kernel earns no profile), and "[ CUDALAB  ] skipped: ..."
/// without a GPU.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cudalab {

/// @brief Splits one line of ncu's CSV output ("a","b,c",...) into its fields, quotes removed.
std::vector<std::string> csv_fields(const std::string &line);

/// @brief One metric under its two names: the book's (nvprof, before Volta) and Nsight Compute's.
struct NcuMetric {
  const char *nvprof;  ///< e.g. "gld_efficiency"
  const char *ncu;     ///< e.g. "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"
};

/// @brief What one ncu run gave.
struct NcuResult {
  enum class Status { kOk, kSkip, kFail };
  Status status = Status::kFail;  ///< kOk: metrics read; kSkip: cannot profile here; kFail: see message
  std::string message;            ///< why it was skipped or failed (one line)
  std::string command;            ///< the ncu command line that ran
  std::string output;             ///< everything ncu and the target printed
  /// kSkip because this machine cannot read the GPU's performance counters (no ncu, or
  /// ERR_NVGPUCTRPERM): "not applicable" on a student's machine, a failure on a grading machine
  bool counters_unavailable = false;
  /// kernel name (up to its first '(') -> metric name -> value (the last launch profiled)
  std::map<std::string, std::map<std::string, double>> values;
  /// @brief The value of @p metric for @p kernel, or -1 when ncu did not report it.
  double get(const std::string &kernel, const std::string &metric) const;
};

/// @brief Runs `ncu --clock-control none --csv --print-units base -k regex:<kernel_regex>
/// --metrics <metrics> <target> <args>` and parses its CSV output.
/// @param ncu path of ncu ("" when it was not found at configure time: the result is a skip)
/// @param target the profile-target program
/// @param args arguments for the target (may be empty)
/// @param kernel_regex which kernels to profile (ncu's -k regex:)
/// @param metrics ncu metric names
NcuResult run_ncu(const std::string &ncu, const std::string &target, const std::string &args,
                  const std::string &kernel_regex, const std::vector<std::string> &metrics);

/// @brief True on a grading machine, which must read the counters: configured with
/// -DCUDALAB_REQUIRE_COUNTERS=ON, or CUDALAB_REQUIRE_COUNTERS=1 in the environment.
bool counters_required();

/// @brief Prints one "[ PROFILE  ]" row per metric: the book's nvprof name, the ncu name and the
/// value for each kernel in @p kernels (-1: not reported).
/// @param r the ncu result
/// @param kernels kernel names (columns)
/// @param rows the metrics (rows)
void print_profile(const NcuResult &r, const std::vector<std::string> &kernels, const std::vector<NcuMetric> &rows);

}  // namespace cudalab

/// In a GPU test: runs ncu on this lab's profile target (CUDALAB_NCU / CUDALAB_PROFILE_TARGET)
/// into the NcuResult @p var. Where the counters cannot be read, the test is "not applicable on
/// this GPU" (left out of the total, like a test that needs more memory than the GPU has), except
/// on a grading machine (counters_required()), where it fails. Other reasons not to profile skip
/// it; a failure of ncu or of the target (a wrong student kernel: the target's reason) fails it.
#define CUDALAB_RUN_NCU(var, args, kernel_regex, ...)                                                                 \
  const ::cudalab::NcuResult var =                                                                                    \
      ::cudalab::run_ncu(CUDALAB_NCU, CUDALAB_PROFILE_TARGET, args, kernel_regex, __VA_ARGS__);                       \
  if (var.status == ::cudalab::NcuResult::Status::kSkip && var.counters_unavailable) {                                \
    if (::cudalab::counters_required())                                                                               \
      GTEST_FAIL() << "this machine grades the course and must read the GPU's performance counters: " << var.message; \
    GTEST_SKIP() << "not applicable on this GPU: " << var.message                                                     \
                 << " -- the course's grading machine measures this test";                                            \
  }                                                                                                                   \
  if (var.status == ::cudalab::NcuResult::Status::kSkip) GTEST_SKIP() << var.message;                                 \
  if (var.status == ::cudalab::NcuResult::Status::kFail) GTEST_FAIL() << var.message
