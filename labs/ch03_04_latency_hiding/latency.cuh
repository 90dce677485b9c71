/// @file latency.cuh
/// @brief Lab ch03_04 -- latency hiding and Little's law (book section 3.4).
///
/// Little's law: the parallelism a pipeline needs to stay busy is latency x throughput. For the
/// GPU's memory: bytes that must be in flight = memory latency x bandwidth. They come from
/// resident warps (thread-level parallelism, TLP) times the independent loads each thread has
/// outstanding (instruction-level parallelism, ILP).
///
/// Three parts:
///  * a host calculator for the book's tables (no GPU needed);
///  * pointerChase: one thread follows a chain of dependent loads and measures their latency;
///  * copyInt4 / copyInt4Ilp4: a memory-bound copy with one or four independent 16-byte loads
///    in flight per thread.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

// ---------------------------------------------------------------------------------------------
// Little's law on the host
// ---------------------------------------------------------------------------------------------

/// @brief Little's law: the number of operations (or warps, or bytes) that must be in flight to
/// sustain @p throughput per cycle when each takes @p latency cycles: latency x throughput.
/// The book: 20 cycles x 32 operations/cycle = 640 operations (Fermi).
double required_parallelism(double latency, double throughput);

/// @brief Warps that hold @p operations when every lane has one: operations / warp_size
/// (640 operations / 32 = 20 warps). Not rounded.
double warps_for_operations(double operations, int warp_size);

/// @brief Bandwidth per cycle: GB/s divided by a clock in GHz gives bytes per cycle
/// (144 GB/s / 1.566 GHz = 92 B/cycle).
double bytes_per_cycle(double bandwidth_gbs, double clock_ghz);

/// @brief Bytes that must be in flight to sustain @p bytes_per_cycle with @p latency_cycles of
/// memory latency (800 cycles x 92 B/cycle = 73,600 B, "about 74 KB").
double bytes_in_flight(double latency_cycles, double bytes_per_cycle);

/// @brief Threads needed when each thread has @p bytes_per_thread independent bytes in flight
/// (74 KB / 4 B = 18,500 threads). Not rounded.
double threads_needed(double bytes_in_flight, double bytes_per_thread);

/// @brief Whole warps for @p threads threads: a partial warp still occupies a warp
/// (18,500 / 32 = 578.1 -> 579 warps).
int warps_needed(double threads, int warp_size);

/// @brief Warps each SM must hold when @p warps are spread over @p sm_count SMs
/// (579 / 16 = 36.2, "about 36 warps per SM"). Not rounded.
double warps_per_sm(double warps, int sm_count);

/// @brief Little's law solved for throughput: @p bytes_in_flight bytes outstanding, each
/// returning after @p latency_ns nanoseconds, deliver bytes_in_flight / latency_ns bytes per
/// nanosecond, which is GB/s.
double littles_law_bandwidth_gbs(double bytes_in_flight, double latency_ns);

/// @brief The book's memory table in one go.
struct MemoryParallelism {
  double bytes_per_cycle = 0;  ///< bandwidth_gbs / clock_ghz
  double bytes_in_flight = 0;  ///< latency_cycles x bytes_per_cycle
  double threads = 0;          ///< bytes_in_flight / bytes_per_thread
  int warps = 0;               ///< threads rounded up to whole warps
  double warps_per_sm = 0;     ///< warps / sm_count
};

/// @brief The chain bytes/cycle -> bytes in flight -> threads -> warps -> warps per SM, without
/// rounding the intermediate steps (the book rounds each one).
MemoryParallelism memory_parallelism(double latency_cycles, double bandwidth_gbs, double clock_ghz,
                                     double bytes_per_thread, int warp_size, int sm_count);

// ---------------------------------------------------------------------------------------------
// Measuring latency: pointer chasing
// ---------------------------------------------------------------------------------------------

