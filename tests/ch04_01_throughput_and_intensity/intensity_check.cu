#include "intensity_check.cuh"

#include "cudalab/baselines.cuh"
#include "cudalab/launch.cuh"

#include "intensity.cuh"

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <vector>

namespace {

constexpr std::size_t kGuard = 1024;  // poisoned elements after the output

__device__ __host__ inline float hash_float(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return float(z >> 40) / float(1 << 24) * 2.0f - 1.0f;  // [-1, 1)
}

__global__ void fill_kernel(float *p, int n, std::uint64_t seed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = hash_float(seed, i);
}

// Counts elements whose result differs (bitwise) from k rounded FMAs and records the first one.
__global__ void check_kernel(const float *in, const float *out, int n, int k, float a, float b,
                             unsigned long long *wrong, unsigned long long *first) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float x = in[i];
    for (int j = 0; j < k; ++j) x = __fmaf_rn(x, a, b);
    if (__float_as_uint(x) != __float_as_uint(out[i])) {
      atomicAdd(wrong, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}

std::string launch_error(const char *name, const std::string &ctx) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, name, __FILE__, __LINE__) + " (" + ctx + ")";
  return "";
}

template <class T>
std::string guard_error(const char *name, const std::vector<T> &out, std::size_t n, const std::string &ctx) {
  for (std::size_t i = n; i < out.size(); ++i) {
    if (!cudalab::is_poison(out[i])) {
      std::ostringstream msg;
      msg << name << " wrote past the end of out: element " << i << " (n = " << n << ") was written; guard with i < n ("
          << ctx << ")";
      return msg.str();
    }
  }
  return "";
}

}  // namespace

float intensity_cpu(float x, int k, float a, float b) {
  for (int j = 0; j < k; ++j) x = std::fma(x, a, b);
  return x;
}

unsigned digit_square_sum(unsigned v) {
  unsigned count[16] = {};
  for (int d = 0; d < 8; ++d) ++count[(v >> (4 * d)) & 0xFu];
  unsigned s = 0;
  for (unsigned c : count) s += c * c;
  return s;
}

std::string intensity_error(int n, int k, unsigned block, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  const float a = std::uniform_real_distribution<float>(0.5f, 0.99f)(gen);
  const float b = std::uniform_real_distribution<float>(-1.0f, 1.0f)(gen);
  const unsigned grid = intensity_grid(n, block);
  std::ostringstream ctx;
  ctx.precision(9);
  ctx << "n=" << n << " k=" << k << " a=" << a << " b=" << b << " block=" << block << " grid=" << grid
      << " seed=" << seed;
  const std::vector<float> in = cudalab::random_floats(n, -4.0f, 4.0f, seed ^ 0x5bd1e995u);
  cudalab::DeviceBuffer<float> din, dout;
  cudaError_t err = din.upload(in);
  if (err == cudaSuccess) err = dout.allocate(n + kGuard);
  if (err == cudaSuccess) err = dout.poison();
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);

  cudalab::launch(intensityKernel, grid, block)(din.get(), dout.get(), n, k, a, b);
  if (std::string e = launch_error("intensityKernel", ctx.str()); !e.empty()) return e;
  std::vector<float> out;
  if ((err = dout.download(&out)) != cudaSuccess) return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  if (std::string e = guard_error("intensityKernel", out, n, ctx.str()); !e.empty()) return e;

  std::size_t first = n, wrong = 0;
  float want_first = 0.0f;
  for (int i = 0; i < n; ++i) {
    const float want = intensity_cpu(in[i], k, a, b);
    if (std::memcmp(&want, &out[i], sizeof want) != 0) {
      if (wrong++ == 0) {
        first = i;
        want_first = want;
      }
    }
  }
  if (wrong == 0) return "";
  std::ostringstream msg;
  msg.precision(9);
  msg << "intensityKernel: wrong result at index " << first << ": in[" << first << "] = " << in[first] << ", expected "
      << want_first << " (" << k << " x fmaf(x, a, b)), got " << out[first];
  if (cudalab::is_poison(out[first])) msg << " (never written: still the poison value)";
  msg << "; " << wrong << " of " << n << " wrong (" << ctx.str() << ")";
  return msg.str();
}

std::string register_array_error(int n, unsigned block, std::uint64_t seed) {
  const unsigned grid = intensity_grid(n, block);
  std::ostringstream ctx;
  ctx << "n=" << n << " block=" << block << " grid=" << grid << " seed=" << seed;
  std::mt19937 gen(static_cast<std::uint32_t>(seed));
  std::vector<unsigned> in(n);
  const unsigned chosen[] = {0u, 0xFFFFFFFFu, 0x12345678u, 0x11111111u, 0xABABABABu, 0x0000000Fu, 0xF0000000u};
  for (int i = 0; i < n; ++i) in[i] = i < 7 ? chosen[i] : static_cast<unsigned>(gen());
  cudalab::DeviceBuffer<unsigned> din, dout;
  cudaError_t err = din.upload(in);
  if (err == cudaSuccess) err = dout.allocate(n + kGuard);
  if (err == cudaSuccess) err = dout.poison();
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);

  cudalab::launch(registerArrayKernel, grid, block)(din.get(), dout.get(), n);
  if (std::string e = launch_error("registerArrayKernel", ctx.str()); !e.empty()) return e;
  std::vector<unsigned> out;
  if ((err = dout.download(&out)) != cudaSuccess) return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  if (std::string e = guard_error("registerArrayKernel", out, n, ctx.str()); !e.empty()) return e;
  std::size_t first = n, wrong = 0;
  for (int i = 0; i < n; ++i) {
    if (out[i] != digit_square_sum(in[i]) && wrong++ == 0) first = i;
  }
  if (wrong == 0) return "";
  std::ostringstream msg;
  msg << "registerArrayKernel: wrong result at index " << first << ": in = 0x" << std::hex << in[first] << std::dec
      << ", expected " << digit_square_sum(in[first]) << " (sum of squared hex-digit counts), got " << out[first];
  if (cudalab::is_poison(out[first])) msg << " (never written: still the poison value)";
  msg << "; " << wrong << " of " << n << " wrong (" << ctx.str() << ")";
  return msg.str();
}

