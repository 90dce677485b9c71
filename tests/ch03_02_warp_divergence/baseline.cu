// The divergent baseline of the performance test and of the profile: heavyKernel1 as given in
// the lab (even/odd threads, each arm a loop of dependent FMAs), kept with the tests.
#include "divergence_check.cuh"

namespace {
__device__ float baselineEvenArm(float x, int iters) {
  for (int k = 0; k < iters; ++k) x = fmaf(x, 0.9990f, 0.5f);
  return x;
}
__device__ float baselineOddArm(float x, int iters) {
  for (int k = 0; k < iters; ++k) x = fmaf(x, -0.9980f, 1.0f);
  return x;
}
}  // namespace

__global__ void heavyDivergentBaseline(const float *in, float *out, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i % 2 == 0) {
    out[i] = baselineEvenArm(in[i], iters);
  } else {
    out[i] = baselineOddArm(in[i], iters);
  }
}
