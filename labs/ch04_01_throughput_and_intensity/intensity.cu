/// @file intensity.cu
/// @brief Lab ch04_01: throughput, arithmetic intensity, the roofline, registers and local
/// memory (see README.md and intensity.cuh).
#include "intensity.cuh"

#include <algorithm>

// ---- Host calculators ------------------------------------------------------------------------

double gfloats_per_second(double bandwidth_gbs, int bytes_per_element) {
  // TODO(ch04_01): GB/s divided by the bytes of one element (484 GB/s of floats: 121).
  (void)bandwidth_gbs;
  (void)bytes_per_element;
  return 0.0;
}

double compute_to_io_ratio(double peak_gflops, double bandwidth_gbs, int bytes_per_element) {
  // TODO(ch04_01): FLOPs per second / elements loaded per second (both in billions).
  (void)peak_gflops;
  (void)bandwidth_gbs;
  (void)bytes_per_element;
  return 0.0;
}

double matmul_bytes_per_flop(int tile, int bytes_per_element) {
  // TODO(ch04_01): bytes one thread loads per phase / FLOPs it does per phase. tile = 1 is
  // the naive kernel: 2 loads of 4 bytes and 2 FLOPs per inner-loop step.
  (void)tile;
  (void)bytes_per_element;
  return 0.0;
}

double bandwidth_needed_gbs(double gflops, double bytes_per_flop) {
  // TODO(ch04_01): the bytes per second it takes to feed gflops (805 GFLOP/s x 4 B/FLOP).
  (void)gflops;
  (void)bytes_per_flop;
  return 0.0;
}

double attainable_gflops(double peak_gflops, double intensity, double bandwidth_gbs) {
  // TODO(ch04_01): the roofline: the lower of the compute roof and intensity x bandwidth.
  (void)peak_gflops;
  (void)intensity;
  (void)bandwidth_gbs;
  return 0.0;
}

double ridge_intensity(double peak_gflops, double bandwidth_gbs) {
  // TODO(ch04_01): the intensity at which intensity x bandwidth reaches the peak.
  (void)peak_gflops;
  (void)bandwidth_gbs;
  return 0.0;
}

long long matmul_loads(long long n, int tile) {
  // TODO(ch04_01): how many blocks load each element of A (and of B)? Tile 1 must give the
  // naive 2 n^3; n a multiple of tile the seed's 2 n^3 / TILE. Other n: see the header.
  (void)n;
  (void)tile;
  return 0;
}

long long tile_phase_loads(int tile) {
  // TODO(ch04_01): tile x tile threads, each loading one element of A and one of B.
  (void)tile;
  return 0;
}

long long tile_phase_flops(int tile) {
  // TODO(ch04_01): tile x tile threads, each doing tile multiply-adds (2 FLOPs each).
  (void)tile;
  return 0;
}

TiledLaunch tiled_launch(int n, int tile, int blocks_per_sm, int max_threads_per_sm) {
  TiledLaunch t;
  // TODO(ch04_01): fill every field of t (see TiledLaunch in intensity.cuh). Round the
  // grid up for n that is not a multiple of tile; an SM holds at most
  // max_threads_per_sm / (tile * tile) blocks, whatever blocks_per_sm says.
  (void)n;
  (void)tile;
  (void)blocks_per_sm;
  (void)max_threads_per_sm;
  return t;
}

// ---- The figures of a real GPU ---------------------------------------------------------------

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  // TODO(ch04_01): the table in intensity.cuh; 0 for anything not in it.
  (void)cc_major;
  (void)cc_minor;
  return 0;
}

DeviceFigures device_figures(const cudalab::DeviceInfo &d, double measured_gbs) {
  DeviceFigures f;
  // TODO(ch04_01): fill every field of f from d's attributes (sm_count, cc_major/minor,
  // sm_clock_khz, and d.theoretical_bandwidth_gbs()) and measured_gbs, using your
  // calculators above. Floats are 4 bytes; the matmul points use tiles 1, 16 and 32.
  (void)d;
  (void)measured_gbs;
  return f;
}

// ---- Kernels ---------------------------------------------------------------------------------

__global__ void intensityKernel(const float *in, float *out, int n, int k, float a, float b) {
  // TODO(ch04_01): one thread per element i < n: load in[i], apply x = fmaf(x, a, b)
  // k times (keep x in a register), store out[i]. Consecutive threads, consecutive i.
}

__global__ void localArrayKernel(const unsigned *in, unsigned *out, int n) {
  // Given: the digit is known only at run time, so count[] must be addressable -> local memory.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned v = in[i];
  unsigned count[16];
  for (int b = 0; b < 16; ++b) count[b] = 0;
  for (int d = 0; d < 8; ++d) ++count[(v >> (4 * d)) & 0xFu];
  unsigned s = 0;
  for (int b = 0; b < 16; ++b) s += count[b] * count[b];
  out[i] = s;
}

__global__ void registerArrayKernel(const unsigned *in, unsigned *out, int n) {
  // TODO(ch04_01): localArrayKernel's result (guard i < n) without local memory. Registers
  // cannot be indexed at run time: an array may stay only if every index becomes a
  // compile-time constant once #pragma unroll has unrolled the loops -- or use no array.
}

namespace {

// The body of spillKernel and roomyKernel: kLiveValues accumulators, all live across the loop.
__device__ __forceinline__ void manyLiveValues(const float *in, float *out, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc[kLiveValues];
#pragma unroll
  for (int j = 0; j < kLiveValues; ++j) acc[j] = in[(i + j) % n];
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < kLiveValues; ++j) acc[j] = fmaf(acc[j], acc[(j + 1) % kLiveValues], 0.5f);
  }
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kLiveValues; ++j) s += acc[j];
  out[i] = s;
}

}  // namespace

__global__ void __launch_bounds__(1024) spillKernel(const float *in, float *out, int n, int iters) {
  manyLiveValues(in, out, n, iters);
}

__global__ void roomyKernel(const float *in, float *out, int n, int iters) { manyLiveValues(in, out, n, iters); }
