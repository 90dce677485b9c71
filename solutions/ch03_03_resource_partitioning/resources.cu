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
  // BEGIN SOLUTION
  cudaFuncAttributes fa;
  if (cudaError_t err = cudaFuncGetAttributes(&fa, kernel); err != cudaSuccess) return err;
  int dev = 0;
  if (cudaError_t err = cudaGetDevice(&dev); err != cudaSuccess) return err;
  int cc_major = 0, warp = 0, max_tpb = 0, max_tpsm = 0, max_blocks = 0, regs_sm = 0, regs_block = 0, smem_sm = 0,
      reserved = 0;
  const struct {
    cudaDeviceAttr attr;
    int *value;
  } attrs[] = {{cudaDevAttrComputeCapabilityMajor, &cc_major},
               {cudaDevAttrWarpSize, &warp},
               {cudaDevAttrMaxThreadsPerBlock, &max_tpb},
               {cudaDevAttrMaxThreadsPerMultiProcessor, &max_tpsm},
               {cudaDevAttrMaxBlocksPerMultiprocessor, &max_blocks},
               {cudaDevAttrMaxRegistersPerMultiprocessor, &regs_sm},
               {cudaDevAttrMaxRegistersPerBlock, &regs_block},
               {cudaDevAttrMaxSharedMemoryPerMultiprocessor, &smem_sm},
               {cudaDevAttrReservedSharedMemoryPerBlock, &reserved}};
  for (const auto &a : attrs) {
    if (cudaError_t err = cudaDeviceGetAttribute(a.value, a.attr, dev); err != cudaSuccess) return err;
  }
  r.regs_per_thread = fa.numRegs;
  r.static_smem = fa.sharedSizeBytes;
  r.dynamic_smem = dynamic_smem;

  const int warps_per_block = (threads + warp - 1) / warp;
  const int max_warps = max_tpsm / warp;
  // Warp slots; a block over the device's or the kernel's (__launch_bounds__) limit cannot run.
  const bool too_big = threads < 1 || threads > std::min(max_tpb, fa.maxThreadsPerBlock);
  const int limit_warps = too_big ? 0 : max_warps / warps_per_block;

  // Registers: per warp in units of 256, from each of the 4 sub-partitions separately.
  int limit_regs = INT_MAX;
  if (fa.numRegs > 0) {
    const long long per_warp = round_up(static_cast<long long>(fa.numRegs) * warp, 256);
    if (per_warp * round_up(warps_per_block, 4) > regs_block) {
      limit_regs = 0;
    } else {
      limit_regs = static_cast<int>((regs_sm / 4) / per_warp * 4 / warps_per_block);
    }
  }

  // Shared memory: static + dynamic + the system's reservation, in units of 128 B (256 B on
  // sm_7x); dynamic shared memory over the kernel's limit cannot be launched.
  int limit_smem = INT_MAX;
  if (dynamic_smem > static_cast<std::size_t>(fa.maxDynamicSharedSizeBytes)) {
    limit_smem = 0;
  } else {
    const long long per_block =
        round_up(static_cast<long long>(fa.sharedSizeBytes + dynamic_smem + reserved), cc_major >= 8 ? 128 : 256);
    if (per_block > 0) limit_smem = static_cast<int>(smem_sm / per_block);
  }

  r.blocks_per_sm = std::min({limit_warps, limit_regs, limit_smem, max_blocks});
  if (r.blocks_per_sm == limit_warps) r.limiters |= kLimitWarps;
  if (r.blocks_per_sm == limit_regs) r.limiters |= kLimitRegisters;
  if (r.blocks_per_sm == limit_smem) r.limiters |= kLimitSharedMemory;
  if (r.blocks_per_sm == max_blocks) r.limiters |= kLimitBlocks;
  r.warps_per_sm = r.blocks_per_sm * warps_per_block;
  r.occupancy = static_cast<double>(r.warps_per_sm) / max_warps;
  // STUB: // TODO(ch03_03): fill r from cudaFuncGetAttributes(kernel) (numRegs, sharedSizeBytes,
  // STUB: // maxThreadsPerBlock, maxDynamicSharedSizeBytes) and cudaDeviceGetAttribute (warp size,
  // STUB: // threads per block and per SM, blocks per SM, registers per SM and per block, shared
  // STUB: // memory per SM, reserved shared memory per block). README.md, "The rules", has each cap.
  // STUB: (void)kernel, (void)threads, (void)dynamic_smem;
  // END SOLUTION
  *out = r;
  return cudaSuccess;
}

