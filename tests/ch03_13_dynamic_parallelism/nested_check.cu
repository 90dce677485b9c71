#include "nested_check.cuh"

#include "cudalab/reference.hpp"

#include <sstream>
#include <vector>

namespace {
constexpr unsigned int kGuard = 4096;  // ints after the input and after the partial sums
constexpr int kGuardValue = 1 << 20;   // reading it into a sum makes the sum wrong
}  // namespace

std::string nested_reduction_error(const char *name, const ReduceLaunch &launch, unsigned int n, unsigned int chunk,
                                   const std::string &shape, std::uint64_t seed) {
  using cudalab::DeviceBuffer;
  const unsigned int grid = (n + chunk - 1) / chunk;
  const std::string ctx =
      cudalab::context({{"n", n}, {"grid", grid}, {"seed", static_cast<long long>(seed)}}) + " " + shape;
  std::ostringstream msg;

  std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed);
  std::vector<int> guarded = input;
  guarded.resize(std::size_t(n) + kGuard, kGuardValue);
  DeviceBuffer<int> d_in, d_out;
  cudaError_t err = d_in.upload(guarded);
  if (err == cudaSuccess) err = d_out.allocate(std::size_t(grid) + kGuard);
  if (err == cudaSuccess) err = d_out.poison();
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);

  launch(d_in.get(), d_out.get(), n);
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();  // waits for every child grid as well
  if (err != cudaSuccess) return cudalab::describe_error(err, name, __FILE__, __LINE__) + " (" + ctx + ")";

  std::vector<int> in_after, out;
  if ((err = d_in.download(&in_after)) != cudaSuccess || (err = d_out.download(&out)) != cudaSuccess)
    return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  for (unsigned int i = 0; i < kGuard; ++i) {
    if (in_after[n + i] != kGuardValue) {
      msg << name << " wrote past the end of g_idata: element " << n + i << " (n = " << n << ") was changed (" << ctx
          << ")";
      return msg.str();
    }
    if (!cudalab::is_poison(out[grid + i])) {
      msg << name << " wrote past the last partial sum: g_odata[" << grid + i << "] was written, but there are only "
          << grid << " chunks (" << ctx << ")";
      return msg.str();
    }
  }
  out.resize(grid);
  const std::vector<long long> expected = cudalab::cpu::chunk_sums(input, chunk);
  ::testing::AssertionResult same = cudalab::equal_arrays(
      name,
      ctx +
          "; a partial sum never written means a child grid did not run (launch error?), one off by a multiple of "
          "1048576 means a read past element n-1",
      expected, out, "block");
  if (!same) return same.message();
  long long total = 0;
  for (int p : out) total += p;
  if (total != cudalab::cpu::sum(input)) {
    msg << name << ": total is " << total << ", expected " << cudalab::cpu::sum(input) << " (" << ctx << ")";
    return msg.str();
  }
  return "";
}
