// ch03_04 performance: at an occupancy pinned low (one 128-thread block = 4 warps per SM, held
// there by dynamic shared memory), copyInt4Ilp4 side by side with the reference solution's
// copyInt4Ilp4 (compiled into the tests) at the very same pinned occupancy; where the reference
// cannot run, against one load per thread at the same 4 warps per SM, as the lesson measures it.
// And four loads at 4 warps per SM against one load per thread at 16 warps per SM: the same bytes
// in flight, which by Little's law should move the same bandwidth on any GPU.
#include "latency.cuh"
#include "latency_check.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

namespace {

class LatencyHiding : public cudalab::GpuTest {
 protected:
  static constexpr unsigned int kBlock = 128;                    // 4 warps
  static constexpr int kBlocksPerSm = 1;                         // -> 4 of the SM's warp slots
  static constexpr std::size_t kN = (std::size_t(1) << 24) + 3;  // int4: 256 MB

  /// What copyInt4Ilp4 is timed against: its launch on (in, out, n), and how it is pinned (for the
  /// occupancy line).
  struct Other {
    std::function<void(const int4 *, int4 *, std::size_t)> launch;
    std::string pinned;
  };

  /// The one-load baseline (copyInt4Baseline, compiled into the tests) pinned to
  /// @p blocks_per_sm blocks of kBlock threads per SM, into @p other.
  void one_load(int blocks_per_sm, Other *other) {
    std::size_t dyn = 0;
    CUDALAB_ASSERT_OK(pin_blocks_per_sm((const void *)copyInt4Baseline, kBlock, blocks_per_sm, &dyn));
    const unsigned int grid = unsigned(device().sm_count) * blocks_per_sm;
    other->launch = [grid, dyn](const int4 *in, int4 *out, std::size_t n) {
      cudalab::launch(copyInt4Baseline, grid, kBlock, dyn)(in, out, n);
    };
    other->pinned =
        "one-load baseline " + std::to_string(blocks_per_sm) + " block(s) per SM, grid " + std::to_string(grid);
  }

  /// The reference solution's copyInt4Ilp4 (compiled into the tests) pinned exactly as yours is:
  /// kBlocksPerSm blocks of kBlock threads per SM, by pin_blocks_per_sm() on its own handle (its
  /// dynamic shared memory, checked with the occupancy calculator), grid = SMs x kBlocksPerSm;
  /// then one run of that launch on the timed size, checked like yours. Leaves @p other empty, with
  /// the reason in @p why, where it cannot run here.
  void reference(Other *other, std::string *why) {
    const char *const symbol = "_Z12copyInt4Ilp4PK4int4PS_m";
    const auto loaded = cudalab::reference_kernel(copyInt4Ilp4, symbol);
    *why = loaded.why_not();
    if (!loaded) return;
    const void *handle = loaded.handle();
    std::size_t dyn = 0;
    if (const cudaError_t err = pin_blocks_per_sm(handle, kBlock, kBlocksPerSm, &dyn); err != cudaSuccess) {
      (void)cudaGetLastError();
      *why =
          std::string("its occupancy cannot be pinned as yours is (pin_blocks_per_sm: ") + cudaGetErrorName(err) + ")";
      return;
    }
    const unsigned int grid = unsigned(device().sm_count) * kBlocksPerSm;
    using Kernel = cudalab::RefKernel<const int4 *, int4 *, std::size_t>;
    const Kernel kernel = cudalab::checked_reference_kernel(copyInt4Ilp4, symbol, [&](const Kernel &k) {
      return copy_error(
          "the reference solution's copyInt4Ilp4",
          [&](const int4 *in, int4 *out, std::size_t n) { return k.launch(grid, kBlock, dyn, nullptr, in, out, n); },
          kN, grid, kBlock, dyn, seed());
    });
    *why = kernel.why_not();
    if (!kernel) return;
    other->launch = [kernel, grid, dyn](const int4 *in, int4 *out, std::size_t n) {
      kernel.launch(grid, kBlock, dyn, nullptr, in, out, n);
    };
    other->pinned = "the reference solution's copyInt4Ilp4 " + std::to_string(kBlocksPerSm) + " block(s) per SM (" +
                    std::to_string(dyn) + " B dynamic shared memory), grid " + std::to_string(grid);
  }

