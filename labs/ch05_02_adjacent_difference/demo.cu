// ch05_02 demo: the naive adjacent difference beside the shared-memory one (block 256), for 2^20
// to 2^28 ints: time, bandwidth, % of the measured copy bandwidth, and the seed's load analysis
// (2N element loads vs N + N/block) with the 32-byte sectors a profiler counts.
//
//   ./ch05_02_adjacent_difference_demo                    the table
//   ./ch05_02_adjacent_difference_demo once naive|shared [n]  one launch (default n = 2^24), for ncu:
//     ncu --clock-control none --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
//         l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum,\
//         l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct \
//         ./ch05_02_adjacent_difference_demo once shared
#include "adjacent_difference.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/demo.cuh"
#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

void launch(bool shared, const int *in, int *out, int n) {
  if (shared)
    launch_adjacent_difference_shared(in, out, n, kAdjacentBlock);
  else
    adjacentDifferenceNaive<<<adjacent_difference_grid(n, kAdjacentBlock), kAdjacentBlock>>>(in, out, n);
}

/// Runs one kernel once on the first n ints and compares with the CPU.
bool correct(bool shared, const std::vector<int> &host, const cudalab::DeviceBuffer<int> &in,
             cudalab::DeviceBuffer<int> &out, int n, std::vector<int> &got) {
  CUDALAB_CHECK(out.poison());
  launch(shared, in.get(), out.get(), n);
  CUDALAB_CHECK_LAUNCH("adjacentDifference");
  got.resize(n);
  CUDALAB_CHECK(cudaMemcpy(got.data(), out.get(), std::size_t(n) * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (got[i] != (i > 0 ? host[i] - host[i - 1] : host[i])) return false;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDALAB_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const int max_n = free_bytes > (std::size_t(5) << 30) ? 1 << 28 : 1 << 26;  // 2 x 1 GiB needs room

  if (argc >= 3 && std::strcmp(argv[1], "once") == 0) {
    const int n = argc >= 4 ? std::atoi(argv[3]) : 1 << 24;
    cudalab::DeviceBuffer<int> in, out;
    CUDALAB_CHECK(in.upload(cudalab::random_ints(n, -1000000, 1000000, 1)));
    CUDALAB_CHECK(out.allocate(n));
    launch(std::strcmp(argv[2], "shared") == 0, in.get(), out.get(), n);
    CUDALAB_CHECK_LAUNCH("adjacentDifference");
    return EXIT_SUCCESS;
  }

  const auto [dev, copy_gbs] = cudalab::demo::start();
  const std::vector<int> host = cudalab::random_ints(max_n, -1000000, 1000000, 1);
  cudalab::DeviceBuffer<int> in, out;
  CUDALAB_CHECK(in.upload(host));
  CUDALAB_CHECK(out.allocate(max_n));
  std::vector<int> got;

  std::printf("%s\nblock %u, measured copy bandwidth %.0f GB/s (n ints read + n written per run)\n",
              cudalab::describe_device(dev).c_str(), kAdjacentBlock, copy_gbs);
  std::printf("seed (lecture, older GPU): naive 2N loads, shared N + N/blockDim, shared 1.6x the throughput\n\n");
  std::printf("%-10s %-8s %9s %8s %7s | %12s %12s %10s | %s\n", "n", "kernel", "ms", "GB/s", "%copy", "elem loads",
              "32B sectors", "vs naive", "result");
  for (int n : {1 << 20, 1 << 24, 1 << 26, 1 << 28}) {
    if (n > max_n) {
      std::printf("%-10d (skipped: not enough free GPU memory)\n", n);
      continue;
    }
    const LoadCounts model = predict_global_loads(n, kAdjacentBlock);
    double naive_ms = 0;
    for (bool shared : {false, true}) {
      const bool ok = correct(shared, host, in, out, n, got);
      cudalab::TimingOptions opts;
      opts.flush_l2 = n <= (1 << 24);  // small inputs would otherwise sit in L2 between runs
      const cudalab::TimingStats t = cudalab::time_kernel([&] { launch(shared, in.get(), out.get(), n); }, opts);
      if (!t.ok) {
        std::fprintf(stderr, "%s\n", t.error.c_str());
        return EXIT_FAILURE;
      }
      if (!shared) naive_ms = t.median_ms;
      const LoadCount &m = shared ? model.shared : model.naive;
      const double bw = cudalab::gbs(2.0 * n * sizeof(int), t.median_ms);
      char speed[32] = "1.00x";
      if (shared) std::snprintf(speed, sizeof speed, "%.2fx", naive_ms / t.median_ms);
      std::printf("%-10d %-8s %9.4f %8.0f %6.1f%% | %12lld %12lld %10s | %s\n", n, shared ? "shared" : "naive",
                  t.median_ms, bw, 100 * bw / copy_gbs, m.loads, m.sectors, speed, ok ? "ok" : "WRONG");
    }
    if (model.naive.loads > 0 && model.naive.sectors > 0)
      std::printf("%-10s predicted shared/naive: element loads %.3f (seed: (N + N/%u) / 2N), sectors %.3f\n", "",
                  double(model.shared.loads) / double(model.naive.loads), kAdjacentBlock,
                  double(model.shared.sectors) / double(model.naive.sectors));
  }
  std::printf("\n(load columns: your predict_global_loads; \"vs naive\": naive time / shared time)\n");
  return EXIT_SUCCESS;
}
