// ch03_09 performance: the block-shape sweep. The heuristic's pick must run within a margin of
// the fastest shape this run measures (timed with the test's own kernel), and your kernel at its
// best shape must keep up with the reference solution's sumMatrixOnGPU2D at that shape, compiled
// into the tests (where it cannot run: with the same-structure stream baseline of
// cudalab/baselines.cuh; the fraction of copy bandwidth is printed) -- each measured side by side
// in one process.
#include "matrix_check.cuh"
#include "matrix_timing.cuh"
#include "shapes.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"

#include <cstdio>
#include <string>

namespace {

/// A sweep's matrix: nx x ny floats, or small_nx x small_ny where three of the first do not fit in
/// the free GPU memory (with 256 MiB to spare), so that a GPU with 3.5 GiB free grades every shape.
struct Matrix {
  const char *name;
  int nx, ny;
  int small_nx, small_ny;
};

/// Sweeps every valid candidate shape with @p kernel; returns the fastest (median of 7 runs).
dim3 fastest_shape(const LaunchLimits &l, BigMatrix &m, void (*kernel)(const float *, const float *, float *, int, int),
                   std::string *table) {
  dim3 best(0, 0);
  double best_ms = 1e30;
  cudalab::TimingOptions quick;
  quick.warmup = 2;
  quick.reps = 7;
  char line[160];
  for (dim3 b : candidate_shapes()) {
    if (!invalid_reason(l, m.nx(), m.ny(), b).empty()) continue;
    const dim3 g = grid_for(m.nx(), m.ny(), b);
    cudalab::TimingStats t =
        cudalab::time_kernel([&] { cudalab::launch(kernel, g, b)(m.A(), m.B(), m.C(), m.nx(), m.ny()); }, quick);
    if (!t.ok) continue;
    std::snprintf(line, sizeof line, "[ CUDALAB  ]   block (%4u,%2u): %8.3f ms %6.0f GB/s\n", b.x, b.y, t.median_ms,
                  cudalab::gbs(m.bytes(), t.median_ms));
    *table += line;
    if (t.median_ms < best_ms) best_ms = t.median_ms, best = b;
  }
  return best;
}

class PickWithinMarginOfBest : public cudalab::GpuTest, public ::testing::WithParamInterface<Matrix> {};

TEST_P(PickWithinMarginOfBest, Sweep) {
  Matrix mat = GetParam();
  if (cudalab::free_device_memory() < BigMatrix::bytes_for(mat.nx, mat.ny) + (std::size_t(256) << 20) &&
      (mat.small_nx != mat.nx || mat.small_ny != mat.ny)) {
    std::printf("[ CUDALAB  ] %s swept at %d x %d: three %d x %d float matrices do not fit in the GPU memory free\n",
                mat.name, mat.small_nx, mat.small_ny, mat.nx, mat.ny);
    mat.nx = mat.small_nx, mat.ny = mat.small_ny;
  }
  const std::string name = std::string(mat.name) + " " + std::to_string(mat.nx) + "x" + std::to_string(mat.ny);
  CUDALAB_REQUIRE_FREE_MEMORY(BigMatrix::bytes_for(mat.nx, mat.ny),
                              "the timed test's three " + name + " float matrices");
  LaunchLimits l;
  CUDALAB_ASSERT_OK(runtime_limits(&l));
  const dim3 pick = pick_block_shape(l, mat.nx, mat.ny);
  if (std::string bad = invalid_reason(l, mat.nx, mat.ny, pick); !bad.empty())
    GTEST_FAIL() << "pick_block_shape(" << mat.nx << " x " << mat.ny << ") = " << shape(pick)
                 << " cannot be launched: " << bad;
  BigMatrix m;
  CUDALAB_ASSERT_OK(m.init(mat.nx, mat.ny, seed()));
  std::string table;
  const dim3 best = fastest_shape(l, m, sumMatrixReference, &table);
  if (best.x == 0) GTEST_FAIL() << "no candidate shape could be timed for " << mat.nx << " x " << mat.ny;
  const dim3 gb = grid_for(mat.nx, mat.ny, best), gp = grid_for(mat.nx, mat.ny, pick);
  cudalab::TimingOptions opts;
  opts.reps = 21;
  opts.stop_when_clear_of = cudalab::threshold("pick_vs_best");  // sampling stops once clear of it
  cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { cudalab::launch(sumMatrixReference, gb, best)(m.A(), m.B(), m.C(), mat.nx, mat.ny); },
      [&] { cudalab::launch(sumMatrixReference, gp, pick)(m.A(), m.B(), m.C(), mat.nx, mat.ny); }, opts);
  cudalab::expect_speedup({"your pick " + shape(pick) + " on " + name, "the fastest measured shape " + shape(best), cmp,
                           cudalab::threshold("pick_vs_best"), "pick_vs_best", m.bytes()});
  // After the [ PERF ] line: ctest keeps only the first 1 KB of a passing test's output.
  std::printf("[ CUDALAB  ] sweep of %d x %d with the reference kernel:\n%s", mat.nx, mat.ny, table.c_str());
}

