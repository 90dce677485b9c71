// ch04_02 performance: the structure-of-arrays kernel against the handed-out array-of-structures
// kernel doing the same update (the lesson), and against the reference solution's testInnerArray,
// compiled into the tests, side by side; where the reference cannot run, against a plain kernel
// that moves the same bytes with the same loads and stores per thread. Every timed sample of
// testInnerArray gets a changed particle and a poisoned result, and the result of a random share of
// the samples is checked.
#include "layout_check.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"

#include <functional>
#include <string>

namespace {

constexpr int kN = 1 << 25;           // 32 Mi particles: 1 GiB per AoS array, 512 MiB moved per SoA pass
constexpr unsigned int kBlock = 256;  // both kernels

class LayoutPerformance : public cudalab::GpuTest {
 protected:
  cudalab::TimingOptions options() const {
    cudalab::TimingOptions opts;
    opts.reps = 21;  // every pass moves >= 512 MiB: nothing stays in the 50 MB L2 between runs
    return opts;
  }

  /// Checks testInnerArray on 2^25 particles (block 256), then times it against the reference
  /// solution's testInnerArray, launched as the lab launches it (<<<grid_1d(n, 256), 256>>>) on the
  /// same particles after one checked run: about 1.0 for a correct kernel on any GPU, threshold
  /// @p reference_key. Where the reference cannot run, or with no @p reference_key, against
  /// @p baseline (named @p baseline_name) with threshold @p baseline_key.
  void keeps_up(const char *reference_key, const std::string &baseline_name,
                const std::function<void(const BigParticles &)> &baseline, const char *baseline_key) {
    BigParticles p;
    CUDALAB_ASSERT_OK(p.init(kN, seed()));
    if (std::string error = p.check(kBlock); !error.empty())
      GTEST_FAIL() << "testInnerArray is not timed until it is correct: " << error;
    const unsigned int grid = grid_1d(kN, kBlock);
    using Kernel = cudalab::RefKernel<innerArray, innerArray, int>;
    auto reference_launch = [&](const Kernel &k) {
      k.launch(grid, kBlock, 0, nullptr, p.soa_data(), p.soa_result(), kN);
    };
    const Kernel reference =
        reference_key == nullptr
            ? Kernel()
            : cudalab::checked_reference_kernel(
                  testInnerArray, "_Z14testInnerArray10innerArrayS_i", [&](const Kernel &k) {
                    return p.check_launch(
                        "the reference solution's testInnerArray", [&] { reference_launch(k); }, kBlock);
                  });
    cudalab::TimingOptions opts = options();
    opts.check = p.sample_check(kBlock);
    auto candidate = [&] { cudalab::launch(testInnerArray, grid, kBlock)(p.soa_data(), p.soa_result(), kN); };
    if (reference) {
      opts.stop_when_clear_of = cudalab::threshold(reference_key);  // sampling stops once clear of it
      cudalab::Comparison cmp = cudalab::compare_kernels([&] { reference_launch(reference); }, candidate, opts);
      cudalab::expect_speedup({"testInnerArray (SoA) block 256", "the reference solution's testInnerArray", cmp,
                               cudalab::threshold(reference_key), reference_key, p.bytes()});
      return;
    }
    if (reference_key != nullptr)
      if (const std::string f = cudalab::reference_fallback("testInnerArray", baseline_name, reference.why_not());
          !f.empty())
        GTEST_FAIL() << f;
    opts.stop_when_clear_of = cudalab::threshold(baseline_key);
    cudalab::Comparison cmp = cudalab::compare_kernels([&] { baseline(p); }, candidate, opts);
    cudalab::expect_speedup({"testInnerArray (SoA) block 256", baseline_name, cmp, cudalab::threshold(baseline_key),
                             baseline_key, p.bytes()});
  }
};

// The lesson, on every GPU: against the handed-out AoS kernel (testInnerStructBaseline), which reads
// a 32-byte sector per particle for 8 useful bytes (5.4-5.9x on an H100 and H200; threshold 2.5).
TEST_F(LayoutPerformance, SoaBeatsAos) {
  keeps_up(
      nullptr, "testInnerStruct (AoS, 32-byte particles) block 256",
      [](const BigParticles &p) {
        cudalab::launch(testInnerStructBaseline, grid_1d(p.n(), kBlock), kBlock)(p.aos_data(), p.aos_result(), p.n());
      },
      "soa_vs_aos");
}

// Against the reference's testInnerArray where it can run; otherwise against the same-structure baseline
// (soaStreamBaseline: x and y copied, one particle per thread, block 256), which moves the same bytes with the same
// bytes in flight per thread, so the ratio does not depend on how close one particle per thread gets to cudaMemcpy on a
// given GPU. The fraction of the copy bandwidth is still printed.
TEST_F(LayoutPerformance, SoaKeepsUpWithAStreamingKernel) {
  keeps_up(
      "soa_vs_reference", "x, y copied by a plain kernel, one particle per thread",
      [](const BigParticles &p) { p.stream_same_traffic(kBlock); }, "soa_vs_stream");
}

}  // namespace
