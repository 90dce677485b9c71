// ch03_04 correctness on the GPU: the pointer chase reaches the right element and measures a
// plausible latency; both copies are right for any n and any grid.
#include "latency.cuh"
#include "latency_check.cuh"
#include "cudalab/testing.cuh"

#include <cstdio>
#include <random>
#include <tuple>

namespace {

class PointerChase : public cudalab::GpuTest {
 protected:
  /// A fresh random ring of @p elems ints with nodes @p stride apart, on the device.
  void make_ring(std::size_t elems, std::size_t stride, std::uint64_t seed) {
    host_ = make_chase_ring(elems, stride, seed);
    std::mt19937_64 rng(seed ^ 0x5eed);
    start_ = static_cast<unsigned int>(std::uniform_int_distribution<std::size_t>(0, host_.size() / stride - 1)(rng) *
                                       stride);
    err_ = dev_.upload(host_);
  }
  std::vector<unsigned int> host_;
  cudalab::DeviceBuffer<unsigned int> dev_;
  unsigned int start_ = 0;
  cudaError_t err_ = cudaSuccess;
};

TEST_F(PointerChase, FollowsEveryHop) {
  struct Case {
    std::size_t elems, stride;
    unsigned int warmup, steps;
  } cases[] = {{1000, 1, 0, 1}, {1000, 1, 3, 7}, {4096, 8, 100, 1000}, {1 << 20, 32, 0, 4097}, {777, 1, 777, 333}};
  for (const Case &c : cases) {
    make_ring(c.elems, c.stride, seed() + c.elems + c.steps);
    CUDALAB_ASSERT_OK(err_);
    ChaseRun run = run_chase(host_, dev_.get(), start_, c.warmup, c.steps, false, seed() + c.elems + c.steps);
    if (!run.error.empty()) GTEST_FAIL() << run.error;
  }
}

// The measurement itself: a chain that fits in L1 (4 KB, after one untimed lap) against a chain
// through 128 MB with a cold L2 (every hop a different 128-byte line: a DRAM access).
TEST_F(PointerChase, DramLatencyIsSeveralTimesL1Latency) {
  const unsigned int steps = 4096;
  make_ring(1024, 1, seed());
  CUDALAB_ASSERT_OK(err_);
  ChaseRun l1 = run_chase(host_, dev_.get(), start_, 1024, steps, false, seed());
  if (!l1.error.empty()) GTEST_FAIL() << l1.error;
  make_ring(std::size_t(32) << 20, 32, seed() + 1);
  CUDALAB_ASSERT_OK(err_);
  ChaseRun dram = run_chase(host_, dev_.get(), start_, 0, steps, true, seed() + 1);
  if (!dram.error.empty()) GTEST_FAIL() << dram.error;

  const double ratio = dram.cycles_per_load / l1.cycles_per_load;
  const double need = cudalab::threshold("dram_over_l1_min");
  char line[200];
  std::snprintf(line, sizeof line,
                "pointerChase: L1 hit %.1f cycles/load, DRAM %.1f cycles/load, ratio %.1f, required >= %.1f",
                l1.cycles_per_load, dram.cycles_per_load, ratio, need);
  cudalab::Measurement m;
  m.key = "dram_over_l1_min";
  m.measured = ratio;
  m.required = need;
  m.text = line;
  cudalab::report_perf(m);
  ::testing::Test::RecordProperty("l1_cycles", std::to_string(l1.cycles_per_load));
  ::testing::Test::RecordProperty("dram_cycles", std::to_string(dram.cycles_per_load));
  // No GPU returns a dependent load in under 4 cycles: less means the hops were not timed.
  if (l1.cycles_per_load < 4)
    GTEST_FAIL() << "pointerChase: L1-hit chase measured " << l1.cycles_per_load
                 << " cycles per load, expected >= 4: time the hops themselves, between two clock64() reads (seed "
                 << seed() << ")";
  if (ratio < need)
    GTEST_FAIL() << "pointerChase: DRAM latency " << dram.cycles_per_load << " cycles is only " << ratio
                 << "x the L1-hit latency " << l1.cycles_per_load << " cycles, expected >= " << need
                 << "x (threshold 'dram_over_l1_min'; loads that bypass L1 or overlap make the ratio small; seed "
                 << seed() << ")";
}

// Only the `steps` hops are timed: the same L1-resident chain with 64 times more warm-up hops must
// measure about the same cycles. A clock64() read before the warm-up would count every warm-up hop
// (the measured cycles grow with the warm-up: about 33 times here). Each figure is the smallest of
// three runs, so one interrupt cannot fail a right kernel.
TEST_F(PointerChase, TimesOnlyTheTimedHops) {
  const unsigned int steps = 256, warmup = 1024, long_warmup = 64 * 1024;
  make_ring(1024, 1, seed() + 7);
  CUDALAB_ASSERT_OK(err_);
  auto fastest = [&](unsigned int w, double *cycles) -> std::string {
    *cycles = 0;
    for (int i = 0; i < 3; ++i) {
      ChaseRun run = run_chase(host_, dev_.get(), start_, w, steps, false, seed() + 7);
      if (!run.error.empty()) return run.error;
      const double c = run.cycles_per_load * steps;
      if (i == 0 || c < *cycles) *cycles = c;
    }
    return "";
  };
  double short_cycles = 0, long_cycles = 0;
  if (std::string e = fastest(warmup, &short_cycles); !e.empty()) GTEST_FAIL() << e;
  if (std::string e = fastest(long_warmup, &long_cycles); !e.empty()) GTEST_FAIL() << e;
  std::printf(
      "[ MEASURE  ] pointerChase, %u timed hops of a 4 KB ring: %.0f cycles after %u warm-up hops, %.0f after "
      "%u\n",
      steps, short_cycles, warmup, long_cycles, long_warmup);
  if (long_cycles > 2 * short_cycles)
    GTEST_FAIL() << "pointerChase: result->cycles grows with the warm-up: " << long_cycles << " cycles for " << steps
                 << " timed hops after " << long_warmup << " warm-up hops, but " << short_cycles << " after " << warmup
                 << " (expected about the same, at most 2x). Read the first clock64() after the warm-up loop: only "
                    "the `steps` hops are timed (seed "
                 << seed() << ")";
}

struct CopyCase {
  const char *name;
  CopyKernel kernel;
};

class CopyCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<CopyCase> {};

TEST_P(CopyCorrectness, CopiesEveryElementForAnyNAndGrid) {
  const CopyCase &kc = GetParam();
  const std::size_t sizes[] = {1, 7, 1000, 4097, (std::size_t(1) << 20) + 3};
  for (std::size_t n : sizes) {
    // One warp for everything, a few small blocks, one block per SM, and more threads than elements.
    const unsigned int blocks_needed = static_cast<unsigned int>((n + 255) / 256);
    const std::tuple<unsigned int, unsigned int> launches[] = {
        {1u, 32u}, {3u, 64u}, {unsigned(device().sm_count), 128u}, {blocks_needed + 5, 256u}};
    for (const auto &[grid, block] : launches) {
      const std::string error = copy_error(kc.name, kc.kernel, n, grid, block, 0, seed() + n + grid);
      if (!error.empty()) GTEST_FAIL() << error;
    }
  }
}

const CopyCase kCopies[] = {{"copyInt4", copyInt4}, {"copyInt4Ilp4", copyInt4Ilp4}};
INSTANTIATE_TEST_SUITE_P(Copy, CopyCorrectness, ::testing::ValuesIn(kCopies),
                         [](const auto &info) { return std::string(info.param.name); });

}  // namespace
