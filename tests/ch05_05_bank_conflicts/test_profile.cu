// ch05_05 profile: Nsight Compute counts the shared-memory bank conflicts (extra wavefronts) of
// transposeShared and transposeSharedPadded on a 2048 x 2048 float matrix. Graded: that the
// unpadded tile's column reads really conflict (at least a fraction of the model's 31 extra
// wavefronts per warp load), and that the padded tile has almost none of them (loads and stores).
// Printed beside them, not graded (a second ncu run): wavefronts and shared load instructions.
// Without ncu, or where profiling is not permitted (ERR_NVGPUCTRPERM), the tests are skipped --
// never passed.
#include "transpose_check.cuh"

#include "cudalab/ncu.hpp"
#include "cudalab/testing.cuh"

#include <cstdio>

namespace {

using Metric = cudalab::NcuMetric;
const Metric kConflictsLd{"shared_ld_bank_conflict", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"};
const Metric kConflictsSt{"shared_st_bank_conflict", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"};
const Metric kWavefrontsLd{"shared_load_transactions", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"};
const Metric kInstLd{"inst_executed_shared_loads", "smsp__inst_executed_op_shared_ld.sum"};

const char *const kShared = "transposeShared";
const char *const kPadded = "transposeSharedPadded";

class BankConflicts : public cudalab::GpuTest {
 protected:
  /// The model's extra wavefronts of transposeShared's tile reads at the profile size.
  static long long model_shared(long long *warp_loads) {
    return model_tile_read_conflicts(kProfileRows, kProfileCols, kTileDim, warp_loads);
  }
  /// Prints the graded counts and, from a second ncu run, wavefronts and instructions (not graded).
  static void print_table(const cudalab::NcuResult &r) {
    long long warp_loads = 0;
    const long long model = model_shared(&warp_loads);
    const cudalab::NcuResult info =
        cudalab::run_ncu(CUDALAB_NCU, CUDALAB_PROFILE_TARGET, "", "transposeShared", {kWavefrontsLd.ncu, kInstLd.ncu});
    std::printf(
        "[ PROFILE  ] %d x %d floats, 32 x 8 blocks; model = 31 extra wavefronts per warp load of tile[32][32]\n",
        kProfileRows, kProfileCols);
    std::printf("[ PROFILE  ] %-26s %-60s %14s %22s %14s %12s\n", "nvprof name", "Nsight Compute", kShared, kPadded,
                "model shared", "model padded");
    const auto row = [](const Metric &m, double s, double p, long long ms, long long mp) {
      std::printf("[ PROFILE  ] %-26s %-60s %14.0f %22.0f %14lld %12lld\n", m.nvprof, m.ncu, s, p, ms, mp);
    };
    row(kConflictsLd, r.get(kShared, kConflictsLd.ncu), r.get(kPadded, kConflictsLd.ncu), model, 0);
    row(kConflictsSt, r.get(kShared, kConflictsSt.ncu), r.get(kPadded, kConflictsSt.ncu), 0, 0);
    if (info.status == cudalab::NcuResult::Status::kOk) {
      row(kWavefrontsLd, info.get(kShared, kWavefrontsLd.ncu), info.get(kPadded, kWavefrontsLd.ncu), warp_loads * 32,
          warp_loads);
      row(kInstLd, info.get(kShared, kInstLd.ncu), info.get(kPadded, kInstLd.ncu), warp_loads, warp_loads);
      std::printf("[ PROFILE  ] (-1: not reported by this ncu/GPU)\n");
    } else {
      std::printf("[ PROFILE  ] (not graded) wavefronts and instructions unavailable: %s\n", info.message.c_str());
    }
  }
};

TEST_F(BankConflicts, UnpaddedTileReadsConflict32Ways) {
  CUDALAB_RUN_NCU(r, "", "transposeShared", {kConflictsLd.ncu, kConflictsSt.ncu});
  const double ld = r.get(kShared, kConflictsLd.ncu);
  if (ld < 0) {
    std::printf("%s\n", r.output.c_str());
    GTEST_FAIL() << "ncu did not report " << kConflictsLd.ncu << " for " << kShared << "; its output is above. "
                 << "Command: " << r.command;
  }
  print_table(r);
  const long long model = model_shared(nullptr);
  const double ratio = ld / double(model), limit = cudalab::threshold("shared_conflicts_vs_model");
  char line[160];
  std::snprintf(line, sizeof line, "%s load conflicts / model: %.0f / %lld = %.3f, required >= %.2f", kShared, ld,
                model, ratio, limit);
  cudalab::report_profile("shared_conflicts_vs_model", ratio, limit, ">=", line);
  if (ratio < limit)
    GTEST_FAIL() << kShared << " shows " << ld << " shared-load bank conflicts (" << kConflictsLd.ncu
                 << "), the model predicts " << model
                 << " (31 per warp load: lane tx reads tile[tx][k], word 32 tx + k, "
                 << "all in one bank); ratio " << ratio << ", required >= " << limit
                 << ". Does it read the tile by column from `__shared__ float tile[32][32]`, as the task says "
                 << "(this kernel is the \"before\" of the lab)?";
}

TEST_F(BankConflicts, PaddedTileHasAlmostNone) {
  CUDALAB_RUN_NCU(r, "", "transposeShared", {kConflictsLd.ncu, kConflictsSt.ncu});
  const double s_ld = r.get(kShared, kConflictsLd.ncu), s_st = r.get(kShared, kConflictsSt.ncu);
  const double p_ld = r.get(kPadded, kConflictsLd.ncu), p_st = r.get(kPadded, kConflictsSt.ncu);
  if (s_ld < 0 || s_st < 0 || p_ld < 0 || p_st < 0) {
    std::printf("%s\n", r.output.c_str());
    GTEST_FAIL() << "ncu did not report " << kConflictsLd.ncu << " and " << kConflictsSt.ncu << " for " << kShared
                 << " and " << kPadded << "; its output is above. Command: " << r.command;
  }
  print_table(r);
  const long long model = model_shared(nullptr);
  // The reference point must conflict, or the ratio proves nothing.
  if (s_ld < 0.25 * double(model))
    GTEST_FAIL() << kShared << " shows only " << s_ld << " load bank conflicts (model " << model
                 << "), so the padded kernel cannot be compared with it: see UnpaddedTileReadsConflict32Ways";
  const double ratio = (p_ld + p_st) / (s_ld + s_st), limit = cudalab::threshold("padded_conflicts_vs_shared");
  char line[200];
  std::snprintf(line, sizeof line,
                "bank conflicts (ld + st), padded / shared: (%.0f + %.0f) / (%.0f + %.0f) = %.4f, required <= %.3f",
                p_ld, p_st, s_ld, s_st, ratio, limit);
  cudalab::report_profile("padded_conflicts_vs_shared", ratio, limit, "<=", line);
  if (ratio > limit)
    GTEST_FAIL() << kPadded << " still has bank conflicts: " << p_ld << " on loads and " << p_st
                 << " on stores, against transposeShared's " << s_ld << " + " << s_st << "; ratio " << ratio
                 << ", required <= " << limit
                 << ". With tile[32][33] lane tx's column read tile[tx][k] is word 33 tx + k: bank (tx + k) % 32, "
                    "all different. Is the tile really padded (or swizzled) on both the write and the read?";
}

}  // namespace
