// ch03_16 performance: your chainsInterleaved against the tests' copy of chainsSequential, both at
// one block of 128 threads per SM (one warp per scheduler, held there with dynamic shared memory),
// on the same elements, the same steps and the same grid. Nothing but the order of the
// instructions differs, so the ratio is the issue rate the interleaving bought: a stall-bound
// kernel (one fmaf per latency) against an issue-bound one (about one fmaf per cycle). Every timed
// sample of chainsInterleaved gets a changed start value, and a random share of the samples has
// its output checked.
#include "baseline.cuh"
#include "scheduling_check.cuh"
#include "warp_scheduling.cuh"

#include "cudalab/sample_inputs.cuh"
#include "cudalab/testing.cuh"

#include <cmath>
#include <cstdio>
#include <random>

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
  std::vector<float4> want;
  const std::string error =
      chains_error("chainsInterleaved", chainsInterleaved, n, kSteps, grid, kChainsBlock, dyn, seed(), &want);
  if (!error.empty()) GTEST_FAIL() << "chainsInterleaved is not timed until it is correct: " << error;

  std::vector<float4> x0, c;
  chains_inputs(n, seed(), &x0, &c);
  cudalab::DeviceBuffer<float4> d_x0, d_c, d_out;
  CUDALAB_ASSERT_OK(d_x0.upload(x0));
  CUDALAB_ASSERT_OK(d_c.upload(c));
  CUDALAB_ASSERT_OK(d_out.allocate(n));
  cudalab::TimingOptions opts;
  opts.reps = 31;
  // Every timed sample of chainsInterleaved runs on new start values: before it, one chain of one
  // random element gets a new x0 in [-1, 1] (only that element's reference changes: recomputed on
  // the CPU) and out is poisoned; every float of a checked sample must equal the reference bit for
  // bit, as in the correctness tests.
  std::mt19937_64 rng(seed() ^ 0x5a3c0ffee1234567ull);
  const std::string where = "n=" + std::to_string(n) + " steps=" + std::to_string(kSteps) +
                            " grid=" + std::to_string(grid) + " block=" + std::to_string(kChainsBlock) +
                            " seed=" + std::to_string(seed()) + ", timed launch";
  opts.check.prepare = [&](int) {
    const int i = std::uniform_int_distribution<int>(0, n - 1)(rng);
    const int q = std::uniform_int_distribution<int>(0, kChains - 1)(rng);
    float *start = &x0[i].x + q;
    *start = cudalab::new_real_in(-1.0f, 1.0f)(rng, *start);
    float v = *start;
    for (int s = 0; s < kSteps; ++s) v = std::fmaf(v, v, (&c[i].x)[q]);
    (&want[i].x)[q] = v;
    cudaMemcpy(d_x0.get() + i, &x0[i], sizeof(float4), cudaMemcpyHostToDevice);
    d_out.poison();
  };
  opts.check.verify = [&](int) -> std::string {
    std::vector<float4> got;
    if (cudaError_t err = d_out.download(&got); err != cudaSuccess)
      return cudalab::describe_error(err, "copy back of a timed sample's output", __FILE__, __LINE__);
    return chains_mismatch("chainsInterleaved", got, want, x0, c, kSteps, static_cast<long long>(grid) * kChainsBlock,
                           where);
  };
  const cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] {
        chainsSequentialBaseline<<<grid, kChainsBlock, dyn_base>>>(d_x0.get(), d_c.get(), d_out.get(), n, kSteps);
      },
      [&] { chainsInterleaved<<<grid, kChainsBlock, dyn>>>(d_x0.get(), d_c.get(), d_out.get(), n, kSteps); }, opts);
  std::printf(
      "[ CUDALAB  ] %u blocks of %d threads, one per SM (%zu B dynamic shared memory each), n=%d, %d steps: "
      "%.3g fmaf per launch\n",
      grid, kChainsBlock, dyn, n, kSteps, double(n) * kChains * kSteps);
  cudalab::expect_speedup(
      {"chainsInterleaved", "the four chains one after another (chainsSequential), same launch: one warp per scheduler",
       cmp, cudalab::threshold("interleaved_speedup") * fp32_issue_factor(device().cc_major, device().cc_minor),
       "interleaved_speedup", 0.0});
  const std::string note = fp32_issue_note(device().cc_major, device().cc_minor);
  if (!note.empty()) std::printf("[ CUDALAB  ] threshold%s\n", note.c_str());
}

}  // namespace
