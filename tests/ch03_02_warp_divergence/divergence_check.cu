#include "divergence_check.cuh"

#include "cudalab/testing.cuh"

#include "cudalab/data.hpp"

#include <cmath>
#include <sstream>

namespace {
constexpr int kGuard = 4096;          // floats after the n outputs: must stay poisoned
constexpr int kLo = -512, kHi = 511;  // heavy inputs are integers in this range

template <class Launch>
std::string run_and_check(const char *name, Launch launch, const std::vector<float> &expected, const std::string &ctx,
                          const char *hint) {
  const int n = static_cast<int>(expected.size());
  cudalab::DeviceBuffer<float> out;
  cudaError_t err = out.allocate(std::size_t(n) + kGuard);
  if (err == cudaSuccess) err = out.poison();
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
  launch(out.get());
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, name, __FILE__, __LINE__) + " (" + ctx + ")";
  std::vector<float> got;
  if ((err = out.download(&got)) != cudaSuccess) return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  for (int g = 0; g < kGuard; ++g) {
    if (!cudalab::is_poison(got[std::size_t(n) + g])) {
      std::ostringstream os;
      os << name << " wrote past the end of the output: element " << n + g << " was written, n = " << n
         << " (guard the store with i < n) (" << ctx << ")";
      return os.str();
    }
  }
  got.resize(n);
  ::testing::AssertionResult same = cudalab::equal_arrays(name, ctx + hint, expected, got);
  return same ? "" : same.message();
}

float cpu_arm(float x, int iters, bool odd) {
  for (int k = 0; k < iters; ++k) x = odd ? std::fma(x, -0.9980f, 1.0f) : std::fma(x, 0.9990f, 0.5f);
  return x;
}
}  // namespace

std::vector<float> cpu_math(int n, bool by_warp) {
  std::vector<float> c(n);
  for (int i = 0; i < n; ++i) c[i] = ((by_warp ? i / 32 : i) % 2 == 0) ? 100.0f : 200.0f;
  return c;
}

std::vector<float> heavy_input(int n, std::uint64_t seed) {
  std::vector<int> v = cudalab::random_ints(n, kLo, kHi, seed);
  return std::vector<float>(v.begin(), v.end());
}

std::vector<float> cpu_heavy(const std::vector<float> &in, int iters) {
  std::vector<float> table[2];
  for (int odd = 0; odd < 2; ++odd)
    for (int v = kLo; v <= kHi; ++v) table[odd].push_back(cpu_arm(static_cast<float>(v), iters, odd));
  std::vector<float> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = table[i % 2][static_cast<int>(in[i]) - kLo];
  return out;
}

std::string math_error(const char *name, MathKernel kernel, bool by_warp, int n, unsigned block, std::uint64_t seed) {
  const unsigned grid = (n + block - 1) / block;
  const std::string ctx = cudalab::context({{"n", n}, {"block", block}, {"grid", grid}, {"seed", (long long)seed}});
  const std::vector<float> expected = cpu_math(n, by_warp);
  const char *hint = "";
  if (std::string(name) == "mathKernel4")
    hint = "; if every element is 200, the condition is never true: `itid & 0x01 == 0` means itid & (0x01 == 0)";
  return run_and_check(
      name, [&](float *out) { kernel<<<grid, block>>>(out, n); }, expected, ctx, hint);
}

std::string heavy_error(const char *name, HeavyKernel kernel, int n, unsigned block, int iters, std::uint64_t seed) {
  const unsigned grid = (n + block - 1) / block;
  const std::string ctx =
      cudalab::context({{"n", n}, {"block", block}, {"grid", grid}, {"iters", iters}, {"seed", (long long)seed}});
  const std::vector<float> in = heavy_input(n, seed);
  const std::vector<float> expected = cpu_heavy(in, iters);
  cudalab::DeviceBuffer<float> d_in;
  if (cudaError_t err = d_in.upload(in); err != cudaSuccess)
    return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
  return run_and_check(
      name, [&](float *out) { kernel<<<grid, block>>>(d_in.get(), out, n, iters); }, expected, ctx,
      "; even elements take evenArm, odd elements oddArm, as in heavyKernel1");
}
