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
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    const float4 a = x0[i];
    const float4 b = c[i];
    float q[kChains] = {a.x, a.y, a.z, a.w};
    const float cc[kChains] = {b.x, b.y, b.z, b.w};
    int s = 0;
    // main part: four steps per trip, one fmaf per chain per step
    for (; s + 4 <= steps; s += 4) {
#pragma unroll
      for (int u = 0; u < 4; ++u) {
#pragma unroll
        for (int j = 0; j < kChains; ++j) q[j] = fmaf(q[j], q[j], cc[j]);
      }
    }
    // the last steps % 4 steps
    for (; s < steps; ++s) {
#pragma unroll
      for (int j = 0; j < kChains; ++j) q[j] = fmaf(q[j], q[j], cc[j]);
    }
    out[i] = make_float4(q[0], q[1], q[2], q[3]);
    i += stride;
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
  if (warps <= 0) return p;
  const double k = double(ilp);
  const double L = latency_cycles;
  const double rate = std::min(1.0, k / L);  // one warp alone: issues per cycle
  const double demand = warps * rate;        // issue slots asked of the scheduler per cycle
  if (demand <= 1.0) {
    // stall-bound: every ready warp issues at once
    p.issue_utilization = demand;
    p.eligible_warps = demand;
  } else {
    // issue-bound: the scheduler issues every cycle
    p.issue_utilization = 1.0;
    p.eligible_warps = warps - std::max(0.0, L / k - 1.0);
  }
  p.selected_share = p.issue_utilization / warps;
  p.not_selected_share = (p.eligible_warps - p.issue_utilization) / warps;
  p.waiting_share = (warps - p.eligible_warps) / warps;
  return p;
}

int warps_to_saturate(int ilp, double latency_cycles) {
  const double per_warp = std::min(double(ilp), latency_cycles);
  return int(std::ceil(latency_cycles / per_warp));
}
