// Loads the lab's reference images (cudalab/reference_kernels.hpp) with the driver's library API,
// reached through the runtime's entry-point lookup (cudalab/driver_entry.cuh).
#include "cudalab/reference_kernels.hpp"

#include "cudalab/driver_entry.cuh"
#include "cudalab/ncu.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace cudalab::detail {

namespace {

/// The driver functions the loader needs, and the libraries it loaded (once per program).
struct Loader {
  decltype(&cuLibraryLoadData) load = nullptr;
  decltype(&cuLibraryGetKernel) get_kernel = nullptr;
  decltype(&cuKernelGetFunction) get_function = nullptr;
  decltype(&cuLibraryGetGlobal) get_global = nullptr;
  decltype(&cuGetErrorName) error_name = nullptr;
  std::vector<CUlibrary> libraries;
  std::string why;  ///< "" when every image loaded

  Loader() {
    if (kReferenceImages[0].bytes == nullptr) {
      why = kReferenceOrigin;
      return;
    }
    if (!driver_entry("cuLibraryLoadData", load) || !driver_entry("cuLibraryGetKernel", get_kernel) ||
        !driver_entry("cuKernelGetFunction", get_function) || !driver_entry("cuLibraryGetGlobal", get_global) ||
        !driver_entry("cuGetErrorName", error_name)) {
      why = "this driver has no library API (CUDA 12.0 or newer needed)";
      (void)cudaGetLastError();
      return;
    }
    for (const ReferenceImage *image = kReferenceImages; image->bytes != nullptr; ++image) {
      CUlibrary library = nullptr;
      const CUresult r = load(&library, image->bytes, nullptr, nullptr, 0, nullptr, nullptr, 0);
      if (r != CUDA_SUCCESS) {
        why = std::string("the reference image of ") + image->name + " does not load: " + name(r);
        return;
      }
      libraries.push_back(library);
    }
  }

  std::string name(CUresult r) const {
    const char *text = nullptr;
    if (error_name == nullptr || error_name(r, &text) != CUDA_SUCCESS || text == nullptr)
      return "driver error " + std::to_string(static_cast<int>(r));
    return text;
  }
};

Loader &loader() {
  static Loader l;
  return l;
}

}  // namespace

}  // namespace cudalab::detail

namespace cudalab {
bool reference_images_built() { return detail::kReferenceImages[0].bytes != nullptr; }

std::string reference_fallback(const std::string &kernel, const std::string &baseline, const std::string &why_not) {
  if (reference_images_built() && counters_required())
    return "the reference kernels must run on this grading machine (" + kernel + "): " + why_not;
  std::printf("[ INFO     ] %s is timed against %s, not the reference: %s\n", kernel.c_str(), baseline.c_str(),
              why_not.c_str());
  std::fflush(stdout);
  return "";
}
}  // namespace cudalab

namespace cudalab::detail {

/// The loaded images in the runtime's current context, or nullptr with the reason in @p why.
static Loader *ready_loader(std::string *why) {
  Loader &l = loader();
  if (!l.why.empty()) {
    *why = l.why;
    return nullptr;
  }
  // Make sure the runtime has made its context current: the images are loaded into it.
  if (cudaError_t err = cudaFree(nullptr); err != cudaSuccess) {
    *why = std::string("no CUDA context: ") + cudaGetErrorName(err);
    (void)cudaGetLastError();
    return nullptr;
  }
  return &l;
}

const void *reference_handle(const char *mangled, std::string *why) {
  Loader *ready = ready_loader(why);
  if (ready == nullptr) return nullptr;
  const Loader &l = *ready;
  for (CUlibrary library : l.libraries) {
    CUkernel kernel = nullptr;
    if (l.get_kernel(&kernel, library, mangled) != CUDA_SUCCESS) continue;
    CUfunction function = nullptr;  // loads it now, so that a GPU the image has no code for says so here
    if (const CUresult r = l.get_function(&function, kernel); r != CUDA_SUCCESS) {
      *why = std::string("the reference kernel ") + mangled + " cannot run on this GPU: " + l.name(r) + " (" +
             kReferenceOrigin + ")";
      return nullptr;
    }
    why->clear();
    return reinterpret_cast<const void *>(kernel);
  }
  *why = std::string("the reference image has no kernel ") + mangled + " (" + kReferenceOrigin + ")";
  return nullptr;
}

}  // namespace cudalab::detail

namespace cudalab {

void *reference_global(const char *name, std::size_t *bytes, std::string *why) {
  *bytes = 0;
  const detail::Loader *l = detail::ready_loader(why);
  if (l == nullptr) return nullptr;
  for (CUlibrary library : l->libraries) {
    CUdeviceptr address = 0;
    std::size_t size = 0;
    if (l->get_global(&address, &size, library, name) != CUDA_SUCCESS) continue;
    why->clear();
    *bytes = size;
    return reinterpret_cast<void *>(address);
  }
  *why = std::string("the reference image has no variable ") + name + " (" + detail::kReferenceOrigin + ")";
  return nullptr;
}

}  // namespace cudalab
