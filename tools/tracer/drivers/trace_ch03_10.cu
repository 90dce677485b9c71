/// @file trace_ch03_10.cu
/// @brief Small-input driver for ch03_10: the three reductions on n = 192 ints in blocks of 64
/// threads (3 blocks of 2 warps), the smallest block the lab allows. Arguments: [n] [block].
#include "reduction.cuh"

#include "driver_util.cuh"

/// @brief Runs reduceNeighbored, reduceNeighboredLess and reduceInterleaved once each and checks
/// the sum of the partial sums.
int main(int argc, char **argv) {
  require_gpu();
  const unsigned int n = argc > 1 ? static_cast<unsigned int>(std::atoi(argv[1])) : 192;
  const unsigned int block = argc > 2 ? static_cast<unsigned int>(std::atoi(argv[2])) : 64;
  const unsigned int grid = reduce_grid(n, block);
  std::vector<int> input(n);
  long long expected = 0;
  for (unsigned int i = 0; i < n; ++i) expected += input[i] = static_cast<int>(i % 7) + 1;

  struct Kernel {
    const char *name;
    void (*fn)(int *, int *, unsigned int);
  } kernels[] = {{"reduceNeighbored", reduceNeighbored},
                 {"reduceNeighboredLess", reduceNeighboredLess},
                 {"reduceInterleaved", reduceInterleaved}};
  int status = EXIT_SUCCESS;
  for (const Kernel &k : kernels) {
    auto in = zeroed<int>(n);
    auto out = zeroed<int>(grid);
    CUDALAB_CHECK(in.upload(input));
    k.fn<<<grid, block>>>(in.get(), out.get(), n);
    finish(k.name);
    long long sum = 0;
    std::vector<int> partials;
    CUDALAB_CHECK(out.download(&partials));
    for (int partial : partials) sum += partial;
    if (sum != expected) {
      std::fprintf(stderr, "%s: sum %lld, expected %lld\n", k.name, sum, expected);
      status = EXIT_FAILURE;
    }
  }
  return status;
}
