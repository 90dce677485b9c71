// ch04_02 host tests: the sector model (access_cost) on hand-derived cases, each derived in its
// comment, and against an independent simulation for random accesses. No GPU needed.
#include "coalescing.cuh"

#include "cudalab/testing.cuh"

#include <algorithm>
#include <random>
#include <sstream>
#include <vector>

namespace {

std::string describe(long long threads, long long offset, long long stride, int elem, int seg) {
  std::ostringstream os;
  os << "access_cost(threads=" << threads << ", offset=" << offset << ", stride=" << stride << ", " << elem
     << " B elements, " << seg << " B segments)";
  return os.str();
}

/// Checks every count access_cost returns; requested bytes are threads x elem.
void expect(long long threads, long long offset, long long stride, int elem, int seg, long long requests,
            long long segments, long long unique) {
  const AccessCost c = access_cost(threads, offset, stride, elem, seg);
  const long long requested = threads * elem;
  if (c.requests != requests || c.segments != segments || c.unique_segments != unique ||
      c.requested_bytes != requested || c.segment_bytes != seg) {
    ADD_FAILURE() << describe(threads, offset, stride, elem, seg) << ": expected " << requests << " requests, "
                  << segments << " segments (" << double(segments) / double(requests) << " per request), " << unique
                  << " unique segments, " << requested << " B requested, segment_bytes " << seg << "; got "
                  << c.requests << " requests, " << c.segments << " segments, " << c.unique_segments << " unique, "
                  << c.requested_bytes << " B, segment_bytes " << c.segment_bytes;
  }
}

class AccessCostModel : public cudalab::HostTest {};

TEST_F(AccessCostModel, AlignedWarpTouchesFourSectors) {
  // 1024 threads read consecutive floats from an aligned start: warp w reads bytes 128w .. 128w+127,
  // sectors 4w .. 4w+3. 32 requests x 4 sectors, 128 distinct sectors: 100 %, traffic 1.0.
  expect(1024, 0, 1, 4, 32, 32, 128, 128);
}

TEST_F(AccessCostModel, OffsetOneCostsAFifthSector) {
  // Offset 1: warp w reads bytes 128w+4 .. 128w+131, sectors 4w .. 4w+4: 5 per request (80 %).
  // The fifth is the next warp's first, so all warps together touch only bytes 4 .. 4099:
  // sectors 0 .. 128 = 129 distinct, barely more traffic than aligned.
  expect(1024, 1, 1, 4, 32, 32, 160, 129);
}

TEST_F(AccessCostModel, OffsetElevenSpansTwoFermiLines) {
  // The book's offset 11: warp w reads bytes 128w+44 .. 128w+171. On Fermi's 128 B lines that is
  // lines w and w+1: 2 per request, 50 % (book: gld_efficiency 49.81 %); 33 distinct lines.
  expect(1024, 11, 1, 4, 128, 32, 64, 33);
  // On 32 B sectors: sectors 4w+1 .. 4w+5, 5 per request (80 %); 129 distinct (bytes 44 .. 4139).
  expect(1024, 11, 1, 4, 32, 32, 160, 129);
}

TEST_F(AccessCostModel, OffsetOf32FloatsIsAlignedAgain) {
  // Offset 32 floats = 128 B: every warp starts on a line boundary again: 4 sectors per request,
  // 128 distinct sectors (4 .. 131). The book's offset 128 likewise: 4 per request.
  expect(1024, 32, 1, 4, 32, 32, 128, 128);
  expect(1024, 128, 1, 4, 32, 32, 128, 128);
}

TEST_F(AccessCostModel, StrideTwoDoublesTheTraffic) {
  // Stride 2: lane l of warp w reads bytes 256w + 8l: 256 B, 8 sectors per request, half of each
  // used (50 %). Distinct sectors over the access: bytes 0 .. 8187 = 256 sectors for 4096 B used:
  // the memory moves twice what the threads use.
  expect(1024, 0, 2, 4, 32, 32, 256, 256);
}

TEST_F(AccessCostModel, OneFieldOfA32ByteStructUsesAnEighth) {
  // testInnerStruct's load of .x: particles are 32 B (8 floats), so lane l reads byte 32l: one
  // sector per lane, 32 per request, 4 of 32 bytes used (12.5 %), 1024 distinct sectors: 8x traffic.
  expect(1024, 0, 8, 4, 32, 32, 1024, 1024);
  // The x, y pair as one 8-byte element 32 B apart: still 32 sectors, 25 %, traffic 4x.
  expect(1024, 0, 4, 8, 32, 32, 1024, 1024);
}

TEST_F(AccessCostModel, Stride32OnFermiLines) {
  // Stride 32 floats = 128 B: every lane its own 128 B line: 32 lines per request, 4 of 128 bytes
  // used (3.1 %), 1024 distinct lines. On 32 B sectors: 32 per request, 12.5 %.
  expect(1024, 0, 32, 4, 128, 32, 1024, 1024);
  expect(1024, 0, 32, 4, 32, 32, 1024, 1024);
}

TEST_F(AccessCostModel, EightByteElementsFillEightSectors) {
  // The book's innerStruct {x, y} loaded whole (8 B per lane): a warp reads 256 contiguous bytes,
  // 8 sectors, all used (100 %): more sectors per request is not waste when the request is wider.
  expect(1024, 0, 1, 8, 32, 32, 256, 256);
}

TEST_F(AccessCostModel, PartialLastWarpCountsOnlyItsThreads) {
  // 40 threads: warp 0 reads bytes 0 .. 127 (4 sectors), warp 1 only its 8 threads, bytes
  // 128 .. 159 (1 sector): 2 requests, 5 segments, 5 distinct, 160 B requested.
  expect(40, 0, 1, 4, 32, 2, 5, 5);
  // 1-byte elements, offset 30, 3 threads: bytes 30, 31, 32 straddle sectors 0 and 1.
  expect(3, 30, 1, 1, 32, 1, 2, 2);
}

// An independent simulation: every thread's segment, per warp sorted and deduplicated, and the
// whole access's segments sorted and deduplicated.
void simulate(long long threads, long long offset, long long stride, int elem, int seg, long long *requests,
              long long *segments, long long *unique) {
  std::vector<long long> all;
  *requests = *segments = 0;
  for (long long w = 0; w * 32 < threads; ++w) {
    std::vector<long long> ids;
    for (long long lane = 0; lane < 32 && w * 32 + lane < threads; ++lane)
      ids.push_back((offset + (w * 32 + lane) * stride) * elem / seg);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    ++*requests;
    *segments += static_cast<long long>(ids.size());
    all.insert(all.end(), ids.begin(), ids.end());
  }
  std::sort(all.begin(), all.end());
  *unique = std::unique(all.begin(), all.end()) - all.begin();
}

TEST_F(AccessCostModel, MatchesASimulationForRandomAccesses) {
  std::mt19937_64 gen(seed());
  for (int i = 0; i < 300; ++i) {
    const long long threads = 1 + static_cast<long long>(gen() % 5000);
    const long long offset = static_cast<long long>(gen() % 300);
    const long long stride = 1 + static_cast<long long>(gen() % 40);
    const int elem = 1 << (gen() % 5), seg = 32 << (gen() % 3);
    long long requests = 0, segments = 0, unique = 0;
    simulate(threads, offset, stride, elem, seg, &requests, &segments, &unique);
    expect(threads, offset, stride, elem, seg, requests, segments, unique);
    if (HasFailure()) return;  // the first wrong access is the one to look at
  }
}

TEST_F(AccessCostModel, MatchesTheSimulationPastTwoToThe31) {
  // threads, offset and stride are long longs: byte addresses and segment numbers reach past 2^31
  // (an offset of 2^31 floats, a stride of 2^28 elements, a few thousand threads), where a value
  // kept in 32 bits wraps and merges or splits segments.
  // Hand-derived first: 64 threads 2^32 floats apart, 32 B segments. Thread t's segment is t x 2^29,
  // so every thread has its own: 2 requests, 64 segments, 64 unique. Segment numbers kept in 32 bits
  // repeat every 8 threads (8 x 2^29 = 2^32): 8 per request, 8 unique.
  expect(64, 0, 1LL << 32, 4, 32, 2, 64, 64);
  std::mt19937_64 gen(seed());
  for (int i = 0; i < 100; ++i) {
    const long long threads = 1 + static_cast<long long>(gen() % 3000);
    const long long offset = (1LL << (28 + gen() % 8)) + static_cast<long long>(gen() % 300);
    const long long stride = i % 2 ? 1 + static_cast<long long>(gen() % 40) : (1LL << (20 + gen() % 10)) + i;
    const int elem = 1 << (gen() % 5), seg = 32 << (gen() % 3);
    long long requests = 0, segments = 0, unique = 0;
    simulate(threads, offset, stride, elem, seg, &requests, &segments, &unique);
    expect(threads, offset, stride, elem, seg, requests, segments, unique);
    if (HasFailure()) {
      ADD_FAILURE() << "addresses past 2^31 bytes: keep element indices, addresses and segment numbers in 64 bits "
                       "(seed "
                    << seed() << ")";
      return;
    }
  }
}

}  // namespace
