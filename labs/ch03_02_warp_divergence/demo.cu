// ch03_02 demo: the seeds' simpleDivergence for your GPU, plus the long-arm kernels.
//
//   ./ch03_02_warp_divergence_demo [block=64] [n=2^24]
//
// Times mathKernel1..4 (tiny arms: the compiler predicates them, so they all time alike) and
// heavyKernel1/2 (arms of 256 dependent FMAs: divergence costs a factor of ~2) with CUDA events,
// median of 21 runs after warm-up, and checks every result against the CPU.
#include "divergence.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  unsigned block = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 64;
  const int n = argc > 2 ? std::atoi(argv[2]) : 1 << 24;
  if (block % 64 != 0 || block > 1024 || n < 1) {
    std::fprintf(stderr, "block must be a multiple of 64 up to 1024, n >= 1\n");
    return EXIT_FAILURE;
  }
  const unsigned grid = divergence_grid(n, block);
  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  std::printf("%s\nn = %d, grid %u, block %u; CUDA events, median of 21 runs\n\n",
              cudalab::describe_device(dev).c_str(), n, grid, block);

  cudalab::DeviceBuffer<float> c;
  CUDALAB_CHECK(c.allocate(n));
  struct MathRow {
    const char *name;
    void (*kernel)(float *, int);
    bool by_warp;
  } math[] = {{"mathKernel1", mathKernel1, false},
              {"mathKernel2", mathKernel2, true},
              {"mathKernel3", mathKernel3, false},
              {"mathKernel4", mathKernel4, true}};
  std::printf("%-14s %10s %8s  %s\n", "kernel", "ms", "vs 1", "result");
  double first = 0;
  for (const MathRow &r : math) {
    cudalab::TimingStats t = cudalab::time_kernel([&] { r.kernel<<<grid, block>>>(c.get(), n); });
    if (!t.ok) {
      std::fprintf(stderr, "%s: %s\n", r.name, t.error.c_str());
      return EXIT_FAILURE;
    }
    std::vector<float> h;
    CUDALAB_CHECK(c.download(&h));
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) ok = h[i] == (((r.by_warp ? i / 32 : i) % 2 == 0) ? 100.0f : 200.0f);
    if (first == 0) first = t.median_ms;
    std::printf("%-14s %10.4f %7.2fx  %s\n", r.name, t.median_ms, first / t.median_ms, ok ? "ok" : "WRONG");
  }

  const int iters = 256;
  std::vector<int> ints = cudalab::random_ints(n, -512, 511, 2024);
  std::vector<float> input(ints.begin(), ints.end());
  cudalab::DeviceBuffer<float> in, out;
  CUDALAB_CHECK(in.upload(input));
  CUDALAB_CHECK(out.allocate(n));
  struct HeavyRow {
    const char *name;
    void (*kernel)(const float *, float *, int, int);
  } heavy[] = {{"heavyKernel1", heavyKernel1}, {"heavyKernel2", heavyKernel2}};
  std::printf("\narms of %d dependent FMAs:\n", iters);
  first = 0;
  for (const HeavyRow &r : heavy) {
    cudalab::TimingStats t = cudalab::time_kernel([&] { r.kernel<<<grid, block>>>(in.get(), out.get(), n, iters); });
    if (!t.ok) {
      std::fprintf(stderr, "%s: %s\n", r.name, t.error.c_str());
      return EXIT_FAILURE;
    }
    std::vector<float> h;
    CUDALAB_CHECK(out.download(&h));
    bool ok = true;
    for (int i = 0; i < n && ok; i += 997)  // a sample: the tests check every element
      ok = h[i] == (i % 2 == 0 ? evenArm(input[i], iters) : oddArm(input[i], iters));
    if (first == 0) first = t.median_ms;
    std::printf("%-14s %10.4f %7.2fx  %s\n", r.name, t.median_ms, first / t.median_ms, ok ? "ok" : "WRONG");
  }
  return EXIT_SUCCESS;
}
