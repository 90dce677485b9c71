// The worker of cudalab::apart (cudalab/apart.hpp): a child of the test program that runs the
// lab's host functions under a seccomp filter, the memory both share, the messages between them,
// and the test program's reading of how a call ended.
//
// Messages go through two counters in the shared region, each with the kind of its last message
// (a spin of a few microseconds, then a futex wait: a call with many runtime questions costs
// microseconds each). The test program sends 'C' (run region->invoker on region->request: the
// lab's call); the worker answers 'D' (done: region->status, ->result) or, while the call runs,
// 'P' (run region->parent_invoker on region->parent_request in the test program: a synthetic
// runtime function, in_parent), which the test program answers with 'R' (->parent_result).
#include "cudalab/apart.hpp"

#include "apart_runtime.hpp"

#include "cudalab/settings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cudalab::apart::detail {
namespace {

constexpr std::uint64_t kDone = 0x656e6f64'74726170ull;    // the call returned; result written
constexpr std::uint64_t kFailed = 0x6c696166'74726170ull;  // the call could not be made (why)
constexpr std::size_t kBytes = std::size_t{4} << 20;       // each of the four data areas

/// The memory the test program and its worker share (MAP_SHARED, made before the worker starts).
struct Region {
  std::atomic<std::uint32_t> to_worker, to_parent;   // message counters (futex words)
  std::atomic<char> to_worker_kind, to_parent_kind;  // the kind of the last message
  std::uint64_t status;
  std::uint64_t request_size, result_size, parent_request_size, parent_result_size;
  std::uint64_t local_mode;               // a LocalAnswers scope is alive in the test program
  std::uint64_t local_count, local_size;  // LocalAnswers: objects and their bytes in local[]
  LocalAnswers::Object local_objects[16];
  unsigned char local[64 << 10];
  Invoker invoker, parent_invoker;
  char why[256];
  unsigned char request[kBytes], result[kBytes], parent_request[kBytes], parent_result[kBytes];
};

Region *region() {
  static Region *r = [] {
    void *p = mmap(nullptr, sizeof(Region), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<Region *>(p);
  }();
  return r;
}

std::set<Invoker> &parent_invokers() {
  static std::set<Invoker> s;
  return s;
}

bool is_worker = false;
bool local_now = false;                           // the worker, during a call under LocalAnswers
std::vector<LocalAnswers::Object> local_objects;  // the test program's live LocalAnswers objects
int local_scopes = 0;                             // live LocalAnswers scopes
pid_t worker_pid = -1;
std::uint32_t seen_from_worker = 0, seen_from_parent = 0;  // the counters as last read

#if defined(__x86_64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t kArch = 0;  // no filter on other architectures
#endif

/// The filter: the native system call table only (not x86's 32-bit or x32 ones, which would
/// bypass the numbers below); memory, locks (futex: also the messages), clocks, sleeping, random
/// numbers and exit allowed; write only to stdout and stderr, read only from stdin, ioctl only to
/// ask whether a descriptor is a terminal (isatty); every other call fails with EPERM, so no file
/// can be opened, no program started and no signal sent.
std::vector<sock_filter> filter() {
  std::vector<sock_filter> f;
  const auto ld = [&](std::uint32_t offset) { f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); };
  const auto ret = [&](std::uint32_t value) { f.push_back(BPF_STMT(BPF_RET | BPF_K, value)); };
  const auto jeq = [&](std::uint32_t k, std::uint8_t jt, std::uint8_t jf) {
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, jt, jf));
  };
  const std::uint32_t deny = SECCOMP_RET_ERRNO | EPERM;
  ld(offsetof(seccomp_data, arch));
  jeq(kArch, 1, 0);
  ret(SECCOMP_RET_KILL_PROCESS);
  ld(offsetof(seccomp_data, nr));
#if defined(__x86_64__)
  f.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));  // the x32 ABI's numbers
  ret(SECCOMP_RET_KILL_PROCESS);
