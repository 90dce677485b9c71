// ch03_16 profile: Nsight Compute checks both halves of the lab.
//
// SchedulerPredictions.*: profile_target runs the tests' probe kernel (independent fmaf chains,
// ILP 1, 2 or 4, at 1, 2 or 4 warps per scheduler pinned with dynamic shared memory). Your
// predict_scheduler gets what ncu measured as its inputs -- the active warps per scheduler of each
// launch, the ILP, and the latency the scheduler sees, 1 / issue utilisation of one warp with one
// chain (the first launch, not graded) -- and its issue utilisation, eligible warps and waiting
// share must match what ncu measured within the tolerances in grading.json. A point where the
// tests' own copy of the model does not fit this GPU is left out (printed), and a GPU where fewer
// than four points fit skips the test as not applicable: the model is graded on the host; here
// your predictions are graded against your GPU where the model describes it.
//
// IssueBound.*: the tests' copy of chainsSequential and your chainsInterleaved on the same launch
// (one warp per scheduler). Yours must use the issue slot several times as often, and warps must
// no longer spend most cycles waiting on the previous fmaf (stall reasons wait + short_scoreboard:
// the book's stall_exec_dependency).
//
// Without ncu, or where profiling is not permitted (ERR_NVGPUCTRPERM), the tests are skipped --
// never passed.
#include "scheduling_check.cuh"
#include "warp_scheduling.cuh"

#include "cudalab/ncu.hpp"
#include "cudalab/testing.cuh"

#include <cmath>
#include <cstdio>

namespace {

const std::vector<std::string> kMetrics = {metric::kWarpsActive, metric::kWarpsEligible,        metric::kIssueActive,
                                           metric::kStallWait,   metric::kStallShortScoreboard, metric::kSelected,
                                           metric::kNotSelected};

/// One graded probe launch: what ncu measured, what you and the tests' model predict from it.
struct Point {
  ProbeConfig config;
  double warps = 0, issue = 0, eligible = 0, waiting = 0;  // measured
  SchedulerPrediction yours, model;
  bool model_fits = false;  // the tests' model is within every tolerance of the measurement
};

double tolerance(const char *abs_key, double measured) {
  return std::max(cudalab::threshold(abs_key), cudalab::threshold("relative_tolerance") * std::fabs(measured));
}

class SchedulerPredictions : public cudalab::GpuTest {
 protected:
  /// Reads the probe launches of @p r into points_ (the calibration launch into latency_), prints
  /// the table; false (with a failure) when ncu's output is not what the probe should give.
  bool read(const cudalab::NcuResult &r) {
    const std::vector<ProfiledLaunch> launches = profiled_launches(r.output);
    const std::vector<ProbeConfig> &configs = probe_configs();
    if (launches.size() != configs.size()) {
      std::printf("%s\n", r.output.c_str());
      ADD_FAILURE() << "ncu profiled " << launches.size() << " probe launches, expected " << configs.size()
                    << "; its output is above. Command: " << r.command;
      return false;
    }
    for (const ProfiledLaunch &l : launches)
      for (const std::string &m : kMetrics)
        if (l.get(m) < 0) {
          std::printf("%s\n", r.output.c_str());
          ADD_FAILURE() << "ncu did not report " << m << " for launch " << l.id << " (" << l.kernel << ")";
          return false;
        }
    const double calib = launches[0].get(metric::kIssueActive);
    if (!(calib > 0.01)) {
      ADD_FAILURE() << "the calibration launch (one warp, one chain) issued in " << calib
                    << " of its cycles: no latency can be derived from it";
      return false;
    }
    latency_ = 1.0 / calib;
    std::printf("[ PROFILE  ] latency the scheduler sees (1 / issue utilisation of 1 warp, ILP 1): %.2f cycles\n",
                latency_);
    std::printf("[ PROFILE  ] %5s %3s | %6s | %-22s | %-22s | %-22s | %s\n", "warps", "ILP", "active",
                "issue: ncu / you / model", "eligible: ncu/you/model", "waiting: ncu/you/model", "model fits");
    for (std::size_t i = 1; i < launches.size(); ++i) {
      const ProfiledLaunch &l = launches[i];
      Point p;
      p.config = configs[i];
      p.warps = l.get(metric::kWarpsActive);
      p.issue = l.get(metric::kIssueActive);
      p.eligible = l.get(metric::kWarpsEligible);
      p.waiting = (l.get(metric::kStallWait) + l.get(metric::kStallShortScoreboard)) / 100.0;
      p.yours = predict_scheduler(p.warps, p.config.ilp, latency_);
      p.model = model_prediction(p.warps, p.config.ilp, latency_);
      p.model_fits =
          std::fabs(p.model.issue_utilization - p.issue) <= tolerance("issue_abs_tolerance", p.issue) &&
          std::fabs(p.model.eligible_warps - p.eligible) <= tolerance("eligible_abs_tolerance", p.eligible) &&
          std::fabs(p.model.waiting_share - p.waiting) <= cudalab::threshold("waiting_abs_tolerance");
      std::printf("[ PROFILE  ] %5d %3d | %6.2f | %6.3f %7.3f %7.3f | %6.2f %7.2f %7.2f | %6.2f %7.2f %7.2f | %s\n",
                  p.config.warps, p.config.ilp, p.warps, p.issue, p.yours.issue_utilization, p.model.issue_utilization,
                  p.eligible, p.yours.eligible_warps, p.model.eligible_warps, p.waiting, p.yours.waiting_share,
                  p.model.waiting_share, p.model_fits ? "yes" : "no (left out)");
      points_.push_back(p);
    }
    return true;
  }

