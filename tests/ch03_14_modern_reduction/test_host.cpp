// ch03_14 host tests: modern_grid(), the grid-size calculator of the grid-stride reduction.
// No GPU needed: the devices are described by their published limits.
#include "modern_reduction.cuh"

#include "cudalab/testing.cuh"

#include <random>

namespace {

struct GridCase {
  const char *gpu;
  unsigned int n;
  int sms, threads_per_sm;
  unsigned int block, expected;
};

class ModernGrid : public cudalab::HostTest {
 protected:
  void check(const GridCase &c) {
    const unsigned int got = modern_grid(c.n, c.sms, c.threads_per_sm, c.block);
    if (got != c.expected)
      ADD_FAILURE() << "modern_grid: wrong grid for " << c.gpu << " (" << c.sms << " SMs x " << c.threads_per_sm
                    << " threads), n=" << c.n << " block=" << c.block << ": expected " << c.expected << ", got " << got;
  }
};

// Large n: one full wave, SM count x (threads per SM / block).
TEST_F(ModernGrid, LargeInputGetsOneFullWave) {
  for (const GridCase &c :
       {GridCase{"H100", 1u << 28, 132, 2048, 256, 1056}, GridCase{"H100", 1u << 24, 132, 2048, 512, 528},
        GridCase{"A100", 1u << 28, 108, 2048, 256, 864}, GridCase{"RTX 4090", 1u << 28, 128, 1536, 256, 768},
        GridCase{"T4", 1u << 24, 40, 1024, 256, 160}, GridCase{"T4", 1u << 24, 40, 1024, 1024, 40},
        // The largest n: (n + 3) / 4 computed in 32 bits wraps to 0 groups (one block).
        GridCase{"H100", 4294967295u, 132, 2048, 256, 1056}, GridCase{"H100", 4294967293u, 132, 2048, 256, 1056}}) {
    check(c);
    if (HasFailure()) return;
  }
}

// Small n: no block without an int4 group to read, ceil(ceil(n / 4) / block) blocks; n = 0 and
// n = 1 still get one block (a grid of 0 blocks is a launch error).
TEST_F(ModernGrid, SmallInputGetsNoIdleBlocksButAtLeastOne) {
  for (const GridCase &c : {GridCase{"H100", 1025, 132, 2048, 256, 2}, GridCase{"H100", 1024, 132, 2048, 256, 1},
                            GridCase{"H100", 100000, 132, 2048, 256, 98}, GridCase{"H100", 270337, 132, 2048, 256, 265},
                            GridCase{"T4", 163841, 40, 1024, 256, 160}, GridCase{"T4", 4097, 40, 1024, 64, 17},
                            GridCase{"H100", 0, 132, 2048, 256, 1}, GridCase{"H100", 1, 132, 2048, 256, 1},
                            GridCase{"H100", 5, 132, 2048, 1024, 1}}) {
    check(c);
    if (HasFailure()) return;
  }
}

// Every device shape and block size, not only the four GPUs above: random SM counts, threads per
// SM that a block size does not divide (1536 / 1024: one block fits, not 1.5), block sizes that are
// multiples of 32 but not powers of two, and n up to 2^32 - 1, where ceil(n / 4) computed as
// (n + 3) / 4 in 32 bits wraps to 0. The expected grid is counted here in 64-bit arithmetic.
TEST_F(ModernGrid, MatchesTheDefinitionForRandomDevicesAndSizes) {
  std::mt19937_64 rng(seed());
  const int threads_per_sm[] = {1024, 1536, 2048};
  for (int trial = 0; trial < 2000; ++trial) {
    const int sms = 1 + static_cast<int>(rng() % 200);
    const int tps = threads_per_sm[rng() % 3];
    const unsigned int block = 32u * (1u + static_cast<unsigned int>(rng() % 32));  // 32 ... 1024
    unsigned int n = 0;
    switch (trial % 4) {
      case 0:
        n = static_cast<unsigned int>(rng() % 5000);
        break;  // small: fewer blocks than a wave
      case 1:
        n = static_cast<unsigned int>(rng());
        break;  // anything
      case 2:
        n = 0xFFFFFFFFu - static_cast<unsigned int>(rng() % 8);
        break;  // the top of the range
      default:
        n = static_cast<unsigned int>(rng() % (1u << 24));
        break;
    }
    const unsigned long long wave = static_cast<unsigned long long>(sms) * (static_cast<unsigned int>(tps) / block);
    const unsigned long long groups = (static_cast<unsigned long long>(n) + 3) / 4;
    const unsigned long long needed = (groups + block - 1) / block;
    unsigned long long expected = wave < needed ? wave : needed;
    if (expected < 1) expected = 1;
    check(GridCase{"a random GPU", n, sms, tps, block, static_cast<unsigned int>(expected)});
    if (HasFailure()) {
      ADD_FAILURE() << "(trial " << trial << ", seed " << seed() << ")";
      return;
    }
  }
}

}  // namespace
