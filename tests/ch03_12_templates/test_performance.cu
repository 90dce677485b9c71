// ch03_12 performance: reduceCompleteUnroll<512> against the reference solution's
// reduceCompleteUnroll<512>, compiled into the tests; where the reference cannot run, against the
// runtime-blockDim version (ch03_11's reduceCompleteUnrollWarps8, a test-side copy). Side by side,
// after a correctness check.
#include "baseline.cuh"
#include "reduce_timing.cuh"
#include "templates.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference.hpp"
#include "cudalab/testing.cuh"

#include <functional>
#include <string>

namespace {

class TemplatePerformance : public cudalab::GpuTest {
 protected:
  /// Times the student's reduceCompleteUnroll<block> (`name`) against `baseline` (named
  /// `baseline_name`), both on 2^24 ints with `block`-thread blocks and eight data blocks per
  /// thread block. Both reduce in place, so the input is restored (untimed) before every run, then
  /// L2 is flushed so every run reads from DRAM. Every sample of the template sums a changed input,
  /// and a random share of its samples has its partial sums checked. Threshold `key`.
  void speedup_over(const char *name, unsigned int block, const std::string &baseline_name,
                    const std::function<void(int *, int *, unsigned int)> &baseline, const char *key) {
    const unsigned int n = 1u << 24, grid = complete_unroll_grid(n, block);
    std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed());
    cudalab::DeviceBuffer<int> pristine, work, out;
    CUDALAB_ASSERT_OK(pristine.upload(input));
    CUDALAB_ASSERT_OK(work.allocate(n));
    CUDALAB_ASSERT_OK(out.allocate(grid));
    auto restore = [&] { cudaMemcpyAsync(work.get(), pristine.get(), work.bytes(), cudaMemcpyDeviceToDevice); };
    cudalab::TimingOptions opts;
    opts.reps = 51;
    opts.flush_l2 = true;
    opts.stop_when_clear_of = cudalab::threshold(key);  // sampling stops once clear of it
    // Every sample of the template sums a changed input; a random share of them is checked.
    opts.check = reduction_sample_check(
        name, cudalab::context({{"n", n}, {"block", block}, {"seed", static_cast<long long>(seed())}}), seed(), input,
        pristine.get(), work.get(), out.get(), grid, 8 * block);
    // The lab's function is asked once, outside the timed runs (it may run in a process of its own).
    const auto kernel = complete_unroll_kernel(block);
    cudalab::Comparison cmp = cudalab::compare_kernels(
        [&] { baseline(work.get(), out.get(), n); },
        [&] { cudalab::launch(kernel, grid, block)(work.get(), out.get(), n); }, opts, restore, restore);
    cudalab::expect_speedup({name, baseline_name, cmp, cudalab::threshold(key), key, double(n) * sizeof(int)});
  }
};

// The reference's reduceCompleteUnroll<512> is launched as the solution's launch_complete_unroll
// launches it: complete_unroll_grid(n, 512) blocks of 512 threads, no dynamic shared memory, the
// default stream. Without it, against the runtime-blockDim version as before.
TEST_F(TemplatePerformance, NotSlowerThanRuntimeBlockDim) {
  const unsigned int n = 1u << 24, block = 512, grid = complete_unroll_grid(n, block);
  const char *name = "reduceCompleteUnroll<512>";
  // Correct first: a kernel that does nothing is fast, and earns nothing.
  const std::string error = reduction_error(name, complete_unroll_kernel(block), n, block, 8 * block, seed());
  if (!error.empty()) GTEST_FAIL() << name << " is not timed until it is correct: " << error;
  std::string why;
  const ReduceLaunch reference =
      reference_reduction(name, complete_unroll_kernel(block), "_Z20reduceCompleteUnrollILj512EEvPiS0_j", n, block,
                          8 * block, seed(), &why);
  if (reference) {
    speedup_over(
        name, block, std::string("the reference solution's ") + name,
        [&](int *in, int *out, unsigned int count) { reference(in, out, count); }, "template_vs_reference");
    return;
  }
  if (const std::string f =
          cudalab::reference_fallback(name, "the runtime-blockDim reduceCompleteUnrollWarps8 (ch03_11)", why);
      !f.empty())
    GTEST_FAIL() << f;
  speedup_over(
      name, block, "the runtime-blockDim reduceCompleteUnrollWarps8 (ch03_11)",
      [&](int *in, int *out, unsigned int count) {
        cudalab::launch(reduceCompleteUnrollWarps8Baseline, grid, block)(in, out, count);
      },
      "template_over_runtime");
}

}  // namespace
