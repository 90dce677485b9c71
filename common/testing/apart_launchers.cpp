// Launchers in the worker of cudalab::apart: a lab's function given device buffers runs in the
// worker like the others, and each runtime call it makes there (a launch, a copy, a wait, an
// allocation) is carried out by the test program, through the test program's own wrappers (the
// launch recorder and the checks every kernel gets, the fault injection, the watchdog's waits).
// The worker never talks to the GPU. Linked into every GPU test program (cmake/CudaLab.cmake), so
// that a model or device query that waits on the GPU or frees memory is served too; the entry
// points that only launchers need (`<<< >>>`, cudaMalloc, the asynchronous copies) are compiled in
// where CUDALAB_APART_LAUNCHERS is on, and only then do launchers run in the worker.
//
// What travels: device pointers as addresses, which the test program checks are device memory
// before it copies to or from them; host bytes (a copy's source, a copy's result) in chunks of
// kChunk; a launch as its kernel's handle and its arguments' bytes at the offsets the driver gives
// for that kernel (cuKernelGetParamInfo / cuFuncGetParamInfo, driver 12.4 and later: where the
// driver cannot tell, launchers are called in the test program, as before). The `<<< >>>`
// configuration a launcher pushes stays in the worker (a stack of its own); the kernel's handle,
// which the stub asks once, is the test program's. Not served in the worker: streams and events
// (a launcher is given its stream), 2D copies, managed and pinned host allocations; those calls
// reach the worker's own copy of the runtime, which cannot talk to the GPU, and fail.
#include "apart_runtime.hpp"
#include "cudalab/apart.hpp"
#include "real_symbol.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

// The test program's wrappers of the runtime (launch_recorder.cpp, gpu_waits.cpp).
extern "C" {
cudaError_t __wrap_cudaLaunchKernel(const void *, dim3, dim3, void **, std::size_t, cudaStream_t);
cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, std::size_t, cudaStream_t);
cudaError_t __wrap_cudaLaunchCooperativeKernel(const void *, dim3, dim3, void **, std::size_t, cudaStream_t);
cudaError_t __wrap_cudaDeviceSynchronize();
cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t);
cudaError_t __wrap_cudaEventSynchronize(cudaEvent_t);
cudaError_t __wrap_cudaMemcpy(void *, const void *, std::size_t, cudaMemcpyKind);
cudaError_t __wrap_cudaMemcpyToSymbol(const void *, const void *, std::size_t, std::size_t, cudaMemcpyKind);
cudaError_t __wrap_cudaMemcpyFromSymbol(void *, const void *, std::size_t, std::size_t, cudaMemcpyKind);
cudaError_t __wrap_cudaMemset(void *, int, std::size_t);
cudaError_t __wrap_cudaFree(void *);
// The runtime's entry points of `<<< >>>` (nvcc declares them in the code it generates).
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared, struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, std::size_t *shared, void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *handle, const void *func);
}

