/// @file tracer.cpp
/// @brief Host side of the kernel tracer: an injection library (libkernel_tracer.so) loaded into a
/// CUDA program with LD_PRELOAD. It subscribes to the Compute Sanitizer callback API, patches every
/// loaded module with the functions of tracer_patches.cu, gives chosen kernel launches a device
/// buffer, and after each such launch copies the records back and appends them to a JSON-lines
/// trace file (trace_writer.hpp) that render.py turns into pictures.
///
/// The structure follows NVIDIA/compute-sanitizer-samples, MemoryTracker/MemoryTracker.cpp:
/// subscribe in a global initializer (sanitizerSubscribe), on SANITIZER_CBID_RESOURCE_MODULE_LOADED
/// call sanitizerAddPatchesFromFile, sanitizerPatchInstructions per instruction kind and
/// sanitizerPatchModule; on SANITIZER_CBID_LAUNCH_BEGIN allocate with sanitizerAlloc, initialise
/// with sanitizerMemcpyHostToDeviceAsync and attach with sanitizerSetCallbackData; read back with
/// sanitizerMemcpyDeviceToHost. Unlike the sample (which reads back on stream/context
/// synchronisation), this reads back at SANITIZER_CBID_LAUNCH_END after sanitizerStreamSynchronize,
/// into pinned memory from sanitizerAllocHost. (The CUDA 12.6 sanitizer_memory.h only says that
/// sanitizerMemcpyDeviceToHost is the "Equivalent of cudaMemcpy that can be called within a callback
/// function" and returns "once the copy has completed"; it states no pinned-memory rule. Pinned is
/// the cautious choice; reading back at LAUNCH_END is unverified, see compute-sanitizer-samples
/// issues #22 and #23.)
///
/// Sanitizer_LaunchData (sanitizer_callbacks.h): gridDim_* / blockDim_* "are only valid for
/// SANITIZER_CBID_LAUNCH_BEGIN and graph node launch callbacks", so they are read there only. The
/// fields used (context, hStream, function, functionName, gridDim_*, blockDim_*) are the long-standing
/// ones; the newer ones (clusterDim_*, gridId, hLaunch, device, apiContext, apiStream, hApiStream in
/// 12.6) are not used, nor is Sanitizer_ResourceModuleData::library (CUlibrary).
///
/// Environment:
///   TRACER_OUT           trace file (default trace.jsonl; overwritten)
///   TRACER_PATCHES       the patch fatbin (default: tracer_patches.fatbin beside this library)
///   TRACER_KERNELS       comma-separated substrings of kernel names to trace (default: all)
///   TRACER_MAX_BLOCKS    trace blocks with a linear index below this (default 4)
///   TRACER_MAX_RECORDS   records per launch (default 1048576, 32 bytes each)
///   TRACER_MAX_LAUNCHES  traced launches per process (default 64; with TRACER_HAZARDS, no limit)
///   TRACER_KERNELS_EXACT comma-separated kernel names to trace, each the whole name (no parameters or
///                        template arguments): reduceInterleaved traces neither
///                        baseline::reduceInterleaved nor reduceInterleavedTail (instead of TRACER_KERNELS)
///   TRACER_HAZARDS       hazard file: for every traced launch one line with the read-write hazards on
///                        global memory inside a block (hazards.hpp) instead of its records; only
///                        global accesses and barriers are recorded then, and the trace file is
///                        written only when TRACER_OUT is set too
#include "hazards.hpp"
#include "trace_format.h"
#include "trace_writer.hpp"

#include <sanitizer.h>

#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

/// @brief An environment variable as an unsigned number, or @p fallback when unset or not a number.
uint64_t env_number(const char *name, uint64_t fallback) {
  const char *value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  char *end = nullptr;
  const unsigned long long n = std::strtoull(value, &end, 10);
  return (end != nullptr && *end == '\0') ? n : fallback;
}

/// @brief An environment variable as a string, or @p fallback when unset or empty.
std::string env_string(const char *name, const std::string &fallback) {
  const char *value = std::getenv(name);
  return (value != nullptr && *value != '\0') ? std::string(value) : fallback;
}

