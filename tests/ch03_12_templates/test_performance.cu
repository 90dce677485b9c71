// ch03_12 performance: the template against the runtime-blockDim version (ch03_11's
// reduceCompleteUnrollWarps8, a test-side copy), side by side, after a correctness check.
#include "baseline.cuh"
#include "reduce_timing.cuh"
#include "templates.cuh"

#include "cudalab/reference.hpp"
#include "cudalab/testing.cuh"

namespace {

class TemplatePerformance : public cudalab::GpuTest {};

TEST_F(TemplatePerformance, NotSlowerThanRuntimeBlockDim) {
  const unsigned int n = 1u << 24, block = 512, grid = complete_unroll_grid(n, block);
  const char *name = "reduceCompleteUnroll<512>";
  const std::string error = reduction_error(name, complete_unroll_kernel(block), n, block, 8 * block, seed());
  if (!error.empty()) GTEST_FAIL() << name << " is not timed until it is correct: " << error;
  std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed());
  cudalab::DeviceBuffer<int> pristine, work, out;
  CUDALAB_ASSERT_OK(pristine.upload(input));
  CUDALAB_ASSERT_OK(work.allocate(n));
  CUDALAB_ASSERT_OK(out.allocate(grid));
  auto restore = [&] { cudaMemcpyAsync(work.get(), pristine.get(), work.bytes(), cudaMemcpyDeviceToDevice); };
  cudalab::TimingOptions opts;
  opts.reps = 51;
  opts.flush_l2 = true;
  // Every sample of the template sums a changed input; a random share of them is checked.
  opts.check = reduction_sample_check(
      name, cudalab::context({{"n", n}, {"block", block}, {"seed", static_cast<long long>(seed())}}), seed(), input,
      pristine.get(), work.get(), out.get(), grid, 8 * block);
  cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { reduceCompleteUnrollWarps8Baseline<<<grid, block>>>(work.get(), out.get(), n); },
      [&] { complete_unroll_kernel(block)<<<grid, block>>>(work.get(), out.get(), n); }, opts, restore, restore);
  const char *key = "template_over_runtime";
  cudalab::expect_speedup({name, "the runtime-blockDim reduceCompleteUnrollWarps8 (ch03_11)", cmp,
                           cudalab::threshold(key), key, double(n) * sizeof(int)});
}

}  // namespace
