// ch05_03 profile: Nsight Compute counts the global load instructions of the handed-out
// polynomialGlobal (its test-side copy) and of polynomialConstant, 2^24 floats, 64 coefficients,
// block 256. Graded: polynomialConstant's global loads per warp -- only x[i] may come from global
// memory, the 64 coefficient reads must have left the load/store path (constant operands, LDC or
// ULDC). On Hopper that, not speed, is what constant memory buys here: a uniform global load is an
// L1 hit and one load per warp too (see README.md). Printed beside it, not graded (a second ncu
// run): warps launched and instructions per warp. Without ncu, or where profiling is not permitted
// (ERR_NVGPUCTRPERM), the test is skipped -- never passed.
#include "constant_memory.cuh"
#include "poly_check.cuh"

#include "cudalab/ncu.hpp"

#include <cstdio>

namespace {

using Metric = cudalab::NcuMetric;
const Metric kGlobalLoads{"inst_executed_global_loads", "smsp__inst_executed_op_global_ld.sum"};
const Metric kWarps{"(warps launched)", "smsp__warps_launched.sum"};
const Metric kInstructions{"inst_executed", "smsp__inst_executed.sum"};

const char *const kBase = "polynomialGlobalBaseline";
const char *const kCand = "polynomialConstant";

/// The handed-out kernel loads x and all 64 coefficients: 65 per warp. Below this the metric does
/// not count what this test thinks it counts.
constexpr double kMinBaselineLoadsPerWarp = 60.0;

class ConstantLoads : public cudalab::GpuTest {};

TEST_F(ConstantLoads, PolynomialConstantLoadsOnlyX) {
  CUDALAB_RUN_NCU(r, "", "polynomial", {kGlobalLoads.ncu});
  const double base = r.get(kBase, kGlobalLoads.ncu), cand = r.get(kCand, kGlobalLoads.ncu);
  if (base < 0 || cand < 0) {
    std::printf("%s\n", r.output.c_str());
    GTEST_FAIL() << "ncu did not report " << kGlobalLoads.ncu << " for " << kBase << " and " << kCand
                 << "; its output is above. Command: " << r.command;
  }
  // One thread per element: every launched warp is full (2^24 is a multiple of the block).
  const double warps = double(blocks_for(kProfileN, kProfileBlock)) * ((kProfileBlock + 31) / 32);
  const double base_per_warp = base / warps, cand_per_warp = cand / warps;

  // Not graded: a separate ncu run, so that a metric this ncu or GPU does not know cannot cost the
  // graded one.
  const cudalab::NcuResult info =
      cudalab::run_ncu(CUDALAB_NCU, CUDALAB_PROFILE_TARGET, "", "polynomial", {kWarps.ncu, kInstructions.ncu});
  std::printf("[ PROFILE  ] n = %d floats, %d coefficients, block %u: %.0f warps\n", kProfileN, kProfileCount,
              kProfileBlock, warps);
  std::printf("[ PROFILE  ] %-28s %-40s %26s %20s\n", "nvprof name", "Nsight Compute", kBase, kCand);
  std::printf("[ PROFILE  ] %-28s %-40s %26.0f %20.0f\n", kGlobalLoads.nvprof, kGlobalLoads.ncu, base, cand);
  std::printf("[ PROFILE  ] %-28s %-40s %26.2f %20.2f   (expected %d and 1)\n", "  per warp", "", base_per_warp,
              cand_per_warp, kProfileCount + 1);
  if (info.status == cudalab::NcuResult::Status::kOk) {
    const double wb = info.get(kBase, kWarps.ncu), wc = info.get(kCand, kWarps.ncu);
    std::printf("[ PROFILE  ] %-28s %-40s %26.0f %20.0f\n", kWarps.nvprof, kWarps.ncu, wb, wc);
    const double ib = info.get(kBase, kInstructions.ncu), ic = info.get(kCand, kInstructions.ncu);
    std::printf("[ PROFILE  ] %-28s %-40s %26.0f %20.0f\n", kInstructions.nvprof, kInstructions.ncu, ib, ic);
    if (wb > 0 && wc > 0 && ib >= 0 && ic >= 0)
      std::printf("[ PROFILE  ] %-28s %-40s %26.1f %20.1f\n", "inst_per_warp", "", ib / wb, ic / wc);
    std::printf("[ PROFILE  ] (-1: not reported by this ncu/GPU)\n");
  } else {
    std::printf("[ PROFILE  ] (not graded) warps launched and instructions unavailable: %s\n", info.message.c_str());
  }

  RecordProperty("baseline_global_loads_per_warp", std::to_string(base_per_warp));
  RecordProperty("constant_global_loads_per_warp", std::to_string(cand_per_warp));
  // The metric must see the handed-out kernel load every coefficient, or this proves nothing.
  if (base_per_warp < kMinBaselineLoadsPerWarp)
    GTEST_FAIL() << "ncu reports " << base_per_warp << " global load instructions per warp for " << kBase << " ("
                 << kGlobalLoads.ncu << " = " << base << " over " << warps << " warps), expected about "
                 << kProfileCount + 1 << " (x and " << kProfileCount << " coefficients) and at least "
                 << kMinBaselineLoadsPerWarp << "; the profile cannot be trusted";
  const double limit = cudalab::threshold("max_global_loads_per_warp");
  char line[200];
  std::snprintf(line, sizeof line,
                "global loads per warp, polynomialConstant: %.2f (polynomialGlobal %.2f), required <= %g",
                cand_per_warp, base_per_warp, limit);
  cudalab::report_profile("max_global_loads_per_warp", cand_per_warp, limit, "<=", line);
  if (cand_per_warp > limit)
    GTEST_FAIL() << kCand << " executes " << cand_per_warp << " global load instructions per warp (" << kGlobalLoads.ncu
                 << " = " << cand << " over " << warps << " warps; polynomialGlobal " << base_per_warp
                 << "), required <= " << limit
                 << ": only x[i] should be a global load. Are the coefficients in a __device__ array, or read "
                    "through a pointer to global memory, instead of from a __constant__ array?";
}

}  // namespace