  /// Pins copyInt4Ilp4 to kBlocksPerSm blocks per SM, checks it on that launch, then times
  /// @p other and it side by side on 256 MB (2^24 + 3 int4), until clear of the threshold @p key.
  void measure(const Other &other, const char *key, cudalab::Comparison *cmp, double *bytes) {
    const std::size_t n = kN;
    const unsigned int grid = unsigned(device().sm_count) * kBlocksPerSm;
    std::size_t dyn = 0;
    CUDALAB_ASSERT_OK(pin_blocks_per_sm((const void *)copyInt4Ilp4, kBlock, kBlocksPerSm, &dyn));
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
    // Sampling stops once every pair is clear of the threshold the caller grades against.
    opts.stop_when_clear_of = cudalab::threshold(key);
    // Every sample of copyInt4Ilp4 copies a changed input into a poisoned output; a random share of
    // the samples has its whole output checked.
    const std::string ctx = cudalab::context({{"n", (long long)n},
                                              {"grid", grid},
                                              {"block", kBlock},
                                              {"dyn_smem", (long long)dyn},
                                              {"seed", (long long)seed()}});
    opts.check = copy_sample_check("copyInt4Ilp4", std::move(input), in_.get(), out_.get(), ctx, seed());
    *cmp = cudalab::compare_kernels([&] { other.launch(in_.get(), out_.get(), n); },
                                    [&] { cudalab::launch(copyInt4Ilp4, grid, kBlock, dyn)(in_.get(), out_.get(), n); },
                                    opts);
    *bytes = 2.0 * double(n) * sizeof(int4);  // read + written
    std::printf(
        "[ CUDALAB  ] occupancy pinned: copyInt4Ilp4 %d block(s) of %u threads per SM (%zu B dynamic shared "
        "memory), grid %u; %s\n",
        kBlocksPerSm, kBlock, dyn, grid, other.pinned.c_str());
  }
  cudalab::DeviceBuffer<int4> in_, out_;
};

TEST_F(LatencyHiding, FourLoadsInFlightBeatOneAtLowOccupancy) {
  const char *const one_load_name = "one load per thread (copyInt4) at 4 warps/SM";
  Other other;
  std::string why;
  reference(&other, &why);
  const bool against_reference = static_cast<bool>(other.launch);
  if (!against_reference) {
    if (const std::string f = cudalab::reference_fallback("copyInt4Ilp4", one_load_name, why); !f.empty())
      GTEST_FAIL() << f;
    one_load(kBlocksPerSm, &other);
    if (HasFatalFailure() || IsSkipped()) return;
  }
  cudalab::Comparison cmp;
  double bytes = 0;
  measure(other, against_reference ? "ilp4_vs_reference" : "ilp4_speedup", &cmp, &bytes);
  if (HasFatalFailure() || HasFailure() || IsSkipped()) return;
  if (!against_reference) {
    cudalab::expect_speedup(
        {"copyInt4Ilp4", one_load_name, cmp, cudalab::threshold("ilp4_speedup"), "ilp4_speedup", bytes});
    return;
  }
  cudalab::expect_speedup({"copyInt4Ilp4", "the reference solution's copyInt4Ilp4 at 4 warps/SM", cmp,
                           cudalab::threshold("ilp4_vs_reference"), "ilp4_vs_reference", bytes});
  // The lesson's figure, not graded here: the one-load copy at the same 4 warps per SM, timed alone.
  Other base;
  one_load(kBlocksPerSm, &base);
  if (HasFatalFailure() || IsSkipped()) return;
  cudalab::TimingOptions alone;
  alone.reps = 31;
  const cudalab::TimingStats t = cudalab::time_kernel([&] { base.launch(in_.get(), out_.get(), kN); }, alone);
  if (t.ok && cmp.candidate.ok && cmp.candidate.median_ms > 0)
    std::printf("[ CUDALAB  ] the lesson: %s takes %.3f ms, your copyInt4Ilp4 %.3f ms: %.2fx faster (not graded)\n",
                one_load_name, t.median_ms, cmp.candidate.median_ms, t.median_ms / cmp.candidate.median_ms);
}

// Little's law: bytes in flight = warps x loads per thread x 16 B. Four loads at 4 warps per SM
// keep as many bytes in flight as one load at 16 warps per SM, so they should move about the same
// bandwidth on any GPU. (A fraction of cudaMemcpy bandwidth cannot be required here: at 4 warps
// per SM, 132 SMs x 4 warps x 32 x 64 B = 1.1 MB in flight nearly covers an H100's ~1 MB
// bandwidth-latency product but not an H200's ~1.4 MB. The fraction is still printed.)
TEST_F(LatencyHiding, FourLoadsAtFourWarpsMatchOneLoadAtSixteenWarps) {
  Other other;
  one_load(4 * kBlocksPerSm, &other);
  if (HasFatalFailure() || IsSkipped()) return;
  cudalab::Comparison cmp;
  double bytes = 0;
  measure(other, "ilp4_vs_tlp16", &cmp, &bytes);
  if (HasFatalFailure() || HasFailure() || IsSkipped()) return;
  cudalab::expect_speedup({"copyInt4Ilp4 at 4 warps/SM", "one load per thread (copyInt4) at 16 warps/SM", cmp,
                           cudalab::threshold("ilp4_vs_tlp16"), "ilp4_vs_tlp16", bytes});
}

}  // namespace
