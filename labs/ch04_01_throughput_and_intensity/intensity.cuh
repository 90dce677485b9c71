/// @file intensity.cuh
/// @brief Lab ch04_01 -- throughput and arithmetic intensity: why a GPU waits for memory, the
/// seed's matmul analysis (4 bytes per FLOP, 3.5 % of peak), tiling, the roofline, and where a
/// kernel's variables live (registers, local memory, spills).
///
/// Units used throughout: GFLOP/s = 1e9 floating-point operations per second; GB/s = 1e9 bytes per
/// second; one fused multiply-add (FMA) counts as 2 FLOPs; arithmetic intensity is FLOPs per byte
/// moved to or from DRAM (FLOP/B).
#pragma once

#include "cudalab/device.cuh"

#include <cuda_runtime.h>

// ---------------------------------------------------------------------------------------------
// Host calculators (no GPU needed; graded on CI)
// ---------------------------------------------------------------------------------------------

/// @brief How many elements per second a memory system delivers, in billions.
/// @param bandwidth_gbs memory bandwidth in GB/s
/// @param bytes_per_element element size in bytes (4 for float)
/// @return G elements per second (484 GB/s of floats: 121)
double gfloats_per_second(double bandwidth_gbs, int bytes_per_element);

/// @brief The compute-to-I/O gap: how many FLOPs the GPU can do in the time it loads one element
/// from DRAM (peak FLOP/s / elements loaded per second).
/// @param peak_gflops peak arithmetic throughput in GFLOP/s
/// @param bandwidth_gbs memory bandwidth in GB/s
/// @param bytes_per_element element size in bytes
/// @return FLOPs per element loaded (11.3 TFLOP/s and 484 GB/s of floats: about 93)
double compute_to_io_ratio(double peak_gflops, double bandwidth_gbs, int bytes_per_element);

/// @brief DRAM bytes per FLOP of the tiled matrix multiply: in each phase every thread loads one
/// element of A and one of B into shared memory and then does @p tile multiply-adds with them.
/// A tile of 1 is the naive kernel (2 loads, 2 FLOPs per inner-loop step).
/// @param tile TILE_WIDTH (1 = the naive kernel)
/// @param bytes_per_element element size in bytes
/// @return bytes per FLOP (naive float kernel: 4; TILE 16: 0.25)
double matmul_bytes_per_flop(int tile, int bytes_per_element);

/// @brief The memory bandwidth a kernel needs to run at @p gflops.
/// @param gflops the FLOP rate to sustain, GFLOP/s
/// @param bytes_per_flop bytes the kernel moves per FLOP
/// @return GB/s (805 GFLOP/s at 4 B/FLOP: 3220 GB/s)
double bandwidth_needed_gbs(double gflops, double bytes_per_flop);

/// @brief The roofline: the FLOP rate a kernel of arithmetic intensity @p intensity can reach,
/// the lower of the compute roof (@p peak_gflops) and the memory roof (intensity x bandwidth).
/// @param peak_gflops peak arithmetic throughput, GFLOP/s
/// @param intensity FLOPs per byte of DRAM traffic (FLOP/B)
/// @param bandwidth_gbs memory bandwidth, GB/s
/// @return attainable GFLOP/s (805 peak, 0.25 FLOP/B, 112 GB/s: 28)
double attainable_gflops(double peak_gflops, double intensity, double bandwidth_gbs);

/// @brief The ridge point of the roofline: the intensity at which the memory roof meets the
/// compute roof. Kernels below it are memory-bound, above it compute-bound.
/// @param peak_gflops peak arithmetic throughput, GFLOP/s
/// @param bandwidth_gbs memory bandwidth, GB/s
/// @return FLOP/B
double ridge_intensity(double peak_gflops, double bandwidth_gbs);

/// @brief Global-memory element loads of an n x n times n x n matrix multiply with tile x tile
/// blocks (tile 1: the naive kernel, one thread per output element loading its own operands).
/// Each block of the ceil(n / tile)^2 grid loads its band of rows of A and its band of columns of
/// B once, phase by phase; elements outside the matrix are not loaded (the guarded loads put 0 in
/// shared memory). For n a multiple of tile this is the seed's 2 n^3 / TILE.
/// @param n matrix size (n >= 1)
/// @param tile TILE_WIDTH (>= 1)
/// @return element loads (n = 1024: 2^31 naive, 2^27 with TILE 16)
long long matmul_loads(long long n, int tile);

