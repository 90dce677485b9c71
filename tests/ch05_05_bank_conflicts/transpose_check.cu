// ch05_05 test support: CPU reference, guarded check, copy baseline and the bank-conflict model.
#include "transpose_check.cuh"

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <sstream>

__global__ void copyTiledBaseline(const float *in, float *out, int rows, int cols) {
  const int c = blockIdx.x * kTileDim + threadIdx.x;
  const int r0 = blockIdx.y * kTileDim + threadIdx.y;
  if (c >= cols) return;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = r0 + j;
    if (r < rows) out[static_cast<std::size_t>(r) * cols + c] = in[static_cast<std::size_t>(r) * cols + c];
  }
}

cudaError_t TransposeData::init(int rows, int cols, std::uint64_t seed, int guard) {
  rows_ = rows;
  cols_ = cols;
  seed_ = seed;
  host_ = cudalab::random_floats(std::size_t(rows) * cols, -1000.0f, 1000.0f, seed);
  cudaError_t err = in_.upload(host_);
  if (err != cudaSuccess) return err;
  return out_.allocate(std::size_t(rows) * cols + guard);
}

std::string TransposeData::check(const std::string &name, const TransposeLaunch &launch) {
  std::ostringstream ctx;
  ctx << "rows=" << rows_ << " cols=" << cols_ << " seed=" << seed_;
  cudaError_t err = out_.poison();
  if (err != cudaSuccess) return cudalab::describe_error(err, "poisoning the output", __FILE__, __LINE__);
  launch(in_.get(), out_.get(), rows_, cols_);
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    return cudalab::describe_error(err, ("kernel " + name).c_str(), __FILE__, __LINE__) + " (" + ctx.str() + ")";
  std::vector<float> got;
  err = out_.download(&got);
  if (err != cudaSuccess) return cudalab::describe_error(err, "copying the output back", __FILE__, __LINE__);

  const std::size_t n = std::size_t(rows_) * cols_;
  std::size_t wrong = 0, first = n;
  for (std::size_t k = 0; k < n; ++k) {  // output element k = out[c][r]
    const std::size_t c = k / rows_, r = k % rows_;
    const float want = host_[r * cols_ + c];
    if (!(got[k] == want) && wrong++ == 0) first = k;
  }
  std::ostringstream os;
  if (wrong > 0) {
    const std::size_t c = first / rows_, r = first % rows_;
    os << name << ": wrong output at index " << first << " = out[" << c << "][" << r << "] (must be in[" << r << "]["
       << c << "]; tile (" << r / kTileDim << ", " << c / kTileDim << ") of the input, block (" << c / kTileDim << ", "
       << r / kTileDim << ")): expected " << host_[r * cols_ + c] << ", got " << got[first];
    if (cudalab::is_poison(got[first])) os << " (never written: still the poison value)";
    os << "; " << wrong << " of " << n << " wrong (" << ctx.str() << ")";
    return os.str();
  }
  for (std::size_t k = n; k < got.size(); ++k) {
    if (!cudalab::is_poison(got[k])) {
      os << name << ": wrote past the end of the output: element " << k << " (rows * cols + " << k - n << ") is "
         << got[k] << "; check the guards of the store: output row < cols, output column < rows (" << ctx.str() << ")";
      return os.str();
    }
  }
  return "";
}

