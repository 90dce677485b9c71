/// @file launch.cuh
/// @brief How the tests launch a kernel: `cudalab::launch(k, grid, block)(args...)` does what
/// `k<<<grid, block>>>(args...)` does, through the runtime's cudaLaunchKernel, without running the
/// kernel's host stub.
///
/// `k<<<...>>>(...)` calls `k`'s host stub, a host function compiled into the object file of the
/// file that defines `k`. For a lab's kernel that is the lab's own object file, and a lab's source
/// can make its stub run code of its own (for instance an overload of a runtime helper the
/// generated stub calls, such as `__cudaPopCallConfiguration`, which overload resolution prefers
/// and the compiler inlines into the stub). The tests therefore never call a stub: they hand the
/// kernel's address to cudaLaunchKernel, which finds the kernel the runtime registered under it,
/// so that a test that only launches the lab's kernels runs no host code of the lab at all.
/// tools/test_readmes.py (`TestsLaunchWithoutStubs`) keeps `<<<` out of tests/ and common/testing/.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace cudalab {

namespace detail {

/// @brief @p value converted to @p T as a function call's argument would be (implicitly only: a
/// pointer of another type does not compile, as it would not with `<<< >>>`).
template <class T>
T as_parameter(T value) {
  return value;
}

}  // namespace detail

/// @brief A launch configuration waiting for the kernel's arguments (cudalab::launch).
template <class... P>
class Launch {
 public:
  /// @brief A launch of @p kernel with the configuration of `<<<grid, block, shared, stream>>>`.
  Launch(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream)
      : kernel_(kernel), grid_(grid), block_(block), shared_(shared), stream_(stream) {}

  /// @brief Launches the kernel with @p args, converted to its parameters' types; returns what
  /// cudaLaunchKernel returns (the launch error, also left for cudaGetLastError as `<<< >>>`
  /// leaves it).
  template <class... A>
  cudaError_t operator()(A &&...args) const {
    static_assert(sizeof...(A) == sizeof...(P), "cudalab::launch: the kernel takes another number of arguments");
    std::tuple<std::decay_t<P>...> values(detail::as_parameter<std::decay_t<P>>(std::forward<A>(args))...);
    return std::apply(
        [&](auto &...value) {
          void *pointers[sizeof...(P) + 1] = {static_cast<void *>(&value)..., nullptr};
          return cudaLaunchKernel(reinterpret_cast<const void *>(kernel_), grid_, block_, pointers, shared_, stream_);
        },
        values);
  }

 private:
  void (*kernel_)(P...);
  dim3 grid_, block_;
  std::size_t shared_;
  cudaStream_t stream_;
};

/// @brief `cudalab::launch(kernel, grid, block, shared, stream)(args...)`: the launch
/// `kernel<<<grid, block, shared, stream>>>(args...)`, without the kernel's host stub.
template <class... P>
Launch<P...> launch(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t shared = 0, cudaStream_t stream = 0) {
  return Launch<P...>(kernel, grid, block, shared, stream);
}

}  // namespace cudalab
