/// @file divergence.cu
/// @brief Lab ch03_02: the seeds' mathKernel1..4 and the warp-uniform heavy kernel (see README.md
/// and divergence.cuh).
///
/// The seeds' kernels write c[tid] for every launched thread; the grid is rounded up to whole
/// blocks, so for n not a multiple of the block they write past the end of c. Yours write only
/// elements below n.
#include "divergence.cuh"

__global__ void mathKernel1(float *c, int n) {
  // TODO(ch03_02): the seeds' mathKernel1 (even/odd threads), writing only c[tid < n].
  (void)c;
  (void)n;
}

__global__ void mathKernel2(float *c, int n) {
  // TODO(ch03_02): the seeds' mathKernel2: branch on (tid / warpSize) % 2 (even/odd warps).
  (void)c;
  (void)n;
}

__global__ void mathKernel3(float *c, int n) {
  // TODO(ch03_02): the seeds' mathKernel3: bool ipred = (tid % 2 == 0); then
  // if (ipred) ... and a separate if (!ipred) ...
  (void)c;
  (void)n;
}

__global__ void mathKernel4(float *c, int n) {
  // TODO(ch03_02): the seeds' mathKernel4: int itid = tid >> 5; branch on its lowest
  // bit. The seeds' `if (itid & 0x01 == 0)` has a bug: check C++ operator precedence.
  (void)c;
  (void)n;
}

__global__ void heavyKernel1(const float *in, float *out, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i % 2 == 0) {
    out[i] = evenArm(in[i], iters);
  } else {
    out[i] = oddArm(in[i], iters);
  }
}

__global__ void heavyKernel2(const float *in, float *out, int n, int iters) {
  // TODO(ch03_02): heavyKernel1's results without a divergent warp. Let warp = tid / warpSize,
  // lane = tid % warpSize: the pair of warps (2p, 2p + 1) covers elements [64p, 64p + 64);
  // the even warp computes element 64p + 2 * lane with evenArm, the odd warp element
  // 64p + 2 * lane + 1 with oddArm. Skip elements >= n.
  (void)in;
  (void)out;
  (void)n;
  (void)iters;
}
