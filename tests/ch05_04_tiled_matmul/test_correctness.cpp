// ch05_04 correctness: matrixMulTiled<16> and <32> for square and rectangular sizes that are not
// multiples of the tile, and the stretch matrixMulRegisterBlocked on the same shapes and on shapes
// that cross its 128 x 128 tiles, against a double-precision CPU reference (tolerance:
// matmul_check.cpp).
#include "matmul.cuh"
#include "matmul_check.cuh"
#include "poison_shared.cuh"

#include "cudalab/testing.cuh"

#include <iterator>
#include <vector>

namespace {

struct Shape {
  int M, N, K;
};

// One element; sizes just past a tile of 16 and of 32, just under 32; a multiple of both; the
// seed's 1000 x 1000 (neither).
const Shape kSquare[] = {{1, 1, 1}, {17, 17, 17}, {31, 31, 31}, {33, 33, 33}, {64, 64, 64}, {1000, 1000, 1000}};

// A row times a matrix, a matrix times a column, a long dot product, K = 1 (one partial phase),
// every dimension different (so swapped row/column or M/N/K indexing fails), multiples of 16 but
// not of 32.
const Shape kRectangular[] = {{1, 700, 100},   {700, 1, 100},  {1, 1, 1000},  {517, 3, 33}, {100, 100, 1},
                              {333, 129, 517}, {31, 1000, 33}, {1000, 17, 5}, {48, 80, 96}};

class TiledCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<int> {
 protected:
  void check(const Shape &s) {
    const int tile = GetParam();
    const std::string error = matmul_error(
        "matrixMulTiled<" + std::to_string(tile) + ">",
        [&](const float *a, const float *b, float *ab, int M, int N, int K) {
          return launch_tiled(tile, a, b, ab, M, N, K);
        },
        s.M, s.N, s.K, "tile=" + std::to_string(tile), seed() + s.M * 7 + s.N * 3 + s.K);
    if (!error.empty()) ADD_FAILURE() << error;
  }
};

TEST_P(TiledCorrectness, RightForSquareSizes) {
  for (const Shape &s : kSquare) {
    check(s);
    if (HasFailure()) return;
  }
}

TEST_P(TiledCorrectness, RightForRectangularSizes) {
  for (const Shape &s : kRectangular) {
    check(s);
    if (HasFailure()) return;
  }
}

// Shapes with K smaller than the tile (one partial phase) and ragged M, N: the tile slots outside
// a and b are never loaded from memory -- the kernel must write 0.0f into them.
const Shape kPartialPhase[] = {{5, 7, 3}, {1, 1, 1}, {20, 33, 9}, {40, 24, 15}, {17, 50, 31}, {70, 3, 2}};

// Before each launch the shared memory of every SM is filled with NaN (poison_shared.cuh). A tile
// loader that leaves the slots outside a or b unwritten (no `: 0.0f`, or zeros for s_a but not for
// s_b) multiplies that NaN into the sum -- 0 x NaN is NaN -- where a run after other kernels would
// have met a harmless 0 or a finite leftover and passed.
TEST_P(TiledCorrectness, NeverUsesSharedMemoryNoThreadWrote) {
  const int tile = GetParam();
  // A hint, so the kernel runs with the same shared-memory carveout as the fill (no reconfiguration
  // of the SM between the two kernels).
  CUDALAB_ASSERT_OK(cudaFuncSetAttribute(tiled_kernel(tile), cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxShared));
  for (const Shape &s : kPartialPhase) {
    const std::string error = matmul_error(
        "matrixMulTiled<" + std::to_string(tile) + "> (shared memory filled with NaN before the launch)",
        [&](const float *a, const float *b, float *ab, int M, int N, int K) {
          const cudaError_t err = cudalab_poison::fill_shared_memory(0x7FC00000u);  // a quiet NaN
          return err != cudaSuccess ? err : launch_tiled(tile, a, b, ab, M, N, K);
        },
        s.M, s.N, s.K, "tile=" + std::to_string(tile), seed() + s.M * 7 + s.N * 3 + s.K);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

INSTANTIATE_TEST_SUITE_P(Tiled, TiledCorrectness, ::testing::Values(16, 32),
                         [](const auto &info) { return "tile" + std::to_string(info.param); });

// The register-blocked kernel (the stretch) on every shape above and on shapes that cross its
// 128 x 128 tiles and 8-wide K slices: N a multiple of 4 (the float4 stores) and not, K not a
// multiple of 8 (a partial slice), one row or column past a tile. The shared memory of every SM is
// filled with NaN before each launch, as for the tiled kernel: a slice slot outside a or b that is
// not set to 0.0f shows. SanitizeAll runs this test too: racecheck sees a missing barrier.
class RegisterBlocked : public cudalab::GpuTest {};

TEST_F(RegisterBlocked, RightForRaggedAndRectangularSizes) {
  CUDALAB_ASSERT_OK(cudaFuncSetAttribute(reinterpret_cast<const void *>(matrixMulRegisterBlocked),
                                         cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxShared));
  std::vector<Shape> shapes(std::begin(kSquare), std::end(kSquare));
  shapes.insert(shapes.end(), std::begin(kRectangular), std::end(kRectangular));
  shapes.insert(shapes.end(), std::begin(kPartialPhase), std::end(kPartialPhase));
  for (const Shape s : {Shape{129, 132, 20}, Shape{128, 128, 8}, Shape{257, 131, 9}, Shape{300, 260, 13}})
    shapes.push_back(s);
  for (const Shape &s : shapes) {
    const std::string error = matmul_error(
        "matrixMulRegisterBlocked (shared memory filled with NaN before the launch)",
        [&](const float *a, const float *b, float *ab, int M, int N, int K) {
          const cudaError_t err = cudalab_poison::fill_shared_memory(0x7FC00000u);  // a quiet NaN
          return err != cudaSuccess ? err : launch_register_blocked(a, b, ab, M, N, K);
        },
        s.M, s.N, s.K, "launch_register_blocked", seed() + s.M * 7 + s.N * 3 + s.K);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

}  // namespace
