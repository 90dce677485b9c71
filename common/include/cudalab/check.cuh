/// @file check.cuh
/// @brief Error checks for CUDA API calls and kernel launches.
///
/// Two flavours:
///  * CUDALAB_CHECK(expr) / CUDALAB_CHECK_LAUNCH(name) for demo programs: print file, line and the
///    CUDA error, then exit. Never use them inside a test: exiting kills the whole test binary.
///  * Inside tests use CUDALAB_ASSERT_OK / CUDALAB_ASSERT_LAUNCH from cudalab/testing.cuh, which
///    fail the current test only.
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace cudalab {

/// @brief One line describing a failed CUDA call: "<what> failed at file:line: cudaErrorX (text)".
/// Adds a hint for the errors students meet most (illegal address, no kernel image, ...).
std::string describe_error(cudaError_t err, const char *what, const char *file, int line);

/// @brief A hint for a CUDA error code that a student can act on ("" when there is none).
const char *error_hint(cudaError_t err);

/// @brief For demo programs: print describe_error() to stderr and exit(EXIT_FAILURE) on error.
void check_or_exit(cudaError_t err, const char *what, const char *file, int line);

}  // namespace cudalab

/// Demo programs: check a CUDA runtime call and exit with a message if it failed.
#define CUDALAB_CHECK(expr) ::cudalab::check_or_exit((expr), #expr, __FILE__, __LINE__)

/// Demo programs: check the launch of kernel `name` (launch error, then execution error).
#define CUDALAB_CHECK_LAUNCH(name)                                                  \
  do {                                                                              \
    ::cudalab::check_or_exit(cudaGetLastError(), "launch of " name, __FILE__, __LINE__); \
    ::cudalab::check_or_exit(cudaDeviceSynchronize(), "kernel " name, __FILE__, __LINE__); \
  } while (0)
