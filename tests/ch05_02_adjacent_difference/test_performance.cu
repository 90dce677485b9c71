// ch05_02 performance: adjacentDifferenceShared against the naive kernel and against a plain
// one-int-per-thread copy kernel of the same bytes, side by side on 2^26 ints (256 MiB read,
// 256 MiB written per run).
#include "adjacent_check.cuh"
#include "adjacent_difference.cuh"

#include "cudalab/baselines.cuh"
#include "cudalab/testing.cuh"

namespace {

constexpr int kN = 1 << 26;

class AdjacentPerformance : public cudalab::GpuTest {
 protected:
  /// Uploads kN random ints and checks adjacentDifferenceShared on them (correct before timed).
  bool prepare() {
    cudaError_t err = data_.init(kN, seed());
    if (err != cudaSuccess) {
      ADD_FAILURE() << cudalab::describe_error(err, "allocating 2 x 256 MiB", __FILE__, __LINE__);
      return false;
    }
    const std::string error = data_.check(
        "adjacentDifferenceShared",
        [](const int *in, int *out, int n) { launch_adjacent_difference_shared(in, out, n, kAdjacentBlock); },
        kAdjacentBlock);
    if (!error.empty()) {
      ADD_FAILURE() << "adjacentDifferenceShared is not timed until it is correct: " << error;
      return false;
    }
    return true;
  }
  void run_shared() { launch_adjacent_difference_shared(data_.input(), data_.result(), kN, kAdjacentBlock); }
  /// Every timed run of adjacentDifferenceShared gets an input with one element changed and a
  /// poisoned result; a random share of them (the first and the last always) is checked.
  cudalab::TimingOptions options() {
    cudalab::TimingOptions opts;
    opts.reps = 31;  // 512 MiB per run: nothing stays in the 50 MB L2 between runs
    opts.check = data_.sample_check("adjacentDifferenceShared", kAdjacentBlock);
    return opts;
  }

  AdjacentData data_;
};

// "Not slower": on a GPU with an L1 cache the naive kernel's second read of each element mostly
// hits L1, so the shared tile saves load instructions and L1 traffic, not DRAM traffic.
TEST_F(AdjacentPerformance, SharedIsNotSlowerThanNaive) {
  if (!prepare()) return;
  const unsigned grid = adjacent_difference_grid(kN, kAdjacentBlock);
  cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { adjacentDifferenceNaiveBaseline<<<grid, kAdjacentBlock>>>(data_.input(), data_.result(), kN); },
      [&] { run_shared(); }, options());
  cudalab::expect_speedup({"adjacentDifferenceShared block 256", "adjacentDifferenceNaive block 256", cmp,
                           cudalab::threshold("shared_vs_naive"), "shared_vs_naive", data_.bytes()});
}

// The same-structure baseline (cudalab/baselines.cuh): a flat 1D grid of 256-thread blocks, one
// int per thread, result[i] = input[i] -- the same bytes and the same bytes in flight per thread
// as the shared kernel, so the ratio does not depend on how far one element per thread falls
// short of cudaMemcpy on a given GPU. The fraction of the copy bandwidth is still printed.
TEST_F(AdjacentPerformance, SharedKeepsUpWithAStreamingCopy) {
  if (!prepare()) return;
  cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { cudalab::launch_stream_baseline<int>(data_.input(), nullptr, data_.result(), kN, kAdjacentBlock); },
      [&] { run_shared(); }, options());
  cudalab::expect_speedup({"adjacentDifferenceShared block 256", "copy kernel, one int per thread, block 256", cmp,
                           cudalab::threshold("shared_vs_stream"), "shared_vs_stream", data_.bytes()});
}

}  // namespace