/// @brief The descriptive string of a SanitizerResult (sanitizerGetResultString, sanitizer_result.h).
std::string result_string(SanitizerResult r) {
  const char *text = nullptr;
  if (sanitizerGetResultString(r, &text) == SANITIZER_SUCCESS && text != nullptr) return text;
  return "SanitizerResult " + std::to_string(static_cast<int>(r));
}

/// @brief The demangled form of a kernel name, or the name itself when it is not a C++ mangled name.
std::string demangle(const char *name) {
  if (name == nullptr) return "";
  int status = 0;
  char *plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = (status == 0 && plain != nullptr) ? std::string(plain) : std::string(name);
  std::free(plain);
  return out;
}

/// @brief Directory of this shared library (dladdr on one of its functions), with a trailing '/'.
std::string library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&library_dir), &info) != 0 && info.dli_fname != nullptr) {
    std::string path = info.dli_fname;
    const auto slash = path.rfind('/');
    if (slash != std::string::npos) return path.substr(0, slash + 1);
  }
  return "./";
}

/// @brief One traced launch between its LAUNCH_BEGIN and LAUNCH_END callbacks.
struct Pending {
  tracer::LaunchInfo info;                  ///< what the launch line will say
  CUcontext context = nullptr;              ///< context of the launch (owner of the allocations)
  tracer::Buffer *device_buffer = nullptr;  ///< the Buffer the patches write through
  tracer::Record *device_records = nullptr; ///< its record array
};

/// @brief Everything the callbacks share; the callbacks hold `mutex` (the patching calls must be
/// serialised, sanitizer_patching.h).
struct Tracer {
  std::mutex mutex;
  Sanitizer_SubscriberHandle subscriber = nullptr;
  std::FILE *out = nullptr;
  std::FILE *hazards_out = nullptr;
  std::string hazards_path = env_string("TRACER_HAZARDS", "");
  bool write_records = hazards_path.empty() || !env_string("TRACER_OUT", "").empty();
  std::string out_path = env_string("TRACER_OUT", "trace.jsonl");
  std::string patches = env_string("TRACER_PATCHES", library_dir() + "tracer_patches.fatbin");
  std::vector<std::string> filters;
  std::vector<std::string> exact;  ///< TRACER_KERNELS_EXACT
  uint32_t max_blocks = static_cast<uint32_t>(env_number("TRACER_MAX_BLOCKS", 4));
  uint32_t max_records = static_cast<uint32_t>(env_number("TRACER_MAX_RECORDS", 1u << 20));
  uint32_t max_launches =
      static_cast<uint32_t>(env_number("TRACER_MAX_LAUNCHES", hazards_path.empty() ? 64 : 0xffffffffu));
  uint32_t launches = 0;
  std::set<CUcontext> contexts_with_patches;
  std::set<CUcontext> contexts_without_patches;
  std::map<std::pair<CUcontext, Sanitizer_StreamHandle>, std::vector<Pending>> pending;

  /// @brief Reads TRACER_KERNELS into `filters` and TRACER_KERNELS_EXACT into `exact`.
  Tracer() {
    for (auto [name, into] : {std::pair{"TRACER_KERNELS", &filters}, std::pair{"TRACER_KERNELS_EXACT", &exact}}) {
      const std::string list = env_string(name, "");
      size_t start = 0;
      while (start <= list.size() && !list.empty()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start) into->push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
    }
  }

  /// @brief Closes the trace and hazard files.
  ~Tracer() {
    if (out != nullptr) std::fclose(out);
    if (hazards_out != nullptr) std::fclose(hazards_out);
  }

  /// @brief The hazard file, opened (and truncated) on first use; nullptr if it cannot be opened.
  std::FILE *hazard_file() {
    if (hazards_out == nullptr && !hazards_path.empty()) {
      hazards_out = std::fopen(hazards_path.c_str(), "w");
      if (hazards_out == nullptr) std::fprintf(stderr, "tracer: cannot write %s\n", hazards_path.c_str());
    }
    return hazards_out;
  }

