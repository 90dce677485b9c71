// Test support for ch04_02: the AoS baseline (a copy of the handed-out testInnerStruct, so the
// baseline is the same for everyone) and the checks of readWriteOffset and testInnerArray.
#include "cudalab/launch.cuh"
#include "layout_check.cuh"

#include <cstring>
#include <sstream>

const char *const kFieldNames[8] = {"x", "y", "z", "vx", "vy", "vz", "mass", "charge"};

__global__ void testInnerStructBaseline(const innerStruct *data, innerStruct *result, int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < static_cast<unsigned int>(n)) {
    const float x = data[i].x, y = data[i].y;
    result[i].x = x + 10.f;
    result[i].y = y + 20.f;
  }
}

__global__ void soaStreamBaseline(const float *x, const float *y, float *rx, float *ry, int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < static_cast<unsigned int>(n)) {
    const float a = x[i], b = y[i];
    rx[i] = a;
    ry[i] = b;
  }
}

__global__ void packParticles(innerArray soa, innerStruct *aos, int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < static_cast<unsigned int>(n)) {
    innerStruct p;
    p.x = soa.x[i];
    p.y = soa.y[i];
    p.z = soa.z[i];
    p.vx = soa.vx[i];
    p.vy = soa.vy[i];
    p.vz = soa.vz[i];
    p.mass = soa.mass[i];
    p.charge = soa.charge[i];
    aos[i] = p;
  }
}

namespace {

/// Launch or execution error of the kernel just launched, with @p ctx; "" if none.
std::string launch_error(const char *name, const std::string &ctx) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, name, __FILE__, __LINE__) + " (" + ctx + ")";
  return "";
}

std::string setup_error(cudaError_t err) { return cudalab::describe_error(err, "test setup", __FILE__, __LINE__); }

/// Counts the particles whose result x or y differs (bitwise) from data.x + 10 or data.y + 20 and
/// records the first one.
__global__ void checkInnerArray(innerArray data, innerArray result, int n, unsigned long long *wrong,
                                unsigned long long *first) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float x = __fadd_rn(data.x[i], 10.f), y = __fadd_rn(data.y[i], 20.f);
    if (__float_as_uint(x) != __float_as_uint(result.x[i]) || __float_as_uint(y) != __float_as_uint(result.y[i])) {
      atomicAdd(wrong, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}

float poison_float() {
  float p;
  std::memset(&p, cudalab::kPoisonByte, sizeof p);
  return p;
}

/// First wrong element of @p got against @p want (bitwise): index, or -1 when all agree.
long long first_mismatch(const std::vector<float> &want, const std::vector<float> &got, long long *wrong) {
  long long first = -1;
  *wrong = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0) {
      if ((*wrong)++ == 0) first = static_cast<long long>(i);
    }
  }
  return first;
}

}  // namespace

