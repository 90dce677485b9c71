/// @file blocks_check.cu
/// @brief ch05_06 test support (see blocks_check.cuh).
#include "blocks_check.cuh"
#include "blocks_that_talk.cuh"
#include "cudalab/launch.cuh"

#include <algorithm>

namespace {

constexpr int kGuard = 16;  // poisoned entries after out and after the grid's partial sums

std::string ctx_of(int n, int block, int grid, std::uint64_t seed) {
  return cudalab::context({{"n", n}, {"block", block}, {"grid", grid}}) + ", seed=" + std::to_string(seed);
}

}  // namespace

long long cpu_sum(const std::vector<int> &v) {
  long long s = 0;
  for (int x : v) s += x;
  return s;
}

namespace {

/// single_pass_error() of @p launch, which writes at most @p used_grid partial sums; @p ctx for the
/// messages.
std::string single_pass_run_error(const char *name, const SinglePassLaunch &launch, int n, int used_grid,
                                  const std::string &ctx, std::uint64_t seed, int lo, int hi) {
  const std::vector<int> in = cudalab::random_ints(static_cast<std::size_t>(n), lo, hi, seed);
  cudalab::DeviceBuffer<int> d_in;
  cudalab::DeviceBuffer<long long> d_partial, d_out;
  cudalab::DeviceBuffer<unsigned int> d_counter;
  cudaError_t err = d_in.allocate(n > 0 ? n : 1);
  if (err == cudaSuccess && n > 0) err = d_in.upload(in);
  if (err == cudaSuccess) err = d_partial.allocate(used_grid + kGuard);
  if (err == cudaSuccess) err = d_partial.poison();
  if (err == cudaSuccess) err = d_out.allocate(1 + kGuard);
  if (err == cudaSuccess) err = d_out.poison();
  if (err == cudaSuccess) err = d_counter.allocate(1);
  if (err == cudaSuccess) err = cudaMemset(d_counter.get(), 0, sizeof(unsigned int));
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
  err = launch(d_in.get(), d_partial.get(), d_counter.get(), d_out.get(), n);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, name, __FILE__, __LINE__) + " (" + ctx + ")";
  std::vector<long long> out, partial;
  std::vector<unsigned int> counter;
  if ((err = d_out.download(&out)) != cudaSuccess || (err = d_partial.download(&partial)) != cudaSuccess ||
      (err = d_counter.download(&counter)) != cudaSuccess)
    return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  const long long want = cpu_sum(in);
  if (out[0] != want) {
    std::string msg =
        std::string(name) + ": wrong total: expected " + std::to_string(want) + ", got " + std::to_string(out[0]);
    if (cudalab::is_poison(out[0]))
      msg += " (never written: still the poison value -- did the last block notice it was last?)";
    return msg + " (" + ctx + ")";
  }
  for (int g = 1; g <= kGuard; ++g)
    if (!cudalab::is_poison(out[g]))
      return std::string(name) + " wrote past *out: out[" + std::to_string(g) + "] (" + ctx + ")";
  for (int g = 0; g < kGuard; ++g)
    if (!cudalab::is_poison(partial[used_grid + g]))
      return std::string(name) + " wrote past the grid's partial sums: partial[" + std::to_string(used_grid + g) +
             "] (" + ctx + ")";
  if (counter[0] != 0)
    return std::string(name) + " left the counter at " + std::to_string(counter[0]) +
           " instead of 0: the next launch would never find its last block (" + ctx + ")";
  return "";
}

}  // namespace

std::string single_pass_error(int n, int block, int grid, std::uint64_t seed, int lo, int hi) {
  if (cudalab::skipped_under_sanitizer(static_cast<std::size_t>(n))) return "";  // SanitizeAll: 10^6 + 3 suffices
  const int used_grid = grid > 0 ? grid : kMaxSinglePassBlocks;                  // partial entries the launch may write
  const std::string ctx = ctx_of(n, block, grid, seed) + (grid > 0 ? " (direct launch)" : " (through the launcher)");
  return single_pass_run_error(
      "reduceSinglePass",
      [&](const int *in, long long *partial, unsigned int *counter, long long *out, int count) {
        if (grid > 0) {
          cudalab::launch(reduceSinglePass, grid, block)(in, partial, counter, out, count);
          return cudaGetLastError();
        }
        return launch_reduce_single_pass(in, partial, counter, out, count, block);
      },
      n, used_grid, ctx, seed, lo, hi);
}

