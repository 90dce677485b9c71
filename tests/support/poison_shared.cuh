/// @file poison_shared.cuh
/// @brief A lab's own word for the shared-memory poison of its next launch.
///
/// Every launch of a GPU correctness test is already preceded by a fill of every SM's shared memory
/// with cudalab::testing::kSharedPoisonWord (cudalab/launch_checks.hpp, docs/grading.md "Checks
/// every kernel gets"). A test that needs another word -- INT_MIN, which wins any minimum; the
/// 0xCDCDCDCD of the output buffers -- calls fill_shared_memory(word) just before its launch: that
/// launch is then preceded by a fill with @p word instead, whether or not poisoning is enabled for
/// the test. A correct kernel writes every shared element before it reads it and never sees the word.
#pragma once

#include "cudalab/launch_checks.hpp"

#include <cuda_runtime.h>

namespace cudalab_poison {

/// @brief The calling thread's next kernel launch finds @p word in every shared-memory word a block
/// can get (the harness fills it on the launch's stream just before the launch). Returns
/// cudaSuccess (kept as a cudaError_t for the callers' error chains).
inline cudaError_t fill_shared_memory(unsigned int word) {
  cudalab::testing::poison_next_launch(word);
  return cudaSuccess;
}

}  // namespace cudalab_poison
