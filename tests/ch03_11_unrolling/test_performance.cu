// ch03_11 performance: each unrolling kernel side by side with the reference solution's kernel of
// the same name, compiled into the tests; where the reference cannot run, each step against the
// step before it and Unrolling8 against Interleaved, test-side copies (baseline.cu), the same for
// everyone. Every candidate is checked for correctness on the same input before it is timed.
#include "baseline.cuh"
#include "reduce_timing.cuh"
#include "unrolling.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference.hpp"
#include "cudalab/testing.cuh"

#include <functional>
#include <string>

namespace {

class UnrollPerformance : public cudalab::GpuTest {
 protected:
  using Launch = std::function<void(unsigned int grid, unsigned int block, int *, int *, unsigned int)>;

  /// Times `kernel` (symbol `mangled`, factor `factor`) against the reference solution's kernel of
  /// that name with `block`-thread blocks: about 1.0 for a correct kernel on any GPU, threshold
  /// `reference_key`. Where the reference cannot run, against `baseline` (factor `base_factor`,
  /// block 512) with threshold `base_key`, as the book measures the step.
  void keeps_up(const char *name, ReduceKernel kernel, unsigned int factor, const char *mangled,
                const char *reference_key, unsigned int block, const char *base_name, ReduceKernel baseline,
                unsigned int base_factor, const char *base_key) {
    std::string why;
    const ReduceLaunch reference =
        reference_reduction(name, kernel, mangled, 1u << 24, block, block * factor, seed(), &why);
    if (reference) {
      speedup(
          name, kernel, factor, std::string("the reference solution's ") + name,
          [&](unsigned int, unsigned int, int *in, int *out, unsigned int n) { reference(in, out, n); }, factor,
          reference_key, block);
      return;
    }
    if (const std::string f = cudalab::reference_fallback(name, base_name, why); !f.empty()) GTEST_FAIL() << f;
    speedup(
        name, kernel, factor, base_name,
        [&](unsigned int g, unsigned int b, int *in, int *out, unsigned int n) {
          cudalab::launch(baseline, g, b)(in, out, n);
        },
        base_factor, base_key, 512);
  }

  /// Times `kernel` (factor `factor`) against `baseline` (factor `base_factor`) on 2^24 ints with
  /// `block`-thread blocks. Both may reduce in place, so the input is restored (untimed) before
  /// every run, then L2 is flushed so every run reads from DRAM. Every sample of `kernel` sums a
  /// changed input, and a random share of its samples has its partial sums checked.
  void speedup(const char *name, ReduceKernel kernel, unsigned int factor, const std::string &base_name,
               const Launch &baseline, unsigned int base_factor, const char *key, unsigned int block) {
    const unsigned int n = 1u << 24;
    const unsigned int grid = reduce_grid(n, block, factor), base_grid = reduce_grid(n, block, base_factor);
    // Correct first: a kernel that does nothing is fast, and earns nothing.
    const std::string error = reduction_error(name, kernel, n, block, block * factor, seed());
    if (!error.empty()) GTEST_FAIL() << name << " is not timed until it is correct: " << error;
    std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed());
    cudalab::DeviceBuffer<int> pristine, work, out;
    CUDALAB_ASSERT_OK(pristine.upload(input));
    CUDALAB_ASSERT_OK(work.allocate(n));
    CUDALAB_ASSERT_OK(out.allocate(base_grid > grid ? base_grid : grid));
    auto restore = [&] { cudaMemcpyAsync(work.get(), pristine.get(), work.bytes(), cudaMemcpyDeviceToDevice); };
    cudalab::TimingOptions opts;
    opts.reps = 51;
    opts.flush_l2 = true;
    opts.stop_when_clear_of = cudalab::threshold(key);  // sampling stops once clear of it
    opts.check = reduction_sample_check(
        name,
        cudalab::context({{"n", n}, {"block", block}, {"factor", factor}, {"seed", static_cast<long long>(seed())}}),
        seed(), input, pristine.get(), work.get(), out.get(), grid, block * factor);
    cudalab::Comparison cmp = cudalab::compare_kernels(
        [&] { baseline(base_grid, block, work.get(), out.get(), n); },
        [&] { cudalab::launch(kernel, grid, block)(work.get(), out.get(), n); }, opts, restore, restore);
    cudalab::expect_speedup({name, base_name, cmp, cudalab::threshold(key), key, double(n) * sizeof(int)});
  }
};

TEST_F(UnrollPerformance, Unrolling2BeatsInterleaved) {
  keeps_up("reduceUnrolling2", reduceUnrolling2, 2, "_Z16reduceUnrolling2PiS_j", "unrolling2_vs_reference", 512,
           "reduceInterleaved (ch03_10)", reduceInterleavedBaseline, 1, "unrolling2_over_interleaved");
}

TEST_F(UnrollPerformance, Unrolling4BeatsUnrolling2) {
  keeps_up("reduceUnrolling4", reduceUnrolling4, 4, "_Z16reduceUnrolling4PiS_j", "unrolling4_vs_reference", 512,
           "the reference reduceUnrolling2", reduceUnrolling2Baseline, 2, "unrolling4_over_unrolling2");
}

TEST_F(UnrollPerformance, Unrolling8BeatsUnrolling4) {
  keeps_up("reduceUnrolling8", reduceUnrolling8, 8, "_Z16reduceUnrolling8PiS_j", "unrolling8_vs_reference", 512,
           "the reference reduceUnrolling4", reduceUnrolling4Baseline, 4, "unrolling8_over_unrolling4");
}

// Against the reference, reduceUnrolling8 is timed a second time with 256-thread blocks: the
// kernel keeps up at another launch shape too.
TEST_F(UnrollPerformance, Unrolling8BeatsInterleaved) {
  keeps_up("reduceUnrolling8", reduceUnrolling8, 8, "_Z16reduceUnrolling8PiS_j", "unrolling8_vs_reference_block256",
           256, "reduceInterleaved (ch03_10)", reduceInterleavedBaseline, 1, "unrolling8_over_interleaved");
}

}  // namespace
