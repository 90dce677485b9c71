/// @file watchdog.hpp
/// @brief The per-test watchdog of the lab test binaries. A kernel that never finishes cannot be
/// cancelled from the host, so a GPU test whose wait on the GPU (a synchronising CUDA call:
/// cudaDeviceSynchronize, cudaMemcpy, ...) has lasted the time budget prints
/// "[ CUDALAB  ] reason: kernel did not finish in N s (<test>)", records its lab as hung (a marker
/// file in the lab's build directory) and ends the whole process at once. The lab's later GPU
/// tests then fail in GpuTest::SetUp without touching the GPU, so a hanging submission costs one
/// budget per lab instead of a CTest timeout per test. A GPU test that is slow but keeps finishing
/// its waits (a busy or shared GPU, a slow CPU) is not stopped before 6 budgets in all; a host
/// test is stopped after one budget.
///
/// Environment (CTest sets both for every test, see cmake/CudaLab.cmake):
///   CUDALAB_KERNEL_TIMEOUT  the budget: seconds one wait on the GPU (or a host test) may last
///                           (default 120 when unset; 0 turns the watchdog off, e.g. under a
///                           debugger)
///   CUDALAB_STATE_DIR       the lab's build directory: where the hang marker is written and read
///                           (unset: no marker is written or read)
#pragma once

#include <string>

namespace cudalab::watchdog {

/// @brief Exit status of a process the watchdog ended (the status `timeout(1)` uses).
constexpr int kExitCode = 124;

/// @brief Name of the hang marker file inside CUDALAB_STATE_DIR.
constexpr const char *kMarkerName = "lab-hung.txt";

/// @brief The budget of one test in seconds, from CUDALAB_KERNEL_TIMEOUT (0: no watchdog).
double budget_seconds();

/// @brief Starts the clock of test @p test_name ("Suite.Test"): when budget_seconds() pass before
/// disarm(), the watchdog reports it, kills the processes this one started (ncu, a profiled
/// program) and exits with kExitCode.
void arm(const std::string &test_name);

/// @brief The running test uses the GPU: if it does not finish, its lab is recorded as hung.
void mark_gpu();

/// @brief Stops the clock of the running test.
void disarm();

/// @brief The calling thread starts waiting on the GPU (called by the wrapped synchronising CUDA
/// calls of gpu_waits.cpp): if the wait lasts the budget, the kernel is taken to be hung.
void begin_gpu_wait();

/// @brief The wait begun by begin_gpu_wait() is over.
void end_gpu_wait();

/// @brief "" when this lab has not hung in this ctest run; otherwise the reason a GPU test is not
/// run: "not run: an earlier test of this lab did not finish in N s (<test>)".
std::string earlier_hang();

}  // namespace cudalab::watchdog
