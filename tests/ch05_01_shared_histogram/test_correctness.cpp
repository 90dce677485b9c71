// ch05_01 correctness: histogramShared for every block size (also below 256 threads and not a
// multiple of 32), any n, any alignment of the input, any grid, an input of one repeated value, and
// inputs past 32-bit byte and 16-byte-load indices.
#include "histogram.cuh"
#include "histogram_check.cuh"

#include "cudalab/testing.cuh"

namespace {

// Empty, 1 byte, around one uint4 (15, 16, 17), around the 256 bins (255, 256, 257), a ragged
// 4097 and a million-and-three.
const size_t kSizes[] = {0, 1, 15, 16, 17, 255, 256, 257, 4097, 1000003};
// The input starts 0, 1, 3 or 8 bytes past a 16-byte boundary: uint4 loads must start at the
// first boundary (8 is 8-byte aligned, not 16), and no head or tail byte may be lost or counted twice.
const unsigned int kOffsets[] = {0, 1, 3, 8};

class HistogramSharedCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned int> {};

TEST_P(HistogramSharedCorrectness, RightForAnyNAndAlignment) {
  const unsigned int block = GetParam();
  for (unsigned int offset : kOffsets) {
    for (size_t n : kSizes) {
      SharedRun run;
      run.n = n;
      run.offset = offset;
      run.block = block;
      run.seed = seed() + 16 * n + offset;
      const std::string error = shared_error(run);
      if (!error.empty()) GTEST_FAIL() << error;
    }
  }
  SharedRun run;  // every lane of every warp on the same bin
  run.n = 1000003;
  run.offset = 1;
  run.block = block;
  run.pattern = Pattern::kSingleValue;
  run.seed = seed();
  const std::string error = shared_error(run);
  if (!error.empty()) GTEST_FAIL() << error;
}

// 255 threads: the last warp has 31 lanes; 32, 64 and 128: fewer threads than bins (the seed's trap).
INSTANTIATE_TEST_SUITE_P(Shared, HistogramSharedCorrectness, ::testing::Values(32u, 64u, 128u, 255u, 256u, 1024u),
                         [](const auto &info) { return "block" + std::to_string(info.param); });

class HistogramSharedSingleValue : public cudalab::GpuTest {};

// Worst-case contention: every byte is the same, so every atomic of every thread hits one bin.
// A count made with s_hist[b]++ instead of atomicAdd loses almost all of them here.
TEST_F(HistogramSharedSingleValue, EveryByteTheSameIsCountedExactly) {
  for (int value : {-1, 0, 255}) {  // -1: a value drawn from the seed; 0 and 255: the edge bins
    for (unsigned int block : {kHistogramBlock, 128u}) {
      for (size_t n : {size_t(1000003), (size_t(1) << 24) + 5}) {
        SharedRun run;
        run.n = n;
        run.offset = 1;
        run.block = block;
        run.pattern = Pattern::kSingleValue;
        run.value = value;
        run.seed = seed() + n + block;
        const std::string error = shared_error(run);
        if (!error.empty()) GTEST_FAIL() << error;
      }
    }
  }
}

class HistogramSharedGrid : public cudalab::GpuTest {};

// The grid-stride loop must cover the input for any grid: one block, a few, about a wave, and
// more blocks than there are 16-byte groups.
TEST_F(HistogramSharedGrid, RightForAnyGridSize) {
  for (unsigned int grid : {1u, 7u, 1000u, 5000u}) {
    for (Pattern pattern : {Pattern::kUniform, Pattern::kSingleValue}) {
      SharedRun run;
      run.n = (size_t(1) << 20) + 5;
      run.offset = 3;
      run.grid = grid;
      run.pattern = pattern;
      run.seed = seed() + grid;
      const std::string error = shared_error(run);
      if (!error.empty()) GTEST_FAIL() << error;
    }
  }
}

class HistogramSharedPoisoned : public cudalab::GpuTest {};

// The shared memory of every SM holds 0xCDCDCDCD when the kernel starts (poison_shared.cuh): every
// private count it adds to buckets must have been zeroed first -- all kNumBins of them in every
// copy, whatever the block size -- and the merge must add exactly the counted bytes, also for the
// bins no byte hit (sparse input: 251 of 256 bins stay at their start value). A kernel that zeroes
// only part of its shared histogram would otherwise often meet zeros or an earlier launch's counts
// and pass by luck.
TEST_F(HistogramSharedPoisoned, ZeroesEveryPrivateCountAndMergesExactly) {
  for (Pattern pattern : {Pattern::kUniform, Pattern::kSparse}) {
    for (unsigned int block : {kHistogramBlock, 128u, 32u}) {
      for (size_t n : {size_t(17), size_t(4097), size_t(1000003)}) {
        for (unsigned int grid : {1u, 0u}) {  // one block, and the default grid
          SharedRun run;
          run.n = n;
          run.offset = 3;
          run.block = block;
          run.grid = grid;
          run.pattern = pattern;
          run.poison_shared = true;
          run.seed = seed() + n + block + grid;
          const std::string error = shared_error(run);
          if (!error.empty()) GTEST_FAIL() << error;
        }
      }
    }
  }
}

// The 64-bit promise (histogram.cuh: size_t n, any n). Past 2^32 bytes a 32-bit byte index (the
// head, the tail, their start) wraps; past 2^36 bytes a 32-bit index of the 16-byte loads does. The
// input needs no memory of that size: one 128 MiB chunk mapped again and again (long_input_error),
// so the test runs on any GPU with virtual memory management and a few hundred MiB free.
class HistogramShared64Bit : public cudalab::GpuTest, public ::testing::WithParamInterface<int> {};

TEST_P(HistogramShared64Bit, CountsInputsPastThirtyTwoBitIndices) {
  LongRun run;
  run.min_bytes = std::size_t(1) << GetParam();
  run.seed = seed() + GetParam();
  std::string not_applicable;
  const std::string error = long_input_error(run, &not_applicable);
  if (!not_applicable.empty()) CUDALAB_SKIP_NOT_APPLICABLE() << not_applicable;
  if (!error.empty()) GTEST_FAIL() << error;
}

INSTANTIATE_TEST_SUITE_P(Shared64Bit, HistogramShared64Bit, ::testing::Values(32, 36), [](const auto &info) {
  return info.param == 32 ? std::string("past_2pow32_bytes") : std::string("past_2pow32_uint4");
});

}  // namespace
