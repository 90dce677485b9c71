/// @file sample_inputs.cuh
/// @brief changing_input(): the SampleCheck (cudalab/timing.cuh) of a timed test whose graded kernel
/// reads an array and writes another. Before every sample one random element of the input gets a
/// new value and the output is poisoned; after the samples that are checked, the output is compared
/// with the CPU reference of the input as it is now.
#pragma once

#include "cudalab/testing.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace cudalab {

/// @brief What changing_input() needs to know of the graded kernel's data.
template <class In, class Out>
struct ChangingInput {
  std::string kernel;               ///< the graded kernel, as messages name it
  std::string context;              ///< sizes, launch shape and seed, for messages
  std::uint64_t seed = 0;           ///< where the changes go and what they are (the test's seed)
  std::vector<In> input;            ///< the input the kernel reads now (host copy)
  std::vector<In *> device_inputs;  ///< every device copy to change alike (for a kernel that works
                                    ///< in place: the pristine copy its setup restores from, and the
                                    ///< copy it works on)
  Out *device_output = nullptr;     ///< what the kernel writes; poisoned before every sample
  std::size_t output_count = 0;     ///< elements of the output that are checked
  /// The CPU reference: the whole expected output for an input.
  std::function<std::vector<Out>(const std::vector<In> &)> expected;
  /// A valid input value other than @p old (the input's range, the kernel's contract).
  std::function<In(std::mt19937_64 &, In old)> new_value;
  /// "" if @p actual is right, else what is wrong; default: exact equality (equal_arrays()).
  std::function<std::string(const std::vector<Out> &expected, const std::vector<Out> &actual)> compare;
};

/// @brief The SampleCheck for @p c: prepare() gives one random element of the input (host copy and
/// every device copy) a new value and poisons the output; verify() downloads the output and compares
/// it with c.expected() of the input as changed so far.
template <class In, class Out>
SampleCheck changing_input(ChangingInput<In, Out> c) {
  struct State {
    ChangingInput<In, Out> c;
    std::mt19937_64 rng;
    std::string error;  ///< the first failed copy of prepare(): reported by verify(), never a wrong kernel
  };
  auto s = std::make_shared<State>(State{std::move(c), std::mt19937_64(0), {}});
  s->rng.seed(s->c.seed ^ 0x5a3c0ffee1234567ull);
  SampleCheck check;
  check.prepare = [s](int) {
    ChangingInput<In, Out> &c = s->c;
    if (!c.input.empty()) {
      const std::size_t j = std::uniform_int_distribution<std::size_t>(0, c.input.size() - 1)(s->rng);
      c.input[j] = c.new_value(s->rng, c.input[j]);
      for (In *d : c.device_inputs) {
        const cudaError_t err = cudaMemcpy(d + j, &c.input[j], sizeof(In), cudaMemcpyHostToDevice);
        if (err != cudaSuccess && s->error.empty())
          s->error = describe_error(err, "the change of a timed sample's input", __FILE__, __LINE__);
      }
    }
    if (c.device_output) {
      const cudaError_t err = cudaMemset(c.device_output, kPoisonByte, c.output_count * sizeof(Out));
      if (err != cudaSuccess && s->error.empty())
        s->error = describe_error(err, "the poison of a timed sample's output", __FILE__, __LINE__);
    }
  };
  check.verify = [s](int) -> std::string {
    ChangingInput<In, Out> &c = s->c;
    if (!s->error.empty()) return s->error;
    std::vector<Out> actual(c.output_count);
    cudaError_t err = cudaMemcpy(actual.data(), c.device_output, c.output_count * sizeof(Out), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) return describe_error(err, "copy back of a timed sample's output", __FILE__, __LINE__);
    const std::vector<Out> expected = c.expected(c.input);
    if (c.compare) return c.compare(expected, actual);
    ::testing::AssertionResult same = equal_arrays(c.kernel, c.context, expected, actual);
    return same ? std::string() : std::string(same.message());
  };
  return check;
}

/// @brief A new_value for integer inputs drawn uniformly from [@p lo, @p hi] (other than the old one).
template <class T>
std::function<T(std::mt19937_64 &, T)> new_int_in(T lo, T hi) {
  return [lo, hi](std::mt19937_64 &rng, T old) {
    for (;;) {
      const T v = static_cast<T>(std::uniform_int_distribution<long long>(lo, hi)(rng));
      if (v != old || lo == hi) return v;
    }
  };
}

/// @brief A new_value for floating-point inputs drawn uniformly from [@p lo, @p hi).
template <class T>
std::function<T(std::mt19937_64 &, T)> new_real_in(T lo, T hi) {
  return [lo, hi](std::mt19937_64 &rng, T old) {
    for (;;) {
      const T v = static_cast<T>(std::uniform_real_distribution<double>(lo, hi)(rng));
      if (v != old) return v;
    }
  };
}

}  // namespace cudalab
