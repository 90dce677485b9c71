// ch05_03 test support: inputs, the CPU reference (and its device twin for the big performance
// inputs) and the comparison.
#include "poly_check.cuh"

#include "constant_memory.cuh"
#include "cudalab/launch.cuh"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>

std::vector<float> random_coefficients(int count, std::uint64_t seed) {
  std::vector<float> c = cudalab::random_floats(count, 0.25f, 1.0f, seed);
  const std::vector<int> sign = cudalab::random_ints(count, 0, 1, seed ^ 0x5bd1e995u);
  for (int k = 0; k < count; ++k)
    if (sign[k]) c[k] = -c[k];
  return c;
}

std::vector<float> random_inputs(int n, std::uint64_t seed) {
  std::vector<float> x = cudalab::random_floats(n, -1.0f, 1.0f, seed);
  if (n > 0) x[0] = 1.0f;
  if (n > 1) x[1] = -1.0f;
  return x;
}

std::vector<int> random_keys(int n, std::uint64_t seed) { return cudalab::random_ints(n, 0, kNumSets - 1, seed); }

std::vector<int> permuted_keys(int n, std::uint64_t seed) {
  static_assert(kNumSets == 32, "one key per lane of a warp");
  std::mt19937_64 gen(seed);
  std::vector<int> key(n), perm(32);
  std::iota(perm.begin(), perm.end(), 0);
  for (int base = 0; base < n; base += 32) {
    std::shuffle(perm.begin(), perm.end(), gen);
    for (int l = 0; l < 32 && base + l < n; ++l) key[base + l] = perm[l];
  }
  return key;
}

namespace {

// Error bound of a float evaluation. Horner's rule for a polynomial of degree m = count - 1 in
// floating point satisfies |computed - p(x)| <= gamma(2m) * sum_k |c_k| |x|^k, gamma(j) = j u / (1 - j u),
// u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, eq. 5.3); with fmaf the bound
// is about half that, and summing c_k x^k with a running power x^k is bounded by gamma(2m + 1).
// We allow 2 * gamma(2 * count): twice the worst case of any of these orders of evaluation, yet
// about 4 * 64 * 6e-8 * 64 < 1e-3 at most -- far below the 0.25 that a missing, stale or
// misplaced coefficient changes p(1) or p(-1) by (every |c_k| >= 0.25).
__host__ __device__ double tolerance(const float *c, int count, int stride, double x) {
  const double u = 5.9604644775390625e-8, j = 2.0 * count, gamma = j * u / (1.0 - j * u);  // u = 2^-24
  double abs_sum = 0.0, power = 1.0;
  for (int k = 0; k < count; ++k, power *= fabs(x)) abs_sum += fabs(double(c[k * stride])) * power;
  return 2.0 * gamma * abs_sum;
}

/// p(x) in double; coefficient k at c[k * stride].
__host__ __device__ double horner(const float *c, int count, int stride, double x) {
  double acc = c[(count - 1) * stride];
  for (int k = count - 2; k >= 0; --k) acc = acc * x + double(c[k * stride]);
  return acc;
}

/// The bits of a float, on the host and on the device.
__host__ __device__ unsigned int float_bits(float v) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(v);
#else
  unsigned int u;
  std::memcpy(&u, &v, sizeof u);
  return u;
#endif
}

/// True for the poison pattern (as cudalab::is_poison, on the device too).
__host__ __device__ bool poison_float(float v) { return float_bits(v) == 0xCDCDCDCDu; }

/// The device-side twin of close_to: counts the wrong elements and keeps the first one's index.
__global__ void checkKernel(const float *x, const int *key, const float *y, int n, const float *c, int count,
                            int stride, unsigned int *first, unsigned int *wrong) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= static_cast<unsigned int>(n) + kGuard) return;
  bool bad;
  if (i >= static_cast<unsigned int>(n)) {
    bad = !poison_float(y[i]);
  } else {
    const float *ci = c + (key ? key[i] : 0);
    const double want = horner(ci, count, stride, x[i]);
    bad = poison_float(y[i]) || !(fabs(double(y[i]) - want) <= tolerance(ci, count, stride, x[i]));
  }
  if (bad) {
    atomicAdd(wrong, 1u);
    atomicMin(first, i);
  }
}

}  // namespace

