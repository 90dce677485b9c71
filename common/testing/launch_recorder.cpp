#include "cudalab/launch_recorder.hpp"

#include "cudalab/launch_checks.hpp"
#include "cudalab/timing.cuh"

#include "apart_runtime.hpp"
#include "real_symbol.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

namespace cudalab {

namespace {

std::mutex &registry_mutex() {
  static std::mutex m;
  return m;
}

/// Live recorders by id, each with what it has seen.
std::map<std::size_t, std::vector<LaunchRecord>> &registry() {
  static std::map<std::size_t, std::vector<LaunchRecord>> r;
  return r;
}

std::size_t next_id = 1;

void record(const LaunchRecord &launch) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (auto &[id, seen] : registry()) seen.push_back(launch);
}

/// The runtime's own entry point @p name (the executable's references to it are wrapped).
using LaunchByFunc = cudaError_t (*)(const void *, dim3, dim3, void **, std::size_t, cudaStream_t);
using LaunchByHandle = cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, std::size_t, cudaStream_t);

}  // namespace

LaunchRecorder::LaunchRecorder() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  id_ = next_id++;
  registry()[id_];
}

LaunchRecorder::~LaunchRecorder() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().erase(id_);
}

std::vector<LaunchRecord> LaunchRecorder::launches() const {
  std::lock_guard<std::mutex> lock(registry_mutex());
  return registry()[id_];
}

std::vector<LaunchRecord> LaunchRecorder::launches_of_address(const void *kernel) const {
  cudaKernel_t handle = nullptr;
#if CUDART_VERSION >= 12010
  if (cudaGetKernel(&handle, kernel) != cudaSuccess) {
    handle = nullptr;
    (void)cudaGetLastError();
  }
#endif
  std::vector<LaunchRecord> all = launches(), mine;
  std::copy_if(all.begin(), all.end(), std::back_inserter(mine),
               [&](const LaunchRecord &l) { return (l.func && l.func == kernel) || (handle && l.handle == handle); });
  return mine;
}

void LaunchRecorder::clear() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[id_].clear();
}

namespace {

/// The watch of every timed sample (cudalab/timing.cuh): the sample's launches must all go where
/// the timing's events wait for them. A stream created with cudaStreamNonBlocking does not
/// synchronise with the default stream the events are recorded on, so a kernel launched there
/// would run outside the measured interval.
LaunchRecorder *sample_launches = nullptr;

void begin_sample() {
  delete sample_launches;
  sample_launches = new LaunchRecorder;
}

std::string end_sample(bool must_launch) {
  if (sample_launches == nullptr) return "";
  const std::vector<LaunchRecord> seen = sample_launches->launches();
  delete sample_launches;
  sample_launches = nullptr;
  if (must_launch && seen.empty())
    return "the timed run launched no kernel: every timed run must do the work (does the launcher skip a launch it "
           "made before, on the same data?)";
  for (const LaunchRecord &l : seen) {
    if (l.stream == nullptr || l.stream == cudaStreamLegacy || l.stream == cudaStreamPerThread) continue;
    unsigned int flags = 0;
    if (cudaStreamGetFlags(l.stream, &flags) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    if (flags & cudaStreamNonBlocking)
      return "a kernel of the timed run (" + describe(l) +
             ") was launched on a non-blocking stream (cudaStreamNonBlocking), which the timing's events do not "
             "wait for: its time would not be measured. Launch on the stream the launcher is given (the default "
             "stream)";
  }
  return "";
}

/// Installed while the test program starts, before any test times a kernel.
[[maybe_unused]] const bool kSampleWatch = (detail::set_sample_watch({begin_sample, end_sample}), true);

}  // namespace

std::string describe(const LaunchRecord &l) {
  std::ostringstream os;
  os << "grid (" << l.grid.x << "," << l.grid.y << "," << l.grid.z << ") block (" << l.block.x << "," << l.block.y
     << "," << l.block.z << ")";
  if (l.shared_bytes) os << " dynamic shared " << l.shared_bytes << " B";
  return os.str();
}

}  // namespace cudalab

// The wrapped entry points (linked with -Wl,--wrap=cudaLaunchKernel,--wrap=__cudaLaunchKernel, see
// common/CMakeLists.txt), and the cooperative launch (ch05_06's grid-wide kernels) and the
// extended launch (cudaLaunchKernelEx), so that no launch entry point of the runtime escapes the
// recorder, the checks every kernel gets and the timer's watch: each records the launch, runs
// those checks (cudalab/launch_checks.hpp: the shared-memory fill before the launch, an injected
// launch failure or kernel fault), then forwards to the runtime -- unchanged unless a
// fault-injection scope is alive.
namespace {

/// @brief Records a launch of @p func or @p handle, runs the checks before it, calls @p forward
/// (which may see the block as those checks changed it) and the checks after it.
template <typename Forward>
cudaError_t recorded_launch(const void *func, cudaKernel_t handle, dim3 grid, dim3 &block, std::size_t shared,
                            cudaStream_t stream, Forward forward) {
  cudalab::LaunchRecord r;
  r.func = func;
  r.handle = handle;
  r.grid = grid;
  r.block = block;
  r.shared_bytes = shared;
  r.stream = stream;
  cudalab::record(r);
  cudalab::testing::detail::before_launch(stream, &block);
  const cudaError_t result = forward();
  cudalab::testing::detail::after_launch(stream, result);
  return result;
}

}  // namespace

extern "C" cudaError_t __wrap_cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, std::size_t shared,
                                               cudaStream_t stream) {
  if (const auto *w = cudalab::apart::detail::worker_runtime())
    return w->launch(func, nullptr, grid, block, args, shared, stream, false);
  static const auto forward = cudalab::detail::real_symbol<cudalab::LaunchByFunc>("cudaLaunchKernel");
  return recorded_launch(func, nullptr, grid, block, shared, stream,
                         [&] { return forward(func, grid, block, args, shared, stream); });
}

extern "C" cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                                 std::size_t shared, cudaStream_t stream) {
  if (const auto *w = cudalab::apart::detail::worker_runtime())
    return w->launch(nullptr, kernel, grid, block, args, shared, stream, false);
  static const auto forward = cudalab::detail::real_symbol<cudalab::LaunchByHandle>("__cudaLaunchKernel");
  return recorded_launch(nullptr, kernel, grid, block, shared, stream,
                         [&] { return forward(kernel, grid, block, args, shared, stream); });
}

extern "C" cudaError_t __wrap_cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args,
                                                          std::size_t shared, cudaStream_t stream) {
  if (const auto *w = cudalab::apart::detail::worker_runtime())
    return w->launch(func, nullptr, grid, block, args, shared, stream, true);
  static const auto forward = cudalab::detail::real_symbol<cudalab::LaunchByFunc>("cudaLaunchCooperativeKernel");
  return recorded_launch(func, nullptr, grid, block, shared, stream,
                         [&] { return forward(func, grid, block, args, shared, stream); });
}

extern "C" cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
  using LaunchEx = cudaError_t (*)(const cudaLaunchConfig_t *, const void *, void **);
  static const auto forward = cudalab::detail::real_symbol<LaunchEx>("cudaLaunchKernelExC");
  if (config == nullptr) return forward(config, func, args);
  cudaLaunchConfig_t c = *config;
  return recorded_launch(func, nullptr, c.gridDim, c.blockDim, c.dynamicSmemBytes, c.stream,
                         [&] { return forward(&c, func, args); });
}
