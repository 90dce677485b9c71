// ch03_03 demo: what the compiler gave each kernel, and how many of its blocks fit one SM.
//
//   ./ch03_03_resource_partitioning_demo
//
// Prints, like `nvcc --ptxas-options=-v`, each kernel's registers, shared and local (spill) memory
// from cudaFuncGetAttributes; then your predicted residency beside the runtime's
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor); then what your launcher says to launches that
// cannot fit one block.
#include "resources.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device.cuh"

#include <cstdio>
#include <vector>

int main() {
  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  std::printf("%s\n%d registers and %zu KB shared memory per SM (%zu B reserved per block), at most %d threads /"
              " %d blocks per SM\n\n",
              cudalab::describe_device(dev).c_str(), dev.regs_per_sm, dev.smem_per_sm / 1024,
              dev.reserved_smem_per_block, dev.max_threads_per_sm, dev.max_blocks_per_sm);
  CUDALAB_CHECK(cudaFuncSetAttribute(histogramShared, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));

  struct Kernel {
    const char *name;
    const void *func;
  } kernels[] = {{"hungryKernel", reinterpret_cast<const void *>(hungryKernel)},
                 {"hungryBounded", reinterpret_cast<const void *>(hungryBounded)},
                 {"histogramShared", reinterpret_cast<const void *>(histogramShared)}};
  for (const Kernel &k : kernels) {
    cudaFuncAttributes fa;
    CUDALAB_CHECK(cudaFuncGetAttributes(&fa, k.func));
    std::printf("%-16s Used %d registers, %zu bytes smem, %zu bytes local (spills), max %d threads/block\n", k.name,
                fa.numRegs, fa.sharedSizeBytes, fa.localSizeBytes, fa.maxThreadsPerBlock);
  }

  struct Config {
    int kernel, threads;
    std::size_t dyn;
  } configs[] = {{0, 128, 0},  {0, 256, 0},        {0, 1024, 0},        {1, 128, 0},         {1, 256, 0},
                 {2, 256, 0},  {2, 256, 16 * 1024}, {2, 256, 48 * 1024}, {2, 256, 100 * 1024}, {2, 64, 4096}};
  std::printf("\n%-16s %7s %9s | %7s %6s %9s  %-22s | %s\n", "kernel", "threads", "dyn smem", "blocks", "warps",
              "occupancy", "limited by", "runtime blocks");
  for (const Config &c : configs) {
    const Kernel &k = kernels[c.kernel];
    Residency r;
    CUDALAB_CHECK(predict_residency(k.func, c.threads, c.dyn, &r));
    int runtime = 0;
    CUDALAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime, k.func, c.threads, c.dyn));
    std::printf("%-16s %7d %9zu | %7d %6d %8.1f%%  %-22s | %d\n", k.name, c.threads, c.dyn, r.blocks_per_sm,
                r.warps_per_sm, 100 * r.occupancy, limiter_names(r.limiters).c_str(), runtime);
  }

  std::printf("\nLaunches that cannot fit one block:\n");
  cudalab::DeviceBuffer<unsigned int> in, hist;
  CUDALAB_CHECK(in.upload(std::vector<unsigned int>(1024, 1)));
  CUDALAB_CHECK(hist.allocate(100000));
  CUDALAB_CHECK(cudaMemset(hist.get(), 0, hist.bytes()));
  const LaunchReport too_wide = launch_histogram(in.get(), hist.get(), 1024, 16, 2048, 4);
  std::printf("  2048 threads:  %s | %s\n", cudaGetErrorName(too_wide.error), too_wide.message.c_str());
  const LaunchReport too_big = launch_histogram(in.get(), hist.get(), 1024, 100000, 256, 4);
  std::printf("  100000 bins:   %s | %s\n", cudaGetErrorName(too_big.error), too_big.message.c_str());
  const LaunchReport fits = launch_histogram(in.get(), hist.get(), 1024, 50000, 256, 4);
  std::printf("  50000 bins:    %s | %d blocks/SM (%s)\n", cudaGetErrorName(fits.error), fits.residency.blocks_per_sm,
              limiter_names(fits.residency.limiters).c_str());
  // What the runtime itself says when the refused launch is attempted anyway.
  histogramShared<<<4, 2048>>>(in.get(), hist.get(), 1024, 16);
  std::printf("  the runtime, launching 2048 threads anyway: cudaGetLastError() = %s\n",
              cudaGetErrorName(cudaGetLastError()));
  return 0;
}
