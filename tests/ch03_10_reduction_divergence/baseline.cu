// The divergent baseline the performance tests compare against: the book's reduceNeighbored,
// fixed for any n. It lives with the tests, so the baseline is the same for every student.
#include "baseline.cuh"

__global__ void reduceNeighboredBaseline(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int start = blockIdx.x * blockDim.x;
  int *idata = g_idata + start;
  unsigned int count = min(blockDim.x, n - start);
  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0 && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}
