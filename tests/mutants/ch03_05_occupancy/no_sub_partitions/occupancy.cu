/// @file occupancy.cu
/// @brief Lab ch03_05: your deviceQuery and occupancy calculator (see README.md, occupancy.cuh).
#include "occupancy.cuh"

#include <algorithm>
#include <climits>
#include <cstdio>

namespace {
[[maybe_unused]] int div_up(long long x, long long y) { return static_cast<int>((x + y - 1) / y); }
[[maybe_unused]] long long round_up(long long x, long long y) { return (x + y - 1) / y * y; }
}  // namespace

Occupancy compute_occupancy(const SmLimits &sm, const KernelUsage &k) {
  Occupancy o;
  const int warps_per_block = div_up(k.threads_per_block, sm.warp_size);
  const int max_warps_per_sm = sm.max_threads_per_sm / sm.warp_size;

  // Warp slots. A block larger than the launch limit cannot run at all.
  o.limit_warps = k.threads_per_block > sm.max_threads_per_block ? 0 : max_warps_per_sm / warps_per_block;

  // Registers: per warp, rounded up to the allocation unit, from each sub-partition separately.
  if (k.regs_per_thread == 0) {
    o.limit_registers = INT_MAX;
  } else {
    const long long regs_per_warp = round_up(static_cast<long long>(k.regs_per_thread) * sm.warp_size, sm.reg_alloc_unit);
    const long long regs_per_block_alloc = regs_per_warp * warps_per_block;
    // The hardware places a block's warps round-robin on the sub-partitions.
    const long long regs_assumed = regs_per_warp * round_up(warps_per_block, sm.sub_partitions);
    if (k.regs_per_thread > sm.max_regs_per_thread || regs_per_block_alloc > sm.regs_per_block ||
        regs_assumed > sm.regs_per_block) {
      o.limit_registers = 0;
    } else {
      o.limit_registers = static_cast<int>(sm.regs_per_sm / regs_per_warp / warps_per_block);
    }
  }

  // Shared memory: static + dynamic + the system's reservation, rounded to the allocation unit.
  const long long smem = round_up(static_cast<long long>(k.static_smem + k.dynamic_smem + sm.reserved_smem_per_block),
                                  sm.smem_alloc_unit);
  const std::size_t block_limit =
      (k.smem_opt_in ? sm.smem_per_block_optin : sm.smem_per_block) + sm.reserved_smem_per_block;
  if (static_cast<std::size_t>(smem) > block_limit) {
    o.limit_shared = 0;
  } else {
    o.limit_shared = smem > 0 ? static_cast<int>(sm.smem_per_sm / smem) : INT_MAX;
  }

  o.limit_blocks = sm.max_blocks_per_sm;

  o.blocks_per_sm = std::min({o.limit_warps, o.limit_registers, o.limit_shared, o.limit_blocks});
  if (o.blocks_per_sm == o.limit_warps) o.limiters |= kLimitWarps;
  if (o.blocks_per_sm == o.limit_registers) o.limiters |= kLimitRegisters;
  if (o.blocks_per_sm == o.limit_shared) o.limiters |= kLimitSharedMemory;
  if (o.blocks_per_sm == o.limit_blocks) o.limiters |= kLimitBlocks;
  o.warps_per_sm = o.blocks_per_sm * warps_per_block;
  o.occupancy = static_cast<double>(o.warps_per_sm) / max_warps_per_sm;
  return o;
}

int best_block_size(const SmLimits &sm, const KernelUsage &k) {
  int limit = sm.max_threads_per_block;
  if (k.max_threads_per_block > 0) limit = std::min(limit, k.max_threads_per_block);
  int best = 0, best_warps = 0;
  for (int threads = limit / sm.warp_size * sm.warp_size; threads > 0; threads -= sm.warp_size) {
    KernelUsage u = k;
    u.threads_per_block = threads;
    const int warps = compute_occupancy(sm, u).warps_per_sm;
    if (warps > best_warps) {  // strictly better: ties keep the larger block
      best = threads;
      best_warps = warps;
    }
  }
  return best;
}

