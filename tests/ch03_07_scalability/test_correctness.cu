// ch03_07 correctness: sumMatrixOnGPU2D for any matrix and block, the grid-stride kernel for any grid.
#include "cudalab/launch.cuh"
#include "cudalab/testing.cuh"
#include "matrix_check.cuh"
#include "sum_matrix.cuh"

#include <algorithm>

namespace {

struct Size {
  int nx, ny;
};
// One element, sizes that are multiples of nothing, a row and a column wider than any block.
const Size kSizes[] = {{1, 1}, {17, 33}, {1000, 3}, {3, 1000}, {333, 517}};

class SumMatrixCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<dim3> {};

TEST_P(SumMatrixCorrectness, RightForAnyMatrixSize) {
  const dim3 block = GetParam();
  for (const Size &s : kSizes) {
    const std::string error = sum_matrix_error(
        "sumMatrixOnGPU2D",
        [&](const float *a, const float *b, float *c, int nx, int ny) {
          cudalab::launch(sumMatrixOnGPU2D, grid_for(nx, ny, block), block)(a, b, c, nx, ny);
        },
        s.nx, s.ny, "block=" + shape(block), seed() + s.nx);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

INSTANTIATE_TEST_SUITE_P(SumMatrix2D, SumMatrixCorrectness,
                         ::testing::Values(dim3(32, 32), dim3(32, 16), dim3(16, 32), dim3(16, 16), dim3(128, 2),
                                           dim3(256, 1)),
                         [](const auto &info) {
                           return "block" + std::to_string(info.param.x) + "x" + std::to_string(info.param.y);
                         });

class GridStrideCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<dim3> {};

TEST_P(GridStrideCorrectness, RightForAnyGrid) {
  const dim3 grid = GetParam();
  for (const dim3 block : {dim3(32, 8), dim3(256, 1)}) {
    for (const Size &s : kSizes) {
      // grid (0,0) stands for "exactly enough blocks", (9,9) for "twice that" (idle blocks).
      dim3 g = grid;
      if (grid.x == 0) g = grid_for(s.nx, s.ny, block);
      if (grid.x == 9) g = dim3(2 * grid_for(s.nx, s.ny, block).x, 2 * grid_for(s.nx, s.ny, block).y);
      const std::string error = sum_matrix_error(
          "sumMatrixGridStride",
          [&](const float *a, const float *b, float *c, int nx, int ny) {
            cudalab::launch(sumMatrixGridStride, g, block)(a, b, c, nx, ny);
          },
          s.nx, s.ny, "grid=" + shape(g) + " block=" + shape(block), seed() + s.ny);
      if (!error.empty()) GTEST_FAIL() << error;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GridStride, GridStrideCorrectness,
                         ::testing::Values(dim3(1, 1), dim3(1, 3), dim3(3, 1), dim3(2, 5), dim3(7, 4), dim3(0, 0),
                                           dim3(9, 9)),
                         [](const auto &info) {
                           if (info.param.x == 0) return std::string("grid_exact");
                           if (info.param.x == 9) return std::string("grid_twice_too_big");
                           return "grid" + std::to_string(info.param.x) + "x" + std::to_string(info.param.y);
                         });

// In place (C is A): right only if every element is read and written by its own thread alone. A
// thread that writes another thread's element -- even with the right value, as a flat bound
// `idx < nx * ny` does for the threads past the end of a row -- makes that element come out as
// A + 2B. Widths one past a block's (33, 1000 with 128-wide blocks) give every row such threads.
class SumMatrixInPlace : public cudalab::GpuTest {};

TEST_F(SumMatrixInPlace, EveryThreadTouchesOnlyItsOwnElement) {
  const std::uint64_t s = seed();
  struct Case {
    int nx, ny;
    dim3 block;
  } cases[] = {{33, 4096, dim3(32, 8)}, {1000, 300, dim3(128, 2)}, {17, 2000, dim3(16, 16)}, {65, 999, dim3(64, 4)}};
  for (const Case &c : cases) {
    std::string error = sum_matrix_error(
        "sumMatrixOnGPU2D",
        [&](const float *a, const float *b, float *out, int nx, int ny) {
          cudalab::launch(sumMatrixOnGPU2D, grid_for(nx, ny, c.block), c.block)(a, b, out, nx, ny);
        },
        c.nx, c.ny, "block=" + shape(c.block), s + c.nx, true);
    if (!error.empty()) GTEST_FAIL() << error;
    const dim3 g(3, 5);
    error = sum_matrix_error(
        "sumMatrixGridStride",
        [&](const float *a, const float *b, float *out, int nx, int ny) {
          cudalab::launch(sumMatrixGridStride, g, c.block)(a, b, out, nx, ny);
        },
        c.nx, c.ny, "grid=" + shape(g) + " block=" + shape(c.block), s + c.ny, true);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

// The "64-bit index" promise (README: the seeds' `unsigned int idx` wraps past 2^32 elements):
// one launch on a matrix past 2^32 elements (or past 2^31 where the GPU has only the memory for
// that), checked element by element on the device. Skipped, with the reason, on smaller GPUs.
class SumMatrix64BitIndex : public cudalab::GpuTest {
 protected:
  void SetUp() override {
    cudalab::GpuTest::SetUp();
    if (IsSkipped()) return;
    plan_ = plan_huge_matrix();
    if (plan_.nx == 0)
      CUDALAB_SKIP_NOT_APPLICABLE() << "not enough free GPU memory for the 64-bit index test: " << plan_.skip;
  }
  HugeMatrixPlan plan_;
};

TEST_F(SumMatrix64BitIndex, SumMatrixOnGPU2DPast32BitIndices) {
  const dim3 block(32, 16);
  const std::string error = huge_matrix_error(
      "sumMatrixOnGPU2D", plan_,
      [&](const float *a, const float *b, float *c, int nx, int ny) {
        cudalab::launch(sumMatrixOnGPU2D, grid_for(nx, ny, block), block)(a, b, c, nx, ny);
      },
      "block=" + shape(block) + " (compute idx = iy * nx + ix in std::size_t)", seed());
  if (!error.empty()) GTEST_FAIL() << error;
}

TEST_F(SumMatrix64BitIndex, GridStridePast32BitIndices) {
  const dim3 block(256, 1);
  int k = 0;
  CUDALAB_ASSERT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, sumMatrixGridStride, 256, 0));
  const unsigned int blocks = unsigned(std::max(k, 1) * device().sm_count);
  const std::string error = huge_matrix_error(
      "sumMatrixGridStride", plan_,
      [&](const float *a, const float *b, float *c, int nx, int ny) {
        cudalab::launch(sumMatrixGridStride, grid_with_blocks(nx, ny, block, blocks), block)(a, b, c, nx, ny);
      },
      "block=" + shape(block) + " " + std::to_string(blocks) + " blocks (compute the index in std::size_t)", seed());
  if (!error.empty()) GTEST_FAIL() << error;
}

}  // namespace
