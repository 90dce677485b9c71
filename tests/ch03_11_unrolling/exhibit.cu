// The exhibit: the book's `volatile` last warp, on shared memory. Do not copy this code.
#include "exhibit.cuh"

__global__ void reduceUnrollWarps8Volatile(int *g_idata, int *g_odata, unsigned int n) {
  __shared__ int smem[1024];
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 8 + tid;
  int sum = 0;
  for (unsigned int k = 0; k < 8 && idx + k * blockDim.x < n; ++k) sum += g_idata[idx + k * blockDim.x];
  smem[tid] = sum;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (tid < stride) smem[tid] += smem[tid + stride];
    __syncthreads();
  }
  if (tid < 32) {
    // The book's code: correct only if the 32 lanes ran in lock step, which Volta and newer do not
    // promise. Lane t reads vsmem[t + 16] while lane t + 16 may already be writing it.
    volatile int *vsmem = smem;
    vsmem[tid] += vsmem[tid + 32];
    vsmem[tid] += vsmem[tid + 16];
    vsmem[tid] += vsmem[tid + 8];
    vsmem[tid] += vsmem[tid + 4];
    vsmem[tid] += vsmem[tid + 2];
    vsmem[tid] += vsmem[tid + 1];
  }
  if (tid == 0) g_odata[blockIdx.x] = smem[0];
}
