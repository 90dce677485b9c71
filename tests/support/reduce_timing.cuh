/// @file reduce_timing.cuh
/// @brief What the timed tests of the reductions (ch03_10 .. ch03_12) share: the check of every
/// timed sample of an in-place reduction, and the reference solution's kernels
/// (cudalab/reference_kernels.hpp) as launches. Header-only: only the performance tests, whose
/// programs carry the reference images, include it.
#pragma once

#include "reduce_check.cuh"

#include "cudalab/reference.hpp"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/sample_inputs.cuh"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

/// @brief The SampleCheck (cudalab/sample_inputs.cuh) of a timed reduction that works in place on
/// @p work, restored from @p pristine before every sample: one element of @p input changes in both
/// copies before each sample (a new value in [-1000, 1000]), the @p outputs partial sums in @p out
/// are poisoned, and those of the checked samples are compared with the CPU's sums of @p chunk
/// elements. @p name and @p context (sizes, shape, seed) are for the messages.
inline cudalab::SampleCheck reduction_sample_check(const char *name, const std::string &context, std::uint64_t seed,
                                                   std::vector<int> input, int *pristine, int *work, int *out,
                                                   unsigned int outputs, unsigned int chunk) {
  cudalab::ChangingInput<int, int> changing;
  changing.kernel = name;
  changing.context = context;
  changing.seed = seed;
  changing.input = std::move(input);
  changing.device_inputs = {pristine, work};
  changing.device_output = out;
  changing.output_count = outputs;
  changing.expected = [chunk](const std::vector<int> &in) {
    const std::vector<long long> sums = cudalab::cpu::chunk_sums(in, chunk);
    return std::vector<int>(sums.begin(), sums.end());
  };
  changing.new_value = cudalab::new_int_in(-1000, 1000);
  return cudalab::changing_input(std::move(changing));
}

/// @brief The lab's reference kernel @p mangled (declared as @p decl), compiled into the tests,
/// as a launch `<<<ceil(n / chunk), block>>>`, after one checked run: reduction_error() on @p n
/// ints. Empty, with the reason in @p why, where it cannot run here or its sums are wrong (then
/// the test grades against its baseline).
inline ReduceLaunch reference_reduction(const char *name, ReduceKernel decl, const char *mangled, unsigned int n,
                                        unsigned int block, unsigned int chunk, std::uint64_t seed, std::string *why) {
  using Kernel = cudalab::RefKernel<int *, int *, unsigned int>;
  auto as_launch = [block, chunk](const Kernel &kernel) -> ReduceLaunch {
    return [kernel, block, chunk](int *in, int *out, unsigned int count) {
      return kernel.launch((count + chunk - 1) / chunk, block, 0, nullptr, in, out, count);
    };
  };
  const Kernel kernel = cudalab::checked_reference_kernel(decl, mangled, [&](const Kernel &k) {
    return reduction_error((std::string("the reference solution's ") + name).c_str(), as_launch(k), n, block, chunk,
                           seed);
  });
  *why = kernel.why_not();
  if (!kernel) return {};
  return as_launch(kernel);
}
