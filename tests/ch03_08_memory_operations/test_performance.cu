// ch03_08 performance: the coalesced kernel against the column-major one and against the
// same-structure stream baseline (cudalab/baselines.cuh) that moves the same bytes, side by side
// on the seeds' 16384 x 16384 floats; the fraction of copy bandwidth is printed, not graded.
#include "baseline.cuh"
#include "matrix_check.cuh"
#include "memory_operations.cuh"
#include "cudalab/testing.cuh"

namespace {

constexpr int kN = 1 << 14;
const dim3 kBlock(32, 16);  // the book's fastest shape in section 3.7

class CoalescingPerformance : public cudalab::GpuTest {
 protected:
  /// Checks sumMatrixCoalesced on the big matrix; "" when it is right.
  std::string check(BigMatrix &m) {
    return m.check(
        "sumMatrixCoalesced",
        [&](const float *a, const float *b, float *c, int nx, int ny) {
          sumMatrixCoalesced<<<grid_for(nx, ny, kBlock), kBlock>>>(a, b, c, nx, ny);
        },
        "block=" + shape(kBlock));
  }
  /// The timing of sumMatrixCoalesced on @p m: every sample gets a changed A and a poisoned C, and
  /// a random share of the samples is checked.
  cudalab::TimingOptions options(BigMatrix &m) const {
    cudalab::TimingOptions opts;
    opts.reps = 21;  // 3 GiB per run: nothing stays in L2 between runs
    opts.check = m.sample_check("sumMatrixCoalesced", "block=" + shape(kBlock));
    return opts;
  }
};

TEST_F(CoalescingPerformance, CoalescedBeatsTheColumnMajorKernel) {
  CUDALAB_REQUIRE_FREE_MEMORY(BigMatrix::bytes_for(kN, kN),
                              "the timed test's three 16384 x 16384 float matrices (1 GiB each)");
  BigMatrix m;
  CUDALAB_ASSERT_OK(m.init(kN, kN, seed()));
  if (std::string error = check(m); !error.empty())
    GTEST_FAIL() << "sumMatrixCoalesced is not timed until it is correct: " << error;
  const dim3 grid = grid_for(kN, kN, kBlock), col_grid = grid_for_column_major(kN, kN, kBlock);
  cudalab::Comparison cmp =
      cudalab::compare_kernels([&] { sumMatrixColumnMajorBaseline<<<col_grid, kBlock>>>(m.A(), m.B(), m.C(), kN, kN); },
                               [&] { sumMatrixCoalesced<<<grid, kBlock>>>(m.A(), m.B(), m.C(), kN, kN); }, options(m));
  cudalab::expect_speedup({"sumMatrixCoalesced block (32,16)", "sumMatrixColumnMajor block (32,16)", cmp,
                           cudalab::threshold("coalesced_vs_column_major"), "coalesced_vs_column_major", m.bytes()});
}

TEST_F(CoalescingPerformance, CoalescedKeepsUpWithTheStreamBaseline) {
  CUDALAB_REQUIRE_FREE_MEMORY(BigMatrix::bytes_for(kN, kN),
                              "the timed test's three 16384 x 16384 float matrices (1 GiB each)");
  BigMatrix m;
  CUDALAB_ASSERT_OK(m.init(kN, kN, seed()));
  if (std::string error = check(m); !error.empty())
    GTEST_FAIL() << "sumMatrixCoalesced is not timed until it is correct: " << error;
  const dim3 grid = grid_for(kN, kN, kBlock);
  cudalab::Comparison cmp =
      cudalab::compare_kernels([&] { m.stream_same_traffic(256); },
                               [&] { sumMatrixCoalesced<<<grid, kBlock>>>(m.A(), m.B(), m.C(), kN, kN); }, options(m));
  cudalab::expect_speedup({"sumMatrixCoalesced block (32,16)",
                           "the stream baseline (C = A + B, flat 1D grid, one element per thread, the same bytes)", cmp,
                           cudalab::threshold("coalesced_vs_stream"), "coalesced_vs_stream", m.bytes()});
}

}  // namespace
