/// @file synthetic_device.hpp
/// @brief Synthetic GPUs for host tests: the published limits of five architectures, and the
/// answers the CUDA runtime would give for them. A lab's host test defines the runtime functions a
/// student's code may call (cudaDeviceGetAttribute, cudaGetDeviceProperties, ...) in the test
/// binary, where they take precedence over the shared runtime's, and answers them from here: a
/// model that is right only for the GPU it was written on then fails on any machine (ch03_03,
/// ch03_05).
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

namespace cudalab::synthetic {

/// @brief One synthetic device: the published limits of an architecture (CUDA C++ Programming
/// Guide, "Compute Capabilities"; cudaDevAttrReservedSharedMemoryPerBlock).
struct Arch {
  const char *name;
  int major, minor, max_threads_per_sm, max_blocks_per_sm;
  int smem_per_sm, smem_optin, reserved;
};

/// @brief Every architecture from sm_75 on with different limits.
inline constexpr Arch kArchs[] = {
    {"sm_75", 7, 5, 1024, 16, 65536, 65536, 0},       // Turing (T4, RTX 20xx)
    {"sm_80", 8, 0, 2048, 32, 167936, 166912, 1024},  // A100
    {"sm_86", 8, 6, 1536, 16, 102400, 101376, 1024},  // RTX 30xx, A10
    {"sm_89", 8, 9, 1536, 24, 102400, 101376, 1024},  // RTX 40xx, L4
    {"sm_90", 9, 0, 2048, 32, 233472, 232448, 1024},  // H100, H200
};

/// @brief Limits that are the same on every architecture above (and the synthetic SM count).
inline constexpr int kRegsPerSm = 65536, kRegsPerBlock = 65536, kSmemPerBlock = 49152, kSms = 40;

/// @brief What cudaDeviceGetAttribute answers for @p attr on @p a; *known is false (and 0 is
/// returned) for an attribute the synthetic device does not model.
inline int attribute(const Arch &a, cudaDeviceAttr attr, bool *known) {
  *known = true;
  switch (attr) {
    case cudaDevAttrComputeCapabilityMajor: return a.major;
    case cudaDevAttrComputeCapabilityMinor: return a.minor;
    case cudaDevAttrWarpSize: return 32;
    case cudaDevAttrMaxThreadsPerBlock: return 1024;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return a.max_threads_per_sm;
    case cudaDevAttrMaxBlocksPerMultiprocessor: return a.max_blocks_per_sm;
    case cudaDevAttrMaxRegistersPerMultiprocessor: return kRegsPerSm;
    case cudaDevAttrMaxRegistersPerBlock: return kRegsPerBlock;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return a.smem_per_sm;
    case cudaDevAttrMaxSharedMemoryPerBlock: return kSmemPerBlock;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return a.smem_optin;
    case cudaDevAttrReservedSharedMemoryPerBlock: return a.reserved;
    case cudaDevAttrMultiProcessorCount: return kSms;
    case cudaDevAttrMaxBlockDimX:
    case cudaDevAttrMaxBlockDimY: return 1024;
    case cudaDevAttrMaxBlockDimZ: return 64;
    case cudaDevAttrMaxGridDimX: return INT_MAX;
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ: return 65535;
    case cudaDevAttrTotalConstantMemory: return 65536;
    case cudaDevAttrL2CacheSize: return 4 << 20;
    case cudaDevAttrGlobalMemoryBusWidth: return 256;
    case cudaDevAttrMemoryClockRate: return 5000000;
    case cudaDevAttrClockRate: return 1500000;
    case cudaDevAttrGlobalL1CacheSupported:
    case cudaDevAttrLocalL1CacheSupported: return 1;
    default: *known = false; return 0;
  }
}

/// @brief What cudaGetDeviceProperties fills in for @p a (every field that has an attribute above).
inline void properties(const Arch &a, cudaDeviceProp *prop) {
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "synthetic %s", a.name);
  prop->major = a.major;
  prop->minor = a.minor;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsPerMultiProcessor = a.max_threads_per_sm;
  prop->maxBlocksPerMultiProcessor = a.max_blocks_per_sm;
  prop->regsPerBlock = kRegsPerBlock;
  prop->regsPerMultiprocessor = kRegsPerSm;
  prop->sharedMemPerBlock = kSmemPerBlock;
  prop->sharedMemPerMultiprocessor = a.smem_per_sm;
  prop->sharedMemPerBlockOptin = a.smem_optin;
  prop->reservedSharedMemPerBlock = a.reserved;
  prop->multiProcessorCount = kSms;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = INT_MAX;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->totalConstMem = 65536;
  prop->l2CacheSize = 4 << 20;
}

/// @brief Fault injection for a test binary's synthetic runtime: each function of it calls
/// injected_failure() first and returns its error when that is not cudaSuccess.
struct CallFailures {
  int calls = 0;    ///< runtime calls answered since the last reset
  int fail_at = 0;  ///< the call (1, 2, ...) that fails with cudaErrorInvalidValue; 0: none
};

/// @brief The one CallFailures of the test binary.
inline CallFailures &call_failures() {
  static CallFailures f;
  return f;
}

/// @brief Counts one runtime call; cudaErrorInvalidValue when it is the one a test made fail.
inline cudaError_t injected_failure() {
  CallFailures &f = call_failures();
  return ++f.calls == f.fail_at ? cudaErrorInvalidValue : cudaSuccess;
}

/// @brief Makes each runtime call that @p call makes fail in turn, and checks that @p call returns
/// that error every time ("returns the first CUDA error"). @p call must return cudaSuccess
/// without injection. Returns "" or what went wrong, naming @p name.
inline std::string every_error_returned(const char *name, const std::function<cudaError_t()> &call) {
  CallFailures &f = call_failures();
  f = CallFailures{};
  const cudaError_t clean = call();
  const int calls = f.calls;
  std::string problems;
  if (clean != cudaSuccess)
    return std::string(name) + " returned " + cudaGetErrorName(clean) + " with nothing injected";
  if (calls == 0) return std::string(name) + " asked the runtime nothing";
  for (int k = 1; k <= calls; ++k) {
    f = CallFailures{0, k};
    const cudaError_t got = call();
    if (got != cudaErrorInvalidValue && problems.empty())
      problems = std::string(name) + ": runtime call " + std::to_string(k) + " of its " + std::to_string(calls) +
                 " failed with cudaErrorInvalidValue, and " + name + " returned " + cudaGetErrorName(got) +
                 ": return the first CUDA error";
  }
  f = CallFailures{};
  return problems;
}

}  // namespace cudalab::synthetic
