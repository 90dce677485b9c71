/// @file intensity.cu
/// @brief Lab ch04_01: throughput, arithmetic intensity, the roofline, registers and local
/// memory (see README.md and intensity.cuh).
#include "intensity.cuh"

#include <algorithm>

// ---- Host calculators ------------------------------------------------------------------------

double gfloats_per_second(double bandwidth_gbs, int bytes_per_element) {
  // BEGIN SOLUTION
  return bandwidth_gbs / bytes_per_element;
  // STUB: // TODO(ch04_01): GB/s divided by the bytes of one element (484 GB/s of floats: 121).
  // STUB: (void)bandwidth_gbs;
  // STUB: (void)bytes_per_element;
  // STUB: return 0.0;
  // END SOLUTION
}

double compute_to_io_ratio(double peak_gflops, double bandwidth_gbs, int bytes_per_element) {
  // BEGIN SOLUTION
  return peak_gflops / gfloats_per_second(bandwidth_gbs, bytes_per_element);
  // STUB: // TODO(ch04_01): FLOPs per second / elements loaded per second (both in billions).
  // STUB: (void)peak_gflops;
  // STUB: (void)bandwidth_gbs;
  // STUB: (void)bytes_per_element;
  // STUB: return 0.0;
  // END SOLUTION
}

double matmul_bytes_per_flop(int tile, int bytes_per_element) {
  // BEGIN SOLUTION
  // Per phase a thread loads 2 elements (one of A, one of B) and does `tile` multiply-adds.
  return (2.0 * bytes_per_element) / (2.0 * tile);
  // STUB: // TODO(ch04_01): bytes one thread loads per phase / FLOPs it does per phase. tile = 1 is
  // STUB: // the naive kernel: 2 loads of 4 bytes and 2 FLOPs per inner-loop step.
  // STUB: (void)tile;
  // STUB: (void)bytes_per_element;
  // STUB: return 0.0;
  // END SOLUTION
}

double bandwidth_needed_gbs(double gflops, double bytes_per_flop) {
  // BEGIN SOLUTION
  return gflops * bytes_per_flop;
  // STUB: // TODO(ch04_01): the bytes per second it takes to feed gflops (805 GFLOP/s x 4 B/FLOP).
  // STUB: (void)gflops;
  // STUB: (void)bytes_per_flop;
  // STUB: return 0.0;
  // END SOLUTION
}

double attainable_gflops(double peak_gflops, double intensity, double bandwidth_gbs) {
  // BEGIN SOLUTION
  return std::min(peak_gflops, intensity * bandwidth_gbs);
  // STUB: // TODO(ch04_01): the roofline: the lower of the compute roof and intensity x bandwidth.
  // STUB: (void)peak_gflops;
  // STUB: (void)intensity;
  // STUB: (void)bandwidth_gbs;
  // STUB: return 0.0;
  // END SOLUTION
}

double ridge_intensity(double peak_gflops, double bandwidth_gbs) {
  // BEGIN SOLUTION
  return peak_gflops / bandwidth_gbs;
  // STUB: // TODO(ch04_01): the intensity at which intensity x bandwidth reaches the peak.
  // STUB: (void)peak_gflops;
  // STUB: (void)bandwidth_gbs;
  // STUB: return 0.0;
  // END SOLUTION
}

long long matmul_loads(long long n, int tile) {
  // BEGIN SOLUTION
  // Every element of A is loaded once by each block of its band of rows: ceil(n / tile) blocks.
  // Likewise every element of B. (n a multiple of tile: 2 n^2 * n / tile = 2 n^3 / TILE.)
  const long long blocks_per_band = (n + tile - 1) / tile;
  return 2 * n * n * blocks_per_band;
  // STUB: // TODO(ch04_01): how many blocks load each element of A (and of B)? Tile 1 must give the
  // STUB: // naive 2 n^3; n a multiple of tile the seed's 2 n^3 / TILE. Other n: see the header.
  // STUB: (void)n;
  // STUB: (void)tile;
  // STUB: return 0;
  // END SOLUTION
}

long long tile_phase_loads(int tile) {
  // BEGIN SOLUTION
  return 2LL * tile * tile;
  // STUB: // TODO(ch04_01): tile x tile threads, each loading one element of A and one of B.
  // STUB: (void)tile;
  // STUB: return 0;
  // END SOLUTION
}

long long tile_phase_flops(int tile) {
  // BEGIN SOLUTION
  return 2LL * tile * tile * tile;
  // STUB: // TODO(ch04_01): tile x tile threads, each doing tile multiply-adds (2 FLOPs each).
  // STUB: (void)tile;
  // STUB: return 0;
  // END SOLUTION
}

