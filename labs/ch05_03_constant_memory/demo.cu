// ch05_03 demo: constant memory's broadcast (uniform reads) and its serialisation (non-uniform
// reads), each beside the same kernel reading global memory, on 2^24 floats, block 256.
//
//   ./ch05_03_constant_memory_demo                         the tables
//   ./ch05_03_constant_memory_demo once poly|polyglobal    one launch, 64 coefficients (for a profiler)
//   ./ch05_03_constant_memory_demo once lookup|lookupglobal D   one launch, D different keys per warp
//
// Every kernel is first run once and checked (all of them, before any timing, so a profiler that
// records the first launches sees each kernel), then timed side by side with its global twin.
#include "constant_memory.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/demo.cuh"
#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kN = 1 << 24;
constexpr unsigned int kBlock = 256;
constexpr int kCounts[] = {8, kMaxCoefficients};
constexpr int kDistinct[] = {1, 2, 4, 8, 16, 32};

/// Keys with exactly d different values in every warp: lane l gets key l % d.
std::vector<int> keys_with(int d) {
  std::vector<int> key(kN);
  for (int i = 0; i < kN; ++i) key[i] = (i % 32) % d;
  return key;
}

/// Every kCheckStride-th element (and the last) is checked: enough to catch a wrong kernel, and
/// 2^24 x 64 terms on the CPU would take seconds.
constexpr int kCheckStride = 7;

/// True if y[i] is p(x[i]) (coefficient k of p at c[k * stride]; with keys, of the set key[i]) within
/// a float error bound (see tests/ch05_03_constant_memory/poly_check.cu; here with |x| <= 1 taken as
/// the worst case), for the sampled i.
bool check(const std::vector<float> &y, const std::vector<float> &x, const float *c, int count, int stride,
           const std::vector<int> *key) {
  double abs_sum = 0.0;
  for (int s = 0; s < (key ? kNumSets : 1); ++s) {
    double sum = 0.0;
    for (int k = 0; k < count; ++k) sum += std::fabs(double(c[k * stride + s]));
    abs_sum = std::fmax(abs_sum, sum);
  }
  const double tolerance = 4.0 * count * std::ldexp(1.0, -24) * abs_sum;
  auto right = [&](int i) {
    const float *ci = c + (key ? (*key)[i] : 0);
    double acc = ci[(count - 1) * stride];
    for (int k = count - 2; k >= 0; --k) acc = acc * x[i] + double(ci[k * stride]);
    return std::fabs(double(y[i]) - acc) <= tolerance;
  };
  for (int i = 0; i < kN; i += kCheckStride)
    if (!right(i)) return false;
  return right(kN - 1);
}

}  // namespace

