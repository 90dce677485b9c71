// ch05_01 host tests: histogram_grid(), the grid-size calculator of the grid-stride histogram.
// No GPU needed: the devices are described by their published limits and an occupancy figure
// (blocks of histogramShared per SM, which the given histogram_shared_grid() asks the GPU for).
#include "histogram.cuh"

#include "cudalab/testing.cuh"

namespace {

struct GridCase {
  const char *gpu;
  size_t n;
  int sms, blocks_per_sm;
  unsigned int block, expected;
};

class HistogramGrid : public cudalab::HostTest {
 protected:
  void check(const GridCase &c) {
    const unsigned int got = histogram_grid(c.n, c.sms, c.blocks_per_sm, c.block);
    if (got != c.expected)
      ADD_FAILURE() << "histogram_grid: wrong grid for " << c.gpu << " (" << c.sms << " SMs x " << c.blocks_per_sm
                    << " blocks per SM), n=" << c.n << " block=" << c.block << ": expected " << c.expected << ", got "
                    << got;
  }
};

// Large n: one full wave, SM count x blocks per SM -- also for n beyond 2^32 bytes (a size_t
// squeezed into 32 bits would give 1 block for 5 x 2^32 and for 2^32 + 100).
TEST_F(HistogramGrid, LargeInputGetsOneFullWave) {
  for (const GridCase &c :
       {GridCase{"H100", size_t(1) << 28, 132, 4, 512, 528}, GridCase{"H100", size_t(1) << 28, 132, 3, 512, 396},
        GridCase{"H100", size_t(1) << 28, 132, 6, 256, 792}, GridCase{"A100", size_t(1) << 28, 108, 4, 512, 432},
        GridCase{"RTX 4090", size_t(1) << 28, 128, 3, 512, 384}, GridCase{"T4", size_t(1) << 24, 40, 2, 512, 80},
        GridCase{"H100", size_t(5) << 32, 132, 4, 512, 528},
        GridCase{"H100", (size_t(1) << 32) + 100, 132, 4, 512, 528},
        // 2^40 bytes are 2^36 groups of 16: a group count kept in 32 bits is 0 (one block).
        GridCase{"H100", size_t(1) << 40, 132, 4, 512, 528}}) {
    check(c);
    if (HasFailure()) return;
  }
}

// Small n: no block without a 16-byte group to read, ceil(ceil(n / 16) / block) blocks (8193
// bytes are 513 groups: 2 blocks of 512); n = 0 and n = 1 still get one block (a grid of 0
// blocks is a launch error).
TEST_F(HistogramGrid, SmallInputGetsNoIdleBlocksButAtLeastOne) {
  for (const GridCase &c : {GridCase{"H100", 8193, 132, 4, 512, 2}, GridCase{"H100", 8192, 132, 4, 512, 1},
                            GridCase{"H100", 100000, 132, 4, 512, 13}, GridCase{"H100", 1000003, 132, 8, 256, 245},
                            GridCase{"T4", 600000, 40, 2, 512, 74}, GridCase{"H100", 4317184, 132, 4, 512, 527},
                            GridCase{"H100", 4317185, 132, 4, 512, 528}, GridCase{"H100", 0, 132, 4, 512, 1},
                            GridCase{"H100", 1, 132, 4, 512, 1}, GridCase{"H100", 17, 132, 4, 32, 1}}) {
    check(c);
    if (HasFailure()) return;
  }
}

}  // namespace
