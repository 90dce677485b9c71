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
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 x = x0[i];
    const float4 k = c[i];
    // All four chains advance together: four independent fmaf per step (ILP 4).
#pragma unroll 8
    for (int s = 0; s < steps; ++s) {
      x.x = fmaf(x.x, x.x, k.x);
      x.y = fmaf(x.y, x.y, k.y);
      x.z = fmaf(x.z, x.z, k.z);
      x.w = fmaf(x.w, x.w, k.w);
    }
    out[i] = x;
  }
}

cudaError_t scheduler_view_from_device(int device, SchedulerView *out) {
  int threads_per_sm = 0, warp_size = 0;
  cudaError_t err = cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  if (err != cudaSuccess) return err;
  err = cudaDeviceGetAttribute(&warp_size, cudaDevAttrWarpSize, device);
  if (err != cudaSuccess) return err;
  SchedulerView v;
  v.schedulers_per_sm = 4;  // one per sub-partition on every arch from sm_70 on
  v.max_warps_per_sm = threads_per_sm / warp_size;
  v.max_warps_per_scheduler = v.max_warps_per_sm / v.schedulers_per_sm;
  *out = v;
  return cudaSuccess;
}

double warps_per_scheduler(double occupancy, const SchedulerView &view) {
  if (view.schedulers_per_sm <= 0) return 0.0;
  return occupancy * double(view.max_warps_per_sm) / double(view.schedulers_per_sm);
}

SchedulerPrediction predict_scheduler(double warps, int ilp, double latency_cycles) {
  SchedulerPrediction p;
  if (!(warps > 0)) return p;  // no warps: nothing issues, nothing waits
  const double W = warps;
  const double L = latency_cycles;
  const double k = double(ilp);
  double issue = 0, eligible = 0;
  if (k >= L) {
    // A warp alone has an instruction ready every cycle: it never waits on its chain.
    // The scheduler is asked for W slots; it grants at most one per cycle.
    issue = std::min(W, 1.0);
    eligible = W;
  } else {
    // u warps (L/k of them) are needed to keep the issue slot busy
    const double u = L / k;
    if (W <= u) {
      issue = std::min(1.0, W * (k / L));  // stall-bound: each warp issues k times every L cycles
      eligible = issue;
    } else {
      issue = 1.0;             // issue-bound
      eligible = W - (u - 1);  // u - 1 warps are waiting out their chain at any time
    }
  }
  p.issue_utilization = issue;
  p.eligible_warps = eligible;
  p.selected_share = issue / W;
  p.waiting_share = (W - eligible) / W;
  p.not_selected_share = 1.0 - p.selected_share - p.waiting_share;
  if (p.not_selected_share < 0) p.not_selected_share = 0;  // rounding near the boundary
  return p;
}

int warps_to_saturate(int ilp, double latency_cycles) {
  // At ILP >= latency one warp already fills every cycle.
  if (double(ilp) >= latency_cycles) return 1;
  return static_cast<int>(std::ceil(latency_cycles / double(ilp)));
}
