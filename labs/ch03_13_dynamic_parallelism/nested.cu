/// @file nested.cu
/// @brief Lab ch03_13: kernels that launch kernels (see README.md and nested.cuh).
///
/// CDP2 rules you need here:
///  * a child grid sees the memory its launching thread saw at the launch; a __syncthreads()
///    before the launch makes the writes of the whole block part of that view;
///  * device code cannot wait for a child (no cudaDeviceSynchronize() on the device);
///  * a grid launched into cudaStreamTailLaunch starts after the launching grid has completed,
///    and sees everything that grid wrote;
///  * every device-side launch can fail: check cudaGetLastError() right after it.
#include "nested.cuh"

__global__ void nestedHelloWorld(int const iSize, int iDepth, HelloRecord *record) {
  // TODO(ch03_13): every thread: record_hello(record, iDepth).
  // Then, unless iSize <= 1: thread 0 of each block launches
  //   nestedHelloWorld<<<1, iSize / 2>>>(iSize / 2, iDepth + 1, record)
  // and reports it: record_launch(record, iDepth + 1, cudaGetLastError()).
}

__global__ void gpuRecursiveReduceNosync(int *g_idata, int *g_odata, unsigned int isize) {
  // TODO(ch03_13): the book's gpuRecursiveReduceNosync, fixed for any n.
  //  - idata = this block's chunk; odata = &g_odata[blockIdx.x];
  //    count = min(blockDim.x, isize - blockIdx.x * blockDim.x)
  //  - count <= 2: thread 0 writes idata[0] (+ idata[1] if count == 2) to *odata; return
  //  - half = (count + 1) / 2; threads tid < count / 2 add idata[tid + half] into idata[tid]
  //  - __syncthreads(), then thread 0 launches gpuRecursiveReduceNosync<<<1, half>>>(idata, odata, half)
  //  - no device-side wait: the parent never reads what the child computes
}

__global__ void gpuRecursiveReduce2(int *g_idata, int *g_odata, int iStride, int const iDim, unsigned int n) {
  // TODO(ch03_13): one tree level over the whole grid, the next level tail-launched.
  //  - idata = g_idata + blockIdx.x * iDim; count = min(iDim, n - blockIdx.x * iDim)
  //  - iStride == 1: thread 0 writes idata[0] (+ idata[1] if count > 1) to g_odata[blockIdx.x]; return
  //  - if (tid + iStride < count) idata[tid] += idata[tid + iStride]
  //  - block 0, thread 0 launches the next level, iStride / 2 threads per block, same grid,
  //    into cudaStreamTailLaunch (4th launch parameter) so it starts after this whole grid
}
