// ch03_16 demo: the latency a lone dependent fmaf chain sees on this GPU (clock64), your model's
// predictions at that latency, then chainsSequential and your chainsInterleaved timed side by side
// at 1, 2, 4 and 8 warps per scheduler.
//
//   ./ch03_16_warp_scheduling_demo                          the tables
//   ./ch03_16_warp_scheduling_demo once seq|ilp [warps]     one launch at `warps` warps per scheduler
//                                                           (default 1), for Nsight Compute:
//     ncu --clock-control none --metrics smsp__warps_active.avg.per_cycle_active,\
//         smsp__warps_eligible.avg.per_cycle_active,smsp__issue_active.avg.per_cycle_active,\
//         smsp__warp_issue_stalled_wait_per_warp_active.pct,\
//         smsp__warp_issue_stalled_not_selected_per_warp_active.pct \
//         ./ch03_16_warp_scheduling_demo once seq 1
#include "warp_scheduling.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// One thread, 1024 dependent fmaf between two clock64() reads: cycles per dependent instruction.
__global__ void latencyProbe(float *io, long long *cycles) {
  float x = io[0];
  const float c = io[1];
  const long long t0 = clock64();
#pragma unroll
  for (int i = 0; i < 1024; ++i) x = fmaf(x, x, c);
  const long long t1 = clock64();
  io[2] = x;
  *cycles = t1 - t0;
}

double measure_latency() {
  cudalab::DeviceBuffer<float> io;
  cudalab::DeviceBuffer<long long> cycles;
  CUDALAB_CHECK(io.upload({0.5f, -1.5f, 0.0f}));
  CUDALAB_CHECK(cycles.allocate(1));
  long long best = -1;
  for (int rep = 0; rep < 5; ++rep) {
    latencyProbe<<<1, 1>>>(io.get(), cycles.get());
    CUDALAB_CHECK_LAUNCH("latencyProbe");
    std::vector<long long> c;
    CUDALAB_CHECK(cycles.download(&c));
    if (best < 0 || c[0] < best) best = c[0];
  }
  return double(best) / 1024.0;
}

struct Inputs {
  cudalab::DeviceBuffer<float4> x0, c, out;
  int n = 0;
  void init(int elems) {
    n = elems;
    std::vector<float> a = cudalab::random_floats(std::size_t(n) * 4, -1.0f, 1.0f, 1);
    std::vector<float> b = cudalab::random_floats(std::size_t(n) * 4, -1.9f, -1.4f, 2);
    std::vector<float4> ha(n), hb(n);
    std::memcpy(ha.data(), a.data(), a.size() * sizeof(float));
    std::memcpy(hb.data(), b.data(), b.size() * sizeof(float));
    CUDALAB_CHECK(x0.upload(ha));
    CUDALAB_CHECK(c.upload(hb));
    CUDALAB_CHECK(out.allocate(n));
  }
};

}  // namespace

