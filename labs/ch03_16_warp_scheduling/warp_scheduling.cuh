/// @file warp_scheduling.cuh
/// @brief Lab ch03_16 -- warp scheduling: selected, stalled and eligible warps (book section 3.3,
/// "Resource Partitioning" and "Warp Scheduling"; section 3.4 for the latency).
///
/// Every SM from Volta on (sm_70, so every GPU this workbook grades: sm_75 and newer) is split into
/// **4 sub-partitions**, each with its own warp scheduler that can issue **one instruction per
/// cycle** (an *issue slot*). The SM's resident warps are partitioned among the four schedulers
/// for their whole life. In any cycle each of a scheduler's active warps is
///  * **stalled**: it cannot issue, for any reason (Nsight Compute's stall reasons: an operand not
///    ready, a barrier, a busy pipe, instruction fetch, ...). The model counts one: the result of
///    the previous dependent instruction, which takes `latency` cycles;
///  * **eligible**: ready to issue. One eligible warp is **selected** and issues; the others are
///    eligible but *not selected* in this cycle.
///
/// Issue utilisation is the fraction of cycles in which the scheduler issues (Nsight Compute:
/// `smsp__issue_active.avg.per_cycle_active`); eligible warps per cycle is
/// `smsp__warps_eligible.avg.per_cycle_active`. This lab's model predicts both from the warps per
/// scheduler (occupancy), the independent instructions per thread (ILP) and the latency.
///
/// **The model** (W warps per scheduler, ILP k >= 1, latency L >= 1 cycles). A warp whose thread
/// has k independent dependency chains can issue k instructions, then waits for the first result:
/// alone it issues r = min(1, k / L) instructions per cycle. The scheduler is asked for
/// d = W r issue slots per cycle.
///  * d < 1 (**stall-bound**, latency not hidden): every ready warp issues at once.
///    issue = eligible = d.
///  * d >= 1 (**issue-bound**, the issue slot is the limit): issue = 1. Each issue of a warp's k
///    instructions leaves it stalled for L - k cycles (none when k >= L), L/k - 1 stalled warps on
///    average, so eligible = W - max(0, L/k - 1). At d = 1 both cases give issue = eligible = 1.
/// Shares of the active warp-cycles (they add up to 1 when W > 0): selected = issue / W,
/// not selected = (eligible - issue) / W, waiting on the dependency = (W - eligible) / W.
#pragma once

#include "cudalab/launch.cuh"

#include <cuda_runtime.h>

#include <cstddef>

// ---------------------------------------------------------------------------------------------
// The model (host)
// ---------------------------------------------------------------------------------------------

/// @brief How an SM partitions its warps among its schedulers.
struct SchedulerView {
  int schedulers_per_sm = 0;        ///< warp schedulers (sub-partitions) per SM: 4 from sm_70 on
  int max_warps_per_sm = 0;         ///< resident warps an SM can hold (maxThreadsPerMultiProcessor / warpSize)
  int max_warps_per_scheduler = 0;  ///< max_warps_per_sm / schedulers_per_sm: 8 sm_75, 12 sm_86/89/120, 16 sm_80/90
};

/// @brief YOURS (host): the SchedulerView of device @p device, from the CUDA runtime's attributes
/// (cudaDeviceGetAttribute): the warps an SM holds come from its thread limit and the warp size;
/// every architecture from sm_70 on has 4 schedulers per SM (no attribute says so).
/// @param device a device ordinal
/// @param out filled on success
/// @return cudaSuccess, or the runtime's error for a device that does not exist (@p out untouched)
cudaError_t scheduler_view_from_device(int device, SchedulerView *out);

/// @brief YOURS (host): the warps each scheduler holds at @p occupancy (active warps / the SM's
/// maximum, 0..1, as in ch03_05): occupancy x max_warps_per_sm / schedulers_per_sm. Not rounded
/// (an average over an SM's schedulers).
/// @param occupancy achieved or theoretical occupancy, 0 to 1
/// @param view the device's SchedulerView
double warps_per_scheduler(double occupancy, const SchedulerView &view);

/// @brief What the model predicts for one scheduler (see the file comment).
struct SchedulerPrediction {
  double issue_utilization = 0;  ///< issue slots used per cycle, 0..1 (smsp__issue_active.avg.per_cycle_active)
  double eligible_warps = 0;     ///< eligible warps per cycle, selected one included (smsp__warps_eligible.avg.per_cycle_active)
  double selected_share = 0;     ///< share of active warp-cycles in which the warp issues
  double not_selected_share = 0; ///< share of active warp-cycles eligible but not selected
  double waiting_share = 0;      ///< share of active warp-cycles stalled on the dependency (Nsight Compute: stall reasons wait + short_scoreboard)
};

