// The kernels ch05_03 hands out, as handed out, with their own constant-memory table (a
// __constant__ variable belongs to its translation unit): the performance baselines.
#include "baseline.cuh"

#include "constant_memory.cuh"

__global__ void polynomialGlobalBaseline(const float *x, const float *coef, float *y, int n, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float xi = x[i];
    float acc = coef[count - 1];
    for (int k = count - 2; k >= 0; --k) acc = fmaf(acc, xi, coef[k]);
    y[i] = acc;
  }
}

namespace {
__constant__ float c_baseline_sets[kTableSize];
}  // namespace

cudaError_t setBaselineSets(const float *h_sets) {
  return cudaMemcpyToSymbol(c_baseline_sets, h_sets, sizeof(c_baseline_sets));
}

__global__ void lookupConstantBaseline(const float *x, const int *key, float *y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float xi = x[i];
    const int s = key[i];
    float acc = c_baseline_sets[(kSetCoefficients - 1) * kNumSets + s];
    for (int k = kSetCoefficients - 2; k >= 0; --k) acc = fmaf(acc, xi, c_baseline_sets[k * kNumSets + s]);
    y[i] = acc;
  }
}
