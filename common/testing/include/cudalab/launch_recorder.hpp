/// @file launch_recorder.hpp
/// @brief Records the kernel launches a student's code makes, so a test can check the launch that
/// happened (grid, block, dynamic shared memory), not only the values it produced.
///
/// Every test executable is linked with `--wrap` for the runtime's launch entry points
/// (`<<<...>>>` and `cudaLaunchKernel`); while a LaunchRecorder is alive, each host-side launch
/// is appended to it before it is forwarded to the CUDA runtime unchanged. Launches made from
/// device code (dynamic parallelism) are not seen.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

namespace cudalab {

/// @brief One recorded kernel launch.
struct LaunchRecord {
  const void *func = nullptr;     ///< the kernel's host address (launches through cudaLaunchKernel)
  cudaKernel_t handle = nullptr;  ///< the kernel's handle (launches through <<<...>>> on CUDA 12.x/13)
  dim3 grid;                      ///< gridDim of the launch
  dim3 block;                     ///< blockDim of the launch
  std::size_t shared_bytes = 0;   ///< dynamic shared memory per block
  cudaStream_t stream = nullptr;  ///< the stream it was enqueued on
};

/// @brief Records every host-side kernel launch while it is alive (recorders may nest; each sees
/// the launches made during its own lifetime). Thread-safe.
class LaunchRecorder {
 public:
  LaunchRecorder();
  ~LaunchRecorder();
  LaunchRecorder(const LaunchRecorder &) = delete;
  LaunchRecorder &operator=(const LaunchRecorder &) = delete;

  /// @brief Every launch recorded so far, in order.
  std::vector<LaunchRecord> launches() const;

  /// @brief The launches of @p kernel (the `__global__` function, or a template instantiation
  /// of one), in order.
  template <class Kernel>
  std::vector<LaunchRecord> launches_of(Kernel *kernel) const {
    return launches_of_address(reinterpret_cast<const void *>(kernel));
  }

  /// @brief launches_of() for a kernel given by its host address.
  std::vector<LaunchRecord> launches_of_address(const void *kernel) const;

  /// @brief Forgets what was recorded so far.
  void clear();

 private:
  std::size_t id_;
};

/// @brief "grid (a,b,c) block (x,y,z) shared N B" for failure messages.
std::string describe(const LaunchRecord &launch);

}  // namespace cudalab
