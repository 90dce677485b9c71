// Test-side kernels for ch03_16: the baseline copy of chainsSequential and the probe of the
// prediction tests. Kept here, not in the student's file, so that the same code is measured for
// every student.
#include "baseline.cuh"
#include "cudalab/launch.cuh"
#include "warp_scheduling.cuh"

__global__ void chainsSequentialBaseline(const float4 *x0, const float4 *c, float4 *out, int n, int steps) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 x = x0[i];
    const float4 k = c[i];
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

namespace {

// Thread t: K chains, interleaved. The loop runs 16 steps per iteration, so the loop counter and
// branch are about 3 instructions per 16 K fmaf: the scheduler sees (almost) only the chains.
template <int K>
__global__ void chainsProbe(const float *x0, const float *c, float *out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float x[K], k[K];
#pragma unroll
  for (int j = 0; j < K; ++j) x[j] = x0[t * K + j], k[j] = c[t * K + j];
  for (int s = 0; s < kProbeSteps; s += 16) {
#pragma unroll
    for (int u = 0; u < 16; ++u)
#pragma unroll
      for (int j = 0; j < K; ++j) x[j] = fmaf(x[j], x[j], k[j]);
  }
#pragma unroll
  for (int j = 0; j < K; ++j) out[t * K + j] = x[j];
}

template <int K>
cudaError_t launch_probe_k(int warps, int sm_count, const float *x0, const float *c, float *out) {
  std::size_t dyn = 0;
  const cudaError_t err = pin_blocks_per_sm((const void *)chainsProbe<K>, kChainsBlock, warps, &dyn);
  if (err != cudaSuccess) return err;
  cudalab::launch(chainsProbe<K>, unsigned(sm_count * warps), kChainsBlock, dyn)(x0, c, out);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_probe(int warps, int ilp, int sm_count, const float *x0, const float *c, float *out) {
  switch (ilp) {
    case 1: return launch_probe_k<1>(warps, sm_count, x0, c, out);
    case 2: return launch_probe_k<2>(warps, sm_count, x0, c, out);
    case 4: return launch_probe_k<4>(warps, sm_count, x0, c, out);
    default: return cudaErrorInvalidValue;
  }
}
