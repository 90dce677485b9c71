// ch03_16 performance: your chainsInterleaved against the tests' copy of chainsSequential, both at
// one block of 128 threads per SM (one warp per scheduler, held there with dynamic shared memory),
// on the same elements, the same steps and the same grid. Nothing but the order of the
// instructions differs, so the ratio is the issue rate the interleaving bought: a stall-bound
// kernel (one fmaf per latency) against an issue-bound one (about one fmaf per cycle).
#include "baseline.cuh"
#include "scheduling_check.cuh"
#include "warp_scheduling.cuh"
#include "cudalab/testing.cuh"

#include <cstdio>

namespace {

class InterleavePerformance : public cudalab::GpuTest {};

TEST_F(InterleavePerformance, InterleavedChainsBeatTheSequentialOnesAtOneWarpPerScheduler) {
  constexpr int kSteps = 8192;
  const unsigned int grid = unsigned(device().sm_count);
  const int n = 2 * int(grid) * kChainsBlock;  // two grid-stride passes per thread
  std::size_t dyn_base = 0, dyn = 0;
  CUDALAB_ASSERT_OK(pin_blocks_per_sm((const void *)chainsSequentialBaseline, kChainsBlock, 1, &dyn_base));
  CUDALAB_ASSERT_OK(pin_blocks_per_sm((const void *)chainsInterleaved, kChainsBlock, 1, &dyn));
  // Correct first, on the very launch that is timed: a kernel that does less is fast.
  const std::string error = chains_error("chainsInterleaved", chainsInterleaved, n, kSteps, grid, kChainsBlock, dyn, seed());
  if (!error.empty()) GTEST_FAIL() << "chainsInterleaved is not timed until it is correct: " << error;

  std::vector<float4> x0, c;
  chains_inputs(n, seed(), &x0, &c);
  cudalab::DeviceBuffer<float4> d_x0, d_c, d_out;
  CUDALAB_ASSERT_OK(d_x0.upload(x0));
  CUDALAB_ASSERT_OK(d_c.upload(c));
  CUDALAB_ASSERT_OK(d_out.allocate(n));
  cudalab::TimingOptions opts;
  opts.reps = 31;
  const cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { chainsSequentialBaseline<<<grid, kChainsBlock, dyn_base>>>(d_x0.get(), d_c.get(), d_out.get(), n, kSteps); },
      [&] { chainsInterleaved<<<grid, kChainsBlock, dyn>>>(d_x0.get(), d_c.get(), d_out.get(), n, kSteps); }, opts);
  std::printf("[ CUDALAB  ] %u blocks of %d threads, one per SM (%zu B dynamic shared memory each), n=%d, %d steps: "
              "%.3g fmaf per launch\n",
              grid, kChainsBlock, dyn, n, kSteps, double(n) * kChains * kSteps);
  cudalab::expect_speedup({"chainsInterleaved",
                           "the four chains one after another (chainsSequential), same launch: one warp per scheduler",
                           cmp, cudalab::threshold("interleaved_speedup") * fp32_issue_factor(device().cc_major, device().cc_minor),
                           "interleaved_speedup", 0.0});
  const std::string note = fp32_issue_note(device().cc_major, device().cc_minor);
  if (!note.empty()) std::printf("[ CUDALAB  ] threshold%s\n", note.c_str());
}

}  // namespace
