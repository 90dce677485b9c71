// ch03_04 demo: latency and Little's law on your GPU.
//
//   ./ch03_04_latency_hiding_demo          the tables
//   ./ch03_04_latency_hiding_demo --csv    part 3 only, as CSV (for tools/plots.py): one row per
//     kernel and resident warps per SM,
//     kernel,loads_in_flight,warps_per_sm,block,blocks_per_sm,ms,gbs,pct_copy,predicted_gbs,copy_gbs
//     (ms, gbs, pct_copy empty where that many warps do not fit)
//
// 1. Load latency from your pointerChase: a chain in L1, in L2, and through DRAM.
// 2. The book's memory table (Fermi) beside the same computation for this GPU.
// 3. Copy bandwidth against resident warps per SM (held by dynamic shared memory), for one and
//    for four loads in flight per thread, beside what Little's law predicts from the latency.
#include "latency.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/demo.cuh"
#include "cudalab/timing.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct Latency {
  double cycles = 0;  // clock64 cycles per load
  double ns = 0;      // event time per load
};

/// Chases @p steps hops through a ring of @p elems ints (nodes @p stride apart) after
/// @p warmup untimed hops; flushes L2 first when @p cold.
Latency chase(std::size_t elems, std::size_t stride, unsigned int warmup, bool cold) {
  const unsigned int steps = 4096;
  std::vector<unsigned int> ring = make_chase_ring(elems, stride, 2024);
  cudalab::DeviceBuffer<unsigned int> next;
  cudalab::DeviceBuffer<ChaseResult> result;
  CUDALAB_CHECK(next.upload(ring));
  CUDALAB_CHECK(result.allocate(1));
  unsigned int want = 0;
  for (unsigned long long i = 0; i < (unsigned long long)warmup + steps; ++i) want = ring[want];
  // Timed hops only in the event measurement too: the difference of a run with and without them.
  auto run = [&](unsigned int s) {
    if (cold) cudalab::flush_l2();
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a);
    pointerChase<<<1, 1>>>(next.get(), 0, warmup, s, result.get());
    cudaEventRecord(b);
    CUDALAB_CHECK_LAUNCH("pointerChase");
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return double(ms);
  };
  run(steps);  // the first launch also loads the module: not part of any measurement
  const double base_ms = run(0);
  const double ms = run(steps);
  std::vector<ChaseResult> r;
  CUDALAB_CHECK(result.download(&r));
  if (r[0].index != want) {
    std::fprintf(stderr, "pointerChase reached index %u, expected %u: fix it first (ctest -L ch03_04)\n", r[0].index,
                 want);
    std::exit(EXIT_FAILURE);
  }
  return {double(r[0].cycles) / steps, std::max(ms - base_ms, 0.0) * 1e6 / steps};
}

}  // namespace