cudaError_t sm_limits_from_device(int device, SmLimits *sm) {
  SmLimits s;
  int smem_sm = 0, smem_block = 0, smem_optin = 0, reserved = 0;
  struct {
    cudaDeviceAttr attr;
    int *out;
  } attrs[] = {{cudaDevAttrComputeCapabilityMajor, &s.cc_major},
               {cudaDevAttrComputeCapabilityMinor, &s.cc_minor},
               {cudaDevAttrWarpSize, &s.warp_size},
               {cudaDevAttrMaxThreadsPerBlock, &s.max_threads_per_block},
               {cudaDevAttrMaxThreadsPerMultiProcessor, &s.max_threads_per_sm},
               {cudaDevAttrMaxBlocksPerMultiprocessor, &s.max_blocks_per_sm},
               {cudaDevAttrMaxRegistersPerMultiprocessor, &s.regs_per_sm},
               {cudaDevAttrMaxRegistersPerBlock, &s.regs_per_block},
               {cudaDevAttrMaxSharedMemoryPerMultiprocessor, &smem_sm},
               {cudaDevAttrMaxSharedMemoryPerBlock, &smem_block},
               {cudaDevAttrMaxSharedMemoryPerBlockOptin, &smem_optin},
               {cudaDevAttrReservedSharedMemoryPerBlock, &reserved}};
  for (const auto &a : attrs) {
    if (cudaError_t err = cudaDeviceGetAttribute(a.out, a.attr, device); err != cudaSuccess) return err;
  }
  s.smem_per_sm = smem_sm;
  s.smem_per_block = smem_block;
  s.smem_per_block_optin = smem_optin;
  s.reserved_smem_per_block = reserved;
  // Architecture constants (no attribute): see README.md.
  s.max_regs_per_thread = 255;
  s.reg_alloc_unit = 256;
  s.sub_partitions = 4;
  s.smem_alloc_unit = s.cc_major >= 8 ? 128 : 256;
  *sm = s;
  return cudaSuccess;
}

cudaError_t device_query(int device, DeviceReport *report) {
  DeviceReport r;
  cudaDeviceProp prop;  // the name has no attribute
  if (cudaError_t err = cudaGetDeviceProperties(&prop, device); err != cudaSuccess) return err;
  r.name = prop.name;
  int const_mem = 0, l2 = 0;
  struct {
    cudaDeviceAttr attr;
    int *out;
  } attrs[] = {{cudaDevAttrMultiProcessorCount, &r.sm_count},
               {cudaDevAttrTotalConstantMemory, &const_mem},
               {cudaDevAttrL2CacheSize, &l2},
               {cudaDevAttrMemoryClockRate, &r.mem_clock_khz},
               {cudaDevAttrGlobalMemoryBusWidth, &r.mem_bus_bits}};
  for (const auto &a : attrs) {
    if (cudaError_t err = cudaDeviceGetAttribute(a.out, a.attr, device); err != cudaSuccess) return err;
  }
  r.const_mem = const_mem;
  r.l2_bytes = l2;
  r.bandwidth_gbs = 2.0 * r.mem_clock_khz * 1e3 * (r.mem_bus_bits / 8.0) / 1e9;
  if (cudaError_t err = sm_limits_from_device(device, &r.sm); err != cudaSuccess) return err;
  *report = r;
  return cudaSuccess;
}

std::string format_device_report(const DeviceReport &r) {
  char buf[2048];
  const SmLimits &s = r.sm;
  std::snprintf(buf, sizeof buf,
                "Device: %s (compute capability %d.%d)\n"
                "Number of multiprocessors: %d\n"
                "Total amount of constant memory: %.2f KB\n"
                "Total amount of shared memory per block: %.2f KB (opt-in up to %.2f KB)\n"
                "Shared memory per multiprocessor: %.2f KB (%zu B reserved per block)\n"
                "Total number of registers available per block: %d\n"
                "Registers per multiprocessor: %d\n"
                "Warp size: %d\n"
                "Maximum number of threads per block: %d\n"
                "Maximum number of threads per multiprocessor: %d\n"
                "Maximum number of warps per multiprocessor: %d\n"
                "Maximum number of blocks per multiprocessor: %d\n"
                "L2 cache: %.1f MB\n"
                "Memory: %d-bit bus at %.0f MHz = %.0f GB/s theoretical\n",
                r.name.c_str(), s.cc_major, s.cc_minor, r.sm_count, r.const_mem / 1024.0,
                s.smem_per_block / 1024.0, s.smem_per_block_optin / 1024.0, s.smem_per_sm / 1024.0,
                s.reserved_smem_per_block, s.regs_per_block, s.regs_per_sm, s.warp_size, s.max_threads_per_block,
                s.max_threads_per_sm, s.warp_size ? s.max_threads_per_sm / s.warp_size : 0, s.max_blocks_per_sm,
                r.l2_bytes / 1048576.0, r.mem_bus_bits, r.mem_clock_khz / 1000.0, r.bandwidth_gbs);
  return buf;
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
