// ch03_04 performance: at an occupancy pinned low (one 128-thread block = 4 warps per SM, held
// there by dynamic shared memory), four independent loads per thread against one.
#include "latency.cuh"
#include "latency_check.cuh"

#include <cstdio>
#include <cstring>

namespace {

class LatencyHiding : public cudalab::GpuTest {
 protected:
  static constexpr unsigned int kBlock = 128;  // 4 warps
  static constexpr int kBlocksPerSm = 1;       // -> 4 of the SM's warp slots

  /// Pins both kernels to kBlocksPerSm blocks per SM, checks the candidate on the same launch,
  /// then times baseline and candidate side by side on 256 MB (2^24 + 3 int4).
  void measure(cudalab::Comparison *cmp, double *bytes) {
    const std::size_t n = (std::size_t(1) << 24) + 3;
    const unsigned int grid = unsigned(device().sm_count) * kBlocksPerSm;
    std::size_t dyn = 0, dyn_base = 0;
    CUDALAB_ASSERT_OK(pin_blocks_per_sm((const void *)copyInt4Ilp4, kBlock, kBlocksPerSm, &dyn));
    CUDALAB_ASSERT_OK(pin_blocks_per_sm((const void *)copyInt4Baseline, kBlock, kBlocksPerSm, &dyn_base));
    // Correct first, at the very launch that is timed: a kernel that does nothing is fast.
    const std::string error = copy_error("copyInt4Ilp4", copyInt4Ilp4, n, grid, kBlock, dyn, seed());
    if (!error.empty()) GTEST_FAIL() << "copyInt4Ilp4 is not timed until it is correct: " << error;

    std::vector<int> ints = cudalab::random_ints(4 * n, -1000000, 1000000, seed());
    std::vector<int4> input(n);
    std::memcpy(input.data(), ints.data(), n * sizeof(int4));
    CUDALAB_ASSERT_OK(in_.upload(input));
    CUDALAB_ASSERT_OK(out_.allocate(n));
    cudalab::TimingOptions opts;
    opts.reps = 31;  // 512 MB moved per run, 10 x L2: no flush needed
    *cmp = cudalab::compare_kernels([&] { copyInt4Baseline<<<grid, kBlock, dyn_base>>>(in_.get(), out_.get(), n); },
                                    [&] { copyInt4Ilp4<<<grid, kBlock, dyn>>>(in_.get(), out_.get(), n); }, opts);
    *bytes = 2.0 * double(n) * sizeof(int4);  // read + written
    std::printf(
        "[ CUDALAB  ] occupancy pinned: %d block(s) of %u threads per SM (%zu B dynamic shared memory), "
        "grid %u\n",
        kBlocksPerSm, kBlock, dyn, grid);
  }
  cudalab::DeviceBuffer<int4> in_, out_;
};

TEST_F(LatencyHiding, FourLoadsInFlightBeatOneAtLowOccupancy) {
  cudalab::Comparison cmp;
  double bytes = 0;
  measure(&cmp, &bytes);
  if (HasFatalFailure() || HasFailure()) return;
  cudalab::expect_speedup({"copyInt4Ilp4", "one load per thread (copyInt4) at 4 warps/SM", cmp,
                           cudalab::threshold("ilp4_speedup"), "ilp4_speedup", bytes});
}

TEST_F(LatencyHiding, FourLoadsInFlightReachMostOfCopyBandwidthAtLowOccupancy) {
  cudalab::Comparison cmp;
  double bytes = 0;
  measure(&cmp, &bytes);
  if (HasFatalFailure() || HasFailure()) return;
  if (!cmp.candidate.ok || !cmp.baseline.ok)
    GTEST_FAIL() << "copyInt4Ilp4: timing failed: " << (cmp.candidate.ok ? cmp.baseline.error : cmp.candidate.error);
  const double copy = cudalab::measured_copy_bandwidth_gbs();
  if (copy <= 0) GTEST_FAIL() << "could not measure the copy bandwidth (cudaMemcpy device to device)";
  const double gbs = cudalab::gbs(bytes, cmp.candidate.median_ms);
  const double pct = 100.0 * gbs / copy, need = cudalab::threshold("ilp4_pct_of_copy");
  const double base_pct = 100.0 * cudalab::gbs(bytes, cmp.baseline.median_ms) / copy;
  std::printf(
      "[ PERF     ] copyInt4Ilp4 at 4 warps/SM: %.3f ms (noise %.1f%%), %.0f GB/s = %.1f%% of measured copy "
      "bandwidth (%.0f GB/s), required >= %.0f%%; one load per thread: %.1f%%\n",
      cmp.candidate.median_ms, 100 * cmp.candidate.spread, gbs, pct, copy, need, base_pct);
  ::testing::Test::RecordProperty("pct_of_copy", std::to_string(pct));
  if (pct < need)
    ADD_FAILURE() << "copyInt4Ilp4 reaches " << pct << "% of the measured copy bandwidth (" << gbs << " of " << copy
                  << " GB/s) at 4 warps/SM, required >= " << need << "% (threshold 'ilp4_pct_of_copy' from "
                  << cudalab::threshold_source("ilp4_pct_of_copy") << ")";
}

}  // namespace
