/// @file tracer_patches.cu
/// @brief Device patch functions of the kernel tracer. Compiled on its own into a fatbin
/// (`nvcc --fatbin --compile-as-tools-patch`, as NVIDIA/compute-sanitizer-samples
/// MemoryTracker/Makefile does) and loaded by tracer.cpp with sanitizerAddPatchesFromFile; the
/// Compute Sanitizer patching API then inserts a call to one of these functions before every
/// instruction of the chosen kind in the traced program's kernels.
///
/// Signatures: the callback typedefs of sanitizer_patching.h, checked against the CUDA 12.6 header
/// (compute-sanitizer/include/sanitizer_patching.h; every one returns SanitizerPatchResult):
///   SanitizerCallbackMemoryAccess(void* userdata, uint64_t pc, void* ptr, uint32_t accessSize,
///                                 uint32_t flags, const void* pData)
///   SanitizerCallbackBarrier(void* userdata, uint64_t pc, uint32_t barIndex, uint32_t threadCount,
///                            uint32_t flags)
///   SanitizerCallbackSyncwarp(void* userdata, uint64_t pc, uint32_t mask)
///   SanitizerCallbackBlockEnter(void* userdata, uint64_t pc)
///   SanitizerCallbackBlockExit(void* userdata, uint64_t pc)
/// Memory access: for shared (and local) memory `ptr` is "the offset within the local or shared
/// memory window"; `accessSize` is 1, 2, 4, 8 or 16; `flags` are Sanitizer_DeviceMemoryFlags;
/// `pData` points to the value written for a write, to a 32-bit mask of the loaded bytes used for a
/// read (may be NULL), and is NULL for an atomic (unused here). Barrier: `flags` are
/// Sanitizer_BarrierFlags (0x1 UNALIGNED_ALLOWED), not memory flags. A patch that returns
/// SANITIZER_PATCH_ERROR exits the thread (the whole warp on Volta and newer), so these always
/// return SANITIZER_PATCH_SUCCESS. Older headers (2021) name the last memory-access parameter
/// `newValue`; MemoryTracker's patches (MemoryTracker/MemoryTrackerPatches.cu) declare only the
/// first five parameters. `extern "C" __device__ __noinline__` is as in MemoryTrackerPatches.cu.
#include "trace_format.h"

#include <sanitizer_patching.h>

namespace {

/// @brief Linear index of the calling thread's block: x + gridDim.x * (y + gridDim.y * z).
__device__ __forceinline__ uint32_t linear_block() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

/// @brief Linear index of the calling thread in its block: x + blockDim.x * (y + blockDim.y * z),
/// the order in which a block is cut into warps.
__device__ __forceinline__ uint32_t linear_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/// @brief Claims one record slot and fills it. Does nothing without a buffer (a kernel launched
/// while tracing is off for it), for blocks past the traced ones, or when the buffer is full
/// (the host reports the shortfall as `dropped`: `next` keeps counting).
__device__ __forceinline__ void emit(void *userdata, uint8_t kind, uint64_t pc, uint64_t address, uint32_t size,
                                     uint32_t flags) {
  auto *buffer = static_cast<tracer::Buffer *>(userdata);
  if (buffer == nullptr) return;
  const uint32_t block = linear_block();
  if (block >= buffer->max_blocks) return;
  const uint32_t mask = __activemask();
  const uint32_t slot = atomicAdd(&buffer->next, 1u);
  if (slot >= buffer->capacity) return;
  tracer::Record &r = buffer->records[slot];
  r.address = address;
  r.pc = pc;
  r.block = block;
  r.active_mask = mask;
  r.thread = static_cast<uint16_t>(linear_thread());
  r.kind = kind;
  r.size = static_cast<uint8_t>(size);
  r.flags = static_cast<uint8_t>(flags & 0xffu);
  r.reserved[0] = r.reserved[1] = r.reserved[2] = 0;
}

/// @brief What both memory-access patches do: record the access, except a cache prefetch
/// (SANITIZER_MEMORY_DEVICE_FLAG_PREFETCH, 0x8 in the 12.6 header), which accesses no data.
__device__ __forceinline__ SanitizerPatchResult record_access(void *userdata, uint8_t kind, uint64_t pc, void *ptr,
                                                              uint32_t accessSize, uint32_t flags) {
  if ((flags & tracer::kPrefetch) == 0) emit(userdata, kind, pc, reinterpret_cast<uint64_t>(ptr), accessSize, flags);
  return SANITIZER_PATCH_SUCCESS;
}

}  // namespace

/// @brief Patch for SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS: records the generic address.
extern "C" __device__ __noinline__ SanitizerPatchResult TracerGlobalAccess(void *userdata, uint64_t pc, void *ptr,
                                                                         uint32_t accessSize, uint32_t flags,
                                                                         const void * /*pData*/) {
  return record_access(userdata, tracer::kGlobal, pc, ptr, accessSize, flags);
}

/// @brief Patch for SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS: `ptr` is the offset in the block's
/// shared memory window (API reference), which is what the bank of an access depends on.
extern "C" __device__ __noinline__ SanitizerPatchResult TracerSharedAccess(void *userdata, uint64_t pc, void *ptr,
                                                                         uint32_t accessSize, uint32_t flags,
                                                                         const void * /*pData*/) {
  return record_access(userdata, tracer::kShared, pc, ptr, accessSize, flags);
}

/// @brief Patch for SANITIZER_INSTRUCTION_BARRIER (called before the barrier): records barIndex and
/// threadCount (0: all threads); `flags` are Sanitizer_BarrierFlags, kept in the record's flags.
extern "C" __device__ __noinline__ SanitizerPatchResult TracerBarrier(void *userdata, uint64_t pc, uint32_t barIndex,
                                                                    uint32_t threadCount, uint32_t flags) {
  emit(userdata, tracer::kBarrier, pc, static_cast<uint64_t>(barIndex) | (static_cast<uint64_t>(threadCount) << 32), 0,
       flags);
  return SANITIZER_PATCH_SUCCESS;
}

/// @brief Patch for SANITIZER_INSTRUCTION_SYNCWARP: records the mask passed to __syncwarp().
extern "C" __device__ __noinline__ SanitizerPatchResult TracerSyncwarp(void *userdata, uint64_t pc, uint32_t mask) {
  emit(userdata, tracer::kSyncwarp, pc, mask, 0, 0);
  return SANITIZER_PATCH_SUCCESS;
}

/// @brief Patch for SANITIZER_INSTRUCTION_BLOCK_ENTER: one record per thread that starts.
extern "C" __device__ __noinline__ SanitizerPatchResult TracerBlockEnter(void *userdata, uint64_t pc) {
  emit(userdata, tracer::kBlockEnter, pc, 0, 0, 0);
  return SANITIZER_PATCH_SUCCESS;
}

/// @brief Patch for SANITIZER_INSTRUCTION_BLOCK_EXIT: one record per thread that ends.
extern "C" __device__ __noinline__ SanitizerPatchResult TracerBlockExit(void *userdata, uint64_t pc) {
  emit(userdata, tracer::kBlockExit, pc, 0, 0, 0);
  return SANITIZER_PATCH_SUCCESS;
}
