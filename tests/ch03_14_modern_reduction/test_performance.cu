// ch03_14 performance: reduceModern against the reference solution's reduceModern, compiled into
// the tests (where it cannot run, against cub::DeviceReduce::Sum), and against the copy bandwidth,
// each measured side by side in this process. Every timed sample of reduceModern sums a changed
// input, and the sums of a random share of the samples are checked.
#include "modern_check.cuh"
#include "modern_reduction.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference.hpp"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/sample_inputs.cuh"
#include "cudalab/testing.cuh"

#include <cub/device/device_reduce.cuh>

#include <functional>
#include <random>
#include <string>

namespace {

class ModernPerformance : public cudalab::GpuTest {
 protected:
  /// Checks reduceModern on n random ints (correct before timed); false, the failure added, if not.
  bool correct(unsigned int n) {
    const std::string error = modern_error(n, 0, 0, seed());
    if (!error.empty()) {
      ADD_FAILURE() << "reduceModern is not timed until it is correct: " << error;
      return false;
    }
    return true;
  }
  /// Uploads the same n random ints, which the timed runs sum (use with CUDALAB_ASSERT_OK: memory
  /// that other programs hold is waited for and reported, not scored as the kernel's).
  cudaError_t upload(unsigned int n) {
    n_ = n;
    std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed());
    grid_ = modern_grid_here(n);
    expected_sum_ = cudalab::cpu::sum(input);
    cudaError_t err = in_.upload(input);
    if (err == cudaSuccess) err = sum_.allocate(1);
    return err;
  }
  /// Every timed sample of reduceModern sums an input no earlier sample had: before it, one random
  /// element gets a new value in [-1000, 1000] (the expected sum follows it on the CPU, without a
  /// pass over all n ints) and *g_sum is poisoned; the sum of every checked sample must be exact.
  cudalab::SampleCheck sample_check() {
    rng_.seed(seed() ^ 0x5a3c0ffee1234567ull);
    cudalab::SampleCheck check;
    check.prepare = [this](int) {
      const std::size_t j = std::uniform_int_distribution<std::size_t>(0, n_ - 1)(rng_);
      int old = 0;
      cudaMemcpy(&old, in_.get() + j, sizeof(int), cudaMemcpyDeviceToHost);
      const int value = cudalab::new_int_in(-1000, 1000)(rng_, old);
      cudaMemcpy(in_.get() + j, &value, sizeof(int), cudaMemcpyHostToDevice);
      expected_sum_ += static_cast<long long>(value) - old;
      sum_.poison();
    };
    check.verify = [this](int) -> std::string {
      int got = 0;
      if (cudaError_t err = cudaMemcpy(&got, sum_.get(), sizeof(int), cudaMemcpyDeviceToHost); err != cudaSuccess)
        return cudalab::describe_error(err, "copy back of a timed sample's sum", __FILE__, __LINE__);
      if (got == expected_sum_) return "";
      return "reduceModern: wrong sum: expected " + std::to_string(expected_sum_) + ", got " + std::to_string(got) +
             (cudalab::is_poison(got) ? " (never written: still the poison value)" : "") + " (" +
             cudalab::context(
                 {{"n", n_}, {"grid", grid_}, {"block", kModernBlock}, {"seed", static_cast<long long>(seed())}}) +
             ")";
    };
    return check;
  }
  /// One reduceModern run, zeroing of the result included (it is part of the job).
  void run_modern() {
    cudaMemsetAsync(sum_.get(), 0, sizeof(int));
    cudalab::launch(reduceModern, grid_, kModernBlock)(in_.get(), n_, sum_.get());
  }

  /// The reference solution's reduceModern (compiled into the tests) as one run on in_ into
  /// @p sum: the zeroing of *sum, then the launch the solution's modern_grid() gives on this GPU
  /// (reference_modern_grid(), never the student's modern_grid()), kModernBlock threads, no dynamic
  /// shared memory, the default stream. Loaded after a trial run checked by modern_error() on the
  /// test's own n ints; empty, with the reason in @p why, where it cannot run here or is wrong.
  std::function<void()> reference_modern(unsigned int n, int *sum, std::string *why) {
    using Kernel = cudalab::RefKernel<const int *, unsigned int, int *>;
    const unsigned int grid = reference_modern_grid(n);
    const Kernel kernel =
        cudalab::checked_reference_kernel(reduceModern, "_Z12reduceModernPKijPi", [&](const Kernel &k) {
          return modern_error(
              "the reference solution's reduceModern",
              [&](const int *in, unsigned int count, int *total, unsigned int blocks) {
                return k.launch(blocks, kModernBlock, 0, nullptr, in, count, total);
              },
              n, 0, grid, seed());
        });
    *why = kernel.why_not();
    if (!kernel) return {};
    return [this, kernel, grid, sum] {
      cudaMemsetAsync(sum, 0, sizeof(int));
      kernel.launch(grid, kModernBlock, 0, nullptr, in_.get(), n_, sum);
    };
  }

