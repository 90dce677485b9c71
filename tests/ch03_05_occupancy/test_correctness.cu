// ch03_05 GPU tests: the deviceQuery report against the runtime, and the occupancy calculator
// against cudaOccupancyMaxActiveBlocksPerMultiprocessor / cudaOccupancyMaxPotentialBlockSize on
// real kernels whose register and shared-memory use the compiler decides.
#include "occupancy.cuh"

#include "cudalab/testing.cuh"

#include <algorithm>
#include <cmath>

namespace {

/// Few registers, no shared memory.
__global__ void lightKernel(float *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }

/// 12 KB of static shared memory.
__global__ void staticSmemKernel(float *out) {
  __shared__ float tile[3072];
  for (int i = threadIdx.x; i < 3072; i += blockDim.x) tile[i] = i;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x * 7) % 3072];
}

/// Register-hungry: 48 independent accumulators stay live across the loop.
__global__ void heavyKernel(const float *in, float *out, int iters) {
  float acc[48];
#pragma unroll
  for (int j = 0; j < 48; ++j) acc[j] = in[(threadIdx.x + j) % 64];
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 48; ++j) acc[j] = acc[j] * acc[(j + 1) % 48] + 0.5f;
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 48; ++j) s += acc[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/// Dynamic shared memory only; may be opted in to more than 48 KB.
__global__ void dynamicSmemKernel(float *out) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}

/// Capped by __launch_bounds__: at most 256 threads per block.
__global__ void __launch_bounds__(256) boundedKernel(float *out) { out[threadIdx.x] = 1.0f; }

struct RealKernel {
  const char *name;
  const void *func;
};
const RealKernel kKernels[] = {{"lightKernel", (const void *)lightKernel},
                               {"staticSmemKernel", (const void *)staticSmemKernel},
                               {"heavyKernel", (const void *)heavyKernel},
                               {"dynamicSmemKernel", (const void *)dynamicSmemKernel},
                               {"boundedKernel", (const void *)boundedKernel}};

KernelUsage usage_of(const cudaFuncAttributes &fa, int threads, std::size_t dyn, bool opt_in) {
  return KernelUsage{threads, fa.numRegs, fa.sharedSizeBytes, dyn, opt_in, fa.maxThreadsPerBlock};
}

class DeviceQuery : public cudalab::GpuTest {};

TEST_F(DeviceQuery, MatchesTheRuntime) {
  DeviceReport r;
  CUDALAB_ASSERT_OK(device_query(0, &r));
  cudaDeviceProp p;
  CUDALAB_ASSERT_OK(cudaGetDeviceProperties(&p, 0));
  int mem_clock = 0;
  CUDALAB_ASSERT_OK(cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, 0));
#define CUDALAB_EXPECT_FIELD(got, want)                                                              \
  EXPECT_EQ(static_cast<long long>(got), static_cast<long long>(want))                               \
      << "device_query: " #got " is " << static_cast<long long>(got) << ", the runtime says " << (want)
  EXPECT_EQ(r.name, std::string(p.name)) << "device_query: name is \"" << r.name << "\", the runtime says \""
                                         << p.name << "\"";
  CUDALAB_EXPECT_FIELD(r.sm_count, p.multiProcessorCount);
  CUDALAB_EXPECT_FIELD(r.const_mem, p.totalConstMem);
  CUDALAB_EXPECT_FIELD(r.l2_bytes, p.l2CacheSize);
  CUDALAB_EXPECT_FIELD(r.mem_bus_bits, p.memoryBusWidth);
  CUDALAB_EXPECT_FIELD(r.mem_clock_khz, mem_clock);
  CUDALAB_EXPECT_FIELD(r.sm.cc_major, p.major);
  CUDALAB_EXPECT_FIELD(r.sm.cc_minor, p.minor);
  CUDALAB_EXPECT_FIELD(r.sm.warp_size, p.warpSize);
  CUDALAB_EXPECT_FIELD(r.sm.max_threads_per_block, p.maxThreadsPerBlock);
  CUDALAB_EXPECT_FIELD(r.sm.max_threads_per_sm, p.maxThreadsPerMultiProcessor);
  CUDALAB_EXPECT_FIELD(r.sm.max_blocks_per_sm, p.maxBlocksPerMultiProcessor);
  CUDALAB_EXPECT_FIELD(r.sm.regs_per_sm, p.regsPerMultiprocessor);
  CUDALAB_EXPECT_FIELD(r.sm.regs_per_block, p.regsPerBlock);
  CUDALAB_EXPECT_FIELD(r.sm.smem_per_sm, p.sharedMemPerMultiprocessor);
  CUDALAB_EXPECT_FIELD(r.sm.smem_per_block, p.sharedMemPerBlock);
  CUDALAB_EXPECT_FIELD(r.sm.smem_per_block_optin, p.sharedMemPerBlockOptin);
  CUDALAB_EXPECT_FIELD(r.sm.reserved_smem_per_block, p.reservedSharedMemPerBlock);
  CUDALAB_EXPECT_FIELD(r.sm.smem_alloc_unit, p.major >= 8 ? 128 : 256);
