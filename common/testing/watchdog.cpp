// The per-test watchdog (see cudalab/watchdog.hpp). A thread watches the running test: a GPU test
// is stopped when one wait on the GPU (a synchronising CUDA call, see gpu_waits.cpp) has lasted
// the budget, or when the whole test has run kTestLimitFactor budgets; a host test when it has
// run one budget. Stopping means: report the test, write the lab's hang marker, kill the
// processes this one started and end the process with _exit: a kernel that never finishes cannot
// be cancelled, and a normal exit would wait for it (and for the locks the stuck test holds).
// Everything the thread needs at that moment is prepared when the test starts.
#include "cudalab/watchdog.hpp"
#include "cudalab/settings.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <dirent.h>
#include <unistd.h>
#include <csignal>
#define CUDALAB_POSIX 1
#endif

namespace cudalab::watchdog {
namespace {

constexpr double kDefaultSeconds = 120.0;  // a test binary run by hand, outside CTest
/// A GPU test that keeps the GPU busy with short waits (a slow but progressing test, or a GPU
/// shared with other processes) may run this many budgets in all.
constexpr double kTestLimitFactor = 6.0;

using Clock = std::chrono::steady_clock;

/// Waits on the GPU in progress (any thread) and when the first of them began (Clock ticks).
std::atomic<int> g_waits{0};
std::atomic<Clock::rep> g_wait_since{0};

/// "20" or "7.5": seconds as the messages print them.
std::string format_seconds(double s) {
  char buf[32];
  if (std::fabs(s - std::round(s)) < 1e-9)
    std::snprintf(buf, sizeof buf, "%.0f", s);
  else
    std::snprintf(buf, sizeof buf, "%.1f", s);
  return buf;
}

std::string marker_path() {
  const char *dir = cudalab::setting("CUDALAB_STATE_DIR");
  if (dir == nullptr || *dir == '\0') return "";
  return std::string(dir) + "/" + kMarkerName;
}

/// The watchdog's shared state. Never destroyed: the thread may still wait on it at exit.
struct State {
  std::mutex mutex;
  std::condition_variable wake;
  bool thread_started = false;
  bool armed = false;
  bool gpu = false;
  double seconds = 0.0;
  Clock::time_point start;     // when the test started
  std::string test;
  std::string marker;  // path of the marker file ("" when CUDALAB_STATE_DIR is unset)
};

State &state() {
  static State *s = new State;
  return *s;
}

void write_all(int fd, const std::string &text) {
#ifdef CUDALAB_POSIX
  const char *p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n <= 0) return;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
#else
  std::fwrite(text.data(), 1, text.size(), fd == 2 ? stderr : stdout);
  std::fflush(fd == 2 ? stderr : stdout);
#endif
}

#ifdef CUDALAB_POSIX
/// Processes whose parent is in @p parents (from /proc; Linux only, empty elsewhere).
std::vector<pid_t> children_of(const std::vector<pid_t> &parents) {
  std::vector<pid_t> found;
  DIR *proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (dirent *e = readdir(proc)) {
    char *end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;
    std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const std::size_t close = line.rfind(')');  // the command name may hold spaces and ')'
    if (close == std::string::npos) continue;
    char state_char = 0;
    long ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state_char, &ppid) != 2) continue;
    for (pid_t parent : parents)
      if (ppid == parent) found.push_back(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return found;
}

/// Stops, then kills, every process this one started (an Nsight Compute run and the program it
/// profiles): left behind, a stuck profiled kernel would keep the GPU busy for every later test.
void kill_descendants() {
  std::vector<pid_t> all, frontier{getpid()};
  while (!frontier.empty()) {
    std::vector<pid_t> next = children_of(frontier);
    for (pid_t p : next) ::kill(p, SIGSTOP);  // stopped processes start no more children
    all.insert(all.end(), next.begin(), next.end());
    frontier = next;
  }
  for (pid_t p : all) ::kill(p, SIGKILL);
}
#endif

/// Why the test is stopped.
enum class Stop { kGpuWait, kGpuTest, kHostTest };

[[noreturn]] void fire(const State &s, Stop why) {
  // What the test printed so far (its seed) goes first, unless a stuck thread holds stdout.
#ifdef CUDALAB_POSIX
  if (ftrylockfile(stdout) == 0) {
    std::fflush(stdout);
    funlockfile(stdout);
  }
#endif
  const std::string secs = format_seconds(s.seconds);
  std::string message;
  if (why == Stop::kGpuWait) {
    message = "\n[ CUDALAB  ] reason: kernel did not finish in " + secs + " s (" + s.test +
              "): an endless loop, a deadlock (a __syncthreads() some threads never reach?) or a very slow "
              "kernel; the test process was stopped, and this lab's remaining GPU tests are not run\n";
  } else if (why == Stop::kGpuTest) {
    message = "\n[ CUDALAB  ] reason: test did not finish in " + format_seconds(kTestLimitFactor * s.seconds) +
              " s (" + s.test +
              "): a kernel that never finishes, or a very slow test; the test process was stopped, and this "
              "lab's remaining GPU tests are not run\n";
  } else {
    message = "\n[ CUDALAB  ] reason: test did not finish in " + secs + " s (" + s.test +
              "): an endless loop or a very slow computation; the test process was stopped\n";
  }
  write_all(1, message);
  if (s.gpu && !s.marker.empty()) {
    // Written under a temporary name and renamed: a reader never sees half a marker.
#ifdef CUDALAB_POSIX
    const std::string tmp = s.marker + ".tmp" + std::to_string(static_cast<long>(getpid()));
#else
    const std::string tmp = s.marker + ".tmp";
#endif
    if (std::FILE *f = std::fopen(tmp.c_str(), "w")) {
      const std::string body = secs + "\n" + s.test + "\n";
      std::fwrite(body.data(), 1, body.size(), f);
      std::fclose(f);
      if (std::rename(tmp.c_str(), s.marker.c_str()) != 0) std::remove(tmp.c_str());
    }
  }
#ifdef CUDALAB_POSIX
  kill_descendants();
  _exit(kExitCode);
#else
  std::_Exit(kExitCode);
#endif
}

Clock::duration seconds_to_ticks(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

void run() {
  State &s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  for (;;) {
    if (!s.armed) {
      s.wake.wait(lock);
      continue;
    }
    const Clock::time_point now = Clock::now();
    const Clock::duration budget = seconds_to_ticks(s.seconds);
    if (!s.gpu) {
      if (now >= s.start + budget) fire(s, Stop::kHostTest);
      s.wake.wait_until(lock, s.start + budget);
      continue;
    }
    // A wait in progress expires at its start + budget; with none, no wait can expire before
    // now + budget. Either way the thread sleeps until then (or until the test's own limit).
    const Clock::rep since = g_waits.load() > 0 ? g_wait_since.load() : 0;
    const Clock::time_point wait_end = since != 0 ? Clock::time_point(Clock::duration(since)) + budget : now + budget;
    const Clock::time_point test_end = s.start + seconds_to_ticks(kTestLimitFactor * s.seconds);
    if (since != 0 && now >= wait_end) fire(s, Stop::kGpuWait);
    if (now >= test_end) fire(s, Stop::kGpuTest);
    s.wake.wait_until(lock, std::min(wait_end, test_end));
  }
}

}  // namespace

double budget_seconds() {
  const char *text = cudalab::setting("CUDALAB_KERNEL_TIMEOUT");
  if (text == nullptr || *text == '\0') return kDefaultSeconds;
  char *end = nullptr;
  const double s = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(s) || s < 0) {
    static bool warned = false;
    if (!warned) {
      std::fprintf(stderr, "[ CUDALAB  ] CUDALAB_KERNEL_TIMEOUT='%s' is not a number of seconds: using %s s\n", text,
                   format_seconds(kDefaultSeconds).c_str());
      warned = true;
    }
    return kDefaultSeconds;
  }
  return s;
}