int main(int argc, char **argv) {
  cudalab::DeviceBuffer<float> x, y, coef, sets;
  CUDALAB_CHECK(x.upload(cudalab::random_floats(kN, -1.0f, 1.0f, 1)));
  CUDALAB_CHECK(y.allocate(kN));
  const std::vector<float> h_coef = cudalab::random_floats(kMaxCoefficients, -1.0f, 1.0f, 2);
  const std::vector<float> h_sets = cudalab::random_floats(kTableSize, -1.0f, 1.0f, 3);
  CUDALAB_CHECK(coef.upload(h_coef));
  CUDALAB_CHECK(sets.upload(h_sets));
  CUDALAB_CHECK(setCoefficientSets(h_sets.data()));
  const cudaError_t set_err = setCoefficients(h_coef.data(), kMaxCoefficients);
  cudaGetLastError();
  const unsigned int grid = blocks_for(kN, kBlock);

  if (argc >= 3 && std::strcmp(argv[1], "once") == 0) {
    const std::string what = argv[2];
    const int d = argc >= 4 ? std::atoi(argv[3]) : 32;
    cudalab::DeviceBuffer<int> key;
    CUDALAB_CHECK(key.upload(keys_with(d >= 1 && d <= 32 ? d : 32)));
    if (what == "poly")
      polynomialConstant<<<grid, kBlock>>>(x.get(), y.get(), kN, kMaxCoefficients);
    else if (what == "polyglobal")
      polynomialGlobal<<<grid, kBlock>>>(x.get(), coef.get(), y.get(), kN, kMaxCoefficients);
    else if (what == "lookup")
      lookupConstant<<<grid, kBlock>>>(x.get(), key.get(), y.get(), kN);
    else
      lookupGlobal<<<grid, kBlock>>>(x.get(), key.get(), sets.get(), y.get(), kN);
    CUDALAB_CHECK_LAUNCH("the kernel");
    return EXIT_SUCCESS;
  }

  const auto [dev, copy_gbs] = cudalab::demo::start();
  int const_bytes = 0;
  CUDALAB_CHECK(cudaDeviceGetAttribute(&const_bytes, cudaDevAttrTotalConstantMemory, 0));
  std::vector<float> hx, hy;
  CUDALAB_CHECK(x.download(&hx));
  std::printf(
      "%s\nconstant memory %d KB (seed: 64 KB; constant cache 8 KB per SM), measured copy bandwidth %.0f GB/s\n",
      cudalab::describe_device(dev).c_str(), const_bytes / 1024, copy_gbs);
  if (set_err != cudaSuccess)
    std::printf("setCoefficients returned %s: polynomialConstant will be WRONG\n", cudaGetErrorName(set_err));

  // Run and check every kernel once before any timing.
  auto result = [&](const std::vector<float> &c, int count, int stride, const std::vector<int> *key) {
    CUDALAB_CHECK_LAUNCH("the kernel");
    CUDALAB_CHECK(y.download(&hy));
    return check(hy, hx, c.data(), count, stride, key) ? "ok" : "WRONG";
  };
  const char *poly_ok[2][2];  // [count][global, constant]
  for (int j = 0; j < 2; ++j) {
    const int count = kCounts[j];
    CUDALAB_CHECK(cudaMemset(y.get(), 0xCD, y.bytes()));
    polynomialGlobal<<<grid, kBlock>>>(x.get(), coef.get(), y.get(), kN, count);
    poly_ok[j][0] = result(h_coef, count, 1, nullptr);
    CUDALAB_CHECK(cudaMemset(y.get(), 0xCD, y.bytes()));
    if (setCoefficients(h_coef.data(), count) != cudaSuccess) cudaGetLastError();
    polynomialConstant<<<grid, kBlock>>>(x.get(), y.get(), kN, count);
    poly_ok[j][1] = result(h_coef, count, 1, nullptr);
  }
  std::vector<cudalab::DeviceBuffer<int>> keys(6);
  std::vector<std::vector<int>> h_keys(6);
  const char *lookup_ok[6][2];  // [d][constant, global]
  for (int j = 0; j < 6; ++j) {
    h_keys[j] = keys_with(kDistinct[j]);
    CUDALAB_CHECK(keys[j].upload(h_keys[j]));
    CUDALAB_CHECK(cudaMemset(y.get(), 0xCD, y.bytes()));
    lookupConstant<<<grid, kBlock>>>(x.get(), keys[j].get(), y.get(), kN);
    lookup_ok[j][0] = result(h_sets, kSetCoefficients, kNumSets, &h_keys[j]);
    CUDALAB_CHECK(cudaMemset(y.get(), 0xCD, y.bytes()));
    lookupGlobal<<<grid, kBlock>>>(x.get(), keys[j].get(), sets.get(), y.get(), kN);
    lookup_ok[j][1] = result(h_sets, kSetCoefficients, kNumSets, &h_keys[j]);
  }

  auto fail = [](const cudalab::Comparison &c) {
    if (c.baseline.ok && c.candidate.ok) return false;
    std::fprintf(stderr, "%s%s\n", c.baseline.error.c_str(), c.candidate.error.c_str());
    return true;
  };

  std::printf("\nUniform coefficients: y[i] = p(x[i]), one polynomial for all, 2^24 floats, block 256\n");
  std::printf("%-6s | %-24s | %-35s | %8s\n", "", "polynomialGlobal (given)", "polynomialConstant (yours)", "");
  std::printf("%-6s | %9s %6s %7s | %9s %6s %7s %10s | %8s\n", "coefs", "ms", "%copy", "result", "ms", "%copy",
              "result", "GFLOP/s", "speed-up");
  for (int j = 0; j < 2; ++j) {
    const int count = kCounts[j];
    if (setCoefficients(h_coef.data(), count) != cudaSuccess) cudaGetLastError();
    const cudalab::Comparison c =
        cudalab::compare_kernels([&] { polynomialGlobal<<<grid, kBlock>>>(x.get(), coef.get(), y.get(), kN, count); },
                                 [&] { polynomialConstant<<<grid, kBlock>>>(x.get(), y.get(), kN, count); });
    if (fail(c)) return EXIT_FAILURE;
    const double bytes = 2.0 * kN * sizeof(float);
    std::printf("%-6d | %9.4f %5.1f%% %7s | %9.4f %5.1f%% %7s %10.0f | %7.2fx\n", count, c.baseline.median_ms,
                100 * cudalab::gbs(bytes, c.baseline.median_ms) / copy_gbs, poly_ok[j][0], c.candidate.median_ms,
                100 * cudalab::gbs(bytes, c.candidate.median_ms) / copy_gbs, poly_ok[j][1],
                2.0 * (count - 1) * kN / (c.candidate.median_ms * 1e6), c.speedup());
  }

  std::printf(
      "\nNon-uniform coefficients: element i uses polynomial key[i] (16 coefficients), d different keys\n"
      "in every warp, 2^24 floats, block 256\n");
  std::printf("%-9s | %-36s | %-26s | %10s\n", "", "lookupConstant (given)", "lookupGlobal (yours)", "");
  std::printf("%-9s | %9s %12s %6s %6s | %9s %6s %9s | %10s\n", "keys/warp", "ms", "vs 1 key", "%copy", "result", "ms",
              "%copy", "result", "const/glob");
  double first_ms = 0.0;
  for (int j = 0; j < 6; ++j) {
    const cudalab::Comparison c = cudalab::compare_kernels(
        [&] { lookupConstant<<<grid, kBlock>>>(x.get(), keys[j].get(), y.get(), kN); },
        [&] { lookupGlobal<<<grid, kBlock>>>(x.get(), keys[j].get(), sets.get(), y.get(), kN); });
    if (fail(c)) return EXIT_FAILURE;
    if (j == 0) first_ms = c.baseline.median_ms;
    const double bytes = 3.0 * kN * sizeof(float);
    std::printf("%-9d | %9.4f %11.2fx %5.1f%% %6s | %9.4f %5.1f%% %9s | %9.2fx\n", kDistinct[j], c.baseline.median_ms,
                c.baseline.median_ms / first_ms, 100 * cudalab::gbs(bytes, c.baseline.median_ms) / copy_gbs,
                lookup_ok[j][0], c.candidate.median_ms, 100 * cudalab::gbs(bytes, c.candidate.median_ms) / copy_gbs,
                lookup_ok[j][1], c.speedup());
  }
  std::printf(
      "\nseed: \"all threads of a warp must read the same address\" -- they need not, but each different\n"
      "address costs one more pass of the constant cache (the 'vs 1 key' column); global memory does not care.\n");
  return EXIT_SUCCESS;
}
