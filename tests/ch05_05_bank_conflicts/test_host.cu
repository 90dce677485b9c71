// ch05_05 host tests: bank_of, warp_conflict_degree and conflict_degree on hand-derived cases
// (each derived in its comment) and against a brute-force model on fresh random inputs. No GPU.
#include "bank_conflicts.cuh"
#include "transpose_check.cuh"
#include "cudalab/testing.cuh"

#include <limits>
#include <random>
#include <sstream>
#include <vector>

namespace {

std::string show(const std::vector<long long> &words) {
  std::ostringstream os;
  os << "{";
  for (std::size_t i = 0; i < words.size(); ++i) os << (i ? ", " : "") << words[i];
  os << "}";
  return os.str();
}

/// The student's warp_conflict_degree on @p words, compared with the brute-force model.
void expect_warp(const std::vector<long long> &words, int want, const std::string &what) {
  const int got = warp_conflict_degree(words.data(), static_cast<int>(words.size()));
  if (got != want)
    ADD_FAILURE() << "warp_conflict_degree(" << what << ": lanes read words " << show(words) << ", " << words.size()
                  << " lanes) returned " << got << ", expected " << want << "-way";
}

class BankModel : public cudalab::HostTest {};

TEST_F(BankModel, BankOfIsTheWordIndexModulo32) {
  // Word 0 is bank 0, word 31 bank 31, word 32 bank 0 again; word 33 * 5 = 165 = 5 * 32 + 5.
  const long long words[] = {0, 1, 31, 32, 33, 165, 1023, 1LL << 40, (1LL << 40) + 7};
  const int banks[] = {0, 1, 31, 0, 1, 5, 31, 0, 7};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(bank_of(words[i]), banks[i]) << "bank_of(" << words[i] << ")";
  // Before the array's start: word -1 is the last bank, -32 bank 0, -33 bank 31.
  EXPECT_EQ(bank_of(-1), 31) << "bank_of(-1): the bank is always 0..31";
  EXPECT_EQ(bank_of(-32), 0) << "bank_of(-32)";
  EXPECT_EQ(bank_of(-33), 31) << "bank_of(-33)";
  std::mt19937_64 gen(seed());
  for (int k = 0; k < 10000; ++k) {
    const long long w = static_cast<long long>(gen() % (1ULL << 50)) - (1LL << 49);
    const int want = static_cast<int>(((w % 32) + 32) % 32);
    if (bank_of(w) != want) GTEST_FAIL() << "bank_of(" << w << ") returned " << bank_of(w) << ", expected " << want;
  }
}

TEST_F(BankModel, WarpDegreeHandDerivedCases) {
  std::vector<long long> v(32);
  for (int l = 0; l < 32; ++l) v[l] = l;
  expect_warp(v, 1, "consecutive words: one per bank");
  for (int l = 0; l < 32; ++l) v[l] = 7;
  expect_warp(v, 1, "all lanes one word: a broadcast, not a conflict");
  for (int l = 0; l < 32; ++l) v[l] = 32 * l;
  expect_warp(v, 32, "words 0, 32, 64, ...: 32 different words, all in bank 0");
  for (int l = 0; l < 32; ++l) v[l] = 32 * (l % 4);
  expect_warp(v, 4, "only words 0, 32, 64, 96, each read by 8 lanes: 4 distinct words in bank 0");
  for (int l = 0; l < 32; ++l) v[l] = (l * 7) % 32 + 64;
  expect_warp(v, 1, "a permutation of one row of 32 words");
  for (int l = 0; l < 32; ++l) v[l] = l < 16 ? l : l + 16;  // 0..15, then 32..47: banks 0..15 twice
  expect_warp(v, 2, "words 0..15 and 32..47: banks 0..15 each hold two words");
  expect_warp({}, 0, "no active lane");
  expect_warp({5}, 1, "one lane");
  expect_warp({3, 35, 67}, 3, "three lanes, three words in bank 3");
  expect_warp({-1, 31, 63, 31}, 3, "words -1, 31, 63: bank 31, three distinct (31 twice)");
  // Word indices are 64-bit: words 2^32 apart are distinct words of one bank, whatever their low
  // 32 bits say (a word index kept in an int makes them one word, a broadcast).
  for (int l = 0; l < 32; ++l) v[l] = static_cast<long long>(l) << 32;
  expect_warp(v, 32, "words l * 2^32: 32 different words, all in bank 0 (keep word indices in 64 bits)");
}

TEST_F(BankModel, ColumnOfATileHandDerivedStrides) {
  // Lane l reads word l * stride. Stride 32 (tile[32][32]): all in bank 0, 32-way. Stride 33
  // (tile[32][33]): bank l, conflict-free. Stride 2: banks 0, 2, ..., 30 twice each: 2-way.
  // Stride 16: banks 0 and 16, 16 words each. Stride 64: 32-way. Stride 0: one word, broadcast.
  // Stride 1, 3, 31: odd, conflict-free. Stride 48 = 16 * 3: banks 0 and 16: 16-way.
  const int cases[][2] = {{32, 32}, {33, 1}, {2, 2},  {16, 16}, {64, 32}, {0, 1},
                          {1, 1},   {3, 1},  {31, 1}, {48, 16}, {8, 8},   {96, 32}};
  for (const auto &c : cases)
    EXPECT_EQ(conflict_degree(c[0]), c[1]) << "conflict_degree(" << c[0] << "): a warp reading one column of a tile "
                                           << "whose rows are " << c[0] << " words apart";
}

TEST_F(BankModel, WarpDegreeMatchesABruteForceModelOnRandomAccesses) {
  std::mt19937_64 gen(seed());
  for (int k = 0; k < 3000; ++k) {
    const int lanes = static_cast<int>(gen() % 33);  // 0..32 active lanes
    // A small range of words makes repeats (broadcasts) and shared banks frequent.
    const long long range = 1 + static_cast<long long>(gen() % (k % 3 == 0 ? 64 : 4096));
    const long long base = static_cast<long long>(gen() % 100000);
    std::vector<long long> v(lanes);
    for (auto &w : v) w = base + static_cast<long long>(gen() % range);
    const int want = model_conflict_degree(v);
    expect_warp(v, want, "random access, seed " + std::to_string(seed()));
    if (HasFailure()) return;  // the first wrong case is the one to look at
  }
}

TEST_F(BankModel, ColumnDegreeMatchesABruteForceModelForEveryStrideTo4096AndRandomOnes) {
  std::mt19937_64 gen(seed());
  std::vector<int> strides;
  for (int s = 0; s <= 4096; ++s) strides.push_back(s);
  for (int k = 0; k < 2000; ++k) strides.push_back(static_cast<int>(gen() % (1u << 20)));
  // Every int stride is allowed: lane 31 of a stride past 2^31 / 31 reads a word past 2^31, and
  // the products must not wrap (the powers of two from 2^26 on wrap onto other lanes' words).
  for (int k = 20; k <= 30; ++k)
    for (int d : {-1, 0, 1}) strides.push_back((1 << k) + d);
  for (int d = 0; d < 64; ++d) strides.push_back(std::numeric_limits<int>::max() - d);
  for (int k = 0; k < 200; ++k) strides.push_back(static_cast<int>(gen() % (1u << 31)));
  for (int s : strides) {
    std::vector<long long> v(32);
    for (int l = 0; l < 32; ++l) v[l] = static_cast<long long>(l) * s;
    const int want = model_conflict_degree(v);
    if (conflict_degree(s) != want)
      GTEST_FAIL() << "conflict_degree(" << s << ") returned " << conflict_degree(s) << ", expected " << want
                   << "-way (lane l reads word l * " << s << "; seed " << seed() << ")";
  }
}

}  // namespace
