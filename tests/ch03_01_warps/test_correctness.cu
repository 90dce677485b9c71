// ch03_01 GPU tests: recordWarpLayout on many block shapes (the seeds' 40x2, the issue's 1x1, 33x1,
// 8x8x4, 1024x1, and fresh random ones), each in a random multi-block grid. Every slot is checked
// against the layout computed on the CPU; slots are poisoned first and followed by a guard.
#include "warps.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/testing.cuh"

#include <random>
#include <sstream>
#include <vector>

namespace {

constexpr int kGuardSlots = 256;  // after the last slot: must stay untouched

std::string str(dim3 d) {
  std::ostringstream os;
  os << d.x << "x" << d.y << "x" << d.z;
  return os.str();
}

std::string str(const WarpSlot &s) {
  std::ostringstream os;
  os << "{thread (" << s.x << "," << s.y << "," << s.z << "), linear " << s.linear << ", warp " << s.warp << ", lane "
     << s.lane << "}";
  return os.str();
}

bool same(const WarpSlot &a, const WarpSlot &b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.linear == b.linear && a.warp == b.warp && a.lane == b.lane;
}

/// Runs recordWarpLayout on @p grid x @p block and returns what is wrong ("" if nothing).
std::string layout_error(dim3 block, dim3 grid, std::uint64_t seed) {
  const long long tpb = static_cast<long long>(block.x) * block.y * block.z;
  const long long blocks = static_cast<long long>(grid.x) * grid.y * grid.z;
  const long long n = tpb * blocks;
  std::ostringstream ctx;
  ctx << "block " << str(block) << ", grid " << str(grid) << ", seed=" << seed;

  cudalab::DeviceBuffer<WarpSlot> d;
  cudaError_t err = d.allocate(n + kGuardSlots);
  if (err == cudaSuccess) err = d.poison();
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
  cudalab::launch(recordWarpLayout, grid, block)(d.get());
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    return cudalab::describe_error(err, "recordWarpLayout", __FILE__, __LINE__) + " (" + ctx.str() + ")";
  std::vector<WarpSlot> got;
  if ((err = d.download(&got)) != cudaSuccess) return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);

  for (int g = 0; g < kGuardSlots; ++g) {
    if (!cudalab::is_poison(got[n + g])) {
      std::ostringstream os;
      os << "recordWarpLayout wrote past the last slot: slots[" << n + g << "] was written, but the grid has only " << n
         << " threads (" << ctx.str() << ")";
      return os.str();
    }
  }
  long long wrong = 0, first = -1;
  WarpSlot want_first{};
  for (long long i = 0; i < n; ++i) {
    const int t = static_cast<int>(i % tpb);  // linear id in the block
    const WarpSlot want{static_cast<int>(t % block.x),
                        static_cast<int>((t / block.x) % block.y),
                        static_cast<int>(t / (block.x * block.y)),
                        t,
                        t / 32,
                        t % 32};
    if (!same(got[i], want) && wrong++ == 0) {
      first = i;
      want_first = want;
    }
  }
  if (wrong == 0) return "";
  std::ostringstream os;
  os << "recordWarpLayout: wrong record at slot " << first << " (block " << first / tpb << ", linear id " << first % tpb
     << "): expected " << str(want_first) << ", got " << str(got[first]);
  if (cudalab::is_poison(got[first])) os << " (never written: still the poison value)";
  os << "; " << wrong << " of " << n << " slots wrong (" << ctx.str() << ")";
  return os.str();
}

/// A random grid of 2 to 24 blocks, so the block offset in the grid matters.
dim3 random_grid(std::mt19937_64 &rng) { return dim3(1 + rng() % 4, 1 + rng() % 3, 1 + rng() % 2); }

class RecordWarpLayout : public cudalab::GpuTest, public ::testing::WithParamInterface<dim3> {};

TEST_P(RecordWarpLayout, EveryThreadKnowsItsLinearIdWarpAndLane) {
  const dim3 block = GetParam();
  std::mt19937_64 rng(seed());
  dim3 grid = random_grid(rng);
  if (grid.x * grid.y * grid.z == 1) grid.x = 2;
  const std::string error = layout_error(block, grid, seed());
  if (!error.empty()) GTEST_FAIL() << error;
}

INSTANTIATE_TEST_SUITE_P(WarpLayout, RecordWarpLayout,
                         ::testing::Values(dim3(40, 2, 1), dim3(1, 1, 1), dim3(33, 1, 1), dim3(8, 8, 4),
                                           dim3(1024, 1, 1), dim3(16, 16, 1), dim3(7, 5, 3), dim3(1, 64, 1),
                                           dim3(3, 1, 11)),
                         [](const auto &info) {
                           const dim3 b = info.param;
                           return "block" + std::to_string(b.x) + "x" + std::to_string(b.y) + "x" + std::to_string(b.z);
                         });

class GridShapes : public cudalab::GpuTest {};

TEST_F(GridShapes, EveryGridDimensionCountsInTheBlockIndex) {
  // Grids long in x, in y, in z and in all three, with a 3D and a 2D block: the block's linear
  // index must use gridDim.x and gridDim.y (x fastest, then y, then z), whatever the seed draws.
  const dim3 grids[] = {dim3(5, 1, 1), dim3(1, 5, 1), dim3(1, 1, 5), dim3(3, 2, 2), dim3(2, 3, 4), dim3(4, 1, 3)};
  for (dim3 block : {dim3(7, 5, 3), dim3(40, 2, 1)})
    for (dim3 grid : grids) {
      const std::string error = layout_error(block, grid, seed());
      if (!error.empty()) GTEST_FAIL() << error;
    }
}

class RandomBlockShapes : public cudalab::GpuTest {};

TEST_F(RandomBlockShapes, EveryThreadKnowsItsLinearIdWarpAndLane) {
  std::mt19937_64 rng(seed());
  for (int i = 0; i < 40; ++i) {
    dim3 block(1 + rng() % 128, 1 + rng() % 16, 1 + rng() % 8);
    if (block.x * block.y * block.z > 1024) continue;
    const std::string error = layout_error(block, random_grid(rng), seed());
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

}  // namespace
