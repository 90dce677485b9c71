#include "matrix_check.cuh"

#include "cudalab/baselines.cuh"
#include "cudalab/launch.cuh"

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kGuard = 4096;  // poisoned floats after C

__device__ __host__ inline float hash_float(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return float(z >> 40) / float(1 << 24) * 2.0f - 1.0f;  // [-1, 1)
}

__global__ void fill_kernel(float *p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = hash_float(seed, i);
}

// Counts elements with C != A + B (bitwise) and records the smallest wrong index.
__global__ void check_kernel(const float *A, const float *B, const float *C, std::size_t n, unsigned long long *wrong,
                             unsigned long long *first) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float want = A[i] + B[i];
    if (__float_as_uint(want) != __float_as_uint(C[i])) {
      atomicAdd(wrong, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}

// The check of a timed sample: counts elements with C != A + B (bitwise), where B is what
// fill_kernel wrote (computed here, not read), and records the smallest wrong index; also counts the
// elements of A that differ from what fill_kernel wrote (those the samples changed).
// counters: [0] wrong elements of C, [1] the first one, [2] elements of A that differ from the fill.
__global__ void sample_check_kernel(const float *A, const float *C, std::size_t n, std::uint64_t seed,
                                    unsigned long long *counters) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float a = A[i];
    if (__float_as_uint(a) != __float_as_uint(hash_float(seed, i))) atomicAdd(counters + 2, 1ull);
    const float want = a + hash_float(seed, n + i);
    if (__float_as_uint(want) != __float_as_uint(C[i])) {
      atomicAdd(counters, 1ull);
      atomicMin(counters + 1, static_cast<unsigned long long>(i));
    }
  }
}

std::string where(std::size_t idx, int nx) {
  std::ostringstream os;
  os << "(ix=" << idx % nx << ", iy=" << idx / nx << ") = index " << idx;
  return os.str();
}

std::string launch_error(const std::string &name, const std::string &ctx) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, name.c_str(), __FILE__, __LINE__) + " (" + ctx + ")";
  return "";
}

}  // namespace

std::string shape(dim3 d) {
  std::ostringstream os;
  os << "(" << d.x << "," << d.y;
  if (d.z != 1) os << "," << d.z;
  os << ")";
  return os.str();
}

std::string sum_matrix_error(const std::string &name, const MatrixLaunch &launch, int nx, int ny,
                             const std::string &config, std::uint64_t seed, bool in_place) {
  const std::size_t n = std::size_t(nx) * ny;
  std::ostringstream ctx;
  ctx << "nx=" << nx << " ny=" << ny << " " << config << (in_place ? " in place (C is A)" : "") << " seed=" << seed;
  const std::vector<float> a = cudalab::random_floats(n, -1.f, 1.f, seed);
  const std::vector<float> b = cudalab::random_floats(n, -1.f, 1.f, seed ^ 0x5bd1e995u);
  cudalab::DeviceBuffer<float> da, db, dc;
  cudaError_t err = da.upload(a);
  if (err == cudaSuccess) err = db.upload(b);
  if (err == cudaSuccess) err = dc.allocate(n + kGuard);
  if (err == cudaSuccess) err = dc.poison();
  if (err == cudaSuccess && in_place) err = cudaMemcpy(dc.get(), da.get(), n * sizeof(float), cudaMemcpyDeviceToDevice);
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);

  launch(in_place ? dc.get() : da.get(), db.get(), dc.get(), nx, ny);
  if (std::string e = launch_error(name, ctx.str()); !e.empty()) return e;

  std::vector<float> c;
  if ((err = dc.download(&c)) != cudaSuccess) return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  std::ostringstream msg;
  for (std::size_t i = 0; i < kGuard; ++i) {
    if (!cudalab::is_poison(c[n + i])) {
      msg << name << " wrote past the end of C: element " << n + i << " (nx*ny = " << n
          << ") was written; guard every access with ix < nx && iy < ny (" << ctx.str() << ")";
      return msg.str();
    }
  }
  std::size_t first = n, wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float want = a[i] + b[i];
    if (!(c[i] == want)) {
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong == 0) return "";
  msg << name << ": wrong result at " << where(first, nx) << ": expected " << a[first] + b[first] << ", got "
      << c[first];
  if (cudalab::is_poison(c[first])) msg << " (never written: still the poison value)";
  if (in_place)
    msg << "; in place, an element comes out wrong when a thread other than its own also writes it (its own "
           "thread then reads the new value, or overwrites it): each thread must touch only its (ix, iy), and "
           "threads outside the matrix must do nothing";
  msg << "; " << wrong << " of " << n << " wrong (" << ctx.str() << ")";
  return msg.str();
}