cudaError_t DeviceParticles::allocate(int n, int guard) {
  for (auto &f : field_) {
    if (cudaError_t err = f.allocate(std::size_t(n) + guard); err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

cudaError_t DeviceParticles::upload(int f, const std::vector<float> &values) {
  return cudaMemcpy(field_[f].get(), values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice);
}

cudaError_t DeviceParticles::poison() {
  for (auto &f : field_) {
    if (cudaError_t err = f.poison(); err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

innerArray DeviceParticles::view() const {
  return innerArray{field(0), field(1), field(2), field(3), field(4), field(5), field(6), field(7)};
}

std::string read_write_offset_error(int n, int offset, unsigned int block, int guard, std::uint64_t seed) {
  std::ostringstream ctx;
  ctx << "n=" << n << " offset=" << offset << " block=" << block << " seed=" << seed;
  const std::size_t total = std::size_t(n) + guard;
  const std::vector<float> a = cudalab::random_floats(total, -1.f, 1.f, seed);
  const std::vector<float> b = cudalab::random_floats(total, -1.f, 1.f, seed ^ 0x5bd1e995u);
  cudalab::DeviceBuffer<float> da, db, dc;
  cudaError_t err = da.upload(a);
  if (err == cudaSuccess) err = db.upload(b);
  if (err == cudaSuccess) err = dc.allocate(total);
  if (err == cudaSuccess) err = dc.poison();
  if (err != cudaSuccess) return setup_error(err);

  cudalab::launch(readWriteOffset, grid_1d(n, block), block)(da.get(), db.get(), dc.get(), n, offset);
  if (std::string e = launch_error("readWriteOffset", ctx.str()); !e.empty()) return e;
  std::vector<float> c;
  if ((err = dc.download(&c)) != cudaSuccess) return setup_error(err);

  // Expected: A + B on [offset, n), untouched (poison) everywhere else, guard included.
  std::vector<float> want(total, poison_float());
  for (long long k = offset; k < n; ++k) want[k] = a[k] + b[k];
  long long wrong = 0;
  const long long k = first_mismatch(want, c, &wrong);
  if (k < 0) return "";
  std::ostringstream msg;
  if (k >= offset && k < n) {
    msg << "readWriteOffset: wrong result at C[" << k << "]: expected " << want[k] << " (A[k] + B[k]), got " << c[k];
    if (cudalab::is_poison(c[k])) msg << " (never written: still the poison value)";
  } else {
    msg << "readWriteOffset wrote C[" << k << "] = " << c[k] << ", outside [offset, n) = [" << offset << ", " << n
        << ")" << (k >= n ? ": past the end of the array" : ": below the offset");
  }
  msg << "; " << wrong << " of " << total << " elements wrong (" << ctx.str() << ")";
  return msg.str();
}

std::string inner_array_error(int n, unsigned int block, int guard, std::uint64_t seed) {
  std::ostringstream ctx;
  ctx << "n=" << n << " block=" << block << " seed=" << seed;
  const std::size_t total = std::size_t(n) + guard;
  DeviceParticles data, result;
  std::vector<float> x, y;
  cudaError_t err = data.allocate(n, guard);
  if (err == cudaSuccess) err = result.allocate(n, guard);
  for (int f = 0; f < 8 && err == cudaSuccess; ++f) {
    std::vector<float> values = cudalab::random_floats(total, -100.f, 100.f, seed * 8 + f);
    err = data.upload(f, values);
    if (f == 0) x = std::move(values);
    if (f == 1) y = std::move(values);
  }
  if (err == cudaSuccess) err = result.poison();
  if (err != cudaSuccess) return setup_error(err);

  cudalab::launch(testInnerArray, grid_1d(n, block), block)(data.view(), result.view(), n);
  if (std::string e = launch_error("testInnerArray", ctx.str()); !e.empty()) return e;

  for (int f = 0; f < 8; ++f) {
    std::vector<float> got;
    if ((err = result.download(f, &got)) != cudaSuccess) return setup_error(err);
    std::vector<float> want(total, poison_float());
    if (f < 2) {
      const std::vector<float> &in = f == 0 ? x : y;
      const float add = f == 0 ? 10.f : 20.f;
      for (int i = 0; i < n; ++i) want[i] = in[i] + add;
    }
    long long wrong = 0;
    const long long i = first_mismatch(want, got, &wrong);
    if (i < 0) continue;
    std::ostringstream msg;
    if (f < 2 && i < n) {
      msg << "testInnerArray: wrong result at result." << kFieldNames[f] << "[" << i << "]: expected " << want[i]
          << " (data." << kFieldNames[f] << "[i] + " << (f == 0 ? 10 : 20) << "), got " << got[i];
      if (cudalab::is_poison(got[i])) msg << " (never written: still the poison value)";
    } else if (f < 2) {
      msg << "testInnerArray wrote result." << kFieldNames[f] << "[" << i << "] = " << got[i]
          << ", past the end of the n particles";
    } else {
      msg << "testInnerArray wrote result." << kFieldNames[f] << "[" << i << "] = " << got[i]
          << ": only x and y may change (testInnerStruct leaves the other fields alone)";
    }
    msg << "; " << wrong << " of " << total << " wrong in this field (" << ctx.str() << ")";
    return msg.str();
  }
  return "";
}

cudaError_t BigParticles::init(int n, std::uint64_t seed) {
  n_ = n;
  seed_ = seed;
  x_ = cudalab::random_floats(n, -100.f, 100.f, seed);
  y_ = cudalab::random_floats(n, -100.f, 100.f, seed ^ 0x5bd1e995u);
  cudaError_t err = soa_data_.allocate(n, 0);
  if (err == cudaSuccess) err = soa_result_.allocate(n, 0);
  if (err == cudaSuccess) err = aos_data_.allocate(n);
  if (err == cudaSuccess) err = aos_result_.allocate(n);
  if (err == cudaSuccess) err = soa_data_.upload(0, x_);
  if (err == cudaSuccess) err = soa_data_.upload(1, y_);
  for (int f = 2; f < 8 && err == cudaSuccess; ++f)
    err = cudaMemset(soa_data_.field(f), 0, std::size_t(n) * sizeof(float));
  if (err == cudaSuccess) err = soa_result_.poison();
  if (err == cudaSuccess) err = cudaMemset(aos_result_.get(), 0, aos_result_.bytes());
  if (err != cudaSuccess) return err;
  cudalab::launch(packParticles, grid_1d(n, 256), 256)(soa_data_.view(), aos_data_.get(), n);
  err = cudaGetLastError();
  return err == cudaSuccess ? cudaDeviceSynchronize() : err;
}

std::string BigParticles::check(unsigned int block) {
  return check_launch(
      "testInnerArray",
      [&] { cudalab::launch(testInnerArray, grid_1d(n_, block), block)(soa_data_.view(), soa_result_.view(), n_); },
      block);
}

std::string BigParticles::check_launch(const std::string &name, const std::function<void()> &launch,
                                       unsigned int block) {
  std::ostringstream ctx;
  ctx << "n=" << n_ << " block=" << block;
  if (cudaError_t err = soa_result_.poison(); err != cudaSuccess) return setup_error(err);
  launch();
  if (std::string e = launch_error(name.c_str(), ctx.str()); !e.empty()) return e;
  for (int f = 0; f < 2; ++f) {
    std::vector<float> got;
    if (cudaError_t err = soa_result_.download(f, &got); err != cudaSuccess) return setup_error(err);
    const std::vector<float> &in = f == 0 ? x_ : y_;
    const float add = f == 0 ? 10.f : 20.f;
    for (int i = 0; i < n_; ++i) {
      const float want = in[i] + add;
      if (std::memcmp(&want, &got[i], sizeof(float)) != 0) {
        std::ostringstream msg;
        msg << name << ": wrong result." << kFieldNames[f] << "[" << i << "]: expected " << want << ", got " << got[i]
            << (cudalab::is_poison(got[i]) ? " (never written: still the poison value)" : "") << " (" << ctx.str()
            << ")";
        return msg.str();
      }
    }
  }
  return "";
}

void BigParticles::stream_same_traffic(unsigned int block) const {
  // The AoS result holds 8 floats per particle: its first 2n floats take the two output arrays.
  float *out = reinterpret_cast<float *>(aos_result_.get());
  const innerArray in = soa_data_.view();
  cudalab::launch(soaStreamBaseline, grid_1d(n_, block), block)(in.x, in.y, out, out + n_, n_);
}

cudalab::SampleCheck BigParticles::sample_check(unsigned int block) {
  rng_.seed(seed_ ^ 0x5a3c0ffee1234567ull);
  cudalab::SampleCheck check;
  check.prepare = [this](int) {
    changed_field_ = std::uniform_int_distribution<int>(0, 1)(rng_);
    changed_index_ = std::uniform_int_distribution<int>(0, n_ - 1)(rng_);
    float &v = (changed_field_ == 0 ? x_ : y_)[changed_index_];
    for (const float old = v; v == old;) v = std::uniform_real_distribution<float>(-100.f, 100.f)(rng_);
    cudaMemcpy(soa_data_.field(changed_field_) + changed_index_, &v, sizeof v, cudaMemcpyHostToDevice);
    cudaMemcpy(reinterpret_cast<float *>(aos_data_.get() + changed_index_) + changed_field_, &v, sizeof v,
               cudaMemcpyHostToDevice);
    for (int f = 0; f < 2; ++f) cudaMemset(soa_result_.field(f), cudalab::kPoisonByte, std::size_t(n_) * sizeof(float));
  };
  check.verify = [this, block](int) -> std::string {
    std::ostringstream ctx;
    ctx << "n=" << n_ << " block=" << block << ", timed launch";
    const std::vector<float> &in = changed_field_ == 0 ? x_ : y_;
    float now = 0;  // the data is read-only: the sample's changed particle must still be there
    cudaError_t err =
        cudaMemcpy(&now, soa_data_.field(changed_field_) + changed_index_, sizeof now, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) return setup_error(err);
    if (std::memcmp(&now, &in[changed_index_], sizeof now) != 0) {
      std::ostringstream msg;
      msg << "testInnerArray modified its input: data." << kFieldNames[changed_field_] << "[" << changed_index_
          << "] was " << in[changed_index_] << " before the launch and " << now << " after it (" << ctx.str() << ")";
      return msg.str();
    }
    cudalab::DeviceBuffer<unsigned long long> counters;
    if ((err = counters.upload({0ull, ~0ull})) != cudaSuccess) return setup_error(err);
    cudalab::launch(checkInnerArray, 1024, 256)(soa_data_.view(), soa_result_.view(), n_, counters.get(),
                                                counters.get() + 1);
    std::vector<unsigned long long> result;
    err = cudaGetLastError();
    if (err == cudaSuccess) err = counters.download(&result);
    if (err != cudaSuccess) return cudalab::describe_error(err, "device-side check", __FILE__, __LINE__);
    if (result[0] == 0) return "";
    const std::size_t i = result[1];
    for (int f = 0; f < 2; ++f) {
      float got = 0;
      if ((err = cudaMemcpy(&got, soa_result_.field(f) + i, sizeof got, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return setup_error(err);
      const float want = (f == 0 ? x_ : y_)[i] + (f == 0 ? 10.f : 20.f);
      if (std::memcmp(&want, &got, sizeof want) == 0) continue;
      std::ostringstream msg;
      msg << "testInnerArray: wrong result." << kFieldNames[f] << "[" << i << "]: expected " << want << ", got " << got
          << (cudalab::is_poison(got) ? " (never written: still the poison value)" : "") << "; " << result[0] << " of "
          << n_ << " particles wrong (" << ctx.str() << ")";
      return msg.str();
    }
    return "testInnerArray: wrong result for particle " + std::to_string(i) + "; " + std::to_string(result[0]) +
           " of " + std::to_string(n_) + " particles wrong (" + ctx.str() + ")";
  };
  return check;
}
