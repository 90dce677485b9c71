/// @file reference_kernels.hpp
/// @brief The lab's reference solution, compiled (SASS only) into the test programs, so that a
/// timed test can time the student's kernel against the reference kernel on the same GPU and data:
/// a ratio near 1.0 for a correct solution on any GPU (docs/reference-kernels-design.md).
///
/// The image comes from solutions/LAB/ in a full tree, or from reference/LAB/ in a release
/// (tools/staff/make_release.sh), and is loaded with the driver's library API, reached through
/// the runtime (no libcuda link). A GPU, driver or release the image cannot run on gets no
/// reference: reference_kernel() says why, and the test grades against its baseline as before.
#pragma once

#include "cudalab/memory_wait.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace cudalab {

namespace detail {
/// One compiled image of the lab's reference (a fatbin), generated into the lab's test programs.
struct ReferenceImage {
  const char *name;            ///< the solution file it was compiled from
  const unsigned char *bytes;  ///< the fatbin
  std::size_t size;            ///< its size in bytes
};
/// The lab's images, terminated by {nullptr, nullptr, 0} (generated: LAB_reference.cpp).
extern const ReferenceImage kReferenceImages[];
/// Where they come from, or why there are none (generated).
extern const char *const kReferenceOrigin;
}  // namespace detail

/// @brief A kernel of the lab's reference solution, launched like the student's kernel through
/// the runtime (cudaLaunchKernel on the default stream, seen by the launch recorder and the timer).
template <class... Params>
class RefKernel {
 public:
  /// @brief Whether the kernel loaded and can run on this GPU.
  explicit operator bool() const { return handle_ != nullptr; }
  /// @brief Why not, when it cannot ("" when it can).
  const std::string &why_not() const { return why_; }
  /// @brief Its handle (a cudaKernel_t), for cudaFuncGetAttributes and cudaOccupancy*, which take it
  /// as the kernel; nullptr when it cannot run here.
  const void *handle() const { return handle_; }
  /// @brief Launches it; returns the launch's error.
  cudaError_t launch(dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream, Params... p) const {
    void *args[] = {static_cast<void *>(&p)...};
    return cudaLaunchKernel(handle_, grid, block, args, shared, stream);
  }

 private:
  template <class... P>
  friend RefKernel<P...> reference_kernel(void (*)(P...), const char *);
  template <class Trial, class... P>
  friend RefKernel<P...> checked_reference_kernel(void (*)(P...), const char *, Trial &&);
  const void *handle_ = nullptr;
  std::string why_;
};

namespace detail {
/// @brief The handle (a cudaKernel_t) of the reference kernel @p mangled, loaded into the current
/// context; nullptr and the reason in @p why when it cannot run here.
const void *reference_handle(const char *mangled, std::string *why);
}  // namespace detail

/// @brief The device address of the reference image's variable @p name (a `__device__` or
/// `__constant__` variable of the solution, by its symbol: unmangled at global namespace scope),
/// so that a test can give the reference kernel the same table it gives the student's, with
/// cudaMemcpy(HostToDevice); its size in @p bytes. nullptr, with the reason in @p why, where the
/// reference cannot run here or has no such variable.
void *reference_global(const char *name, std::size_t *bytes, std::string *why);

/// @brief Whether this build has reference images for the lab (none: CUDALAB_REFERENCE=OFF, a
/// release without reference/, a lab not declared with REFERENCE_KERNELS, or an image that did
/// not compile). Where it has them and they cannot run, a grading machine
/// (cudalab::counters_required()) fails the test instead of grading against the baseline.
bool reference_images_built();

/// @brief The reference kernel @p mangled (its symbol, e.g. "_Z17reduceInterleavedPiS_j"), typed
/// by the lab header's declaration @p decl (which only gives the parameter types).
template <class... P>
RefKernel<P...> reference_kernel(void (*decl)(P...), const char *mangled) {
  (void)decl;
  RefKernel<P...> k;
  k.handle_ = detail::reference_handle(mangled, &k.why_);
  return k;
}

/// @brief reference_kernel() after one trial run: @p trial is called with the loaded kernel and
/// returns "" when its output is right on the test's own check, or what went wrong. A kernel
/// whose trial went wrong comes back empty, its reason in why_not(), so that the test never
/// grades against a reference that does not compute the right thing on this GPU.
/// Where loading or the trial ran out of GPU memory (other programs hold it), it waits as the
/// tests' own allocations do (cudalab::MemoryWait, up to 30 s) and tries again, so that memory
/// taken by a browser or another test for a moment does not send the test to its baseline.
template <class Trial, class... P>
RefKernel<P...> checked_reference_kernel(void (*decl)(P...), const char *mangled, Trial &&trial) {
  const auto out_of_memory = [](const std::string &why) {
    return why.find("OUT_OF_MEMORY") != std::string::npos || why.find("MemoryAllocation") != std::string::npos ||
           why.find("out of memory") != std::string::npos;
  };
  for (MemoryWait wait;;) {
    RefKernel<P...> k = reference_kernel(decl, mangled);
    if (!k) {
      if (out_of_memory(k.why_) && wait.pause()) continue;
      return k;
    }
    const std::string wrong = trial(static_cast<const RefKernel<P...> &>(k));
    if (wrong.empty()) return k;
    (void)cudaGetLastError();
    if (out_of_memory(wrong) && wait.pause()) continue;
    k.handle_ = nullptr;
    k.why_ = "its trial run went wrong: " + wrong;
    return k;
  }
}

/// @brief What a timed test does when the reference cannot be used for @p kernel (@p why_not, the
/// reference's why_not()): where the build has reference images and this is a grading machine
/// (cudalab::counters_required()), returns the failure message, since images that cannot run are
/// the machine's problem and not a reason to grade against the weaker baseline; otherwise prints
/// "[ INFO     ] <kernel> is timed against <baseline>, not the reference: <why_not>" and returns ""
/// (the test then grades against @p baseline with its baseline threshold). Use:
///   if (const std::string f = cudalab::reference_fallback(name, "the baseline", k.why_not()); !f.empty())
///     GTEST_FAIL() << f;
std::string reference_fallback(const std::string &kernel, const std::string &baseline, const std::string &why_not);

}  // namespace cudalab
