// The CUDA runtime's entry points that a lab's shared library calls through the test programs'
// wrappers (-Wl,--wrap=<name>: the launch recorder and the watchdog's waits, common/testing/), for
// programs without those wrappers (the demos): each forwards to the runtime unchanged.
#include "../testing/real_symbol.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

using cudalab::detail::real_symbol;

/// @brief Defines __wrap_<name> as a call of the runtime's <name> with the same parameters.
#define CUDALAB_FORWARD(name, params, args)                                         \
  extern "C" cudaError_t __wrap_##name params {                                     \
    static const auto forward = real_symbol<decltype(&name)>(#name);                \
    return forward args;                                                            \
  }

CUDALAB_FORWARD(cudaLaunchKernel,
                (const void *f, dim3 g, dim3 b, void **a, std::size_t s, cudaStream_t st), (f, g, b, a, s, st))
extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, std::size_t, cudaStream_t);
CUDALAB_FORWARD(__cudaLaunchKernel,
                (cudaKernel_t k, dim3 g, dim3 b, void **a, std::size_t s, cudaStream_t st), (k, g, b, a, s, st))
CUDALAB_FORWARD(cudaLaunchCooperativeKernel,
                (const void *f, dim3 g, dim3 b, void **a, std::size_t s, cudaStream_t st), (f, g, b, a, s, st))
CUDALAB_FORWARD(cudaLaunchKernelExC, (const cudaLaunchConfig_t *c, const void *f, void **a), (c, f, a))
CUDALAB_FORWARD(cudaDeviceSynchronize, (), ())
CUDALAB_FORWARD(cudaStreamSynchronize, (cudaStream_t s), (s))
CUDALAB_FORWARD(cudaEventSynchronize, (cudaEvent_t e), (e))
CUDALAB_FORWARD(cudaMemcpy, (void *d, const void *s, std::size_t n, cudaMemcpyKind k), (d, s, n, k))
CUDALAB_FORWARD(cudaMemcpy2D,
                (void *d, std::size_t dp, const void *s, std::size_t sp, std::size_t w, std::size_t h, cudaMemcpyKind k),
                (d, dp, s, sp, w, h, k))
CUDALAB_FORWARD(cudaMemcpyToSymbol, (const void *y, const void *s, std::size_t n, std::size_t o, cudaMemcpyKind k),
                (y, s, n, o, k))
CUDALAB_FORWARD(cudaMemcpyFromSymbol, (void *d, const void *y, std::size_t n, std::size_t o, cudaMemcpyKind k),
                (d, y, n, o, k))
CUDALAB_FORWARD(cudaMemset, (void *p, int v, std::size_t n), (p, v, n))
CUDALAB_FORWARD(cudaFree, (void *p), (p))
CUDALAB_FORWARD(cudaFreeHost, (void *p), (p))
