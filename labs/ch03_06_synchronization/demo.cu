// ch03_06 demo: what barriers and kernel boundaries cost on your GPU, and when the host sees a
// kernel's fault.
//
//   ./ch03_06_synchronization_demo
//
// Times your kernels on 2^24 elements (block 256), then launches a gather through a null pointer
// and prints what cudaGetLastError() and cudaDeviceSynchronize() return. That fault is sticky: it
// is the last thing the demo does.
#include "synchronization.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

int main() {
  const unsigned int n = 1u << 24, block = 256, grid = sync_grid(n, block);
  const std::size_t smem = block * sizeof(int);
  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  std::printf("%s\nn = 2^24 elements, block %u, grid %u\n\n", cudalab::describe_device(dev).c_str(), block, grid);

  const std::vector<int> host = cudalab::random_ints(n, 0, 1 << 20, 2024);
  cudalab::DeviceBuffer<int> in, out, partial;
  CUDALAB_CHECK(in.upload(host));
  CUDALAB_CHECK(out.allocate(n));
  CUDALAB_CHECK(partial.allocate(grid));
  auto *uin = reinterpret_cast<const unsigned int *>(in.get());
  auto *uout = reinterpret_cast<unsigned int *>(out.get());

  struct Row {
    const char *name;
    std::function<void()> launch;
  } rows[] = {
      {"copy (cudaMemcpyAsync)",
       [&] { cudaMemcpyAsync(out.get(), in.get(), in.bytes(), cudaMemcpyDeviceToDevice); }},
      {"reverseBlock", [&] { reverseBlock<<<grid, block, smem>>>(in.get(), out.get(), n); }},
      {"smoothTile, 1 step", [&] { smoothTile<<<grid, block, smem>>>(uin, uout, n, 1); }},
      {"smoothTile, 8 steps", [&] { smoothTile<<<grid, block, smem>>>(uin, uout, n, 8); }},
      {"blockMin", [&] { blockMin<<<grid, block, smem>>>(in.get(), partial.get(), n); }},
      {"subtractMin", [&] { subtractMin<<<grid, block, smem>>>(in.get(), partial.get(), grid, out.get(), n); }},
      {"subtractGlobalMin (both)", [&] { subtractGlobalMin(in.get(), out.get(), partial.get(), n, block); }},
  };
  std::printf("%-26s %10s %9s\n", "kernel", "ms", "GB/s");
  for (const Row &r : rows) {
    cudalab::TimingStats t = cudalab::time_kernel(r.launch);
    if (!t.ok) {
      std::fprintf(stderr, "%s: %s\n", r.name, t.error.c_str());
      return EXIT_FAILURE;
    }
    std::printf("%-26s %10.4f %9.0f\n", r.name, t.median_ms, cudalab::gbs(2.0 * n * sizeof(int), t.median_ms));
  }

  std::printf("\nA kernel that reads through a null pointer (gatherKernel, src = nullptr):\n");
  cudalab::DeviceBuffer<unsigned int> idx;
  CUDALAB_CHECK(idx.upload(std::vector<unsigned int>(1024, 7)));
  gatherKernel<<<4, 256>>>(nullptr, idx.get(), out.get(), 1024);
  const cudaError_t at_launch = cudaGetLastError();
  const cudaError_t at_sync = cudaDeviceSynchronize();
  std::printf("  cudaGetLastError() right after the launch: %s\n", cudaGetErrorName(at_launch));
  std::printf("  cudaDeviceSynchronize():                   %s (%s)\n", cudaGetErrorName(at_sync),
              cudaGetErrorString(at_sync));
  std::printf("  gatherChecked() must return the second one.\n");
  return EXIT_SUCCESS;
}
