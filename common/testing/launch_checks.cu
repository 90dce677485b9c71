// The checks every kernel gets (cudalab/launch_checks.hpp, docs/grading.md "Checks every kernel
// gets"): the launch wrappers of launch_recorder.cpp call before_launch() and after_launch() around
// each launch they forward. The fill and the fault kernels defined here are launched through the
// runtime's own cudaLaunchKernel (real_symbol), so they pass through no wrapper.
#include "cudalab/launch_checks.hpp"
#include "cudalab/settings.hpp"

#include "real_symbol.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cudalab::testing {

namespace {

/// Writes @p word into the first @p words 32-bit words of the block's dynamic shared memory
/// (volatile stores: the compiler may not drop them though nothing reads them).
__global__ void cudalabFillSharedMemory(unsigned int word, unsigned int words) {
  extern __shared__ unsigned int s_fill[];
  volatile unsigned int *s = s_fill;
  for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) s[i] = word;
}

/// Waits @p ns nanoseconds of the GPU's global timer, then faults (trap): an asynchronous kernel
/// error after the kernel it follows, reported to the next synchronising call.
__global__ void cudalabInjectedFault(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
  __trap();
}

constexpr unsigned long long kFaultDelayNs = 20ull * 1000 * 1000;  // 20 ms
constexpr int kFillBlocksPerSm = 2;                                // every SM gets a block even if one is briefly busy
constexpr int kFillThreads = 1024;
constexpr int kMaxDevices = 64;

using LaunchByFunc = cudaError_t (*)(const void *, dim3, dim3, void **, std::size_t, cudaStream_t);

LaunchByFunc real_launch() {
  static const auto launch = cudalab::detail::real_symbol<LaunchByFunc>("cudaLaunchKernel");
  return launch;
}

