/// @file trace_format.h
/// @brief The record a patched kernel writes for every traced event, shared by the device patches
/// (tracer_patches.cu), the injection library (tracer.cpp) and the format check
/// (host_check/write_sample_trace.cpp). Plain C++17, no CUDA or Compute Sanitizer header needed.
///
/// One record per *thread* per event: the patch functions run once for every active thread that
/// executes a patched instruction (MemoryTracker's patches record `threadIdx` per call for the
/// same reason: NVIDIA/compute-sanitizer-samples, MemoryTracker/MemoryTrackerPatches.cu).
/// The host groups the records of one warp afterwards (render.py): by warp, by barrier interval
/// ("step") and by instruction (pc and how many times the thread has executed it).
#pragma once

#include <cstdint>

namespace tracer {

/// What a record describes.
enum RecordKind : uint8_t {
  kGlobal = 0,      ///< global memory access; `address` is the generic address
  kShared = 1,      ///< shared memory access; `address` is the offset in the block's shared window
  kBarrier = 2,     ///< __syncthreads() and friends; `address` = barIndex | (threadCount << 32)
                    ///< (threadCount 0: all threads of the block); `flags` = Sanitizer_BarrierFlags
  kSyncwarp = 3,    ///< __syncwarp(mask); `address` = mask
  kBlockEnter = 4,  ///< a thread of the block starts (before any user code)
  kBlockExit = 5,   ///< a thread of the block ends (after all user code)
};

/// Access flags of kGlobal/kShared records, the same bit values as Sanitizer_DeviceMemoryFlags
/// (sanitizer_patching.h, CUDA 12.6: READ 0x1, WRITE 0x2, ATOMSYS 0x4 "a system-scoped atomic",
/// PREFETCH 0x8 "a cache prefetch"). An atomic has both READ and WRITE set (see
/// GetMemoryRWString in MemoryTracker/MemoryTracker.cpp, fixed in sample commit f19ef62).
/// Prefetches move no data to the thread; the patches drop them (kPrefetch never appears in a trace).
/// kBarrier records carry Sanitizer_BarrierFlags instead (0x1: UNALIGNED_ALLOWED, "the barrier can
/// be called unaligned", SM 7.0 and above); other kinds carry 0.
enum RecordFlags : uint8_t {
  kRead = 0x1,
  kWrite = 0x2,
  kAtomicSystem = 0x4,
  kPrefetch = 0x8,
};

/// @brief One traced event of one thread: 32 bytes, written by the patch, copied back verbatim.
struct Record {
  uint64_t address;      ///< see RecordKind
  uint64_t pc;           ///< program counter of the patched instruction (as the API reports it)
  uint32_t block;        ///< linear block index: x + gridDim.x * (y + gridDim.y * z)
  uint32_t active_mask;  ///< __activemask() of the warp when the patch ran
  uint16_t thread;       ///< linear thread index in the block: x + blockDim.x * (y + blockDim.y * z)
  uint8_t kind;          ///< RecordKind
  uint8_t size;          ///< access size in bytes (1, 2, 4, 8, 16); 0 for non-memory events
  uint8_t flags;         ///< RecordFlags (memory kinds), Sanitizer_BarrierFlags (kBarrier), else 0
  uint8_t reserved[3];   ///< zero
};
static_assert(sizeof(Record) == 32, "Record is written by the device and read by the host as 32 bytes");

/// @brief The per-launch buffer the patches receive as `userdata` (sanitizerSetCallbackData).
/// Lives in device memory; `records` points to `capacity` Records in device memory.
struct Buffer {
  uint32_t next;        ///< atomicAdd counter: records claimed so far (may exceed capacity)
  uint32_t capacity;    ///< records that fit in `records`
  uint32_t max_blocks;  ///< only blocks with a linear index below this are traced
  uint32_t reserved;    ///< zero
  Record *records;      ///< the record array
};

/// Threads per warp (every NVIDIA GPU so far).
constexpr unsigned kWarpSize = 32;

}  // namespace tracer