#endif
  const long always[] = {
      SYS_brk,
      SYS_mmap,
      SYS_munmap,
      SYS_mremap,
      SYS_mprotect,
      SYS_madvise,
      SYS_futex,
      SYS_clock_gettime,
      SYS_clock_getres,
      SYS_gettimeofday,
      SYS_nanosleep,
      SYS_clock_nanosleep,
      SYS_sched_yield,
      SYS_getpid,
      SYS_getppid,
      SYS_gettid,
      SYS_getrandom,
      SYS_rt_sigreturn,
      SYS_rt_sigprocmask,
      SYS_exit,
      SYS_exit_group,
      SYS_restart_syscall,
      SYS_lseek,
      SYS_fstat,
      SYS_newfstatat,
#ifdef SYS_time
      SYS_time,
#endif
  };
  for (long nr : always) {
    jeq(static_cast<std::uint32_t>(nr), 0, 1);
    ret(SECCOMP_RET_ALLOW);
  }
  // System call @p nr allowed only when its argument @p arg is one of @p values.
  const auto allow_if = [&](long nr, int arg, std::initializer_list<std::uint32_t> values) {
    const auto n = static_cast<std::uint8_t>(values.size());
    jeq(static_cast<std::uint32_t>(nr), 0, static_cast<std::uint8_t>(n + 3));
    ld(offsetof(seccomp_data, args) + arg * sizeof(std::uint64_t));
    std::uint8_t left = n;
    for (std::uint32_t v : values) jeq(v, left--, 0);  // to the ALLOW below
    ret(deny);
    ret(SECCOMP_RET_ALLOW);
    ld(offsetof(seccomp_data, nr));
  };
  allow_if(SYS_write, 0, {1, 2});  // stdout and stderr
  allow_if(SYS_writev, 0, {1, 2});
  allow_if(SYS_read, 0, {0});        // stdin
  allow_if(SYS_ioctl, 1, {TCGETS});  // isatty()
  ret(deny);
  return f;
}

/// Installs the filter in the (single-threaded) worker; false where the kernel has none.
bool install_filter() {
  if (kArch == 0) return false;
  std::vector<sock_filter> f = filter();
  sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0;
}

/// Closes every descriptor but stdin, stdout and stderr (GoogleTest's, CTest's, anything inherited).
void close_other_descriptors() {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0) return;
#endif
  rlimit lim{};
  const long max = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < 65536
                       ? static_cast<long>(lim.rlim_cur)
                       : 65536;
  for (long fd = 3; fd < max; ++fd) close(static_cast<int>(fd));
}

/// Sends message @p kind through @p counter (and its @p kind_slot), waking the other side.
void send_message(std::atomic<std::uint32_t> &counter, std::atomic<char> &kind_slot, char kind) {
  kind_slot.store(kind, std::memory_order_relaxed);
  counter.fetch_add(1, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&counter), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

/// Waits for the next message on @p counter (last read as @p seen): spins a few microseconds, then
/// waits on the futex; with @p alive, every 20 ms asks whether the sender still lives (0: gone).
template <class Alive>
char receive_message(std::atomic<std::uint32_t> &counter, std::atomic<char> &kind_slot, std::uint32_t &seen,
                     Alive alive) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const std::uint32_t now = counter.load(std::memory_order_acquire);
    if (now != seen) {
      seen = now;
      return kind_slot.load(std::memory_order_relaxed);
    }
    if (std::chrono::steady_clock::now() - start < std::chrono::microseconds(50)) continue;
    timespec wait{0, 20'000'000};
    syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&counter), FUTEX_WAIT, now, &wait, nullptr, 0);
    if (counter.load(std::memory_order_acquire) == seen && !alive()) return 0;
  }
}

