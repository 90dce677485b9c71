// ch04_02 correctness: readWriteOffset for many sizes and offsets, testInnerArray for many sizes,
// each for several block sizes, with poisoned outputs and guard elements after every array.
#include "layout_check.cuh"
#include "cudalab/testing.cuh"

#include <algorithm>
#include <vector>

namespace {

constexpr int kGuard = 64;  // floats after every array: random after inputs, poison after outputs

/// The offsets tried for size n: aligned, misaligned, one sector, one line, and around the end.
std::vector<int> offsets_for(int n) {
  std::vector<int> v = {0, 1, 11, 31, 32, 128, n - 1, n, n + 7};
  v.erase(std::remove_if(v.begin(), v.end(), [](int o) { return o < 0; }), v.end());
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string block_name(const ::testing::TestParamInfo<unsigned int> &info) {
  return "block" + std::to_string(info.param);
}

class ReadWriteOffsetCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned int> {};

TEST_P(ReadWriteOffsetCorrectness, RightForAnySizeAndOffset) {
  const unsigned int block = GetParam();
  for (int n : {1, 31, 33, 1000, 4097, 100003}) {
    for (int offset : offsets_for(n)) {
      const std::string error = read_write_offset_error(n, offset, block, kGuard, seed() + n * 131 + offset);
      if (!error.empty()) GTEST_FAIL() << error;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ReadWriteOffset, ReadWriteOffsetCorrectness, ::testing::Values(32u, 96u, 256u, 512u, 1024u),
                         block_name);

class InnerArrayCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned int> {};

TEST_P(InnerArrayCorrectness, SameResultAsTheStructKernel) {
  const unsigned int block = GetParam();
  for (int n : {1, 31, 33, 1000, 100003, (1 << 20) + 7}) {
    const std::string error = inner_array_error(n, block, kGuard, seed() + n);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

INSTANTIATE_TEST_SUITE_P(InnerArray, InnerArrayCorrectness, ::testing::Values(32u, 96u, 256u, 1024u), block_name);

}  // namespace