bool env_enabled() {
  static const bool on = [] {
    const char *v = cudalab::setting("CUDALAB_POISON_SHARED");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

// Poisoning: a PoisonSharedMemory scope (forced, its word), NoSharedMemoryPoison scopes, and the
// calling thread's one-shot word (poison_next_launch).
std::mutex g_scope_mutex;
std::atomic<bool> g_forced{false};
std::atomic<std::uint32_t> g_word{kSharedPoisonWord};
std::atomic<int> g_suppressed{0};
thread_local bool t_next_set = false;
thread_local std::uint32_t t_next_word = 0;

// Fault injection: at most one FailLaunches and one FaultAfterLaunches scope at a time.
constexpr int kNoFailure = -2;
std::atomic<int> g_fail_which{kNoFailure};
std::atomic<int> g_fail_seen{0};
std::atomic<int> g_fail_count{0};
std::atomic<int> g_fail_error{cudaSuccess};
thread_local bool t_failing = false;  // this thread's launch in flight was made to fail
std::atomic<bool> g_fault_on{false};
std::atomic<int> g_fault_count{0};

/// Per device: SMs and opt-in shared memory per block, and whether the fill kernel may use it.
struct FillSetup {
  bool ready = false;
  int sms = 0;
  int optin = 0;
};
std::mutex g_setup_mutex;
FillSetup g_setup[kMaxDevices];

cudaError_t fill_setup(FillSetup *out) {
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (device < 0 || device >= kMaxDevices) return cudaErrorInvalidDevice;
  std::lock_guard<std::mutex> lock(g_setup_mutex);
  FillSetup &s = g_setup[device];
  if (!s.ready) {
    err = cudaDeviceGetAttribute(&s.sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&s.optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (err == cudaSuccess)
      err = cudaFuncSetAttribute(cudalabFillSharedMemory, cudaFuncAttributeMaxDynamicSharedMemorySize, s.optin);
    if (err == cudaSuccess)
      err = cudaFuncSetAttribute(cudalabFillSharedMemory, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared);
    if (err != cudaSuccess) return err;
    s.ready = true;
  }
  *out = s;
  return cudaSuccess;
}

}  // namespace

cudaError_t fill_shared_memory(std::uint32_t word, cudaStream_t stream) {
  const bool clean = cudaPeekAtLastError() == cudaSuccess;
  FillSetup s;
  cudaError_t err = fill_setup(&s);
  if (err == cudaSuccess) {
    unsigned int w = word, words = static_cast<unsigned int>(s.optin) / 4u;
    void *args[] = {&w, &words};
    err = real_launch()(reinterpret_cast<const void *>(&cudalabFillSharedMemory), dim3(kFillBlocksPerSm * s.sms),
                        dim3(kFillThreads), args, static_cast<std::size_t>(s.optin), stream);
  }
  if (err != cudaSuccess && clean) (void)cudaGetLastError();  // leave no error of ours pending
  return err;
}

bool shared_memory_poison_enabled() { return g_suppressed.load() == 0 && (g_forced.load() || env_enabled()); }

void poison_next_launch(std::uint32_t word) {
  t_next_set = true;
  t_next_word = word;
}

PoisonSharedMemory::PoisonSharedMemory(std::uint32_t word) {
  std::lock_guard<std::mutex> lock(g_scope_mutex);
  previous_word_ = g_word.exchange(word);
  previous_forced_ = g_forced.exchange(true);
}

PoisonSharedMemory::~PoisonSharedMemory() {
  std::lock_guard<std::mutex> lock(g_scope_mutex);
  g_word = previous_word_;
  g_forced = previous_forced_;
}

NoSharedMemoryPoison::NoSharedMemoryPoison() { ++g_suppressed; }
NoSharedMemoryPoison::~NoSharedMemoryPoison() { --g_suppressed; }

FailLaunches::FailLaunches(int which) {
  g_fail_seen = 0;
  g_fail_count = 0;
  g_fail_error = cudaSuccess;
  g_fail_which = which < 0 ? -1 : which;
}
FailLaunches::~FailLaunches() { g_fail_which = kNoFailure; }
int FailLaunches::failed() const { return g_fail_count.load(); }
int FailLaunches::seen() const { return g_fail_seen.load(); }
cudaError_t FailLaunches::error() const { return static_cast<cudaError_t>(g_fail_error.load()); }

FaultAfterLaunches::FaultAfterLaunches() {
  g_fault_count = 0;
  g_fault_on = true;
}
FaultAfterLaunches::~FaultAfterLaunches() { g_fault_on = false; }
int FaultAfterLaunches::faults() const { return g_fault_count.load(); }

namespace detail {

void before_launch(cudaStream_t stream, dim3 *block) {
  if (const int which = g_fail_which.load(); which != kNoFailure) {
    const int index = g_fail_seen++;
    if (which < 0 || index == which) {
      *block = dim3(1025, 1, 1);  // over every GPU's 1024 threads per block: the runtime refuses it
      ++g_fail_count;
      t_failing = true;
    }
  }
  std::uint32_t word = 0;
  bool poison = false;
  if (t_next_set) {
    poison = true;
    word = t_next_word;
    t_next_set = false;
  } else if (shared_memory_poison_enabled()) {
    poison = true;
    word = g_forced.load() ? g_word.load() : kSharedPoisonWord;
  }
  if (!poison) return;
  // An error already pending (or a sticky one): leave the state exactly as the caller made it.
  if (cudaPeekAtLastError() != cudaSuccess) return;
  // No fill into a graph being captured (it would become a node of the student's graph).
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError();  // e.g. the legacy stream while another stream captures
    return;
  }
  if (capture != cudaStreamCaptureStatusNone) return;
  (void)fill_shared_memory(word, stream);
}

void after_launch(cudaStream_t stream, cudaError_t result) {
  if (t_failing) {
    t_failing = false;
    g_fail_error = static_cast<int>(result);
    return;
  }
  if (!g_fault_on.load() || result != cudaSuccess) return;
  unsigned long long ns = kFaultDelayNs;
  void *args[] = {&ns};
  if (real_launch()(reinterpret_cast<const void *>(&cudalabInjectedFault), dim3(1), dim3(1), args, 0, stream) ==
      cudaSuccess)
    ++g_fault_count;
  else
    (void)cudaGetLastError();
}

}  // namespace detail

}  // namespace cudalab::testing
