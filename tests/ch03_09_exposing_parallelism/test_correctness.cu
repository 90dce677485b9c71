// ch03_09 correctness on the GPU: your limits, the launcher's refusal of (256,8), and the
// launcher running every valid shape of the sweep correctly for matrices of any size.
#include "matrix_check.cuh"
#include "shapes.cuh"

namespace {

class LaunchLimitsOnThisGpu : public cudalab::GpuTest {};

TEST_F(LaunchLimitsOnThisGpu, MatchTheRuntime) {
  LaunchLimits got, want;
  CUDALAB_ASSERT_OK(launch_limits(0, &got));
  CUDALAB_ASSERT_OK(runtime_limits(&want));
  const std::pair<const char *, std::pair<int, int>> fields[] = {
      {"max_threads_per_block", {got.max_threads_per_block, want.max_threads_per_block}},
      {"max_block[0]", {got.max_block[0], want.max_block[0]}},
      {"max_block[1]", {got.max_block[1], want.max_block[1]}},
      {"max_block[2]", {got.max_block[2], want.max_block[2]}},
      {"max_grid[0]", {got.max_grid[0], want.max_grid[0]}},
      {"max_grid[1]", {got.max_grid[1], want.max_grid[1]}},
      {"max_grid[2]", {got.max_grid[2], want.max_grid[2]}},
      {"warp_size", {got.warp_size, want.warp_size}},
      {"sm_count", {got.sm_count, want.sm_count}},
      {"max_threads_per_sm", {got.max_threads_per_sm, want.max_threads_per_sm}}};
  for (const auto &[name, v] : fields)
    if (v.first != v.second)
      GTEST_FAIL() << "launch_limits: " << name << " is " << v.first << ", the runtime says " << v.second;
}

class Launcher : public cudalab::GpuTest {};

TEST_F(Launcher, RejectsTheSeeds256x8WithoutLaunching) {
  LaunchLimits l;
  CUDALAB_ASSERT_OK(runtime_limits(&l));
  const int nx = 1000, ny = 33;
  cudalab::DeviceBuffer<float> a, b, c;
  CUDALAB_ASSERT_OK(a.allocate(std::size_t(nx) * ny));
  CUDALAB_ASSERT_OK(b.allocate(std::size_t(nx) * ny));
  CUDALAB_ASSERT_OK(c.allocate(std::size_t(nx) * ny));
  CUDALAB_ASSERT_OK(c.poison());
  std::string why;
  const cudaError_t err = launch_sum_matrix(l, a.get(), b.get(), c.get(), nx, ny, dim3(256, 8), &why);
  if (err != cudaErrorInvalidConfiguration)
    GTEST_FAIL() << "launch_sum_matrix(block (256,8)): expected cudaErrorInvalidConfiguration, got "
                 << cudaGetErrorName(err) << " (" << why << ")";
  if (why.find(std::to_string(l.max_threads_per_block)) == std::string::npos || why.find("2048") == std::string::npos)
    GTEST_FAIL() << "launch_sum_matrix(block (256,8)): the message should name the 2048 threads and the limit of "
                 << l.max_threads_per_block << "; it says: \"" << why << "\"";
  const cudaError_t pending = cudaGetLastError();
  if (pending != cudaSuccess)
    GTEST_FAIL() << "launch_sum_matrix(block (256,8)) left an error pending: " << cudaGetErrorName(pending)
                 << " -- check before you launch";
  CUDALAB_ASSERT_OK(cudaDeviceSynchronize());
  std::vector<float> out;
  CUDALAB_ASSERT_OK(c.download(&out));
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!cudalab::is_poison(out[i]))
      GTEST_FAIL() << "launch_sum_matrix(block (256,8)) wrote C[" << i
                   << "]: an invalid configuration must launch nothing";
}

TEST_F(Launcher, RunsEveryValidShapeOfTheSweepCorrectly) {
  LaunchLimits l;
  CUDALAB_ASSERT_OK(runtime_limits(&l));
  const std::pair<int, int> sizes[] = {{1, 1}, {17, 33}, {1000, 3}, {333, 517}};
  for (dim3 block : seeds_sweep()) {
    if (!invalid_reason(l, 16384, 16384, block).empty()) continue;  // (256,8): the test above
    for (auto [nx, ny] : sizes) {
      std::string why;
      const std::string error = sum_matrix_error(
          "launch_sum_matrix",
          [&](const float *a, const float *b, float *c, int x, int y) {
            const cudaError_t err = launch_sum_matrix(l, a, b, c, x, y, block, &why);
            if (err != cudaSuccess)
              why = std::string(cudaGetErrorName(err)) + ": " + why;
            else
              why.clear();
          },
          nx, ny, "block=" + shape(block), seed() + nx);
      if (!why.empty())
        GTEST_FAIL() << "launch_sum_matrix(" << nx << " x " << ny << ", block " << shape(block)
                     << ") refused a valid configuration: " << why;
      if (!error.empty()) GTEST_FAIL() << error;
    }
  }
}

}  // namespace
