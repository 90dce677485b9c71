/* STAND-IN, NOT THE REAL API: the subset of NVIDIA's Compute Sanitizer API declarations that the
 * tracer uses, for syntax checks without the real headers (see README.md in this directory).
 * Sources: Compute Sanitizer API reference (docs.nvidia.com/compute-sanitizer/api/), the
 * "Sanitizer Patching API", "Callback API", "Memory API", "Stream API" and "Result Codes" pages,
 * and the sanitizer_{result,callbacks,memory,patching}.h headers those pages document. */
#pragma once

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#ifndef SANITIZERAPI
#define SANITIZERAPI
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/* sanitizer_result.h */
typedef enum {
  SANITIZER_SUCCESS = 0,
  SANITIZER_ERROR_INVALID_PARAMETER = 1,
  SANITIZER_ERROR_NOT_INITIALIZED = 13,
  SANITIZER_ERROR_NOT_SUPPORTED = 14,
  SANITIZER_ERROR_UNKNOWN = 999,
  SANITIZER_ERROR_FORCE_INT = 0x7fffffff
} SanitizerResult;
SanitizerResult SANITIZERAPI sanitizerGetResultString(SanitizerResult result, const char **str);

/* sanitizer_stream.h */
typedef struct Sanitizer_Stream_st *Sanitizer_StreamHandle;
SanitizerResult SANITIZERAPI sanitizerStreamSynchronize(Sanitizer_StreamHandle stream);

/* sanitizer_memory.h */
SanitizerResult SANITIZERAPI sanitizerAlloc(CUcontext ctx, void **devPtr, size_t size);
SanitizerResult SANITIZERAPI sanitizerAllocHost(CUcontext ctx, void **devPtr, size_t size);
SanitizerResult SANITIZERAPI sanitizerFree(CUcontext ctx, void *devPtr);
SanitizerResult SANITIZERAPI sanitizerFreeHost(CUcontext ctx, void *devPtr);
SanitizerResult SANITIZERAPI sanitizerMemcpyHostToDeviceAsync(void *dst, void *src, size_t count,
                                                              Sanitizer_StreamHandle stream);
SanitizerResult SANITIZERAPI sanitizerMemcpyDeviceToHost(void *dst, void *src, size_t count,
                                                         Sanitizer_StreamHandle stream);
SanitizerResult SANITIZERAPI sanitizerMemset(void *devPtr, int value, size_t count, Sanitizer_StreamHandle stream);

/* sanitizer_callbacks.h */
typedef enum {
  SANITIZER_CB_DOMAIN_INVALID = 0,
  SANITIZER_CB_DOMAIN_DRIVER_API = 1,
  SANITIZER_CB_DOMAIN_RUNTIME_API = 2,
  SANITIZER_CB_DOMAIN_RESOURCE = 3,
  SANITIZER_CB_DOMAIN_SYNCHRONIZE = 4,
  SANITIZER_CB_DOMAIN_LAUNCH = 5,
  SANITIZER_CB_DOMAIN_FORCE_INT = 0x7fffffff
} Sanitizer_CallbackDomain;
typedef enum {
  SANITIZER_CBID_RESOURCE_INVALID = 0,
  SANITIZER_CBID_RESOURCE_MODULE_LOADED = 9,
  SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING = 10,
  SANITIZER_CBID_RESOURCE_FORCE_INT = 0x7fffffff
} Sanitizer_CallbackIdResource;
typedef enum {
  SANITIZER_CBID_LAUNCH_INVALID = 0,
  SANITIZER_CBID_LAUNCH_BEGIN = 1,
  SANITIZER_CBID_LAUNCH_AFTER_SYSCALL_SETUP = 2,
  SANITIZER_CBID_LAUNCH_END = 3,
  SANITIZER_CBID_LAUNCH_FORCE_INT = 0x7fffffff
} Sanitizer_CallbackIdLaunch;
typedef struct {
  CUcontext context;
  CUmodule module;
  size_t cubinSize;
  const char *pCubin;
  CUlibrary library;
} Sanitizer_ResourceModuleData;
typedef struct Sanitizer_Launch_st *Sanitizer_LaunchHandle;
typedef struct {
  CUcontext context;
  CUstream stream;
  Sanitizer_StreamHandle hStream;
  CUmodule module;
  CUfunction function;
  const char *functionName;
  uint32_t gridDim_x, gridDim_y, gridDim_z;
  uint32_t blockDim_x, blockDim_y, blockDim_z;
  uint32_t clusterDim_x, clusterDim_y, clusterDim_z;
  uint64_t gridId;
  Sanitizer_LaunchHandle hLaunch;
  CUdevice device;
  CUcontext apiContext;
  CUstream apiStream;
  Sanitizer_StreamHandle hApiStream;
} Sanitizer_LaunchData;
typedef uint32_t Sanitizer_CallbackId;
typedef void(SANITIZERAPI *Sanitizer_CallbackFunc)(void *userdata, Sanitizer_CallbackDomain domain,
                                                   Sanitizer_CallbackId cbid, const void *cbdata);