cudaError_t BigIntensity::init(int n, std::uint64_t seed) {
  n_ = n;
  seed_ = seed;
  cudaError_t err = in_.allocate(n);
  if (err == cudaSuccess) err = out_.allocate(n);
  if (err != cudaSuccess) return err;
  cudalab::launch(fill_kernel, 1024, 256)(in_.get(), n, seed);
  err = cudaGetLastError();
  return err == cudaSuccess ? cudaDeviceSynchronize() : err;
}

std::string BigIntensity::context(int k, float a, float b, unsigned block) const {
  std::ostringstream ctx;
  ctx.precision(9);
  ctx << "n=" << n_ << " k=" << k << " a=" << a << " b=" << b << " block=" << block << " seed=" << seed_;
  return ctx.str();
}

std::string BigIntensity::check(int k, float a, float b, unsigned block) {
  return check_launch(
      "intensityKernel", [&] { launch(k, a, b, block); }, k, a, b, block);
}

std::string BigIntensity::check_launch(const std::string &name, const std::function<void()> &launch, int k, float a,
                                       float b, unsigned block) {
  const std::string ctx = context(k, a, b, block);
  cudaError_t err = out_.poison();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
  launch();
  if (std::string e = launch_error(name.c_str(), ctx); !e.empty()) return e;
  return compare(name, k, a, b, ctx);
}

cudalab::SampleCheck BigIntensity::sample_check(int k, float a, float b, unsigned block) {
  rng_.seed(seed_ ^ 0x5a3c0ffee1234567ull);
  cudalab::SampleCheck check;
  check.prepare = [this](int) {
    const int j = std::uniform_int_distribution<int>(0, n_ - 1)(rng_);
    float value = 0;
    cudaMemcpy(&value, in_.get() + j, sizeof value, cudaMemcpyDeviceToHost);
    for (const float old = value; value == old;) value = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng_);
    cudaMemcpy(in_.get() + j, &value, sizeof value, cudaMemcpyHostToDevice);
    out_.poison();
    changed_ = {j, value};
  };
  check.verify = [this, k, a, b, block](int) -> std::string {
    const std::string ctx = context(k, a, b, block) + ", timed launch";
    float now = 0;  // the input is read-only: the sample's changed element must still be there
    cudaMemcpy(&now, in_.get() + changed_.first, sizeof now, cudaMemcpyDeviceToHost);
    if (std::memcmp(&now, &changed_.second, sizeof now) != 0) {
      std::ostringstream msg;
      msg.precision(9);
      msg << "intensityKernel modified its input: in[" << changed_.first << "] was " << changed_.second
          << " before the launch and " << now << " after it (" << ctx << ")";
      return msg.str();
    }
    return compare("intensityKernel", k, a, b, ctx);
  };
  return check;
}

std::string BigIntensity::compare(const std::string &name, int k, float a, float b, const std::string &ctx) const {
  cudaError_t err = cudaSuccess;
  cudalab::DeviceBuffer<unsigned long long> counters;
  if ((err = counters.upload({0ull, ~0ull})) != cudaSuccess)
    return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
  cudalab::launch(check_kernel, 1024, 256)(in_.get(), out_.get(), n_, k, a, b, counters.get(), counters.get() + 1);
  std::vector<unsigned long long> result;
  err = cudaGetLastError();
  if (err == cudaSuccess) err = counters.download(&result);
  if (err != cudaSuccess) return cudalab::describe_error(err, "device-side check", __FILE__, __LINE__);
  if (result[0] == 0) return "";
  const std::size_t i = result[1];
  float x = 0, got = 0;
  cudaMemcpy(&x, in_.get() + i, sizeof x, cudaMemcpyDeviceToHost);
  cudaMemcpy(&got, out_.get() + i, sizeof got, cudaMemcpyDeviceToHost);
  std::ostringstream msg;
  msg.precision(9);
  msg << name << ": wrong result at index " << i << ": in[" << i << "] = " << x << ", expected "
      << intensity_cpu(x, k, a, b) << ", got " << got;
  if (cudalab::is_poison(got)) msg << " (never written: still the poison value)";
  msg << "; " << result[0] << " of " << n_ << " wrong (" << ctx << ")";
  return msg.str();
}

void BigIntensity::launch(int k, float a, float b, unsigned block) const {
  cudalab::launch(intensityKernel, intensity_grid(n_, block), block)(in_.get(), out_.get(), n_, k, a, b);
}

void BigIntensity::stream_copy_same_bytes(unsigned block) const {
  cudalab::launch_stream_baseline<float>(in_.get(), nullptr, out_.get(), std::size_t(n_), static_cast<int>(block));
}

void BigIntensity::copy_same_bytes() const {
  cudaMemcpyAsync(out_.get(), in_.get(), std::size_t(n_) * sizeof(float), cudaMemcpyDeviceToDevice);
}
