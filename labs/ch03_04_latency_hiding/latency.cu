/// @file latency.cu
/// @brief Lab ch03_04: Little's law on the host, a latency probe and a copy that hides latency
/// with independent loads (see README.md and latency.cuh).
#include "latency.cuh"

#include <cmath>

// ---------------------------------------------------------------------------------------------
// Part 1: Little's law (host)
// ---------------------------------------------------------------------------------------------

double required_parallelism(double latency, double throughput) {
  // TODO(ch03_04): Little's law.
  (void)latency;
  (void)throughput;
  return 0.0;
}

double warps_for_operations(double operations, int warp_size) {
  // TODO(ch03_04): one operation per lane.
  (void)operations;
  (void)warp_size;
  return 0.0;
}

double bytes_per_cycle(double bandwidth_gbs, double clock_ghz) {
  // TODO(ch03_04): GB/s and GHz share the factor 1e9.
  (void)bandwidth_gbs;
  (void)clock_ghz;
  return 0.0;
}

double bytes_in_flight(double latency_cycles, double bytes_per_cycle) {
  // TODO(ch03_04): Little's law for bytes.
  (void)latency_cycles;
  (void)bytes_per_cycle;
  return 0.0;
}

double threads_needed(double bytes_in_flight, double bytes_per_thread) {
  // TODO(ch03_04): each thread has bytes_per_thread bytes in flight.
  (void)bytes_in_flight;
  (void)bytes_per_thread;
  return 0.0;
}

int warps_needed(double threads, int warp_size) {
  // TODO(ch03_04): whole warps (a partial warp still takes a warp slot).
  (void)threads;
  (void)warp_size;
  return 0;
}

double warps_per_sm(double warps, int sm_count) {
  // TODO(ch03_04): the bandwidth belongs to the whole GPU; spread the warps over the SMs.
  (void)warps;
  (void)sm_count;
  return 0.0;
}

double littles_law_bandwidth_gbs(double bytes_in_flight, double latency_ns) {
  // TODO(ch03_04): throughput = what is in flight / latency; bytes per ns are GB/s.
  (void)bytes_in_flight;
  (void)latency_ns;
  return 0.0;
}

MemoryParallelism memory_parallelism(double latency_cycles, double bandwidth_gbs, double clock_ghz,
                                     double bytes_per_thread, int warp_size, int sm_count) {
  MemoryParallelism m;
  // TODO(ch03_04): chain the functions above; do not round the intermediate steps
  // (only warps is whole).
  (void)latency_cycles;
  (void)bandwidth_gbs;
  (void)clock_ghz;
  (void)bytes_per_thread;
  (void)warp_size;
  (void)sm_count;
  return m;
}

// ---------------------------------------------------------------------------------------------
// Part 2: measuring latency by pointer chasing
// ---------------------------------------------------------------------------------------------

__global__ void pointerChase(const unsigned int *next, unsigned int start, unsigned int warmup_steps,
                             unsigned int steps, ChaseResult *result) {
  // TODO(ch03_04): j = start; follow j = next[j] warmup_steps times (untimed), then read
  // clock64(), follow steps more hops, read clock64() again. Write the final j to
  // result->index and the difference of the two clock readings to result->cycles.
  // Plain loads (next[j]): the L1 measurement needs the L1 cache.
}

// ---------------------------------------------------------------------------------------------
// Part 3: hiding latency with independent loads
// ---------------------------------------------------------------------------------------------

__global__ void copyInt4(const int4 *in, int4 *out, std::size_t n) {
  // TODO(ch03_04): grid-stride loop: i = global thread index; while i < n:
  // out[i] = in[i]; i += gridDim.x * blockDim.x (use std::size_t).
}

__global__ void copyInt4Ilp4(const int4 *in, int4 *out, std::size_t n) {
  // TODO(ch03_04): grid-stride loop whose index base advances by kIlp * T
  // (T = gridDim.x * blockDim.x). In each iteration: load in[base + k * T] for
  // k = 0 .. kIlp-1 into a register array int4 v[kIlp] (only where the index is < n),
  // THEN store them. Loads first, stores after: a store between two loads makes the
  // next load wait (in and out might overlap, so the compiler may not reorder them).
}
