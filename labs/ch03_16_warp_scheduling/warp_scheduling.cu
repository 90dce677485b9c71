/// @file warp_scheduling.cu
/// @brief Lab ch03_16: a model of one warp scheduler (issue utilisation, eligible warps, where the
/// warps' cycles go) and a stall-bound kernel made issue-bound by interleaving its independent
/// chains (see README.md and warp_scheduling.cuh).
#include "warp_scheduling.cuh"

#include <algorithm>
#include <cmath>

__global__ void chainsSequential(const float4 *x0, const float4 *c, float4 *out, int n, int steps) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 x = x0[i];
    const float4 k = c[i];
    // One chain after another: each fmaf needs the result of the one before it.
#pragma unroll 16
    for (int s = 0; s < steps; ++s) x.x = fmaf(x.x, x.x, k.x);
#pragma unroll 16
    for (int s = 0; s < steps; ++s) x.y = fmaf(x.y, x.y, k.y);
#pragma unroll 16
    for (int s = 0; s < steps; ++s) x.z = fmaf(x.z, x.z, k.z);
#pragma unroll 16
    for (int s = 0; s < steps; ++s) x.w = fmaf(x.w, x.w, k.w);
    out[i] = x;
  }
}

__global__ void chainsInterleaved(const float4 *x0, const float4 *c, float4 *out, int n, int steps) {
  // TODO(ch03_16): chainsSequential's result (same grid-stride loop, same fmaf per chain, in
  // the same order per chain), but with ONE loop over the steps that advances all four chains
  // (x.x, x.y, x.z, x.w) by one fmaf each: four independent instructions per iteration.
  (void)x0;
  (void)c;
  (void)out;
  (void)n;
  (void)steps;
}

cudaError_t scheduler_view_from_device(int device, SchedulerView *out) {
  // TODO(ch03_16): ask cudaDeviceGetAttribute for the SM's thread limit and the warp size
  // (return its error as it is); 4 schedulers per SM; warps per SM and per scheduler from them.
  (void)device;
  (void)out;
  return cudaErrorNotYetImplemented;
}

double warps_per_scheduler(double occupancy, const SchedulerView &view) {
  // TODO(ch03_16): occupancy x warps per SM, shared by the SM's schedulers.
  (void)occupancy;
  (void)view;
  return -1;
}

SchedulerPrediction predict_scheduler(double warps, int ilp, double latency_cycles) {
  // TODO(ch03_16): the model of warp_scheduling.cuh: one warp alone issues min(1, ilp / latency)
  // per cycle; W warps ask for W times that. Stall-bound (< 1) or issue-bound (>= 1): issue
  // utilisation, eligible warps, then the three shares of the warps' cycles. All 0 for W <= 0.
  (void)warps;
  (void)ilp;
  (void)latency_cycles;
  return SchedulerPrediction{};
}

int warps_to_saturate(int ilp, double latency_cycles) {
  // TODO(ch03_16): the fewest whole warps W with W x min(1, ilp / latency) >= 1.
  (void)ilp;
  (void)latency_cycles;
  return 0;
}
