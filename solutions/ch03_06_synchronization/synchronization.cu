/// @file synchronization.cu
/// @brief Lab ch03_06: your barriers, your error-checking wrapper and your two-launch pipeline
/// (see README.md and synchronization.cuh).
#include "synchronization.cuh"

#include <climits>

__global__ void reverseBlock(const int *in, int *out, unsigned int n) {
  extern __shared__ int tile[];  // blockDim.x ints
  // BEGIN SOLUTION
  const unsigned int tid = threadIdx.x;
  const unsigned int start = blockIdx.x * blockDim.x;
  const unsigned int count = min(blockDim.x, n - start);  // elements in this block's chunk
  if (tid < count) tile[tid] = in[start + tid];
  __syncthreads();  // RAW: thread tid reads tile[count - 1 - tid], written by another warp
  if (tid < count) out[start + tid] = tile[count - 1 - tid];
  // STUB: // TODO(ch03_06): stage the chunk in tile[], then write it back reversed.
  // STUB: //  - count = min(blockDim.x, n - start): the last block's chunk is shorter
  // STUB: //  - tile[tid] = in[start + tid] (tid < count); out[start + tid] = tile[count - 1 - tid]
  // STUB: //  - where does the barrier go, and why is one enough? No thread may return early.
  // STUB: (void)in, (void)out, (void)n, (void)tile;
  // END SOLUTION
}

__global__ void smoothTile(const unsigned int *in, unsigned int *out, unsigned int n, int steps) {
  extern __shared__ unsigned int t[];  // blockDim.x values
  // BEGIN SOLUTION
  const unsigned int tid = threadIdx.x;
  const unsigned int start = blockIdx.x * blockDim.x;
  const unsigned int count = min(blockDim.x, n - start);
  t[tid] = tid < count ? in[start + tid] : 0u;  // the tail of the last block holds zeros
  __syncthreads();  // RAW: the loads are visible before anyone reads a neighbour
  for (int s = 0; s < steps; ++s) {
    unsigned int v = 0;
    if (tid < count) {
      const unsigned int left = tid > 0 ? t[tid - 1] : 0u;
      const unsigned int right = tid + 1 < count ? t[tid + 1] : 0u;
      v = left + t[tid] + right;
    }
    __syncthreads();  // WAR: both neighbours have read t[tid] before it is overwritten
    if (tid < count) t[tid] = v;
    __syncthreads();  // RAW: this step's values are visible before the next step reads them
  }
  if (tid < count) out[start + tid] = t[tid];
  // STUB: // TODO(ch03_06): load the chunk into t[] (0 past count), then `steps` times replace
  // STUB: // every t[i] (i < count) by t[i - 1] + t[i] + t[i + 1] (0 outside the chunk), in place,
  // STUB: // and write the chunk out. Every thread must reach every barrier: no early return.
  // STUB: (void)in, (void)out, (void)n, (void)steps, (void)t;
  // END SOLUTION
}

__global__ void blockMin(const int *in, int *partial, unsigned int n) {
  extern __shared__ int m[];  // blockDim.x ints
  // BEGIN SOLUTION
  const unsigned int tid = threadIdx.x;
  const unsigned int i = blockIdx.x * blockDim.x + tid;
  m[tid] = i < n ? in[i] : INT_MAX;  // INT_MAX never wins a min
  __syncthreads();
  // Fold the upper part onto the lower part; `half` rounds up, so any blockDim.x works.
  for (unsigned int size = blockDim.x; size > 1;) {
    const unsigned int half = (size + 1) / 2;
    if (tid + half < size) m[tid] = min(m[tid], m[tid + half]);
    __syncthreads();
    size = half;
  }
  if (tid == 0) partial[blockIdx.x] = m[0];
  // STUB: // TODO(ch03_06): partial[blockIdx.x] = min of this block's chunk, by a tree in m[]
  // STUB: // (pad past n with INT_MAX; blockDim.x need not be a power of two).
  // STUB: (void)in, (void)partial, (void)n, (void)m;
  // END SOLUTION
}

__global__ void subtractMin(const int *in, const int *partial, unsigned int num_partials, int *out,
                            unsigned int n) {
  extern __shared__ int m[];  // blockDim.x ints
  // BEGIN SOLUTION
  const unsigned int tid = threadIdx.x;
  int v = INT_MAX;
  for (unsigned int j = tid; j < num_partials; j += blockDim.x) v = min(v, partial[j]);
  m[tid] = v;
  __syncthreads();
  for (unsigned int size = blockDim.x; size > 1;) {
    const unsigned int half = (size + 1) / 2;
    if (tid + half < size) m[tid] = min(m[tid], m[tid + half]);
    __syncthreads();
    size = half;
  }
  const int global_min = m[0];
  const unsigned int i = blockIdx.x * blockDim.x + tid;
  if (i < n) out[i] = in[i] - global_min;
  // STUB: // TODO(ch03_06): every block reduces all num_partials minima (strided loop, then a
  // STUB: // tree in m[]) and writes out[i] = in[i] - global minimum for its elements.
  // STUB: (void)in, (void)partial, (void)num_partials, (void)out, (void)n, (void)m;
  // END SOLUTION
}

cudaError_t subtractGlobalMin(const int *d_in, int *d_out, int *d_partial, unsigned int n, unsigned int block) {
  // BEGIN SOLUTION
  const unsigned int grid = sync_grid(n, block);
  const std::size_t smem = block * sizeof(int);
  blockMin<<<grid, block, smem>>>(d_in, d_partial, n);
  if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
  // Same stream: subtractMin starts only after every block of blockMin has finished.
  subtractMin<<<grid, block, smem>>>(d_in, d_partial, grid, d_out, n);
  return cudaGetLastError();
  // STUB: // TODO(ch03_06): launch blockMin, then subtractMin (grid sync_grid(n, block), block * 4
  // STUB: // bytes of dynamic shared memory each), checking each launch with cudaGetLastError().
  // STUB: (void)d_in, (void)d_out, (void)d_partial, (void)n, (void)block;
  // STUB: return cudaSuccess;
  // END SOLUTION
}

__global__ void gatherKernel(const int *src, const unsigned int *idx, int *dst, unsigned int n) {
  // BEGIN SOLUTION
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[idx[i]];
  // STUB: // TODO(ch03_06): dst[i] = src[idx[i]] for i < n.
  // STUB: (void)src, (void)idx, (void)dst, (void)n;
  // END SOLUTION
}

cudaError_t gatherChecked(const int *d_src, const unsigned int *d_idx, int *d_dst, unsigned int n,
                          unsigned int block) {
  // BEGIN SOLUTION
  gatherKernel<<<sync_grid(n, block), block>>>(d_src, d_idx, d_dst, n);
  // A bad configuration is known at once, the launch never happens.
  if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
  // The launch returned before the kernel ran: its faults show up only after synchronizing.
  return cudaDeviceSynchronize();
  // STUB: // TODO(ch03_06): launch gatherKernel, then return the launch error if there is one,
  // STUB: // else what the kernel's execution reported (the launch returns before it runs).
  // STUB: (void)d_src, (void)d_idx, (void)d_dst, (void)n, (void)block;
  // STUB: return cudaSuccess;
  // END SOLUTION
}
