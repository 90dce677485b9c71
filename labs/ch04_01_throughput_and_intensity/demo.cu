// ch04_01 demo: the seed's throughput figures beside this GPU's, the memory hierarchy then and
// now, registers vs local memory, and the measured roofline of intensityKernel for k = 1..1024.
//
//   ./ch04_01_throughput_and_intensity_demo          everything
//   ./ch04_01_throughput_and_intensity_demo once K   one intensityKernel launch with k = K, for a profiler:
//     ncu --clock-control none --section SpeedOfLight_RooflineChart ./ch04_01_throughput_and_intensity_demo once 1
#include "intensity.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.cuh"
#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr int kN = 1 << 26;  // intensityKernel: 256 MiB in, 256 MiB out
constexpr unsigned kBlock = 256;
constexpr float kA = 0.75f, kB = 0.25f;

// Combined L1 / shared-memory storage per SM (CUDA C++ Programming Guide); no attribute reports it.
int unified_l1_kb(int major, int minor) {
  if (major == 7) return minor == 5 ? 96 : 128;
  if (major == 8) return (minor == 0 || minor == 7) ? 192 : 128;
  if (major == 9 || major == 10) return 256;
  if (major == 12) return 128;
  return 0;
}

void row(const char *what, const char *a, const char *b, const char *c) {
  std::printf("  %-34s %18s %18s   %s\n", what, a, b, c);
}

