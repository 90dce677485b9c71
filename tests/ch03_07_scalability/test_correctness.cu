// ch03_07 correctness: sumMatrixOnGPU2D for any matrix and block, the grid-stride kernel for any grid.
#include "matrix_check.cuh"
#include "sum_matrix.cuh"

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
          sumMatrixOnGPU2D<<<grid_for(nx, ny, block), block>>>(a, b, c, nx, ny);
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
            sumMatrixGridStride<<<g, block>>>(a, b, c, nx, ny);
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

}  // namespace
