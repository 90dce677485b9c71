/// @file apart_codecs.hpp
/// @brief How a cudalab::DeviceInfo (a string and numbers) travels to the process that runs the
/// lab's device_figures (cudalab/apart.hpp; included by the generated cudalab_apart_intensity.hpp).
/// Every member is listed: a member added to DeviceInfo is added here.
#pragma once

#include "cudalab/apart.hpp"
#include "cudalab/device.cuh"

template <>
struct cudalab::apart::Codec<cudalab::DeviceInfo>
    : cudalab::apart::Fields<
          cudalab::DeviceInfo, &cudalab::DeviceInfo::device, &cudalab::DeviceInfo::name, &cudalab::DeviceInfo::cc_major,
          &cudalab::DeviceInfo::cc_minor, &cudalab::DeviceInfo::sm_count, &cudalab::DeviceInfo::warp_size,
          &cudalab::DeviceInfo::max_threads_per_block, &cudalab::DeviceInfo::max_threads_per_sm,
          &cudalab::DeviceInfo::max_warps_per_sm, &cudalab::DeviceInfo::max_blocks_per_sm,
          &cudalab::DeviceInfo::regs_per_sm, &cudalab::DeviceInfo::regs_per_block, &cudalab::DeviceInfo::smem_per_sm,
          &cudalab::DeviceInfo::smem_per_block, &cudalab::DeviceInfo::smem_per_block_optin,
          &cudalab::DeviceInfo::reserved_smem_per_block, &cudalab::DeviceInfo::l2_bytes,
          &cudalab::DeviceInfo::sm_clock_khz, &cudalab::DeviceInfo::mem_clock_khz, &cudalab::DeviceInfo::mem_bus_bits,
          &cudalab::DeviceInfo::runtime_version, &cudalab::DeviceInfo::driver_version> {};