  /// @brief The trace file, opened (and truncated) on first use; nullptr if it cannot be opened.
  std::FILE *file() {
    if (out == nullptr) {
      out = std::fopen(out_path.c_str(), "w");
      if (out == nullptr) std::fprintf(stderr, "tracer: cannot write %s\n", out_path.c_str());
    }
    return out;
  }

  /// @brief Prints "tracer: skipped: <reason>" and writes the same reason into the trace file (and
  /// the hazard file).
  void skip(const std::string &reason) {
    std::fprintf(stderr, "tracer: skipped: %s\n", reason.c_str());
    for (std::FILE *f : {write_records ? file() : nullptr, hazard_file()}) {
      if (f == nullptr) continue;
      tracer::write_skipped(f, reason);
      std::fflush(f);
    }
  }

  /// @brief A demangled kernel name without its return type, parameters, template arguments and
  /// anonymous namespace: "void k<64u>(int*)" -> "k", "(anonymous namespace)::k(int*)" -> "k".
  static std::string base_name(std::string plain) {
    const std::string anonymous = "(anonymous namespace)::";
    for (size_t at; (at = plain.find(anonymous)) != std::string::npos;) plain.erase(at, anonymous.size());
    std::string out;
    int depth = 0;
    for (char c : plain) {
      if (c == '(' && depth == 0) break;
      if (c == '<') ++depth;
      if (depth == 0) out += c;
      if (c == '>' && depth > 0) --depth;
    }
    const size_t space = out.rfind(' ');
    return space == std::string::npos ? out : out.substr(space + 1);
  }

  /// @brief Whether a launch of the kernel called @p mangled / @p plain is to be traced.
  bool wanted(const std::string &mangled, const std::string &plain) const {
    if (!exact.empty()) {
      const std::string base = base_name(plain);
      for (const std::string &e : exact)
        if (e == mangled || e == base) return true;
      return false;
    }
    if (filters.empty()) return true;
    for (const std::string &f : filters)
      if (mangled.find(f) != std::string::npos || plain.find(f) != std::string::npos) return true;
    return false;
  }

  /// @brief MODULE_LOADED: load the patches into the module's context once, then patch the module.
  void module_loaded(const Sanitizer_ResourceModuleData *data) {
    if (contexts_without_patches.count(data->context) != 0) return;
    if (contexts_with_patches.count(data->context) == 0) {
      const SanitizerResult r = sanitizerAddPatchesFromFile(patches.c_str(), data->context);
      if (r != SANITIZER_SUCCESS) {
        contexts_without_patches.insert(data->context);
        skip("cannot load the patches " + patches + " (" + result_string(r) +
             "); is the fatbin built for this GPU's architecture (TRACER_CUDA_ARCHITECTURES)?");
        return;
      }
      contexts_with_patches.insert(data->context);
    }
    static const std::pair<Sanitizer_InstructionId, const char *> kPatches[] = {
        {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "TracerGlobalAccess"},
        {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "TracerSharedAccess"},
        {SANITIZER_INSTRUCTION_BARRIER, "TracerBarrier"},
        {SANITIZER_INSTRUCTION_SYNCWARP, "TracerSyncwarp"},
        {SANITIZER_INSTRUCTION_BLOCK_ENTER, "TracerBlockEnter"},
        {SANITIZER_INSTRUCTION_BLOCK_EXIT, "TracerBlockExit"},
    };
    for (const auto &[instruction, callback] : kPatches) {
      // The hazard check needs global accesses and barriers only: fewer records, more of them kept.
      if (!hazards_path.empty() && (instruction == SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS ||
                                    instruction == SANITIZER_INSTRUCTION_BLOCK_ENTER ||
                                    instruction == SANITIZER_INSTRUCTION_BLOCK_EXIT))
        continue;
      const SanitizerResult r = sanitizerPatchInstructions(instruction, data->module, callback);
      if (r != SANITIZER_SUCCESS)
        std::fprintf(stderr, "tracer: sanitizerPatchInstructions(%s): %s\n", callback, result_string(r).c_str());
    }
    const SanitizerResult r = sanitizerPatchModule(data->module);
    if (r != SANITIZER_SUCCESS) std::fprintf(stderr, "tracer: sanitizerPatchModule: %s\n", result_string(r).c_str());
  }

