#include "divergence_check.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/testing.cuh"

#include "cudalab/data.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
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
// Runs launch(in, out) once on fresh heavy inputs (n, iters, seed) and checks out[] against the CPU.
template <class Launch>
std::string heavy_run_and_check(const char *name, Launch launch, int n, unsigned block, int iters, std::uint64_t seed) {
  const unsigned grid = (n + block - 1) / block;
  const std::string ctx =
      cudalab::context({{"n", n}, {"block", block}, {"grid", grid}, {"iters", iters}, {"seed", (long long)seed}});
  const std::vector<float> in = heavy_input(n, seed);
  const std::vector<float> expected = cpu_heavy(in, iters);
  cudalab::DeviceBuffer<float> d_in;
  if (cudaError_t err = d_in.upload(in); err != cudaSuccess)
    return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
  return run_and_check(
      name, [&](float *out) { launch(d_in.get(), out); }, expected, ctx,
      "; even elements take evenArm, odd elements oddArm, as in heavyKernel1");
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
      name, [&](float *out) { cudalab::launch(kernel, grid, block)(out, n); }, expected, ctx, hint);
}

std::string heavy_error(const char *name, HeavyKernel kernel, int n, unsigned block, int iters, std::uint64_t seed) {
  const unsigned grid = (n + block - 1) / block;
  return heavy_run_and_check(
      name, [&](const float *in, float *out) { cudalab::launch(kernel, grid, block)(in, out, n, iters); }, n, block,
      iters, seed);
}

std::string heavy_error(const char *name, const HeavyLaunch &launch, int n, unsigned block, int iters,
                        std::uint64_t seed) {
  cudaError_t launched = cudaSuccess;
  const std::string wrong = heavy_run_and_check(
      name, [&](const float *in, float *out) { launched = launch(in, out, n, iters); }, n, block, iters, seed);
  if (launched != cudaSuccess) return cudalab::describe_error(launched, name, __FILE__, __LINE__);
  return wrong;
}

cudalab::SampleCheck heavy_sample_check(const char *name, std::vector<float> input, float *d_in, float *d_out,
                                        unsigned block, int iters, std::uint64_t seed) {
  struct State {
    std::string name, ctx;
    std::vector<float> input, expected, actual;
    float *d_in = nullptr, *d_out = nullptr;
    int iters = 0;
    std::mt19937_64 rng;
  };
  auto s = std::make_shared<State>();
  const std::size_t n = input.size();
  s->name = name;
  s->ctx = cudalab::context({{"n", (long long)n}, {"block", block}, {"iters", iters}, {"seed", (long long)seed}});
  s->expected = cpu_heavy(input, iters);
  s->input = std::move(input);
  s->actual.resize(n);
  s->d_in = d_in;
  s->d_out = d_out;
  s->iters = iters;
  s->rng.seed(seed ^ 0x5a3c0ffee1234567ull);
  cudalab::SampleCheck check;
  check.prepare = [s](int) {
    const std::size_t n = s->input.size();
    const std::size_t j = std::uniform_int_distribution<std::size_t>(0, n - 1)(s->rng);
    float v = s->input[j];
    while (v == s->input[j]) v = static_cast<float>(std::uniform_int_distribution<int>(kLo, kHi)(s->rng));
    s->input[j] = v;
    s->expected[j] = cpu_arm(v, s->iters, j % 2 == 1);
    cudaMemcpy(s->d_in + j, &v, sizeof v, cudaMemcpyHostToDevice);
    cudaMemset(s->d_out, cudalab::kPoisonByte, n * sizeof(float));
  };
  check.verify = [s](int) -> std::string {
    const std::size_t bytes = s->actual.size() * sizeof(float);
    cudaError_t err = cudaMemcpy(s->actual.data(), s->d_out, bytes, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
      return cudalab::describe_error(err, "copy back of a timed sample's output", __FILE__, __LINE__);
    if (std::memcmp(s->actual.data(), s->expected.data(), bytes) == 0) return "";
    ::testing::AssertionResult same = cudalab::equal_arrays(s->name, s->ctx, s->expected, s->actual);
    return same ? "" : same.message();
  };
  return check;
}