INSTANTIATE_TEST_SUITE_P(BlockShapeSweep, PickWithinMarginOfBest,
                         ::testing::Values(Matrix{"square", 16384, 16384, 8192, 8192},
                                           Matrix{"narrow", 100, 1000003, 100, 1000003},
                                           Matrix{"wide", (1 << 22) + 1, 60, (1 << 21) + 1, 60},
                                           Matrix{"tall", 64, 2000003, 64, 2000003}),
                         [](const auto &info) { return std::string(info.param.name); });

class BlockShapeSweep : public cudalab::GpuTest {};

TEST_F(BlockShapeSweep, YourKernelAtItsBestShapeKeepsUpWithTheStreamBaseline) {
  const int n = timed_matrix_side();
  CUDALAB_REQUIRE_FREE_MEMORY(BigMatrix::bytes_for(n, n), timed_matrices(n));
  LaunchLimits l;
  CUDALAB_ASSERT_OK(runtime_limits(&l));
  BigMatrix m;
  CUDALAB_ASSERT_OK(m.init(n, n, seed()));
  const std::string first = m.check(
      "sumMatrixOnGPU2D",
      [&](const float *a, const float *b, float *c, int nx, int ny) {
        cudalab::launch(sumMatrixOnGPU2D, grid_for(nx, ny, dim3(32, 16)), dim3(32, 16))(a, b, c, nx, ny);
      },
      "block=(32,16)");
  if (!first.empty()) GTEST_FAIL() << "sumMatrixOnGPU2D is not timed until it is correct: " << first;
  std::string table;
  const dim3 best = fastest_shape(l, m, sumMatrixOnGPU2D, &table);
  if (best.x == 0) GTEST_FAIL() << "no candidate shape could be timed for sumMatrixOnGPU2D on " << n << " x " << n;
  const dim3 g = grid_for(n, n, best);
  const std::string error = m.check(
      "sumMatrixOnGPU2D",
      [&](const float *a, const float *b, float *c, int nx, int ny) {
        cudalab::launch(sumMatrixOnGPU2D, g, best)(a, b, c, nx, ny);
      },
      "block=" + shape(best));
  if (!error.empty()) GTEST_FAIL() << "sumMatrixOnGPU2D is not timed until it is correct: " << error;
  // The reference solution's kernel, launched at your kernel's best shape: about 1.0 for a correct
  // kernel on any GPU. Where it cannot run, the stream baseline as before.
  std::string why;
  const MatrixLaunch reference =
      reference_matrix_launch("sumMatrixOnGPU2D", sumMatrixOnGPU2D, "_Z16sumMatrixOnGPU2DPKfS0_Pfii", m, g, best, &why);
  if (!reference) {
    if (const std::string f = cudalab::reference_fallback("sumMatrixOnGPU2D", "the stream baseline", why); !f.empty())
      GTEST_FAIL() << f;
  }
  cudalab::TimingOptions opts;
  opts.reps = 21;
  // Every sample of your kernel gets a changed A and a poisoned C; a random share is checked.
  opts.check = m.sample_check("sumMatrixOnGPU2D", "block=" + shape(best));
  if (reference) {
    opts.stop_when_clear_of = cudalab::threshold("best_vs_reference");  // sampling stops once clear of it
    cudalab::Comparison cmp =
        cudalab::compare_kernels([&] { reference(m.A(), m.B(), m.C(), n, n); },
                                 [&] { cudalab::launch(sumMatrixOnGPU2D, g, best)(m.A(), m.B(), m.C(), n, n); }, opts);
    cudalab::expect_speedup({"sumMatrixOnGPU2D at its best shape " + shape(best),
                             "the reference solution's sumMatrixOnGPU2D at the same shape", cmp,
                             cudalab::threshold("best_vs_reference"), "best_vs_reference", m.bytes()});
  } else {
    opts.stop_when_clear_of = cudalab::threshold("best_vs_stream");
    cudalab::Comparison cmp =
        cudalab::compare_kernels([&] { m.stream_same_traffic(256); },
                                 [&] { cudalab::launch(sumMatrixOnGPU2D, g, best)(m.A(), m.B(), m.C(), n, n); }, opts);
    cudalab::expect_speedup({"sumMatrixOnGPU2D at its best shape " + shape(best),
                             "the stream baseline (C = A + B, flat 1D grid of 256-thread blocks, one element per "
                             "thread)",
                             cmp, cudalab::threshold("best_vs_stream"), "best_vs_stream", m.bytes()});
  }
  std::printf("[ CUDALAB  ] sweep of %d x %d with your sumMatrixOnGPU2D:\n%s", n, n, table.c_str());
}

}  // namespace
