#include "reduce_check.cuh"

#include "cudalab/reference.hpp"

namespace {
constexpr unsigned int kGuard = 4096;   // ints after the input and after the partial sums
constexpr int kGuardValue = 1 << 20;    // reading it into a sum makes the sum wrong
}  // namespace

void check_reduction(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block,
                     unsigned int chunk, std::uint64_t seed) {
  using cudalab::DeviceBuffer;
  const unsigned int grid = (n + chunk - 1) / chunk;
  const std::string ctx = cudalab::context({{"n", n}, {"block", block}, {"grid", grid}, {"seed", (long long)seed}});

  std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed);
  std::vector<int> guarded = input;
  guarded.resize(std::size_t(n) + kGuard, kGuardValue);
  DeviceBuffer<int> d_in, d_out;
  CUDALAB_ASSERT_OK(d_in.upload(guarded));
  CUDALAB_ASSERT_OK(d_out.allocate(std::size_t(grid) + kGuard));
  CUDALAB_ASSERT_OK(d_out.poison());

  kernel<<<grid, block>>>(d_in.get(), d_out.get(), n);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  ASSERT_EQ(err, cudaSuccess) << cudalab::describe_error(err, name, __FILE__, __LINE__) << " (" << ctx << ")";

  std::vector<int> in_after, out;
  CUDALAB_ASSERT_OK(d_in.download(&in_after));
  CUDALAB_ASSERT_OK(d_out.download(&out));
  for (unsigned int i = 0; i < kGuard; ++i) {
    ASSERT_EQ(in_after[n + i], kGuardValue) << name << " wrote past the end of g_idata: element " << n + i
                                            << " (n = " << n << ") was changed (" << ctx << ")";
    ASSERT_TRUE(cudalab::is_poison(out[grid + i]))
        << name << " wrote past the last partial sum: g_odata[" << grid + i << "] was written, but the grid has only "
        << grid << " blocks (" << ctx << ")";
  }
  out.resize(grid);
  std::vector<long long> expected = cudalab::cpu::chunk_sums(input, chunk);
  ASSERT_TRUE(cudalab::equal_arrays(name, ctx + "; a partial sum off by a multiple of 1048576 means the block read "
                                                "past element n-1",
                                    expected, out, "block"));
  long long total = 0;
  for (int p : out) total += p;
  ASSERT_EQ(total, cudalab::cpu::sum(input)) << name << ": total is wrong (" << ctx << ")";
}