  /// Grades one predicted quantity at every point where the model fits; skips as not applicable
  /// when fewer than four points fit.
  template <class Get>
  void grade(const char *what, const char *ncu_name, const char *abs_key, bool relative, Get get) {
    int fitting = 0;
    for (const Point &p : points_) fitting += p.model_fits;
    if (fitting < 4)
      CUDALAB_SKIP_NOT_APPLICABLE() << "the scheduler model fits only " << fitting << " of " << points_.size()
                                    << " probe launches on this GPU (table above), too few to grade predictions "
                                       "against; the model itself is graded by the host tests";
    for (const Point &p : points_) {
      if (!p.model_fits) continue;
      double measured = 0, yours = 0;
      get(p, &measured, &yours);
      const double tol = relative ? tolerance(abs_key, measured) : cudalab::threshold(abs_key);
      EXPECT_LE(std::fabs(yours - measured), tol)
          << what << " at " << p.config.warps << " warp(s) per scheduler (measured " << p.warps << " active), ILP "
          << p.config.ilp << ", latency " << latency_ << " cycles: you predict " << yours
          << ", Nsight Compute measured " << measured << " (" << ncu_name << "), allowed difference " << tol
          << ". The tests' model predicts " << model_value(p, what) << ".";
    }
  }

  static double model_value(const Point &p, const std::string &what) {
    if (what == "issue utilisation") return p.model.issue_utilization;
    if (what == "eligible warps per cycle") return p.model.eligible_warps;
    return p.model.waiting_share;
  }

