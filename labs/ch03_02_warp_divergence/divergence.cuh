/// @file divergence.cuh
/// @brief Lab ch03_02 -- warp divergence (book section 3.2): the seeds' simpleDivergence kernels,
/// and a kernel whose branch arms are too long to predicate, remapped so that no warp diverges.
///
/// Every kernel here:
///  * is launched as `kernel<<<divergence_grid(n, block), block>>>(..., n)`, with `block` a
///    multiple of 64 in [64, 1024] and any n >= 1 (not only multiples of the block);
///  * writes exactly out[0, n) -- never past n - 1 (the seeds' kernels do, when n is not a
///    multiple of the block).
#pragma once

#include <cuda_runtime.h>

#include <cmath>

/// @brief Even/odd *threads*: c[i] = 100 for even i, 200 for odd i. Divergent in every warp --
/// but the arms are one move each, so the compiler predicates them (no branch at all).
__global__ void mathKernel1(float *c, int n);

/// @brief Even/odd *warps*: c[i] = 100 if (i / warpSize) is even, else 200. No warp diverges.
__global__ void mathKernel2(float *c, int n);

/// @brief mathKernel1's result, written as the seeds' mathKernel3: one bool predicate
/// `ipred = (i % 2 == 0)` and two separate `if (ipred)` / `if (!ipred)` statements.
__global__ void mathKernel3(float *c, int n);

/// @brief mathKernel2's result, written as the seeds' mathKernel4 with the warp index
/// `itid = i >> 5` -- and with the seeds' operator-precedence bug fixed (see README.md).
__global__ void mathKernel4(float *c, int n);

/// @brief Long arms, even/odd threads (given, do not change): out[i] = evenArm(in[i], iters) for
/// even i, oddArm(in[i], iters) for odd i. Every warp runs both loops one after the other, each
/// with half of its lanes masked off.
__global__ void heavyKernel1(const float *in, float *out, int n, int iters);

/// @brief Exactly heavyKernel1's results, with no divergent warp: warp w of each pair of warps
/// (2p, 2p + 1) computes the 32 even elements (w even) or the 32 odd elements (w odd) of the
/// 64 elements [64p, 64p + 64).
__global__ void heavyKernel2(const float *in, float *out, int n, int iters);

/// @brief One arm of the heavy kernels: @p iters dependent FMAs x = fmaf(x, 0.9990f, 0.5f).
__host__ __device__ inline float evenArm(float x, int iters) {
  for (int k = 0; k < iters; ++k) x = fmaf(x, 0.9990f, 0.5f);
  return x;
}

/// @brief The other arm: @p iters dependent FMAs x = fmaf(x, -0.9980f, 1.0f).
__host__ __device__ inline float oddArm(float x, int iters) {
  for (int k = 0; k < iters; ++k) x = fmaf(x, -0.9980f, 1.0f);
  return x;
}

/// @brief Blocks for n elements: ceil(n / block).
inline unsigned int divergence_grid(int n, unsigned int block) {
  return (static_cast<unsigned int>(n) + block - 1) / block;
}
