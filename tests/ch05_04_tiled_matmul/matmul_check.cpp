#include "matmul_check.cuh"

#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/testing.cuh"

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>

// Why 2 K u is the right tolerance.
//
// Element (i, j) of ab is a dot product of length K, computed in float (u = 2^-24) in any order of
// summation, with or without fused multiply-adds -- the naive loop, 16- or 32-wide phases, cuBLAS's
// blocking. For every such order the classic bound holds (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., eq. (3.5)):
//
//     |ab_computed - ab_exact| <= gamma_K * S,   S = sum_k |a_ik| |b_kj|,   gamma_K = K u / (1 - K u).
//
// The reference is computed in double from the same float inputs: each product is exact (24 + 24
// bits fit in 53), and the double summation adds at most K 2^-53 S -- negligible. So 2 K u (which
// is >= gamma_K for K u <= 1/2) is never exceeded by a correct kernel, whatever its summation order.
// It still catches a wrong kernel: with inputs in [-1, 1), S is about K / 4, so the allowed error is
// about K^2 u / 2 -- 1e-5 for K = 17, 0.03 for K = 1000 -- while dropping, repeating or misplacing a
// single term changes an element by |a_ik b_kj|, 0.25 on average. (For the 4096 x 4096 inputs of
// the performance tests the bound is 0.5 per element: there it guards against gross errors only;
// the small and ragged sizes of the correctness tests are where the edges are checked.)
double matmul_tolerance(int K) { return 2.0 * K * kFloatU; }

namespace {

std::string describe(const std::string &name, const std::string &config, int M, int N, int K, std::uint64_t seed) {
  std::ostringstream os;
  os << name << ", M=" << M << " N=" << N << " K=" << K;
  if (!config.empty()) os << " " << config;
  os << " seed=" << seed;
  return os.str();
}

std::string run_error(const std::string &what, const std::string &ctx) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, what.c_str(), __FILE__, __LINE__) + " (" + ctx + ")";
  return "";
}

/// Exact-as-double element (i, j) of a x b and its S = sum |a_ik| |b_kj|.
void reference_element(const std::vector<float> &a, const std::vector<float> &b, int N, int K, int i, int j, double *c,
                       double *s) {
  double sum = 0.0, abs_sum = 0.0;
  for (int k = 0; k < K; ++k) {
    const double p = double(a[std::size_t(i) * K + k]) * double(b[std::size_t(k) * N + j]);
    sum += p;
    abs_sum += std::fabs(p);
  }
  *c = sum;
  *s = abs_sum;
}

}  // namespace

std::string matmul_error(const std::string &name, const MatmulLaunch &launch, int M, int N, int K,
                         const std::string &config, std::uint64_t seed, std::size_t guard) {
  // A SanitizeAll run leaves out the products of more than sanitizer_max_elements() multiply-adds
  // (the seed's 1000^3 took racecheck 100 s on an H100): the small and ragged shapes check every
  // tile edge and barrier.
  if (cudalab::skipped_under_sanitizer(std::size_t(M) * N * K)) return "";
  const std::string ctx = describe(name, config, M, N, K, seed);
  const std::size_t mn = std::size_t(M) * N;
  const std::vector<float> a = cudalab::random_floats(std::size_t(M) * K, -1.0f, 1.0f, seed);
  const std::vector<float> b = cudalab::random_floats(std::size_t(K) * N, -1.0f, 1.0f, seed + 1);
  cudalab::DeviceBuffer<float> da, db, dab;
  if (da.upload(a) != cudaSuccess || db.upload(b) != cudaSuccess || dab.allocate(mn + guard) != cudaSuccess ||
      dab.poison() != cudaSuccess)
    return "allocating the matrices failed (" + ctx + ")";
  cudaError_t err = launch(da.get(), db.get(), dab.get(), M, N, K);
  if (err != cudaSuccess)
    return cudalab::describe_error(err, ("launch of " + name).c_str(), __FILE__, __LINE__) + " (" + ctx + ")";
  if (std::string e = run_error("kernel " + name, ctx); !e.empty()) return e;
  std::vector<float> got;
  if (dab.download(&got) != cudaSuccess) return "copying ab back failed (" + ctx + ")";
  for (std::size_t i = mn; i < got.size(); ++i)
    if (!cudalab::is_poison(got[i]))
      return name + ": wrote past the end of ab: element " + std::to_string(i) + " (ab has " + std::to_string(mn) +
             " elements) (" + ctx + ")";

  // The reference, row by row (i-k-j order, so the inner loop runs along rows of b and ab).
  std::vector<double> c(mn, 0.0), s(mn, 0.0), abs_b(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) abs_b[i] = std::fabs(double(b[i]));
  for (int i = 0; i < M; ++i) {
    double *ci = &c[std::size_t(i) * N], *si = &s[std::size_t(i) * N];
    for (int k = 0; k < K; ++k) {
      const double aik = a[std::size_t(i) * K + k], abs_aik = std::fabs(aik);
      const float *bk = &b[std::size_t(k) * N];
      const double *abk = &abs_b[std::size_t(k) * N];
      for (int j = 0; j < N; ++j) {
        ci[j] += aik * double(bk[j]);
        si[j] += abs_aik * abk[j];
      }
    }
  }
  const double tol = matmul_tolerance(K);
  std::size_t wrong = 0, first = mn;
  for (std::size_t e = 0; e < mn; ++e) {
    const bool ok = std::isfinite(got[e]) && std::fabs(double(got[e]) - c[e]) <= tol * s[e];
    if (!ok && wrong++ == 0) first = e;
  }
  if (wrong == 0) return "";
  std::ostringstream os;
  os.precision(9);
  const int row = int(first / N), col = int(first % N);
  os << name << ": wrong result at (row " << row << ", col " << col << "): expected " << c[first] << ", got "
     << got[first];
  if (cudalab::is_poison(got[first])) {
    os << " (never written: still the poison value)";
  } else {
    os.precision(3);
    os << " (error " << std::fabs(double(got[first]) - c[first]) << " > tolerance " << tol * s[first]
       << " = 2 K u sum|a||b|)";
  }
  os << "; " << wrong << " of " << mn << " wrong (" << ctx << ")";
  return os.str();
}

