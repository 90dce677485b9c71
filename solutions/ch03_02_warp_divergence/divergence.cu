/// @file divergence.cu
/// @brief Lab ch03_02: the seeds' mathKernel1..4 and the warp-uniform heavy kernel (see README.md
/// and divergence.cuh).
///
/// The seeds' kernels write c[tid] for every launched thread; the grid is rounded up to whole
/// blocks, so for n not a multiple of the block they write past the end of c. Yours write only
/// elements below n.
#include "divergence.cuh"

__global__ void mathKernel1(float *c, int n) {
  // BEGIN SOLUTION
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;  // no barrier follows: returning early is safe here
  float a = 0.0f, b = 0.0f;
  if (tid % 2 == 0) {
    a = 100.0f;
  } else {
    b = 200.0f;
  }
  c[tid] = a + b;
  // STUB: // TODO(ch03_02): the seeds' mathKernel1 (even/odd threads), writing only c[tid < n].
  // STUB: (void)c;
  // STUB: (void)n;
  // END SOLUTION
}

__global__ void mathKernel2(float *c, int n) {
  // BEGIN SOLUTION
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  float a = 0.0f, b = 0.0f;
  if ((tid / warpSize) % 2 == 0) {
    a = 100.0f;
  } else {
    b = 200.0f;
  }
  c[tid] = a + b;
  // STUB: // TODO(ch03_02): the seeds' mathKernel2: branch on (tid / warpSize) % 2 (even/odd warps).
  // STUB: (void)c;
  // STUB: (void)n;
  // END SOLUTION
}

__global__ void mathKernel3(float *c, int n) {
  // BEGIN SOLUTION
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  float ia = 0.0f, ib = 0.0f;
  const bool ipred = (tid % 2 == 0);
  if (ipred) ia = 100.0f;
  if (!ipred) ib = 200.0f;
  c[tid] = ia + ib;
  // STUB: // TODO(ch03_02): the seeds' mathKernel3: bool ipred = (tid % 2 == 0); then
  // STUB: // if (ipred) ... and a separate if (!ipred) ...
  // STUB: (void)c;
  // STUB: (void)n;
  // END SOLUTION
}

__global__ void mathKernel4(float *c, int n) {
  // BEGIN SOLUTION
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  float ia = 0.0f, ib = 0.0f;
  const int itid = tid >> 5;
  // The seeds write `itid & 0x01 == 0`: == binds tighter than &, so that is itid & (0x01 == 0),
  // i.e. itid & 0, always false -- every thread took the else arm. Parenthesise the mask.
  if ((itid & 0x01) == 0) {
    ia = 100.0f;
  } else {
    ib = 200.0f;
  }
  c[tid] = ia + ib;
  // STUB: // TODO(ch03_02): the seeds' mathKernel4: int itid = tid >> 5; branch on its lowest
  // STUB: // bit. The seeds' `if (itid & 0x01 == 0)` has a bug: check C++ operator precedence.
  // STUB: (void)c;
  // STUB: (void)n;
  // END SOLUTION
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
  // BEGIN SOLUTION
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int warp = tid / warpSize, lane = tid % warpSize;
  const int odd = warp & 1;                                   // the same for the whole warp
  const int i = (warp >> 1) * 2 * warpSize + 2 * lane + odd;  // even warps: even elements
  if (i >= n) return;
  if (odd) {
    out[i] = oddArm(in[i], iters);
  } else {
    out[i] = evenArm(in[i], iters);
  }
  // STUB: // TODO(ch03_02): heavyKernel1's results without a divergent warp. Let warp = tid / warpSize,
  // STUB: // lane = tid % warpSize: the pair of warps (2p, 2p + 1) covers elements [64p, 64p + 64);
  // STUB: // the even warp computes element 64p + 2 * lane with evenArm, the odd warp element
  // STUB: // 64p + 2 * lane + 1 with oddArm. Skip elements >= n.
  // STUB: (void)in;
  // STUB: (void)out;
  // STUB: (void)n;
  // STUB: (void)iters;
  // END SOLUTION
}