int main(int argc, char **argv) {
  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  constexpr int kSteps = 4096;
  if (argc >= 3 && std::strcmp(argv[1], "once") == 0) {
    const bool ilp = std::strcmp(argv[2], "ilp") == 0;
    const int warps = argc >= 4 ? std::atoi(argv[3]) : 1;
    if ((!ilp && std::strcmp(argv[2], "seq") != 0) || warps < 1) {
      std::fprintf(stderr, "usage: %s once seq|ilp [warps per scheduler]\n", argv[0]);
      return EXIT_FAILURE;
    }
    std::size_t dyn = 0;
    CUDALAB_CHECK(pin_blocks_per_sm(ilp ? (const void *)chainsInterleaved : (const void *)chainsSequential,
                                    kChainsBlock, warps, &dyn));
    const unsigned int grid = unsigned(dev.sm_count * warps);
    Inputs in;
    in.init(2 * int(grid) * kChainsBlock);
    (ilp ? launch_chains_interleaved : launch_chains_sequential)(in.x0.get(), in.c.get(), in.out.get(), in.n, kSteps,
                                                                 grid, dyn, 0);
    CUDALAB_CHECK_LAUNCH("chains");
    return EXIT_SUCCESS;
  }

  std::printf("%s\n", cudalab::describe_device(dev).c_str());
  SchedulerView view;
  const cudaError_t err = scheduler_view_from_device(0, &view);
  if (err == cudaSuccess)
    std::printf("your scheduler_view_from_device: %d schedulers per SM, %d warps per SM, %d per scheduler\n",
                view.schedulers_per_sm, view.max_warps_per_sm, view.max_warps_per_scheduler);
  else
    std::printf("your scheduler_view_from_device: %s\n", cudaGetErrorString(err));
  const double latency = measure_latency();
  std::printf("dependent fmaf latency (clock64, one thread): %.2f cycles\n\n", latency);

  std::printf("your model at that latency (issue utilisation / eligible warps per cycle / waiting share):\n");
  std::printf("%14s", "warps \\ ILP");
  for (int k : {1, 2, 4}) std::printf(" | %-22d", k);
  std::printf(" | warps to saturate at ILP 1, 2, 4\n");
  for (double w : {1.0, 2.0, 4.0, 8.0, 16.0}) {
    std::printf("%14.0f", w);
    for (int k : {1, 2, 4}) {
      const SchedulerPrediction p = predict_scheduler(w, k, latency);
      std::printf(" | %5.2f / %5.2f / %5.2f  ", p.issue_utilization, p.eligible_warps, p.waiting_share);
    }
    if (w == 1.0)
      std::printf(" | %d, %d, %d", warps_to_saturate(1, latency), warps_to_saturate(2, latency),
                  warps_to_saturate(4, latency));
    std::printf("\n");
  }

  std::printf("\nchainsSequential vs your chainsInterleaved, %d steps, 2 elements per thread, blocks of %d:\n", kSteps,
              kChainsBlock);
  std::printf("%22s %12s %12s %9s %14s\n", "warps per scheduler", "seq ms", "ilp ms", "speed-up", "ilp fmaf/cycle/SMSP");
  for (int warps : {1, 2, 4, 8}) {
    if (view.max_warps_per_scheduler > 0 && warps > view.max_warps_per_scheduler) break;
    std::size_t dyn_seq = 0, dyn_ilp = 0;
    if (pin_blocks_per_sm((const void *)chainsSequential, kChainsBlock, warps, &dyn_seq) != cudaSuccess ||
        pin_blocks_per_sm((const void *)chainsInterleaved, kChainsBlock, warps, &dyn_ilp) != cudaSuccess) {
      std::printf("%22d  (cannot pin %d blocks per SM on this GPU)\n", warps, warps);
      continue;
    }
    const unsigned int grid = unsigned(dev.sm_count * warps);
    Inputs in;
    in.init(2 * int(grid) * kChainsBlock);
    cudalab::TimingOptions opts;
    opts.reps = 11;
    const cudalab::Comparison cmp = cudalab::compare_kernels(
        [&] { launch_chains_sequential(in.x0.get(), in.c.get(), in.out.get(), in.n, kSteps, grid, dyn_seq, 0); },
        [&] { launch_chains_interleaved(in.x0.get(), in.c.get(), in.out.get(), in.n, kSteps, grid, dyn_ilp, 0); },
        opts);
    // fmaf per cycle per scheduler: all fmaf / (SMs x 4 schedulers x cycles at the peak clock).
    const double fmaf = double(in.n) * kChains * kSteps;
    const double cycles = cmp.candidate.median_ms * 1e-3 * dev.sm_clock_khz * 1e3;
    std::printf("%22d %12.3f %12.3f %8.2fx %14.2f\n", warps, cmp.baseline.median_ms, cmp.candidate.median_ms,
                cmp.speedup(), fmaf / (double(dev.sm_count) * 4 * cycles));
  }
  return EXIT_SUCCESS;
}
