/// @file resources.cu
/// @brief Lab ch03_03: your residency prediction, your register cap and your launcher
/// (see README.md and resources.cuh).
#include "resources.cuh"

#include <algorithm>
#include <climits>

namespace {
[[maybe_unused]] long long round_up(long long x, long long y) { return (x + y - 1) / y * y; }
}  // namespace

cudaError_t predict_residency(const void *kernel, int threads, std::size_t dynamic_smem, Residency *out) {
  Residency r;
  // TODO(ch03_03): fill r from cudaFuncGetAttributes(kernel) (numRegs, sharedSizeBytes,
  // maxThreadsPerBlock, maxDynamicSharedSizeBytes) and cudaDeviceGetAttribute (warp size,
  // threads per block and per SM, blocks per SM, registers per SM and per block, shared
  // memory per SM, reserved shared memory per block). README.md, "The rules", has each cap.
  (void)kernel, (void)threads, (void)dynamic_smem;
  *out = r;
  return cudaSuccess;
}

__global__ void hungryKernel(const unsigned int *in, unsigned int *out, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hungry_mix(in[i]);
}

// TODO(ch03_03): cap this kernel's registers with __launch_bounds__ (see resources.cuh).
__global__ void hungryBounded(const unsigned int *in, unsigned int *out, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hungry_mix(in[i]);
}

__global__ void histogramShared(const unsigned int *in, unsigned int *hist, unsigned int n, unsigned int bins) {
  extern __shared__ unsigned int h[];  // bins counters
  for (unsigned int b = threadIdx.x; b < bins; b += blockDim.x) h[b] = 0;
  __syncthreads();
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&h[in[i] % bins], 1u);
  __syncthreads();
  for (unsigned int b = threadIdx.x; b < bins; b += blockDim.x)
    if (h[b]) atomicAdd(&hist[b], h[b]);
}

LaunchReport launch_histogram(const unsigned int *d_in, unsigned int *d_hist, unsigned int n, unsigned int bins,
                              int threads, int blocks) {
  LaunchReport rep;
  // TODO(ch03_03): dynamic shared memory = bins * 4 bytes. Before launching, refuse
  //  - more threads than the device and the kernel allow (limiter kLimitWarps),
  //  - more shared memory than the opt-in limit (limiter kLimitSharedMemory),
  // with error = cudaErrorInvalidConfiguration and a message naming both numbers. Opt in
  // (cudaFuncSetAttribute) above the kernel's current limit, fill rep.residency, launch,
  // then report the launch error or the execution error (after synchronizing).
  (void)d_in, (void)d_hist, (void)n, (void)bins, (void)threads, (void)blocks;
  return rep;
}

std::string limiter_names(unsigned limiters) {
  std::string out;
  const std::pair<unsigned, const char *> names[] = {{kLimitWarps, "warps"},
                                                     {kLimitRegisters, "registers"},
                                                     {kLimitSharedMemory, "shared memory"},
                                                     {kLimitBlocks, "blocks per SM"}};
  for (const auto &[bit, name] : names) {
    if (limiters & bit) out += (out.empty() ? "" : " + ") + std::string(name);
  }
  return out.empty() ? "none" : out;
}
