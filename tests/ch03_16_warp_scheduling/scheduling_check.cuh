/// @file scheduling_check.cuh
/// @brief Test support for ch03_16: the chains' CPU reference and result check, the tests' own
/// copy of the scheduler model, the probe configurations of the prediction tests, and a reader
/// for one ncu run that profiled several launches of the same kernels.
#pragma once

#include "warp_scheduling.cuh"

#include "cudalab/arch.hpp"
#include "cudalab/test_support.cuh"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

// ---------------------------------------------------------------------------------------------
// The chains
// ---------------------------------------------------------------------------------------------

/// Kernels with the chains' signature.
using ChainsKernel = void (*)(const float4 *, const float4 *, float4 *, int, int);

/// A launch of a chains kernel on (x0, c, out, n, steps) on the default stream, with the launch
/// shape it chooses; returns the launch's error.
using ChainsLaunch = std::function<cudaError_t(const float4 *, const float4 *, float4 *, int, int)>;

/// @brief Fresh inputs: start values in [-1, 1], constants in [-1.9, -1.4]. For these the map
/// q -> q^2 + c stays in [-2, 2] and is chaotic: no chain has a shortcut (a closed form, a fixed
/// point to stop at), so only `steps` fmaf in order give the exact result.
void chains_inputs(int n, std::uint64_t seed, std::vector<float4> *x0, std::vector<float4> *c);

/// @brief The CPU reference: every chain of every element, `steps` times std::fmaf (the same
/// IEEE fused multiply-add as the GPU's fmaf, so the results are equal bit for bit).
std::vector<float4> chains_reference(const std::vector<float4> &x0, const std::vector<float4> &c, int steps);

/// @brief Runs @p kernel once with <<<grid, block, dyn_smem>>> on @p n fresh elements (@p seed)
/// and returns what is wrong ("" when nothing): every float of out[0, n) must equal the CPU
/// reference bit for bit, and 64 poisoned float4 after out[n - 1] must stay poison. Messages name
/// @p name, the first wrong element and chain, expected and actual values, the launch and seed.
/// @param reference when not null, receives the CPU reference of these n elements
std::string chains_error(const char *name, ChainsKernel kernel, int n, int steps, unsigned int grid, unsigned int block,
                         std::size_t dyn_smem, std::uint64_t seed, std::vector<float4> *reference = nullptr);

/// @brief chains_error() for a kernel launched by @p launch (e.g. the reference solution's kernel,
/// cudalab/reference_kernels.hpp) on the inputs of @p n, @p seed, whose CPU reference for @p steps
/// an earlier chains_error() gave as @p reference (the reference is not computed again: it takes
/// seconds for the timed size). @p grid x @p block is the first grid-stride pass, for the messages.
std::string chains_error(const char *name, const ChainsLaunch &launch, int n, int steps, unsigned int grid,
                         unsigned int block, std::uint64_t seed, const std::vector<float4> &reference);

/// @brief "" when @p got[0, want.size()) equals @p want bit for bit, else the first wrong element
/// and chain with expected and actual values, its x0 and c, and @p where (the launch). Elements at
/// or past @p first_pass are named as past the first grid-stride pass.
std::string chains_mismatch(const char *name, const std::vector<float4> &got, const std::vector<float4> &want,
                            const std::vector<float4> &x0, const std::vector<float4> &c, int steps,
                            long long first_pass, const std::string &where);

// ---------------------------------------------------------------------------------------------
// The model (the tests' own copy, written differently from the reference solution)
// ---------------------------------------------------------------------------------------------

/// @brief The model of warp_scheduling.cuh, computed from the stalled warps: a warp stalls L/k - 1
/// warp-cycles per instruction it issues when k < L, so at an issue rate u, stalled = u (L/k - 1),
/// and u is the largest rate <= 1 that leaves stalled <= W - u.
SchedulerPrediction model_prediction(double warps, int ilp, double latency_cycles);

// ---------------------------------------------------------------------------------------------
// Nsight Compute: the probe configurations and the per-launch reader
// ---------------------------------------------------------------------------------------------