/// @brief YOURS (host): the model's prediction for @p warps warps per scheduler (any value >= 0,
/// fractional for an average; 0: everything 0), @p ilp independent chains per thread (>= 1) and a
/// dependent-issue latency of @p latency_cycles (>= 1, not necessarily whole).
SchedulerPrediction predict_scheduler(double warps, int ilp, double latency_cycles);

/// @brief YOURS (host): the fewest whole warps per scheduler that make the scheduler issue-bound
/// (d = W min(1, ilp / latency) >= 1): ceil(latency / min(ilp, latency)). The book's arithmetic
/// example is this with a 20-cycle latency and ILP 1: 20 warps.
/// @param ilp independent chains per thread (>= 1)
/// @param latency_cycles dependent-issue latency (>= 1)
int warps_to_saturate(int ilp, double latency_cycles);

// ---------------------------------------------------------------------------------------------
// The kernels: four independent dependency chains per element
// ---------------------------------------------------------------------------------------------

/// Independent chains in one element (the four floats of a float4).
constexpr int kChains = 4;
/// Threads per block in every launch of the tests: 4 warps, one per scheduler.
constexpr int kChainsBlock = 128;

/// @brief GIVEN (the "before"): for every element i < @p n (grid-stride: thread t takes t, t + T,
/// t + 2T, ... with T = gridDim.x * blockDim.x), and for each of its four chains
/// q in {x, y, z, w} on its own: q = x0[i].q, then @p steps times q = fmaf(q, q, c[i].q);
/// out[i].q = q. The chains run one after another, so every fmaf waits for the previous one: one
/// warp issues once per `latency` cycles (ILP 1).
/// @param x0 start values, n float4
/// @param c the constants, n float4
/// @param out results, n float4 (nothing at or after index n is written)
/// @param n elements (>= 0)
/// @param steps iterations of every chain (>= 0)
__global__ void chainsSequential(const float4 *x0, const float4 *c, float4 *out, int n, int steps);

/// @brief YOURS: the same results as chainsSequential, bit for bit (every chain still runs its
/// `steps` fmaf in order, from x0 with its own constant), with the four chains of an element
/// **interleaved**: in each step, one fmaf of each chain. Four independent instructions per
/// thread are then ready at a time (ILP 4), so at one warp per scheduler the scheduler can issue
/// almost every cycle: a stall-bound kernel made issue-bound without one more warp. Any grid and
/// block size (grid-stride loop), any n >= 0 and steps >= 0.
__global__ void chainsInterleaved(const float4 *x0, const float4 *c, float4 *out, int n, int steps);

#ifdef __CUDACC__  // the launchers need nvcc; host-only files (the host tests) see the declarations only
/// @brief Launches chainsSequential: @p grid blocks of kChainsBlock threads, @p dyn_smem bytes of
/// dynamic shared memory (unused by the kernel: the tests use it to pin the blocks per SM).
inline void launch_chains_sequential(const float4 *x0, const float4 *c, float4 *out, int n, int steps,
                                     unsigned int grid, std::size_t dyn_smem = 0, cudaStream_t stream = 0) {
  cudalab::launch(chainsSequential, grid, kChainsBlock, dyn_smem, stream)(x0, c, out, n, steps);
}

/// @brief Launches chainsInterleaved as launch_chains_sequential.
inline void launch_chains_interleaved(const float4 *x0, const float4 *c, float4 *out, int n, int steps,
                                      unsigned int grid, std::size_t dyn_smem = 0, cudaStream_t stream = 0) {
  cudalab::launch(chainsInterleaved, grid, kChainsBlock, dyn_smem, stream)(x0, c, out, n, steps);
}
#endif

/// @brief Sets @p kernel's dynamic shared memory so that exactly @p blocks_per_sm blocks of
/// @p block threads fit on one SM (shared memory is the limiter, as in ch03_04), and checks it with
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor. With blocks of 128 threads, b blocks per SM are
/// b warps per scheduler.
/// @return cudaErrorInvalidConfiguration if @p blocks_per_sm cannot be reached exactly
inline cudaError_t pin_blocks_per_sm(const void *kernel, int block, int blocks_per_sm, std::size_t *dyn_smem) {
  int dev = 0, smem_sm = 0, optin = 0, reserved = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev);
  if (err != cudaSuccess) return err;
  const std::size_t per_block = std::size_t(smem_sm) / blocks_per_sm / 128 * 128;
  std::size_t dyn = per_block > std::size_t(reserved) ? per_block - reserved : 0;
  if (dyn > std::size_t(optin)) dyn = std::size_t(optin);
  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dyn));
  if (err != cudaSuccess) return err;
  int got = 0;
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, kernel, block, dyn);
  if (err != cudaSuccess) return err;
  *dyn_smem = dyn;
  return got == blocks_per_sm ? cudaSuccess : cudaErrorInvalidConfiguration;
}

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_warp_scheduling.hpp")
#include "cudalab_apart_warp_scheduling.hpp"
#endif
