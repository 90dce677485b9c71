// ch03_16 test support: the chains' reference and check, the tests' model, the ncu reader.
#include "scheduling_check.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/ncu.hpp"
#include "cudalab/testing.cuh"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

void chains_inputs(int n, std::uint64_t seed, std::vector<float4> *x0, std::vector<float4> *c) {
  const std::vector<float> a = cudalab::random_floats(std::size_t(n) * 4, -1.0f, 1.0f, seed);
  const std::vector<float> b = cudalab::random_floats(std::size_t(n) * 4, -1.9f, -1.4f, seed + 1);
  x0->resize(n);
  c->resize(n);
  if (n > 0) {
    std::memcpy(x0->data(), a.data(), a.size() * sizeof(float));
    std::memcpy(c->data(), b.data(), b.size() * sizeof(float));
  }
}

std::vector<float4> chains_reference(const std::vector<float4> &x0, const std::vector<float4> &c, int steps) {
  std::vector<float4> out(x0.size());
  for (std::size_t i = 0; i < x0.size(); ++i) {
    const float *in = &x0[i].x, *k = &c[i].x;
    float *o = &out[i].x;
    for (int q = 0; q < kChains; ++q) {
      float v = in[q];
      for (int s = 0; s < steps; ++s) v = std::fmaf(v, v, k[q]);
      o[q] = v;
    }
  }
  return out;
}

std::string chains_mismatch(const char *name, const std::vector<float4> &got, const std::vector<float4> &want,
                            const std::vector<float4> &x0, const std::vector<float4> &c, int steps,
                            long long first_pass, const std::string &where) {
  const char *const chain = "xyzw";
  for (std::size_t i = 0; i < want.size(); ++i) {
    const float *g = &got[i].x, *w = &want[i].x;
    for (int q = 0; q < kChains; ++q) {
      std::uint32_t gb, wb;
      std::memcpy(&gb, &g[q], 4);
      std::memcpy(&wb, &w[q], 4);
      if (gb == wb) continue;
      std::ostringstream os;
      os.precision(9);
      os << name << ": out[" << i << "]." << chain[q] << " is " << g[q];
      if (cudalab::is_poison(g[q])) os << " (never written: still the poison value)";
      os << ", expected " << w[q] << " (x0 " << (&x0[i].x)[q] << ", c " << (&c[i].x)[q] << ", " << steps
         << " x fmaf(q, q, c) in order)";
      if (static_cast<long long>(i) >= first_pass) os << "; element " << i << " is past the first grid-stride pass";
      os << " (" << where << ")";
      return os.str();
    }
  }
  return "";
}

