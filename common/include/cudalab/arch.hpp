/// @file arch.hpp
/// @brief One sourced table of the architecture-dependent figures that the labs' models, tests and
/// READMEs use, per compute capability from 7.5 (the oldest GPU the workbook grades) to 12.0.
///
/// Sources, for every row unless its note says otherwise:
///  * [PG] CUDA C++ Programming Guide, "Compute Capabilities": "Technical Specifications per
///    Compute Capability" (resident warps, blocks and threads per SM; shared memory per SM) and
///    "Arithmetic Instructions" (results per clock cycle per SM of 32-bit floating-point add,
///    multiply, multiply-add: 64 for 7.5 and 8.0, 128 for 8.6 to 12.0);
///  * [OCC] the toolkit's cuda_occupancy.h: cudaOccSMemAllocationGranularity (256 bytes for 7.x,
///    128 from 8.0), cudaOccRegAllocationGranularity (256 registers per warp), and the 1 KiB of
///    shared memory reserved per block from 8.0 on (cudaDevAttrReservedSharedMemoryPerBlock);
///  * [TG] the Turing and Ampere Tuning Guides: four sub-partitions ("processing blocks") per SM,
///    each with its own warp scheduler and register file; on 7.x "instructions are performed over
///    two cycles" on the 16-lane FP32 units.
/// Every SM from 7.0 on has 4 schedulers, so FP32 lanes per scheduler = FP32 results per clock per
/// SM / 4, and a scheduler starts an FP32 fma of a whole warp at most every 32 / lanes cycles.
#pragma once

#include <cstddef>

namespace cudalab::arch {

/// The figures of one compute capability.
struct Figures {
  int major, minor;
  const char *examples;            ///< GPUs of this compute capability
  int fp32_lanes_per_sm;           ///< [PG] 32-bit fma results per clock per SM
  int schedulers_per_sm;           ///< [TG] warp schedulers (sub-partitions) per SM
  int max_warps_per_sm;            ///< [PG] resident warps per SM
  int max_blocks_per_sm;           ///< [PG] resident blocks per SM
  int smem_per_sm_kib;             ///< [PG] the most shared memory one SM offers (KiB)
  int smem_reserved_per_block;     ///< [OCC] bytes of shared memory reserved per block
  int smem_alloc_unit;             ///< [OCC] shared memory is given to a block in multiples of this (bytes)
  int reg_alloc_unit;              ///< [OCC] registers are given to a warp in multiples of this
};

/// The table, oldest first.
inline constexpr Figures kTable[] = {
    {7, 5, "T4, RTX 20 series, GTX 16 series", 64, 4, 32, 16, 64, 0, 256, 256},
    {8, 0, "A100, A30", 64, 4, 64, 32, 164, 1024, 128, 256},
    {8, 6, "RTX 30 series (laptops too), A10, A40", 128, 4, 48, 16, 100, 1024, 128, 256},
    {8, 7, "Jetson Orin", 128, 4, 48, 16, 164, 1024, 128, 256},
    {8, 9, "RTX 40 series (laptops too), L4, L40", 128, 4, 48, 24, 100, 1024, 128, 256},
    {9, 0, "H100, H200, GH200", 128, 4, 64, 32, 228, 1024, 128, 256},
    {10, 0, "B200, GB200", 128, 4, 64, 32, 228, 1024, 128, 256},
    // 12.0's 32 resident blocks: [PG] and the Blackwell Tuning Guide ("32 for devices of compute
    // capability 10.0 and 12.0"); CUDA 13.0's cuda_occupancy.h caps every 12.x at 24.
    {12, 0, "RTX 50 series, RTX PRO 6000 Blackwell", 128, 4, 48, 32, 100, 1024, 128, 256},
};

/// @brief The row for compute capability @p major.@p minor: the exact one, else the newest row
/// that is not newer (a GPU newer than the table takes the newest row); nullptr before 7.5.
constexpr const Figures *figures(int major, int minor) {
  const Figures *best = nullptr;
  for (const Figures &f : kTable)
    if (f.major < major || (f.major == major && f.minor <= minor)) best = &f;
  return best;
}

/// @brief FP32 fma instructions of a whole warp one scheduler can start per cycle: 1 where a
/// sub-partition has 32 FP32 lanes, 0.5 where it has 16 (7.5, 8.0: a warp's fma takes the pipe for
/// two cycles). 1 for a compute capability the table does not know.
constexpr double fp32_warp_instructions_per_cycle(int major, int minor) {
  const Figures *f = figures(major, minor);
  if (f == nullptr) return 1.0;
  const double lanes = double(f->fp32_lanes_per_sm) / f->schedulers_per_sm;
  return lanes >= 32 ? 1.0 : lanes / 32.0;
}

static_assert(figures(7, 0) == nullptr && figures(7, 5)->max_warps_per_sm == 32 && figures(8, 9)->max_blocks_per_sm == 24,
              "the table's lookup");
static_assert(figures(13, 0) == &kTable[sizeof kTable / sizeof kTable[0] - 1], "a newer GPU takes the newest row");
static_assert(fp32_warp_instructions_per_cycle(7, 5) == 0.5 && fp32_warp_instructions_per_cycle(8, 0) == 0.5 &&
                  fp32_warp_instructions_per_cycle(8, 6) == 1.0 && fp32_warp_instructions_per_cycle(9, 0) == 1.0,
              "16 FP32 lanes per scheduler on 7.5 and 8.0, 32 from 8.6 on");

}  // namespace cudalab::arch
