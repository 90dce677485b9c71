// ch05_06 demo: your single-pass sum on 2^24 ints, 1000 launches in a row with one counter, its
// time per launch, and the largest cooperative grid (your max_cooperative_blocks beside the
// runtime's occupancy calculator) with a grid.sync() kernel launched at exactly that size.
//
//   ./ch05_06_blocks_that_talk_demo [n]
#include "blocks_that_talk.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

// Every block counts itself, then waits for all the others. In an ordinary launch with more
// blocks than fit on the GPU at once, the resident blocks would wait here forever for blocks
// that can only start when a resident one finishes: a deadlock. A cooperative launch refuses
// such a grid instead.
__global__ void gridSyncDemo(unsigned int *arrived, unsigned int *seen) {
  if (threadIdx.x == 0) atomicAdd(arrived, 1u);
  cg::this_grid().sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) *seen = *arrived;
}

int main(int argc, char **argv) {
  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  std::printf("%s\n\n", cudalab::describe_device(dev).c_str());

  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 24;
  std::vector<int> in(n);
  long long want = 0;
  for (int i = 0; i < n; ++i) want += in[i] = (i % 2001) - 1000 + (i % 7 == 0 ? 1000000 : 0);
  cudalab::DeviceBuffer<int> d_in;
  cudalab::DeviceBuffer<long long> d_partial, d_out;
  cudalab::DeviceBuffer<unsigned int> d_counter;
  CUDALAB_CHECK(d_in.upload(in));
  CUDALAB_CHECK(d_partial.allocate(kMaxSinglePassBlocks));
  CUDALAB_CHECK(d_out.allocate(1000));
  CUDALAB_CHECK(d_counter.allocate(1));
  CUDALAB_CHECK(cudaMemset(d_counter.get(), 0, sizeof(unsigned int)));  // once: the kernel resets it

  const int block = kSinglePassBlock;
  std::printf("single pass: n = %d, block %d, grid %d (single_pass_grid)\n", n, block, single_pass_grid(n, block));
  for (int k = 0; k < 1000; ++k)
    CUDALAB_CHECK(launch_reduce_single_pass(d_in.get(), d_partial.get(), d_counter.get(), d_out.get() + k, n, block));
  CUDALAB_CHECK(cudaDeviceSynchronize());
  std::vector<long long> out;
  CUDALAB_CHECK(d_out.download(&out));
  int wrong = 0;
  for (long long v : out) wrong += v != want;
  std::printf("  CPU sum %lld, launch 0 %lld, launch 999 %lld: %d of 1000 launches wrong\n", want, out[0], out[999],
              wrong);
  const cudalab::TimingStats t = cudalab::time_kernel(
      [&] { launch_reduce_single_pass(d_in.get(), d_partial.get(), d_counter.get(), d_out.get(), n, block); });
  std::printf("  %.4f ms per launch (median), %.0f GB/s\n\n", t.median_ms, n * 4.0 / (t.median_ms * 1e6));

  cudaDeviceProp p{};
  CUDALAB_CHECK(cudaGetDeviceProperties(&p, 0));
  SmLimits sm{p.multiProcessorCount, p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor,
              p.regsPerMultiprocessor, p.major == 6 && p.minor == 0 ? 2 : 4, 256, p.sharedMemPerMultiprocessor,
              p.reservedSharedMemPerBlock, static_cast<std::size_t>(p.major >= 8 ? 128 : 256)};
  std::printf("largest cooperative grid (every block resident at once):\n");
  std::printf("  %-16s %6s %5s %7s %10s %10s\n", "kernel", "block", "regs", "smem B", "yours", "runtime");
  const struct {
    const char *name;
    const void *f;
  } kernels[] = {{"reduceSinglePass", reinterpret_cast<const void *>(reduceSinglePass)},
                 {"gridSyncDemo", reinterpret_cast<const void *>(gridSyncDemo)}};
  for (const auto &k : kernels) {
    cudaFuncAttributes a{};
    CUDALAB_CHECK(cudaFuncGetAttributes(&a, k.f));
    for (int b : {64, 256, 1024}) {
      int per_sm = 0;
      CUDALAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.f, b, 0));
      std::printf("  %-16s %6d %5d %7zu %10d %10d\n", k.name, b, a.numRegs, a.sharedSizeBytes,
                  max_cooperative_blocks(sm, KernelUse{b, a.numRegs, a.sharedSizeBytes}), per_sm * sm.sm_count);
    }
  }
  if (!p.cooperativeLaunch) {
    std::printf("\nthis GPU does not support cooperative launches\n");
    return 0;
  }
  cudaFuncAttributes a{};
  CUDALAB_CHECK(cudaFuncGetAttributes(&a, reinterpret_cast<const void *>(gridSyncDemo)));
  const int grid = max_cooperative_blocks(sm, KernelUse{256, a.numRegs, a.sharedSizeBytes});
  cudalab::DeviceBuffer<unsigned int> d_sync;
  CUDALAB_CHECK(d_sync.allocate(2));
  for (int g : {grid, grid + 1}) {
    CUDALAB_CHECK(cudaMemset(d_sync.get(), 0, 2 * sizeof(unsigned int)));
    unsigned int *arrived = d_sync.get(), *seen = d_sync.get() + 1;
    void *args[] = {&arrived, &seen};
    cudaError_t err = cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(gridSyncDemo), dim3(g), dim3(256),
                                                  args, 0, 0);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    std::vector<unsigned int> got;
    CUDALAB_CHECK(d_sync.download(&got));
    std::printf("\ncooperative launch of gridSyncDemo, %d blocks of 256: %s", g, cudaGetErrorString(err));
    if (err == cudaSuccess) std::printf(" (block 0 saw %u arrivals after grid.sync())", got[1]);
    cudaGetLastError();
  }
  std::printf("\n");
  return 0;
}
