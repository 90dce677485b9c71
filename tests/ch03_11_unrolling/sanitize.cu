// The program compute-sanitizer runs for the racecheck tests (SANITIZER_CHECKS in CMakeLists.txt).
//
//   ch03_11_unrolling_sanitize --probe             prints a skip line when there is no GPU
//   ch03_11_unrolling_sanitize <case>              one launch of one kernel, then a check of its sums
//
// Cases: unroll_warps8, complete_unroll_warps8 (yours: racecheck must find nothing) and
// volatile_exhibit (the book's last warp: racecheck must flag it, although its sums are right).
// A wrong sum of yours exits with status 1 and a "[ CUDALAB  ] reason:" line, so a clean report
// about a kernel that does not work yet does not pass. The exhibit always exits 0: only racecheck's
// exit code (--error-exitcode) can make its "flagged" check pass.
#include "exhibit.cuh"
#include "unrolling.cuh"

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

  struct Case {
    const char *arg, *kernel_name;
    void (*kernel)(int *, int *, unsigned int);
  } cases[] = {
      {"unroll_warps8", "reduceUnrollWarps8", reduceUnrollWarps8},
      {"complete_unroll_warps8", "reduceCompleteUnrollWarps8", reduceCompleteUnrollWarps8},
      {"volatile_exhibit", "reduceUnrollWarps8Volatile (the book's volatile last warp)", reduceUnrollWarps8Volatile}};
  const Case *c = nullptr;
  for (const Case &k : cases)
    if (std::strcmp(argv[1], k.arg) == 0) c = &k;
  if (!c) {
    std::printf("[ CUDALAB  ] reason: unknown case '%s'\n", argv[1]);
    return 2;
  }

  // 16 blocks of 512 threads and a ragged tail: enough warps for racecheck to see every step.
  const unsigned int block = 512, n = 8 * block * 15 + 1000, grid = reduce_grid(n, block, 8);
  const std::uint64_t seed = cudalab::choose_seed();
  std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed);
  cudalab::DeviceBuffer<int> d_in, d_out;
  if (d_in.upload(input) != cudaSuccess || d_out.allocate(grid) != cudaSuccess || d_out.poison() != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: test setup failed\n");
    return 1;
  }
  cudalab::launch(c->kernel, grid, block)(d_in.get(), d_out.get(), n);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  std::vector<int> out;
  if (err == cudaSuccess) err = d_out.download(&out);
  if (err != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: %s failed: %s (seed %llu)\n", c->kernel_name, cudaGetErrorString(err),
                (unsigned long long)seed);
    return 1;
  }
  const bool exhibit = c->kernel == reduceUnrollWarps8Volatile;
  const std::vector<long long> expected = cudalab::cpu::chunk_sums(input, 8 * block);
  for (unsigned int b = 0; b < grid; ++b) {
    if (out[b] != expected[b] && exhibit) {
      // Exit 0: only racecheck's own exit code may make the exhibit's check pass.
      std::printf("%s: wrong result at block %u: expected %lld, got %d (seed %llu)\n", c->kernel_name, b, expected[b],
                  out[b], (unsigned long long)seed);
      return 0;
    }
    if (out[b] != expected[b]) {
      std::printf(
          "[ CUDALAB  ] reason: %s: wrong result at block %u: expected %lld, got %d (n=%u block=%u seed=%llu)\n",
          c->kernel_name, b, expected[b], out[b], n, block, (unsigned long long)seed);
      return 1;
    }
  }
  std::printf("%s: all %u partial sums right (n=%u block=%u seed=%llu)%s\n", c->kernel_name, grid, n, block,
              (unsigned long long)seed, exhibit ? " -- a value check cannot see this race; racecheck can" : "");
  return 0;
}
