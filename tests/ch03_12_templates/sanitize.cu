// The program compute-sanitizer runs for the racecheck tests (SANITIZER_CHECKS in CMakeLists.txt).
//
//   ch03_12_templates_sanitize --probe            prints a skip line when there is no GPU
//   ch03_12_templates_sanitize template_block<B>  one launch of reduceCompleteUnroll<B>, then a
//                                                 check of its sums (B = 64 or 1024: the edges)
// A wrong sum exits with status 1 and a "[ CUDALAB  ] reason:" line, so a clean report about a
// kernel that does not work yet does not pass.
#include "templates.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/launch.cuh"
#include "cudalab/reference.hpp"

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char **argv) {
  if (!cudalab::driver_start(argc, argv, nullptr)) return 0;  // no GPU (skip line printed) or --probe
  if (argc < 2) return 0;

  unsigned int block = 0;
  void (*kernel)(int *, int *, unsigned int) = nullptr;
  if (std::strcmp(argv[1], "template_block64") == 0) {
    block = 64;
    kernel = complete_unroll_kernel(64);
  } else if (std::strcmp(argv[1], "template_block1024") == 0) {
    block = 1024;
    kernel = complete_unroll_kernel(1024);
  } else {
    std::printf("[ CUDALAB  ] reason: unknown case '%s'\n", argv[1]);
    return 2;
  }

  const unsigned int n = 8 * block * 15 + 1000, grid = complete_unroll_grid(n, block);
  const std::uint64_t seed = cudalab::choose_seed();
  std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed);
  cudalab::DeviceBuffer<int> d_in, d_out;
  if (d_in.upload(input) != cudaSuccess || d_out.allocate(grid) != cudaSuccess || d_out.poison() != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: test setup failed\n");
    return 1;
  }
  cudalab::launch(kernel, grid, block)(d_in.get(), d_out.get(), n);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  std::vector<int> out;
  if (err == cudaSuccess) err = d_out.download(&out);
  if (err != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: reduceCompleteUnroll<%u> failed: %s (seed %llu)\n", block,
                cudaGetErrorString(err), (unsigned long long)seed);
    return 1;
  }
  const std::vector<long long> expected = cudalab::cpu::chunk_sums(input, 8 * block);
  for (unsigned int b = 0; b < grid; ++b) {
    if (out[b] != expected[b]) {
      std::printf(
          "[ CUDALAB  ] reason: reduceCompleteUnroll<%u>: wrong result at block %u: expected %lld, got %d "
          "(n=%u seed=%llu)\n",
          block, b, expected[b], out[b], n, (unsigned long long)seed);
      return 1;
    }
  }
  std::printf("reduceCompleteUnroll<%u>: all %u partial sums right (n=%u seed=%llu)\n", block, grid, n,
              (unsigned long long)seed);
  return 0;
}