namespace {
// Runs launch(x0, c, out) once on the device copies of x0 and c and checks out[] against want, bit
// for bit, and the 64 poisoned float4 after it. `where` (the launch, the seed) is for the messages.
template <class Launch>
std::string run_chains(const char *name, Launch launch, const std::vector<float4> &x0, const std::vector<float4> &c,
                       const std::vector<float4> &want, int steps, long long first_pass, const std::string &where) {
  const int n = static_cast<int>(x0.size());
  constexpr int kGuard = 64;
  cudalab::DeviceBuffer<float4> d_x0, d_c, d_out;
  cudaError_t err = d_x0.allocate(std::max(n, 1));
  if (err == cudaSuccess && n > 0) err = cudaMemcpy(d_x0.get(), x0.data(), n * sizeof(float4), cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = d_c.allocate(std::max(n, 1));
  if (err == cudaSuccess && n > 0) err = cudaMemcpy(d_c.get(), c.data(), n * sizeof(float4), cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = d_out.allocate(std::size_t(n) + kGuard);
  if (err == cudaSuccess) err = d_out.poison();
  if (err != cudaSuccess) return std::string("setup failed: ") + cudaGetErrorString(err) + " (" + where + ")";
  err = launch(d_x0.get(), d_c.get(), d_out.get());
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    return std::string(name) + " failed: " + cudaGetErrorName(err) + " " + cudaGetErrorString(err) + " (" + where + ")";
  std::vector<float4> got;
  err = d_out.download(&got);
  if (err != cudaSuccess) return std::string("download failed: ") + cudaGetErrorString(err);
  if (std::string wrong = chains_mismatch(name, got, want, x0, c, steps, first_pass, where); !wrong.empty())
    return wrong;
  for (int g = 0; g < kGuard; ++g) {
    const float *v = &got[std::size_t(n) + g].x;
    for (int q = 0; q < kChains; ++q)
      if (!cudalab::is_poison(v[q]))
        return std::string(name) + " wrote out[" + std::to_string(n + g) + "], past the last element (" + where + ")";
  }
  return "";
}

std::string chains_where(int n, int steps, unsigned int grid, unsigned int block, std::uint64_t seed) {
  std::ostringstream where;
  where << "n=" << n << " steps=" << steps << " grid=" << grid << " block=" << block << " seed=" << seed;
  return where.str();
}
}  // namespace

std::string chains_error(const char *name, ChainsKernel kernel, int n, int steps, unsigned int grid, unsigned int block,
                         std::size_t dyn_smem, std::uint64_t seed, std::vector<float4> *reference) {
  std::vector<float4> x0, c;
  chains_inputs(n, seed, &x0, &c);
  const std::vector<float4> want = chains_reference(x0, c, steps);
  if (reference) *reference = want;
  return run_chains(
      name,
      [&](const float4 *d_x0, const float4 *d_c, float4 *d_out) {
        cudalab::launch(kernel, grid, block, dyn_smem)(d_x0, d_c, d_out, n, steps);
        return cudaGetLastError();
      },
      x0, c, want, steps, static_cast<long long>(grid) * block, chains_where(n, steps, grid, block, seed));
}

std::string chains_error(const char *name, const ChainsLaunch &launch, int n, int steps, unsigned int grid,
                         unsigned int block, std::uint64_t seed, const std::vector<float4> &reference) {
  std::vector<float4> x0, c;
  chains_inputs(n, seed, &x0, &c);
  return run_chains(
      name, [&](const float4 *d_x0, const float4 *d_c, float4 *d_out) { return launch(d_x0, d_c, d_out, n, steps); },
      x0, c, reference, steps, static_cast<long long>(grid) * block, chains_where(n, steps, grid, block, seed));
}

SchedulerPrediction model_prediction(double warps, int ilp, double latency_cycles) {
  SchedulerPrediction p;
  if (!(warps > 0)) return p;
  const double per_issue_stall = std::max(0.0, latency_cycles / ilp - 1);  // stalled warp-cycles per issue
  // Stalled + issuing warps cannot exceed W: u (1 + stall) <= W, and u <= 1.
  const double u = std::min(1.0, warps / (1 + per_issue_stall));
  const double stalled = u * per_issue_stall;
  p.issue_utilization = u;
  p.eligible_warps = u < 1 ? u : warps - stalled;  // stall-bound: a ready warp issues at once
  p.selected_share = u / warps;
  p.not_selected_share = (p.eligible_warps - u) / warps;
  p.waiting_share = (warps - p.eligible_warps) / warps;
  return p;
}

double ProfiledLaunch::get(const std::string &name) const {
  const auto it = metrics.find(name);
  return it == metrics.end() ? -1.0 : it->second;
}

std::vector<ProfiledLaunch> profiled_launches(const std::string &ncu_output) {
  std::map<int, ProfiledLaunch> by_id;
  std::istringstream is(ncu_output);
  std::string line;
  int id_col = -1, k_col = -1, m_col = -1, v_col = -1;
  while (std::getline(is, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] != '"') continue;
    const std::vector<std::string> f = cudalab::csv_fields(line);
    if (id_col < 0) {
      for (int i = 0; i < int(f.size()); ++i) {
        if (f[i] == "ID") id_col = i;
        if (f[i] == "Kernel Name") k_col = i;
        if (f[i] == "Metric Name") m_col = i;
        if (f[i] == "Metric Value") v_col = i;
      }
      if (k_col < 0 || m_col < 0 || v_col < 0) id_col = -1;  // not the header line
      continue;
    }
    if (int(f.size()) <= std::max({id_col, k_col, m_col, v_col})) continue;
    std::string value;
    for (char ch : f[v_col])
      if (ch != ',') value += ch;
    ProfiledLaunch &l = by_id[std::atoi(f[id_col].c_str())];
    l.id = std::atoi(f[id_col].c_str());
    l.kernel = f[k_col];
    l.metrics[f[m_col]] = std::atof(value.c_str());
  }
  std::vector<ProfiledLaunch> out;
  for (auto &kv : by_id) out.push_back(kv.second);
  return out;
}
