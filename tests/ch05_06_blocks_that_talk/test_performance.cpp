// ch05_06 performance: the single pass against the reference solution's reduceSinglePass, compiled
// into the tests and launched as the reference launcher launches it; where the reference cannot
// run, against the two-launch reduction (the same grid, the same grid-stride loop, the same loads
// per thread; a second launch of one block adds the partials), side by side. Both read the whole
// input once; the single pass saves the second launch and its gap, and pays one atomic per block
// and the last block's extra work.
#include <algorithm>
#include <random>
#include <string>

#include "baseline.cuh"
#include "blocks_check.cuh"
#include "blocks_that_talk.cuh"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"

namespace {

class SinglePassPerformance : public cudalab::GpuTest {
 protected:
  using Kernel = cudalab::RefKernel<const int *, long long *, unsigned int *, long long *, int>;

  /// The reference solution's reduceSinglePass (compiled into the tests), to be launched as the
  /// solution's launch_reduce_single_pass launches it: baseline_grid(n, kSinglePassBlock) blocks
  /// (the solution's single_pass_grid, restated test-side, never the student's), kSinglePassBlock
  /// threads, no dynamic shared memory, the default stream. Loaded after a trial run checked by
  /// single_pass_error() on the test's own n ints; empty, with the reason in @p why, where it
  /// cannot run here or its total is wrong.
  Kernel reference_single_pass(int n, std::string *why) {
    const int grid = baseline_grid(n, kSinglePassBlock);
    const Kernel kernel =
        cudalab::checked_reference_kernel(reduceSinglePass, "_Z16reduceSinglePassPKiPxPjS1_i", [&](const Kernel &k) {
          return single_pass_error(
              "the reference solution's reduceSinglePass",
              [&](const int *in, long long *partial, unsigned int *counter, long long *out, int count) {
                return k.launch(grid, kSinglePassBlock, 0, nullptr, in, partial, counter, out, count);
              },
              n, kSinglePassBlock, grid, seed());
        });
    *why = kernel.why_not();
    return kernel;
  }