cudaError_t BigGemm::init(int M, int N, int K, std::uint64_t seed) {
  M_ = M;
  N_ = N;
  K_ = K;
  seed_ = seed;
  ha_ = cudalab::random_floats(std::size_t(M) * K, -1.0f, 1.0f, seed);
  hb_ = cudalab::random_floats(std::size_t(K) * N, -1.0f, 1.0f, seed + 1);
  cudaError_t err = a_.upload(ha_);
  if (err == cudaSuccess) err = b_.upload(hb_);
  if (err == cudaSuccess) err = ab_.allocate(std::size_t(M) * N);
  return err;
}

std::string BigGemm::check(const std::string &name, const MatmulLaunch &launch, const std::string &config,
                           double tolerance, double *max_error) {
  const std::string ctx = describe(name, config, M_, N_, K_, seed_);
  if (ab_.poison() != cudaSuccess) return "poisoning ab failed (" + ctx + ")";
  cudaError_t err = launch(a_.get(), b_.get(), ab_.get(), M_, N_, K_);
  if (err != cudaSuccess)
    return cudalab::describe_error(err, ("launch of " + name).c_str(), __FILE__, __LINE__) + " (" + ctx + ")";
  if (std::string e = run_error("kernel " + name, ctx); !e.empty()) return e;
  std::vector<float> got;
  if (ab_.download(&got) != cudaSuccess) return "copying ab back failed (" + ctx + ")";
  std::size_t unwritten = 0, first_unwritten = got.size();
  for (std::size_t e = 0; e < got.size(); ++e)
    if (cudalab::is_poison(got[e]) && unwritten++ == 0) first_unwritten = e;
  if (unwritten > 0)
    return name + ": element (row " + std::to_string(first_unwritten / N_) + ", col " +
           std::to_string(first_unwritten % N_) + ") never written: still the poison value; " +
           std::to_string(unwritten) + " of " + std::to_string(got.size()) + " unwritten (" + ctx + ")";

  std::mt19937_64 gen(seed_ ^ 0x5DEECE66Dull);
  std::uniform_int_distribution<int> row_of(0, M_ - 1), col_of(0, N_ - 1);
  std::vector<std::pair<int, int>> samples = {{0, 0}, {0, N_ - 1}, {M_ - 1, 0}, {M_ - 1, N_ - 1}};
  while (samples.size() < 2000) samples.emplace_back(row_of(gen), col_of(gen));
  double worst = 0.0;
  for (const auto &[i, j] : samples) {
    double c = 0, s = 0;
    reference_element(ha_, hb_, N_, K_, i, j, &c, &s);
    const float g = got[std::size_t(i) * N_ + j];
    const double e = std::fabs(double(g) - c);
    if (s > 0) worst = std::fmax(worst, e / s);
    if (!std::isfinite(g) || e > tolerance * s) {
      std::ostringstream os;
      os.precision(9);
      os << name << ": wrong result at (row " << i << ", col " << j << "): expected " << c << ", got " << g;
      os.precision(3);
      os << " (error " << e << " > tolerance " << tolerance * s << ") (" << ctx << ")";
      return os.str();
    }
  }
  if (max_error) *max_error = worst;
  return "";
}