  /// @brief LAUNCH_BEGIN: give a wanted launch a zeroed buffer, every other launch none
  /// (sanitizerSetCallbackData marks "all subsequent launches of kernel", sanitizer_patching.h).
  /// The grid and block sizes are read here: Sanitizer_LaunchData has them valid only at LAUNCH_BEGIN.
  void launch_begin(const Sanitizer_LaunchData *ld) {
    const std::string mangled = ld->functionName != nullptr ? ld->functionName : "";
    const std::string plain = demangle(ld->functionName);
    if (contexts_with_patches.count(ld->context) == 0 || launches >= max_launches || !wanted(mangled, plain)) {
      sanitizerSetCallbackData(ld->function, nullptr);
      return;
    }
    Pending p;
    p.context = ld->context;
    const size_t bytes = sizeof(tracer::Record) * static_cast<size_t>(max_records);
    if (sanitizerAlloc(ld->context, reinterpret_cast<void **>(&p.device_records), bytes) != SANITIZER_SUCCESS ||
        sanitizerAlloc(ld->context, reinterpret_cast<void **>(&p.device_buffer), sizeof(tracer::Buffer)) !=
            SANITIZER_SUCCESS) {
      std::fprintf(stderr, "tracer: cannot allocate %zu bytes of device memory for %s: not traced\n", bytes,
                   plain.c_str());
      if (p.device_records != nullptr) sanitizerFree(ld->context, p.device_records);
      sanitizerSetCallbackData(ld->function, nullptr);
      return;
    }
    tracer::Buffer header{};
    header.next = 0;
    header.capacity = max_records;
    header.max_blocks = max_blocks;
    header.records = p.device_records;
    sanitizerMemcpyHostToDeviceAsync(p.device_buffer, &header, sizeof header, ld->hStream);
    sanitizerSetCallbackData(ld->function, p.device_buffer);

    p.info.id = launches++;
    p.info.kernel = plain;
    p.info.mangled = mangled;
    p.info.grid[0] = ld->gridDim_x;
    p.info.grid[1] = ld->gridDim_y;
    p.info.grid[2] = ld->gridDim_z;
    p.info.block[0] = ld->blockDim_x;
    p.info.block[1] = ld->blockDim_y;
    p.info.block[2] = ld->blockDim_z;
    p.info.traced_blocks = std::min<uint64_t>(max_blocks, uint64_t(ld->gridDim_x) * ld->gridDim_y * ld->gridDim_z);
    pending[{ld->context, ld->hStream}].push_back(std::move(p));
  }

  /// @brief LAUNCH_END: wait for the stream, copy each pending launch's records into pinned host
  /// memory, write them, free everything.
  void launch_end(const Sanitizer_LaunchData *ld) {
    auto it = pending.find({ld->context, ld->hStream});
    if (it == pending.end() || it->second.empty()) return;
    sanitizerStreamSynchronize(ld->hStream);
    for (Pending &p : it->second) flush(p, ld->hStream);
    pending.erase(it);
  }

