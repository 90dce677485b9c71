// ch03_07 performance: transparent scalability measured (the same work on a quarter, half and all
// of the GPU's resident blocks), and both kernels against the reference solution's kernel of the
// same name, compiled into the tests (or, where it cannot run, against the same-structure stream
// baseline of cudalab/baselines.cuh that moves the same bytes); the fraction of copy bandwidth is
// printed.
#include "matrix_check.cuh"
#include "matrix_timing.cuh"
#include "sum_matrix.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"

#include <cstdio>
#include <string>

namespace {

constexpr const char *kSum2DSymbol = "_Z16sumMatrixOnGPU2DPKfS0_Pfii";
constexpr const char *kGridStrideSymbol = "_Z19sumMatrixGridStridePKfS0_Pfii";

cudalab::TimingOptions options() {
  cudalab::TimingOptions opts;
  opts.reps = 21;  // 768 MiB or 3 GiB per run (timed_matrix_side()): several times any L2
  return opts;
}

class ScalabilityPerformance : public cudalab::GpuTest {
 protected:
  /// Blocks of `block` that fit on one SM at once (the occupancy API, on your kernel).
  int resident_blocks_per_sm(dim3 block) {
    int k = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, sumMatrixGridStride, block.x * block.y, 0);
    return k > 0 ? k : 1;
  }

  /// Times sumMatrixGridStride on as many blocks as `fraction` of the SMs hold against a quarter.
  void more_sms_beat_a_quarter(double fraction, const char *what, const char *key) {
    const int n = timed_matrix_side();
    CUDALAB_REQUIRE_FREE_MEMORY(BigMatrix::bytes_for(n, n), timed_matrices(n));
    BigMatrix m;
    CUDALAB_ASSERT_OK(m.init(n, n, seed()));
    const dim3 block(256, 1);
    const int k = resident_blocks_per_sm(block), sms = device().sm_count;
    const dim3 quarter = grid_with_blocks(n, n, block, unsigned(k * sms / 4));
    const dim3 more = grid_with_blocks(n, n, block, unsigned(k * sms * fraction));
    for (dim3 g : {quarter, more}) {
      const std::string error = m.check(
          "sumMatrixGridStride",
          [&](const float *a, const float *b, float *c, int nx, int ny) {
            cudalab::launch(sumMatrixGridStride, g, block)(a, b, c, nx, ny);
          },
          "grid=" + shape(g) + " block=" + shape(block));
      if (!error.empty()) GTEST_FAIL() << "sumMatrixGridStride is not timed until it is correct: " << error;
    }
    std::printf("[ CUDALAB  ] %d SMs x %d resident blocks of %u threads: quarter grid %s, %s grid %s\n", sms, k,
                block.x * block.y, shape(quarter).c_str(), what, shape(more).c_str());
    // Every sample of the graded launch gets a changed A and a poisoned C; a random share is checked.
    cudalab::TimingOptions opts = options();
    opts.check = m.sample_check("sumMatrixGridStride", "grid=" + shape(more) + " block=" + shape(block));
    opts.stop_when_clear_of = cudalab::threshold(key);  // sampling stops once clear of it
    cudalab::Comparison cmp = cudalab::compare_kernels(
        [&] { cudalab::launch(sumMatrixGridStride, quarter, block)(m.A(), m.B(), m.C(), n, n); },
        [&] { cudalab::launch(sumMatrixGridStride, more, block)(m.A(), m.B(), m.C(), n, n); }, opts);
    cudalab::expect_speedup({std::string("sumMatrixGridStride on ") + what,
                             "the same kernel on a quarter of the GPU's resident blocks", cmp, cudalab::threshold(key),
                             key, m.bytes()});
  }

