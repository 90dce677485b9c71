/// @file unrolling.cu
/// @brief Lab ch03_11: your five unrolled reduction kernels (see README.md and unrolling.cuh).
///
/// Two things the book's code gets wrong, and yours must not:
///  * `if (idx + 7 * blockDim.x < n)` skips the whole unrolling step for a thread whose eight
///    elements are not all there, so the tail of the array is never summed when n is not a multiple
///    of 8 * blockDim.x. Add every element that exists (idx + k * blockDim.x < n).
///  * the last warp with a `volatile` pointer and no barrier is a data race on Volta and newer
///    (independent thread scheduling: the lanes of a warp are not in lock step). Use __syncwarp()
///    between the steps, or __shfl_down_sync.
#include "unrolling.cuh"

__global__ void reduceUnrolling2(int *g_idata, int *g_odata, unsigned int n) {
  // BEGIN SOLUTION
  unsigned int tid = threadIdx.x;
  unsigned int start = blockIdx.x * blockDim.x * 2;
  unsigned int idx = start + tid;
  int *idata = g_idata + start;

  // unroll: add the second data block onto the first (if that element exists)
  if (idx + blockDim.x < n) g_idata[idx] += g_idata[idx + blockDim.x];
  __syncthreads();

  // column tid holds a value only if its first element exists
  unsigned int count = min(blockDim.x, n - start);
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
  // STUB: // TODO(ch03_11): block b owns 2 * blockDim.x elements starting at start = b * 2 * blockDim.x.
  // STUB: //  - idx = start + tid: if idx + blockDim.x < n, add g_idata[idx + blockDim.x] into g_idata[idx]
  // STUB: //  - __syncthreads(), then the interleaved loop of ch03_10 over the first blockDim.x elements,
  // STUB: //    guarded with count = min(blockDim.x, n - start)
  // STUB: //  - thread 0 writes idata[0] to g_odata[blockIdx.x]
  // END SOLUTION
}

__global__ void reduceUnrolling4(int *g_idata, int *g_odata, unsigned int n) {
  // BEGIN SOLUTION
  unsigned int tid = threadIdx.x;
  unsigned int start = blockIdx.x * blockDim.x * 4;
  unsigned int idx = start + tid;
  int *idata = g_idata + start;

  if (idx + 3 * blockDim.x < n) {  // all four elements exist: four independent loads
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + blockDim.x];
    int a3 = g_idata[idx + 2 * blockDim.x];
    int a4 = g_idata[idx + 3 * blockDim.x];
    g_idata[idx] = a1 + a2 + a3 + a4;
  } else if (idx < n) {  // the ragged last chunk: add the ones that exist
    int sum = 0;
    for (unsigned int k = 0; k < 4 && idx + k * blockDim.x < n; ++k) sum += g_idata[idx + k * blockDim.x];
    g_idata[idx] = sum;
  }
  __syncthreads();

  unsigned int count = min(blockDim.x, n - start);
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
  // STUB: // TODO(ch03_11): as reduceUnrolling2 with four data blocks: when all four elements exist
  // STUB: // (idx + 3 * blockDim.x < n) load them into four registers, then store their sum to g_idata[idx];
  // STUB: // otherwise (the last chunk) add only the elements idx + k * blockDim.x < n.
  // END SOLUTION
}

__global__ void reduceUnrolling8(int *g_idata, int *g_odata, unsigned int n) {
  // BEGIN SOLUTION
  unsigned int tid = threadIdx.x;
  unsigned int start = blockIdx.x * blockDim.x * 8;
  unsigned int idx = start + tid;
  int *idata = g_idata + start;

  if (idx + 7 * blockDim.x < n) {
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + blockDim.x];
    int a3 = g_idata[idx + 2 * blockDim.x];
    int a4 = g_idata[idx + 3 * blockDim.x];
    int b1 = g_idata[idx + 4 * blockDim.x];
    int b2 = g_idata[idx + 5 * blockDim.x];
    int b3 = g_idata[idx + 6 * blockDim.x];
    int b4 = g_idata[idx + 7 * blockDim.x];
    g_idata[idx] = a1 + a2 + a3 + a4 + b1 + b2 + b3 + b4;
  } else if (idx < n) {
    int sum = 0;
    for (unsigned int k = 0; k < 8 && idx + k * blockDim.x < n; ++k) sum += g_idata[idx + k * blockDim.x];
    g_idata[idx] = sum;
  }
  __syncthreads();

  unsigned int count = min(blockDim.x, n - start);
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
  // STUB: // TODO(ch03_11): as reduceUnrolling4 with eight data blocks (eight independent loads).
  // END SOLUTION
}

