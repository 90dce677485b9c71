// ch05_03 correctness: setCoefficients + polynomialConstant (uniform coefficients in constant
// memory) and lookupGlobal (non-uniform coefficients from global memory), for any size and block,
// against a double-precision CPU reference.
#include "constant_memory.cuh"
#include "cudalab/launch.cuh"
#include "poly_check.cuh"

namespace {

struct Case {
  int n, count;
};
// Sizes that are not multiples of any block (1, 31, 33, ...), each with its own coefficient count
// (1 and the full kMaxCoefficients included).
const Case kCases[] = {{1, kMaxCoefficients}, {31, 1}, {33, 7}, {1000, 33}, {4097, kMaxCoefficients},
                       {(1 << 20) + 3, 20}};
const unsigned int kBlocks[] = {32, 100, 256, 1024};

std::string block_name(const ::testing::TestParamInfo<unsigned int> &info) {
  return "block" + std::to_string(info.param);
}

std::string describe_call(const char *what, cudaError_t err) {
  return std::string(what) + " returned " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
}

// ---------------------------------------------------------------------------------------------

class PolynomialConstantCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned int> {};

// Before each case the whole constant array is filled with other random coefficients, so a kernel
// that reads past `count` (or a setter that copies nothing) meets stale values, not zeros.
TEST_P(PolynomialConstantCorrectness, RightForAnySize) {
  const unsigned int block = GetParam();
  for (const Case &c : kCases) {
    const std::uint64_t s = seed() + 7919u * c.n;
    const std::vector<float> stale = random_coefficients(kMaxCoefficients, s + 1);
    const std::vector<float> coef = random_coefficients(c.count, s + 2);
    const std::vector<float> x = random_inputs(c.n, s + 3);
    const std::string ctx =
        cudalab::context({{"n", c.n}, {"count", c.count}, {"block", block}, {"seed", (long long)seed()}});
    cudaError_t err = setCoefficients(stale.data(), kMaxCoefficients);
    if (err != cudaSuccess)
      GTEST_FAIL() << describe_call("setCoefficients(h, kMaxCoefficients)", err) << " (" << ctx << ")";
    err = setCoefficients(coef.data(), c.count);
    if (err != cudaSuccess) GTEST_FAIL() << describe_call("setCoefficients(h, count)", err) << " (" << ctx << ")";
    std::vector<float> y;
    const std::string error = run_polynomial_constant(x, c.count, block, &y);
    if (!error.empty()) GTEST_FAIL() << error << " (" << ctx << ")";
    ASSERT_TRUE(close_to("polynomialConstant", ctx, polynomial_reference(x, coef, c.count), y));
  }
}

INSTANTIATE_TEST_SUITE_P(Polynomial, PolynomialConstantCorrectness, ::testing::ValuesIn(kBlocks), block_name);

// ---------------------------------------------------------------------------------------------

class CoefficientUpload : public cudalab::GpuTest {};

// Three uploads of different fresh coefficients (the second one shorter): each run must use the
// latest. A kernel with coefficients built in, a setter that copies once, or a kernel that uses
// kMaxCoefficients instead of count (it would meet the first upload's leftovers) all fail here.
TEST_F(CoefficientUpload, EachRunUsesTheLatestUpload) {
  const int n = 4097;
  const unsigned int block = 256;
  const std::vector<float> x = random_inputs(n, seed());
  const struct {
    int count;
    std::uint64_t salt;
  } uploads[] = {{kMaxCoefficients, 11}, {17, 12}, {kMaxCoefficients - 1, 13}};
  for (const auto &u : uploads) {
    const std::vector<float> coef = random_coefficients(u.count, seed() + u.salt);
    const std::string ctx =
        cudalab::context({{"n", n}, {"count", u.count}, {"block", block}, {"seed", (long long)seed()}});
    const cudaError_t err = setCoefficients(coef.data(), u.count);
    if (err != cudaSuccess) GTEST_FAIL() << describe_call("setCoefficients(h, count)", err) << " (" << ctx << ")";
    std::vector<float> y;
    const std::string error = run_polynomial_constant(x, u.count, block, &y);
    if (!error.empty()) GTEST_FAIL() << error << " (" << ctx << ")";
    ASSERT_TRUE(close_to("polynomialConstant after upload of " + std::to_string(u.count) + " coefficients", ctx,
                         polynomial_reference(x, coef, u.count), y));
  }
}

// setCoefficients copies exactly `count` coefficients to the start of the array: entries from
// count on keep what they held (constant_memory.cuh). 64 coefficients, then 17 from a host buffer
// whose 18th float is a sentinel far from any coefficient, then a run with all 64: entries 0..16
// must be the second upload, 17..63 still the first. A copy of count + 1 floats (the sentinel
// lands in entry 17), of count - 1, or at an offset fails here.
TEST_F(CoefficientUpload, CopiesExactlyCountCoefficientsToTheStart) {
  const int n = 4097, second = 17;
  const unsigned int block = 256;
  const std::vector<float> x = random_inputs(n, seed());
  const std::vector<float> first = random_coefficients(kMaxCoefficients, seed() + 21);
  std::vector<float> host = random_coefficients(second, seed() + 22);
  host.push_back(1000.f);  // one float past the count: must not be copied
  std::vector<float> want = first;
  for (int k = 0; k < second; ++k) want[k] = host[k];
  const std::string ctx = cudalab::context({{"n", n}, {"block", block}, {"seed", (long long)seed()}}) +
                          "; setCoefficients(first, 64), then setCoefficients(second, 17), run with count 64";
  cudaError_t err = setCoefficients(first.data(), kMaxCoefficients);
  if (err != cudaSuccess) GTEST_FAIL() << describe_call("setCoefficients(h, 64)", err) << " (" << ctx << ")";
  err = setCoefficients(host.data(), second);
  if (err != cudaSuccess) GTEST_FAIL() << describe_call("setCoefficients(h, 17)", err) << " (" << ctx << ")";
  std::vector<float> y;
  const std::string error = run_polynomial_constant(x, kMaxCoefficients, block, &y);
  if (!error.empty()) GTEST_FAIL() << error << " (" << ctx << ")";
  ASSERT_TRUE(close_to("setCoefficients + polynomialConstant (entries 0..16 from the second upload, 17..63 left from "
                       "the first: a copy of 18 floats puts 1000 into entry 17, a copy of 16 or at an offset "
                       "leaves entry 16 or 0 wrong)",
                       ctx, polynomial_reference(x, want, kMaxCoefficients), y));
}

// Counts outside [1, kMaxCoefficients] and a null pointer are rejected with cudaErrorInvalidValue,
// and a rejected call changes nothing: the coefficients uploaded before it are still in use.
TEST_F(CoefficientUpload, BadCountsAreRejectedAndChangeNothing) {
  const int n = 1000, count = 10;
  const unsigned int block = 256;
  const std::vector<float> good = random_coefficients(count, seed());
  const std::vector<float> other = random_coefficients(kMaxCoefficients + 8, seed() + 1);
  const std::vector<float> x = random_inputs(n, seed() + 2);
  const std::string ctx = cudalab::context({{"n", n}, {"count", count}, {"block", block}, {"seed", (long long)seed()}});
  cudaError_t err = setCoefficients(good.data(), count);
  if (err != cudaSuccess)
    GTEST_FAIL() << describe_call("setCoefficients(h, 10)", err) << ": a valid count must succeed (" << ctx << ")";
  const struct {
    const float *h;
    int count;
    const char *what;
  } bad[] = {{other.data(), kMaxCoefficients + 1, "setCoefficients(h, kMaxCoefficients + 1)"},
             {other.data(), kMaxCoefficients + 8, "setCoefficients(h, kMaxCoefficients + 8)"},
             {other.data(), 0, "setCoefficients(h, 0)"},
             {other.data(), -1, "setCoefficients(h, -1)"},
             {nullptr, count, "setCoefficients(nullptr, 10)"}};
  for (const auto &b : bad) {
    err = setCoefficients(b.h, b.count);
    EXPECT_EQ(err, cudaErrorInvalidValue) << describe_call(b.what, err) << ", expected cudaErrorInvalidValue";
  }
  cudaGetLastError();  // a runtime call that failed on purpose leaves its error behind: clear it
  if (HasFailure()) return;
  std::vector<float> y;
  const std::string error = run_polynomial_constant(x, count, block, &y);
  if (!error.empty()) GTEST_FAIL() << error << " (" << ctx << ")";
  ASSERT_TRUE(
      close_to("polynomialConstant after rejected setCoefficients calls (the 10 coefficients of the last "
               "valid call must still be there)",
               ctx, polynomial_reference(x, good, count), y));
}

// ---------------------------------------------------------------------------------------------

class LookupGlobalCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned int> {};

// Fresh random table and keys per case. The constant-memory table of lookupConstant holds a
// DIFFERENT random table: lookupGlobal must read the table it is given (`sets`).
TEST_P(LookupGlobalCorrectness, RightForAnySize) {
  const unsigned int block = GetParam();
  for (const Case &c : kCases) {
    const std::uint64_t s = seed() + 104729u * c.n;
    const std::vector<float> sets = random_coefficients(kTableSize, s + 1);
    const std::vector<float> decoy = random_coefficients(kTableSize, s + 2);
    const std::vector<float> x = random_inputs(c.n, s + 3);
    const std::vector<int> key = random_keys(c.n, s + 4);
    const std::string ctx = cudalab::context({{"n", c.n}, {"block", block}, {"seed", (long long)seed()}}) +
                            "; the constant-memory table holds different values";
    CUDALAB_ASSERT_OK(setCoefficientSets(decoy.data()));
    cudalab::DeviceBuffer<float> dx, dsets, dy;
    cudalab::DeviceBuffer<int> dkey;
    CUDALAB_ASSERT_OK(dx.upload(x));
    CUDALAB_ASSERT_OK(dkey.upload(key));
    CUDALAB_ASSERT_OK(dsets.upload(sets));
    CUDALAB_ASSERT_OK(dy.allocate(c.n + kGuard));
    CUDALAB_ASSERT_OK(dy.poison());
    cudalab::launch(lookupGlobal, blocks_for(c.n, block), block)(dx.get(), dkey.get(), dsets.get(), dy.get(), c.n);
    CUDALAB_ASSERT_LAUNCH("lookupGlobal");
    std::vector<float> y;
    CUDALAB_ASSERT_OK(dy.download(&y));
    ASSERT_TRUE(close_to("lookupGlobal", ctx, lookup_reference(x, key, sets), y));
  }
}

INSTANTIATE_TEST_SUITE_P(Lookup, LookupGlobalCorrectness, ::testing::ValuesIn(kBlocks), block_name);

}  // namespace
