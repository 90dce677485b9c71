/// @file reduction.cu
/// @brief Lab ch03_10: your three reduction kernels (see README.md and reduction.cuh).
///
/// The book's versions return early with `if (idx >= n) return;` and then let the surviving
/// threads read idata[tid + stride] -- past the end of the array when n is not a multiple of the
/// block. Yours must be right for any n: only add an element that belongs to this block's chunk.
#include "reduction.cuh"

__global__ void reduceNeighbored(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int start = blockIdx.x * blockDim.x;
  int *idata = g_idata + start;
  unsigned int count = min(blockDim.x, n - start);  // elements in this block's chunk

  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0 && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceNeighboredLess(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int start = blockIdx.x * blockDim.x;
  int *idata = g_idata + start;
  unsigned int count = min(blockDim.x, n - start);

  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    unsigned int index = 2 * stride * tid;  // consecutive threads take the active pairs
    if (index + stride < count) idata[index] += idata[index + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceInterleaved(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int start = blockIdx.x * blockDim.x;
  int *idata = g_idata + start;
  unsigned int count = min(blockDim.x, n - start);

  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    unsigned int index = 2 * stride * tid;  // consecutive threads take the active pairs
    if (index + stride < count) idata[index] += idata[index + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}
