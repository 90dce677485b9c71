// ch03_08 host tests: the load-efficiency calculator on hand-derived cases (each derived in its
// comment) and against a warp-by-warp simulation for random shapes. No GPU needed.
#include "memory_operations.cuh"

#include "cudalab/testing.cuh"

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <vector>

namespace {

std::string describe(dim3 b, int nx, Mapping m, int elem, int tx) {
  std::ostringstream os;
  os << "load_efficiency(block (" << b.x << "," << b.y << "), nx=" << nx << ", "
     << (m == Mapping::kRowMajor ? "row-major" : "column-major") << ", " << elem << " B elements, " << tx
     << " B transactions)";
  return os.str();
}

void expect(dim3 b, int nx, Mapping m, int elem, int tx, long long requested, long long transactions) {
  const LoadEfficiency e = load_efficiency(b, nx, m, elem, tx);
  const double want = double(requested) / double(transactions * tx);
  if (e.requested_bytes != requested || e.transactions != transactions || e.transferred_bytes != transactions * tx ||
      !(std::abs(e.efficiency - want) < 1e-9)) {
    ADD_FAILURE() << describe(b, nx, m, elem, tx) << ": expected " << requested << " B requested, " << transactions
                  << " transactions, " << transactions * tx << " B transferred, efficiency " << 100 * want << "%; got "
                  << e.requested_bytes << " B, " << e.transactions << ", " << e.transferred_bytes << " B, "
                  << 100 * e.efficiency << "%";
  }
}

class LoadEfficiencyModel : public cudalab::HostTest {};

TEST_F(LoadEfficiencyModel, WarpReadingOneRowOf32FloatsUsesEveryByte) {
  // (32,16): each of the 16 warps reads 32 consecutive floats = 128 B = 4 sectors.
  expect(dim3(32, 16), 16384, Mapping::kRowMajor, 4, 32, 512 * 4, 16 * 4);
}

TEST_F(LoadEfficiencyModel, SixteenWideBlocksWastedHalfOfFermis128ByteLines) {
  // (16,16): a warp reads 2 rows x 64 B; on Fermi each row costs a whole 128 B line:
  // 128 B used of 256 B moved = 50 % (the book: gld_efficiency 49.96 %).
  expect(dim3(16, 16), 16384, Mapping::kRowMajor, 4, 128, 256 * 4, 8 * 2);
}

TEST_F(LoadEfficiencyModel, SixteenWideBlocksUseEveryByteOf32ByteSectors) {
  // The same block with 32 B sectors (Maxwell and newer): 2 rows x 2 sectors, nothing wasted.
  expect(dim3(16, 16), 16384, Mapping::kRowMajor, 4, 32, 256 * 4, 8 * 4);
}

TEST_F(LoadEfficiencyModel, ColumnMajorWarpUsesOneEighthOfEachSector) {
  // Column-major (32,16): the 32 lanes read 32 different rows, 4 B of a 32 B sector each: 12.5 %.
  expect(dim3(32, 16), 16384, Mapping::kColumnMajor, 4, 32, 512 * 4, 16 * 32);
  // On Fermi's 128 B lines: 4 B of 128 B = 3.125 %.
  expect(dim3(32, 16), 16384, Mapping::kColumnMajor, 4, 128, 512 * 4, 16 * 32);
}

TEST_F(LoadEfficiencyModel, FourWideBlocksUseHalfOfEachSector) {
  // (4,64): a warp reads 8 rows x 16 B; each 16 B costs a 32 B sector: 50 %.
  expect(dim3(4, 64), 16384, Mapping::kRowMajor, 4, 32, 256 * 4, 8 * 8);
}

TEST_F(LoadEfficiencyModel, RowsStartingMidSectorCostAnExtraSector) {
  // nx = 1001 floats: row 1 starts at byte 4004, so its 64 B span sectors 125, 126 and 127.
  // The one warp of (16,2): 2 + 3 sectors = 160 B for 128 B requested = 80 %.
  expect(dim3(16, 2), 1001, Mapping::kRowMajor, 4, 32, 128, 5);
}

TEST_F(LoadEfficiencyModel, PartialLastWarpCountsOnlyItsThreads) {
  // (16,3) = 48 threads: warp 0 reads rows 0-1 (4 sectors), warp 1 only row 2 (16 lanes, 2 sectors).
  expect(dim3(16, 3), 16384, Mapping::kRowMajor, 4, 32, 48 * 4, 6);
}

TEST_F(LoadEfficiencyModel, RowsOfOneWarpShareSectors) {
  // (8,4) on a matrix 10 floats wide: the one warp reads rows at bytes 0, 40, 80, 120, 32 B each:
  // [0,32) sector 0, [40,72) sectors 1-2, [80,112) sectors 2-3, [120,152) sectors 3-4. The warp
  // moves the distinct sectors 0..4 once: 5 transactions (counting row by row would give 7).
  expect(dim3(8, 4), 10, Mapping::kRowMajor, 4, 32, 128, 5);
}

// An independent simulation: every lane's address, segments counted per warp with a map.
LoadEfficiency simulate(dim3 b, int nx, Mapping m, int elem, int tx) {
  LoadEfficiency e;
  std::map<long long, std::map<long long, int>> warps;  // warp -> segment -> lanes
  for (long long y = 0; y < b.y; ++y)
    for (long long x = 0; x < b.x; ++x) {
      const long long t = y * b.x + x;
      const long long col = m == Mapping::kRowMajor ? x : y, row = m == Mapping::kRowMajor ? y : x;
      ++warps[t / 32][(row * nx + col) * elem / tx];
      e.requested_bytes += elem;
    }
  for (const auto &w : warps) e.transactions += static_cast<long long>(w.second.size());
  e.transferred_bytes = e.transactions * tx;
  e.efficiency = double(e.requested_bytes) / double(e.transferred_bytes);
  return e;
}

TEST_F(LoadEfficiencyModel, MatchesAWarpByWarpSimulationForRandomShapes) {
  std::mt19937_64 gen(seed());
  for (int i = 0; i < 300; ++i) {
    const unsigned bx = 1u << (gen() % 11), by = 1 + gen() % (1024 / bx);
    const int nx = 1 + int(gen() % 5000);
    const Mapping m = gen() % 2 ? Mapping::kRowMajor : Mapping::kColumnMajor;
    const int elem = 1 << (gen() % 5), tx = 32 << (gen() % 3);
    const LoadEfficiency want = simulate(dim3(bx, by), nx, m, elem, tx);
    expect(dim3(bx, by), nx, m, elem, tx, want.requested_bytes, want.transactions);
    if (HasFailure()) return;  // the first wrong shape is the one to look at
  }
}

TEST_F(LoadEfficiencyModel, MatchesTheSimulationForRaggedBlockWidths) {
  // Block widths that are not powers of two (24, 40, 100, ...): a warp then covers parts of two or
  // more rows that start at different offsets, so a rule such as "a warp covers 32 / blockDim.x
  // whole rows" or "count the segments of one row and multiply" gives wrong counts.
  std::mt19937_64 gen(seed());
  const unsigned widths[] = {3, 5, 12, 24, 40, 48, 100, 33, 96, 200, 1000};
  for (int i = 0; i < 300; ++i) {
    const unsigned bx = i < 11 ? widths[i] : 1 + unsigned(gen() % 1024);
    const unsigned by = 1 + unsigned(gen() % (1024 / bx));
    // The block lies inside the matrix; every other run a narrow one, whose rows share segments.
    const int nx = int(std::max(bx, by)) + int(gen() % (i % 2 ? 64 : 5000));
    const Mapping m = gen() % 2 ? Mapping::kRowMajor : Mapping::kColumnMajor;
    const int elem = 1 << (gen() % 5), tx = 32 << (gen() % 3);
    const LoadEfficiency want = simulate(dim3(bx, by), nx, m, elem, tx);
    expect(dim3(bx, by), nx, m, elem, tx, want.requested_bytes, want.transactions);
    if (HasFailure()) return;  // the first wrong shape is the one to look at
  }
}

TEST_F(LoadEfficiencyModel, MatchesTheSimulationForRowsOfAnyIntLength) {
  // nx is any int: with a long row, a column-major warp's addresses reach far past 2^31 bytes
  // (lane 31 of nx = 2^30 floats is at 2^37), and an address computed in 32 bits wraps onto
  // another lane's segment (nx = 2^28 floats: every fourth lane lands on the same 32-bit address).
  // Hand-derived first: block (32,32) column-major, nx = 2^30, 16 B elements, 32 B sectors. Lane x
  // of warp w reads sector x * 2^29 + w / 2: 32 sectors per warp, 1024 in all. Sector numbers kept
  // in 32 bits repeat every 8 lanes (8 x 2^29 = 2^32): 8 per warp.
  expect(dim3(32, 32), 1 << 30, Mapping::kColumnMajor, 16, 32, 1024 * 16, 1024);
  std::mt19937_64 gen(seed());
  std::vector<int> rows;
  for (int k = 20; k <= 30; ++k) rows.insert(rows.end(), {(1 << k) - 1, 1 << k, (1 << k) + 3});
  for (int d = 0; d < 8; ++d) rows.push_back(std::numeric_limits<int>::max() - d);
  for (int nx : rows) {
    for (const Mapping m : {Mapping::kColumnMajor, Mapping::kRowMajor}) {
      const unsigned bx = 1u << (gen() % 11), by = 1 + unsigned(gen() % (1024 / bx));
      const int elem = 1 << (gen() % 5), tx = 32 << (gen() % 3);
      for (const dim3 b : {dim3(32, 32), dim3(bx, by)}) {
        const LoadEfficiency want = simulate(b, nx, m, elem, tx);
        expect(b, nx, m, elem, tx, want.requested_bytes, want.transactions);
        if (HasFailure()) {
          ADD_FAILURE() << "byte addresses past 2^31 (nx = " << nx << "): compute them in 64 bits (seed " << seed()
                        << ")";
          return;
        }
      }
    }
  }
}

}  // namespace