/// @brief What pointerChase writes.
struct ChaseResult {
  unsigned int index;  ///< the index reached after warmup_steps + steps hops from start
  unsigned int pad;    ///< unused
  long long cycles;    ///< clock64() cycles spent on the timed `steps` hops
};

/// @brief One thread (launch <<<1, 1>>>) follows the chain j = next[j]: first @p warmup_steps
/// hops untimed (they bring the chain into the caches), then @p steps hops timed with clock64().
/// Every load's address is the previous load's value, so the loads cannot overlap: cycles / steps
/// is the latency of one load. Writes the final index and the timed cycles to @p result.
__global__ void pointerChase(const unsigned int *next, unsigned int start, unsigned int warmup_steps,
                             unsigned int steps, ChaseResult *result);

/// @brief A random single cycle through the elements 0, stride, 2*stride, ... of an array of
/// @p elems unsigned ints (Sattolo's algorithm): next[i] holds the index of the element after i.
/// Elements off the ring are 0. Random order defeats prefetching; a stride of 32 ints (128 B)
/// puts every node on its own cache line.
inline std::vector<unsigned int> make_chase_ring(std::size_t elems, std::size_t stride, std::uint64_t seed) {
  std::vector<unsigned int> next(elems, 0u);
  const std::size_t nodes = std::max<std::size_t>(elems / stride, 1);
  std::vector<unsigned int> order(nodes);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(seed);
  for (std::size_t i = nodes - 1; i > 0; --i) {  // Sattolo: one cycle through all nodes
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  for (std::size_t i = 0; i < nodes; ++i)
    next[order[i] * stride] = static_cast<unsigned int>(order[(i + 1) % nodes] * stride);
  return next;
}

// ---------------------------------------------------------------------------------------------
// Hiding latency: a copy with one or four loads in flight per thread
// ---------------------------------------------------------------------------------------------

/// Independent 16-byte loads each thread of copyInt4Ilp4 has in flight.
constexpr int kIlp = 4;

/// @brief out[i] = in[i] for i < n, grid-stride: thread t copies t, t + T, t + 2T, ... where
/// T = gridDim.x * blockDim.x. One 16-byte load in flight per thread (TLP only).
/// Any grid size and any n >= 0; nothing outside [0, n) is read or written.
__global__ void copyInt4(const int4 *in, int4 *out, std::size_t n);

/// @brief Same result as copyInt4, but each thread first loads kIlp elements
/// base, base + T, ..., base + (kIlp-1) T into registers and only then stores them, so kIlp
/// independent loads are in flight per thread (ILP). base advances by kIlp * T.
__global__ void copyInt4Ilp4(const int4 *in, int4 *out, std::size_t n);

/// @brief Sets @p kernel's dynamic shared memory so that exactly @p blocks_per_sm blocks of
/// @p block threads fit on one SM (shared memory is the limiter), and checks the result with
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor. This is how the tests pin occupancy low.
/// @param kernel the kernel (cast to const void *)
/// @param block threads per block of the launch
/// @param blocks_per_sm the resident blocks per SM wanted
/// @param dyn_smem receives the dynamic shared memory (bytes) to pass at launch.
/// @return cudaErrorInvalidConfiguration if @p blocks_per_sm cannot be reached exactly.
inline cudaError_t pin_blocks_per_sm(const void *kernel, int block, int blocks_per_sm, std::size_t *dyn_smem) {
  int dev = 0, smem_sm = 0, optin = 0, reserved = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev);
  if (err != cudaSuccess) return err;
  // Each block takes (dynamic + reserved) rounded to 128 B: give it 1/b of the SM, so b fit and b+1 do not.
  std::size_t per_block = std::size_t(smem_sm) / blocks_per_sm / 128 * 128;
  std::size_t dyn = per_block > std::size_t(reserved) ? per_block - reserved : 0;
  dyn = std::min(dyn, std::size_t(optin));
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
#if __has_include("cudalab_apart_latency.hpp")
#include "cudalab_apart_latency.hpp"
#endif