namespace cudalab::apart::detail {
namespace {

constexpr std::uint32_t kMaxParams = 256;
constexpr std::size_t kChunk = std::size_t{1} << 20;  // a quarter of the channel's 4 MiB

using cudalab::detail::next_symbol;

// ---- The test program's side: the runtime, or a self-test's stand-in ----

using ParamInfo = int (*)(void *, std::size_t, std::size_t *, std::size_t *);  // CUresult (CUkernel|CUfunction, ...)

/// The driver's parameter queries (12.4 and later), found where the runtime loaded the driver.
std::pair<ParamInfo, ParamInfo> param_info() {
  static const std::pair<ParamInfo, ParamInfo> fns = [] {
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (driver == nullptr) driver = dlopen("libcuda.so.1", RTLD_NOW);
    if (driver == nullptr) return std::pair<ParamInfo, ParamInfo>{nullptr, nullptr};
    return std::pair{reinterpret_cast<ParamInfo>(dlsym(driver, "cuKernelGetParamInfo")),
                     reinterpret_cast<ParamInfo>(dlsym(driver, "cuFuncGetParamInfo"))};
  }();
  return fns;
}

bool real_param_layout(const void *func, cudaKernel_t handle, std::uint32_t *count, std::uint32_t *offsets,
                       std::uint32_t *sizes, std::uint32_t max) {
  const auto [by_kernel, by_function] = param_info();
  void *subject = handle;
  ParamInfo query = by_kernel;
  if (handle == nullptr) {
    cudaFunction_t f = nullptr;
    if (by_function == nullptr || cudaGetFuncBySymbol(&f, func) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    subject = f;
    query = by_function;
  }
  if (query == nullptr) return false;
  std::uint32_t n = 0;
  for (; n < max; ++n) {
    std::size_t offset = 0, size = 0;
    if (query(subject, n, &offset, &size) != 0) break;  // CUDA_ERROR_INVALID_VALUE past the last one
    offsets[n] = static_cast<std::uint32_t>(offset);
    sizes[n] = static_cast<std::uint32_t>(size);
  }
  std::size_t offset = 0, size = 0;
  if (n == max && query(subject, n, &offset, &size) == 0) return false;  // more parameters than we carry
  *count = n;
  return true;
}

cudaError_t real_launch(const void *func, cudaKernel_t handle, dim3 grid, dim3 block, void **args, std::size_t shared,
                        cudaStream_t stream, bool cooperative) {
  if (cooperative) return __wrap_cudaLaunchCooperativeKernel(func, grid, block, args, shared, stream);
  if (handle != nullptr) return __wrap___cudaLaunchKernel(handle, grid, block, args, shared, stream);
  return __wrap_cudaLaunchKernel(func, grid, block, args, shared, stream);
}

cudaError_t real_synchronize(int what, void *handle) {
  if (what == 1) return __wrap_cudaStreamSynchronize(static_cast<cudaStream_t>(handle));
  if (what == 2) return __wrap_cudaEventSynchronize(static_cast<cudaEvent_t>(handle));
  return __wrap_cudaDeviceSynchronize();
}

bool real_is_device(const void *p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

cudaError_t real_to_symbol(const void *symbol, const void *src, std::size_t count, std::size_t offset) {
  return __wrap_cudaMemcpyToSymbol(symbol, src, count, offset, cudaMemcpyHostToDevice);
}
cudaError_t real_from_symbol(void *dst, const void *symbol, std::size_t count, std::size_t offset) {
  return __wrap_cudaMemcpyFromSymbol(dst, symbol, count, offset, cudaMemcpyDeviceToHost);
}
cudaError_t real_malloc(void **p, std::size_t bytes) {
  static const auto fn = next_symbol<cudaError_t (*)(void **, std::size_t)>("cudaMalloc");
  return fn(p, bytes);
}

ParentRuntime &parent() {
  static ParentRuntime r{real_param_layout, nullptr,           real_launch,    real_synchronize,
                         real_is_device,    __wrap_cudaMemcpy, real_to_symbol, real_from_symbol,
                         __wrap_cudaMemset, real_malloc,       __wrap_cudaFree};
  return r;
}
bool stand_in = false;  // a self-test's runtime is installed

cudaError_t real_get_kernel(cudaKernel_t *handle, const void *func) {
  if (parent().get_kernel != nullptr) return parent().get_kernel(handle, func);
  static const auto fn = next_symbol<cudaError_t (*)(cudaKernel_t *, const void *)>("__cudaGetKernel");
  return fn(handle, func);
}

// What travels: small structs of values (handles and addresses inside, never followed).
struct Address {
  const void *p;
};
struct KernelRef {
  const void *func;
  cudaKernel_t handle;
};
struct Layout {
  std::uint32_t known, count;
  std::uint32_t offsets[kMaxParams], sizes[kMaxParams];
};
struct LaunchHead {
  KernelRef kernel;
  dim3 grid, block;
  std::uint64_t shared;
  cudaStream_t stream;
  std::uint32_t cooperative, count;
  std::uint32_t offsets[kMaxParams], sizes[kMaxParams];
};

/// Whether @p p (a kernel's host address, a device variable's) is of the library that defines the
/// lab's function being called: the worker may launch and copy to the lab's own, never the test
/// program's (its reference kernels, its device variables).
bool of_the_lab(const void *p) { return calling() != nullptr && same_object(calling(), p); }

/// The kernel handles the test program gave the worker (p_get_kernel): the only ones it launches.
std::vector<cudaKernel_t> &issued() {
  static std::vector<cudaKernel_t> handles;
  return handles;
}

bool may_launch(const KernelRef &k) {
  if (k.handle != nullptr) return std::find(issued().begin(), issued().end(), k.handle) != issued().end();
  return of_the_lab(k.func);
}

// The functions the test program runs when the worker asks (in_parent).
cudaError_t p_layout(KernelRef k, Layout *out) {
  *out = Layout{};
  if (!may_launch(k)) return cudaErrorInvalidDeviceFunction;
  out->known = parent().param_layout(k.func, k.handle, &out->count, out->offsets, out->sizes, kMaxParams) ? 1 : 0;
  return cudaSuccess;
}
cudaError_t p_get_kernel(Address func, KernelRef *out) {
  out->func = func.p;
  out->handle = nullptr;
  if (!of_the_lab(func.p)) return cudaErrorInvalidDeviceFunction;
  const cudaError_t e = real_get_kernel(&out->handle, func.p);
  if (e == cudaSuccess && out->handle != nullptr &&
      std::find(issued().begin(), issued().end(), out->handle) == issued().end())
    issued().push_back(out->handle);
  return e;
}
/// The streams a launch from the worker may name: the default ones (a stream handle is a pointer
/// the runtime follows; the worker's could point at anything).
bool default_stream(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread; }

cudaError_t p_launch(LaunchHead h, std::string bytes) {
  if (!may_launch(h.kernel)) return cudaErrorInvalidDeviceFunction;
  if (!default_stream(h.stream)) return cudaErrorInvalidResourceHandle;
  // The layout is the test program's own (the worker's offsets and sizes are not trusted).
  Layout l{};
  if (p_layout(h.kernel, &l) != cudaSuccess || !l.known) return cudaErrorNotSupported;
  void *args[kMaxParams] = {};
  for (std::uint32_t i = 0; i < l.count; ++i) {
    if (l.offsets[i] > bytes.size() || l.sizes[i] > bytes.size() - l.offsets[i]) return cudaErrorInvalidValue;
    args[i] = bytes.data() + l.offsets[i];
  }
  return parent().launch(h.kernel.func, h.kernel.handle, h.grid, h.block, args, static_cast<std::size_t>(h.shared),
                         h.stream, h.cooperative != 0);
}
cudaError_t p_synchronize(std::int32_t what, Address handle) {
  if (what == 2 || (what == 1 && !default_stream(static_cast<cudaStream_t>(const_cast<void *>(handle.p)))))
    return cudaErrorInvalidResourceHandle;  // only the device and the default streams
  return parent().synchronize(what, const_cast<void *>(handle.p));
}
cudaError_t p_is_device(Address p, std::int32_t *out) {
  *out = parent().is_device(p.p) ? 1 : 0;
  return cudaSuccess;
}
cudaError_t p_to_device(Address dst, std::string bytes) {
  if (!parent().is_device(dst.p)) return cudaErrorInvalidValue;
  return parent().memcpy(const_cast<void *>(dst.p), bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
}
cudaError_t p_from_device(Address src, std::uint64_t count, std::string *out) {
  if (count > kChunk || !parent().is_device(src.p)) return cudaErrorInvalidValue;
  out->assign(static_cast<std::size_t>(count), '\0');
  return parent().memcpy(out->data(), src.p, out->size(), cudaMemcpyDeviceToHost);
}
cudaError_t p_device_to_device(Address dst, Address src, std::uint64_t count) {
  if (!parent().is_device(dst.p) || !parent().is_device(src.p)) return cudaErrorInvalidValue;
  return parent().memcpy(const_cast<void *>(dst.p), src.p, static_cast<std::size_t>(count), cudaMemcpyDeviceToDevice);
}
cudaError_t p_to_symbol(Address symbol, std::uint64_t offset, std::string bytes) {
  if (!of_the_lab(symbol.p)) return cudaErrorInvalidSymbol;
  return parent().to_symbol(symbol.p, bytes.data(), bytes.size(), static_cast<std::size_t>(offset));
}
cudaError_t p_from_symbol(Address symbol, std::uint64_t offset, std::uint64_t count, std::string *out) {
  if (count > kChunk || !of_the_lab(symbol.p)) return count > kChunk ? cudaErrorInvalidValue : cudaErrorInvalidSymbol;
  out->assign(static_cast<std::size_t>(count), '\0');
  return parent().from_symbol(out->data(), symbol.p, out->size(), static_cast<std::size_t>(offset));
}
cudaError_t p_memset(Address p, std::int32_t value, std::uint64_t count) {
  if (!parent().is_device(p.p)) return cudaErrorInvalidValue;
  return parent().memset(const_cast<void *>(p.p), value, static_cast<std::size_t>(count));
}
cudaError_t p_malloc(std::uint64_t bytes, Address *out) {
  void *p = nullptr;
  const cudaError_t e = parent().malloc(&p, static_cast<std::size_t>(bytes));
  out->p = p;
  return e;
}
cudaError_t p_free(Address p) { return parent().free(const_cast<void *>(p.p)); }

// ---- The worker's side ----
#ifdef CUDALAB_APART_LAUNCHERS

cudaError_t w_launch(const void *func, cudaKernel_t handle, dim3 grid, dim3 block, void **args, std::size_t shared,
                     cudaStream_t stream, bool cooperative) {
  static std::map<std::pair<const void *, cudaKernel_t>, Layout> layouts;
  const auto key = std::make_pair(func, handle);
  auto it = layouts.find(key);
  if (it == layouts.end()) {
    Layout l{};
    if (in_parent<&p_layout>(KernelRef{func, handle}, &l) != cudaSuccess || !l.known) return cudaErrorNotSupported;
    it = layouts.emplace(key, l).first;
  }
  const Layout &l = it->second;
  LaunchHead h{};
  h.kernel = KernelRef{func, handle};
  h.grid = grid;
  h.block = block;
  h.shared = shared;
  h.stream = stream;
  h.cooperative = cooperative ? 1 : 0;
  h.count = l.count;
  std::size_t end = 0;
  for (std::uint32_t i = 0; i < l.count; ++i) end = std::max<std::size_t>(end, std::size_t{l.offsets[i]} + l.sizes[i]);
  std::string bytes(end, '\0');
  for (std::uint32_t i = 0; i < l.count; ++i) {
    h.offsets[i] = l.offsets[i];
    h.sizes[i] = l.sizes[i];
    std::memcpy(bytes.data() + l.offsets[i], args[i], l.sizes[i]);
  }
  return in_parent<&p_launch>(h, bytes);
}

cudaError_t w_synchronize(int what, void *handle) { return in_parent<&p_synchronize>(what, Address{handle}); }

bool w_is_device(const void *p) {
  std::int32_t device = 0;
  return in_parent<&p_is_device>(Address{p}, &device) == cudaSuccess && device != 0;
}

cudaError_t w_memcpy(void *dst, const void *src, std::size_t count, cudaMemcpyKind kind) {
  bool to_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool from_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind == cudaMemcpyDefault) {
    to_device = w_is_device(dst);
    from_device = w_is_device(src);
  } else if (kind != cudaMemcpyHostToHost && !to_device && !from_device) {
    return cudaErrorInvalidMemcpyDirection;
  }
  if (count == 0) return cudaSuccess;
  if (to_device && from_device) return in_parent<&p_device_to_device>(Address{dst}, Address{src}, std::uint64_t{count});
  if (!to_device && !from_device) {
    std::memmove(dst, src, count);
    return cudaSuccess;
  }
  for (std::size_t at = 0; at < count; at += kChunk) {
    const std::size_t n = std::min(kChunk, count - at);
    cudaError_t e;
    if (to_device) {
      e = in_parent<&p_to_device>(Address{static_cast<char *>(dst) + at},
                                  std::string(static_cast<const char *>(src) + at, n));
    } else {
      std::string part;
      e = in_parent<&p_from_device>(Address{static_cast<const char *>(src) + at}, std::uint64_t{n}, &part);
      if (e == cudaSuccess) std::memcpy(static_cast<char *>(dst) + at, part.data(), std::min(n, part.size()));
    }
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t w_to_symbol(const void *symbol, const void *src, std::size_t count, std::size_t offset) {
  for (std::size_t at = 0; at < count; at += kChunk) {
    const std::size_t n = std::min(kChunk, count - at);
    const cudaError_t e = in_parent<&p_to_symbol>(Address{symbol}, std::uint64_t{offset + at},
                                                  std::string(static_cast<const char *>(src) + at, n));
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t w_from_symbol(void *dst, const void *symbol, std::size_t count, std::size_t offset) {
  for (std::size_t at = 0; at < count; at += kChunk) {
    const std::size_t n = std::min(kChunk, count - at);
    std::string part;
    const cudaError_t e =
        in_parent<&p_from_symbol>(Address{symbol}, std::uint64_t{offset + at}, std::uint64_t{n}, &part);
    if (e != cudaSuccess) return e;
    std::memcpy(static_cast<char *>(dst) + at, part.data(), std::min(n, part.size()));
  }
  return cudaSuccess;
}

cudaError_t w_memset(void *p, int value, std::size_t count) {
  return in_parent<&p_memset>(Address{p}, std::int32_t{value}, std::uint64_t{count});
}
cudaError_t w_free(void *p) { return in_parent<&p_free>(Address{p}); }

#endif  // CUDALAB_APART_LAUNCHERS

#ifdef CUDALAB_APART_LAUNCHERS
const WorkerRuntime kWorker{w_launch, w_synchronize, w_memcpy, w_to_symbol, w_from_symbol, w_memset, w_free};
#else
// Launchers run in the test program: a model or device query in the worker may wait on the device
// and free nothing (cudaFree(0), the old way to make the context), and do nothing else on the GPU.
cudaError_t w_refused() {
  std::fprintf(stderr,
               "[ CUDALAB  ] a lab function that runs in a process of its own used the GPU (a launch or "
               "a copy): only functions given device buffers may\n");
  return cudaErrorNotSupported;
}
const WorkerRuntime kWorker{
    [](const void *, cudaKernel_t, dim3, dim3, void **, std::size_t, cudaStream_t, bool) { return w_refused(); },
    [](int what, void *) { return what == 0 ? in_parent<&p_synchronize>(0, Address{nullptr}) : w_refused(); },
    [](void *, const void *, std::size_t, cudaMemcpyKind) { return w_refused(); },
    [](const void *, const void *, std::size_t, std::size_t) { return w_refused(); },
    [](void *, const void *, std::size_t, std::size_t) { return w_refused(); },
    [](void *, int, std::size_t) { return w_refused(); },
    [](void *p) { return p == nullptr ? cudaSuccess : w_refused(); }};
#endif
[[maybe_unused]] const bool kInstalled = set_worker_runtime(&kWorker);

/// The `<<< >>>` configurations the worker's launchers pushed and their stubs have not yet popped.
struct Configuration {
  dim3 grid, block;
  std::size_t shared;
  cudaStream_t stream;
};
[[maybe_unused]] std::vector<Configuration> &pushed() {
  static std::vector<Configuration> stack;
  return stack;
}

}  // namespace

void set_parent_runtime(const ParentRuntime &runtime) {
  parent() = runtime;
  stand_in = true;
}

bool launchers_apart() {
  if (stand_in) return true;
  const auto [by_kernel, by_function] = param_info();
  return by_kernel != nullptr && by_function != nullptr;
}

}  // namespace cudalab::apart::detail

#ifdef CUDALAB_APART_LAUNCHERS
// The runtime's entry points that a launcher's own code calls without a wrapper: `<<< >>>`'s
// configuration and kernel handle, allocations, the asynchronous copy and set. Defined here, in
// the program, only where launchers run apart (in the test program each calls the runtime's own).

using cudalab::apart::detail::in_worker;

extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared, struct CUstream_st *stream) {
  if (in_worker()) {
    cudalab::apart::detail::pushed().push_back({grid, block, shared, stream});
    return 0;
  }
  static const auto fn = cudalab::detail::next_symbol<unsigned (*)(dim3, dim3, std::size_t, struct CUstream_st *)>(
      "__cudaPushCallConfiguration");
  return fn(grid, block, shared, stream);
}

extern "C" cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, std::size_t *shared, void *stream) {
  if (in_worker()) {
    auto &stack = cudalab::apart::detail::pushed();
    if (stack.empty()) return cudaErrorInvalidConfiguration;
    const auto c = stack.back();
    stack.pop_back();
    *grid = c.grid;
    *block = c.block;
    *shared = c.shared;
    *static_cast<cudaStream_t *>(stream) = c.stream;
    return cudaSuccess;
  }
  static const auto fn = cudalab::detail::next_symbol<cudaError_t (*)(dim3 *, dim3 *, std::size_t *, void *)>(
      "__cudaPopCallConfiguration");
  return fn(grid, block, shared, stream);
}

extern "C" cudaError_t __cudaGetKernel(cudaKernel_t *handle, const void *func) {
  using namespace cudalab::apart::detail;
  if (!in_worker()) return real_get_kernel(handle, func);
  KernelRef k{};
  const cudaError_t e = cudalab::apart::in_parent<&p_get_kernel>(Address{func}, &k);
  *handle = k.handle;
  return e;
}

cudaError_t cudaMalloc(void **ptr, std::size_t bytes) {
  using namespace cudalab::apart::detail;
  if (!in_worker()) return real_malloc(ptr, bytes);
  Address a{};
  const cudaError_t e = cudalab::apart::in_parent<&p_malloc>(std::uint64_t{bytes}, &a);
  *ptr = const_cast<void *>(a.p);
  return e;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, std::size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  using namespace cudalab::apart::detail;
  if (in_worker()) return w_memcpy(dst, src, count, kind);  // done before it returns, as a copy from pageable memory is
  static const auto fn =
      next_symbol<cudaError_t (*)(void *, const void *, std::size_t, cudaMemcpyKind, cudaStream_t)>("cudaMemcpyAsync");
  return fn(dst, src, count, kind, stream);
}

cudaError_t cudaMemsetAsync(void *ptr, int value, std::size_t count, cudaStream_t stream) {
  using namespace cudalab::apart::detail;
  if (in_worker()) return w_memset(ptr, value, count);
  static const auto fn = next_symbol<cudaError_t (*)(void *, int, std::size_t, cudaStream_t)>("cudaMemsetAsync");
  return fn(ptr, value, count, stream);
}
#endif  // CUDALAB_APART_LAUNCHERS
