/// @file launch_checks.hpp
/// @brief Checks every kernel gets from the harness, not lab by lab (docs/grading.md, "Checks every
/// kernel gets"): shared memory poisoned before each launch, and launch failures and kernel faults
/// injected into the functions that promise to report them.
///
/// Both act in the launch recorder's wrappers of the runtime's launch entry points
/// (`<<<...>>>` and `cudaLaunchKernel`, common/testing/launch_recorder.cpp), so they apply to every
/// host-side launch of a test binary, whoever makes it. The harness's own kernels (the fill, the
/// fault) are launched through the runtime's real entry point: they are neither recorded by a
/// LaunchRecorder nor poisoned themselves. Launches through cudaLaunchCooperativeKernel,
/// cudaLaunchKernelEx, graphs and from device code (dynamic parallelism) are not seen.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace cudalab::testing {

/// @brief The word the shared memory is filled with before a launch: a quiet NaN read as a float
/// (and, twice, as a double), -4194303 read as an int (it wins most minima, spoils every sum) and
/// 4290772993 read as an unsigned count. A kernel that reads a shared slot no thread of its block
/// wrote gets a wrong answer instead of a lucky 0 or a leftover of an earlier kernel.
constexpr std::uint32_t kSharedPoisonWord = 0xFFC00001u;

/// @brief Whether launches are preceded by a fill of shared memory in this process: the
/// environment variable CUDALAB_POISON_SHARED is "1" (CTest sets it for the GPU correctness tests,
/// cmake/CudaLab.cmake; never for the tests that run alone, which time kernels), or a
/// PoisonSharedMemory scope is alive. A NoSharedMemoryPoison scope turns it off.
bool shared_memory_poison_enabled();

/// @brief Fills the shared memory of every SM with @p word on @p stream: 2 x SMs blocks of 1024
/// threads, each with all the dynamic shared memory a block may opt in to
/// (cudaDevAttrMaxSharedMemoryPerBlockOptin: 64 KB on sm_75, 163 KB on sm_80, 99 KB on sm_86/89,
/// 227 KB on sm_90), written with volatile stores. Launched through the runtime's real entry point,
/// so it is not recorded and not poisoned itself; does not wait. A few microseconds of GPU time.
/// Returns the first CUDA error (and leaves none pending when there was none before).
cudaError_t fill_shared_memory(std::uint32_t word, cudaStream_t stream = 0);

/// @brief The next launch of the calling thread is preceded by a fill with @p word, whether or not
/// poisoning is enabled (a lab's explicit check: tests/support/poison_shared.cuh).
void poison_next_launch(std::uint32_t word);

/// @brief While alive, every launch of any thread is preceded by a fill with @p word, whether or not
/// CUDALAB_POISON_SHARED is set. Scopes nest; the innermost word wins.
class PoisonSharedMemory {
 public:
  explicit PoisonSharedMemory(std::uint32_t word = kSharedPoisonWord);
  ~PoisonSharedMemory();
  PoisonSharedMemory(const PoisonSharedMemory &) = delete;
  PoisonSharedMemory &operator=(const PoisonSharedMemory &) = delete;

 private:
  std::uint32_t previous_word_;
  bool previous_forced_;
};

/// @brief While alive, no launch is preceded by a fill (a correctness test that must not have it,
/// with the reason next to it). A lab's poison_next_launch() still applies.
class NoSharedMemoryPoison {
 public:
  NoSharedMemoryPoison();
  ~NoSharedMemoryPoison();
  NoSharedMemoryPoison(const NoSharedMemoryPoison &) = delete;
  NoSharedMemoryPoison &operator=(const NoSharedMemoryPoison &) = delete;
};

/// @brief While alive, launches fail for real: the wrapper forwards them to the runtime with
/// blockDim (1025, 1, 1), more threads than any GPU allows in a block, so the runtime itself
/// refuses the launch, returns its error for a bad configuration (cudaErrorInvalidConfiguration, or
/// cudaErrorInvalidValue on CUDA 13) and records it as the last error (cudaGetLastError returns
/// it), exactly as a bad configuration would. Only the launches made
/// while the scope is alive count (the first is number 0); the harness's own kernels do not.
class FailLaunches {
 public:
  /// @brief Fails launch number @p which of this scope, or every launch when @p which < 0.
  explicit FailLaunches(int which = -1);
  ~FailLaunches();
  FailLaunches(const FailLaunches &) = delete;
  FailLaunches &operator=(const FailLaunches &) = delete;
  /// @brief How many launches were made failed.
  int failed() const;
  /// @brief How many launches the scope has seen.
  int seen() const;
  /// @brief The error the runtime returned for the last launch made to fail (cudaSuccess: none).
  cudaError_t error() const;
};

/// @brief While alive, every launch that the runtime accepted is followed, on the same stream, by
/// a one-thread kernel that waits about 20 ms (so that a caller that does not wait for the GPU has
/// long returned) and then executes a trap: an asynchronous kernel fault, reported by the next
/// synchronising call (cudaErrorLaunchFailure, "unspecified launch failure"). The error is sticky:
/// the process cannot use the GPU afterwards (each test is its own process). The harness's own
/// kernels do not count.
class FaultAfterLaunches {
 public:
  FaultAfterLaunches();
  ~FaultAfterLaunches();
  FaultAfterLaunches(const FaultAfterLaunches &) = delete;
  FaultAfterLaunches &operator=(const FaultAfterLaunches &) = delete;
  /// @brief How many faulting kernels were enqueued.
  int faults() const;
};

namespace detail {
/// The launch wrappers' hooks (launch_recorder.cpp). before_launch() runs the fill and may change
/// @p block to fail the launch; after_launch() gets the forwarded launch's result and enqueues the
/// fault. Both do nothing for launches the harness makes itself.
void before_launch(cudaStream_t stream, dim3 *block);
void after_launch(cudaStream_t stream, cudaError_t result);

/// One row of the generated table of error promises (tests/LAB/grading.json "reports_errors").
struct ErrorPromise {
  const char *function;  ///< the lab's function, e.g. "subtractGlobalMin"
  bool launch;           ///< promises to return the error of a launch that failed
  bool kernel;           ///< promises to return the error of a kernel that faulted (it waits)
};
extern const ErrorPromise kErrorPromises[];  ///< terminated by {nullptr, false, false} (generated)
}  // namespace detail

}  // namespace cudalab::testing