int timed_matrix_side() {
  static const int side = [] {
    constexpr int kSeeds = 1 << 14, kSmall = 1 << 13;
    const std::size_t need = BigMatrix::bytes_for(kSeeds, kSeeds) + (std::size_t(256) << 20);
    // Memory the previous test's process still held when it ended is freed within moments: look
    // again for up to 3 s before taking the smaller size.
    std::size_t free_bytes = cudalab::free_device_memory();
    for (int tries = 0; free_bytes < need && tries < 12; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      free_bytes = cudalab::free_device_memory();
    }
    if (free_bytes >= need) return kSeeds;
    std::printf(
        "[ CUDALAB  ] timed on 8192 x 8192 float matrices: three of the seeds' 16384 x 16384 (3 GiB) do "
        "not fit in the %zu MiB of GPU memory free\n",
        free_bytes >> 20);
    return kSmall;
  }();
  return side;
}

std::string timed_matrices(int n) {
  const std::size_t mib = std::size_t(n) * std::size_t(n) * sizeof(float) >> 20;
  return "the timed test's three " + std::to_string(n) + " x " + std::to_string(n) + " float matrices (" +
         (mib >= 1024 ? std::to_string(mib >> 10) + " GiB" : std::to_string(mib) + " MiB") + " each)";
}

cudaError_t BigMatrix::init(int nx, int ny, std::uint64_t seed) {
  nx_ = nx;
  ny_ = ny;
  n_ = std::size_t(nx) * ny;
  seed_ = seed;
  cudaError_t err = buf_.allocate(3 * n_);
  if (err != cudaSuccess) return err;
  cudalab::launch(fill_kernel, 1024, 256)(buf_.get(), 2 * n_, seed);
  err = cudaGetLastError();
  return err == cudaSuccess ? cudaDeviceSynchronize() : err;
}

std::string BigMatrix::check(const std::string &name, const MatrixLaunch &launch, const std::string &config) {
  std::ostringstream ctx;
  ctx << "nx=" << nx_ << " ny=" << ny_ << " " << config << " seed=" << seed_;
  // Restore A and B (a copy_same_traffic() may have overwritten B), poison C.
  cudalab::launch(fill_kernel, 1024, 256)(buf_.get(), 2 * n_, seed_);
  cudaError_t err = cudaMemset(C(), cudalab::kPoisonByte, n_ * sizeof(float));
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
  launch(A(), B(), C(), nx_, ny_);
  if (std::string e = launch_error(name, ctx.str()); !e.empty()) return e;

  cudalab::DeviceBuffer<unsigned long long> counters;
  if ((err = counters.upload({0ull, ~0ull})) != cudaSuccess)
    return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
  cudalab::launch(check_kernel, 1024, 256)(A(), B(), C(), n_, counters.get(), counters.get() + 1);
  std::vector<unsigned long long> result;
  err = cudaGetLastError();
  if (err == cudaSuccess) err = counters.download(&result);
  if (err != cudaSuccess) return cudalab::describe_error(err, "device-side check", __FILE__, __LINE__);
  if (result[0] == 0) return "";
  const std::size_t i = result[1];
  float a = 0, b = 0, c = 0;
  cudaMemcpy(&a, A() + i, sizeof a, cudaMemcpyDeviceToHost);
  cudaMemcpy(&b, B() + i, sizeof b, cudaMemcpyDeviceToHost);
  cudaMemcpy(&c, C() + i, sizeof c, cudaMemcpyDeviceToHost);
  std::ostringstream msg;
  msg << name << ": wrong result at " << where(i, nx_) << ": expected " << a + b << ", got " << c;
  if (cudalab::is_poison(c)) msg << " (never written: still the poison value)";
  msg << "; " << result[0] << " of " << n_ << " wrong (" << ctx.str() << ")";
  return msg.str();
}

