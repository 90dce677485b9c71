/// @file reduce_reference.cuh
/// @brief The reference solution's reduction kernels (cudalab/reference_kernels.hpp) as launches
/// for the timed tests of ch03_10 and ch03_11. Header-only: only the performance tests, whose
/// programs carry the reference images, include it.
#pragma once

#include "reduce_check.cuh"

#include "cudalab/reference_kernels.hpp"

#include <cstdint>
#include <string>

/// @brief The lab's reference kernel @p mangled (declared as @p decl), compiled into the tests,
/// as a launch `<<<ceil(n / chunk), block>>>`, after one checked run: reduction_error() on @p n
/// ints. Empty, with the reason in @p why, where it cannot run here or its sums are wrong (then
/// the test grades against its baseline).
inline ReduceLaunch reference_reduction(const char *name, ReduceKernel decl, const char *mangled, unsigned int n,
                                        unsigned int block, unsigned int chunk, std::uint64_t seed, std::string *why) {
  const auto kernel = cudalab::reference_kernel(decl, mangled);
  if (!kernel) {
    *why = kernel.why_not();
    return {};
  }
  ReduceLaunch launch = [kernel, block, chunk](int *in, int *out, unsigned int count) {
    return kernel.launch((count + chunk - 1) / chunk, block, 0, nullptr, in, out, count);
  };
  const std::string wrong =
      reduction_error((std::string("the reference solution's ") + name).c_str(), launch, n, block, chunk, seed);
  if (!wrong.empty()) {
    (void)cudaGetLastError();
    *why = "its trial run went wrong: " + wrong;
    return {};
  }
  why->clear();
  return launch;
}
