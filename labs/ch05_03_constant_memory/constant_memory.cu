/// @file constant_memory.cu
/// @brief Lab ch05_03: constant memory for uniform reads, global memory for non-uniform ones (see
/// README.md and constant_memory.cuh).
#include "constant_memory.cuh"

// ---------------------------------------------------------------------------------------------
// Uniform coefficients: one polynomial for every element.
// ---------------------------------------------------------------------------------------------

// TODO(ch05_03): declare the coefficient array in constant memory here, at file scope:
// a __constant__ array of kMaxCoefficients floats. setCoefficients writes it,
// polynomialConstant reads it.

cudaError_t setCoefficients(const float *h_coef, int count) {
  // TODO(ch05_03): return cudaErrorInvalidValue when h_coef is null or count is not in
  // [1, kMaxCoefficients] -- before copying anything. Otherwise copy count floats into
  // your __constant__ array with cudaMemcpyToSymbol(symbol, src, bytes) (the symbol is
  // the variable itself, not a pointer or a string) and return its error.
  (void)h_coef;
  (void)count;
  return cudaErrorNotYetImplemented;
}

__global__ void polynomialConstant(const float *x, float *y, int n, int count) {
  // TODO(ch05_03): one element per thread (i = blockIdx.x * blockDim.x + threadIdx.x,
  // nothing to do when i >= n). Horner's rule from the highest coefficient down:
  // acc = c[count - 1], then acc = acc * x[i] + c[k] for k = count - 2 down to 0 (fmaf).
  // Read c[k] from your __constant__ array; store y[i] = acc.
}

__global__ void polynomialGlobal(const float *x, const float *coef, float *y, int n, int count) {
  // Given: every thread loads every coefficient from global memory. The lanes read the same
  // address: one load instruction per coefficient per warp, an L1 hit -- cheap, but all of them go
  // through the load/store units, next to the loads of x and every other memory access.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float xi = x[i];
    float acc = coef[count - 1];
    for (int k = count - 2; k >= 0; --k) acc = fmaf(acc, xi, coef[k]);
    y[i] = acc;
  }
}

// ---------------------------------------------------------------------------------------------
// Non-uniform coefficients: each element picks one of kNumSets polynomials by its key.
// ---------------------------------------------------------------------------------------------

/// The table of lookupConstant (coefficient k of set s at [k * kNumSets + s]).
__constant__ float c_sets[kTableSize];

cudaError_t setCoefficientSets(const float *h_sets) { return cudaMemcpyToSymbol(c_sets, h_sets, sizeof(c_sets)); }

__global__ void lookupConstant(const float *x, const int *key, float *y, int n) {
  // Given: correct, but the address c_sets[k * kNumSets + s] differs from lane to lane, and the
  // constant cache serves one address at a time. Run the demo to see what that costs.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float xi = x[i];
    const int s = key[i];
    float acc = c_sets[(kSetCoefficients - 1) * kNumSets + s];
    for (int k = kSetCoefficients - 2; k >= 0; --k) acc = fmaf(acc, xi, c_sets[k * kNumSets + s]);
    y[i] = acc;
  }
}

__global__ void lookupGlobal(const float *x, const int *key, const float *__restrict__ sets, float *y, int n) {
  // TODO(ch05_03): lookupConstant's computation, with the table read from `sets` in
  // global memory (coefficient k of set s is sets[k * kNumSets + s]) through the read-only
  // path: __ldg(&sets[...]). Guard i < n.
  (void)x;
  (void)key;
  (void)sets;
  (void)y;
  (void)n;
}
