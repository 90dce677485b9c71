/// @file baseline.cuh
/// @brief Test-side kernels for ch03_16: a copy of the given chainsSequential (the "before" every
/// timing and profile compares with, the same for every student), and the probe kernel whose warps
/// per scheduler and ILP the prediction tests set.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

/// @brief chainsSequential as the lab gives it: per element, four fmaf chains one after another.
__global__ void chainsSequentialBaseline(const float4 *x0, const float4 *c, float4 *out, int n, int steps);

/// Steps of every chain in one probe launch (a multiple of 16: the probe's loop is unrolled by 16).
constexpr int kProbeSteps = 8192;

/// @brief The probe: thread t runs @p ilp (1, 2 or 4) independent chains q = fmaf(q, q, c) for
/// kProbeSteps steps, interleaved (one step of every chain per iteration), and writes them to
/// out[t * ilp + j]. Launched with `warps` blocks of 128 threads pinned per SM, so that every
/// scheduler holds `warps` warps of ILP `ilp`.
/// @param warps blocks of 128 threads per SM (warps per scheduler)
/// @param ilp 1, 2 or 4
/// @param sm_count the GPU's SMs (the grid is sm_count x warps blocks)
/// @param x0, c, out at least sm_count * warps * 128 * ilp floats each
/// @return the first CUDA error (cudaErrorInvalidConfiguration when the pinning fails)
cudaError_t launch_probe(int warps, int ilp, int sm_count, const float *x0, const float *c, float *out);
