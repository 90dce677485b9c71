/// @file latency.cu
/// @brief Lab ch03_04: Little's law on the host, a latency probe and a copy that hides latency
/// with independent loads (see README.md and latency.cuh).
#include "latency.cuh"

#include <cmath>

// ---------------------------------------------------------------------------------------------
// Part 1: Little's law (host)
// ---------------------------------------------------------------------------------------------

double required_parallelism(double latency, double throughput) {
  // BEGIN SOLUTION
  return latency * throughput;
  // STUB: // TODO(ch03_04): Little's law.
  // STUB: (void)latency;
  // STUB: (void)throughput;
  // STUB: return 0.0;
  // END SOLUTION
}

double warps_for_operations(double operations, int warp_size) {
  // BEGIN SOLUTION
  return operations / warp_size;
  // STUB: // TODO(ch03_04): one operation per lane.
  // STUB: (void)operations;
  // STUB: (void)warp_size;
  // STUB: return 0.0;
  // END SOLUTION
}

double bytes_per_cycle(double bandwidth_gbs, double clock_ghz) {
  // BEGIN SOLUTION
  return bandwidth_gbs / clock_ghz;  // (1e9 B/s) / (1e9 cycles/s)
  // STUB: // TODO(ch03_04): GB/s and GHz share the factor 1e9.
  // STUB: (void)bandwidth_gbs;
  // STUB: (void)clock_ghz;
  // STUB: return 0.0;
  // END SOLUTION
}

double bytes_in_flight(double latency_cycles, double bytes_per_cycle) {
  // BEGIN SOLUTION
  return required_parallelism(latency_cycles, bytes_per_cycle);
  // STUB: // TODO(ch03_04): Little's law for bytes.
  // STUB: (void)latency_cycles;
  // STUB: (void)bytes_per_cycle;
  // STUB: return 0.0;
  // END SOLUTION
}

double threads_needed(double bytes_in_flight, double bytes_per_thread) {
  // BEGIN SOLUTION
  return bytes_in_flight / bytes_per_thread;
  // STUB: // TODO(ch03_04): each thread has bytes_per_thread bytes in flight.
  // STUB: (void)bytes_in_flight;
  // STUB: (void)bytes_per_thread;
  // STUB: return 0.0;
  // END SOLUTION
}

int warps_needed(double threads, int warp_size) {
  // BEGIN SOLUTION
  return static_cast<int>(std::ceil(threads / warp_size));
  // STUB: // TODO(ch03_04): whole warps (a partial warp still takes a warp slot).
  // STUB: (void)threads;
  // STUB: (void)warp_size;
  // STUB: return 0;
  // END SOLUTION
}

double warps_per_sm(double warps, int sm_count) {
  // BEGIN SOLUTION
  return warps / sm_count;
  // STUB: // TODO(ch03_04): the bandwidth belongs to the whole GPU; spread the warps over the SMs.
  // STUB: (void)warps;
  // STUB: (void)sm_count;
  // STUB: return 0.0;
  // END SOLUTION
}

double littles_law_bandwidth_gbs(double bytes_in_flight, double latency_ns) {
  // BEGIN SOLUTION
  return bytes_in_flight / latency_ns;  // bytes per ns = GB/s
  // STUB: // TODO(ch03_04): throughput = what is in flight / latency; bytes per ns are GB/s.
  // STUB: (void)bytes_in_flight;
  // STUB: (void)latency_ns;
  // STUB: return 0.0;
  // END SOLUTION
}

MemoryParallelism memory_parallelism(double latency_cycles, double bandwidth_gbs, double clock_ghz,
                                     double bytes_per_thread, int warp_size, int sm_count) {
  MemoryParallelism m;
  // BEGIN SOLUTION
  m.bytes_per_cycle = bytes_per_cycle(bandwidth_gbs, clock_ghz);
  m.bytes_in_flight = bytes_in_flight(latency_cycles, m.bytes_per_cycle);
  m.threads = threads_needed(m.bytes_in_flight, bytes_per_thread);
  m.warps = warps_needed(m.threads, warp_size);
  m.warps_per_sm = warps_per_sm(m.warps, sm_count);
  // STUB: // TODO(ch03_04): chain the functions above; do not round the intermediate steps
  // STUB: // (only warps is whole).
  // STUB: (void)latency_cycles;
  // STUB: (void)bandwidth_gbs;
  // STUB: (void)clock_ghz;
  // STUB: (void)bytes_per_thread;
  // STUB: (void)warp_size;
  // STUB: (void)sm_count;
  // END SOLUTION
  return m;
}

// ---------------------------------------------------------------------------------------------
// Part 2: measuring latency by pointer chasing
// ---------------------------------------------------------------------------------------------

__global__ void pointerChase(const unsigned int *next, unsigned int start, unsigned int warmup_steps,
                             unsigned int steps, ChaseResult *result) {
  // BEGIN SOLUTION
  unsigned int j = start;
  for (unsigned int i = 0; i < warmup_steps; ++i) j = next[j];  // untimed: fills the caches
  const long long t0 = clock64();
  for (unsigned int i = 0; i < steps; ++i) j = next[j];  // each address depends on the last load
  const long long t1 = clock64();
  result->index = j;  // using j keeps the loop alive
  result->cycles = t1 - t0;
  // STUB: // TODO(ch03_04): j = start; follow j = next[j] warmup_steps times (untimed), then read
  // STUB: // clock64(), follow steps more hops, read clock64() again. Write the final j to
  // STUB: // result->index and the difference of the two clock readings to result->cycles.
  // STUB: // Plain loads (next[j]): the L1 measurement needs the L1 cache.
  // END SOLUTION
}

// ---------------------------------------------------------------------------------------------
// Part 3: hiding latency with independent loads
// ---------------------------------------------------------------------------------------------

__global__ void copyInt4(const int4 *in, int4 *out, std::size_t n) {
  // BEGIN SOLUTION
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i];
  // STUB: // TODO(ch03_04): grid-stride loop: i = global thread index; while i < n:
  // STUB: // out[i] = in[i]; i += gridDim.x * blockDim.x (use std::size_t).
  // END SOLUTION
}

__global__ void copyInt4Ilp4(const int4 *in, int4 *out, std::size_t n) {
  // BEGIN SOLUTION
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t base = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; base < n; base += kIlp * stride) {
    int4 v[kIlp];
#pragma unroll
    for (int k = 0; k < kIlp; ++k) {  // kIlp loads issued back to back: all in flight together
      const std::size_t i = base + k * stride;
      if (i < n) v[k] = in[i];
    }
#pragma unroll
    for (int k = 0; k < kIlp; ++k) {  // the first store waits for its load; the others are ready
      const std::size_t i = base + k * stride;
      if (i < n) out[i] = v[k];
    }
  }
  // STUB: // TODO(ch03_04): grid-stride loop whose index base advances by kIlp * T
  // STUB: // (T = gridDim.x * blockDim.x). In each iteration: load in[base + k * T] for
  // STUB: // k = 0 .. kIlp-1 into a register array int4 v[kIlp] (only where the index is < n),
  // STUB: // THEN store them. Loads first, stores after: a store between two loads makes the
  // STUB: // next load wait (in and out might overlap, so the compiler may not reorder them).
  // END SOLUTION
}