std::string single_pass_error(const char *name, const SinglePassLaunch &launch, int n, int block, int grid,
                              std::uint64_t seed, int lo, int hi) {
  if (cudalab::skipped_under_sanitizer(static_cast<std::size_t>(n))) return "";
  return single_pass_run_error(name, launch, n, grid, ctx_of(n, block, grid, seed), seed, lo, hi);
}

std::string repeated_launches_error(int n, int block, int launches, std::uint64_t seed) {
  // Under compute-sanitizer three launches (input A, B, A) check what hundreds do: the tools look
  // at each launch's accesses, not at how rarely a stale partial shows.
  if (cudalab::sanitizing()) launches = std::min(launches, 3);
  const std::string ctx = cudalab::context({{"n", n}, {"block", block}, {"launches", launches}}) +
                          ", seed=" + std::to_string(seed) + " (through the launcher)";
  // Input B is input A with 7 added to every element: its sum differs by 7n, and so does every
  // block's partial, so a partial left over from the previous launch changes the total.
  const std::vector<int> a = cudalab::random_ints(static_cast<std::size_t>(n), -1000, 1000, seed);
  std::vector<int> b(a);
  for (int &x : b) x += 7;
  const long long want[2] = {cpu_sum(a), cpu_sum(b)};
  cudalab::DeviceBuffer<int> d_a, d_b;
  cudalab::DeviceBuffer<long long> d_partial, d_out;
  cudalab::DeviceBuffer<unsigned int> d_counter;
  cudaError_t err = d_a.upload(a);
  if (err == cudaSuccess) err = d_b.upload(b);
  if (err == cudaSuccess) err = d_partial.allocate(kMaxSinglePassBlocks + kGuard);
  if (err == cudaSuccess) err = d_partial.poison();
  if (err == cudaSuccess) err = d_out.allocate(launches + kGuard);
  if (err == cudaSuccess) err = d_out.poison();
  if (err == cudaSuccess) err = d_counter.allocate(1);
  if (err == cudaSuccess) err = cudaMemset(d_counter.get(), 0, sizeof(unsigned int));
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
  for (int k = 0; k < launches && err == cudaSuccess; ++k)
    err = launch_reduce_single_pass(k % 2 ? d_b.get() : d_a.get(), d_partial.get(), d_counter.get(), d_out.get() + k, n,
                                    block);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    return cudalab::describe_error(err, "reduceSinglePass", __FILE__, __LINE__) + " (" + ctx + ")";
  std::vector<long long> out;
  std::vector<unsigned int> counter;
  if ((err = d_out.download(&out)) != cudaSuccess || (err = d_counter.download(&counter)) != cudaSuccess)
    return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  int wrong = 0, first = -1;
  for (int k = 0; k < launches; ++k)
    if (out[k] != want[k % 2] && wrong++ == 0) first = k;
  if (wrong > 0) {
    std::string msg = "reduceSinglePass: launch " + std::to_string(first) + " of " + std::to_string(launches) +
                      " (one counter for all) got " + std::to_string(out[first]) + ", expected " +
                      std::to_string(want[first % 2]);
    if (cudalab::is_poison(out[first]))
      msg += " (never written: no block of that launch saw the last ticket -- was the counter reset?)";
    else
      msg +=
          " (the total of the other input differs by 7 per element: a partial sum of the previous launch, or one "
          "read before its block had written it, gives a total between the two)";
    return msg + "; " + std::to_string(wrong) + " launches wrong (" + ctx + ")";
  }
  for (int g = 0; g < kGuard; ++g)
    if (!cudalab::is_poison(out[launches + g])) return "reduceSinglePass wrote past its *out (" + ctx + ")";
  if (counter[0] != 0)
    return "the counter is " + std::to_string(counter[0]) + " after the last launch, not 0 (" + ctx + ")";
  return "";
}
