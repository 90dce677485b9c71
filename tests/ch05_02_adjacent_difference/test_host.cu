// ch05_02 host tests: predict_global_loads on hand-derived cases (each derived in its comment)
// and against a lane-by-lane simulation for random sizes and blocks. No GPU needed.
#include "adjacent_check.cuh"
#include "adjacent_difference.cuh"
#include "cudalab/testing.cuh"

#include <random>
#include <sstream>

namespace {

std::string show(const LoadCount &c) {
  std::ostringstream os;
  os << "{loads " << c.loads << ", warp_loads " << c.warp_loads << ", sectors " << c.sectors << "}";
  return os.str();
}

bool same(const LoadCount &a, const LoadCount &b) {
  return a.loads == b.loads && a.warp_loads == b.warp_loads && a.sectors == b.sectors;
}

void expect(long long n, unsigned block, const LoadCount &naive, const LoadCount &shared) {
  const LoadCounts got = predict_global_loads(n, block);
  if (!same(got.naive, naive) || !same(got.shared, shared)) {
    ADD_FAILURE() << "predict_global_loads(n=" << n << ", block=" << block << "): expected naive " << show(naive)
                  << ", shared " << show(shared) << "; got naive " << show(got.naive) << ", shared "
                  << show(got.shared);
  }
}

class LoadCountModel : public cudalab::HostTest {};

TEST_F(LoadCountModel, OneFullBlock) {
  // n = 256, block 256: 8 full warps. Naive: 256 loads of input[i] + 255 of input[i-1] (not i=0);
  // 2 instructions per warp = 16; sectors: warp 0 reads elements 0..31 (4 sectors) and 0..30
  // (4); warps 1..7 read 32w..32w+31 (4) and 32w-1..32w+30 (5: one reaches back into the
  // previous sector) = 8 + 7 * 9 = 71. Shared: one block, no halo: 256 loads, 8, 32 sectors.
  expect(256, 256, {511, 16, 71}, {256, 8, 32});
}

TEST_F(LoadCountModel, TheSeedsTwoNVersusNPlusNOverBlockAtTheProfileSize) {
  // n = 2^24, block 256: 65536 blocks, 524288 warps. Naive: 2N - 1 loads, 2 per warp, 9 sectors
  // per warp less 1 (warp 0 of block 0). Shared: N + 65535 halo loads, 1 per warp + 65535,
  // 4 sectors per warp + 65535. Ratios: loads 0.502, warp loads 0.5625, sectors 0.458.
  expect(1 << 24, 256, {33554431, 1048576, 4718591}, {16842751, 589823, 2162687});
}

TEST_F(LoadCountModel, InputsPastTwoToThe31Elements) {
  // n is a long long: the same counts as at 2^24 for n = 2^32 + 2^24 (block 256, a multiple of the
  // block: w = n / 32 full warps, n / 256 blocks). Naive: 2n - 1 loads, 2w warp loads, 9w - 1
  // sectors. Shared: n + n/256 - 1 loads, w + n/256 - 1 warp loads, 4w + n/256 - 1 sectors. An
  // element index, block count or sector number kept in 32 bits is wrong here.
  const long long n = (1LL << 32) + (1LL << 24), w = n / 32, halo = n / 256 - 1;
  expect(n, 256, {2 * n - 1, 2 * w, 9 * w - 1}, {n + halo, w + halo, 4 * w + halo});
}

TEST_F(LoadCountModel, RaggedLastBlock) {
  // n = 1000, block 256: 4 blocks (the last has 232 threads with an element), 32 warps, the very
  // last one with 8 lanes (992..999). Naive: 1999 loads, 64 warp loads; sectors: warp 0 = 8,
  // 30 full warps x 9 = 270, last warp 1 (bytes 3968..3999) + 2 (991..998 crosses into sector
  // 123) = 3; 281. Shared: 1000 + 3 halo loads, 32 + 3, ceil(4000/32) = 125 + 3 = 128 sectors.
  expect(1000, 256, {1999, 64, 281}, {1003, 35, 128});
}

TEST_F(LoadCountModel, BlocksNotAMultipleOfEightStartMidSector) {
  // n = 200, block 100 (4 warps: 32, 32, 32, 4 lanes). Block 1 starts at byte 400, mid-sector:
  // its warps read 100..131, 132..163, 164..195 (5 sectors each) and 196..199 (1).
  // input[i]: block 0 4 + 4 + 4 + 1, block 1 5 + 5 + 5 + 1 = 29 sectors.
  // Naive input[i-1]: 0..30 (4), 31..62 (5), 63..94 (5), 95..98 (2), 99..130 (5), 131..162 (5),
  // 163..194 (5), 195..198 (1) = 32. Naive: 399 loads, 16 warp loads, 61 sectors.
  // Shared: 200 + 1 halo (input[99]) loads, 8 + 1, 29 + 1 = 30 sectors.
  expect(200, 100, {399, 16, 61}, {201, 9, 30});
}

TEST_F(LoadCountModel, TinyInputsAndOneThreadBlocks) {
  // n = 1: one lane loads input[0] in both kernels; nothing else.
  expect(1, 256, {1, 1, 1}, {1, 1, 1});
  // n = 2, block 1: every element is a block boundary, so the shared kernel saves nothing:
  // block 0 loads input[0]; block 1 loads input[1] and input[0] (the halo) -- 3 of each.
  expect(2, 1, {3, 3, 3}, {3, 3, 3});
  // n = 0: no thread has an element.
  expect(0, 256, {0, 0, 0}, {0, 0, 0});
}

TEST_F(LoadCountModel, MatchesALaneByLaneSimulationForRandomSizesAndBlocks) {
  std::mt19937_64 gen(seed());
  for (int k = 0; k < 300; ++k) {
    const long long n = 1 + static_cast<long long>(gen() % 20000);
    const unsigned block = 1 + static_cast<unsigned>(gen() % 1024);
    const LoadCounts want = simulate_global_loads(n, block);
    expect(n, block, want.naive, want.shared);
    if (HasFailure()) return;  // the first wrong case is the one to look at
  }
}

}  // namespace