TiledLaunch tiled_launch(int n, int tile, int blocks_per_sm, int max_threads_per_sm) {
  TiledLaunch t;
  // BEGIN SOLUTION
  t.grid_x = t.grid_y = (n + tile - 1) / tile;
  t.blocks = static_cast<long long>(t.grid_x) * t.grid_y;
  t.threads_per_block = tile * tile;
  t.resident_blocks = std::min(blocks_per_sm, max_threads_per_sm / t.threads_per_block);
  t.threads_per_sm = t.resident_blocks * t.threads_per_block;
  t.thread_occupancy = static_cast<double>(t.threads_per_sm) / max_threads_per_sm;
  // STUB: // TODO(ch04_01): fill every field of t (see TiledLaunch in intensity.cuh). Round the
  // STUB: // grid up for n that is not a multiple of tile; an SM holds at most
  // STUB: // max_threads_per_sm / (tile * tile) blocks, whatever blocks_per_sm says.
  // STUB: (void)n;
  // STUB: (void)tile;
  // STUB: (void)blocks_per_sm;
  // STUB: (void)max_threads_per_sm;
  // END SOLUTION
  return t;
}

// ---- The figures of a real GPU ---------------------------------------------------------------

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  // BEGIN SOLUTION
  if (cc_major == 7 && (cc_minor == 0 || cc_minor == 2 || cc_minor == 5)) return 64;
  if (cc_major == 8 && cc_minor == 0) return 64;
  if (cc_major == 8 && (cc_minor == 6 || cc_minor == 7 || cc_minor == 9)) return 128;
  if (cc_major == 9 && cc_minor == 0) return 128;
  if (cc_major >= 10 && cc_major <= 12) return 128;
  return 0;
  // STUB: // TODO(ch04_01): the table in intensity.cuh; 0 for anything not in it.
  // STUB: (void)cc_major;
  // STUB: (void)cc_minor;
  // STUB: return 0;
  // END SOLUTION
}

DeviceFigures device_figures(const cudalab::DeviceInfo &d, double measured_gbs) {
  DeviceFigures f;
  // BEGIN SOLUTION
  f.fp32_lanes_per_sm = fp32_lanes_per_sm(d.cc_major, d.cc_minor);
  const double clock_ghz = d.sm_clock_khz * 1e-6;
  f.peak_gflops = d.sm_count * f.fp32_lanes_per_sm * 2.0 * clock_ghz;
  f.theoretical_gbs = d.theoretical_bandwidth_gbs();
  f.measured_gbs = measured_gbs;
  f.gfloats = gfloats_per_second(measured_gbs, sizeof(float));
  f.compute_to_io = compute_to_io_ratio(f.peak_gflops, measured_gbs, sizeof(float));
  f.ridge = ridge_intensity(f.peak_gflops, measured_gbs);
  const auto point = [&](int tile) {
    RooflinePoint p;
    p.intensity = 1.0 / matmul_bytes_per_flop(tile, sizeof(float));
    p.gflops = attainable_gflops(f.peak_gflops, p.intensity, measured_gbs);
    p.pct_of_peak = 100.0 * p.gflops / f.peak_gflops;
    return p;
  };
  f.naive = point(1);
  f.tiled16 = point(16);
  f.tiled32 = point(32);
  // STUB: // TODO(ch04_01): fill every field of f from d's attributes (sm_count, cc_major/minor,
  // STUB: // sm_clock_khz, and d.theoretical_bandwidth_gbs()) and measured_gbs, using your
  // STUB: // calculators above. Floats are 4 bytes; the matmul points use tiles 1, 16 and 32.
  // STUB: (void)d;
  // STUB: (void)measured_gbs;
  // END SOLUTION
  return f;
}

// ---- Kernels ---------------------------------------------------------------------------------

__global__ void intensityKernel(const float *in, float *out, int n, int k, float a, float b) {
  // BEGIN SOLUTION
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  for (int j = 0; j < k; ++j) x = fmaf(x, a, b);
  out[i] = x;
  // STUB: // TODO(ch04_01): one thread per element i < n: load in[i], apply x = fmaf(x, a, b)
  // STUB: // k times (keep x in a register), store out[i]. Consecutive threads, consecutive i.
  // END SOLUTION
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
  // BEGIN SOLUTION
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned v = in[i];
  unsigned count[16];
#pragma unroll
  for (int b = 0; b < 16; ++b) count[b] = 0;
#pragma unroll
  for (int d = 0; d < 8; ++d) {
    const unsigned digit = (v >> (4 * d)) & 0xFu;
#pragma unroll
    for (int b = 0; b < 16; ++b) count[b] += digit == static_cast<unsigned>(b);  // b: a constant
  }
  unsigned s = 0;
#pragma unroll
  for (int b = 0; b < 16; ++b) s += count[b] * count[b];
  out[i] = s;
  // STUB: // TODO(ch04_01): localArrayKernel's result (guard i < n) without local memory. Registers
  // STUB: // cannot be indexed at run time: an array may stay only if every index becomes a
  // STUB: // compile-time constant once #pragma unroll has unrolled the loops -- or use no array.
  // END SOLUTION
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
