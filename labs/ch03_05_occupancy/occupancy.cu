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
  // TODO(ch03_05): fill o.limit_warps, o.limit_registers, o.limit_shared, o.limit_blocks,
  // then o.blocks_per_sm (the smallest cap), o.limiters (every cap equal to it),
  // o.warps_per_sm and o.occupancy. README.md, "The model", has every rule you need.
  (void)sm;
  (void)k;
  return o;
}

int best_block_size(const SmLimits &sm, const KernelUsage &k) {
  // TODO(ch03_05): try every multiple of the warp size up to the device's and the kernel's
  // limit; keep the one with the most active warps (ties: the larger block).
  (void)sm;
  (void)k;
  return 0;
}

cudaError_t sm_limits_from_device(int device, SmLimits *sm) {
  SmLimits s;
  // TODO(ch03_05): fill every field of s with cudaDeviceGetAttribute (cudaDevAttr...),
  // and the architecture constants from README.md's table. Return the first error.
  (void)device;
  *sm = s;
  return cudaSuccess;
}

cudaError_t device_query(int device, DeviceReport *report) {
  DeviceReport r;
  // TODO(ch03_05): the book's simpleDeviceQuery, but from cudaDeviceGetAttribute:
  // name (cudaGetDeviceProperties is fine for that), SM count, constant memory, L2,
  // memory clock and bus width, bandwidth_gbs = 2 x clock x bus width / 8, and r.sm.
  (void)device;
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
