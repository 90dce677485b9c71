#include "cudalab/ncu.hpp"
#include "cudalab/settings.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace cudalab {

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

namespace {

/// Runs @p cmd with stderr folded into stdout; @p rc gets the exit status.
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

/// The rest of the line after @p marker in @p text, or "" when the marker is absent.
std::string after(const std::string &text, const std::string &marker) {
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) return "";
  const std::size_t start = at + marker.size();
  return text.substr(start, text.find('\n', start) - start);
}

}  // namespace

double NcuResult::get(const std::string &kernel, const std::string &metric) const {
  auto k = values.find(kernel);
  if (k == values.end()) return -1.0;
  auto m = k->second.find(metric);
  return m == k->second.end() ? -1.0 : m->second;
}

bool counters_required() {
#ifdef CUDALAB_REQUIRE_COUNTERS
  return true;
#else
  const char *env = cudalab::setting("CUDALAB_REQUIRE_COUNTERS");
  return env && (std::string(env) == "1" || std::string(env) == "ON" || std::string(env) == "on");
#endif
}

NcuResult run_ncu(const std::string &ncu, const std::string &target, const std::string &args,
                  const std::string &kernel_regex, const std::vector<std::string> &metrics) {
  NcuResult r;
  if (ncu.empty() || !std::ifstream(ncu).good()) {
    r.status = NcuResult::Status::kSkip;
    r.counters_unavailable = true;
    r.message =
        "Nsight Compute (ncu) not found at configure time (it ships with the CUDA Toolkit; reconfigure "
        "with ncu on PATH)";
    return r;
  }
  if (target.empty() || !std::ifstream(target).good()) {
    r.message = "profile target not built: " + target;
    return r;
  }
  std::string list;
  for (const std::string &m : metrics) list += (list.empty() ? "" : ",") + m;
  r.command = "\"" + ncu + "\" --clock-control none --csv --print-units base -k regex:" + kernel_regex + " --metrics " +
              list + " \"" + target + "\"" + (args.empty() ? "" : " " + args);
  // Two channels: ncu's own output (its report, its errors) comes through the pipe; the profile
  // target's output, which holds whatever the lab's kernels and launchers print, goes to a file of
  // its own (cudalab::driver_start, CUDALAB_PROFILE_OUTPUT). A kernel that prints a CSV report, a
  // skip line or ERR_NVGPUCTRPERM can then never pass for the profiler.
  std::string dir = "/tmp";
  if (const char *t = std::getenv("TMPDIR"); t && *t && std::string(t).find('\'') == std::string::npos) dir = t;
  std::string path = dir + "/cudalab-ncu-XXXXXX";
  std::vector<char> name(path.begin(), path.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    r.message = "cannot create a file for the profile target's output in " + dir + " (set TMPDIR)";
    return r;
  }
  ::close(fd);
  path = name.data();
  int rc = 0;
  const std::string report = run("CUDALAB_PROFILE_OUTPUT='" + path + "' " + r.command, &rc);
  std::string target_output;
  if (std::ifstream in(path); in) target_output.assign(std::istreambuf_iterator<char>(in), {});
  ::unlink(path.c_str());
  r.output = report;
  if (!target_output.empty()) r.output += "--- the profile target's own output ---\n" + target_output;
  if (report.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    r.status = NcuResult::Status::kSkip;
    r.counters_unavailable = true;
    r.message =
        "profiling is not permitted on this machine (ERR_NVGPUCTRPERM: GPU performance counters are "
        "restricted to administrators; see https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
    return r;
  }
  if (std::string why = after(target_output, "[ CUDALAB  ] reason: "); !why.empty()) {
    r.message = why;
    return r;
  }
  std::istringstream is(report);
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
      if (m_col < 0 || v_col < 0) k_col = -1;  // not the header: look further
      continue;
    }
    if (static_cast<int>(f.size()) <= std::max({k_col, m_col, v_col})) continue;
    std::string value;
    for (char ch : f[v_col])
      if (ch != ',') value += ch;
    const std::string kernel = f[k_col].substr(0, f[k_col].find('('));
    r.values[kernel][f[m_col]] = std::atof(value.c_str());
  }
  if (std::string why = after(target_output, "[ CUDALAB  ] skipped: "); r.values.empty() && !why.empty()) {
    // Only a target that finds no usable GPU says this (where this test found one) and profiles
    // nothing: a plain skip (0 points), never "not applicable".
    r.status = NcuResult::Status::kSkip;
    r.message = "the profile target did not run: " + why;
    return r;
  }
  if (rc != 0 || r.values.empty()) {
    std::printf("%s\n", r.output.c_str());
    r.message =
        "ncu reported no metrics (exit status " + std::to_string(rc) + "); its output is above. Command: " + r.command;
    return r;
  }
  r.status = NcuResult::Status::kOk;
  return r;
}

void print_profile(const NcuResult &r, const std::vector<std::string> &kernels, const std::vector<NcuMetric> &rows) {
  std::printf("[ PROFILE  ] %-28s %-62s", "book (nvprof)", "Nsight Compute");
  for (const std::string &k : kernels) std::printf(" %22s", k.c_str());
  std::printf("\n");
  for (const auto &row : rows) {
    std::printf("[ PROFILE  ] %-28s %-62s", row.nvprof, row.ncu);
    for (const std::string &k : kernels) std::printf(" %22.2f", r.get(k, row.ncu));
    std::printf("\n");
  }
}

}  // namespace cudalab