__global__ void reduceUnrollWarps8(int *g_idata, int *g_odata, unsigned int n) {
  // BEGIN SOLUTION
  __shared__ int smem[1024];
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 8 + tid;

  // unroll 8 into a register, then stage the column sum in shared memory (0 if it has no element)
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

  for (unsigned int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (tid < stride) smem[tid] += smem[tid + stride];
    __syncthreads();
  }

  // the last warp: no block barrier, but every read of a neighbour's element is separated from
  // that neighbour's next write by __syncwarp()
  if (tid < 32) {
    int v = smem[tid] + smem[tid + 32];
    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
      __syncwarp();
      smem[tid] = v;
      __syncwarp();
      v += smem[tid + offset];
    }
    if (tid == 0) g_odata[blockIdx.x] = v;
  }
  // STUB: // TODO(ch03_11): reduceUnrolling8, reworked so the warp-level steps can be checked:
  // STUB: //  - __shared__ int smem[1024]; each thread adds its (up to) eight elements in a register
  // STUB: //    and stores the sum to smem[tid] (0 if it has none); __syncthreads()
  // STUB: //  - interleaved loop on smem while stride > 32, with __syncthreads()
  // STUB: //  - warp 0 (tid < 32) adds smem[tid + 32], 16, 8, 4, 2, 1 without a block barrier, but with
  // STUB: //    __syncwarp() between reading a neighbour's element and writing your own (or use
  // STUB: //    __shfl_down_sync) -- NOT the book's volatile pointer (see README.md)
  // STUB: //  - thread 0 writes the block's sum to g_odata[blockIdx.x]
  // END SOLUTION
}

__global__ void reduceCompleteUnrollWarps8(int *g_idata, int *g_odata, unsigned int n) {
  // BEGIN SOLUTION
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

  // the interleaved loop, completely unrolled (blockDim.x is a power of two in [64, 1024])
  if (blockDim.x >= 1024 && tid < 512) smem[tid] += smem[tid + 512];
  __syncthreads();
  if (blockDim.x >= 512 && tid < 256) smem[tid] += smem[tid + 256];
  __syncthreads();
  if (blockDim.x >= 256 && tid < 128) smem[tid] += smem[tid + 128];
  __syncthreads();
  if (blockDim.x >= 128 && tid < 64) smem[tid] += smem[tid + 64];
  __syncthreads();

  // the last warp with register shuffles: no shared memory, so nothing to race on
  if (tid < 32) {
    int v = smem[tid] + smem[tid + 32];
    v += __shfl_down_sync(0xffffffffu, v, 16);
    v += __shfl_down_sync(0xffffffffu, v, 8);
    v += __shfl_down_sync(0xffffffffu, v, 4);
    v += __shfl_down_sync(0xffffffffu, v, 2);
    v += __shfl_down_sync(0xffffffffu, v, 1);
    if (tid == 0) g_odata[blockIdx.x] = v;
  }
  // STUB: // TODO(ch03_11): reduceUnrollWarps8 with the stride loop written out: one step
  // STUB: // `if (blockDim.x >= S && tid < S / 2) smem[tid] += smem[tid + S / 2];` for S = 1024, 512, 256, 128,
  // STUB: // each followed by __syncthreads() (outside the if: every thread must reach it); then the same
  // STUB: // race-free last-warp step.
  // END SOLUTION
}
