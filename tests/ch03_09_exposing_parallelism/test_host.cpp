// ch03_09 host tests: the configuration check on the H100's limits (and on a smaller device), and
// the heuristic's pick is a valid configuration of whole warps for any matrix. No GPU needed.
#include "shapes.cuh"

#include "cudalab/testing.cuh"

#include <cctype>
#include <random>

namespace {

class CheckConfiguration : public cudalab::HostTest {
 protected:
  /// Expects check_configuration to reject and its message to name every string in @p words.
  void expect_rejected(const LaunchLimits &l, dim3 grid, dim3 block, std::initializer_list<const char *> words) {
    std::string why;
    const cudaError_t err = check_configuration(l, grid, block, &why);
    if (err != cudaErrorInvalidConfiguration) {
      ADD_FAILURE() << "check_configuration(grid " << shape(grid) << ", block " << shape(block)
                    << "): expected cudaErrorInvalidConfiguration, got " << cudaGetErrorName(err);
      return;
    }
    for (const char *w : words)
      if (why.find(w) == std::string::npos)
        ADD_FAILURE() << "check_configuration(grid " << shape(grid) << ", block " << shape(block)
                      << "): the message should name " << w << "; it says: \"" << why << "\"";
  }
  static std::string shape(dim3 d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
  }
};

TEST_F(CheckConfiguration, RejectsTheSeeds256x8NamingTheLimit) {
  // 256 x 8 = 2048 threads, twice the 1024 threads a block may have.
  expect_rejected(h100_limits(), grid_for(16384, 16384, dim3(256, 8)), dim3(256, 8), {"2048", "1024"});
}

TEST_F(CheckConfiguration, AcceptsEveryOtherShapeOfTheSeedsSweep) {
  for (dim3 b : seeds_sweep()) {
    if (b.x * b.y > 1024) continue;
    std::string why;
    const cudaError_t err = check_configuration(h100_limits(), grid_for(16384, 16384, b), b, &why);
    if (err != cudaSuccess)
      GTEST_FAIL() << "check_configuration rejects block (" << b.x << "," << b.y << ") for 16384 x 16384 ("
                   << cudaGetErrorName(err) << ": " << why << "); the H100 runs it";
  }
}

TEST_F(CheckConfiguration, RejectsABlockDimensionOverItsOwnLimit) {
  // 65 threads are allowed in total, but blockDim.z may not exceed 64.
  expect_rejected(h100_limits(), dim3(1, 1, 1), dim3(1, 1, 65), {"65", "64"});
}

TEST_F(CheckConfiguration, RejectsAGridTallerThanTheGridYLimit) {
  // 100000 rows with one row per block: gridDim.y = 100000 > 65535.
  expect_rejected(h100_limits(), grid_for(256, 100000, dim3(256, 1)), dim3(256, 1), {"100000", "65535"});
}

TEST_F(CheckConfiguration, RejectsEmptyDimensions) {
  expect_rejected(h100_limits(), dim3(4, 4), dim3(0, 1), {"0"});
  expect_rejected(h100_limits(), dim3(0, 4), dim3(32, 1), {"0"});
}

// Every limit check_configuration promises, one row each, on a made-up device whose limits are
// all different numbers (so the message's numbers say which dimension it names): each dimension at
// its limit is accepted, one past it is rejected with a message naming the value and the limit.
TEST_F(CheckConfiguration, ChecksEveryDimensionAtAndPastItsLimit) {
  LaunchLimits l = h100_limits();
  l.max_threads_per_block = 1000;
  l.max_block[0] = 700;
  l.max_block[1] = 600;
  l.max_block[2] = 50;
  l.max_grid[0] = 2000000;
  l.max_grid[1] = 50001;
  l.max_grid[2] = 40001;
  struct Row {
    const char *what;                  // the dimension
    dim3 grid_at, block_at;            // at the limit: accepted
    dim3 grid_past, block_past;        // one past: rejected
    const char *value, *limit, *kind;  // what the message must name
  };
  const Row rows[] = {
      {"blockDim.x", dim3(1), dim3(700), dim3(1), dim3(701), "701", "700", "block"},
      {"blockDim.y", dim3(1), dim3(1, 600), dim3(1), dim3(1, 601), "601", "600", "block"},
      {"blockDim.z", dim3(1), dim3(1, 1, 50), dim3(1), dim3(1, 1, 51), "51", "50", "block"},
      {"threads per block", dim3(1), dim3(10, 10, 10), dim3(1), dim3(10, 10, 11), "1100", "1000", "block"},
      {"gridDim.x", dim3(2000000), dim3(1), dim3(2000001), dim3(1), "2000001", "2000000", "grid"},
      {"gridDim.y", dim3(1, 50001), dim3(1), dim3(1, 50002), dim3(1), "50002", "50001", "grid"},
      {"gridDim.z", dim3(1, 1, 40001), dim3(1), dim3(1, 1, 40002), dim3(1), "40002", "40001", "grid"},
  };
  for (const Row &r : rows) {
    std::string why;
    const cudaError_t err = check_configuration(l, r.grid_at, r.block_at, &why);
    EXPECT_EQ(err, cudaSuccess) << r.what << " at its limit: check_configuration(grid " << shape(r.grid_at)
                                << ", block " << shape(r.block_at) << ") must accept it, got " << cudaGetErrorName(err)
                                << ": " << why;
    expect_rejected(l, r.grid_past, r.block_past, {r.value, r.limit});
    why.clear();
    (void)check_configuration(l, r.grid_past, r.block_past, &why);
    std::string lower = why;
    for (char &c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_NE(lower.find(r.kind), std::string::npos)
        << r.what << " one past its limit: the message should say it is the " << r.kind << "; it says: \"" << why
        << "\"";
  }
}

TEST_F(CheckConfiguration, UsesTheLimitsItIsGiven) {
  // A device with 512 threads per block: (32,32) no longer fits, (32,16) does.
  LaunchLimits small = h100_limits();
  small.max_threads_per_block = 512;
  expect_rejected(small, dim3(8, 8), dim3(32, 32), {"1024", "512"});
  std::string why;
  const cudaError_t err = check_configuration(small, dim3(8, 8), dim3(32, 16), &why);
  EXPECT_EQ(err, cudaSuccess) << "check_configuration rejects (32,16) on a 512-thread device: " << why;
}

class PickBlockShape : public cudalab::HostTest {};

TEST_F(PickBlockShape, IsAValidShapeOfWholeWarpsAndSectorsForEveryMatrix) {
  std::mt19937_64 gen(seed());
  std::vector<std::pair<int, int>> sizes = {{16384, 16384}, {100, 1000003}, {(1 << 22) + 1, 60}, {1, 1},
                                            {7, 5000000},   {31, 70000},    {1000, 3},           {64, 2000003}};
  // Rows at and one past k x 65535 (the gridDim.y limit) up to 64 x 65535, the most rows that
  // blocks of 16 floats (two sectors) by 64 rows = 1024 threads cover. Past that a block needs
  // 128 rows, and (16,128) has 2048 threads: only blocks of 8 floats or fewer fit, whatever the
  // row's width ((8,128) is valid and still reads whole sectors).
  for (int k = 1; k <= 64; k *= 2)
    for (int nx : {9, 1000}) {
      sizes.push_back({nx, k * 65535});
      sizes.push_back({nx, k * 65535 + 1});
    }
  // The tallest matrices any block can still launch: k x 65535 rows need blocks of k rows, and a
  // block of 1024 threads covers at most 1024 rows (128 rows of 8 floats for rows 8 wide). A pick
  // that asks for one row more per block than it needs (a ceiling division off by one) passes
  // the thread limit here.
  for (int k : {128, 256, 512, 1024}) sizes.push_back({1, k * 65535});
  sizes.push_back({8, 128 * 65535});
  for (int nx : {8, 20, 1000, 100000}) sizes.push_back({nx, 5000000});
  // Up to 2,000,000 rows: a block of 32 x 32 still keeps gridDim.y <= 65535.
  for (int i = 0; i < 200; ++i) sizes.push_back({1 + int(gen() % 100000), 1 + int(gen() % 2000000)});
  const LaunchLimits l = h100_limits();
  for (auto [nx, ny] : sizes) {
    const dim3 b = pick_block_shape(l, nx, ny);
    const std::string bad = invalid_reason(l, nx, ny, b);
    if (!bad.empty())
      GTEST_FAIL() << "pick_block_shape(" << nx << " x " << ny << ") = (" << b.x << "," << b.y << "," << b.z
                   << ") is not a valid launch: " << bad << " (seed " << seed() << ")";
    // Whole warps, and whole 32-byte sectors along a row: blockDim.x a multiple of 8 floats
    // unless the block covers the whole row.
    if (b.z != 1 || (b.x * b.y) % 32 != 0 || (b.x % 8 != 0 && b.x < unsigned(nx)))
      GTEST_FAIL() << "pick_block_shape(" << nx << " x " << ny << ") = (" << b.x << "," << b.y << "," << b.z
                   << "): want blockDim.z = 1, whole warps per block, and blockDim.x a multiple of 8 "
                      "(or covering the whole row) so warps read whole 32-byte sectors (seed "
                   << seed() << ")";
  }
}

}  // namespace
