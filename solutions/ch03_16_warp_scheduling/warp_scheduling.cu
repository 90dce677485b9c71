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
  // BEGIN SOLUTION
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 x = x0[i];
    const float4 k = c[i];
    // One step of every chain per iteration: four independent fmaf in a row (ILP 4). The compiler
    // unrolls the loop, so the counter and branch take few of the issue slots.
    for (int s = 0; s < steps; ++s) {
      x.x = fmaf(x.x, x.x, k.x);
      x.y = fmaf(x.y, x.y, k.y);
      x.z = fmaf(x.z, x.z, k.z);
      x.w = fmaf(x.w, x.w, k.w);
    }
    out[i] = x;
  }
  // STUB: // TODO(ch03_16): chainsSequential's result (same grid-stride loop, same fmaf per chain, in
  // STUB: // the same order per chain), but with ONE loop over the steps that advances all four chains
  // STUB: // (x.x, x.y, x.z, x.w) by one fmaf each: four independent instructions per iteration.
  // STUB: (void)x0;
  // STUB: (void)c;
  // STUB: (void)out;
  // STUB: (void)n;
  // STUB: (void)steps;
  // END SOLUTION
}

cudaError_t scheduler_view_from_device(int device, SchedulerView *out) {
  // BEGIN SOLUTION
  int threads = 0, warp = 0;
  cudaError_t err = cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device);
  if (err != cudaSuccess) return err;
  SchedulerView v;
  v.schedulers_per_sm = 4;  // sm_70 and later: four sub-partitions, one scheduler each
  v.max_warps_per_sm = threads / warp;
  v.max_warps_per_scheduler = v.max_warps_per_sm / v.schedulers_per_sm;
  *out = v;
  return cudaSuccess;
  // STUB: // TODO(ch03_16): ask cudaDeviceGetAttribute for the SM's thread limit and the warp size
  // STUB: // (return its error as it is); 4 schedulers per SM; warps per SM and per scheduler from them.
  // STUB: (void)device;
  // STUB: (void)out;
  // STUB: return cudaErrorNotYetImplemented;
  // END SOLUTION
}

double warps_per_scheduler(double occupancy, const SchedulerView &view) {
  // BEGIN SOLUTION
  return occupancy * view.max_warps_per_sm / view.schedulers_per_sm;
  // STUB: // TODO(ch03_16): occupancy x warps per SM, shared by the SM's schedulers.
  // STUB: (void)occupancy;
  // STUB: (void)view;
  // STUB: return -1;
  // END SOLUTION
}

SchedulerPrediction predict_scheduler(double warps, int ilp, double latency_cycles) {
  // BEGIN SOLUTION
  SchedulerPrediction p;
  if (warps <= 0) return p;
  const double per_warp = std::min(1.0, ilp / latency_cycles);  // one warp alone: issues per cycle
  const double demand = warps * per_warp;
  if (demand <= 1) {
    p.issue_utilization = demand;  // stall-bound: every ready warp issues at once
    p.eligible_warps = demand;
  } else {
    p.issue_utilization = 1;  // issue-bound: one instruction per cycle
    p.eligible_warps = warps - std::max(0.0, latency_cycles / ilp - 1);
  }
  p.selected_share = p.issue_utilization / warps;
  p.not_selected_share = (p.eligible_warps - p.issue_utilization) / warps;
  p.waiting_share = (warps - p.eligible_warps) / warps;
  return p;
  // STUB: // TODO(ch03_16): the model of warp_scheduling.cuh: one warp alone issues min(1, ilp / latency)
  // STUB: // per cycle; W warps ask for W times that. Stall-bound (< 1) or issue-bound (>= 1): issue
  // STUB: // utilisation, eligible warps, then the three shares of the warps' cycles. All 0 for W <= 0.
  // STUB: (void)warps;
  // STUB: (void)ilp;
  // STUB: (void)latency_cycles;
  // STUB: return SchedulerPrediction{};
  // END SOLUTION
}

int warps_to_saturate(int ilp, double latency_cycles) {
  // BEGIN SOLUTION
  return static_cast<int>(std::ceil(latency_cycles / std::min(double(ilp), latency_cycles)));
  // STUB: // TODO(ch03_16): the fewest whole warps W with W x min(1, ilp / latency) >= 1.
  // STUB: (void)ilp;
  // STUB: (void)latency_cycles;
  // STUB: return 0;
  // END SOLUTION
}
