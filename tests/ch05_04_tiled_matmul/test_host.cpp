// ch05_04 host tests: matmul_traffic(), the seed's count of global loads and FLOPs for the naive
// (tile 1) and tiled kernels. No GPU needed.
#include "matmul.cuh"

#include "cudalab/testing.cuh"

#include <cmath>
#include <random>
#include <sstream>

namespace {

class TrafficModel : public cudalab::HostTest {
 protected:
  /// Compares every field of matmul_traffic(M, N, K, tile) with @p want; one failure per call.
  void expect(int M, int N, int K, int tile, const MatmulTraffic &want) {
    const MatmulTraffic got = matmul_traffic(M, N, K, tile);
    std::ostringstream where;
    where << "matmul_traffic(M=" << M << ", N=" << N << ", K=" << K << ", tile=" << tile << ")";
    auto wrong = [&](const char *field, double expected, double actual) {
      ADD_FAILURE() << where.str() << ": wrong " << field << ": expected " << expected << ", got " << actual;
    };
    auto close = [](double x, double y) { return std::fabs(x - y) <= 1e-9 * std::fmax(1.0, std::fabs(y)); };
    if (got.flops != want.flops) return wrong("flops", double(want.flops), double(got.flops));
    if (got.global_loads != want.global_loads)
      return wrong("global_loads", double(want.global_loads), double(got.global_loads));
    if (!close(got.flops_per_load, want.flops_per_load))
      return wrong("flops_per_load", want.flops_per_load, got.flops_per_load);
    if (!close(got.bytes_per_flop, want.bytes_per_flop))
      return wrong("bytes_per_flop", want.bytes_per_flop, got.bytes_per_flop);
    if (got.blocks != want.blocks) return wrong("blocks", double(want.blocks), double(got.blocks));
    if (got.phases != want.phases) return wrong("phases", double(want.phases), double(got.phases));
    if (got.shared_bytes != want.shared_bytes)
      return wrong("shared_bytes", double(want.shared_bytes), double(got.shared_bytes));
  }
  static MatmulTraffic traffic(long long flops, long long loads, long long blocks, long long phases, long long shared) {
    MatmulTraffic t;
    t.flops = flops;
    t.global_loads = loads;
    t.flops_per_load = double(flops) / double(loads);
    t.bytes_per_flop = 4.0 * double(loads) / double(flops);
    t.blocks = blocks;
    t.phases = phases;
    t.shared_bytes = shared;
    return t;
  }
};

// The seed's naive kernel: per multiply-add (2 FLOPs) one float of a and one of b, 8 bytes:
// 4 bytes per FLOP, 2 n^3 loads for n x n matrices. As a "tile" of 1 x 1: M N blocks, K phases,
// 2 floats of shared memory.
TEST_F(TrafficModel, NaiveFetchesFourBytesPerFlop) {
  const long long n = 1024;
  expect(1024, 1024, 1024, 1, traffic(2 * n * n * n, 2 * n * n * n, n * n, n, 8));
  if (HasFailure()) return;
  // 3 x 7 times 7 x 5: 15 dot products of 7 terms.
  expect(3, 5, 7, 1, traffic(2 * 3 * 5 * 7, 2 * 3 * 5 * 7, 15, 7, 8));
}

// M, N and K are ints, the counts long longs: a 65536 x 65536 result has 2^32 naive blocks (a
// block count or a product of two sizes kept in 32 bits overflows), 2^36 FLOPs and 2^36 loads.
TEST_F(TrafficModel, CountsPastTwoToThe31) {
  const long long n = 65536, k = 8;
  expect(65536, 65536, 8, 1, traffic(2 * n * n * k, 2 * n * n * k, n * n, k, 8));
  if (HasFailure()) return;
  // 2^31 - 1 rows of one column: 2^31 - 1 blocks of 1 x 1.
  const long long m = 2147483647;
  expect(2147483647, 1, 3, 1, traffic(2 * m * 3, 2 * m * 3, m, 3, 8));
}

// The seed's 16 x 16 tiles on 1024 x 1024: 64 x 64 = 4096 blocks of 256 threads, 64 phases; per
// block and phase 256 threads load 2 floats each (512 loads) and do 16 multiply-adds each
// (256 * 2 * 16 = 8192 FLOPs): 16 FLOPs per load, 2 n^3 / 16 loads in all, 0.25 bytes per FLOP;
// s_a and s_b take 2 * 16 * 16 * 4 = 2048 bytes. With 32 x 32 tiles: 2 n^3 / 32 loads, 8192 bytes.
TEST_F(TrafficModel, SeedsSixteenByTileFetchesSixteenTimesLess) {
  const long long n = 1024, flops = 2 * n * n * n;
  expect(1024, 1024, 1024, 16, traffic(flops, 2 * n * n * n / 16, 64 * 64, 64, 2048));
  if (HasFailure()) return;
  const MatmulTraffic t = matmul_traffic(1024, 1024, 1024, 16);
  EXPECT_EQ(t.global_loads / (t.blocks * t.phases), 512) << "loads per block and phase (the seed's 512)";
  EXPECT_EQ(t.flops / (t.blocks * t.phases), 8192) << "FLOPs per block and phase (the seed's 8192)";
  if (HasFailure()) return;
  expect(1024, 1024, 1024, 32, traffic(flops, 2 * n * n * n / 32, 32 * 32, 32, 8192));
}

// Ragged sizes: the zeros stored for elements outside a or b are not loads. Element (i, k) of a is
// loaded by each of the ceil(N / tile) blocks of its block row, element (k, j) of b by each of the
// ceil(M / tile) blocks of its block column:
//   1000^3, tile 16: 63 * 10^6 + 63 * 10^6 = 126,000,000 loads (not 2 * 1000^3 / 16 = 125,000,000),
//     63 x 63 = 3969 blocks, 63 phases;
//   M=17, N=5, K=33, tile 16: 1 * 17 * 33 + 2 * 33 * 5 = 891 loads, 2 x 1 blocks, 3 phases;
//   1 x 1 x 1, tile 32: 2 loads, 1 block, 1 phase, 8192 bytes of shared memory all the same.
TEST_F(TrafficModel, RaggedSizesCountOnlyRealElements) {
  expect(1000, 1000, 1000, 16, traffic(2000000000LL, 126000000LL, 3969, 63, 2048));
  if (HasFailure()) return;
  expect(17, 5, 33, 16, traffic(2 * 17 * 5 * 33, 891, 2, 3, 2048));
  if (HasFailure()) return;
  expect(1, 1, 1, 32, traffic(2, 2, 1, 1, 8192));
}

// Random small shapes and tiles against a count made thread by thread, phase by phase, exactly as
// the tiled kernel loads (a load happens only where the element lies inside a or b).
TEST_F(TrafficModel, MatchesAThreadByThreadCount) {
  std::mt19937_64 gen(seed());
  std::uniform_int_distribution<int> dim(1, 70);
  const int tiles[] = {1, 2, 4, 8, 16, 32};
  for (int c = 0; c < 150 && !HasFailure(); ++c) {
    const int M = dim(gen), N = dim(gen), K = dim(gen), T = tiles[c % 6];
    const long long by_n = (M + T - 1) / T, bx_n = (N + T - 1) / T, phases = (K + T - 1) / T;
    long long loads = 0;
    for (long long by = 0; by < by_n; ++by)
      for (long long bx = 0; bx < bx_n; ++bx)
        for (long long p = 0; p < phases; ++p)
          for (long long ty = 0; ty < T; ++ty)
            for (long long tx = 0; tx < T; ++tx) {
              const long long row = by * T + ty, col = bx * T + tx;
              loads += (row < M && p * T + tx < K) ? 1 : 0;  // s_a[ty][tx]
              loads += (p * T + ty < K && col < N) ? 1 : 0;  // s_b[ty][tx]
            }
    expect(M, N, K, T, traffic(2LL * M * N * K, loads, by_n * bx_n, phases, 2LL * T * T * 4));
  }
}

}  // namespace
