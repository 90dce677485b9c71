#include "modern_check.cuh"

#include "modern_reduction.cuh"
#include "reduce_check.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/reference.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

namespace {
constexpr unsigned int kGuard = 4096;  // ints around the input and after the outputs
constexpr int kGuardValue = 1 << 20;   // reading it into a sum makes the sum wrong
}  // namespace

std::string shuffle8_error(unsigned int n, unsigned int block, std::uint64_t seed) {
  const unsigned int grid = shuffle8_grid(n, block);
  ReduceCase c{"reduceShuffle8",
               n,
               8 * block,
               "block=" + std::to_string(block),
               seed,
               "block b must sum elements [b*8*block, (b+1)*8*block)"};
  c.read_only_input = true;
  return reduction_error(c, [&](int *in, int *out, unsigned int count) {
    cudalab::launch(reduceShuffle8, grid, block)(in, out, count);
    return cudaGetLastError();
  });
}

unsigned int modern_grid_here(unsigned int n) {
  cudalab::DeviceInfo dev;
  if (cudalab::query_device(0, &dev) != cudaSuccess) return 1;
  return modern_grid(n, dev.sm_count, dev.max_threads_per_sm, kModernBlock);
}

unsigned int reference_modern_grid(unsigned int n) {
  cudalab::DeviceInfo dev;
  if (cudalab::query_device(0, &dev) != cudaSuccess) return 1;
  const unsigned long long wave = static_cast<unsigned long long>(std::max(dev.sm_count, 0)) *
                                  (static_cast<unsigned int>(std::max(dev.max_threads_per_sm, 0)) / kModernBlock);
  const unsigned long long groups = (static_cast<unsigned long long>(n) + 3) / 4;  // int4 groups, tail included
  const unsigned long long needed = (groups + kModernBlock - 1) / kModernBlock;
  return static_cast<unsigned int>(std::max(1ull, std::min(wave, needed)));
}

std::string modern_error(unsigned int n, unsigned int offset, unsigned int grid, std::uint64_t seed) {
  if (cudalab::skipped_under_sanitizer(n)) return "";  // a SanitizeAll run: the smaller sizes suffice
  if (grid == 0) grid = modern_grid_here(n);
  return modern_error(
      "reduceModern",
      [](const int *in, unsigned int count, int *sum, unsigned int blocks) {
        cudalab::launch(reduceModern, blocks, kModernBlock)(in, count, sum);
        return cudaGetLastError();
      },
      n, offset, grid, seed);
}

std::string modern_error(const char *name, const ModernLaunch &launch, unsigned int n, unsigned int offset,
                         unsigned int grid, std::uint64_t seed) {
  using cudalab::DeviceBuffer;
  if (cudalab::skipped_under_sanitizer(n)) return "";  // a SanitizeAll run: the smaller sizes suffice
  const std::string ctx = cudalab::context(
      {{"n", n}, {"offset", offset}, {"grid", grid}, {"block", kModernBlock}, {"seed", (long long)seed}});
  // Layout: kGuard guard ints (a multiple of 4, so 16-byte aligned), offset more guard ints, the
  // n input ints (starting `offset` ints past a 16-byte boundary), kGuard guard ints.
  std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed);
  std::vector<int> guarded(kGuard + offset, kGuardValue);
  guarded.insert(guarded.end(), input.begin(), input.end());
  guarded.resize(guarded.size() + kGuard, kGuardValue);
  DeviceBuffer<int> d_in, d_sum;
  cudaError_t err = d_in.upload(guarded);
  if (err == cudaSuccess) err = d_sum.allocate(1 + kGuard);
  if (err == cudaSuccess) err = d_sum.poison();
  if (err == cudaSuccess) err = cudaMemset(d_sum.get(), 0, sizeof(int));
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);

  err = launch(d_in.get() + kGuard + offset, n, d_sum.get(), grid);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, name, __FILE__, __LINE__) + " (" + ctx + ")";

  std::vector<int> in_after, out;
  if ((err = d_in.download(&in_after)) != cudaSuccess || (err = d_sum.download(&out)) != cudaSuccess)
    return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  std::ostringstream msg;
  for (std::size_t i = 0; i < in_after.size(); ++i) {
    if (in_after[i] != guarded[i]) {
      msg << name << " modified memory it should only read: element " << static_cast<long long>(i) - kGuard - offset
          << " of g_idata changed (" << ctx << ")";
      return msg.str();
    }
  }
  for (unsigned int i = 1; i <= kGuard; ++i) {
    if (!cudalab::is_poison(out[i])) {
      msg << name << " wrote past *g_sum: g_sum[" << i << "] was written (" << ctx << ")";
      return msg.str();
    }
  }
  const long long expected = cudalab::cpu::sum(input);
  if (out[0] != expected) {
    msg << name << ": wrong sum: expected " << expected << ", got " << out[0];
    const long long diff = static_cast<long long>(out[0]) - expected;
    if (diff != 0 && diff % kGuardValue == 0)
      msg << " (off by " << diff / kGuardValue << " x 1048576: the kernel read guard ints before or after the input)";
    else if (out[0] == 0)
      msg << " (nothing was added)";
    msg << " (" << ctx << ")";
    return msg.str();
  }
  return "";
}