/// One probe launch: blocks of 128 threads pinned per SM (= warps per scheduler) and ILP.
struct ProbeConfig {
  int warps;
  int ilp;
};

/// @brief The probe launches of profile_target's "predictions" run, in launch order. The first is
/// the calibration point (one warp, one chain: issue utilisation = 1 / latency) and is not graded.
/// Up to 4 warps per scheduler, so every GPU from sm_75 (8 per scheduler) runs them; all of them
/// keep the same warps resident from start to end (one wave of equal blocks).
/// @brief How much of the interleaving's gain this GPU's FP32 pipes allow, relative to the GPU the
/// thresholds were calibrated on (sm_90: a scheduler starts one warp fma per cycle). At one warp
/// per scheduler with a dependent-fma latency L = 4 cycles, the sequential chains issue
/// min(p, 1/L) fma per cycle and four interleaved chains min(p, 4/L), where p is the warp fma a
/// scheduler can start per cycle (cudalab/arch.hpp: 1 with 32 FP32 lanes per scheduler, 0.5 with
/// the 16 of sm_75 and sm_80, whose fma takes the pipe for two cycles). The model's ratio is 4 at
/// p = 1 and 2 at p = 0.5: the timed and counted thresholds are scaled by it (x 0.5 on sm_75 and
/// sm_80), so a correct kernel keeps the same headroom there.
inline double fp32_issue_factor(int cc_major, int cc_minor) {
  const auto ratio = [](double p) {
    const double latency = 4.0;
    return (p < 4.0 / latency ? p : 4.0 / latency) / (p < 1.0 / latency ? p : 1.0 / latency);
  };
  return ratio(cudalab::arch::fp32_warp_instructions_per_cycle(cc_major, cc_minor)) / ratio(1.0);
}

/// @brief The note a scaled threshold's line carries ("" where the factor is 1).
inline std::string fp32_issue_note(int cc_major, int cc_minor) {
  const double f = fp32_issue_factor(cc_major, cc_minor);
  if (f >= 1.0) return "";
  char text[200];
  std::snprintf(text, sizeof text,
                " (grading.json's value x %.2g: sm_%d%d starts a warp's fma every other cycle, "
                "cudalab/arch.hpp)",
                f, cc_major, cc_minor);
  return text;
}

inline const std::vector<ProbeConfig> &probe_configs() {
  static const std::vector<ProbeConfig> configs = {{1, 1}, {1, 2}, {1, 4}, {2, 1}, {2, 2}, {2, 4}, {4, 1}, {4, 2}};
  return configs;
}

/// Nsight Compute metrics the profile tests read (the book's nvprof name in the comment).
namespace metric {
inline const char *const kWarpsActive = "smsp__warps_active.avg.per_cycle_active";      // (achieved_occupancy x max)
inline const char *const kWarpsEligible = "smsp__warps_eligible.avg.per_cycle_active";  // eligible_warps_per_cycle
inline const char *const kIssueActive = "smsp__issue_active.avg.per_cycle_active";      // issue_slot_utilization / 100
inline const char *const kStallWait = "smsp__warp_issue_stalled_wait_per_warp_active.pct";  // stall_exec_dependency,
inline const char *const kStallShortScoreboard =
    "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct";  //   the two together
inline const char *const kSelected = "smsp__warp_issue_stalled_selected_per_warp_active.pct";
inline const char *const kNotSelected =
    "smsp__warp_issue_stalled_not_selected_per_warp_active.pct";  // stall_not_selected
}  // namespace metric

/// One profiled launch: its ncu ID, kernel name and metrics.
struct ProfiledLaunch {
  int id = -1;
  std::string kernel;                     ///< as ncu prints it ("void chainsProbe<1>(...)")
  std::map<std::string, double> metrics;  ///< metric name -> value
  /// @brief The value of @p name, or -1 when ncu did not report it.
  double get(const std::string &name) const;
};

/// @brief Every launch in ncu's CSV output (`--csv --print-units base`), in ID (launch) order.
/// cudalab::NcuResult keeps one launch per kernel name; the prediction tests profile one kernel
/// several times and need them all.
std::vector<ProfiledLaunch> profiled_launches(const std::string &ncu_output);