cudalab::SampleCheck BigMatrix::sample_check(const std::string &name, const std::string &config) {
  struct State {
    std::string name, ctx;
    std::map<std::size_t, float> changed;  // index in A -> the value a sample gave it
    cudalab::DeviceBuffer<unsigned long long> counters;
    std::mt19937_64 rng;
  };
  auto s = std::make_shared<State>();
  std::ostringstream ctx;
  ctx << "nx=" << nx_ << " ny=" << ny_ << " " << config << " seed=" << seed_;
  s->name = name;
  s->ctx = ctx.str();
  s->rng.seed(seed_ ^ 0x5a3c0ffee1234567ull);
  cudalab::SampleCheck check;
  check.prepare = [this, s](int) {
    const std::size_t j = std::uniform_int_distribution<std::size_t>(0, n_ - 1)(s->rng);
    const float filled = hash_float(seed_, j);
    const auto it = s->changed.find(j);
    const float now = it == s->changed.end() ? filled : it->second;
    float v = now;
    while (v == now || v == filled) v = std::uniform_real_distribution<float>(-1.0f, 1.0f)(s->rng);
    s->changed[j] = v;
    cudaMemcpy(buf_.get() + j, &v, sizeof v, cudaMemcpyHostToDevice);
    cudaMemset(C(), cudalab::kPoisonByte, n_ * sizeof(float));
  };
  check.verify = [this, s](int) -> std::string {
    cudaError_t err = s->counters.size() == 3 ? cudaSuccess : s->counters.allocate(3);
    const unsigned long long start[3] = {0ull, ~0ull, 0ull};
    if (err == cudaSuccess) err = cudaMemcpy(s->counters.get(), start, sizeof start, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) return cudalab::describe_error(err, "timed sample's check", __FILE__, __LINE__);
    cudalab::launch(sample_check_kernel, 1024, 256)(A(), C(), n_, seed_, s->counters.get());
    unsigned long long result[3] = {0, 0, 0};
    err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaMemcpy(result, s->counters.get(), sizeof result, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) return cudalab::describe_error(err, "timed sample's check", __FILE__, __LINE__);
    std::ostringstream msg;
    // A must hold exactly what the samples gave it: a kernel that writes its input A could otherwise
    // make A + B whatever it writes into C.
    for (const auto &[j, v] : s->changed) {
      float a = 0;
      if ((err = cudaMemcpy(&a, A() + j, sizeof a, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return cudalab::describe_error(err, "timed sample's check", __FILE__, __LINE__);
      if (!(a == v)) {
        msg << s->name << " changed its input: A at " << where(j, nx_) << " holds " << a << ", the test gave it " << v
            << "; read A and B, write only C (" << s->ctx << ")";
        return msg.str();
      }
    }
    if (result[2] != s->changed.size()) {
      msg << s->name << " changed its input: " << result[2] << " elements of A differ from the values the test gave "
          << "them, " << s->changed.size() << " expected; read A and B, write only C (" << s->ctx << ")";
      return msg.str();
    }
    if (result[0] == 0) return "";
    const std::size_t i = result[1];
    float a = 0, c = 0;
    cudaMemcpy(&a, A() + i, sizeof a, cudaMemcpyDeviceToHost);
    cudaMemcpy(&c, C() + i, sizeof c, cudaMemcpyDeviceToHost);
    msg << s->name << ": wrong result at " << where(i, nx_) << ": expected " << a + hash_float(seed_, n_ + i)
        << ", got " << c;
    if (cudalab::is_poison(c)) msg << " (never written: still the poison value)";
    msg << "; " << result[0] << " of " << n_ << " wrong (" << s->ctx << ")";
    return msg.str();
  };
  return check;
}

void BigMatrix::copy_same_traffic() const {
  const std::size_t half = 3 * n_ / 2;  // floats
  cudaMemcpyAsync(buf_.get() + (3 * n_ - half), buf_.get(), half * sizeof(float), cudaMemcpyDeviceToDevice);
}

void BigMatrix::stream_same_traffic(int block) const {
  cudalab::launch_stream_baseline<float>(A(), B(), C(), n_, block);
}

HugeMatrixPlan plan_huge_matrix() {
  HugeMatrixPlan plan;
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaError_t err = cudaMemGetInfo(&free_bytes, &total_bytes); err != cudaSuccess) {
    plan.skip = std::string("cudaMemGetInfo failed: ") + cudaGetErrorString(err);
    return plan;
  }
  free_bytes = cudalab::free_device_memory();  // at most CUDALAB_FREE_MEMORY_MIB when set
  const double gib = double(1ull << 30);
  const std::size_t spare = std::size_t(1) << 30;
  auto fits = [&](int nx, int ny) { return 3 * std::size_t(nx) * ny * sizeof(float) + spare <= free_bytes; };
  std::ostringstream os;
  if (fits(65536, 65537)) {
    plan.nx = 65536, plan.ny = 65537;
    plan.note = "65536 x 65537 = 2^32 + 65536 elements: an index in int or in unsigned int wraps";
  } else if (fits(65536, 32769)) {
    plan.nx = 65536, plan.ny = 32769;
    os << "65536 x 32769 = 2^31 + 65536 elements: an index in int overflows; this GPU has " << free_bytes / gib
       << " GiB free, too little for the 2^32-element matrix (48 GiB) that an "
       << "unsigned int index would also fail";
    plan.note = os.str();
  } else {
    os << "this GPU has " << free_bytes / gib << " GiB free of " << total_bytes / gib
       << " GiB; a matrix past 2^31 elements needs three 8 GiB float arrays plus 1 GiB to spare (25 GiB)";
    plan.skip = os.str();
  }
  return plan;
}

std::string huge_matrix_error(const std::string &name, const HugeMatrixPlan &plan, const MatrixLaunch &launch,
                              const std::string &config, std::uint64_t seed) {
  std::printf("[ CUDALAB  ] %s on %d x %d floats (%s)\n", name.c_str(), plan.nx, plan.ny, plan.note.c_str());
  std::fflush(stdout);
  BigMatrix m;
  if (cudaError_t err = m.init(plan.nx, plan.ny, seed); err != cudaSuccess)
    return cudalab::describe_error(err, "test setup (allocating and filling the matrices)", __FILE__, __LINE__);
  return m.check(name, launch, config);
}
