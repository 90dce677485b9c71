// ch04_02 performance: the structure-of-arrays kernel against the handed-out array-of-structures
// kernel doing the same update, and against a plain kernel that moves the same bytes with the same
// loads and stores per thread, side by side. Every timed sample of testInnerArray gets a changed
// particle and a poisoned result, and the result of a random share of the samples is checked.
#include "layout_check.cuh"

#include "cudalab/testing.cuh"

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
};

TEST_F(LayoutPerformance, SoaBeatsAos) {
  BigParticles p;
  CUDALAB_ASSERT_OK(p.init(kN, seed()));
  if (std::string error = p.check(kBlock); !error.empty())
    GTEST_FAIL() << "testInnerArray is not timed until it is correct: " << error;
  const unsigned int grid = grid_1d(kN, kBlock);
  cudalab::TimingOptions opts = options();
  opts.check = p.sample_check(kBlock);
  cudalab::Comparison cmp =
      cudalab::compare_kernels([&] { testInnerStructBaseline<<<grid, kBlock>>>(p.aos_data(), p.aos_result(), kN); },
                               [&] { testInnerArray<<<grid, kBlock>>>(p.soa_data(), p.soa_result(), kN); }, opts);
  cudalab::expect_speedup({"testInnerArray (SoA) block 256", "testInnerStruct (AoS, 32-byte particles) block 256", cmp,
                           cudalab::threshold("soa_vs_aos"), "soa_vs_aos", p.bytes()});
}

// The same-structure baseline (soaStreamBaseline: x and y copied, one particle per thread, block
// 256) moves the same bytes with the same bytes in flight per thread, so the ratio does not depend
// on how close one particle per thread gets to cudaMemcpy on a given GPU. The fraction of the copy
// bandwidth is still printed.
TEST_F(LayoutPerformance, SoaKeepsUpWithAStreamingKernel) {
  BigParticles p;
  CUDALAB_ASSERT_OK(p.init(kN, seed()));
  if (std::string error = p.check(kBlock); !error.empty())
    GTEST_FAIL() << "testInnerArray is not timed until it is correct: " << error;
  const unsigned int grid = grid_1d(kN, kBlock);
  cudalab::TimingOptions opts = options();
  opts.check = p.sample_check(kBlock);
  cudalab::Comparison cmp =
      cudalab::compare_kernels([&] { p.stream_same_traffic(kBlock); },
                               [&] { testInnerArray<<<grid, kBlock>>>(p.soa_data(), p.soa_result(), kN); }, opts);
  cudalab::expect_speedup({"testInnerArray (SoA) block 256", "x, y copied by a plain kernel, one particle per thread",
                           cmp, cudalab::threshold("soa_vs_stream"), "soa_vs_stream", p.bytes()});
}

}  // namespace
