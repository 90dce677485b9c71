/// @file nested.cuh
/// @brief Lab ch03_13 -- dynamic parallelism (book section 3.13): kernels that launch kernels.
///
/// Built with relocatable device code and linked with cudadevrt (SEPARABLE in the lab's CMake).
/// CUDA 12+ implements dynamic parallelism as "CDP2", the only form on sm_90 and newer: device code
/// can launch grids, but it can NOT wait for them -- device-side cudaDeviceSynchronize() is gone.
/// A parent that needs its children's results must hand the next step to a grid that starts after
/// the parent has finished: a launch into the special stream cudaStreamTailLaunch.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>

/// Deepest recursion level the HelloRecord keeps per-depth counts for.
constexpr int kMaxHelloDepth = 16;

/// @brief What nestedHelloWorld did, counted on the device (the tests read this, not printf).
struct HelloRecord {
  int threads[kMaxHelloDepth];    ///< threads that ran at each depth
  int blocks[kMaxHelloDepth];     ///< blocks that ran at each depth
  int grids[kMaxHelloDepth];      ///< grids that ran at each depth (counted by block 0, thread 0)
  int launches[kMaxHelloDepth];   ///< child launches requested INTO each depth by a parent
  int block_dim[kMaxHelloDepth];  ///< largest blockDim.x seen at each depth
  int launch_errors;              ///< device-side launches that returned an error
  int too_deep;                   ///< threads that ran at depth >= kMaxHelloDepth
  int verbose;                    ///< 1: also print the book's "Hello World" lines
};

/// @brief Called once by every thread of nestedHelloWorld at recursion depth @p depth: counts the
/// thread (and its block and grid) in @p r and, if r->verbose, prints the book's line.
__device__ inline void record_hello(HelloRecord *r, int depth) {
  if (depth < 0 || depth >= kMaxHelloDepth) {
    atomicAdd(&r->too_deep, 1);
    return;
  }
  atomicAdd(&r->threads[depth], 1);
  if (threadIdx.x == 0) atomicAdd(&r->blocks[depth], 1);
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(&r->grids[depth], 1);
  atomicMax(&r->block_dim[depth], static_cast<int>(blockDim.x));
  if (r->verbose) printf("Recursion=%d: Hello World from thread %d block %d\n", depth, threadIdx.x, blockIdx.x);
}

/// @brief Called by the thread that launched a child grid into depth @p child_depth, right after
/// the launch, with the launch's error (cudaGetLastError()).
__device__ inline void record_launch(HelloRecord *r, int child_depth, cudaError_t err) {
  if (err != cudaSuccess) atomicAdd(&r->launch_errors, 1);
  if (child_depth >= 0 && child_depth < kMaxHelloDepth) atomicAdd(&r->launches[child_depth], 1);
}

/// @brief The book's nestedHelloWorld: every thread calls record_hello(record, iDepth); if
/// iSize > 1, thread 0 of every block launches a child grid of ONE block of iSize / 2 threads at
/// depth iDepth + 1 and reports it with record_launch(). Host launch: <<<G, B>>>(B, 0, record).
__global__ void nestedHelloWorld(int const iSize, int iDepth, HelloRecord *record);

/// @brief The book's gpuRecursiveReduceNosync, fixed for any n: each block folds its chunk in half
/// (upper half added onto the lower half), then thread 0 launches a 1-block child grid on the
/// lower half; the parent never reads the child's result, so no device-side wait is needed.
/// Host launch: <<<ceil(n / B), B>>>(g_idata, g_odata, n) with B a power of two in [64, 1024].
/// @param g_idata the input, reduced in place; never touched at or past element isize
/// @param g_odata receives block b's sum in g_odata[b]
/// @param isize elements of the array this grid reduces (block b owns [b * blockDim.x, ...)).
__global__ void gpuRecursiveReduceNosync(int *g_idata, int *g_odata, unsigned int isize);

/// @brief The book's gpuRecursiveReduce2, CDP2-correct and fixed for any n: one launch per tree
/// level over the WHOLE grid. A level with stride iStride adds idata[tid + iStride] into
/// idata[tid] in every block (block b owns g_idata[b * iDim, min(n, (b + 1) * iDim))); then
/// block 0, thread 0 tail-launches the next level (iStride / 2 threads per block, same grid)
/// into cudaStreamTailLaunch, which starts only after every block of this level has finished.
/// The level with iStride == 1 writes block b's sum to g_odata[b].
/// Host launch: <<<ceil(n / iDim), iDim / 2>>>(g_idata, g_odata, iDim / 2, iDim, n), iDim a
/// power of two in [2, 2048].
__global__ void gpuRecursiveReduce2(int *g_idata, int *g_odata, int iStride, int const iDim, unsigned int n);

/// Number of blocks (and partial sums) for n elements in chunks of @p chunk: ceil(n / chunk).
inline unsigned int nested_grid(unsigned int n, unsigned int chunk) { return (n + chunk - 1) / chunk; }

/// @brief Raises the device runtime's pending-launch limit (default 2048) so that grids of
/// thousands of blocks, each launching a child, do not fail with
/// cudaErrorLaunchPendingCountExceeded. Call once per process, before the first launch.
inline cudaError_t configure_device_runtime(std::size_t pending_launches = 1u << 16) {
  return cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, pending_launches);
}
