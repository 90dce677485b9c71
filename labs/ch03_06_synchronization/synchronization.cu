/// @file synchronization.cu
/// @brief Lab ch03_06: your barriers, your error-checking wrapper and your two-launch pipeline
/// (see README.md and synchronization.cuh).
#include "synchronization.cuh"

#include <climits>

__global__ void reverseBlock(const int *in, int *out, unsigned int n) {
  extern __shared__ int tile[];  // blockDim.x ints
  // TODO(ch03_06): stage the chunk in tile[], then write it back reversed.
  //  - count = min(blockDim.x, n - start): the last block's chunk is shorter
  //  - tile[tid] = in[start + tid] (tid < count); out[start + tid] = tile[count - 1 - tid]
  //  - where does the barrier go, and why is one enough? No thread may return early.
  (void)in, (void)out, (void)n, (void)tile;
}

__global__ void smoothTile(const unsigned int *in, unsigned int *out, unsigned int n, int steps) {
  extern __shared__ unsigned int t[];  // blockDim.x values
  // TODO(ch03_06): load the chunk into t[] (0 past count), then `steps` times replace
  // every t[i] (i < count) by t[i - 1] + t[i] + t[i + 1] (0 outside the chunk), in place,
  // and write the chunk out. Every thread must reach every barrier: no early return.
  (void)in, (void)out, (void)n, (void)steps, (void)t;
}

__global__ void blockMin(const int *in, int *partial, unsigned int n) {
  extern __shared__ int m[];  // blockDim.x ints
  // TODO(ch03_06): partial[blockIdx.x] = min of this block's chunk, by a tree in m[]
  // (pad past n with INT_MAX; blockDim.x need not be a power of two).
  (void)in, (void)partial, (void)n, (void)m;
}

__global__ void subtractMin(const int *in, const int *partial, unsigned int num_partials, int *out,
                            unsigned int n) {
  extern __shared__ int m[];  // blockDim.x ints
  // TODO(ch03_06): every block reduces all num_partials minima (strided loop, then a
  // tree in m[]) and writes out[i] = in[i] - global minimum for its elements.
  (void)in, (void)partial, (void)num_partials, (void)out, (void)n, (void)m;
}

cudaError_t subtractGlobalMin(const int *d_in, int *d_out, int *d_partial, unsigned int n, unsigned int block) {
  // TODO(ch03_06): launch blockMin, then subtractMin (grid sync_grid(n, block), block * 4
  // bytes of dynamic shared memory each), checking each launch with cudaGetLastError().
  (void)d_in, (void)d_out, (void)d_partial, (void)n, (void)block;
  return cudaSuccess;
}

__global__ void gatherKernel(const int *src, const unsigned int *idx, int *dst, unsigned int n) {
  // TODO(ch03_06): dst[i] = src[idx[i]] for i < n.
  (void)src, (void)idx, (void)dst, (void)n;
}

cudaError_t gatherChecked(const int *d_src, const unsigned int *d_idx, int *d_dst, unsigned int n,
                          unsigned int block) {
  // TODO(ch03_06): launch gatherKernel, then return the launch error if there is one,
  // else what the kernel's execution reported (the launch returns before it runs).
  (void)d_src, (void)d_idx, (void)d_dst, (void)n, (void)block;
  return cudaSuccess;
}
