// ch03_16 performance: your chainsInterleaved side by side with the reference solution's
// chainsInterleaved (compiled into the tests), both at one block of 128 threads per SM (one warp
// per scheduler, held there with dynamic shared memory), on the same elements, the same steps and
// the same grid: about 1.0 for a correct kernel on any GPU, since both use the same FP32 pipes.
// Where the reference cannot run, against the tests' copy of chainsSequential on the same launch,
// as the lesson measures it: nothing but the order of the instructions differs, so the ratio is
// the issue rate the interleaving bought, a stall-bound kernel (one fmaf per latency) against an
// issue-bound one (about one fmaf per cycle). Every timed sample of chainsInterleaved gets a
// changed start value, and a random share of the samples has its output checked.
#include "baseline.cuh"
#include "scheduling_check.cuh"
#include "warp_scheduling.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/sample_inputs.cuh"
#include "cudalab/testing.cuh"

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>

namespace {

class InterleavePerformance : public cudalab::GpuTest {
 protected:
  using Reference = cudalab::RefKernel<const float4 *, const float4 *, float4 *, int, int>;

  /// The reference solution's chainsInterleaved (compiled into the tests) pinned as yours is: one
  /// block of kChainsBlock threads per SM, by pin_blocks_per_sm() on its own handle (its dynamic
  /// shared memory in @p dyn); then one run of the timed launch (@p grid blocks, @p n elements,
  /// @p steps) checked bit for bit against @p want, the CPU reference of that input. Empty, with
  /// the reason in @p why, where it cannot run here.
  Reference reference(unsigned int grid, int n, int steps, const std::vector<float4> &want, std::size_t *dyn,
                      std::string *why) {
    const char *const symbol = "_Z17chainsInterleavedPK6float4S1_PS_ii";
    const auto loaded = cudalab::reference_kernel(chainsInterleaved, symbol);
    *why = loaded.why_not();
    if (!loaded) return {};
    const void *handle = loaded.handle();
    if (const cudaError_t err = pin_blocks_per_sm(handle, kChainsBlock, 1, dyn); err != cudaSuccess) {
      (void)cudaGetLastError();
      *why =
          std::string("its occupancy cannot be pinned as yours is (pin_blocks_per_sm: ") + cudaGetErrorName(err) + ")";
      return {};
    }
    const std::size_t shared = *dyn;
    const Reference k = cudalab::checked_reference_kernel(chainsInterleaved, symbol, [&](const Reference &r) {
      return chains_error(
          "the reference solution's chainsInterleaved",
          [&](const float4 *x0, const float4 *c, float4 *out, int count, int s) {
            return r.launch(grid, kChainsBlock, shared, nullptr, x0, c, out, count, s);
          },
          n, steps, grid, kChainsBlock, seed(), want);
    });
    *why = k.why_not();
    return k;
  }
};

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
  std::string why;
  std::size_t dyn_ref = 0;
  const Reference reference_chains = reference(grid, n, kSteps, want, &dyn_ref, &why);
  const char *const sequential_name =
      "the four chains one after another (chainsSequential), same launch: one warp per scheduler";
  if (!reference_chains) {
    if (const std::string f = cudalab::reference_fallback("chainsInterleaved", sequential_name, why); !f.empty())
      GTEST_FAIL() << f;
  }

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
  const std::function<void()> sequential = [&] {
    cudalab::launch(chainsSequentialBaseline, grid, kChainsBlock, dyn_base)(d_x0.get(), d_c.get(), d_out.get(), n,
                                                                            kSteps);
  };
  const auto yours = [&] {
    cudalab::launch(chainsInterleaved, grid, kChainsBlock, dyn)(d_x0.get(), d_c.get(), d_out.get(), n, kSteps);
  };
  const std::function<void()> against = reference_chains ? std::function<void()>([&] {
    reference_chains.launch(grid, kChainsBlock, dyn_ref, nullptr, d_x0.get(), d_c.get(), d_out.get(), n, kSteps);
  })
                                                         : sequential;
  // Sampling stops once every pair is clear of the threshold graded below.
  const double required = reference_chains ? cudalab::threshold("interleaved_vs_reference")
                                           : cudalab::threshold("interleaved_speedup") *
                                                 fp32_issue_factor(device().cc_major, device().cc_minor);
  opts.stop_when_clear_of = required;
  const cudalab::Comparison cmp = cudalab::compare_kernels(against, yours, opts);
  std::printf(
      "[ CUDALAB  ] %u blocks of %d threads, one per SM (%zu B dynamic shared memory each), n=%d, %d steps: "
      "%.3g fmaf per launch\n",
      grid, kChainsBlock, dyn, n, kSteps, double(n) * kChains * kSteps);
  if (!reference_chains) {
    cudalab::expect_speedup({"chainsInterleaved", sequential_name, cmp, required, "interleaved_speedup", 0.0});
    const std::string note = fp32_issue_note(device().cc_major, device().cc_minor);
    if (!note.empty()) std::printf("[ CUDALAB  ] threshold%s\n", note.c_str());
    return;
  }
  // The same FP32 pipes on both sides: no fp32_issue_factor against the reference.
  cudalab::expect_speedup({"chainsInterleaved",
                           "the reference solution's chainsInterleaved, same launch: one warp per scheduler", cmp,
                           required, "interleaved_vs_reference", 0.0});
  // The lesson's figure, not graded here: the sequential chains on the same launch, timed alone.
  cudalab::TimingOptions alone;
  alone.reps = opts.reps;
  const cudalab::TimingStats t = cudalab::time_kernel(sequential, alone);
  if (t.ok && cmp.candidate.ok && cmp.candidate.median_ms > 0)
    std::printf(
        "[ CUDALAB  ] the lesson: the four chains one after another (chainsSequential) take %.3f ms on the same "
        "launch, your chainsInterleaved %.3f ms: %.2fx faster (not graded)\n",
        t.median_ms, cmp.candidate.median_ms, t.median_ms / cmp.candidate.median_ms);
}

}  // namespace
