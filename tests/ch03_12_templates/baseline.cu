// The runtime-blockDim version the template is compared with: ch03_11's reference
// reduceCompleteUnrollWarps8. It lives with the tests, so it is the same for everyone.
#include "baseline.cuh"

__global__ void reduceCompleteUnrollWarps8Baseline(int *g_idata, int *g_odata, unsigned int n) {
  __shared__ int smem[1024];
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 8 + tid;
  int sum = 0;
  if (idx + 7 * blockDim.x < n) {
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + blockDim.x];
    int a3 = g_idata[idx + 2 * blockDim.x];
    int a4 = g_idata[idx + 3 * blockDim.x];
    int b1 = g_idata[idx + 4 * blockDim.x];
    int b2 = g_idata[idx + 5 * blockDim.x];
    int b3 = g_idata[idx + 6 * blockDim.x];
    int b4 = g_idata[idx + 7 * blockDim.x];
    sum = a1 + a2 + a3 + a4 + b1 + b2 + b3 + b4;
  } else {
    for (unsigned int k = 0; k < 8 && idx + k * blockDim.x < n; ++k) sum += g_idata[idx + k * blockDim.x];
  }
  smem[tid] = sum;
  __syncthreads();
  if (blockDim.x >= 1024 && tid < 512) smem[tid] += smem[tid + 512];
  __syncthreads();
  if (blockDim.x >= 512 && tid < 256) smem[tid] += smem[tid + 256];
  __syncthreads();
  if (blockDim.x >= 256 && tid < 128) smem[tid] += smem[tid + 128];
  __syncthreads();
  if (blockDim.x >= 128 && tid < 64) smem[tid] += smem[tid + 64];
  __syncthreads();
  if (tid < 32) {
    int v = smem[tid] + smem[tid + 32];
    v += __shfl_down_sync(0xffffffffu, v, 16);
    v += __shfl_down_sync(0xffffffffu, v, 8);
    v += __shfl_down_sync(0xffffffffu, v, 4);
    v += __shfl_down_sync(0xffffffffu, v, 2);
    v += __shfl_down_sync(0xffffffffu, v, 1);
    if (tid == 0) g_odata[blockIdx.x] = v;
  }
}