cudalab::SampleCheck TransposeData::sample_check(const std::string &name, int launches) {
  struct State {
    TransposeData *data;
    std::string name, context;
    int launches;
    std::vector<float> expected, got;  // expected: the transposed input, out[c][r] = in[r][c]
    std::mt19937_64 rng;
  };
  std::ostringstream ctx;
  ctx << "rows=" << rows_ << " cols=" << cols_ << " seed=" << seed_ << ", a timed run with one input element changed";
  auto s = std::make_shared<State>(
      State{this, name, ctx.str(), std::max(1, launches), {}, {}, std::mt19937_64(seed_ ^ 0x5a3c0ffeeull)});
  const std::size_t rows = rows_, cols = cols_;
  s->expected.resize(rows * cols);
  for (std::size_t r0 = 0; r0 < rows; r0 += kTileDim)  // tile by tile, so both sides stay in cache
    for (std::size_t c0 = 0; c0 < cols; c0 += kTileDim)
      for (std::size_t r = r0; r < std::min(rows, r0 + kTileDim); ++r)
        for (std::size_t c = c0; c < std::min(cols, c0 + kTileDim); ++c)
          s->expected[c * rows + r] = host_[r * cols + c];
  cudalab::SampleCheck check;
  check.prepare = [s](int) {
    TransposeData &d = *s->data;
    const std::size_t j = std::uniform_int_distribution<std::size_t>(0, d.host_.size() - 1)(s->rng);
    float v = d.host_[j];
    while (v == d.host_[j]) v = std::uniform_real_distribution<float>(-1000.0f, 1000.0f)(s->rng);
    d.host_[j] = v;
    cudaMemcpy(d.in_.get() + j, &v, sizeof v, cudaMemcpyHostToDevice);
    const std::size_t r = j / d.cols_, c = j % d.cols_;
    s->expected[c * d.rows_ + r] = v;
    d.out_.poison();
    d.next_launch_ = 0;
  };
  check.verify = [s](int) -> std::string {
    TransposeData &d = *s->data;
    const std::size_t n = s->expected.size(), shift = kLaunchShift, last = std::size_t(s->launches - 1) * shift;
    if (d.out_.size() < last + n + kGuard)
      return "the output has no room for " + std::to_string(s->launches) +
             " shifted launches: allocate it with TransposeData::sample_guard (" + s->context + ")";
    const cudaError_t err = d.out_.download(&s->got);
    if (err != cudaSuccess)
      return cudalab::describe_error(err, "copying a timed run's output back", __FILE__, __LINE__);
    const float *got = s->got.data(), *want = s->expected.data();
    for (int l = 0; l < s->launches; ++l) {
      // What launch l left: its first kLaunchShift floats (the next launch writes over the rest), or,
      // for the last launch, all of its output.
      const std::size_t at = std::size_t(l) * shift, count = l + 1 < s->launches ? std::min(shift, n) : n;
      if (std::memcmp(got + at, want, count * sizeof(float)) == 0) continue;
      std::size_t wrong = 0, first = count;
      for (std::size_t k = 0; k < count; ++k)
        if (!(got[at + k] == want[k]) && wrong++ == 0) first = k;
      if (wrong == 0) continue;  // the same values with other bits (-0 and 0)
      const std::size_t c = first / d.rows_, r = first % d.rows_;
      std::ostringstream os;
      os << s->name << ": wrong output at index " << first << " = out[" << c << "][" << r << "] (must be in[" << r
         << "][" << c << "])";
      if (s->launches > 1)
        os << " of launch " << l + 1 << " of the " << s->launches << " in this timed run (launch k writes at output + "
           << "(k - 1) * " << shift << " floats; every launch must do all of its work)";
      os << ": expected " << want[first] << ", got " << got[at + first];
      if (cudalab::is_poison(got[at + first])) os << " (never written: still the poison value)";
      os << "; " << wrong << " of " << count << " checked wrong (" << s->context << ")";
      return os.str();
    }
    for (std::size_t k = last + n; k < s->got.size(); ++k) {
      if (!cudalab::is_poison(got[k])) {
        std::ostringstream os;
        os << s->name << ": wrote past the end of the output: element " << k - last << " (rows * cols + "
           << k - last - n << ") is " << got[k] << " (" << s->context << ")";
        return os.str();
      }
    }
    return "";
  };
  return check;
}

int model_conflict_degree(const std::vector<long long> &words) {
  std::set<long long> per_bank[32];
  for (long long w : words) per_bank[((w % 32) + 32) % 32].insert(w);
  std::size_t worst = 0;
  for (const auto &s : per_bank) worst = s.size() > worst ? s.size() : worst;
  return static_cast<int>(worst);
}

long long model_tile_read_conflicts(int rows, int cols, int row_stride, long long *warp_loads) {
  // Every block runs the same pattern: warp ty (one per tile row group) executes 4 loads, at
  // j = 0, 8, 16, 24; lane tx reads tile[tx][ty + j] = word tx * row_stride + ty + j.
  long long per_block = 0, loads_per_block = 0;
  for (int ty = 0; ty < kBlockRows; ++ty) {
    for (int j = 0; j < kTileDim; j += kBlockRows) {
      std::vector<long long> words;
      for (int tx = 0; tx < kTileDim; ++tx) words.push_back(static_cast<long long>(tx) * row_stride + ty + j);
      per_block += model_conflict_degree(words) - 1;
      ++loads_per_block;
    }
  }
  const long long blocks = static_cast<long long>(rows / kTileDim) * (cols / kTileDim);
  if (warp_loads) *warp_loads = blocks * loads_per_block;
  return blocks * per_block;
}
