// ch03_05 demo: your deviceQuery report and occupancy calculator on this GPU.
//
//   ./ch03_05_occupancy_demo
//
// Prints the report, then resident blocks/warps, occupancy and the limiter for a few launch
// configurations, beside what the runtime (cudaOccupancyMaxActiveBlocksPerMultiprocessor) says.
#include "occupancy.cuh"

#include "cudalab/check.cuh"

#include <cstdio>

int main() {
  DeviceReport report;
  CUDALAB_CHECK(device_query(0, &report));
  std::printf("%s\n", format_device_report(report).c_str());

  struct Config {
    int threads, regs;
    std::size_t smem;
    const char *note;
  } configs[] = {
      {256, 37, 4096, "the toolkit's example: registers"},
      {32, 16, 0, "tiny blocks: the per-SM block limit"},
      {1024, 64, 0, "big blocks, 64 regs: registers"},
      {128, 32, 48 * 1024, "48 KB shared memory per block"},
      {768, 32, 0, "768 threads: warp slots"},
      {256, 255, 0, "255 regs/thread"},
  };
  std::printf("%8s %6s %9s | %7s %6s %9s  %-28s  %s\n", "threads", "regs", "smem B", "blocks", "warps",
              "occupancy", "limited by", "note");
  for (const Config &c : configs) {
    KernelUsage k{c.threads, c.regs, 0, c.smem, c.smem > 48 * 1024, 0};
    Occupancy o = compute_occupancy(report.sm, k);
    std::printf("%8d %6d %9zu | %7d %6d %8.1f%%  %-28s  %s\n", c.threads, c.regs, c.smem, o.blocks_per_sm,
                o.warps_per_sm, 100 * o.occupancy, limiter_names(o.limiters).c_str(), c.note);
  }
  KernelUsage any{0, 32, 0, 0, false, 0};
  std::printf("\nBest block size for a 32-register kernel: %d threads\n", best_block_size(report.sm, any));
  return 0;
}
