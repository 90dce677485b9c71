/// @file synthetic_device.hpp
/// @brief Synthetic GPUs for host tests: the published limits of every compute capability in
/// cudalab/arch.hpp (7.5 to 12.0), and the answers the CUDA runtime would give for them. A lab's host test defines the runtime functions a
/// student's code may call (cudaDeviceGetAttribute, cudaGetDeviceProperties, ...) in the test
/// binary, where they take precedence over the shared runtime's, and answers them from here: a
/// model that is right only for the GPU it was written on then fails on any machine (ch03_03,
/// ch03_05).
#pragma once

#include "cudalab/arch.hpp"

#include <cuda_runtime.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

namespace cudalab::synthetic {

/// @brief One synthetic device: the published limits of an architecture (CUDA C++ Programming
/// Guide, "Compute Capabilities"; cudaDevAttrReservedSharedMemoryPerBlock), as cudalab/arch.hpp
/// gives them.
struct Arch {
  const char *name;
  int major, minor, max_threads_per_sm, max_blocks_per_sm;
  int smem_per_sm, smem_optin, reserved;
};

/// @brief The synthetic device of row @p f of cudalab/arch.hpp's table, called @p name: the
/// largest block may opt in to all of an SM's shared memory but the block's reservation.
constexpr Arch from_table(const char *name, const cudalab::arch::Figures &f) {
  return {name, f.major, f.minor, f.max_warps_per_sm * 32, f.max_blocks_per_sm, f.smem_per_sm_kib * 1024,
          f.smem_per_sm_kib * 1024 - f.smem_reserved_per_block, f.smem_reserved_per_block};
}

/// @brief Every compute capability of cudalab/arch.hpp, oldest first (one table: a row added there
/// must be added here, which the static_assert below checks).
inline constexpr Arch kArchs[] = {
    from_table("sm_75", cudalab::arch::kTable[0]),   // T4, RTX 20
    from_table("sm_80", cudalab::arch::kTable[1]),   // A100
    from_table("sm_86", cudalab::arch::kTable[2]),   // RTX 30, A10
    from_table("sm_87", cudalab::arch::kTable[3]),   // Jetson Orin
    from_table("sm_89", cudalab::arch::kTable[4]),   // RTX 40, L4
    from_table("sm_90", cudalab::arch::kTable[5]),   // H100, H200
    from_table("sm_100", cudalab::arch::kTable[6]),  // B200
    from_table("sm_120", cudalab::arch::kTable[7]),  // RTX 50
};
static_assert(sizeof kArchs / sizeof kArchs[0] == sizeof cudalab::arch::kTable / sizeof cudalab::arch::kTable[0],
              "one synthetic device per row of cudalab/arch.hpp");
static_assert(kArchs[0].smem_optin == 65536 && kArchs[1].smem_per_sm == 167936 && kArchs[1].smem_optin == 166912 &&
                  kArchs[5].smem_optin == 232448 && kArchs[5].max_threads_per_sm == 2048 &&
                  kArchs[4].max_blocks_per_sm == 24,
              "the limits these tests were written with (sm_75, sm_80, sm_90, sm_89)");

/// @brief The synthetic devices that the toolkit's own calculator (cuda_occupancy.h) can judge:
/// all but sm_120. CUDA 13.0's cudaOccMaxBlocksPerMultiprocessor caps every 12.x at 24 resident
/// blocks per SM, where the Blackwell Tuning Guide ("the maximum number of thread blocks per SM is
/// 32 for devices of compute capability 10.0 and 12.0") and cudalab/arch.hpp give 32, so on that
/// device the calculator and a correct model disagree about small blocks. The tests that compare
/// with the calculator run on these; the others on every device of kArchs.
inline constexpr Arch kJudgedArchs[] = {kArchs[0], kArchs[1], kArchs[2], kArchs[3], kArchs[4], kArchs[5], kArchs[6]};
static_assert(kJudgedArchs[6].major == 10, "kJudgedArchs is kArchs without sm_120");

/// @brief The synthetic device called @p name ("sm_90"); the first one for a name it does not know.
inline const Arch &arch_named(const char *name) {
  for (const Arch &a : kArchs)
    if (std::strcmp(a.name, name) == 0) return a;
  return kArchs[0];
}

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
