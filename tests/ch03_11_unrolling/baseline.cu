// Baselines the performance tests compare against. They live with the tests, so they are the same
// for every student: ch03_10's reduceInterleaved and the reference reduceUnrolling2/4, all fixed
// for any n.
#include "baseline.cuh"

namespace {
/// Interleaved pairs in place over the first `count` elements of idata (count <= blockDim.x).
__device__ void interleaved_in_place(int *idata, unsigned int count) {
  unsigned int tid = threadIdx.x;
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
}
}  // namespace

__global__ void reduceInterleavedBaseline(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int start = blockIdx.x * blockDim.x;
  interleaved_in_place(g_idata + start, min(blockDim.x, n - start));
  if (threadIdx.x == 0) g_odata[blockIdx.x] = g_idata[start];
}

__global__ void reduceUnrolling2Baseline(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int start = blockIdx.x * blockDim.x * 2, idx = start + threadIdx.x;
  if (idx + blockDim.x < n) g_idata[idx] += g_idata[idx + blockDim.x];
  __syncthreads();
  interleaved_in_place(g_idata + start, min(blockDim.x, n - start));
  if (threadIdx.x == 0) g_odata[blockIdx.x] = g_idata[start];
}

__global__ void reduceUnrolling4Baseline(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int start = blockIdx.x * blockDim.x * 4, idx = start + threadIdx.x;
  if (idx + 3 * blockDim.x < n) {
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + blockDim.x];
    int a3 = g_idata[idx + 2 * blockDim.x];
    int a4 = g_idata[idx + 3 * blockDim.x];
    g_idata[idx] = a1 + a2 + a3 + a4;
  } else if (idx < n) {
    int sum = 0;
    for (unsigned int k = 0; k < 4 && idx + k * blockDim.x < n; ++k) sum += g_idata[idx + k * blockDim.x];
    g_idata[idx] = sum;
  }
  __syncthreads();
  interleaved_in_place(g_idata + start, min(blockDim.x, n - start));
  if (threadIdx.x == 0) g_odata[blockIdx.x] = g_idata[start];
}
