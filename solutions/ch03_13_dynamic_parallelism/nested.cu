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
  // BEGIN SOLUTION
  record_hello(record, iDepth);
  if (iSize <= 1) return;  // the book's `if (iSize == 1) return;`
  const int nthreads = iSize >> 1;
  if (threadIdx.x == 0 && nthreads > 0) {
    nestedHelloWorld<<<1, nthreads>>>(nthreads, iDepth + 1, record);
    record_launch(record, iDepth + 1, cudaGetLastError());
  }
  // STUB: // TODO(ch03_13): every thread: record_hello(record, iDepth).
  // STUB: // Then, unless iSize <= 1: thread 0 of each block launches
  // STUB: //   nestedHelloWorld<<<1, iSize / 2>>>(iSize / 2, iDepth + 1, record)
  // STUB: // and reports it: record_launch(record, iDepth + 1, cudaGetLastError()).
  // END SOLUTION
}

__global__ void gpuRecursiveReduceNosync(int *g_idata, int *g_odata, unsigned int isize) {
  // BEGIN SOLUTION
  const unsigned int tid = threadIdx.x;
  const unsigned int start = blockIdx.x * blockDim.x;
  int *idata = g_idata + start;
  int *odata = &g_odata[blockIdx.x];
  const unsigned int count = min(blockDim.x, isize - start);  // elements of this block's chunk

  if (count <= 2) {  // the book stops at two elements; one is possible for a ragged n
    if (tid == 0) *odata = idata[0] + (count == 2 ? idata[1] : 0);
    return;  // the whole block returns: no barrier follows
  }
  const unsigned int half = (count + 1) / 2;  // the child reduces idata[0, half)
  if (tid < count / 2) idata[tid] += idata[tid + half];
  __syncthreads();  // the child must see the whole block's additions, not only thread 0's
  if (tid == 0) {
    gpuRecursiveReduceNosync<<<1, half>>>(idata, odata, half);
    // A failed launch leaves *odata unwritten; the host sees the poison value.
  }
  // STUB: // TODO(ch03_13): the book's gpuRecursiveReduceNosync, fixed for any n.
  // STUB: //  - idata = this block's chunk; odata = &g_odata[blockIdx.x];
  // STUB: //    count = min(blockDim.x, isize - blockIdx.x * blockDim.x)
  // STUB: //  - count <= 2: thread 0 writes idata[0] (+ idata[1] if count == 2) to *odata; return
  // STUB: //  - half = (count + 1) / 2; threads tid < count / 2 add idata[tid + half] into idata[tid]
  // STUB: //  - __syncthreads(), then thread 0 launches gpuRecursiveReduceNosync<<<1, half>>>(idata, odata, half)
  // STUB: //  - no device-side wait: the parent never reads what the child computes
  // END SOLUTION
}

__global__ void gpuRecursiveReduce2(int *g_idata, int *g_odata, int iStride, int const iDim, unsigned int n) {
  // BEGIN SOLUTION
  const unsigned int tid = threadIdx.x;
  const unsigned int start = blockIdx.x * static_cast<unsigned int>(iDim);
  int *idata = g_idata + start;
  const unsigned int count = min(static_cast<unsigned int>(iDim), n - start);
  const unsigned int stride = static_cast<unsigned int>(iStride);

  if (stride == 1) {  // last level: two elements left per block
    if (tid == 0) g_odata[blockIdx.x] = idata[0] + (count > 1 ? idata[1] : 0);
    return;
  }
  if (tid + stride < count) idata[tid] += idata[tid + stride];
  // No barrier and no wait: the next level is a tail launch, which starts only after EVERY block
  // of this grid has finished (the book's fire-and-forget launch here races with other blocks).
  if (tid == 0 && blockIdx.x == 0) {
    gpuRecursiveReduce2<<<gridDim.x, iStride / 2, 0, cudaStreamTailLaunch>>>(g_idata, g_odata, iStride / 2, iDim, n);
  }
  // STUB: // TODO(ch03_13): one tree level over the whole grid, the next level tail-launched.
  // STUB: //  - idata = g_idata + blockIdx.x * iDim; count = min(iDim, n - blockIdx.x * iDim)
  // STUB: //  - iStride == 1: thread 0 writes idata[0] (+ idata[1] if count > 1) to g_odata[blockIdx.x]; return
  // STUB: //  - if (tid + iStride < count) idata[tid] += idata[tid + iStride]
  // STUB: //  - block 0, thread 0 launches the next level, iStride / 2 threads per block, same grid,
  // STUB: //    into cudaStreamTailLaunch (4th launch parameter) so it starts after this whole grid
  // END SOLUTION
}