/// The worker's life: wait for a call, run it, answer (it ends with the test program: PDEATHSIG).
[[noreturn]] void serve() {
  Region *r = region();
  for (;;) {
    if (receive_message(r->to_worker, r->to_worker_kind, seen_from_parent, [] { return true; }) != 'C') _exit(0);
    // LocalAnswers: the test program's objects, as they are now, into this copy of the program.
    local_now = r->local_mode != 0;
    for (std::uint64_t i = 0, at = 0; i < std::min<std::uint64_t>(r->local_count, 16); ++i) {
      const LocalAnswers::Object o = r->local_objects[i];
      if (at + o.bytes > sizeof r->local) break;
      std::memcpy(o.address, r->local + at, o.bytes);
      at += o.bytes;
    }
    Reader in(r->request, static_cast<std::size_t>(std::min<std::uint64_t>(r->request_size, kBytes)));
    Writer out(r->result, kBytes);
    char why[256] = "";
    bool ok = false;
    try {
      ok = r->invoker(in, out, why);
    } catch (...) {
      std::snprintf(why, sizeof why, "it threw an exception");
    }
    std::fflush(stdout);
    std::fflush(stderr);
    std::memcpy(r->why, why, sizeof why);
    r->result_size = out.size();
    r->status = ok ? kDone : kFailed;
    send_message(r->to_parent, r->to_parent_kind, 'D');
  }
}

/// Starts the worker (a fork of the test program as it is now); "" or why it could not.
std::string start_worker() {
  Region *r = region();
  if (r == nullptr) return std::string("no memory to share with a worker (") + std::strerror(errno) + ")";
  seen_from_worker = r->to_parent.load();
  seen_from_parent = r->to_worker.load();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return std::string("could not start a worker (fork: ") + std::strerror(errno) + ")";
  if (pid == 0) {
    is_worker = true;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    close_other_descriptors();
    if (!install_filter())
      std::fprintf(stderr,
                   "[ CUDALAB  ] warning: this system has no seccomp filter: the lab's host functions run in "
                   "a process of their own, unfiltered\n");
    serve();
  }
  worker_pid = pid;
  return "";
}

/// Whether the worker still runs (not ended; not yet reaped either way).
bool worker_alive() {
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(worker_pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return false;
  return info.si_pid == 0;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV, a bad memory access";
    case SIGBUS:
      return "SIGBUS, a bad memory access";
    case SIGFPE:
      return "SIGFPE, an arithmetic error such as an integer division by zero";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT: abort(), a failed assert() or an uncaught exception";
    case SIGKILL:
      return "SIGKILL";
    case SIGSYS:
      return "SIGSYS: a system call through another architecture's table";
    case SIGTRAP:
      return "SIGTRAP";
    default:
      return "signal " + std::to_string(sig);
  }
}

/// The worker is gone (its end of the channel closed): how it ended. The next call starts another.
std::string worker_ended() {
  int status = 0;
  pid_t got;
  do {
    got = waitpid(worker_pid, &status, 0);
  } while (got < 0 && errno == EINTR);
  worker_pid = -1;
  if (got < 0) return "its process ended";
  if (WIFSIGNALED(status)) return "crashed (" + signal_name(WTERMSIG(status)) + ") before it returned";
  return "ended its process (exit status " + std::to_string(WEXITSTATUS(status)) +
         ", exit() or a return from "
         "main) instead of returning";
}

/// The channel is in an unknown state (the worker broke the protocol): the worker is ended.
std::string abandon(const std::string &why) {
  kill(worker_pid, SIGKILL);
  worker_ended();
  return why;
}

std::mutex &call_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

bool in_worker() { return is_worker; }

namespace {
const WorkerRuntime *worker_table = nullptr;  // apart_launchers.cpp, where launchers run apart
const void *calling_now = nullptr;            // the lab's function the worker runs now
}  // namespace

const void *calling() { return calling_now; }

bool same_object(const void *a, const void *b) {
  Dl_info x{}, y{};
  return dladdr(a, &x) != 0 && dladdr(b, &y) != 0 && x.dli_fbase == y.dli_fbase;
}

Calling::Calling(const void *function) : previous_(calling_now) { calling_now = function; }

Calling::~Calling() { calling_now = previous_; }

const WorkerRuntime *worker_runtime() { return is_worker ? worker_table : nullptr; }

bool set_worker_runtime(const WorkerRuntime *table) {
  worker_table = table;
  return true;
}

bool answers_locally() { return local_now; }