  /// Blocks of `block` of the reference solution's sumMatrixGridStride that fit on one SM at once
  /// (the occupancy API, on the reference kernel: its "full GPU" does not depend on yours); 0,
  /// with the reason in `why`, where the reference cannot run here.
  int reference_resident_blocks_per_sm(dim3 block, std::string *why) {
    const auto kernel = cudalab::reference_kernel(sumMatrixGridStride, kGridStrideSymbol);
    *why = kernel.why_not();
    if (!kernel) return 0;
    int k = 0;
    const cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, kernel.handle(), block.x * block.y, 0);
    if (err != cudaSuccess || k < 1) {
      *why = std::string("the occupancy of the reference sumMatrixGridStride cannot be queried: ") +
             (err != cudaSuccess ? cudaGetErrorName(err) : "no block fits");
      (void)cudaGetLastError();
      return 0;
    }
    return k;
  }

  /// Times one launch of the student's kernel `name` (`launch`: `grid` x `block`) against the
  /// reference solution's kernel of that name (`decl`, symbol `mangled`) launched with `ref_grid`
  /// and `block`: about 1.0 for a correct kernel on any GPU, threshold `reference_key`. Where the
  /// reference cannot run (`why_not` already says why, or its trial run fails), against the
  /// same-structure stream baseline (cudalab/baselines.cuh: C = A + B on a flat 1D grid, one
  /// element per thread, the same bytes), threshold `baseline_key`, as before. The bandwidth, and
  /// with it the fraction of a cudaMemcpy's, is still printed.
  void keeps_up(const char *name, MatrixKernel decl, const char *mangled, dim3 grid, dim3 ref_grid, dim3 block,
                const MatrixLaunch &launch, const char *reference_key, const char *baseline_key,
                std::string why_not = "") {
    const int n = timed_matrix_side();
    CUDALAB_REQUIRE_FREE_MEMORY(BigMatrix::bytes_for(n, n), timed_matrices(n));
    BigMatrix m;
    CUDALAB_ASSERT_OK(m.init(n, n, seed()));
    const std::string error = m.check(name, launch, "grid=" + shape(grid) + " block=" + shape(block));
    if (!error.empty()) GTEST_FAIL() << name << " is not timed until it is correct: " << error;
    MatrixLaunch reference;
    if (why_not.empty()) reference = reference_matrix_launch(name, decl, mangled, m, ref_grid, block, &why_not);
    // Every sample of the kernel gets a changed A and a poisoned C; a random share is checked.
    cudalab::TimingOptions opts = options();
    opts.check = m.sample_check(name, "grid=" + shape(grid) + " block=" + shape(block));
    const std::string candidate = std::string(name) + " grid " + shape(grid) + " block " + shape(block);
    if (reference) {
      opts.stop_when_clear_of = cudalab::threshold(reference_key);  // sampling stops once clear of it
      cudalab::Comparison cmp = cudalab::compare_kernels([&] { reference(m.A(), m.B(), m.C(), n, n); },
                                                         [&] { launch(m.A(), m.B(), m.C(), n, n); }, opts);
      cudalab::expect_speedup(
          {candidate,
           std::string("the reference solution's ") + name + " grid " + shape(ref_grid) + " block " + shape(block), cmp,
           cudalab::threshold(reference_key), reference_key, m.bytes()});
      return;
    }
    if (const std::string f = cudalab::reference_fallback(name, "the stream baseline", why_not); !f.empty())
      GTEST_FAIL() << f;
    opts.stop_when_clear_of = cudalab::threshold(baseline_key);
    cudalab::Comparison cmp =
        cudalab::compare_kernels([&] { m.stream_same_traffic(256); }, [&] { launch(m.A(), m.B(), m.C(), n, n); }, opts);
    cudalab::expect_speedup({candidate,
                             "the stream baseline (C = A + B, flat 1D grid of 256-thread blocks, one element per "
                             "thread)",
                             cmp, cudalab::threshold(baseline_key), baseline_key, m.bytes()});
  }
};

TEST_F(ScalabilityPerformance, HalfTheGpuIsFasterThanAQuarter) {
  more_sms_beat_a_quarter(0.5, "half of the GPU", "half_vs_quarter");
}

TEST_F(ScalabilityPerformance, WholeGpuIsFasterThanAQuarter) {
  more_sms_beat_a_quarter(1.0, "the whole GPU", "all_vs_quarter");
}

TEST_F(ScalabilityPerformance, SumMatrix2DKeepsUpWithTheStreamBaseline) {
  const int n = timed_matrix_side();
  const dim3 block(32, 16), grid = grid_for(n, n, block);
  keeps_up(
      "sumMatrixOnGPU2D", sumMatrixOnGPU2D, kSum2DSymbol, grid, grid, block,
      [&](const float *a, const float *b, float *c, int nx, int ny) {
        cudalab::launch(sumMatrixOnGPU2D, grid, block)(a, b, c, nx, ny);
      },
      "sum2d_vs_reference", "sum2d_vs_stream");
}

// "A full GPU" is k resident blocks per SM on every SM, k from the occupancy of the kernel that
// runs: yours for your launch, the reference's for the reference's (the same k unless your kernel
// needs more registers per thread).
TEST_F(ScalabilityPerformance, GridStrideOnAFullGpuKeepsUpWithTheStreamBaseline) {
  const int n = timed_matrix_side();
  const dim3 block(256, 1);
  const dim3 grid = grid_with_blocks(n, n, block, unsigned(resident_blocks_per_sm(block) * device().sm_count));
  std::string why;
  const int k_ref = reference_resident_blocks_per_sm(block, &why);
  const dim3 ref_grid = k_ref > 0 ? grid_with_blocks(n, n, block, unsigned(k_ref * device().sm_count)) : grid;
  keeps_up(
      "sumMatrixGridStride", sumMatrixGridStride, kGridStrideSymbol, grid, ref_grid, block,
      [&](const float *a, const float *b, float *c, int nx, int ny) {
        cudalab::launch(sumMatrixGridStride, grid, block)(a, b, c, nx, ny);
      },
      "gridstride_vs_reference", "gridstride_vs_stream", why);
}

}  // namespace
