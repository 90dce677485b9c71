// ch03_08 correctness: sumMatrixCoalesced for any matrix size and block shape.
#include "cudalab/launch.cuh"
#include "cudalab/testing.cuh"
#include "matrix_check.cuh"
#include "memory_operations.cuh"

namespace {

struct Size {
  int nx, ny;
};
const Size kSizes[] = {{1, 1}, {17, 33}, {1000, 3}, {3, 1000}, {333, 517}};

class CoalescedCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<dim3> {};

TEST_P(CoalescedCorrectness, RightForAnyMatrixSize) {
  const dim3 block = GetParam();
  for (const Size &s : kSizes) {
    const std::string error = sum_matrix_error(
        "sumMatrixCoalesced",
        [&](const float *a, const float *b, float *c, int nx, int ny) {
          cudalab::launch(sumMatrixCoalesced, grid_for(nx, ny, block), block)(a, b, c, nx, ny);
        },
        s.nx, s.ny, "block=" + shape(block), seed() + s.nx);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

INSTANTIATE_TEST_SUITE_P(Coalesced, CoalescedCorrectness,
                         ::testing::Values(dim3(32, 32), dim3(32, 16), dim3(16, 16), dim3(4, 64), dim3(256, 1)),
                         [](const auto &info) {
                           return "block" + std::to_string(info.param.x) + "x" + std::to_string(info.param.y);
                         });

// The header's "any nx, ny" with the index in std::size_t: one launch past 2^32 elements (or 2^31
// where only that fits), checked on the device; skipped, with the reason, on smaller GPUs.
class Coalesced64BitIndex : public cudalab::GpuTest {};

TEST_F(Coalesced64BitIndex, RightPast32BitIndices) {
  const HugeMatrixPlan plan = plan_huge_matrix();
  if (plan.nx == 0) CUDALAB_SKIP_NOT_APPLICABLE() << "not enough free GPU memory for the 64-bit index test: " << plan.skip;
  const dim3 block(32, 16);
  const std::string error = huge_matrix_error(
      "sumMatrixCoalesced", plan,
      [&](const float *a, const float *b, float *c, int nx, int ny) {
        cudalab::launch(sumMatrixCoalesced, grid_for(nx, ny, block), block)(a, b, c, nx, ny);
      },
      "block=" + shape(block) + " (compute idx = iy * nx + ix in std::size_t)", seed());
  if (!error.empty()) GTEST_FAIL() << error;
}

}  // namespace
