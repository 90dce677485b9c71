/// @file apart_codecs.hpp
/// @brief How a DeviceReport (a string and numbers) travels from the process that runs the lab's
/// device_query to the test program (cudalab/apart.hpp; included by the generated
/// cudalab_apart_occupancy.hpp). Every member is listed: a member added to DeviceReport is added here.
#pragma once

#include "cudalab/apart.hpp"
#include "occupancy.cuh"

template <>
struct cudalab::apart::Codec<DeviceReport>
    : cudalab::apart::Fields<DeviceReport, &DeviceReport::name, &DeviceReport::sm_count, &DeviceReport::const_mem,
                             &DeviceReport::l2_bytes, &DeviceReport::mem_clock_khz, &DeviceReport::mem_bus_bits,
                             &DeviceReport::bandwidth_gbs, &DeviceReport::sm> {};