std::string fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string fmt2(const char *f, double v, double w) {
  char buf[96];
  std::snprintf(buf, sizeof buf, f, v, w);
  return buf;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<float> host_in(kN);
  for (int i = 0; i < kN; ++i) host_in[i] = (i % 2001) / 1000.0f - 1.0f;
  cudalab::DeviceBuffer<float> in, out;
  CUDALAB_CHECK(in.upload(host_in));
  CUDALAB_CHECK(out.allocate(kN));

  if (argc >= 3 && std::strcmp(argv[1], "once") == 0) {
    const int k = std::atoi(argv[2]);
    intensityKernel<<<intensity_grid(kN, kBlock), kBlock>>>(in.get(), out.get(), kN, k, kA, kB);
    CUDALAB_CHECK_LAUNCH("intensityKernel");
    return EXIT_SUCCESS;
  }

  const auto [dev, copy_gbs] = cudalab::demo::start();
  const DeviceFigures f = device_figures(dev, copy_gbs);
  std::printf("%s\nmeasured copy bandwidth %.0f GB/s\n\n", cudalab::describe_device(dev).c_str(), copy_gbs);

  // ---- 1. The seed's figures, computed with your calculators, beside this GPU's ----------------
  std::printf(
      "1. Throughput (your calculators). Seed: GTX 1080 Ti-class figures (11.3 TFLOP/s, 484 GB/s)\n"
      "   for the compute-vs-I/O gap, GTX 260-class figures (805 GFLOP/s, 112 GB/s) for the matmul.\n");
  row("", "seed 11.3T/484", "seed 805/112", "this GPU (measured bandwidth)");
  row("peak FP32 GFLOP/s", fmt("%.0f", 11300).c_str(), fmt("%.0f", 805).c_str(),
      fmt2("%.0f  (%.0f FP32 lanes/SM)", f.peak_gflops, f.fp32_lanes_per_sm).c_str());
  row("memory bandwidth GB/s", "484", "112",
      fmt2("%.0f measured, %.0f theoretical", f.measured_gbs, f.theoretical_gbs).c_str());
  row("G floats per second", fmt("%.1f", gfloats_per_second(484, 4)).c_str(),
      fmt("%.1f", gfloats_per_second(112, 4)).c_str(), fmt("%.1f", f.gfloats).c_str());
  row("FLOPs per float loaded (the gap)", fmt("%.1f", compute_to_io_ratio(11300, 484, 4)).c_str(),
      fmt("%.1f", compute_to_io_ratio(805, 112, 4)).c_str(), fmt("%.1f", f.compute_to_io).c_str());
  row("ridge point FLOP/B", fmt("%.2f", ridge_intensity(11300, 484)).c_str(),
      fmt("%.2f", ridge_intensity(805, 112)).c_str(), fmt("%.2f", f.ridge).c_str());
  row("naive matmul: bandwidth for peak", "-",
      fmt("%.0f GB/s", bandwidth_needed_gbs(805, matmul_bytes_per_flop(1, 4))).c_str(),
      fmt("%.0f GB/s", bandwidth_needed_gbs(f.peak_gflops, matmul_bytes_per_flop(1, 4))).c_str());
  const int tiles[] = {1, 16, 32};
  const RooflinePoint *mine[] = {&f.naive, &f.tiled16, &f.tiled32};
  const char *names[] = {"naive matmul (0.25 FLOP/B)", "tiled 16 (4 FLOP/B)", "tiled 32 (8 FLOP/B)"};
  for (int i = 0; i < 3; ++i) {
    const double seed_gflops = attainable_gflops(805, 1.0 / matmul_bytes_per_flop(tiles[i], 4), 112);
    row(names[i], "-", fmt2("%.0f (%.1f%%)", seed_gflops, 100.0 * seed_gflops / 805).c_str(),
        fmt2("%.0f GFLOP/s (%.1f%% of peak)", mine[i]->gflops, mine[i]->pct_of_peak).c_str());
  }
  const TiledLaunch seed_launch = tiled_launch(1024, 16, 3, 768);
  const TiledLaunch here_launch = tiled_launch(1024, 16, 3, dev.max_threads_per_sm);
  std::printf(
      "  tiled 1024 x 1024, TILE 16, 3 blocks/SM: %d x %d blocks, %d threads/SM = %.1f%% of 768 (seed), "
      "%.1f%% of this GPU's %d\n\n",
      seed_launch.grid_x, seed_launch.grid_y, seed_launch.threads_per_sm, 100 * seed_launch.thread_occupancy,
      100 * here_launch.thread_occupancy, dev.max_threads_per_sm);

  // ---- 2. The memory hierarchy, then and now -------------------------------------------------
  int const_mem = 0;
  CUDALAB_CHECK(cudaDeviceGetAttribute(&const_mem, cudaDevAttrTotalConstantMemory, 0));
  std::printf("2. Memory hierarchy (attributes)\n");
  row("", "seed", "", "this GPU");
  row("registers per SM", "10000 (sic)", "", fmt("%.0f x 32 bit", dev.regs_per_sm).c_str());
  row("registers per thread", "32-64", "", "up to 255");
  row("shared memory per SM", "up to 96 KB", "",
      fmt2("%.0f KB (%.0f KB per block, opt-in)", dev.smem_per_sm / 1024.0, dev.smem_per_block_optin / 1024.0).c_str());
  const int l1 = unified_l1_kb(dev.cc_major, dev.cc_minor);
  row("L1 cache per SM", "16 / 32 / 48 KB", "",
      l1 ? fmt("%.0f KB shared with shared memory", l1).c_str() : "unified with shared memory");
  row("L2 cache", "up to 1 MB", "", fmt("%.0f MB", dev.l2_bytes / 1048576.0).c_str());
  row("constant memory", "64 KB", "", fmt("%.0f KB (8 KB constant cache per SM)", const_mem / 1024.0).c_str());
  std::printf("\n");

  // ---- 3. The roofline of intensityKernel ----------------------------------------------------
  std::printf("3. intensityKernel, %d floats, block %u: k FMAs per element, 2k FLOPs per 8 bytes\n", kN, kBlock);
  std::printf("  %5s %8s %9s %10s %8s %12s %8s %8s  %s\n", "k", "FLOP/B", "ms", "GFLOP/s", "GB/s", "roofline", "% roof",
              "bound", "result");
  const int stride = 1024;  // check every 1024th element on the CPU
  std::vector<float> sample(kN / stride);
  for (int k = 1; k <= 1024; k *= 2) {
    auto launch = [&] { intensityKernel<<<intensity_grid(kN, kBlock), kBlock>>>(in.get(), out.get(), kN, k, kA, kB); };
    cudalab::TimingOptions opts;
    opts.reps = 11;
    const cudalab::TimingStats t = cudalab::time_kernel(launch, opts);
    if (!t.ok) {
      std::fprintf(stderr, "%s\n", t.error.c_str());
      return EXIT_FAILURE;
    }
    CUDALAB_CHECK(out.poison());
    launch();
    CUDALAB_CHECK_LAUNCH("intensityKernel");
    CUDALAB_CHECK(cudaMemcpy2D(sample.data(), sizeof(float), out.get(), stride * sizeof(float), sizeof(float),
                               sample.size(), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (std::size_t s = 0; s < sample.size() && ok; ++s) {
      float x = host_in[s * stride];
      for (int j = 0; j < k; ++j) x = std::fma(x, kA, kB);
      ok = std::memcmp(&x, &sample[s], sizeof x) == 0;
    }
    const double intensity = intensity_of(k);
    const double gflops = 2.0 * k * kN / (t.median_ms * 1e6);
    const double roof = attainable_gflops(f.peak_gflops, intensity, f.measured_gbs);
    std::printf("  %5d %8.2f %9.4f %10.0f %8.0f %12.0f %7.1f%% %8s  %s\n", k, intensity, t.median_ms, gflops,
                cudalab::gbs(8.0 * kN, t.median_ms), roof, roof > 0 ? 100.0 * gflops / roof : 0.0,
                intensity < f.ridge ? "memory" : "compute", ok ? "ok" : "WRONG");
  }
  std::printf("\n");

  // ---- 4. Registers vs local memory ----------------------------------------------------------
  std::printf("4. Registers vs local memory (cudaFuncGetAttributes; nvcc -Xptxas -v prints the same)\n");
  const int nd = 1 << 24, ns = 1 << 22, iters = 16;
  std::vector<unsigned> digits(nd);
  for (int i = 0; i < nd; ++i) digits[i] = 2654435761u * static_cast<unsigned>(i);
  cudalab::DeviceBuffer<unsigned> din, dlocal, dreg;
  CUDALAB_CHECK(din.upload(digits));
  CUDALAB_CHECK(dlocal.allocate(nd));
  CUDALAB_CHECK(dreg.allocate(nd));
  cudalab::DeviceBuffer<float> sa, sb;
  CUDALAB_CHECK(sa.allocate(ns));
  CUDALAB_CHECK(sb.allocate(ns));
  struct Kernel {
    const char *name;
    const void *func;
    std::function<void()> launch;
    cudalab::DeviceBuffer<unsigned> *digit_out;
    cudalab::DeviceBuffer<float> *float_out;
  } kernels[] = {
      {"localArrayKernel (given)", (const void *)localArrayKernel,
       [&] { localArrayKernel<<<intensity_grid(nd, 256), 256>>>(din.get(), dlocal.get(), nd); }, &dlocal, nullptr},
      {"registerArrayKernel (yours)", (const void *)registerArrayKernel,
       [&] { registerArrayKernel<<<intensity_grid(nd, 256), 256>>>(din.get(), dreg.get(), nd); }, &dreg, nullptr},
      {"spillKernel (given, bounds 1024)", (const void *)spillKernel,
       [&] { spillKernel<<<intensity_grid(ns, 256), 256>>>(in.get(), sa.get(), ns, iters); }, nullptr, &sa},
      {"roomyKernel (given, no bounds)", (const void *)roomyKernel,
       [&] { roomyKernel<<<intensity_grid(ns, 256), 256>>>(in.get(), sb.get(), ns, iters); }, nullptr, &sb},
  };
  std::printf("  %-33s %5s %14s %9s  %s\n", "kernel", "regs", "local B/thread", "ms", "result");
  for (Kernel &k : kernels) {
    cudaFuncAttributes fa;
    CUDALAB_CHECK(cudaFuncGetAttributes(&fa, k.func));
    if (k.digit_out) CUDALAB_CHECK(k.digit_out->poison());
    if (k.float_out) CUDALAB_CHECK(k.float_out->poison());
    cudalab::TimingOptions opts;
    opts.warmup = 1;
    opts.reps = 5;
    const cudalab::TimingStats t = cudalab::time_kernel(k.launch, opts);
    if (!t.ok) {
      std::fprintf(stderr, "%s\n", t.error.c_str());
      return EXIT_FAILURE;
    }
    const char *result = "";
    if (k.digit_out == &dreg) {  // yours against the given local-array kernel
      std::vector<unsigned> a, b;
      CUDALAB_CHECK(dlocal.download(&a));
      CUDALAB_CHECK(dreg.download(&b));
      result = a == b ? "ok (same as localArrayKernel)" : "WRONG (differs from localArrayKernel)";
    }
    if (k.float_out == &sb) {
      std::vector<float> a, b;
      CUDALAB_CHECK(sa.download(&a));
      CUDALAB_CHECK(sb.download(&b));
      result = std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0 ? "same result as spillKernel"
                                                                              : "differs from spillKernel";
    }
    std::printf("  %-33s %5d %14zu %9.4f  %s\n", k.name, fa.numRegs, fa.localSizeBytes, t.median_ms, result);
  }
  return EXIT_SUCCESS;
}