cudalab::SampleCheck BigGemm::sample_check(const std::string &name, const std::string &config, double tolerance) {
  struct State {
    BigGemm *gemm;
    std::string name, context;
    double tolerance;
    std::mt19937_64 rng;
    int row = -1;  // row of ab that the latest change moved
    std::vector<float> got;
    std::vector<double> c, s;
  };
  auto st = std::make_shared<State>(State{this,
                                          name,
                                          describe(name, config, M_, N_, K_, seed_),
                                          tolerance,
                                          std::mt19937_64(seed_ ^ 0x5a3c0ffeeull),
                                          -1,
                                          {},
                                          {},
                                          {}});
  st->context += ", a timed run with one element of a changed";
  cudalab::SampleCheck check;
  check.prepare = [st](int) {
    BigGemm &g = *st->gemm;
    std::uniform_int_distribution<std::size_t> element(0, g.ha_.size() - 1);
    std::size_t e = element(st->rng);
    for (int tries = 0; tries < 1000 && std::fabs(g.ha_[e]) < 0.5f; ++tries) e = element(st->rng);
    const float magnitude = std::uniform_real_distribution<float>(0.5f, 1.0f)(st->rng);
    const float v = g.ha_[e] < 0.0f ? magnitude : -magnitude;  // moves a[i][k] by 1 to 2
    g.ha_[e] = v;
    cudaMemcpy(g.a_.get() + e, &v, sizeof v, cudaMemcpyHostToDevice);
    st->row = static_cast<int>(e / g.K_);
    g.ab_.poison();
  };
  check.verify = [st](int) -> std::string {
    BigGemm &g = *st->gemm;
    const int M = g.M_, N = g.N_, K = g.K_;
    if (g.ab_.download(&st->got) != cudaSuccess) return "copying ab back failed (" + st->context + ")";
    const std::vector<float> &got = st->got;
    const std::uint32_t poison = 0x01010101u * cudalab::kPoisonByte;
    std::size_t unwritten = 0, first_unwritten = got.size();
    for (std::size_t e = 0; e < got.size(); ++e) {
      std::uint32_t bits;
      std::memcpy(&bits, &got[e], sizeof bits);
      if (bits == poison && unwritten++ == 0) first_unwritten = e;
    }
    if (unwritten > 0)
      return st->name + ": element (row " + std::to_string(first_unwritten / N) + ", col " +
             std::to_string(first_unwritten % N) + ") never written: still the poison value; " +
             std::to_string(unwritten) + " of " + std::to_string(got.size()) + " unwritten (" + st->context + ")";
    auto wrong = [&](int i, int j, double c, double s) -> std::string {
      const float v = got[std::size_t(i) * N + j];
      const double e = std::fabs(double(v) - c);
      if (std::isfinite(v) && e <= st->tolerance * s) return "";
      std::ostringstream os;
      os.precision(9);
      os << st->name << ": wrong result at (row " << i << ", col " << j << "): expected " << c << ", got " << v;
      os.precision(3);
      os << " (error " << e << " > tolerance " << st->tolerance * s << ") (" << st->context << ")";
      return os.str();
    };
    // Row `row` in full (i-k-j order: the inner loop runs along rows of b).
    const int i = st->row;
    if (i >= 0) {
      st->c.assign(N, 0.0);
      st->s.assign(N, 0.0);
      for (int k = 0; k < K; ++k) {
        const double aik = g.ha_[std::size_t(i) * K + k], abs_aik = std::fabs(aik);
        const float *bk = &g.hb_[std::size_t(k) * N];
        for (int j = 0; j < N; ++j) {
          st->c[j] += aik * double(bk[j]);
          st->s[j] += abs_aik * std::fabs(double(bk[j]));
        }
      }
      for (int j = 0; j < N; ++j)
        if (std::string w = wrong(i, j, st->c[j], st->s[j]); !w.empty()) return w;
    }
    std::uniform_int_distribution<int> row_of(0, M - 1), col_of(0, N - 1);
    for (int t = 0; t < 200; ++t) {
      const int r = row_of(st->rng), j = col_of(st->rng);
      double c = 0, s = 0;
      reference_element(g.ha_, g.hb_, N, K, r, j, &c, &s);
      if (std::string w = wrong(r, j, c, s); !w.empty()) return w;
    }
    return "";
  };
  return check;
}
