// ch04_02 performance: the structure-of-arrays kernel against the handed-out array-of-structures
// kernel doing the same update, and against a copy that moves the same bytes, side by side.
#include "layout_check.cuh"

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
  cudalab::Comparison cmp =
      cudalab::compare_kernels([&] { testInnerStructBaseline<<<grid, kBlock>>>(p.aos_data(), p.aos_result(), kN); },
                               [&] { testInnerArray<<<grid, kBlock>>>(p.soa_data(), p.soa_result(), kN); }, options());
  cudalab::expect_speedup({"testInnerArray (SoA) block 256", "testInnerStruct (AoS, 32-byte particles) block 256", cmp,
                           cudalab::threshold("soa_vs_aos"), "soa_vs_aos", p.bytes()});
}

TEST_F(LayoutPerformance, SoaReachesCopyBandwidth) {
  BigParticles p;
  CUDALAB_ASSERT_OK(p.init(kN, seed()));
  if (std::string error = p.check(kBlock); !error.empty())
    GTEST_FAIL() << "testInnerArray is not timed until it is correct: " << error;
  const unsigned int grid = grid_1d(kN, kBlock);
  cudalab::Comparison cmp =
      cudalab::compare_kernels([&] { p.copy_same_traffic(); },
                               [&] { testInnerArray<<<grid, kBlock>>>(p.soa_data(), p.soa_result(), kN); }, options());
  cudalab::expect_speedup({"testInnerArray (SoA) block 256", "cudaMemcpy of the same bytes", cmp,
                           cudalab::threshold("soa_vs_copy"), "soa_vs_copy", p.bytes()});
}

}  // namespace
