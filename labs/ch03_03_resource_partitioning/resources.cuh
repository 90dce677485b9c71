/// @file resources.cuh
/// @brief Lab ch03_03 -- resource partitioning (book section 3.3): registers and shared memory
/// decide how many blocks of a kernel are resident on one SM. Predict it for real kernels from
/// cudaFuncGetAttributes and the device's limits, cap a kernel's registers with
/// __launch_bounds__, and refuse launches that cannot fit a single block with a clear message.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

/// @brief Bits of Residency::limiters (the same values as cudaOccLimitingFactor in
/// cuda_occupancy.h).
enum Limiter : unsigned {
  kLimitWarps = 0x1,         ///< warp slots of the SM (or a block over the thread limit)
  kLimitRegisters = 0x2,     ///< register file
  kLimitSharedMemory = 0x4,  ///< shared memory
  kLimitBlocks = 0x8,        ///< per-SM block limit
};

/// @brief What one SM holds of one kernel launched with a given block size and dynamic shared
/// memory.
struct Residency {
  int regs_per_thread = 0;       ///< cudaFuncAttributes::numRegs
  std::size_t static_smem = 0;   ///< cudaFuncAttributes::sharedSizeBytes
  std::size_t dynamic_smem = 0;  ///< the launch's dynamic shared memory
  int blocks_per_sm = 0;         ///< resident blocks per SM (0: not even one block fits)
  int warps_per_sm = 0;          ///< blocks_per_sm x warps per block
  double occupancy = 0.0;        ///< warps_per_sm / maximum warps per SM
  unsigned limiters = 0;         ///< every resource whose cap equals blocks_per_sm (Limiter bits)
};

/// @brief Predicts the residency of @p kernel on the current device for blocks of @p threads threads and
/// @p dynamic_smem bytes of dynamic shared memory, from cudaFuncGetAttributes and
/// cudaDeviceGetAttribute (see README.md for the rules). A launch that cannot run at all gives
/// blocks_per_sm = 0 with the resource that forbids it as the limiter. Returns the first CUDA error.
cudaError_t predict_residency(const void *kernel, int threads, std::size_t dynamic_smem, Residency *out);

/// @brief Register-hungry kernel: out[i] = hungry_mix(in[i]); 64 values stay live in registers
/// (ptxas: 72 registers per thread on sm_75 to sm_90).
__global__ void hungryKernel(const unsigned int *in, unsigned int *out, unsigned int n);

/// @brief The same work as hungryKernel, compiled for blocks of at most 256 threads and at least 4
/// resident blocks per SM, which caps it at 65536 / (4 x 256) = 64 registers per thread.
__global__ void hungryBounded(const unsigned int *in, unsigned int *out, unsigned int n);

/// @brief hist[b] += number of i < n with in[i] % bins == b. Each block counts into a private
/// histogram of @p bins bins in dynamic shared memory (bins * 4 bytes), then adds it to @p hist.
/// Any grid size works (grid-stride loop); any block size.
__global__ void histogramShared(const unsigned int *in, unsigned int *hist, unsigned int n, unsigned int bins);

/// @brief The result of launch_histogram.
struct LaunchReport {
  cudaError_t error = cudaSuccess;  ///< cudaSuccess, or why the launch did not happen or failed
  unsigned limiter = 0;             ///< a launch refused because one block cannot fit: the resource
  std::string message;              ///< one line: what was asked for and what this GPU allows
  Residency residency;              ///< the prediction for this launch
};

/// @brief Launches histogramShared with @p blocks blocks of @p threads threads and bins * 4
/// bytes of dynamic shared memory, and waits for it (@p d_hist must be zeroed first). Raises the
/// kernel's dynamic shared memory limit (cudaFuncSetAttribute) when it needs more than the default.
/// A launch that cannot fit one block on an SM (too many threads, too much shared memory) is NOT
/// launched: error = cudaErrorInvalidConfiguration, limiter = the resource, and the message names
/// the number asked for and the most this GPU allows (threads, or bytes of shared memory per
/// block), with no CUDA error left pending.
LaunchReport launch_histogram(const unsigned int *d_in, unsigned int *d_hist, unsigned int n, unsigned int bins,
                              int threads, int blocks);

/// @brief "registers", "shared memory + warps", ... for Limiter bits ("none" for 0).
std::string limiter_names(unsigned limiters);

/// @brief The register-hungry function both hungry kernels apply to each element (host and device).
__host__ __device__ inline unsigned int hungry_mix(unsigned int x) {
  unsigned int acc[64];
#pragma unroll
  for (int j = 0; j < 64; ++j) acc[j] = x * (2u * j + 1u) + static_cast<unsigned int>(j);
#pragma unroll
  for (int r = 0; r < 4; ++r) {
#pragma unroll
    for (int j = 0; j < 64; ++j) acc[j] = acc[j] * acc[(j + 7) % 64] + (acc[(j + 29) % 64] ^ static_cast<unsigned int>(r));
  }
  unsigned int s = 0;
#pragma unroll
  for (int j = 0; j < 64; ++j) s ^= acc[j] + static_cast<unsigned int>(j);
  return s;
}

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_resources.hpp")
#include "cudalab_apart_resources.hpp"
#endif
