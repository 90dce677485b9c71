// ch04_01 host tests: the calculators on the seed's own figures (each derived by hand in its
// comment) and on random cases against formulas written out independently here. No GPU needed.
#include "intensity.cuh"

#include "cudalab/testing.cuh"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace {

/// Relative comparison for figures that are products and quotients of doubles.
::testing::AssertionResult close(const char *what, double got, double want, double rel = 1e-9) {
  if (std::abs(got - want) <= rel * std::max(1.0, std::abs(want))) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os.precision(10);
  os << what << ": expected " << want << ", got " << got;
  return ::testing::AssertionFailure() << os.str();
}

/// Exact comparison of counts, with a one-line message.
::testing::AssertionResult eq(const std::string &what, long long got, long long want) {
  if (got == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": expected " << want << ", got " << got;
}

class ThroughputModel : public cudalab::HostTest {};

TEST_F(ThroughputModel, SeedGpuComputesAbout100FlopsPerFloatItLoads) {
  // The seed: 11.3 TFLOP/s and 484 GB/s. 484 GB/s / 4 B = 121 G floats/s;
  // 11300 GFLOP/s / 121 G floats/s = 93.39 FLOPs per float loaded: "about 100x".
  EXPECT_TRUE(close("gfloats_per_second(484, 4)", gfloats_per_second(484.0, 4), 121.0));
  EXPECT_TRUE(close("compute_to_io_ratio(11300, 484, 4)", compute_to_io_ratio(11300.0, 484.0, 4), 11300.0 / 121.0));
  // Doubles (8 B) halve the elements per second and double the gap: 60.5 G/s, 186.8.
  EXPECT_TRUE(close("gfloats_per_second(484, 8)", gfloats_per_second(484.0, 8), 60.5));
  EXPECT_TRUE(close("compute_to_io_ratio(11300, 484, 8)", compute_to_io_ratio(11300.0, 484.0, 8), 11300.0 / 60.5));
}

TEST_F(ThroughputModel, MatchesTheDefinitionForRandomGpus) {
  std::mt19937_64 gen(seed());
  std::uniform_real_distribution<double> peak(100.0, 200000.0), bw(50.0, 10000.0);
  for (int i = 0; i < 200; ++i) {
    const double p = peak(gen), g = bw(gen);
    const int bytes = 1 << (gen() % 4);  // 1, 2, 4, 8
    // Independent form: elements per second = bytes/s / bytes; FLOPs per element = FLOP/s / that.
    const double elements_per_s = g * 1e9 / bytes;
    std::ostringstream what;
    what << "peak " << p << " GFLOP/s, " << g << " GB/s, " << bytes << " B elements";
    ASSERT_TRUE(
        close(("gfloats_per_second, " + what.str()).c_str(), gfloats_per_second(g, bytes), elements_per_s / 1e9));
    ASSERT_TRUE(close(("compute_to_io_ratio, " + what.str()).c_str(), compute_to_io_ratio(p, g, bytes),
                      p * 1e9 / elements_per_s));
  }
}

class MatmulModel : public cudalab::HostTest {};

TEST_F(MatmulModel, NaiveKernelMovesFourBytesPerFlop) {
  // Inner loop of the naive kernel: sum += a[row * n + k] * b[k * n + col]: 2 loads of 4 B and
  // 2 FLOPs (a multiply and an add): 8 B / 2 FLOPs = 4 B/FLOP (the seed's "GMAC").
  EXPECT_TRUE(close("matmul_bytes_per_flop(1, 4)", matmul_bytes_per_flop(1, 4), 4.0));
  // In doubles: 16 B / 2 FLOPs = 8 B/FLOP.
  EXPECT_TRUE(close("matmul_bytes_per_flop(1, 8)", matmul_bytes_per_flop(1, 8), 8.0));
  // To run at the seed's peak of 805 GFLOP/s it would need 4 x 805 = 3220 GB/s = 3.22 TB/s.
  EXPECT_TRUE(close("bandwidth_needed_gbs(805, 4)", bandwidth_needed_gbs(805.0, 4.0), 3220.0));
}

TEST_F(MatmulModel, NaiveKernelReachesOnly28Of805Gflops) {
  // The seed's GPU delivers 112 GB/s: at 4 B/FLOP that feeds 112 / 4 = 28 GFLOP/s,
  // 28 / 805 = 3.48 % of the peak. Intensity = 1 / (4 B/FLOP) = 0.25 FLOP/B.
  const double intensity = 1.0 / matmul_bytes_per_flop(1, 4);
  EXPECT_TRUE(close("1 / matmul_bytes_per_flop(1, 4)", intensity, 0.25));
  const double got = attainable_gflops(805.0, 0.25, 112.0);
  EXPECT_TRUE(close("attainable_gflops(805, 0.25, 112)", got, 28.0));
  EXPECT_NEAR(100.0 * got / 805.0, 3.478, 0.001) << "the naive kernel's share of the peak, in %";
}

TEST_F(MatmulModel, TilingDividesTheLoadsByTheTileWidth) {
  // n = 1024. Naive (tile 1): every output element loads a row of A and a column of B:
  // 2 n x n^2 = 2 n^3 = 2^31 loads. TILE 16: each element of A is loaded once per block of its
  // band of rows, 1024 / 16 = 64 blocks: 2 n^2 x 64 = 2^27 = 2^31 / 16.
  EXPECT_TRUE(eq("matmul_loads(1024, 1): naive 2 n^3", matmul_loads(1024, 1), 2147483648LL));
  EXPECT_TRUE(eq("matmul_loads(1024, 16): 2 n^3 / 16", matmul_loads(1024, 16), 134217728LL));
  EXPECT_TRUE(eq("matmul_loads(1024, 32): 2 n^3 / 32", matmul_loads(1024, 32), 67108864LL));
  // n = 1000, TILE 16: 63 blocks per band (the last one only 8 wide, its outside loads skipped):
  // 2 x 1000^2 x 63 = 126,000,000.
  EXPECT_TRUE(eq("matmul_loads(1000, 16): ceil(1000 / 16) = 63 blocks per band", matmul_loads(1000, 16), 126000000LL));
  // n = 1, any tile: one element of A, one of B.
  EXPECT_TRUE(eq("matmul_loads(1, 16)", matmul_loads(1, 16), 2LL));
  // A tile of 16 moves 4 / 16 = 0.25 B/FLOP, a tile of 32 0.125 B/FLOP.
  EXPECT_TRUE(close("matmul_bytes_per_flop(16, 4)", matmul_bytes_per_flop(16, 4), 0.25));
  EXPECT_TRUE(close("matmul_bytes_per_flop(32, 4)", matmul_bytes_per_flop(32, 4), 0.125));
}

TEST_F(MatmulModel, OneSixteenBySixteenPhaseLoads512ForThe8192Flops) {
  // 16 x 16 = 256 threads load one element of A and one of B: 512 loads. Each thread then does
  // 16 multiply-adds: 256 x 2 x 16 = 8192 FLOPs. 8192 / 512 = 16 FLOPs per load (the naive
  // kernel: 1). TILE 32: 2048 loads, 65536 FLOPs.
  EXPECT_TRUE(eq("tile_phase_loads(16)", tile_phase_loads(16), 512LL));
  EXPECT_TRUE(eq("tile_phase_flops(16)", tile_phase_flops(16), 8192LL));
  EXPECT_TRUE(eq("tile_phase_loads(32)", tile_phase_loads(32), 2048LL));
  EXPECT_TRUE(eq("tile_phase_flops(32)", tile_phase_flops(32), 65536LL));
  EXPECT_TRUE(eq("tile_phase_loads(1): the naive inner-loop step", tile_phase_loads(1), 2LL));
  EXPECT_TRUE(eq("tile_phase_flops(1): the naive inner-loop step", tile_phase_flops(1), 2LL));
}

::testing::AssertionResult same_launch(const char *what, const TiledLaunch &got, int gx, long long blocks, int tpb,
                                       int resident, int threads, double occupancy) {
  if (got.grid_x == gx && got.grid_y == gx && got.blocks == blocks && got.threads_per_block == tpb &&
      got.resident_blocks == resident && got.threads_per_sm == threads &&
      std::abs(got.thread_occupancy - occupancy) < 1e-12)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": expected grid " << gx << " x " << gx << " = " << blocks
                                       << " blocks of " << tpb << " threads, " << resident
                                       << " resident blocks = " << threads << " threads per SM, occupancy " << occupancy
                                       << "; got grid " << got.grid_x << " x " << got.grid_y << " = " << got.blocks
                                       << " blocks of " << got.threads_per_block << ", " << got.resident_blocks
                                       << " resident = " << got.threads_per_sm << " threads, occupancy "
                                       << got.thread_occupancy;
}

TEST_F(MatmulModel, SeedLaunchIs64x64BlocksAnd768ThreadsPerSm) {
  // 1024 x 1024 with TILE 16: 1024 / 16 = 64 blocks each way, 4096 blocks of 256 threads.
  // 3 blocks per SM: 768 threads -- all of an SM whose limit is 768 (100 %), 75 % of 1024,
  // and 37.5 % of an H100 SM's 2048.
  EXPECT_TRUE(
      same_launch("tiled_launch(1024, 16, 3, 768)", tiled_launch(1024, 16, 3, 768), 64, 4096, 256, 3, 768, 1.0));
  EXPECT_TRUE(
      same_launch("tiled_launch(1024, 16, 3, 1024)", tiled_launch(1024, 16, 3, 1024), 64, 4096, 256, 3, 768, 0.75));
  EXPECT_TRUE(
      same_launch("tiled_launch(1024, 16, 3, 2048)", tiled_launch(1024, 16, 3, 2048), 64, 4096, 256, 3, 768, 0.375));
  // n = 1000: ceil(1000 / 16) = 63 blocks each way, 3969 blocks.
  EXPECT_TRUE(
      same_launch("tiled_launch(1000, 16, 3, 768)", tiled_launch(1000, 16, 3, 768), 63, 3969, 256, 3, 768, 1.0));
  // 8 blocks of 256 would be 2048 threads, but the SM holds 1536: only 6 are resident (100 %).
  EXPECT_TRUE(
      same_launch("tiled_launch(1024, 16, 8, 1536)", tiled_launch(1024, 16, 8, 1536), 64, 4096, 256, 6, 1536, 1.0));
  // TILE 32 = 1024-thread blocks: an SM of 1536 threads holds one (66.7 %).
  EXPECT_TRUE(same_launch("tiled_launch(1024, 32, 3, 1536)", tiled_launch(1024, 32, 3, 1536), 32, 1024, 1024, 1, 1024,
                          1024.0 / 1536.0));
  // n = 2^20: 65536 blocks each way, 2^32 blocks in all (a block count is a long long: grid_x *
  // grid_y in 32 bits overflows).
  EXPECT_TRUE(same_launch("tiled_launch(1048576, 16, 3, 2048)", tiled_launch(1 << 20, 16, 3, 2048), 65536,
                          4294967296LL, 256, 3, 768, 0.375));
}

// Independent count of the tiled matmul's loads: walk every block and every phase and count the
// elements of the A tile and the B tile that lie inside the matrix.
long long simulate_loads(long long n, int tile) {
  const long long grid = (n + tile - 1) / tile;
  long long loads = 0;
  for (long long by = 0; by < grid; ++by)
    for (long long bx = 0; bx < grid; ++bx)
      for (long long p = 0; p < grid; ++p) {
        const long long rows = std::min<long long>(tile, n - by * tile);   // rows of the A tile
        const long long cols_a = std::min<long long>(tile, n - p * tile);  // columns of the A tile
        const long long rows_b = std::min<long long>(tile, n - p * tile);  // rows of the B tile
        const long long cols = std::min<long long>(tile, n - bx * tile);   // columns of the B tile
        loads += rows * cols_a + rows_b * cols;
      }
  return loads;
}

TEST_F(MatmulModel, LoadsMatchABlockByBlockCountForRandomSizes) {
  std::mt19937_64 gen(seed());
  for (int i = 0; i < 60; ++i) {
    const long long n = 1 + static_cast<long long>(gen() % 200);
    const int tile = 1 << (gen() % 6);  // 1 .. 32
    const long long want = simulate_loads(n, tile);
    const std::string args = "(" + std::to_string(n) + ", " + std::to_string(tile) + ")";
    ASSERT_TRUE(
        eq("matmul_loads" + args + " (a block-by-block count of the A and B loads)", matmul_loads(n, tile), want));
    ASSERT_TRUE(eq("tile_phase_loads(" + std::to_string(tile) + ")", tile_phase_loads(tile), 2LL * tile * tile));
    ASSERT_TRUE(eq("tile_phase_flops(" + std::to_string(tile) + ")", tile_phase_flops(tile), 2LL * tile * tile * tile));
    const TiledLaunch t = tiled_launch(static_cast<int>(n), tile, 1 + static_cast<int>(gen() % 8), 2048);
    const long long grid = (n + tile - 1) / tile;
    ASSERT_TRUE(eq("tiled_launch" + args + ".blocks", t.blocks, grid * grid));
    // The whole matmul: 2 n^3 FLOPs over loads x 4 bytes; for n a multiple of the tile this is
    // exactly matmul_bytes_per_flop.
    if (n % tile == 0) {
      const double bytes_per_flop = 4.0 * static_cast<double>(want) / (2.0 * n * n * n);
      ASSERT_TRUE(close("matmul_bytes_per_flop", matmul_bytes_per_flop(tile, 4), bytes_per_flop));
    }
  }
}

class Roofline : public cudalab::HostTest {};

TEST_F(Roofline, AttainableIsTheLowerRoof) {
  // The seed's GPU: peak 805 GFLOP/s, 112 GB/s. Ridge: 805 / 112 = 7.1875 FLOP/B.
  EXPECT_TRUE(close("ridge_intensity(805, 112)", ridge_intensity(805.0, 112.0), 7.1875));
  // TILE 16 floats: 4 FLOP/B < 7.19 -> memory-bound, 4 x 112 = 448 GFLOP/s (55.7 %).
  EXPECT_TRUE(close("attainable_gflops(805, 4, 112)", attainable_gflops(805.0, 4.0, 112.0), 448.0));
  // TILE 32: 8 FLOP/B > 7.19 -> compute-bound: the peak, 805.
  EXPECT_TRUE(close("attainable_gflops(805, 8, 112)", attainable_gflops(805.0, 8.0, 112.0), 805.0));
  // Exactly at the ridge both roofs give the peak.
  EXPECT_TRUE(close("attainable_gflops(805, 7.1875, 112)", attainable_gflops(805.0, 7.1875, 112.0), 805.0));
  // The compute-vs-I/O GPU: 11300 / 484 = 23.35 FLOP/B (x 4 B = the 93.4 FLOPs per float above).
  EXPECT_TRUE(close("ridge_intensity(11300, 484)", ridge_intensity(11300.0, 484.0), 11300.0 / 484.0));
}

TEST_F(Roofline, MatchesBothRoofsForRandomKernels) {
  std::mt19937_64 gen(seed());
  std::uniform_real_distribution<double> peak(100.0, 200000.0), bw(50.0, 10000.0), logi(-4.0, 4.0);
  for (int i = 0; i < 500; ++i) {
    const double p = peak(gen), g = bw(gen), intensity = std::pow(10.0, logi(gen));
    const double ridge = p / g;
    // Independent form: below the ridge the memory roof, from it on the compute roof.
    const double want = intensity < ridge ? intensity * g : p;
    std::ostringstream what;
    what << "attainable_gflops(" << p << ", " << intensity << ", " << g << ") (ridge " << ridge << ")";
    ASSERT_TRUE(close(what.str().c_str(), attainable_gflops(p, intensity, g), want));
    ASSERT_TRUE(close("ridge_intensity", ridge_intensity(p, g), ridge));
    ASSERT_TRUE(close("bandwidth_needed_gbs", bandwidth_needed_gbs(p, 1.0 / intensity), p / intensity));
  }
}

class DeviceFiguresModel : public cudalab::HostTest {};

TEST_F(DeviceFiguresModel, Fp32LanesPerSmFollowThePublishedTable) {
  // CUDA C++ Programming Guide, "Arithmetic Instructions": 32-bit floating-point add, multiply,
  // multiply-add results per clock cycle per multiprocessor. Every compute capability a GPU has
  // had: those of the header's table, then the older ones (0: not in the table), and one to come.
  const struct {
    int major, minor, lanes;
  } table[] = {{7, 0, 64},
               {7, 2, 64},
               {7, 5, 64},
               {8, 0, 64},
               {8, 6, 128},
               {8, 7, 128},
               {8, 9, 128},
               {9, 0, 128},
               {10, 0, 128},
               {10, 1, 128},
               {10, 3, 128},
               {11, 0, 128},
               {12, 0, 128},
               {12, 1, 128},
               // not in the table: 0
               {1, 0, 0},
               {1, 1, 0},
               {1, 2, 0},
               {1, 3, 0},
               {2, 0, 0},
               {2, 1, 0},
               {3, 0, 0},
               {3, 2, 0},
               {3, 5, 0},
               {3, 7, 0},
               {5, 0, 0},
               {5, 2, 0},
               {5, 3, 0},
               {6, 0, 0},
               {6, 1, 0},
               {6, 2, 0},
               {13, 0, 0}};
  for (const auto &row : table)
    EXPECT_TRUE(eq("fp32_lanes_per_sm(" + std::to_string(row.major) + ", " + std::to_string(row.minor) + ")",
                   fp32_lanes_per_sm(row.major, row.minor), row.lanes));
}

cudalab::DeviceInfo synthetic(int major, int minor, int sms, int clock_mhz, int mem_clock_mhz, int bus_bits) {
  cudalab::DeviceInfo d;
  d.cc_major = major;
  d.cc_minor = minor;
  d.sm_count = sms;
  d.sm_clock_khz = clock_mhz * 1000;
  d.mem_clock_khz = mem_clock_mhz * 1000;
  d.mem_bus_bits = bus_bits;
  return d;
}

::testing::AssertionResult same_figures(const std::string &gpu, const DeviceFigures &got, const DeviceFigures &want) {
  std::ostringstream os;
  os.precision(8);
  const auto check = [&](const char *field, double g, double w) {
    if (!(std::abs(g - w) <= 1e-9 * std::max(1.0, std::abs(w))))
      os << (os.str().empty() ? " " : "; ") << field << " expected " << w << ", got " << g;
  };
  check("fp32_lanes_per_sm", got.fp32_lanes_per_sm, want.fp32_lanes_per_sm);
  check("peak_gflops", got.peak_gflops, want.peak_gflops);
  check("theoretical_gbs", got.theoretical_gbs, want.theoretical_gbs);
  check("measured_gbs", got.measured_gbs, want.measured_gbs);
  check("gfloats", got.gfloats, want.gfloats);
  check("compute_to_io", got.compute_to_io, want.compute_to_io);
  check("ridge", got.ridge, want.ridge);
  const std::pair<const char *, const RooflinePoint *> points[] = {
      {"naive", &got.naive}, {"tiled16", &got.tiled16}, {"tiled32", &got.tiled32}};
  const RooflinePoint *wants[] = {&want.naive, &want.tiled16, &want.tiled32};
  for (int i = 0; i < 3; ++i) {
    const std::string name = points[i].first;
    check((name + ".intensity").c_str(), points[i].second->intensity, wants[i]->intensity);
    check((name + ".gflops").c_str(), points[i].second->gflops, wants[i]->gflops);
    check((name + ".pct_of_peak").c_str(), points[i].second->pct_of_peak, wants[i]->pct_of_peak);
  }
  if (os.str().empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "device_figures for " << gpu << ":" << os.str();
}

TEST_F(DeviceFiguresModel, H100FiguresDerivedByHand) {
  // H100 SXM (sm_90): 132 SMs x 128 lanes x 2 FLOPs x 1.98 GHz = 66,908.16 GFLOP/s.
  // HBM3: 2 x 2619 MHz x 5120 bit / 8 = 3352.32 GB/s theoretical; say 2996 GB/s measured.
  // 2996 / 4 = 749 G floats/s; 66908.16 / 749 = 89.33 FLOPs per float; ridge 66908.16 / 2996 =
  // 22.33 FLOP/B. Naive matmul: 0.25 x 2996 = 749 GFLOP/s = 1.12 % of peak; TILE 16 (4 FLOP/B):
  // 11,984 = 17.91 %; TILE 32 (8 FLOP/B): 23,968 = 35.82 % -- still memory-bound.
  DeviceFigures want;
  want.fp32_lanes_per_sm = 128;
  want.peak_gflops = 66908.16;
  want.theoretical_gbs = 3352.32;
  want.measured_gbs = 2996.0;
  want.gfloats = 749.0;
  want.compute_to_io = 66908.16 / 749.0;
  want.ridge = 66908.16 / 2996.0;
  want.naive = {0.25, 749.0, 100.0 * 749.0 / 66908.16};
  want.tiled16 = {4.0, 11984.0, 100.0 * 11984.0 / 66908.16};
  want.tiled32 = {8.0, 23968.0, 100.0 * 23968.0 / 66908.16};
  EXPECT_TRUE(same_figures("H100 SXM", device_figures(synthetic(9, 0, 132, 1980, 2619, 5120), 2996.0), want));
}

/// The figures of @p d written out from their definitions, with the lanes given.
DeviceFigures expected_figures(const cudalab::DeviceInfo &d, int lanes, double measured) {
  DeviceFigures f;
  f.fp32_lanes_per_sm = lanes;
  f.peak_gflops = 2.0 * lanes * d.sm_count * d.sm_clock_khz / 1e6;
  f.theoretical_gbs = 2.0 * d.mem_clock_khz * 1e3 * d.mem_bus_bits / 8.0 / 1e9;
  f.measured_gbs = measured;
  f.gfloats = measured / 4.0;
  f.compute_to_io = f.peak_gflops / f.gfloats;
  f.ridge = f.peak_gflops / measured;
  const int tiles[] = {1, 16, 32};
  RooflinePoint *points[] = {&f.naive, &f.tiled16, &f.tiled32};
  for (int i = 0; i < 3; ++i) {
    points[i]->intensity = tiles[i] / 4.0;  // 2 tile FLOPs per 2 loads of 4 bytes
    points[i]->gflops = std::min(f.peak_gflops, points[i]->intensity * measured);
    points[i]->pct_of_peak = 100.0 * points[i]->gflops / f.peak_gflops;
  }
  return f;
}

TEST_F(DeviceFiguresModel, PeaksMatchTheSpecSheetsOfSixGpus) {
  // Boost clocks and memory from the vendors' spec sheets; the computed FP32 peak must match the
  // published one within 1 % (and every field the definitions above exactly).
  const struct {
    const char *name;
    cudalab::DeviceInfo d;
    double measured_gbs, published_tflops;
  } gpus[] = {
      {"Tesla V100 SXM2", synthetic(7, 0, 80, 1530, 877, 4096), 790.0, 15.7},
      {"Tesla T4", synthetic(7, 5, 40, 1590, 5001, 256), 240.0, 8.1},
      {"A100 SXM4 40GB", synthetic(8, 0, 108, 1410, 1215, 5120), 1350.0, 19.5},
      {"GeForce RTX 3090", synthetic(8, 6, 82, 1695, 9751, 384), 840.0, 35.6},
      {"GeForce RTX 4090", synthetic(8, 9, 128, 2520, 10501, 384), 900.0, 82.6},
      {"GeForce RTX 5090", synthetic(12, 0, 170, 2407, 14001, 512), 1600.0, 104.8},
  };
  for (const auto &g : gpus) {
    const int lanes = (g.d.cc_major == 7 || (g.d.cc_major == 8 && g.d.cc_minor == 0)) ? 64 : 128;
    const DeviceFigures got = device_figures(g.d, g.measured_gbs);
    EXPECT_TRUE(same_figures(g.name, got, expected_figures(g.d, lanes, g.measured_gbs)));
    EXPECT_NEAR(got.peak_gflops / 1000.0, g.published_tflops, 0.01 * g.published_tflops)
        << g.name << ": peak FP32 TFLOP/s from SMs x lanes x 2 x boost clock";
  }
}

}  // namespace