  /// @brief Copies one launch's records back, writes them, frees its buffers.
  void flush(Pending &p, Sanitizer_StreamHandle stream) {
    tracer::Buffer *header = nullptr;
    if (sanitizerAllocHost(p.context, reinterpret_cast<void **>(&header), sizeof(tracer::Buffer)) ==
            SANITIZER_SUCCESS &&
        sanitizerMemcpyDeviceToHost(header, p.device_buffer, sizeof(tracer::Buffer), stream) == SANITIZER_SUCCESS) {
      const uint32_t n = std::min(header->next, header->capacity);
      p.info.records = 0;
      p.info.dropped = header->next > header->capacity ? header->next - header->capacity : 0;
      tracer::Record *records = nullptr;
      if (n > 0 &&
          sanitizerAllocHost(p.context, reinterpret_cast<void **>(&records), sizeof(tracer::Record) * n) ==
              SANITIZER_SUCCESS &&
          sanitizerMemcpyDeviceToHost(records, p.device_records, sizeof(tracer::Record) * n, stream) ==
              SANITIZER_SUCCESS)
        p.info.records = n;
      else if (n > 0)
        p.info.dropped = header->next;  // nothing read back: everything counts as lost
      if (std::FILE *f = write_records ? file() : nullptr) {
        tracer::write_launch(f, p.info);
        for (uint32_t i = 0; i < p.info.records; ++i) tracer::write_record(f, p.info.id, records[i]);
        std::fflush(f);
      }
      if (std::FILE *f = hazard_file()) {
        tracer::write_hazards(f, p.info, tracer::find_global_hazards(records, p.info.records));
        std::fflush(f);
      }
      if (records != nullptr) sanitizerFreeHost(p.context, records);
    } else {
      std::fprintf(stderr, "tracer: cannot read back the records of %s\n", p.info.kernel.c_str());
    }
    if (header != nullptr) sanitizerFreeHost(p.context, header);
    sanitizerFree(p.context, p.device_records);
    sanitizerFree(p.context, p.device_buffer);
  }
};

/// @brief The one Tracer of the process.
Tracer &instance() {
  static Tracer t;
  return t;
}

/// @brief The Sanitizer_CallbackFunc registered with sanitizerSubscribe (sanitizer_callbacks.h):
/// dispatches the three callbacks the tracer enables.
void SANITIZERAPI on_callback(void *userdata, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                              const void *cbdata) {
  auto *t = static_cast<Tracer *>(userdata);
  // The tracer's own sanitizer calls can raise callbacks on this thread (loading the patches is a
  // module load): those nested callbacks are ignored instead of deadlocking on the mutex.
  static thread_local bool inside = false;
  if (inside) return;
  std::lock_guard<std::mutex> lock(t->mutex);
  inside = true;
  struct Reset { ~Reset() { inside = false; } } reset;
  if (domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED) {
    t->module_loaded(static_cast<const Sanitizer_ResourceModuleData *>(cbdata));
  } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN) {
    t->launch_begin(static_cast<const Sanitizer_LaunchData *>(cbdata));
  } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_END) {
    t->launch_end(static_cast<const Sanitizer_LaunchData *>(cbdata));
  }
}

/// @brief Subscribes once and enables the module-load, launch-begin and launch-end callbacks.
/// Fails (and says why) when another subscriber exists, e.g. under the compute-sanitizer tool:
/// only one subscriber can be registered at a time (sanitizerSubscribe, sanitizer_callbacks.h).
int subscribe_once() {
  static const int result = [] {
    Tracer &t = instance();
    const SanitizerResult r = sanitizerSubscribe(&t.subscriber, on_callback, &t);
    if (r != SANITIZER_SUCCESS) {
      t.skip("sanitizerSubscribe failed: " + result_string(r) +
             " (run the program directly, not under compute-sanitizer)");
      return 0;
    }
    sanitizerEnableCallback(1, t.subscriber, SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_LOADED);
    sanitizerEnableCallback(1, t.subscriber, SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_BEGIN);
    sanitizerEnableCallback(1, t.subscriber, SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_END);
    if (std::FILE *f = t.hazard_file()) std::fflush(f);  // exists from now on: the tracer was loaded
    return 1;
  }();
  return result;
}

/// Runs subscribe_once() when the library is loaded (MemoryTracker.cpp does the same with
/// `int __global_initializer__ = InitializeInjection();`).
[[maybe_unused]] const int kSubscribed = subscribe_once();

}  // namespace

/// @brief Entry point for loading through CUDA_INJECTION64_PATH (not verified). LD_PRELOAD is the
/// way the samples' maintainers describe (NVIDIA/compute-sanitizer-samples issue #9). Idempotent:
/// subscribes at most once per process.
extern "C" int InitializeInjection() { return subscribe_once(); }
