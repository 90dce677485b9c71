// ch03_02 profile: Nsight Compute's divergence metrics of the divergent baseline and of
// heavyKernel2, printed beside the book's nvprof names. heavyKernel2 must show no divergent
// branch and full warps. Without ncu, or where profiling is not permitted (ERR_NVGPUCTRPERM),
// the test is skipped -- never passed.
#include "divergence_check.cuh"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#ifndef CUDALAB_NCU
#define CUDALAB_NCU ""
#endif
#ifndef CUDALAB_PROFILE_TARGET
#define CUDALAB_PROFILE_TARGET ""
#endif

namespace {

struct Metric {
  const char *nvprof;  // the book's name
  const char *ncu;     // Nsight Compute's
};
const Metric kBranches{"branch", "smsp__sass_branch_targets.sum"};
const Metric kDivergent{"divergent_branch", "smsp__sass_branch_targets_threads_divergent.sum"};
const Metric kBranchEfficiency{"branch_efficiency", "smsp__sass_average_branch_targets_threads_uniform.pct"};
const Metric kWarpEfficiency{"warp_execution_efficiency", "smsp__thread_inst_executed_per_inst_executed.ratio"};

/// Splits one CSV line ("a","b,c",...) into fields.
std::vector<std::string> csv_fields(const std::string &line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"')
      quoted = !quoted;
    else if (ch == ',' && !quoted)
      out.push_back(cur), cur.clear();
    else
      cur += ch;
  }
  out.push_back(cur);
  return out;
}

/// Runs @p cmd, returns its stdout and stderr; @p rc gets the exit status.
std::string run(const std::string &cmd, int *rc) {
  std::string out;
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) {
    *rc = -1;
    return out;
  }
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  *rc = pclose(p);
  return out;
}

/// metric values per kernel (name up to '('), from ncu --csv output.
std::map<std::string, std::map<std::string, double>> parse(const std::string &text) {
  std::map<std::string, std::map<std::string, double>> v;
  std::istringstream is(text);
  std::string line;
  int k_col = -1, m_col = -1, v_col = -1;
  while (std::getline(is, line)) {
    if (line.empty() || line[0] != '"') continue;
    std::vector<std::string> f = csv_fields(line);
    if (k_col < 0) {
      for (int i = 0; i < static_cast<int>(f.size()); ++i) {
        if (f[i] == "Kernel Name") k_col = i;
        if (f[i] == "Metric Name") m_col = i;
        if (f[i] == "Metric Value") v_col = i;
      }
      continue;
    }
    if (static_cast<int>(f.size()) <= std::max({k_col, m_col, v_col})) continue;
    std::string value;
    for (char ch : f[v_col])
      if (ch != ',') value += ch;
    const std::string kernel = f[k_col].substr(0, f[k_col].find('('));
    v[kernel][f[m_col]] = std::atof(value.c_str());
  }
  return v;
}

class DivergenceMetrics : public cudalab::GpuTest {};

TEST_F(DivergenceMetrics, WarpUniformKernelHasNoDivergentBranchAndFullWarps) {
  const std::string ncu = CUDALAB_NCU, target = CUDALAB_PROFILE_TARGET;
  if (ncu.empty() || !std::ifstream(ncu).good())
    GTEST_SKIP() << "Nsight Compute (ncu) not found at configure time (it ships with the CUDA Toolkit)";
  if (target.empty() || !std::ifstream(target).good()) GTEST_FAIL() << "profile target not built: " << target;
  const std::string metrics =
      std::string(kBranches.ncu) + "," + kDivergent.ncu + "," + kBranchEfficiency.ncu + "," + kWarpEfficiency.ncu;
  const std::string cmd = "\"" + ncu + "\" --clock-control none --csv --print-units base -k regex:heavy --metrics " +
                          metrics + " \"" + target + "\"";
  int rc = 0;
  const std::string out = run(cmd, &rc);
  if (out.find("ERR_NVGPUCTRPERM") != std::string::npos)
    GTEST_SKIP() << "profiling is not permitted on this machine (ERR_NVGPUCTRPERM: GPU performance counters are "
                    "restricted to administrators)";
  if (std::size_t at = out.find("[ CUDALAB  ] reason: "); at != std::string::npos)
    GTEST_FAIL() << out.substr(at + 21, out.find('\n', at) - at - 21);
  if (std::size_t at = out.find("[ CUDALAB  ] skipped: "); at != std::string::npos)
    GTEST_SKIP() << out.substr(at + 22, out.find('\n', at) - at - 22);
  auto v = parse(out);
  const char *base = "heavyDivergentBaseline", *cand = "heavyKernel2";
  if (rc != 0 || !v.count(base) || !v.count(cand) || v[cand].size() < 4 || v[base].size() < 4) {
    std::printf("%s\n", out.c_str());
    GTEST_FAIL() << "ncu did not report the four metrics of both kernels (exit status " << rc
                 << "); its output is above. Command: " << cmd;
  }

  std::printf("[ PROFILE  ] %-26s %-55s %22s %14s\n", "book (nvprof)", "Nsight Compute", base, cand);
  for (const Metric *m : {&kBranches, &kDivergent, &kBranchEfficiency, &kWarpEfficiency})
    std::printf("[ PROFILE  ] %-26s %-55s %22.2f %14.2f\n", m->nvprof, m->ncu, v[base][m->ncu], v[cand][m->ncu]);
  std::printf("[ PROFILE  ] warp_execution_efficiency = threads per instruction / 32: %.1f %% vs %.1f %%\n",
              100.0 * v[base][kWarpEfficiency.ncu] / 32, 100.0 * v[cand][kWarpEfficiency.ncu] / 32);
  for (const Metric *m : {&kDivergent, &kBranchEfficiency, &kWarpEfficiency}) {
    RecordProperty(std::string("baseline_") + m->nvprof, std::to_string(v[base][m->ncu]));
    RecordProperty(std::string("heavyKernel2_") + m->nvprof, std::to_string(v[cand][m->ncu]));
  }

  // The metric must see the baseline's divergence, or this test proves nothing.
  if (v[base][kDivergent.ncu] <= 0)
    GTEST_FAIL() << "ncu reports no divergent branch in the divergent baseline; the profile cannot be trusted";
  const double min_threads = cudalab::threshold("min_threads_per_instruction");
  if (v[cand][kDivergent.ncu] > 0 || v[cand][kWarpEfficiency.ncu] < min_threads)
    GTEST_FAIL() << "heavyKernel2 still diverges: " << v[cand][kDivergent.ncu] << " divergent branches ("
                 << kDivergent.ncu << "), " << v[cand][kWarpEfficiency.ncu] << " active threads per instruction ("
                 << kWarpEfficiency.ncu << "), required 0 and >= " << min_threads << " of 32";
}

}  // namespace
