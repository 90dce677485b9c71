// ch03_10 performance: the less-divergent kernels against the reference solution's (or, without it,
// the divergent baseline), side by side. Interleaved against neighbored-less pairs is the lesson,
// not a grade: the two differ by 10-15 % in time (too little to tell apart on every GPU, and a
// correct kernel with a costlier barrier measured below 1.0); Technique.* refuses one kernel's
// code in the other's slot instead.
#include "baseline.cuh"
#include "reduce_timing.cuh"
#include "reduction.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference.hpp"
#include "cudalab/testing.cuh"

#include <functional>
#include <string>

namespace {

class ReducePerformance : public cudalab::GpuTest {
 protected:
  using Launch = std::function<void(int *, int *, unsigned int)>;

  /// Times `kernel` (symbol `mangled`) against the reference solution's own kernel of that name,
  /// compiled into this program, on 2^24 ints (block 512, the book's setup): about 1.0 for a
  /// correct kernel on any GPU, threshold `reference_key`. Where the reference cannot run (a
  /// release without it, a GPU it has no code for), against the divergent baseline as the book
  /// measures it, threshold `baseline_key`.
  void keeps_up(const char *name, ReduceKernel kernel, const char *mangled, const char *reference_key,
                const char *baseline_key) {
    const unsigned int block = 512, grid = reduce_grid(1u << 24, block);
    std::string why;
    const ReduceLaunch reference = reference_reduction(name, kernel, mangled, 1u << 24, block, block, seed(), &why);
    if (reference) {
      speedup_over(
          name, kernel, (std::string("the reference solution's ") + name).c_str(),
          [&](int *in, int *out, unsigned int n) { reference(in, out, n); }, reference_key);
      return;
    }
    if (const std::string f = cudalab::reference_fallback(name, "the divergent baseline", why); !f.empty())
      GTEST_FAIL() << f;
    speedup_over(
        name, kernel, "the divergent baseline (reduceNeighbored)",
        [&](int *in, int *out, unsigned int n) { cudalab::launch(reduceNeighboredBaseline, grid, block)(in, out, n); },
        baseline_key);
  }

  /// Times `kernel` against `baseline` (named `baseline_name`), both on 2^24 ints with 512-thread
  /// blocks. Both reduce in place, so the input is restored (untimed) before every run, then L2 is
  /// flushed so every run reads from DRAM. Every sample of `kernel` sums a changed input, and a
  /// random share of its samples has its partial sums checked.
  void speedup_over(const char *name, ReduceKernel kernel, const std::string &baseline_name, const Launch &baseline,
                    const char *key) {
    const unsigned int n = 1u << 24, block = 512, grid = reduce_grid(n, block);
    // Correct first: a kernel that does nothing is fast, and earns nothing.
    const std::string error = reduction_error(name, kernel, n, block, block, seed());
    if (!error.empty()) GTEST_FAIL() << name << " is not timed until it is correct: " << error;
    std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed());
    cudalab::DeviceBuffer<int> pristine, work, out;
    CUDALAB_ASSERT_OK(pristine.upload(input));
    CUDALAB_ASSERT_OK(work.allocate(n));
    CUDALAB_ASSERT_OK(out.allocate(grid));
    auto restore = [&] { cudaMemcpyAsync(work.get(), pristine.get(), work.bytes(), cudaMemcpyDeviceToDevice); };
    cudalab::TimingOptions opts;
    opts.reps = 31;
    opts.flush_l2 = true;
    opts.stop_when_clear_of = cudalab::threshold(key);  // sampling stops once clear of it
    opts.check = reduction_sample_check(
        name, cudalab::context({{"n", n}, {"block", block}, {"seed", static_cast<long long>(seed())}}), seed(), input,
        pristine.get(), work.get(), out.get(), grid, block);
    cudalab::Comparison cmp = cudalab::compare_kernels(
        [&] { baseline(work.get(), out.get(), n); },
        [&] { cudalab::launch(kernel, grid, block)(work.get(), out.get(), n); }, opts, restore, restore);
    cudalab::expect_speedup({name, baseline_name, cmp, cudalab::threshold(key), key, double(n) * sizeof(int)});
  }
};

TEST_F(ReducePerformance, NeighboredLessBeatsDivergentBaseline) {
  keeps_up("reduceNeighboredLess", reduceNeighboredLess, "_Z20reduceNeighboredLessPiS_j",
           "neighbored_less_vs_reference", "neighbored_less_speedup");
}

TEST_F(ReducePerformance, InterleavedBeatsDivergentBaseline) {
  keeps_up("reduceInterleaved", reduceInterleaved, "_Z17reduceInterleavedPiS_j", "interleaved_vs_reference",
           "interleaved_speedup");
}

}  // namespace
