// ch04_01 performance: intensityKernel at low intensity against the reference solution's
// intensityKernel, compiled into the tests (or, where it cannot run, against a copy moving the same
// bytes) (graded), and the roofline's shape measured side by side (0 points: any correct kernel
// shows it). Every timed sample of the candidate gets a changed input element and a poisoned
// output, and the output of a random share of the samples is checked (BigIntensity::sample_check).
#include "intensity.cuh"
#include "intensity_check.cuh"

#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"

#include <string>

namespace {

constexpr unsigned kBlock = 256;
constexpr float kA = 0.75f, kB = 0.25f;  // x -> 0.75 x + 0.25 stays in [-1, 1]

class IntensityPerformance : public cudalab::GpuTest {};

// k = 1: 2 FLOPs per 8 bytes (0.25 FLOP/B), far below any GPU's ridge point: the kernel can only
// be as fast as memory. Timed against the reference solution's intensityKernel on the same GPU and
// data, launched as the lab launches it (<<<intensity_grid(n, 256), 256>>>): about 1.0 for a
// correct kernel on any GPU. Where the reference cannot run, the baseline is
// cudalab::launch_stream_baseline copying the same n floats (n read, n written) with the same
// structure: one element per thread, a flat grid of 256-thread blocks. A fraction of cudaMemcpy's
// bandwidth would depend on the GPU (Little's law: one element per thread keeps too few bytes in
// flight on a faster memory system; 0.80 of the copy on an H100, 0.62 on an H200), a ratio to
// either of these does not. The copy fraction is still printed.
TEST_F(IntensityPerformance, KeepsUpWithAStreamCopyAtK1) {
  const int n = 1 << 27;  // 512 MiB in, 512 MiB out
  BigIntensity big;
  CUDALAB_ASSERT_OK(big.init(n, seed()));
  if (std::string error = big.check(1, kA, kB, kBlock); !error.empty())
    GTEST_FAIL() << "intensityKernel is not timed until it is correct: " << error;
  using Kernel = cudalab::RefKernel<const float *, float *, int, int, float, float>;
  auto reference_launch = [&](const Kernel &k) {
    k.launch(intensity_grid(n, kBlock), kBlock, 0, nullptr, big.input(), big.output(), n, 1, kA, kB);
  };
  const Kernel reference =
      cudalab::checked_reference_kernel(intensityKernel, "_Z15intensityKernelPKfPfiiff", [&](const Kernel &k) {
        return big.check_launch(
            "the reference solution's intensityKernel", [&] { reference_launch(k); }, 1, kA, kB, kBlock);
      });
  cudalab::TimingOptions opts;
  opts.reps = 21;
  opts.check = big.sample_check(1, kA, kB, kBlock);
  const char *name = "intensityKernel k=1 (n=2^27, block 256)";
  if (reference) {
    opts.stop_when_clear_of = cudalab::threshold("k1_vs_reference");  // sampling stops once clear of it
    cudalab::Comparison cmp =
        cudalab::compare_kernels([&] { reference_launch(reference); }, [&] { big.launch(1, kA, kB, kBlock); }, opts);
    cudalab::expect_speedup({name, "the reference solution's intensityKernel", cmp,
                             cudalab::threshold("k1_vs_reference"), "k1_vs_reference", big.bytes()});
    return;
  }
  if (const std::string f =
          cudalab::reference_fallback("intensityKernel", "a same-structure stream copy", reference.why_not());
      !f.empty())
    GTEST_FAIL() << f;
  opts.stop_when_clear_of = cudalab::threshold("k1_vs_stream");
  cudalab::Comparison cmp = cudalab::compare_kernels([&] { big.stream_copy_same_bytes(kBlock); },
                                                     [&] { big.launch(1, kA, kB, kBlock); }, opts);
  cudalab::expect_speedup({name, "a one-element-per-thread copy of the same floats (cudalab::launch_stream_baseline)",
                           cmp, cudalab::threshold("k1_vs_stream"), "k1_vs_stream", big.bytes()});
}

class RooflineShape : public cudalab::GpuTest {
 protected:
  static constexpr int kN = 1 << 26;  // 256 MiB in, 256 MiB out: far larger than any L2
  /// Checks intensityKernel at both k, then times k_base (baseline) and k_cand (candidate) side by
  /// side; passes when t(k_base) / t(k_cand) >= the threshold @p key.
  void compare(int k_base, int k_cand, const char *key) {
    BigIntensity big;
    CUDALAB_ASSERT_OK(big.init(kN, seed()));
    for (int k : {k_base, k_cand}) {
      if (std::string error = big.check(k, kA, kB, kBlock); !error.empty())
        GTEST_FAIL() << "intensityKernel is not timed until it is correct: " << error;
    }
    cudalab::TimingOptions opts;
    opts.reps = 21;
    opts.check = big.sample_check(k_cand, kA, kB, kBlock);
    opts.stop_when_clear_of = cudalab::threshold(key);  // sampling stops once clear of it
    cudalab::Comparison cmp = cudalab::compare_kernels([&] { big.launch(k_base, kA, kB, kBlock); },
                                                       [&] { big.launch(k_cand, kA, kB, kBlock); }, opts);
    for (const auto &[k, t] : {std::make_pair(k_base, cmp.baseline), std::make_pair(k_cand, cmp.candidate)})
      std::printf("[ ROOFLINE ] k=%4d (%.2f FLOP/B): %.3f ms, %.0f GFLOP/s, %.0f GB/s\n", k, intensity_of(k),
                  t.median_ms, 2.0 * k * kN / (t.median_ms * 1e6), cudalab::gbs(big.bytes(), t.median_ms));
    cudalab::expect_speedup({"intensityKernel k=" + std::to_string(k_cand),
                             "intensityKernel k=" + std::to_string(k_base), cmp, cudalab::threshold(key), key, 0.0});
  }
};

// Below the ridge (k = 1, 2: 0.25 and 0.5 FLOP/B): twice the FLOPs per byte cost (almost) nothing,
// memory sets the time. t(1) / t(2) must stay near 1.
TEST_F(RooflineShape, DoublingTheFlopsIsFreeBelowTheRidge) { compare(1, 2, "roofline_k1_over_k2"); }

// Far above the ridge (k = 1024, 2048: 256 and 512 FLOP/B): the arithmetic sets the time, so twice
// the FLOPs take about twice as long: t(2048) / t(1024) near 2.
TEST_F(RooflineShape, DoublingTheFlopsDoublesTheTimeAboveTheRidge) { compare(2048, 1024, "roofline_k2048_over_k1024"); }

}  // namespace
