#include "reduction.cuh"

// Correct alternative: each block copies its chunk to shared memory (zero-padded), then reduces
// there. The input is left untouched.
template <int kMode>
__device__ void reduce_shared(const int *g_idata, int *g_odata, unsigned int n) {
  __shared__ int s[1024];
  unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < n ? g_idata[i] : 0;
  __syncthreads();
  if (kMode == 0) {
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
      if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
      __syncthreads();
    }
  } else if (kMode == 1) {
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
      unsigned int index = 2 * stride * tid;
      if (index < blockDim.x) s[index] += s[index + stride];
      __syncthreads();
    }
  } else {
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
      if (tid < stride) s[tid] += s[tid + stride];
      __syncthreads();
    }
  }
  if (tid == 0) g_odata[blockIdx.x] = s[0];
}

__global__ void reduceNeighbored(int *g_idata, int *g_odata, unsigned int n) { reduce_shared<0>(g_idata, g_odata, n); }
__global__ void reduceNeighboredLess(int *g_idata, int *g_odata, unsigned int n) { reduce_shared<1>(g_idata, g_odata, n); }
__global__ void reduceInterleaved(int *g_idata, int *g_odata, unsigned int n) { reduce_shared<2>(g_idata, g_odata, n); }