/// @brief Global loads of one block in one phase of the tiled matmul: a tile x tile block of
/// threads, each loading one element of A and one of B.
/// @param tile TILE_WIDTH
/// @return element loads (TILE 16: 512)
long long tile_phase_loads(int tile);

/// @brief FLOPs of one block in one phase: tile x tile threads, each doing @p tile multiply-adds.
/// @param tile TILE_WIDTH
/// @return FLOPs (TILE 16: 8192)
long long tile_phase_flops(int tile);

/// @brief The seed's launch arithmetic for the tiled matmul.
struct TiledLaunch {
  int grid_x = 0;                 ///< blocks along a row of C: ceil(n / tile)
  int grid_y = 0;                 ///< blocks along a column of C: ceil(n / tile)
  long long blocks = 0;           ///< grid_x * grid_y
  int threads_per_block = 0;      ///< tile * tile
  int resident_blocks = 0;        ///< blocks_per_sm, but no more than fit in max_threads_per_sm
  int threads_per_sm = 0;         ///< resident_blocks * threads_per_block
  double thread_occupancy = 0.0;  ///< threads_per_sm / max_threads_per_sm (0..1)
};

/// @brief Grid, block and per-SM thread count of the tiled matmul.
/// @param n matrix size (n >= 1)
/// @param tile TILE_WIDTH (tile * tile <= max_threads_per_sm)
/// @param blocks_per_sm how many blocks an SM could hold by its other limits (the seed: 3)
/// @param max_threads_per_sm resident-thread limit of an SM (the seed: 768; H100: 2048)
/// @return the launch figures (1024, 16, 3, 768: a 64 x 64 grid, 768 threads, occupancy 1.0)
TiledLaunch tiled_launch(int n, int tile, int blocks_per_sm, int max_threads_per_sm);

// ---------------------------------------------------------------------------------------------
// The same figures for a real GPU (host functions, from device attributes)
// ---------------------------------------------------------------------------------------------

/// @brief FP32 lanes per SM (results of a 32-bit add, multiply or FMA per clock per SM; the CUDA
/// C++ Programming Guide, "Arithmetic Instructions"):
///
/// | compute capability | GPUs | FP32 lanes per SM |
/// |---|---|---|
/// | 7.0, 7.2, 7.5 | V100, Xavier, T4 / RTX 20xx | 64 |
/// | 8.0 | A100 | 64 |
/// | 8.6, 8.7, 8.9 | RTX 30xx / A10, Orin, RTX 40xx / L4 / L40 | 128 |
/// | 9.0 | H100, H200, GH200 | 128 |
/// | 10.x, 11.x, 12.x | B200 / B300, Thor, RTX 50xx / DGX Spark | 128 |
///
/// @param cc_major compute capability, major
/// @param cc_minor compute capability, minor
/// @return lanes per SM; 0 for any compute capability not in the table (older or unknown GPUs)
int fp32_lanes_per_sm(int cc_major, int cc_minor);

/// @brief One point of the roofline: a matmul kernel's intensity and what the roofline allows it.
struct RooflinePoint {
  double intensity = 0.0;    ///< FLOP/B: 1 / matmul_bytes_per_flop(tile, 4)
  double gflops = 0.0;       ///< attainable_gflops(peak, intensity, measured bandwidth)
  double pct_of_peak = 0.0;  ///< 100 * gflops / peak
};

/// @brief The seed's figures, for one GPU.
struct DeviceFigures {
  int fp32_lanes_per_sm = 0;   ///< fp32_lanes_per_sm(cc)
  double peak_gflops = 0.0;    ///< SMs x lanes x 2 FLOPs per FMA x SM clock (GHz)
  double theoretical_gbs = 0;  ///< 2 (double data rate) x memory clock x bus width / 8
  double measured_gbs = 0.0;   ///< the measured copy bandwidth (the argument)
  double gfloats = 0.0;        ///< floats per second at the measured bandwidth, in billions
  double compute_to_io = 0.0;  ///< peak / floats per second: FLOPs per float loaded
  double ridge = 0.0;          ///< ridge_intensity(peak, measured bandwidth), FLOP/B
  RooflinePoint naive;         ///< the naive matmul (tile 1, floats)
  RooflinePoint tiled16;       ///< tiled matmul, TILE 16
  RooflinePoint tiled32;       ///< tiled matmul, TILE 32
};

