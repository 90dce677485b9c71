/// @file occupancy.cuh
/// @brief Lab ch03_05 -- occupancy (book section 3.5): a deviceQuery report from device
/// attributes and an occupancy calculator that models what the hardware really allocates.
///
/// occupancy = active warps per SM / maximum warps per SM. Four resources cap the resident
/// blocks of a kernel on one SM; the smallest cap wins (and is "the limiter"):
///   warps       max warps per SM / warps per block
///   registers   registers are allocated per warp, in units of 256, from each of the SM's
///               4 sub-partitions (one per warp scheduler) separately
///   shared mem  (static + dynamic + reserved per block) rounded up to the allocation unit
///   blocks      the per-SM block limit of the architecture
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

/// @brief What one SM can hold. From the device (sm_limits_from_device) or, in the host tests,
/// a synthetic device of a given architecture.
struct SmLimits {
  int cc_major = 0, cc_minor = 0;         ///< compute capability
  int warp_size = 32;                     ///< threads per warp
  int max_threads_per_block = 1024;       ///< launch limit per block
  int max_threads_per_sm = 0;             ///< resident threads per SM (2048 on sm_80/90)
  int max_blocks_per_sm = 0;              ///< resident blocks per SM (16, 24 or 32)
  int regs_per_sm = 0;                    ///< 32-bit registers per SM (65536)
  int regs_per_block = 0;                 ///< registers one block may use (65536)
  int max_regs_per_thread = 255;          ///< compiler limit per thread
  int reg_alloc_unit = 256;               ///< registers are given to a warp in multiples of this
  int sub_partitions = 4;                 ///< warp schedulers per SM; registers are split among them
  std::size_t smem_per_sm = 0;            ///< shared memory per SM (bytes)
  std::size_t smem_per_block = 0;         ///< default per-block limit (48 KB)
  std::size_t smem_per_block_optin = 0;   ///< per-block limit after cudaFuncSetAttribute opt-in
  std::size_t reserved_smem_per_block = 0;///< shared memory the system reserves per block (1 KB on sm_80+)
  std::size_t smem_alloc_unit = 128;      ///< allocation granularity (128 B on sm_80+, 256 B on sm_7x)
};

/// @brief What one kernel launch needs (cudaFuncGetAttributes + the launch configuration).
struct KernelUsage {
  int threads_per_block = 0;        ///< blockDim.x * blockDim.y * blockDim.z
  int regs_per_thread = 0;          ///< cudaFuncAttributes::numRegs
  std::size_t static_smem = 0;      ///< cudaFuncAttributes::sharedSizeBytes
  std::size_t dynamic_smem = 0;     ///< third launch parameter
  bool smem_opt_in = false;         ///< the kernel raised its dynamic shared memory limit
  int max_threads_per_block = 0;    ///< cudaFuncAttributes::maxThreadsPerBlock (0: no kernel limit)
};

/// @brief Bits of Occupancy::limiters (same values as cudaOccLimitingFactor in cuda_occupancy.h).
enum Limiter : unsigned {
  kLimitWarps = 0x1,         ///< warp (thread) slots of the SM
  kLimitRegisters = 0x2,     ///< register file
  kLimitSharedMemory = 0x4,  ///< shared memory
  kLimitBlocks = 0x8,        ///< per-SM block limit
};

/// @brief Result of the occupancy calculation.
struct Occupancy {
  int blocks_per_sm = 0;     ///< resident blocks per SM (0: the block cannot run at all)
  int warps_per_sm = 0;      ///< blocks_per_sm x warps per block
  double occupancy = 0.0;    ///< warps_per_sm / max warps per SM
  unsigned limiters = 0;     ///< every resource whose cap equals blocks_per_sm (Limiter bits)
  int limit_warps = 0;       ///< cap from warp slots
  int limit_registers = 0;   ///< cap from registers (INT_MAX when the kernel uses none)
  int limit_shared = 0;      ///< cap from shared memory (INT_MAX when the kernel uses none)
  int limit_blocks = 0;      ///< cap from the per-SM block limit
};

/// @brief Resident blocks, warps and the limiting resources for @p k on an SM described by @p sm.
Occupancy compute_occupancy(const SmLimits &sm, const KernelUsage &k);

/// @brief The block size (a multiple of the warp size, up to the device and kernel limits) with
/// the highest occupancy for a kernel with @p k's registers and shared memory
/// (k.threads_per_block is ignored). Ties go to the larger block, as in
/// cudaOccupancyMaxPotentialBlockSize. Returns 0 if no block size can run.
int best_block_size(const SmLimits &sm, const KernelUsage &k);

/// @brief SmLimits of @p device from cudaDeviceGetAttribute, plus the allocation constants of
/// its architecture (see README.md). Returns the first CUDA error.
cudaError_t sm_limits_from_device(int device, SmLimits *sm);

/// @brief The book's simpleDeviceQuery, from attributes (CUDA 13 removed
/// cudaDeviceProp::clockRate, memoryClockRate, ...).
struct DeviceReport {
  std::string name;               ///< device name
  int sm_count = 0;               ///< multiprocessors
  std::size_t const_mem = 0;      ///< total constant memory (bytes)
  std::size_t l2_bytes = 0;       ///< L2 cache (bytes)
  int mem_clock_khz = 0;          ///< peak memory clock (kHz)
  int mem_bus_bits = 0;           ///< memory bus width (bits)
  double bandwidth_gbs = 0.0;     ///< theoretical: 2 x clock x bus width / 8
  SmLimits sm;                    ///< per-SM limits
};

/// @brief Fills @p report for @p device. Returns the first CUDA error.
cudaError_t device_query(int device, DeviceReport *report);

/// @brief The report as text, in the book's simpleDeviceQuery layout (plus what it lacks).
std::string format_device_report(const DeviceReport &report);

/// @brief "registers", "shared memory + warps", ... for Limiter bits.
std::string limiter_names(unsigned limiters);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_occupancy.hpp")
#include "cudalab_apart_occupancy.hpp"
#endif
