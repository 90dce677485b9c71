// ch03_04 performance: at an occupancy pinned low (one 128-thread block = 4 warps per SM, held
// there by dynamic shared memory), four independent loads per thread against one load per thread
// at the same 4 warps per SM, and against one load per thread at 16 warps per SM: the same bytes
// in flight, which by Little's law should move the same bandwidth on any GPU.
#include "latency.cuh"
#include "latency_check.cuh"
#include "cudalab/testing.cuh"

#include <cstdio>
#include <cstring>

namespace {

class LatencyHiding : public cudalab::GpuTest {
 protected:
  static constexpr unsigned int kBlock = 128;  // 4 warps
  static constexpr int kBlocksPerSm = 1;       // -> 4 of the SM's warp slots

  /// Pins the candidate to kBlocksPerSm blocks per SM and the one-load baseline to
  /// @p base_blocks_per_sm, checks the candidate on the same launch, then times baseline and
  /// candidate side by side on 256 MB (2^24 + 3 int4).
  void measure(cudalab::Comparison *cmp, double *bytes, int base_blocks_per_sm = kBlocksPerSm) {
    const std::size_t n = (std::size_t(1) << 24) + 3;
    const unsigned int grid = unsigned(device().sm_count) * kBlocksPerSm;
    const unsigned int grid_base = unsigned(device().sm_count) * base_blocks_per_sm;
    std::size_t dyn = 0, dyn_base = 0;
    CUDALAB_ASSERT_OK(pin_blocks_per_sm((const void *)copyInt4Ilp4, kBlock, kBlocksPerSm, &dyn));
    CUDALAB_ASSERT_OK(pin_blocks_per_sm((const void *)copyInt4Baseline, kBlock, base_blocks_per_sm, &dyn_base));
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
    // Every sample of copyInt4Ilp4 copies a changed input into a poisoned output; a random share of
    // the samples has its whole output checked.
    const std::string ctx = cudalab::context({{"n", (long long)n},
                                              {"grid", grid},
                                              {"block", kBlock},
                                              {"dyn_smem", (long long)dyn},
                                              {"seed", (long long)seed()}});
    opts.check = copy_sample_check("copyInt4Ilp4", std::move(input), in_.get(), out_.get(), ctx, seed());
    *cmp =
        cudalab::compare_kernels([&] { copyInt4Baseline<<<grid_base, kBlock, dyn_base>>>(in_.get(), out_.get(), n); },
                                 [&] { copyInt4Ilp4<<<grid, kBlock, dyn>>>(in_.get(), out_.get(), n); }, opts);
    *bytes = 2.0 * double(n) * sizeof(int4);  // read + written
    std::printf(
        "[ CUDALAB  ] occupancy pinned: copyInt4Ilp4 %d block(s) of %u threads per SM (%zu B dynamic shared "
        "memory), grid %u; one-load baseline %d block(s) per SM, grid %u\n",
        kBlocksPerSm, kBlock, dyn, grid, base_blocks_per_sm, grid_base);
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

// Little's law: bytes in flight = warps x loads per thread x 16 B. Four loads at 4 warps per SM
// keep as many bytes in flight as one load at 16 warps per SM, so they should move about the same
// bandwidth on any GPU. (A fraction of cudaMemcpy bandwidth cannot be required here: at 4 warps
// per SM, 132 SMs x 4 warps x 32 x 64 B = 1.1 MB in flight nearly covers an H100's ~1 MB
// bandwidth-latency product but not an H200's ~1.4 MB. The fraction is still printed.)
TEST_F(LatencyHiding, FourLoadsAtFourWarpsMatchOneLoadAtSixteenWarps) {
  cudalab::Comparison cmp;
  double bytes = 0;
  measure(&cmp, &bytes, 4 * kBlocksPerSm);
  if (HasFatalFailure() || HasFailure()) return;
  cudalab::expect_speedup({"copyInt4Ilp4 at 4 warps/SM", "one load per thread (copyInt4) at 16 warps/SM", cmp,
                           cudalab::threshold("ilp4_vs_tlp16"), "ilp4_vs_tlp16", bytes});
}

}  // namespace