#undef CUDALAB_EXPECT_FIELD
  const double want_bw = 2.0 * mem_clock * 1e3 * (p.memoryBusWidth / 8.0) / 1e9;
  EXPECT_NEAR(r.bandwidth_gbs, want_bw, 0.01 * want_bw)
      << "device_query: bandwidth_gbs should be 2 x memory clock x bus width / 8";
  std::printf("%s", format_device_report(r).c_str());
}

class OccupancyOnThisGpu : public cudalab::GpuTest {};

TEST_F(OccupancyOnThisGpu, MatchesCudaOccupancyMaxActiveBlocks) {
  SmLimits sm;
  CUDALAB_ASSERT_OK(sm_limits_from_device(0, &sm));
  const int optin_bytes = 100 * 1024;
  ASSERT_GE(device().smem_per_block_optin, std::size_t(optin_bytes)) << "this GPU has less than 100 KB opt-in shared memory";
  CUDALAB_ASSERT_OK(cudaFuncSetAttribute(dynamicSmemKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin_bytes));
  int cases = 0;
  for (const RealKernel &rk : kKernels) {
    cudaFuncAttributes fa;
    CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&fa, rk.func));
    const bool opt_in = fa.maxDynamicSharedSizeBytes > 48 * 1024;
    for (int threads : {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024}) {
      if (threads > fa.maxThreadsPerBlock) continue;
      for (std::size_t dyn : {std::size_t(0), std::size_t(8192), std::size_t(40000), std::size_t(optin_bytes)}) {
        if (dyn > std::size_t(fa.maxDynamicSharedSizeBytes)) continue;
        int want = 0;
        CUDALAB_ASSERT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&want, rk.func, threads, dyn));
        Occupancy got = compute_occupancy(sm, usage_of(fa, threads, dyn, opt_in));
        ++cases;
        ASSERT_EQ(got.blocks_per_sm, want)
            << "compute_occupancy for " << rk.name << " (" << fa.numRegs << " regs/thread, " << fa.sharedSizeBytes
            << " B static shared memory) with " << threads << " threads and " << dyn
            << " B dynamic shared memory: expected " << want
            << " blocks/SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor), got " << got.blocks_per_sm;
      }
    }
    std::printf("%-18s %3d regs/thread, %6zu B static smem: checked\n", rk.name, fa.numRegs, fa.sharedSizeBytes);
  }
  std::printf("%d configurations agree with the runtime\n", cases);
}

TEST_F(OccupancyOnThisGpu, BestBlockSizeMatchesCudaOccupancyMaxPotentialBlockSize) {
  SmLimits sm;
  CUDALAB_ASSERT_OK(sm_limits_from_device(0, &sm));
  for (const RealKernel &rk : kKernels) {
    cudaFuncAttributes fa;
    CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&fa, rk.func));
    for (std::size_t dyn : {std::size_t(0), std::size_t(8192), std::size_t(40000)}) {
      int min_grid = 0, want = 0;
      CUDALAB_ASSERT_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &want, rk.func, dyn, 0));
      int got = best_block_size(sm, usage_of(fa, 0, dyn, false));
      ASSERT_EQ(got, want) << "best_block_size for " << rk.name << " (" << fa.numRegs << " regs/thread) with " << dyn
                           << " B dynamic shared memory: expected " << want
                           << " (cudaOccupancyMaxPotentialBlockSize), got " << got;
    }
  }
}

}  // namespace
