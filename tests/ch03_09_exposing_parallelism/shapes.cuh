/// @file shapes.cuh
/// @brief Test support for ch03_09: the device's limits as the runtime reports them, the
/// block shapes the sweep measures, an independent validity check, and the reference kernel the
/// heuristic is timed with (so a slow student kernel does not change which shape is best).
#pragma once

#include "parallelism.cuh"

#include <string>
#include <vector>

/// @brief The H100's launch limits (sm_90), for the host tests.
LaunchLimits h100_limits();

/// @brief The limits of device 0 straight from cudaDeviceGetAttribute (independent of yours).
cudaError_t runtime_limits(LaunchLimits *limits);

/// @brief The shapes of the seeds' sweep in their order, (256,8) included.
std::vector<dim3> seeds_sweep();

/// @brief Every (bx, by) with bx in 16..1024, by in 1..64 (powers of two), 64 <= bx * by <= 1024.
std::vector<dim3> candidate_shapes();

/// @brief "" if @p block with grid_for(nx, ny, block) is valid for @p limits, else why not.
std::string invalid_reason(const LaunchLimits &limits, int nx, int ny, dim3 block);

/// @brief The seeds' sumMatrixOnGPU2D, test-side: the kernel the heuristic's pick is timed with.
__global__ void sumMatrixReference(const float *A, const float *B, float *C, int nx, int ny);