int main(int argc, char **argv) {
  const bool csv = argc > 1 && std::strcmp(argv[1], "--csv") == 0;
  const auto [dev, copy_gbs] = cudalab::demo::start();
  if (!csv)
    std::printf("%s\nmeasured copy bandwidth %.0f GB/s (theoretical %.0f), L2 %zu MB\n\n",
                cudalab::describe_device(dev).c_str(), copy_gbs, dev.theoretical_bandwidth_gbs(), dev.l2_bytes >> 20);

  // 1. Latency (with --csv only the DRAM latency, which part 3's prediction needs).
  Latency l1, l2;
  if (!csv) {
    l1 = chase(1024, 1, 1024, false);                                                       // 4 KB: L1 after one lap
    l2 = chase(std::min<std::size_t>(dev.l2_bytes / 8, 8 << 20) / 4, 32, 1u << 16, false);  // L2
  }
  const Latency dram = chase(std::size_t(32) << 20, 32, 0, true);  // 128 MB, cold L2
  const double sm_ghz = dram.ns > 0 ? dram.cycles / dram.ns : dev.sm_clock_khz / 1e6;
  if (!csv) {
    std::printf("Load latency (pointerChase, 4096 dependent loads)\n");
    std::printf("  %-28s %10s %8s\n", "chain", "cycles", "ns");
    std::printf("  %-28s %10.1f %8.1f\n", "4 KB (L1 hits)", l1.cycles, l1.ns);
    std::printf("  %-28s %10.1f %8.1f\n", "L2/8, one warm lap (L2 hits)", l2.cycles, l2.ns);
    std::printf("  %-28s %10.1f %8.1f\n", "128 MB, cold L2 (DRAM)", dram.cycles, dram.ns);
    std::printf("  DRAM / L1 = %.1fx; SM clock during the chase %.2f GHz (peak %.2f)\n\n", dram.cycles / l1.cycles,
                sm_ghz, dev.sm_clock_khz / 1e6);

    // 2. The book's table and this GPU's.
    const MemoryParallelism fermi = memory_parallelism(800, 144, 1.566, 4, 32, 16);
    const MemoryParallelism here4 = memory_parallelism(dram.cycles, copy_gbs, sm_ghz, 4, dev.warp_size, dev.sm_count);
    const MemoryParallelism here16 = memory_parallelism(dram.cycles, copy_gbs, sm_ghz, 16, dev.warp_size, dev.sm_count);
    std::printf("Little's law for memory: bytes in flight = latency x bandwidth\n");
    std::printf("  %-34s %14s %14s %14s\n", "", "book (Fermi)", "this GPU, 4 B", "this GPU, 16 B");
    std::printf("  %-34s %14.0f %14.0f %14.0f\n", "latency (cycles)", 800.0, dram.cycles, dram.cycles);
    std::printf("  %-34s %14.0f %14.0f %14.0f\n", "bandwidth (GB/s)", 144.0, copy_gbs, copy_gbs);
    std::printf("  %-34s %14.3f %14.3f %14.3f\n", "clock (GHz)", 1.566, sm_ghz, sm_ghz);
    std::printf("  %-34s %14.1f %14.1f %14.1f\n", "bytes per cycle", fermi.bytes_per_cycle, here4.bytes_per_cycle,
                here16.bytes_per_cycle);
    std::printf("  %-34s %14.0f %14.0f %14.0f\n", "bytes in flight", fermi.bytes_in_flight, here4.bytes_in_flight,
                here16.bytes_in_flight);
    std::printf("  %-34s %14.0f %14.0f %14.0f\n", "threads (bytes per thread: 4/4/16)", fermi.threads, here4.threads,
                here16.threads);
    std::printf("  %-34s %14d %14d %14d\n", "warps", fermi.warps, here4.warps, here16.warps);
    std::printf("  %-34s %14.1f %14.1f %14.1f   (max %d)\n\n", "warps per SM", fermi.warps_per_sm, here4.warps_per_sm,
                here16.warps_per_sm, dev.max_warps_per_sm);
  }

  // 3. Bandwidth against resident warps.
  const std::size_t n = std::size_t(1) << 24;  // 256 MB of int4
  std::vector<int> ints = cudalab::random_ints(4 * n, -1000, 1000, 7);
  std::vector<int4> input(n);
  std::memcpy(input.data(), ints.data(), n * sizeof(int4));
  cudalab::DeviceBuffer<int4> in, out;
  CUDALAB_CHECK(in.upload(input));
  CUDALAB_CHECK(out.allocate(n));
  const double bytes = 2.0 * n * sizeof(int4);

  struct Kernel {
    const char *name;
    void (*fn)(const int4 *, int4 *, std::size_t);
    int loads;
  } kernels[] = {{"copyInt4", copyInt4, 1}, {"copyInt4Ilp4", copyInt4Ilp4, kIlp}};
  for (const Kernel &k : kernels) {  // check once: a wrong copy's speed means nothing
    CUDALAB_CHECK(out.poison());
    k.fn<<<dev.sm_count * 4, 256>>>(in.get(), out.get(), n);
    CUDALAB_CHECK_LAUNCH("copy");
    std::vector<int4> got;
    CUDALAB_CHECK(out.download(&got));
    if (std::memcmp(got.data(), input.data(), n * sizeof(int4)) != 0) {
      std::fprintf(stderr, "%s does not copy correctly: fix it first (ctest -L ch03_04)\n", k.name);
      return EXIT_FAILURE;
    }
  }

  // With --csv one row per kernel and warps per SM (CSV only: the table puts both kernels on one line).
  cudalab::demo::Table csv_rows({{"kernel", nullptr},
                                 {"loads_in_flight", nullptr, "", "%d"},
                                 {"warps_per_sm", nullptr, "", "%d"},
                                 {"block", nullptr, "", "%d"},
                                 {"blocks_per_sm", nullptr, "", "%d"},
                                 {"ms", nullptr, "", "%.4f"},
                                 {"gbs", nullptr, "", "%.1f"},
                                 {"pct_copy", nullptr, "", "%.1f"},
                                 {"predicted_gbs", nullptr, "", "%.1f"},
                                 {"copy_gbs", nullptr, "", "%.1f"}},
                                /*csv=*/true);
  if (csv) {
    csv_rows.header();
  } else {
    std::printf("Copy bandwidth against resident warps per SM (256 MB; occupancy held by dynamic shared memory)\n");
    std::printf(
        "Little's law: GB/s = bytes in flight / DRAM latency (%.0f ns, unloaded), x2 for the writes, "
        "capped at the copy bandwidth\n",
        dram.ns);
    std::printf("  %5s %6s %6s | %9s %6s %9s | %9s %6s %9s\n", "warps", "block", "blocks", "1 load", "%copy",
                "predicted", "4 loads", "%copy", "predicted");
  }
  for (int w : {1, 2, 4, 8, 16, 32, 64}) {
    if (w > dev.max_warps_per_sm) break;
    const int per_block = std::min(w, 8), blocks = w / per_block, block = 32 * per_block;
    if (!csv) std::printf("  %5d %6d %6d |", w, block, blocks);
    for (const Kernel &k : kernels) {
      const double in_flight = double(dev.sm_count) * w * dev.warp_size * sizeof(int4) * k.loads;
      const double predicted = std::min(copy_gbs, 2 * littles_law_bandwidth_gbs(in_flight, dram.ns));
      std::size_t dyn = 0;
      if (pin_blocks_per_sm((const void *)k.fn, block, blocks, &dyn) != cudaSuccess) {
        if (csv)
          csv_rows.row({k.name, k.loads, w, block, blocks, "", "", "", predicted, copy_gbs});
        else
          std::printf(" %9s %6s %9s |", "n/a*", "", "");
        cudaGetLastError();
        continue;
      }
      const unsigned int grid = dev.sm_count * blocks;
      const cudalab::TimingStats t =
          cudalab::demo::time_or_exit(k.name, [&] { k.fn<<<grid, block, dyn>>>(in.get(), out.get(), n); });
      const double gbs = cudalab::gbs(bytes, t.median_ms);
      if (csv)
        csv_rows.row({k.name, k.loads, w, block, blocks, t.median_ms, gbs, 100 * gbs / copy_gbs, predicted, copy_gbs});
      else
        std::printf(" %9.0f %5.1f%% %9.0f |", gbs, 100 * gbs / copy_gbs, predicted);
    }
    if (!csv) std::printf("\n");
  }
  if (!csv) std::printf("* n/a: that many warps do not fit (the kernel's registers, or the SM's warp limit)\n");
  return EXIT_SUCCESS;
}
