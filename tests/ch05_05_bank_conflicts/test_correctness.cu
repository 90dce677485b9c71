// ch05_05 correctness: the three transposes on ragged sizes (single rows and columns, one tile
// plus or minus one, non-square, fresh random ones), fresh random floats, poisoned output with a
// guard region after it.
#include "bank_conflicts.cuh"
#include "transpose_check.cuh"
#include "cudalab/testing.cuh"

#include <random>
#include <utility>
#include <vector>

namespace {

struct Kernel {
  const char *name;
  void (*launch)(const float *, float *, int, int, cudaStream_t);
};

const Kernel kKernels[] = {{"transposeNaive", launch_transpose_naive},
                           {"transposeShared", launch_transpose_shared},
                           {"transposeSharedPadded", launch_transpose_padded}};

class TransposeCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<int> {};

TEST_P(TransposeCorrectness, RightForRaggedAndRandomSizes) {
  const Kernel &k = kKernels[GetParam()];
  std::vector<std::pair<int, int>> sizes = {{1, 1},     {1, 1000},    {1000, 1},   {1, 100003}, {100003, 1},
                                            {33, 31},   {31, 33},     {32, 32},    {31, 31},    {65, 7},
                                            {7, 65},    {1000, 1537}, {1537, 1000}};
  std::mt19937_64 gen(seed());
  for (int i = 0; i < 4; ++i) sizes.push_back({1 + static_cast<int>(gen() % 2500), 1 + static_cast<int>(gen() % 2500)});
  int index = 0;
  for (const auto &[rows, cols] : sizes) {
    TransposeData d;
    CUDALAB_ASSERT_OK(d.init(rows, cols, seed() + index++));
    const std::string error =
        d.check(k.name, [&](const float *in, float *out, int r, int c) { k.launch(in, out, r, c, 0); });
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

INSTANTIATE_TEST_SUITE_P(Transpose, TransposeCorrectness, ::testing::Values(0, 1, 2),
                         [](const auto &info) { return std::string(kKernels[info.param].name); });

}  // namespace
