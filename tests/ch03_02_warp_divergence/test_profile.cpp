// ch03_02 profile: Nsight Compute's divergence metrics of the divergent baseline and of
// heavyKernel2, printed beside the book's nvprof names. heavyKernel2 must show no divergent
// branch and full warps. Without ncu, or where profiling is not permitted (ERR_NVGPUCTRPERM),
// the test is skipped -- never passed.
#include "divergence_check.cuh"

#include "cudalab/ncu.hpp"
#include "cudalab/testing.cuh"

namespace {

using Metric = cudalab::NcuMetric;
const Metric kBranches{"branch", "smsp__sass_branch_targets.sum"};
const Metric kDivergent{"divergent_branch", "smsp__sass_branch_targets_threads_divergent.sum"};
const Metric kBranchEfficiency{"branch_efficiency", "smsp__sass_average_branch_targets_threads_uniform.pct"};
const Metric kWarpEfficiency{"warp_execution_efficiency", "smsp__thread_inst_executed_per_inst_executed.ratio"};

class DivergenceMetrics : public cudalab::GpuTest {};

TEST_F(DivergenceMetrics, WarpUniformKernelHasNoDivergentBranchAndFullWarps) {
  CUDALAB_RUN_NCU(r, "", "heavy", {kBranches.ncu, kDivergent.ncu, kBranchEfficiency.ncu, kWarpEfficiency.ncu});
  std::map<std::string, std::map<std::string, double>> v = r.values;
  const char *base = "heavyDivergentBaseline", *cand = "heavyKernel2";
  if (!v.count(base) || !v.count(cand) || v[cand].size() < 4 || v[base].size() < 4) {
    std::printf("%s\n", r.output.c_str());
    GTEST_FAIL() << "ncu did not report the four metrics of both kernels; its output is above. Command: " << r.command;
  }

  cudalab::print_profile(r, {base, cand}, {kBranches, kDivergent, kBranchEfficiency, kWarpEfficiency});
  std::printf("[ PROFILE  ] warp_execution_efficiency = threads per instruction / 32: %.1f %% vs %.1f %%\n",
              100.0 * v[base][kWarpEfficiency.ncu] / 32, 100.0 * v[cand][kWarpEfficiency.ncu] / 32);
  for (const Metric *m : {&kDivergent, &kBranchEfficiency, &kWarpEfficiency}) {
    RecordProperty(std::string("baseline_") + m->nvprof, std::to_string(v[base][m->ncu]));
    RecordProperty(std::string("heavyKernel2_") + m->nvprof, std::to_string(v[cand][m->ncu]));
  }

  // The metric must see the baseline's divergence, or this test proves nothing.
  if (v[base][kDivergent.ncu] <= 0)
    GTEST_FAIL() << "ncu reports no divergent branch in the divergent baseline; the profile cannot be trusted";
  const double min_threads = cudalab::threshold("min_threads_per_instruction");
  char line[200];
  std::snprintf(line, sizeof line, "heavyKernel2: %.1f active threads per instruction, required >= %g of 32",
                v[cand][kWarpEfficiency.ncu], min_threads);
  cudalab::report_profile("min_threads_per_instruction", v[cand][kWarpEfficiency.ncu], min_threads, ">=", line);
  if (v[cand][kDivergent.ncu] > 0 || v[cand][kWarpEfficiency.ncu] < min_threads)
    GTEST_FAIL() << "heavyKernel2 still diverges: " << v[cand][kDivergent.ncu] << " divergent branches ("
                 << kDivergent.ncu << "), " << v[cand][kWarpEfficiency.ncu] << " active threads per instruction ("
                 << kWarpEfficiency.ncu << "), required 0 and >= " << min_threads << " of 32";
}

}  // namespace
