// ch05_02 test support: the naive baseline, the CPU reference, the guarded check and the load model.
#include "adjacent_check.cuh"

#include <cstring>
#include <memory>
#include <random>
#include <sstream>

__global__ void adjacentDifferenceNaiveBaseline(const int *input, int *result, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int x_i = input[i];
    const int x_left = i > 0 ? input[i - 1] : 0;
    result[i] = x_i - x_left;
  }
}

std::vector<int> cpu_adjacent_difference(const std::vector<int> &input) {
  std::vector<int> out(input.size());
  for (std::size_t i = 0; i < input.size(); ++i) out[i] = i > 0 ? input[i] - input[i - 1] : input[i];
  return out;
}

cudaError_t AdjacentData::init(int n, std::uint64_t seed, int guard) {
  n_ = n;
  seed_ = seed;
  host_ = cudalab::random_ints(n, -1000000000, 1000000000, seed);
  cudaError_t err = in_.upload(host_);
  if (err != cudaSuccess) return err;
  return out_.allocate(std::size_t(n) + guard);
}

std::string AdjacentData::check(const std::string &name, const AdjacentLaunch &launch, unsigned int block) {
  std::ostringstream ctx;
  ctx << "n=" << n_ << " block=" << block << " seed=" << seed_;
  cudaError_t err = out_.poison();
  if (err != cudaSuccess) return cudalab::describe_error(err, "poisoning the result", __FILE__, __LINE__);
  launch(in_.get(), out_.get(), n_);
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    return cudalab::describe_error(err, ("kernel " + name).c_str(), __FILE__, __LINE__) + " (" + ctx.str() + ")";
  std::vector<int> got;
  err = out_.download(&got);
  if (err != cudaSuccess) return cudalab::describe_error(err, "copying the result back", __FILE__, __LINE__);

  return result_error(name, host_, got, block, ctx.str());
}

cudalab::SampleCheck AdjacentData::sample_check(const std::string &name, unsigned int block) {
  struct State {
    AdjacentData *data;
    std::string name, context;
    unsigned int block;
    std::vector<int> expected, got;
    std::mt19937_64 rng;
  };
  std::ostringstream ctx;
  ctx << "n=" << n_ << " block=" << block << " seed=" << seed_ << ", a timed run with one input element changed";
  auto s = std::make_shared<State>(
      State{this, name, ctx.str(), block, cpu_adjacent_difference(host_), {}, std::mt19937_64(seed_ ^ 0x5a3c0ffeeull)});
  cudalab::SampleCheck check;
  check.prepare = [s](int) {
    AdjacentData &d = *s->data;
    const std::size_t n = d.host_.size();
    if (n > 0) {
      const std::size_t j = std::uniform_int_distribution<std::size_t>(0, n - 1)(s->rng);
      int v = d.host_[j];
      while (v == d.host_[j]) v = std::uniform_int_distribution<int>(-1000000000, 1000000000)(s->rng);
      d.host_[j] = v;
      cudaMemcpy(d.in_.get() + j, &v, sizeof v, cudaMemcpyHostToDevice);
      s->expected[j] = j > 0 ? v - d.host_[j - 1] : v;  // the two results that read input[j]
      if (j + 1 < n) s->expected[j + 1] = d.host_[j + 1] - v;
    }
    d.out_.poison();
  };
  check.verify = [s](int) -> std::string {
    AdjacentData &d = *s->data;
    const cudaError_t err = d.out_.download(&s->got);
    if (err != cudaSuccess)
      return cudalab::describe_error(err, "copying a timed run's result back", __FILE__, __LINE__);
    const std::size_t n = s->expected.size();
    bool same = std::memcmp(s->got.data(), s->expected.data(), n * sizeof(int)) == 0;
    for (std::size_t k = n; same && k < s->got.size(); ++k) same = cudalab::is_poison(s->got[k]);
    if (same) return "";
    return result_error(s->name, d.host_, s->got, s->block, s->context);
  };
  return check;
}

std::string result_error(const std::string &name, const std::vector<int> &input, const std::vector<int> &got,
                         unsigned int block, const std::string &context) {
  const long long n = static_cast<long long>(input.size());
  const std::vector<int> want = cpu_adjacent_difference(input);
  long long wrong = 0, at_boundaries = 0, first = -1;
  for (long long i = 0; i < n; ++i) {
    if (got[i] == want[i]) continue;
    if (wrong++ == 0) first = i;
    if (i > 0 && i % block == 0) ++at_boundaries;
  }
  std::ostringstream os;
  if (wrong > 0) {
    const long long f = first, b = f / block, t = f % block;
    os << name << ": wrong result at index " << f;
    if (f == 0)
      os << " (result[0] must be input[0] = " << input[0]
         << ": the first element has no left neighbour and is copied, as std::adjacent_difference does)";
    else if (t == 0)
      os << " = the first element of block " << b << ", a BLOCK BOUNDARY: its left neighbour input[" << f - 1
         << "] is the last element of block " << b - 1
         << "'s tile, not in this block's shared memory -- thread 0 must read it from global memory (the halo)";
    else
      os << " (thread " << t << " of block " << b << ")";
    os << ": expected " << want[f] << ", got " << got[f];
    if (cudalab::is_poison(got[f])) os << " (never written: still the poison value)";
    os << "; " << wrong << " of " << n << " wrong";
    if (at_boundaries == wrong && f > 0)
      os << ", all of them at block boundaries";
    else if (at_boundaries > 0)
      os << ", " << at_boundaries << " of them at block boundaries";
    os << " (" << context << ")";
    return os.str();
  }
  for (std::size_t k = input.size(); k < got.size(); ++k) {
    if (!cudalab::is_poison(got[k])) {
      os << name << ": wrote past the end of the result: element " << k << " (n + " << k - input.size() << ") is "
         << got[k] << "; threads with i >= n must write nothing (" << context << ")";
      return os.str();
    }
  }
  return "";
}

namespace {

/// One load instruction of one warp: add the lanes' elements in order (they ascend).
struct Instruction {
  LoadCount *count;
  long long last_sector = -1;
  bool any = false;
  void lane(long long element) {
    const long long sector = element * static_cast<long long>(sizeof(int)) / 32;
    ++count->loads;
    if (!any) ++count->warp_loads;
    if (!any || sector != last_sector) ++count->sectors;
    any = true;
    last_sector = sector;
  }
};

}  // namespace

LoadCounts simulate_global_loads(long long n, unsigned int block) {
  LoadCounts c;
  if (n <= 0 || block == 0) return c;
  const long long blocks = (n + block - 1) / block;
  const long long warps_per_block = (block + 31) / 32;
  for (long long b = 0; b < blocks; ++b) {
    for (long long w = 0; w < warps_per_block; ++w) {
      Instruction naive_x{&c.naive}, naive_left{&c.naive}, shared_x{&c.shared}, shared_halo{&c.shared};
      for (long long lane = 0; lane < 32; ++lane) {
        const long long t = w * 32 + lane, i = b * block + t;
        if (t >= block || i >= n) break;
        naive_x.lane(i);
        if (i > 0) naive_left.lane(i - 1);
        shared_x.lane(i);
        if (t == 0 && b > 0) shared_halo.lane(i - 1);
      }
    }
  }
  return c;
}
