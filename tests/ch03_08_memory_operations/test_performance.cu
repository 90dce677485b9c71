// ch03_08 performance: the coalesced kernel against the reference solution's sumMatrixCoalesced,
// compiled into the tests, side by side on the seeds' 16384 x 16384 floats (8192 x 8192 where
// three of those do not fit in the free memory; block (32,16) and (16,16)); where the reference
// cannot run, against the column-major kernel and against the same-structure stream baseline
// (cudalab/baselines.cuh) that moves the same bytes. The fraction of copy bandwidth is printed,
// not graded.
#include "baseline.cuh"
#include "matrix_check.cuh"
#include "matrix_timing.cuh"
#include "memory_operations.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"

#include <string>

namespace {

const dim3 kBlock(32, 16);  // the book's fastest shape in section 3.7
constexpr const char *kCoalescedSymbol = "_Z18sumMatrixCoalescedPKfS0_Pfii";

class CoalescingPerformance : public cudalab::GpuTest {
 protected:
  /// Checks sumMatrixCoalesced with `block` on the big matrix; "" when it is right.
  std::string check(BigMatrix &m, dim3 block = kBlock) {
    return m.check(
        "sumMatrixCoalesced",
        [&](const float *a, const float *b, float *c, int nx, int ny) {
          cudalab::launch(sumMatrixCoalesced, grid_for(nx, ny, block), block)(a, b, c, nx, ny);
        },
        "block=" + shape(block));
  }
  /// The timing of sumMatrixCoalesced with `block` on @p m: every sample gets a changed A and a
  /// poisoned C, and a random share of the samples is checked. Sampling stops once the ratio is
  /// clear of the threshold `key` the comparison is graded against.
  cudalab::TimingOptions options(BigMatrix &m, const char *key, dim3 block = kBlock) const {
    cudalab::TimingOptions opts;
    opts.reps = 21;  // 768 MiB or 3 GiB per run (timed_matrix_side()): several times any L2
    opts.stop_when_clear_of = cudalab::threshold(key);
    opts.check = m.sample_check("sumMatrixCoalesced", "block=" + shape(block));
    return opts;
  }
  /// Times sumMatrixCoalesced with `block` against the reference solution's sumMatrixCoalesced with
  /// the same launch (grid_for(nx, ny, block)), threshold `key`: about 1.0 for a correct kernel on
  /// any GPU. Returns false, after the [ INFO ] line, where the reference cannot run here: the test
  /// then grades against `baseline` as before. Returns true when it has graded (or failed) the test.
  /// The caller has checked the kernel with kBlock; another `block` is checked here first.
  bool keeps_up_with_the_reference(BigMatrix &m, dim3 block, const char *key, const char *baseline) {
    const int n = timed_matrix_side();
    const dim3 grid = grid_for(n, n, block);
    std::string why;
    const MatrixLaunch reference =
        reference_matrix_launch("sumMatrixCoalesced", sumMatrixCoalesced, kCoalescedSymbol, m, grid, block, &why);
    if (!reference) {
      if (const std::string f = cudalab::reference_fallback("sumMatrixCoalesced", baseline, why); !f.empty()) {
        ADD_FAILURE() << f;
        return true;
      }
      return false;
    }
    // Checked after the reference's trial (check() refills A and B and poisons C), and only here:
    // the fallback times block (32,16) alone, as before.
    if (block.x != kBlock.x || block.y != kBlock.y) {
      if (std::string error = check(m, block); !error.empty()) {
        ADD_FAILURE() << "sumMatrixCoalesced is not timed until it is correct: " << error;
        return true;
      }
    }
    cudalab::Comparison cmp = cudalab::compare_kernels(
        [&] { reference(m.A(), m.B(), m.C(), n, n); },
        [&] { cudalab::launch(sumMatrixCoalesced, grid, block)(m.A(), m.B(), m.C(), n, n); }, options(m, key, block));
    cudalab::expect_speedup({"sumMatrixCoalesced block " + shape(block),
                             "the reference solution's sumMatrixCoalesced block " + shape(block), cmp,
                             cudalab::threshold(key), key, m.bytes()});
    return true;
  }
};

TEST_F(CoalescingPerformance, CoalescedBeatsTheColumnMajorKernel) {
  const int n = timed_matrix_side();
  CUDALAB_REQUIRE_FREE_MEMORY(BigMatrix::bytes_for(n, n), timed_matrices(n));
  BigMatrix m;
  CUDALAB_ASSERT_OK(m.init(n, n, seed()));
  if (std::string error = check(m); !error.empty())
    GTEST_FAIL() << "sumMatrixCoalesced is not timed until it is correct: " << error;
  if (keeps_up_with_the_reference(m, kBlock, "coalesced_vs_reference", "the column-major kernel")) return;
  const dim3 grid = grid_for(n, n, kBlock), col_grid = grid_for_column_major(n, n, kBlock);
  cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { cudalab::launch(sumMatrixColumnMajorBaseline, col_grid, kBlock)(m.A(), m.B(), m.C(), n, n); },
      [&] { cudalab::launch(sumMatrixCoalesced, grid, kBlock)(m.A(), m.B(), m.C(), n, n); },
      options(m, "coalesced_vs_column_major"));
  cudalab::expect_speedup({"sumMatrixCoalesced block (32,16)", "sumMatrixColumnMajor block (32,16)", cmp,
                           cudalab::threshold("coalesced_vs_column_major"), "coalesced_vs_column_major", m.bytes()});
}

// Against the reference, sumMatrixCoalesced is timed a second time with 16-wide blocks, the book's
// "half wasted" shape on Fermi: the kernel keeps up at another launch shape too.
TEST_F(CoalescingPerformance, CoalescedKeepsUpWithTheStreamBaseline) {
  const int n = timed_matrix_side();
  CUDALAB_REQUIRE_FREE_MEMORY(BigMatrix::bytes_for(n, n), timed_matrices(n));
  BigMatrix m;
  CUDALAB_ASSERT_OK(m.init(n, n, seed()));
  if (std::string error = check(m); !error.empty())
    GTEST_FAIL() << "sumMatrixCoalesced is not timed until it is correct: " << error;
  if (keeps_up_with_the_reference(m, dim3(16, 16), "coalesced_vs_reference_block16x16", "the stream baseline")) return;
  const dim3 grid = grid_for(n, n, kBlock);
  cudalab::Comparison cmp =
      cudalab::compare_kernels([&] { m.stream_same_traffic(256); },
                               [&] { cudalab::launch(sumMatrixCoalesced, grid, kBlock)(m.A(), m.B(), m.C(), n, n); },
                               options(m, "coalesced_vs_stream"));
  cudalab::expect_speedup({"sumMatrixCoalesced block (32,16)",
                           "the stream baseline (C = A + B, flat 1D grid, one element per thread, the same bytes)", cmp,
                           cudalab::threshold("coalesced_vs_stream"), "coalesced_vs_stream", m.bytes()});
}

}  // namespace