  double latency_ = 0;
  std::vector<Point> points_;
};

TEST_F(SchedulerPredictions, IssueUtilizationMatchesNsightCompute) {
  CUDALAB_RUN_NCU(r, "predictions", "chainsProbe", kMetrics);
  if (!read(r)) return;
  grade("issue utilisation", metric::kIssueActive, "issue_abs_tolerance", true,
        [](const Point &p, double *m, double *y) {
          *m = p.issue;
          *y = p.yours.issue_utilization;
        });
}

TEST_F(SchedulerPredictions, EligibleWarpsMatchNsightCompute) {
  CUDALAB_RUN_NCU(r, "predictions", "chainsProbe", kMetrics);
  if (!read(r)) return;
  grade("eligible warps per cycle", metric::kWarpsEligible, "eligible_abs_tolerance", true,
        [](const Point &p, double *m, double *y) {
          *m = p.eligible;
          *y = p.yours.eligible_warps;
        });
}

TEST_F(SchedulerPredictions, WaitingShareMatchesNsightCompute) {
  CUDALAB_RUN_NCU(r, "predictions", "chainsProbe", kMetrics);
  if (!read(r)) return;
  grade("share of warp cycles waiting on the dependency", "stall reasons wait + short_scoreboard",
        "waiting_abs_tolerance", false, [](const Point &p, double *m, double *y) {
          *m = p.waiting;
          *y = p.yours.waiting_share;
        });
}

// ---------------------------------------------------------------------------------------------

const char *const kBase = "chainsSequentialBaseline";
const char *const kYours = "chainsInterleaved";

class IssueBound : public cudalab::GpuTest {
 protected:
  /// Prints both kernels' figures; false (with a failure) when ncu did not report them.
  static bool table(const cudalab::NcuResult &r) {
    for (const char *k : {kBase, kYours})
      for (const std::string &m : kMetrics)
        if (r.get(k, m) < 0) {
          std::printf("%s\n", r.output.c_str());
          ADD_FAILURE() << "ncu did not report " << m << " for " << k
                        << "; its output is above. Command: " << r.command;
          return false;
        }
    std::printf("[ PROFILE  ] one block of 128 threads per SM (one warp per scheduler), 2 elements per thread\n");
    cudalab::print_profile(r, {kBase, kYours},
                           {{"(active warps per scheduler)", metric::kWarpsActive},
                            {"eligible_warps_per_cycle", metric::kWarpsEligible},
                            {"issue_slot_utilization / 100", metric::kIssueActive},
                            {"stall_exec_dependency: wait", metric::kStallWait},
                            {"  + short_scoreboard", metric::kStallShortScoreboard},
                            {"(selected)", metric::kSelected},
                            {"stall_not_selected", metric::kNotSelected}});
    return true;
  }
  static double waiting(const cudalab::NcuResult &r, const char *k) {
    return r.get(k, metric::kStallWait) + r.get(k, metric::kStallShortScoreboard);
  }
};

TEST_F(IssueBound, InterleavedChainsUseTheIssueSlotSeveralTimesAsOften) {
  CUDALAB_RUN_NCU(r, "kernels", "chains", kMetrics);
  if (!table(r)) return;
  const double base = r.get(kBase, metric::kIssueActive), yours = r.get(kYours, metric::kIssueActive);
  const int major = device().cc_major, minor = device().cc_minor;
  const double ratio = yours / base, limit = cudalab::threshold("issue_ratio_min") * fp32_issue_factor(major, minor);
  char line[400];
  std::snprintf(line, sizeof line,
                "issue utilisation, chainsInterleaved / chainsSequential: %.3f / %.3f = %.2f, required >= %.2f%s", yours,
                base, ratio, limit, fp32_issue_note(major, minor).c_str());
  cudalab::report_profile("issue_ratio_min", ratio, limit, ">=", line);
  EXPECT_GE(ratio, limit) << kYours << " issues in " << yours << " of its cycles, the sequential chains in " << base
                          << " (" << metric::kIssueActive << "); ratio " << ratio << ", required >= " << limit
                          << ". At one warp per scheduler only the thread's own independent instructions can fill the "
                             "cycles between an fmaf and its result: are all four chains advanced in the same loop "
                             "iteration?";
}

TEST_F(IssueBound, WarpsNoLongerMostlyWaitOnTheDependency) {
  CUDALAB_RUN_NCU(r, "kernels", "chains", kMetrics);
  if (!table(r)) return;
  const double base = waiting(r, kBase), yours = waiting(r, kYours);
  const double ratio = yours / base, limit = cudalab::threshold("dependency_stall_ratio_max");
  char line[200];
  std::snprintf(line, sizeof line,
                "%% of warp cycles waiting on a dependency (wait + short_scoreboard), chainsInterleaved / "
                "chainsSequential: %.1f / %.1f = %.3f, required <= %.2f",
                yours, base, ratio, limit);
  if (base < 30)
    CUDALAB_SKIP_NOT_APPLICABLE() << "the sequential chains wait on the dependency in only " << base
                                  << "% of their warp cycles (model: 75 % at a 4-cycle latency), so a ratio to them "
                                     "proves nothing on this GPU (IssueBound.InterleavedChains... still grades it): "
                                  << line;
  cudalab::report_profile("dependency_stall_ratio_max", ratio, limit, "<=", line);
  EXPECT_LE(ratio, limit) << kYours << "'s warps wait on the previous instruction's result in " << yours
                          << "% of their cycles, the sequential chains' in " << base << "%; ratio " << ratio
                          << ", required <= " << limit
                          << ". With four chains advanced per iteration, a warp has an independent fmaf ready while "
                             "the others are in the pipeline.";
}

}  // namespace