Expected polynomial_reference(const std::vector<float> &x, const std::vector<float> &coef, int count) {
  Expected e;
  e.value.resize(x.size());
  e.tolerance.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    e.value[i] = horner(coef.data(), count, 1, x[i]);
    e.tolerance[i] = tolerance(coef.data(), count, 1, x[i]);
  }
  return e;
}

Expected lookup_reference(const std::vector<float> &x, const std::vector<int> &key, const std::vector<float> &sets) {
  Expected e;
  e.value.resize(x.size());
  e.tolerance.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float *c = sets.data() + key[i];  // coefficient k of set key[i] is at [k * kNumSets + key[i]]
    e.value[i] = horner(c, kSetCoefficients, kNumSets, x[i]);
    e.tolerance[i] = tolerance(c, kSetCoefficients, kNumSets, x[i]);
  }
  return e;
}

::testing::AssertionResult close_to(const std::string &kernel, const std::string &context, const Expected &want,
                                    const std::vector<float> &actual) {
  const std::size_t n = want.value.size();
  if (actual.size() != n + kGuard)
    return ::testing::AssertionFailure() << kernel << ": " << actual.size() << " outputs read back, expected "
                                         << n + kGuard << " (" << context << ")";
  std::size_t first = n, wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool bad =
        cudalab::is_poison(actual[i]) || !(std::fabs(double(actual[i]) - want.value[i]) <= want.tolerance[i]);
    if (bad && wrong++ == 0) first = i;
  }
  for (std::size_t i = n; i < n + kGuard; ++i) {
    if (!cudalab::is_poison(actual[i]))
      return ::testing::AssertionFailure() << kernel << ": wrote past the end: y[" << i << "] = " << actual[i]
                                           << " although n = " << n << " (" << context << ")";
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os.precision(9);
  os << kernel << ": wrong result at index " << first << ": expected " << want.value[first] << " (+- "
     << want.tolerance[first] << "), got " << actual[first];
  if (cudalab::is_poison(actual[first])) os << " (never written: still the poison value)";
  os << "; " << wrong << " of " << n << " wrong (" << context << ")";
  return ::testing::AssertionFailure() << os.str();
}

std::string run_polynomial_constant(const std::vector<float> &x, int count, unsigned int block, std::vector<float> *y) {
  const int n = static_cast<int>(x.size());
  cudalab::DeviceBuffer<float> dx, dy;
  cudaError_t err = dx.upload(x);
  if (err == cudaSuccess) err = dy.allocate(n + kGuard);
  if (err == cudaSuccess) err = dy.poison();
  if (err != cudaSuccess) return cudalab::describe_error(err, "allocation", __FILE__, __LINE__);
  cudalab::launch(polynomialConstant, blocks_for(n, block), block)(dx.get(), dy.get(), n, count);
  if ((err = cudaGetLastError()) != cudaSuccess)
    return cudalab::describe_error(err, "launch of polynomialConstant", __FILE__, __LINE__);
  if ((err = cudaDeviceSynchronize()) != cudaSuccess)
    return cudalab::describe_error(err, "kernel polynomialConstant", __FILE__, __LINE__);
  if ((err = dy.download(y)) != cudaSuccess) return cudalab::describe_error(err, "download", __FILE__, __LINE__);
  return "";
}