__global__ void hungryKernel(const unsigned int *in, unsigned int *out, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hungry_mix(in[i]);
}

// BEGIN SOLUTION
__global__ void __launch_bounds__(256, 4) hungryBounded(const unsigned int *in, unsigned int *out, unsigned int n) {
// STUB: // TODO(ch03_03): cap this kernel's registers with __launch_bounds__ (see resources.cuh).
// STUB: __global__ void hungryBounded(const unsigned int *in, unsigned int *out, unsigned int n) {
// END SOLUTION
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
  // BEGIN SOLUTION
  const std::size_t dynamic = static_cast<std::size_t>(bins) * sizeof(unsigned int);
  int dev = 0, max_tpb = 0, optin = 0;
  cudaFuncAttributes fa;
  if ((rep.error = cudaGetDevice(&dev)) != cudaSuccess ||
      (rep.error = cudaDeviceGetAttribute(&max_tpb, cudaDevAttrMaxThreadsPerBlock, dev)) != cudaSuccess ||
      (rep.error = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess ||
      (rep.error = cudaFuncGetAttributes(&fa, histogramShared)) != cudaSuccess) {
    rep.message = std::string("histogramShared: ") + cudaGetErrorString(rep.error);
    return rep;
  }
  // Refuse what cannot fit one block, before touching the runtime: nothing is left pending.
  const int thread_limit = std::min(max_tpb, fa.maxThreadsPerBlock);
  if (threads < 1 || threads > thread_limit) {
    rep.error = cudaErrorInvalidConfiguration;
    rep.limiter = kLimitWarps;
    rep.message = "histogramShared: " + std::to_string(threads) + " threads per block requested, this GPU allows " +
                  std::to_string(thread_limit);
    return rep;
  }
  const std::size_t smem_limit = static_cast<std::size_t>(optin) - fa.sharedSizeBytes;
  if (dynamic > smem_limit) {
    rep.error = cudaErrorInvalidConfiguration;
    rep.limiter = kLimitSharedMemory;
    rep.message = "histogramShared: " + std::to_string(bins) + " bins need " + std::to_string(dynamic) +
                  " bytes of shared memory per block, this GPU allows " + std::to_string(smem_limit) +
                  " (opt-in limit)";
    return rep;
  }
  // More than the default 48 KB: opt in (the attribute stays set for later launches).
  if (dynamic > static_cast<std::size_t>(fa.maxDynamicSharedSizeBytes)) {
    rep.error = cudaFuncSetAttribute(histogramShared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(dynamic));
    if (rep.error != cudaSuccess) {
      cudaGetLastError();  // consumed: reported here
      rep.message = std::string("histogramShared: opting in to more shared memory failed: ") +
                    cudaGetErrorString(rep.error);
      return rep;
    }
  }
  if ((rep.error = predict_residency(reinterpret_cast<const void *>(histogramShared), threads, dynamic,
                                     &rep.residency)) != cudaSuccess) {
    rep.message = std::string("histogramShared: ") + cudaGetErrorString(rep.error);
    return rep;
  }
  if (rep.residency.blocks_per_sm == 0) {  // any other resource (registers) that rules it out
    rep.error = cudaErrorInvalidConfiguration;
    rep.limiter = rep.residency.limiters;
    rep.message = "histogramShared: one block of " + std::to_string(threads) + " threads does not fit an SM (" +
                  limiter_names(rep.limiter) + ")";
    return rep;
  }
  histogramShared<<<blocks, threads, dynamic>>>(d_in, d_hist, n, bins);
  rep.error = cudaGetLastError();
  if (rep.error == cudaSuccess) rep.error = cudaDeviceSynchronize();
  if (rep.error != cudaSuccess) rep.message = std::string("histogramShared: ") + cudaGetErrorString(rep.error);
  // STUB: // TODO(ch03_03): dynamic shared memory = bins * 4 bytes. Before launching, refuse
  // STUB: //  - more threads than the device and the kernel allow (limiter kLimitWarps),
  // STUB: //  - more shared memory than the opt-in limit (limiter kLimitSharedMemory),
  // STUB: // with error = cudaErrorInvalidConfiguration and a message naming both numbers. Opt in
  // STUB: // (cudaFuncSetAttribute) above the kernel's current limit, fill rep.residency, launch,
  // STUB: // then report the launch error or the execution error (after synchronizing).
  // STUB: (void)d_in, (void)d_hist, (void)n, (void)bins, (void)threads, (void)blocks;
  // END SOLUTION
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