typedef struct Sanitizer_Subscriber_st *Sanitizer_SubscriberHandle;
SanitizerResult SANITIZERAPI sanitizerSubscribe(Sanitizer_SubscriberHandle *subscriber, Sanitizer_CallbackFunc callback,
                                                void *userdata);
SanitizerResult SANITIZERAPI sanitizerUnsubscribe(Sanitizer_SubscriberHandle subscriber);
SanitizerResult SANITIZERAPI sanitizerEnableCallback(uint32_t enable, Sanitizer_SubscriberHandle subscriber,
                                                     Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid);
SanitizerResult SANITIZERAPI sanitizerEnableDomain(uint32_t enable, Sanitizer_SubscriberHandle subscriber,
                                                   Sanitizer_CallbackDomain domain);
SanitizerResult SANITIZERAPI sanitizerEnableAllDomains(uint32_t enable, Sanitizer_SubscriberHandle subscriber);

/* sanitizer_patching.h */
typedef enum {
  SANITIZER_PATCH_SUCCESS = 0,
  SANITIZER_PATCH_ERROR = 1,
  SANITIZER_PATCH_FORCE_INT = 0x7fffffff
} SanitizerPatchResult;
typedef enum {
  SANITIZER_MEMORY_DEVICE_FLAG_NONE = 0,
  SANITIZER_MEMORY_DEVICE_FLAG_READ = 0x1,
  SANITIZER_MEMORY_DEVICE_FLAG_WRITE = 0x2,
  SANITIZER_MEMORY_DEVICE_FLAG_ATOMSYS = 0x4,
  SANITIZER_MEMORY_DEVICE_FLAG_PREFETCH = 0x8,
  SANITIZER_MEMORY_DEVICE_FLAG_FORCE_INT = 0x7fffffff
} Sanitizer_DeviceMemoryFlags;
typedef enum {
  SANITIZER_INSTRUCTION_INVALID = 0,
  SANITIZER_INSTRUCTION_BLOCK_ENTER = 1,
  SANITIZER_INSTRUCTION_BLOCK_EXIT = 2,
  SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS = 3,
  SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS = 4,
  SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS = 5,
  SANITIZER_INSTRUCTION_BARRIER = 6,
  SANITIZER_INSTRUCTION_SYNCWARP = 7,
  SANITIZER_INSTRUCTION_SHFL = 8,
  SANITIZER_INSTRUCTION_FORCE_INT = 0x7fffffff
} Sanitizer_InstructionId;
SanitizerResult SANITIZERAPI sanitizerAddPatchesFromFile(const char *filename, CUcontext ctx);
SanitizerResult SANITIZERAPI sanitizerAddPatches(const void *image, CUcontext ctx);
SanitizerResult SANITIZERAPI sanitizerPatchInstructions(const Sanitizer_InstructionId instructionId, CUmodule module,
                                                        const char *deviceCallbackName);
SanitizerResult SANITIZERAPI sanitizerPatchModule(CUmodule module);
SanitizerResult SANITIZERAPI sanitizerUnpatchModule(CUmodule module);
SanitizerResult SANITIZERAPI sanitizerSetCallbackData(CUfunction kernel, const void *userdata);
SanitizerResult SANITIZERAPI sanitizerSetLaunchCallbackData(Sanitizer_LaunchHandle launch, CUfunction kernel,
                                                            Sanitizer_StreamHandle stream, const void *userdata);

#if defined(__cplusplus)
}
#endif
