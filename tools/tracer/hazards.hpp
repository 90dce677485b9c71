/// @file hazards.hpp
/// @brief Data races on global memory inside one thread block, found in a kernel trace: a read by
/// one thread and a write by another of the same bytes, with no barrier that orders them.
///
/// compute-sanitizer's racecheck looks at shared memory only, so a warp-synchronous step written on
/// global memory (the book's `volatile int *vmem = idata; vmem[tid] += vmem[tid + 16]; ...`) passes
/// it although lane t reads vmem[t + 16] while lane t + 16 may already be writing it (Volta and newer
/// schedule the lanes of a warp independently: CUDA C++ Programming Guide, "Independent Thread
/// Scheduling" and the __syncwarp() example under "Warp Synchronization Functions"). This check
/// applies the same rule to the global accesses the tracer recorded (tracer_patches.cu). Plain
/// C++17, no CUDA header: the tracer (tracer.cpp) and the host check (host_check/) use it.
///
/// The model, per traced block. The records of one thread are in its program order (each claims its
/// slot with atomicAdd after the previous one). A thread's *step* is the number of block barriers
/// (__syncthreads() and friends) it has passed; its *warp phase* is the number of __syncwarp()s it
/// has passed since the last block barrier. Two accesses of different threads to overlapping bytes
/// are ordered when their steps differ, or, for two lanes of one warp, when their warp phases
/// differ; a read and a write that are not ordered are a hazard.
///
/// What it leaves out, on purpose (each would risk marking correct code down):
///  * two writes (a write-write race leaves one of the values: the correctness tests see a wrong one);
///  * atomics (an access with both the read and the write flag): atomics of one location are ordered;
///  * other blocks (in-place reductions give every block its own part of the array);
///  * named or partial barriers, which count as block barriers.
/// A buffer that ran full keeps every thread's records a prefix of what it did (slots are claimed in
/// time order), so the steps of what was recorded stay right: hazards are only missed, never invented.
#pragma once

#include "trace_format.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tracer {

/// @brief One read-write pair of different threads of one block on the same bytes, not ordered by
/// a barrier.
struct Hazard {
  uint32_t block = 0;       ///< linear block index
  uint64_t address = 0;     ///< the first byte both accesses touch
  uint64_t block_low = 0;   ///< the lowest global address the block accessed (to print offsets)
  uint16_t writer = 0;      ///< linear thread index of the writing thread
  uint16_t reader = 0;      ///< linear thread index of the reading thread
  uint64_t writer_pc = 0;   ///< pc of the write (as the Compute Sanitizer API reports it)
  uint64_t reader_pc = 0;   ///< pc of the read
  uint8_t size = 0;         ///< bytes of the write
  uint32_t step = 0;        ///< block barriers both threads had passed
  uint32_t writer_phase = 0;  ///< __syncwarp()s the writer had passed since that barrier
  uint32_t reader_phase = 0;  ///< same for the reader
  bool same_warp = false;     ///< the two threads are lanes of one warp
};

/// @brief What find_global_hazards() found in one launch.
struct HazardReport {
  uint64_t accesses = 0;        ///< global accesses looked at
  uint64_t hazards = 0;         ///< (block, step, 4-byte word) places with at least one hazard
  std::vector<Hazard> first;    ///< the first few of them, in block, step and address order
};

/// @brief Finds read-write hazards on global memory between threads of one block (see the file's
/// comment for the model) in @p n records of one launch, in the order the tracer claimed them.
/// Keeps at most @p keep examples.
inline HazardReport find_global_hazards(const Record *records, size_t n, size_t keep = 4) {
  struct Position {
    uint32_t step = 0, phase = 0;
  };
  struct Access {
    uint32_t block, step, phase;
    uint64_t word;     // address / 4
    uint8_t bytes;     // which of the word's 4 bytes (bit i: byte i)
    uint8_t size;
    bool write;
    uint16_t thread;
    uint64_t address, pc;
  };
  std::unordered_map<uint64_t, Position> where;  // (block << 16 | thread) -> its step and phase
  std::unordered_map<uint32_t, uint64_t> low;    // block -> lowest global address it accessed
  std::vector<Access> accesses;
  HazardReport report;
  for (size_t i = 0; i < n; ++i) {
    const Record &r = records[i];
    Position &p = where[(uint64_t(r.block) << 16) | r.thread];
    if (r.kind == kBarrier) {
      ++p.step;
      p.phase = 0;
      continue;
    }
    if (r.kind == kSyncwarp) {
      ++p.phase;
      continue;
    }
    if (r.kind != kGlobal || r.size == 0) continue;
    const bool reads = (r.flags & kRead) != 0, writes = (r.flags & kWrite) != 0;
    if ((reads && writes) || (!reads && !writes) || (r.flags & kPrefetch) != 0) continue;  // atomic / nothing
    ++report.accesses;
    auto [it, fresh] = low.emplace(r.block, r.address);
    if (!fresh) it->second = std::min(it->second, r.address);
    // One entry per 4-byte word the access touches, with the bytes it touches in that word.
    for (uint64_t a = r.address; a < r.address + r.size;) {
      const uint64_t word = a >> 2, end = std::min<uint64_t>((word + 1) << 2, r.address + r.size);
      uint8_t mask = 0;
      for (uint64_t b = a; b < end; ++b) mask = uint8_t(mask | (1u << (b & 3)));
      accesses.push_back({r.block, p.step, p.phase, word, mask, r.size, writes, r.thread, r.address, r.pc});
      a = end;
    }
  }
  std::stable_sort(accesses.begin(), accesses.end(), [](const Access &x, const Access &y) {
    if (x.block != y.block) return x.block < y.block;
    if (x.step != y.step) return x.step < y.step;
    return x.word < y.word;
  });
  for (size_t begin = 0; begin < accesses.size();) {
    size_t end = begin + 1;
    while (end < accesses.size() && accesses[end].block == accesses[begin].block &&
           accesses[end].step == accesses[begin].step && accesses[end].word == accesses[begin].word)
      ++end;
    bool found = false;
    for (size_t w = begin; w < end && !found; ++w) {
      const Access &wr = accesses[w];
      if (!wr.write) continue;
      for (size_t r = begin; r < end && !found; ++r) {
        const Access &rd = accesses[r];
        if (rd.write || rd.thread == wr.thread || (rd.bytes & wr.bytes) == 0) continue;
        const bool same_warp = rd.thread / kWarpSize == wr.thread / kWarpSize;
        if (same_warp && rd.phase != wr.phase) continue;  // a __syncwarp() between them
        found = true;
        if (report.first.size() < keep) {
          Hazard h;
          h.block = wr.block;
          h.address = std::max(wr.address, rd.address);
          h.block_low = low[wr.block];
          h.writer = wr.thread;
          h.reader = rd.thread;
          h.writer_pc = wr.pc;
          h.reader_pc = rd.pc;
          h.size = wr.size;
          h.step = wr.step;
          h.writer_phase = wr.phase;
          h.reader_phase = rd.phase;
          h.same_warp = same_warp;
          report.first.push_back(h);
        }
      }
    }
    if (found) ++report.hazards;
    begin = end;
  }
  return report;
}

}  // namespace tracer
