// ch05_02 performance: adjacentDifferenceShared side by side with the reference solution's kernel
// of the same name, compiled into the tests (block 256, and again with 1024-thread blocks); where
// the reference cannot run, against the naive kernel and against a plain one-int-per-thread copy
// kernel of the same bytes, as the book measures it. 2^26 ints (256 MiB read, 256 MiB written per
// run).
#include "adjacent_check.cuh"
#include "adjacent_difference.cuh"

#include "cudalab/baselines.cuh"
#include "cudalab/launch.cuh"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"

#include <string>

namespace {

constexpr int kN = 1 << 26;
/// The second shape against the reference: the largest block the kernel must handle.
constexpr unsigned int kLargeBlock = 1024;

class AdjacentPerformance : public cudalab::GpuTest {
 protected:
  /// Uploads kN random ints and checks adjacentDifferenceShared on them (correct before timed).
  bool prepare() {
    cudaError_t err = data_.init(kN, seed());
    if (err != cudaSuccess) {
      ADD_FAILURE() << cudalab::describe_error(err, "allocating 2 x 256 MiB", __FILE__, __LINE__);
      return false;
    }
    return correct(kAdjacentBlock);
  }
  /// Checks adjacentDifferenceShared with @p block threads per block on the uploaded data.
  bool correct(unsigned int block) {
    const std::string error = data_.check(
        "adjacentDifferenceShared",
        [block](const int *in, int *out, int n) { launch_adjacent_difference_shared(in, out, n, block); }, block);
    if (!error.empty()) {
      ADD_FAILURE() << "adjacentDifferenceShared is not timed until it is correct: " << error;
      return false;
    }
    return true;
  }
  void run_shared(unsigned int block = kAdjacentBlock) {
    launch_adjacent_difference_shared(data_.input(), data_.result(), kN, block);
  }
  /// Every timed run of adjacentDifferenceShared gets an input with one element changed and a
  /// poisoned result; a random share of them (the first and the last always) is checked.
  cudalab::TimingOptions options(const char *key, unsigned int block = kAdjacentBlock) {
    cudalab::TimingOptions opts;
    opts.reps = 31;  // 512 MiB per run: nothing stays in the 50 MB L2 between runs
    // Sampling stops once every pair is clear of the threshold the comparison is graded against.
    opts.stop_when_clear_of = cudalab::threshold(key);
    opts.check = data_.sample_check("adjacentDifferenceShared", block);
    return opts;
  }

  /// @brief The reference solution's adjacentDifferenceShared, compiled into the tests, launched as
  /// launch_adjacent_difference_shared launches it with @p block threads per block (the grid and
  /// shared memory restated here, so that an edited header cannot change the reference's launch),
  /// after one trial run on the uploaded data checked like yours. Empty, with the reason in @p why,
  /// where it cannot run here or its result is wrong.
  AdjacentLaunch reference(unsigned int block, std::string *why) {
    using Kernel = cudalab::RefKernel<const int *, int *, int>;
    auto as_launch = [block](const Kernel &kernel) -> AdjacentLaunch {
      return [kernel, block](const int *in, int *out, int n) {
        const unsigned int grid =
            n > 0 ? static_cast<unsigned int>((static_cast<long long>(n) + block - 1) / block) : 1u;
        (void)kernel.launch(grid, block, (block + 1) * sizeof(int), nullptr, in, out, n);
      };
    };
    const Kernel kernel = cudalab::checked_reference_kernel(
        adjacentDifferenceShared, "_Z24adjacentDifferenceSharedPKiPii", [&](const Kernel &k) {
          return data_.check("the reference solution's adjacentDifferenceShared", as_launch(k), block);
        });
    *why = kernel.why_not();
    if (!kernel) return {};
    return as_launch(kernel);
  }

  /// @brief Times adjacentDifferenceShared against the reference solution's kernel of that name
  /// with @p block threads per block, threshold @p key (about 1.0 for a correct kernel on any GPU).
  /// Returns false where the reference cannot be used here, after the [ INFO ] line saying that the
  /// test times against @p baseline instead; true when the test was graded here (or failed).
  bool keeps_up(unsigned int block, const char *key, const char *baseline) {
    std::string why;
    const AdjacentLaunch ref = reference(block, &why);
    if (!ref) {
      const std::string failure = cudalab::reference_fallback("adjacentDifferenceShared", baseline, why);
      if (failure.empty()) return false;
      ADD_FAILURE() << failure;
      return true;
    }
    if (block != kAdjacentBlock && !correct(block)) return true;
    const std::string shape = " block " + std::to_string(block);
    cudalab::Comparison cmp = cudalab::compare_kernels([&] { ref(data_.input(), data_.result(), kN); },
                                                       [&] { run_shared(block); }, options(key, block));
    cudalab::expect_speedup({"adjacentDifferenceShared" + shape,
                             "the reference solution's adjacentDifferenceShared" + shape, cmp, cudalab::threshold(key),
                             key, data_.bytes()});
    return true;
  }

  AdjacentData data_;
};

// Against the reference with 256-thread blocks. Where it cannot run, "not slower" than the naive
// kernel: on a GPU with an L1 cache the naive kernel's second read of each element mostly hits L1,
// so the shared tile saves load instructions and L1 traffic, not DRAM traffic.
TEST_F(AdjacentPerformance, SharedIsNotSlowerThanNaive) {
  if (!prepare()) return;
  if (keeps_up(kAdjacentBlock, "shared_vs_reference", "the naive kernel")) return;
  const unsigned grid = adjacent_difference_grid(kN, kAdjacentBlock);
  cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] {
        cudalab::launch(adjacentDifferenceNaiveBaseline, grid, kAdjacentBlock)(data_.input(), data_.result(), kN);
      },
      [&] { run_shared(); }, options("shared_vs_naive"));
  cudalab::expect_speedup({"adjacentDifferenceShared block 256", "adjacentDifferenceNaive block 256", cmp,
                           cudalab::threshold("shared_vs_naive"), "shared_vs_naive", data_.bytes()});
}

// Against the reference with 1024-thread blocks: a second comparison at block 256 would measure
// nothing new, and a tile filled in serial steps per warp shows most there. Where the reference
// cannot run, the same-structure baseline (cudalab/baselines.cuh): a flat 1D grid of 256-thread
// blocks, one int per thread, result[i] = input[i] -- the same bytes and the same bytes in flight
// per thread as the shared kernel, so the ratio does not depend on how far one element per thread
// falls short of cudaMemcpy on a given GPU. The fraction of the copy bandwidth is still printed.
TEST_F(AdjacentPerformance, SharedKeepsUpWithAStreamingCopy) {
  if (!prepare()) return;
  if (keeps_up(kLargeBlock, "shared_vs_reference_block1024", "a one-int-per-thread copy kernel")) return;
  cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { cudalab::launch_stream_baseline<int>(data_.input(), nullptr, data_.result(), kN, kAdjacentBlock); },
      [&] { run_shared(); }, options("shared_vs_stream"));
  cudalab::expect_speedup({"adjacentDifferenceShared block 256", "copy kernel, one int per thread, block 256", cmp,
                           cudalab::threshold("shared_vs_stream"), "shared_vs_stream", data_.bytes()});
}

}  // namespace
