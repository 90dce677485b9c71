// ch05_02 profile: Nsight Compute counts the global loads of the naive baseline and of
// adjacentDifferenceShared (2^24 ints, block 256). Graded: the 32-byte sectors the shared kernel
// asks of L1 for its loads, as a fraction of the naive kernel's (the seed's 2N vs N + N/block,
// as the hardware counts it). Printed beside it, not graded (a second ncu run): requests,
// instructions, DRAM bytes, L2 sectors and the L1 hit rate, with the model's predictions -- they
// show that the naive kernel's second read rarely leaves the SM. Without ncu, or where profiling
// is not permitted (ERR_NVGPUCTRPERM), the test is skipped -- never passed.
#include "adjacent_check.cuh"

#include "cudalab/ncu.hpp"
#include "cudalab/testing.cuh"

#include <cstdio>

namespace {

using Metric = cudalab::NcuMetric;
const Metric kSectors{"gld_transactions", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"};
const Metric kRequests{"global_load_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"};
const Metric kInstructions{"inst_executed_global_loads", "smsp__inst_executed_op_global_ld.sum"};
const Metric kDramBytes{"dram_read_bytes", "dram__bytes_read.sum"};
const Metric kL2Sectors{"l2_tex_read_transactions", "lts__t_sectors_srcunit_tex_op_read.sum"};
const Metric kL1HitRate{"global_hit_rate", "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"};

const char *const kBase = "adjacentDifferenceNaiveBaseline";
const char *const kCand = "adjacentDifferenceShared";

class GlobalLoads : public cudalab::GpuTest {};

TEST_F(GlobalLoads, SharedKernelReadsAboutHalfTheSectorsOfTheNaiveOne) {
  CUDALAB_RUN_NCU(r, "", "adjacentDifference", {kSectors.ncu});
  const double base = r.get(kBase, kSectors.ncu), cand = r.get(kCand, kSectors.ncu);
  if (base < 0 || cand < 0) {
    std::printf("%s\n", r.output.c_str());
    GTEST_FAIL() << "ncu did not report " << kSectors.ncu << " for " << kBase << " and " << kCand
                 << "; its output is above. Command: " << r.command;
  }
  const LoadCounts model = simulate_global_loads(kProfileN, kProfileBlock);

  // Not graded: requests, instructions, and where the naive kernel's second read is served. A
  // separate ncu run, so that a metric this ncu or GPU does not know cannot cost the graded one.
  const cudalab::NcuResult info =
      cudalab::run_ncu(CUDALAB_NCU, CUDALAB_PROFILE_TARGET, "", "adjacentDifference",
                       {kRequests.ncu, kInstructions.ncu, kDramBytes.ncu, kL2Sectors.ncu, kL1HitRate.ncu});
  std::printf("[ PROFILE  ] n = %d ints, block %u; model = the lane-by-lane prediction (README)\n", kProfileN,
              kProfileBlock);
  std::printf("[ PROFILE  ] %-28s %-56s %16s %16s %12s %12s\n", "nvprof name", "Nsight Compute", kBase, kCand,
              "model naive", "model shared");
  const auto row = [](const Metric &m, double b, double c, const std::string &model_b, const std::string &model_c) {
    std::printf("[ PROFILE  ] %-28s %-56s %16.1f %16.1f %12s %12s\n", m.nvprof, m.ncu, b, c, model_b.c_str(),
                model_c.c_str());
  };
  row(kSectors, base, cand, std::to_string(model.naive.sectors), std::to_string(model.shared.sectors));
  if (info.status == cudalab::NcuResult::Status::kOk) {
    const std::string one_pass_bytes = std::to_string(static_cast<long long>(kProfileN) * 4);
    const std::string one_pass_sectors = std::to_string(static_cast<long long>(kProfileN) * 4 / 32);
    row(kRequests, info.get(kBase, kRequests.ncu), info.get(kCand, kRequests.ncu),
        std::to_string(model.naive.warp_loads), std::to_string(model.shared.warp_loads));
    row(kInstructions, info.get(kBase, kInstructions.ncu), info.get(kCand, kInstructions.ncu),
        std::to_string(model.naive.warp_loads), std::to_string(model.shared.warp_loads));
    row(kDramBytes, info.get(kBase, kDramBytes.ncu), info.get(kCand, kDramBytes.ncu), "~" + one_pass_bytes,
        "~" + one_pass_bytes);
    row(kL2Sectors, info.get(kBase, kL2Sectors.ncu), info.get(kCand, kL2Sectors.ncu), "~" + one_pass_sectors,
        "~" + one_pass_sectors);
    row(kL1HitRate, info.get(kBase, kL1HitRate.ncu), info.get(kCand, kL1HitRate.ncu), "-", "-");
    std::printf("[ PROFILE  ] (-1.0: not reported by this ncu/GPU)\n");
  } else {
    std::printf("[ PROFILE  ] (not graded) requests, instructions, DRAM/L2/L1 metrics unavailable: %s\n",
                info.message.c_str());
  }
  std::printf("[ PROFILE  ] element loads (the seed's 2N vs N + N/block), model: %lld vs %lld\n", model.naive.loads,
              model.shared.loads);

  const double one_pass = double(kProfileN) * sizeof(int) / 32;
  RecordProperty("naive_sectors", std::to_string(base));
  RecordProperty("shared_sectors", std::to_string(cand));
  // The metric must see the naive kernel read (nearly) every element twice, or this proves nothing.
  if (base < 1.5 * one_pass)
    GTEST_FAIL() << "ncu reports " << base
                 << " sectors for the naive baseline, less than 1.5 x one pass over the input (" << one_pass
                 << "); the profile cannot be trusted";
  const double ratio = cand / base, limit = cudalab::threshold("sectors_vs_naive");
  char line[200];
  std::snprintf(line, sizeof line, "sectors, shared / naive: %.4f (model %.4f), required <= %.2f", ratio,
                double(model.shared.sectors) / double(model.naive.sectors), limit);
  cudalab::report_profile("sectors_vs_naive", ratio, limit, "<=", line);
  RecordProperty("sector_ratio", std::to_string(ratio));
  if (ratio > limit)
    GTEST_FAIL() << kCand << " still reads too much from global memory: " << cand << " sectors vs the naive kernel's "
                 << base << " (" << kSectors.ncu << "), ratio " << ratio << ", required <= " << limit
                 << ". Does every thread read its left neighbour from global memory instead of from the tile?";
}

}  // namespace