bool active() {
  if (is_worker) return false;
  const char *off = setting("CUDALAB_APART");
  return off == nullptr || std::strcmp(off, "0") != 0;
}

void report(const char *name, const std::string &why) {
  ADD_FAILURE() << name << ": " << why
                << " (it ran in a process of its own: cudalab/apart.hpp; CUDALAB_APART=0 runs it in the test "
                   "program, for a debugger)";
}

bool allow_parent_invoker(Invoker invoker) {
  parent_invokers().insert(invoker);
  return true;
}

std::string run_erased(const char *, Invoker invoker, const Channel &c) {
  std::lock_guard<std::mutex> lock(call_mutex());
  if (worker_pid < 0) {
    if (std::string why = start_worker(); !why.empty()) return why;
  }
  Region *r = region();
  Writer request(r->request, kBytes);
  if (!c.put(c.ctx, request)) return "its arguments are too large to travel to its process";
  r->request_size = request.size();
  r->local_mode = local_scopes > 0;
  r->local_count = r->local_size = 0;
  for (const LocalAnswers::Object &o : local_objects) {
    if (r->local_count == 16 || r->local_size + o.bytes > sizeof r->local) return "LocalAnswers: too many objects";
    std::memcpy(r->local + r->local_size, o.address, o.bytes);
    r->local_objects[r->local_count++] = o;
    r->local_size += o.bytes;
  }
  r->invoker = invoker;
  r->status = 0;
  r->result_size = 0;
  std::fflush(stdout);
  std::fflush(stderr);
  send_message(r->to_worker, r->to_worker_kind, 'C');
  for (;;) {
    const char m = receive_message(r->to_parent, r->to_parent_kind, seen_from_worker, worker_alive);
    if (m == 'D') break;
    if (m == 0) return worker_ended();
    if (m != 'P') return abandon("its process broke the channel to the test program");
    // The lab's code asked the test program (a synthetic runtime function): only a registered one.
    Reader in(r->parent_request, static_cast<std::size_t>(std::min<std::uint64_t>(r->parent_request_size, kBytes)));
    Writer out(r->parent_result, kBytes);
    char why[256] = "";
    const Invoker asked = r->parent_invoker;
    if (parent_invokers().count(asked) == 0)
      return abandon(
          "its process asked the test program to run a function that is not a runtime function of the tests");
    if (!asked(in, out, why)) return abandon(std::string("a runtime call it made could not be answered: ") + why);
    r->parent_result_size = out.size();
    send_message(r->to_worker, r->to_worker_kind, 'R');
  }
  if (r->status == kFailed) return std::string(r->why, strnlen(r->why, sizeof r->why));
  if (r->status != kDone) return "its process answered without a result";
  Reader result(r->result, static_cast<std::size_t>(std::min<std::uint64_t>(r->result_size, kBytes)));
  if (!c.get(c.ctx, result)) return "its result could not be read back";
  return "";
}

void ask_parent_erased(Invoker invoker, const Channel &c) {
  Region *r = region();
  Writer request(r->parent_request, kBytes);
  if (!c.put(c.ctx, request)) _exit(0);
  r->parent_request_size = request.size();
  r->parent_invoker = invoker;
  std::fflush(stdout);
  std::fflush(stderr);
  send_message(r->to_parent, r->to_parent_kind, 'P');
  if (receive_message(r->to_worker, r->to_worker_kind, seen_from_parent, [] { return true; }) != 'R') _exit(0);
  Reader result(r->parent_result, static_cast<std::size_t>(std::min<std::uint64_t>(r->parent_result_size, kBytes)));
  if (!c.get(c.ctx, result)) _exit(0);
}

}  // namespace cudalab::apart::detail

namespace cudalab::apart {

LocalAnswers::LocalAnswers(std::initializer_list<Object> objects) {
  ++detail::local_scopes;
  detail::local_objects.insert(detail::local_objects.end(), objects.begin(), objects.end());
}

LocalAnswers::~LocalAnswers() {
  if (--detail::local_scopes == 0) detail::local_objects.clear();
}

}  // namespace cudalab::apart