  /// Times @p launches back-to-back launches of each side per sample (TimingOptions::launches: a
  /// short kernel's sample would otherwise be mostly the jitter between a timing event and the
  /// launch after it); the times reported are per launch. Against the reference solution's
  /// reduceSinglePass with threshold @p reference_key; where it cannot run, against the two-launch
  /// baseline with threshold @p key.
  void versus_two_pass(int n, int reps, int launches, const char *reference_key, const char *key) {
    const std::string error = single_pass_error(n, kSinglePassBlock, 0, seed());
    if (!error.empty()) {
      ADD_FAILURE() << "reduceSinglePass is not timed until it is correct: " << error;
      return;
    }
    std::string why;
    const Kernel reference = reference_single_pass(n, &why);
    if (!reference) {
      if (const std::string f = cudalab::reference_fallback(
              "reduceSinglePass",
              "the two-launch baseline (the same partial-sum kernel, then one block adds the partials)", why);
          !f.empty())
        GTEST_FAIL() << f;
    }
    // One copy of the input per launch of a timed run (launch k reads copy k): every copy gets its
    // own changed element before every run, so no launch can take its total from an earlier
    // launch of the same run. Both sides read the copies in turn: the same bytes, the same caches.
    const int copies = launches;
    const std::size_t count = static_cast<std::size_t>(n);
    std::vector<std::vector<int>> inputs(copies, cudalab::random_ints(count, -1000, 1000, seed()));
    cudalab::DeviceBuffer<int> in;
    // out[0, launches): the totals of reduceSinglePass's launches in a timed run, launch k's in
    // out[k]; out[launches]: the baseline's (the reference's, or the two launches').
    cudalab::DeviceBuffer<long long> partial, out, ref_partial;
    cudalab::DeviceBuffer<unsigned int> counter, ref_counter;
    CUDALAB_ASSERT_OK(in.allocate(count * copies));
    for (int k = 0; k < copies; ++k)
      CUDALAB_ASSERT_OK(
          cudaMemcpy(in.get() + count * k, inputs[k].data(), count * sizeof(int), cudaMemcpyHostToDevice));
    auto copy_of = [&](int k) { return in.get() + count * static_cast<std::size_t>(k % copies); };
    CUDALAB_ASSERT_OK(partial.allocate(kMaxSinglePassBlocks));
    CUDALAB_ASSERT_OK(out.allocate(launches + 1));
    CUDALAB_ASSERT_OK(counter.allocate(1));
    CUDALAB_ASSERT_OK(cudaMemset(counter.get(), 0, sizeof(unsigned int)));
    // The reference's own partials and counter, zeroed once as the header asks of every caller
    // (its kernel sets the counter back to 0): nothing the student's kernel leaves behind reaches it.
    // The reference has no __device__ variables of its own.
    const int ref_grid = baseline_grid(n, kSinglePassBlock);
    if (reference) {
      CUDALAB_ASSERT_OK(ref_partial.allocate(kMaxSinglePassBlocks));
      CUDALAB_ASSERT_OK(ref_counter.allocate(1));
      CUDALAB_ASSERT_OK(cudaMemset(ref_counter.get(), 0, sizeof(unsigned int)));
    }
    cudalab::TimingOptions opts;
    opts.reps = reps;
    opts.launches = launches;
    // Sampling stops once every pair is clear of the threshold graded below.
    opts.stop_when_clear_of = cudalab::threshold(reference ? reference_key : key);
    // Every timed run sums inputs with one element of each copy changed (the sums kept up to date),
    // into totals that were poisoned before it; a random share of the runs (the first and the last
    // always) has every launch's total checked against its own copy's sum.
    std::vector<long long> sums(copies, cpu_sum(inputs[0]));
    int launch = 0, base_launch = 0;  // launches of the current timed run, each side
    std::mt19937_64 rng(seed() ^ 0x5a3c0ffeeull);
    const std::string ctx = cudalab::context({{"n", n}, {"block", kSinglePassBlock}, {"launches", launches}}) +
                            ", seed=" + std::to_string(seed()) +
                            ", a timed run with one element of each launch's own input copy changed";
    opts.check.prepare = [&](int) {
      for (int k = 0; k < copies; ++k) {
        std::vector<int> &input = inputs[k];
        const std::size_t j = std::uniform_int_distribution<std::size_t>(0, input.size() - 1)(rng);
        int v = input[j];
        while (v == input[j]) v = std::uniform_int_distribution<int>(-1000, 1000)(rng);
        sums[k] += static_cast<long long>(v) - input[j];
        input[j] = v;
        cudaMemcpy(copy_of(k) + j, &v, sizeof v, cudaMemcpyHostToDevice);
      }
      cudaMemset(out.get(), cudalab::kPoisonByte, launches * sizeof(long long));
      launch = 0;
    };
    opts.check.verify = [&](int) -> std::string {
      std::vector<long long> got;
      if (const cudaError_t err = out.download(&got); err != cudaSuccess)
        return cudalab::describe_error(err, "copying the totals back", __FILE__, __LINE__);
      for (int k = 0; k < launches; ++k) {
        if (got[k] == sums[k]) continue;
        std::string msg = "reduceSinglePass: wrong total of launch " + std::to_string(k + 1) + " of the " +
                          std::to_string(launches) + " in this timed run (its own copy of the input): expected " +
                          std::to_string(sums[k]) + ", got " + std::to_string(got[k]);
        if (cudalab::is_poison(got[k])) msg += " (never written: still the poison value)";
        return msg + " (" + ctx + ")";
      }
      return "";
    };
    cudalab::Comparison cmp = cudalab::compare_kernels(
        [&] {
          const int *copy = copy_of(base_launch++);
          if (reference)
            reference.launch(ref_grid, kSinglePassBlock, 0, nullptr, copy, ref_partial.get(), ref_counter.get(),
                             out.get() + launches, n);
          else
            launch_two_pass_baseline(copy, partial.get(), out.get() + launches, n, kSinglePassBlock);
        },
        [&] {
          const int k = launch++ % launches;
          launch_reduce_single_pass(copy_of(k), partial.get(), counter.get(), out.get() + k, n, kSinglePassBlock);
        },
        opts);
    // The timed launches shared one counter: the last one's total must still be right.
    std::vector<long long> got;
    CUDALAB_ASSERT_OK(out.download(&got));
    EXPECT_EQ(got[launches - 1], sums[launches - 1])
        << "reduceSinglePass's total after " << reps << "+ timed launches with one counter (n=" << n
        << ", seed=" << seed() << ")";
    const std::string candidate = "reduceSinglePass block 256, n = " + std::to_string(n);
    if (reference) {
      cudalab::expect_speedup({candidate, "the reference solution's reduceSinglePass (the same grid and block)", cmp,
                               cudalab::threshold(reference_key), reference_key, double(n) * sizeof(int)});
      return;
    }
    cudalab::expect_speedup({candidate, "two launches (the same partial-sum kernel, then one block adds the partials)",
                             cmp, cudalab::threshold(key), key, double(n) * sizeof(int)});
  }
};

// The two tests are named for what they ask where the reference kernels cannot run; against the
// reference, the single pass must keep up with the reference's single pass (0.8).

// 256 MiB: both are bound by DRAM; the single pass must not be slower.
TEST_F(SinglePassPerformance, NotSlowerThanTwoLaunchesAt2Pow26) {
  versus_two_pass(1 << 26, 31, 1, "single_vs_reference_2e26", "single_vs_two_pass_2e26");
}

// 1 MiB, or one wave of blocks where the GPU holds fewer than 2^18 / 256 = 1024 at once (fewer
// than 128 SMs at 8 blocks an SM): the input stays in L2 and the launch gap is a large part of the
// time, so one launch wins. In several waves the single pass lost: on 24 SMs of an H100 (five
// waves of 2^18 ints) the reference took 0.014 ms against 0.012 ms for the two launches, so a
// correct single pass would have lost these points on a laptop's GPU (one wave there: 1.84x).
// Ten launches of each side a sample: one 10 us launch a sample measured with 8-19 % noise.
TEST_F(SinglePassPerformance, FasterThanTwoLaunchesAt2Pow18) {
  const int per_sm = baseline_blocks_per_sm(kSinglePassBlock);
  ASSERT_GT(per_sm, 0) << "the occupancy calculator failed for the two-launch baseline";
  const long long wave = static_cast<long long>(per_sm) * device().sm_count * kSinglePassBlock;
  versus_two_pass(static_cast<int>(std::min<long long>(1 << 18, wave)), 101, 10, "single_vs_reference_2e18",
                  "single_vs_two_pass_2e18");
}

}  // namespace
