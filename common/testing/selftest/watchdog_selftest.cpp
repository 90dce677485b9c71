// A stand-in for a lab test binary, for the watchdog's own test (WatchdogSelftest.cmake); no GPU
// needed. `watchdog_selftest <mode>`, with CUDALAB_KERNEL_TIMEOUT and CUDALAB_STATE_DIR set:
//   gpu-hang   a "GPU test" that starts a child process and waits on the GPU for ever: the
//              watchdog must print the reason, write the lab's hang marker, kill the child and
//              exit with 124
//   gpu-slow   a GPU test that runs 2.5 budgets but never waits on the GPU for more than 0.3 of
//              one (a shared GPU): it must not be stopped (exit 0)
//   gpu-busy   a GPU test that never finishes without waiting on the GPU: stopped after 6 budgets
//   host-hang  a host test that never finishes: reason and exit 124, but no marker
//   finishes   a test that ends within its budget, then the process idles past it: exit 0
//   next       a later test: prints watchdog::earlier_hang() (exit 0) or "no hang" (exit 3)
#include "cudalab/watchdog.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include <unistd.h>

namespace {

/// Sleeps long past any budget the test sets.
void hang() { std::this_thread::sleep_for(std::chrono::seconds(60)); }

/// Starts `sleep 600` as a child (as an Nsight Compute run would be) and writes its pid to @p file.
void start_child(const std::string &file) {
  const pid_t pid = fork();
  if (pid == 0) {
    execlp("sleep", "sleep", "600", static_cast<char *>(nullptr));
    _exit(127);
  }
  std::ofstream(file) << pid << "\n";
}

}  // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const char *dir = std::getenv("CUDALAB_STATE_DIR");
  if (mode == "gpu-hang") {
    cudalab::watchdog::arm("Selftest.GpuHang");
    cudalab::watchdog::mark_gpu();
    if (dir != nullptr) start_child(std::string(dir) + "/child.pid");
    std::printf("[ CUDALAB  ] seed: 42 (buffered output, flushed by the watchdog)\n");  // no fflush
    cudalab::watchdog::begin_gpu_wait();
    hang();
    return 0;  // not reached when the watchdog works
  }
  if (mode == "gpu-slow") {
    cudalab::watchdog::arm("Selftest.GpuSlow");
    cudalab::watchdog::mark_gpu();
    const double budget = cudalab::watchdog::budget_seconds();
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(2.5 * budget);
    while (std::chrono::steady_clock::now() < end) {
      cudalab::watchdog::begin_gpu_wait();
      std::this_thread::sleep_for(std::chrono::duration<double>(0.3 * budget));
      cudalab::watchdog::end_gpu_wait();
      std::this_thread::sleep_for(std::chrono::duration<double>(0.05 * budget));
    }
    cudalab::watchdog::disarm();
    std::printf("finished\n");
    return 0;
  }
  if (mode == "gpu-busy") {
    cudalab::watchdog::arm("Selftest.GpuBusy");
    cudalab::watchdog::mark_gpu();
    hang();
    return 0;
  }
  if (mode == "host-hang") {
    cudalab::watchdog::arm("Selftest.HostHang");
    hang();
    return 0;
  }
  if (mode == "finishes") {
    cudalab::watchdog::arm("Selftest.Finishes");
    cudalab::watchdog::mark_gpu();
    cudalab::watchdog::disarm();
    std::this_thread::sleep_for(std::chrono::duration<double>(2.0 * cudalab::watchdog::budget_seconds() + 0.5));
    std::printf("finished\n");
    return 0;
  }
  if (mode == "next") {
    const std::string why = cudalab::watchdog::earlier_hang();
    std::printf("%s\n", why.empty() ? "no hang" : why.c_str());
    return why.empty() ? 3 : 0;
  }
  std::fprintf(stderr, "usage: %s gpu-hang|gpu-slow|gpu-busy|host-hang|finishes|next\n", argv[0]);
  return 2;
}
