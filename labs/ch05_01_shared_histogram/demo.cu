// ch05_01 demo: the histogram of 2^28 bytes -- the notes' naive kernel (one global atomic per
// byte), the notes' shared kernel (one byte per thread, 1024-thread blocks), your
// histogramShared and CUB -- on uniform random bytes and on one repeated byte (every atomic on
// the same bin).
//
//   ./ch05_01_shared_histogram_demo [--csv]
#include "histogram.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.cuh"
#include "cudalab/timing.cuh"

#include <cub/device/device_histogram.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

/// The lecture notes' shared kernel: one byte per thread, bin t zeroed and merged by
/// thread t (right only because the demo launches 1024 >= 256 threads per block).
__global__ void histogramNotesShared(const unsigned char *colors, unsigned int *buckets, size_t n) {
  __shared__ unsigned int hist[kNumBins];
  const unsigned int t = threadIdx.x;
  if (t < kNumBins) hist[t] = 0;
  __syncthreads();
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + t;
  if (i < n) atomicAdd(&hist[colors[i]], 1u);
  __syncthreads();
  if (t < kNumBins) atomicAdd(&buckets[t], hist[t]);  // 256 global atomics per block of 1024 bytes
}

struct Row {
  const char *name;
  std::function<void()> launch;  // one run, zeroing of the counters included where the kernel needs it
  unsigned int *result;          // where the run leaves its 256 counters
  double global_atomics;         // global atomics per run (0: not known)
  int reps;                      // timed runs (the slow kernels get few)
};

std::vector<unsigned char> demo_bytes(size_t n, bool single, std::uint64_t seed) {
  std::vector<unsigned char> bytes(n, 42);
  if (single) return bytes;
  std::uint64_t x = seed;
  for (size_t i = 0; i < n; ++i) {  // xorshift64*
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    bytes[i] = static_cast<unsigned char>((x * 0x2545F4914F6CDD1Dull) >> 56);
  }
  return bytes;
}

}  // namespace

int main(int argc, char **argv) {
  const bool csv = argc > 1 && std::strcmp(argv[1], "--csv") == 0;
  const auto [dev, copy_gbs] = cudalab::demo::start();
  const size_t n = size_t(1) << 28;

  int blocks_per_sm = 0;
  CUDALAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, histogramShared, kHistogramBlock, 0));
  const unsigned int grid = histogram_shared_grid(n), notes_block = 1024, naive_block = 256;
  const unsigned int notes_grid = global_grid(n, notes_block), naive_grid = global_grid(n, naive_block);

  cudalab::DeviceBuffer<unsigned char> in, cub_temp;
  cudalab::DeviceBuffer<unsigned int> counters;
  CUDALAB_CHECK(in.allocate(n));
  CUDALAB_CHECK(counters.allocate(kNumBins));
  unsigned int *c = counters.get();
  const int levels = kNumBins + 1, samples = static_cast<int>(n);
  std::size_t cub_bytes = 0;
  CUDALAB_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, cub_bytes, in.get(), c, levels, 0, 256, samples));
  CUDALAB_CHECK(cub_temp.allocate(cub_bytes));
  auto zero = [&] { cudaMemsetAsync(c, 0, kNumBins * sizeof(unsigned int)); };

  const std::vector<Row> rows = {
      {"histogramGlobal (given, naive)",
       [&] {
         zero();
         histogramGlobal<<<naive_grid, naive_block>>>(in.get(), c, n);
       },
       c, double(n), 3},
      {"notes' shared kernel (1 byte/thread)",
       [&] {
         zero();
         histogramNotesShared<<<notes_grid, notes_block>>>(in.get(), c, n);
       },
       c, double(kNumBins) * notes_grid, 5},
      {"histogramShared (yours) + zeroing", [&] { run_histogram_shared(in.get(), c, n, grid); }, c,
       double(kNumBins) * grid, 21},
      {"cub::DeviceHistogram::HistogramEven",
       [&] { cub::DeviceHistogram::HistogramEven(cub_temp.get(), cub_bytes, in.get(), c, levels, 0, 256, samples); }, c,
       0, 21},
  };

  cudalab::demo::Table table({{"input", nullptr},
                              {"kernel", "kernel", "%-38s", "%s", ""},
                              {"ms", "ms", "%9.4f", "%.4f"},
                              {"gbs", "GB/s", "%7.0f", "%.1f"},
                              {"pct_copy", "%copy", "%6.1f%%", "%.1f"},
                              {"cub_over_this", "CUB/this", "%7.2fx", "%.3f"},
                              {"global_atomics", "global atomics", "%14s"},
                              {"result", "result", "%s", "%s", "  "}},
                             csv);
  if (!csv) {
    std::printf(
        "%s\nn = 2^28 bytes (256 MiB); histogramShared: %u blocks x %u threads (%d blocks/SM x %d SMs); "
        "measured copy bandwidth %.0f GB/s\n",
        cudalab::describe_device(dev).c_str(), grid, kHistogramBlock, blocks_per_sm, dev.sm_count, copy_gbs);
    std::printf("lecture notes (no timings): naive = N global stores; shared = 256 global stores per block\n");
  }
  for (bool single : {false, true}) {
    const char *input = single ? "one repeated byte (42)" : "uniform random bytes";
    const std::vector<unsigned char> bytes = demo_bytes(n, single, 2024);
    std::vector<unsigned long long> expected(kNumBins, 0);
    for (unsigned char b : bytes) ++expected[b];
    CUDALAB_CHECK(cudaMemcpy(in.get(), bytes.data(), n, cudaMemcpyHostToDevice));
    if (!csv) std::printf("\n%s\n", input);
    table.header();  // as CSV only once
    std::vector<double> ms(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      cudalab::TimingOptions opts;
      opts.warmup = rows[r].reps < 21 ? 1 : 3;
      opts.reps = rows[r].reps;
      const cudalab::TimingStats t = cudalab::demo::time_or_exit(rows[r].name, rows[r].launch, opts);
      ms[r] = t.median_ms;
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
      CUDALAB_CHECK(cudaMemset(rows[r].result, 0xCD, kNumBins * sizeof(unsigned int)));
      rows[r].launch();
      CUDALAB_CHECK_LAUNCH("histogram");
      std::vector<unsigned int> got(kNumBins);
      CUDALAB_CHECK(cudaMemcpy(got.data(), rows[r].result, kNumBins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
      bool ok = true;
      for (unsigned int b = 0; b < kNumBins; ++b) ok = ok && got[b] == expected[b];
      const double bw = cudalab::gbs(double(n), ms[r]), vs_cub = ms.back() / ms[r];
      char atomics[32] = "-";
      if (rows[r].global_atomics > 0) std::snprintf(atomics, sizeof atomics, "%.3g", rows[r].global_atomics);
      table.row({single ? "single" : "uniform", rows[r].name, ms[r], bw, 100 * bw / copy_gbs, vs_cub, atomics,
                 ok ? "ok" : cudalab::demo::Cell::text("WRONG COUNTS", "WRONG")});
    }
  }
  if (!csv)
    std::printf(
        "\nGB/s = bytes read / time; %%copy = of the device-to-device copy bandwidth; CUB/this > 1: faster "
        "than CUB; global atomics per run (yours: at most 256 per block, zero bins skipped or not)\n");
  return EXIT_SUCCESS;
}