std::string device_check(const std::string &kernel, const std::string &context, const float *d_x, const int *d_key,
                         const float *d_y, int n, const std::vector<float> &coef, int count, int stride) {
  cudalab::DeviceBuffer<float> dc;
  cudalab::DeviceBuffer<unsigned int> counters;  // [0] first wrong index, [1] number wrong
  const std::vector<unsigned int> init = {0xFFFFFFFFu, 0u};
  cudaError_t err = dc.upload(coef);
  if (err == cudaSuccess) err = counters.upload(init);
  if (err != cudaSuccess) return cudalab::describe_error(err, "allocation for the check", __FILE__, __LINE__);
  const unsigned int block = 256, total = static_cast<unsigned int>(n) + kGuard;
  cudalab::launch(checkKernel, (total + block - 1) / block, block)(d_x, d_key, d_y, n, dc.get(), count, stride,
                                                                   counters.get(), counters.get() + 1);
  std::vector<unsigned int> result;
  if ((err = cudaDeviceSynchronize()) != cudaSuccess || (err = counters.download(&result)) != cudaSuccess)
    return cudalab::describe_error(err, "the check kernel", __FILE__, __LINE__);
  if (result[1] == 0) return "";
  const unsigned int first = result[0];
  float xi = 0.0f, yi = 0.0f;
  int ki = 0;
  cudaMemcpy(&yi, d_y + first, sizeof(float), cudaMemcpyDeviceToHost);
  std::ostringstream os;
  os.precision(9);
  if (first >= static_cast<unsigned int>(n)) {
    os << kernel << ": wrote past the end: y[" << first << "] = " << yi << " although n = " << n << " (" << context
       << ")";
    return os.str();
  }
  cudaMemcpy(&xi, d_x + first, sizeof(float), cudaMemcpyDeviceToHost);
  if (d_key) cudaMemcpy(&ki, d_key + first, sizeof(int), cudaMemcpyDeviceToHost);
  const float *ci = coef.data() + ki;
  os << kernel << ": wrong result at index " << first << ": expected " << horner(ci, count, stride, xi) << " (+- "
     << tolerance(ci, count, stride, xi) << "), got " << yi;
  if (cudalab::is_poison(yi)) os << " (never written: still the poison value)";
  os << "; " << result[1] << " of " << n << " wrong (" << context << ")";
  return os.str();
}

cudalab::SampleCheck changing_x_check(const std::string &kernel, const std::string &context, float *d_x,
                                      const int *d_key, float *d_y, int n, const std::vector<float> &coef, int count,
                                      int stride, std::uint64_t seed) {
  struct State {
    std::string kernel, context;
    float *d_x;
    const int *d_key;
    float *d_y;
    int n;
    std::vector<float> coef;
    int count, stride;
    std::mt19937_64 rng;
  };
  auto s = std::make_shared<State>(State{kernel, context + ", a timed run with one x changed", d_x, d_key, d_y, n, coef,
                                         count, stride, std::mt19937_64(seed ^ 0x5a3c0ffeeull)});
  cudalab::SampleCheck check;
  check.prepare = [s](int) {
    const int j = std::uniform_int_distribution<int>(0, s->n - 1)(s->rng);
    float old = 0.0f;
    int key = 0;
    cudaMemcpy(&old, s->d_x + j, sizeof old, cudaMemcpyDeviceToHost);
    if (s->d_key) cudaMemcpy(&key, s->d_key + j, sizeof key, cudaMemcpyDeviceToHost);
    const float *c = s->coef.data() + key;
    const double p_old = horner(c, s->count, s->stride, old), t_old = tolerance(c, s->count, s->stride, old);
    float v = old;
    for (int tries = 0; tries < 100; ++tries) {  // y[j] must change by more than either tolerance
      v = std::uniform_real_distribution<float>(-1.0f, 1.0f)(s->rng);
      if (v != old &&
          std::fabs(horner(c, s->count, s->stride, v) - p_old) > 2.0 * (t_old + tolerance(c, s->count, s->stride, v)))
        break;
    }
    cudaMemcpy(s->d_x + j, &v, sizeof v, cudaMemcpyHostToDevice);
    cudaMemset(s->d_y, cudalab::kPoisonByte, (static_cast<std::size_t>(s->n) + kGuard) * sizeof(float));
  };
  check.verify = [s](int) {
    return device_check(s->kernel, s->context, s->d_x, s->d_key, s->d_y, s->n, s->coef, s->count, s->stride);
  };
  return check;
}