/// @brief The figures of the GPU described by @p d, at the peak SM clock it reports.
/// @param d the device's attributes (cudalab::query_device)
/// @param measured_gbs measured DRAM bandwidth in GB/s (cudalab::measured_copy_bandwidth_gbs)
/// @return every field of DeviceFigures (all bandwidth-derived figures use @p measured_gbs)
DeviceFigures device_figures(const cudalab::DeviceInfo &d, double measured_gbs);

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------

/// @brief YOURS: out[i] = k fused multiply-adds applied to in[i]: x = in[i], then k times
/// x = fmaf(x, a, b). One thread per element, for any n >= 1. It loads 4 bytes, stores 4 bytes
/// and does 2k FLOPs per element: arithmetic intensity k / 4 FLOP/B, so k moves the kernel along
/// the roofline. Launch: <<<intensity_grid(n, block), block>>>.
/// @param in n floats
/// @param out n floats (written; nothing past n)
/// @param n number of elements
/// @param k multiply-adds per element (>= 0; 0 copies)
/// @param a the multiplier
/// @param b the addend
__global__ void intensityKernel(const float *in, float *out, int n, int k, float a, float b);

/// @brief Blocks for intensityKernel: ceil(n / block).
/// @param n number of elements (>= 1)
/// @param block threads per block
inline unsigned intensity_grid(int n, unsigned block) { return (static_cast<unsigned>(n) + block - 1) / block; }

/// @brief Arithmetic intensity of intensityKernel: 2k FLOPs per 8 bytes (one load, one store).
/// @param k multiply-adds per element
inline double intensity_of(int k) { return 2.0 * k / 8.0; }

/// @brief GIVEN: a per-thread array that lives in LOCAL memory. Counts the 8 hex digits of
/// in[i] in `unsigned count[16]`, indexed by the digit itself -- an index known only at run time,
/// so the array cannot be registers (registers cannot be indexed) -- and writes
/// out[i] = sum over b of count[b]^2. `nvcc -Xptxas -v`: "64 bytes stack frame".
/// @param in n values
/// @param out n results
/// @param n number of elements
__global__ void localArrayKernel(const unsigned *in, unsigned *out, int n);

/// @brief YOURS: exactly localArrayKernel's result, with no local memory
/// (cudaFuncGetAttributes(...).localSizeBytes == 0): index every per-thread array only with
/// compile-time constants (fully unrolled loops), or use no array at all.
/// Launch: <<<intensity_grid(n, block), block>>>; any n >= 1.
/// @param in n values
/// @param out n results
/// @param n number of elements
__global__ void registerArrayKernel(const unsigned *in, unsigned *out, int n);

/// Live values per thread in spillKernel and roomyKernel.
constexpr int kLiveValues = 96;

/// @brief GIVEN: kLiveValues floats per thread stay live across a loop (acc[j] = fmaf(acc[j],
/// acc[j + 1], 0.5f), iters times), then their sum goes to out[i]. __launch_bounds__(1024)
/// promises blocks of up to 1024 threads, so the compiler may use at most 65536 / 1024 = 64
/// registers per thread: the rest SPILL to local memory ("spill stores", "spill loads").
/// @param in n floats (thread i reads in[(i + j) % n], j < kLiveValues)
/// @param out n floats
/// @param n number of elements
/// @param iters loop iterations
__global__ void __launch_bounds__(1024) spillKernel(const float *in, float *out, int n, int iters);

/// @brief GIVEN: spillKernel's code without __launch_bounds__: the compiler keeps every value in
/// registers (about 128 per thread) -- no spills, but fewer warps fit on an SM.
/// @param in n floats
/// @param out n floats
/// @param n number of elements
/// @param iters loop iterations
__global__ void roomyKernel(const float *in, float *out, int n, int iters);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_intensity.hpp")
#include "cudalab_apart_intensity.hpp"
#endif
