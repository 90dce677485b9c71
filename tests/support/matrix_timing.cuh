/// @file matrix_timing.cuh
/// @brief What the timed tests of the sumMatrix labs (ch03_07, ch03_08, ch03_09) share: the
/// reference solution's kernel (cudalab/reference_kernels.hpp) as a MatrixLaunch, after a trial run
/// checked like the student's kernel. Header-only: only the performance tests, whose programs carry
/// the reference images, include it.
#pragma once

#include "matrix_check.cuh"

#include "cudalab/reference_kernels.hpp"

#include <string>

/// @brief A sumMatrix kernel as the lab header declares it: (A, B, C, nx, ny).
using MatrixKernel = void (*)(const float *, const float *, float *, int, int);

/// @brief The reference solution's kernel of a sumMatrix lab, typed by the lab header's declaration.
using MatrixRefKernel = cudalab::RefKernel<const float *, const float *, float *, int, int>;

/// @brief The lab's reference kernel @p mangled (declared as @p decl, called @p name in messages)
/// as a launch `<<<grid, block>>>` on the default stream, after one trial run on @p m checked by
/// BigMatrix::check(), the check the student's kernel passes before it is timed. Empty, with the
/// reason in @p why, where it cannot run here or its result is wrong (the test then grades against
/// its baseline).
inline MatrixLaunch reference_matrix_launch(const char *name, MatrixKernel decl, const char *mangled, BigMatrix &m,
                                            dim3 grid, dim3 block, std::string *why) {
  auto as_launch = [grid, block](const MatrixRefKernel &kernel) -> MatrixLaunch {
    return [kernel, grid, block](const float *a, const float *b, float *c, int nx, int ny) {
      (void)kernel.launch(grid, block, 0, nullptr, a, b, c, nx, ny);
    };
  };
  const MatrixRefKernel kernel = cudalab::checked_reference_kernel(decl, mangled, [&](const MatrixRefKernel &k) {
    return m.check(std::string("the reference solution's ") + name, as_launch(k),
                   "grid=" + shape(grid) + " block=" + shape(block));
  });
  *why = kernel.why_not();
  if (!kernel) return {};
  return as_launch(kernel);
}