void arm(const std::string &test_name) {
  const double seconds = budget_seconds();
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.armed = seconds > 0;
  if (!s.armed) return;
  s.gpu = false;
  s.seconds = seconds;
  s.test = test_name;
  s.marker = marker_path();
  s.start = Clock::now();
  if (!s.thread_started) {
    std::thread(run).detach();
    s.thread_started = true;
  }
  s.wake.notify_all();
}

void mark_gpu() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.gpu = true;
}

void disarm() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.armed = false;
  s.wake.notify_all();
}

void begin_gpu_wait() {
  if (g_waits.fetch_add(1) == 0) g_wait_since.store(Clock::now().time_since_epoch().count());
}

void end_gpu_wait() {
  if (g_waits.fetch_sub(1) == 1) g_wait_since.store(0);
}

std::string earlier_hang() {
  const std::string path = marker_path();
  if (path.empty()) return "";
  std::ifstream in(path);
  if (!in) return "";
  std::string seconds, test;
  std::getline(in, seconds);
  std::getline(in, test);
  if (seconds.empty()) seconds = "?";
  if (test.empty()) test = "unknown test";
  return "not run: an earlier test of this lab did not finish in " + seconds + " s (" + test +
         "); the lab is marked as hung for the rest of this ctest run";
}

}  // namespace cudalab::watchdog