  /// reduceModern against the reference solution's reduceModern on n ints, cold L2, threshold
  /// @p reference_key; where the reference cannot run, against cub::DeviceReduce::Sum with
  /// threshold @p cub_key, as before.
  void versus_reference(unsigned int n, int reps, const char *reference_key, const char *cub_key) {
    CUDALAB_REQUIRE_FREE_MEMORY(std::size_t(n) * sizeof(int), "the timed test's " + std::to_string(n) + " ints");
    if (!correct(n)) return;
    cudalab::DeviceBuffer<int> ref_sum;
    CUDALAB_ASSERT_OK(ref_sum.allocate(1));
    std::string why;
    // Loaded and tried (on its own copy of the input) before the timed input is uploaded: the test
    // needs no more free memory than before.
    const std::function<void()> reference = reference_modern(n, ref_sum.get(), &why);
    if (!reference) {
      if (const std::string f = cudalab::reference_fallback("reduceModern", "cub::DeviceReduce::Sum", why); !f.empty())
        GTEST_FAIL() << f;
    }
    CUDALAB_ASSERT_OK(upload(n));
    if (!reference) {
      versus_cub(n, reps, cub_key);
      return;
    }
    cudalab::TimingOptions opts;
    opts.reps = reps;
    opts.flush_l2 = true;
    opts.check = sample_check();
    opts.stop_when_clear_of = cudalab::threshold(reference_key);  // sampling stops once clear of it
    cudalab::Comparison cmp = cudalab::compare_kernels(
        reference, [&] { run_modern(); }, opts);
    cudalab::expect_speedup({"reduceModern", "the reference solution's reduceModern", cmp,
                             cudalab::threshold(reference_key), reference_key, double(n) * sizeof(int)});
  }

  /// reduceModern vs cub::DeviceReduce::Sum on the n ints upload() gave, cold L2.
  void versus_cub(unsigned int n, int reps, const char *key) {
    cudalab::DeviceBuffer<int> cub_out;
    cudalab::DeviceBuffer<unsigned char> temp;
    std::size_t temp_bytes = 0;
    CUDALAB_ASSERT_OK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in_.get(), cub_out.get(), static_cast<int>(n)));
    CUDALAB_ASSERT_OK(temp.allocate(temp_bytes));
    CUDALAB_ASSERT_OK(cub_out.allocate(1));
    cudalab::TimingOptions opts;
    opts.reps = reps;
    opts.flush_l2 = true;
    opts.check = sample_check();
    opts.stop_when_clear_of = cudalab::threshold(key);
    cudalab::Comparison cmp = cudalab::compare_kernels(
        [&] { cub::DeviceReduce::Sum(temp.get(), temp_bytes, in_.get(), cub_out.get(), static_cast<int>(n)); },
        [&] { run_modern(); }, opts);
    cudalab::expect_speedup(
        {"reduceModern", "cub::DeviceReduce::Sum", cmp, cudalab::threshold(key), key, double(n) * sizeof(int)});
  }

  cudalab::DeviceBuffer<int> in_, sum_;
  unsigned int n_ = 0, grid_ = 1;
  long long expected_sum_ = 0;  ///< the sum of in_ as it is now
  std::mt19937_64 rng_;         ///< which element changes and its new value
};

// The two tests keep their names: where the reference kernels cannot run, they time reduceModern
// against CUB, with the thresholds calibrated against CUB.
TEST_F(ModernPerformance, KeepsUpWithCubAt2Pow24) {
  versus_reference(1u << 24, 41, "modern_vs_reference_2e24", "cub_ratio_2e24");
}

TEST_F(ModernPerformance, KeepsUpWithCubAt2Pow28) {
  versus_reference(1u << 28, 21, "modern_vs_reference_2e28", "cub_ratio_2e28");
}

// The baseline is a device-to-device cudaMemcpy of the same n ints, which moves twice the bytes
// (read + write): its time is halved, so the "speed-up" is reduceModern's bandwidth as a fraction
// of the copy bandwidth measured beside it.
TEST_F(ModernPerformance, ReachesCopyBandwidthAt2Pow28) {
  const unsigned int n = 1u << 28;
  CUDALAB_REQUIRE_FREE_MEMORY(2 * std::size_t(n) * sizeof(int),
                              "the timed test's 2^28 ints and their copy (1 GiB each)");
  if (!correct(n)) return;
  CUDALAB_ASSERT_OK(upload(n));
  cudalab::DeviceBuffer<int> dst;
  CUDALAB_ASSERT_OK(dst.allocate(n));
  cudalab::TimingOptions opts;
  opts.reps = 21;
  opts.check = sample_check();
  // The copy's time is halved after timing, so the ratio of the raw samples is graded against twice
  // the threshold: sampling stops once every pair is clear of that.
  opts.stop_when_clear_of = 2.0 * cudalab::threshold("copy_fraction_2e28");
  cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { cudaMemcpyAsync(dst.get(), in_.get(), std::size_t(n) * sizeof(int), cudaMemcpyDeviceToDevice); },
      [&] { run_modern(); }, opts);
  for (cudalab::TimingStats *s : {&cmp.baseline}) {
    s->median_ms *= 0.5;
    s->min_ms *= 0.5;
    s->max_ms *= 0.5;
  }
  cudalab::expect_speedup({"reduceModern", "the copy bandwidth (D2D cudaMemcpy of the same ints, time / 2)", cmp,
                           cudalab::threshold("copy_fraction_2e28"), "copy_fraction_2e28", double(n) * sizeof(int)});
}

}  // namespace
