/// @file memory_wait.hpp
/// @brief cudalab::MemoryWait, the wait for GPU memory that other programs hold for a while, shared
/// by the tests' own allocations (CUDALAB_ASSERT_OK) and the reference kernels' loading and trial run.
#pragma once

#include <cuda_runtime.h>

namespace cudalab {

/// @brief The wait of CUDALAB_ASSERT_OK and CUDALAB_REQUIRE_FREE_MEMORY for GPU memory that other
/// programs (the other tests of a parallel ctest run) hold for a while: again(err) is true, after a
/// pause, while @p err is cudaErrorMemoryAllocation and less than kBudgetMs has been waited.
class MemoryWait {
 public:
  static constexpr int kStepMs = 250;       ///< pause between two tries
  static constexpr int kBudgetMs = 30000;   ///< longest wait per call
  /// @brief Whether to try again (after the pause); clears the error.
  bool again(cudaError_t err);
  /// @brief Pauses kStepMs and returns true, or returns false once kBudgetMs has been waited.
  bool pause();

 private:
  int waited_ms_ = 0;
};

}  // namespace cudalab
