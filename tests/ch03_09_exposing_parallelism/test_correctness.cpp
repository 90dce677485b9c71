// ch03_09 correctness on the GPU: your limits, the launcher's refusal of (256,8), and the
// launcher running every valid shape of the sweep correctly for matrices of any size.
#include "fault_injection.cuh"
#include "matrix_check.cuh"
#include "shapes.cuh"

#include "cudalab/launch_recorder.hpp"

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
  cudalab::LaunchRecorder rec;
  const cudaError_t err = launch_sum_matrix(l, a.get(), b.get(), c.get(), nx, ny, dim3(256, 8), &why);
  const std::vector<cudalab::LaunchRecord> launched = rec.launches();
  if (!launched.empty())
    GTEST_FAIL() << "launch_sum_matrix(block (256,8)) attempted a launch (" << cudalab::describe(launched[0])
                 << "): check the configuration before launching, and launch nothing when it is invalid";
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

// The launch that happened: one launch of sumMatrixOnGPU2D with exactly the block that was
// validated and grid_for(nx, ny, block) -- a launcher that checks one shape and launches another
// (a fixed block, its own pick) gives the same values and is caught only here.
TEST_F(Launcher, LaunchesExactlyTheShapeItValidated) {
  LaunchLimits l;
  CUDALAB_ASSERT_OK(runtime_limits(&l));
  std::vector<dim3> blocks = seeds_sweep();
  blocks.insert(blocks.end(), {dim3(48, 5), dim3(1024, 1), dim3(1, 1024), dim3(96, 3)});
  const std::pair<int, int> sizes[] = {{17, 33}, {1000, 3}, {333, 517}};
  for (dim3 block : blocks) {
    if (!invalid_reason(l, 1000, 1000, block).empty()) continue;
    for (auto [nx, ny] : sizes) {
      std::vector<cudalab::LaunchRecord> launched, ours;
      std::string why;
      const std::string error = sum_matrix_error(
          "launch_sum_matrix",
          [&](const float *a, const float *b, float *c, int x, int y) {
            cudalab::LaunchRecorder rec;
            if (launch_sum_matrix(l, a, b, c, x, y, block, &why) != cudaSuccess)
              why = "refused a valid configuration: " + why;
            else
              why.clear();
            launched = rec.launches();
            ours = rec.launches_of(sumMatrixOnGPU2D);
          },
          nx, ny, "block=" + shape(block), seed() + nx);
      if (!why.empty())
        GTEST_FAIL() << "launch_sum_matrix(" << nx << " x " << ny << ", block " << shape(block) << ") " << why;
      if (!error.empty()) GTEST_FAIL() << error;
      const dim3 want_grid = grid_for(nx, ny, block);
      if (launched.size() != 1 || ours.size() != 1)
        GTEST_FAIL() << "launch_sum_matrix(" << nx << " x " << ny << ", block " << shape(block) << ") made "
                     << launched.size() << " kernel launches (" << ours.size()
                     << " of sumMatrixOnGPU2D), expected exactly one, of sumMatrixOnGPU2D";
      const cudalab::LaunchRecord &r = launched[0];
      if (r.block.x != block.x || r.block.y != block.y || r.block.z != block.z || r.grid.x != want_grid.x ||
          r.grid.y != want_grid.y || r.grid.z != 1)
        GTEST_FAIL() << "launch_sum_matrix(" << nx << " x " << ny << ", block " << shape(block) << ") launched "
                     << cudalab::describe(r) << ", expected grid " << shape(want_grid) << " block " << shape(block)
                     << ": launch the configuration you validated";
    }
  }
}

// The limits passed in decide, not the device's: a launcher that checks against its own query of
// the GPU launches what the given (smaller) limits forbid.
TEST_F(Launcher, RefusesWhatTheGivenLimitsForbidWithoutLaunching) {
  LaunchLimits small;
  CUDALAB_ASSERT_OK(runtime_limits(&small));
  small.max_threads_per_block = 512;
  small.max_grid[1] = 100;
  const int nx = 1000, ny = 1000;
  cudalab::DeviceBuffer<float> a, b, c;
  CUDALAB_ASSERT_OK(a.allocate(std::size_t(nx) * ny));
  CUDALAB_ASSERT_OK(b.allocate(std::size_t(nx) * ny));
  CUDALAB_ASSERT_OK(c.allocate(std::size_t(nx) * ny));
  // (32,32): 1024 threads > 512; (256,1): 1000 blocks in y > 100.
  for (dim3 block : {dim3(32, 32), dim3(256, 1)}) {
    std::string why;
    cudalab::LaunchRecorder rec;
    const cudaError_t err = launch_sum_matrix(small, a.get(), b.get(), c.get(), nx, ny, block, &why);
    const std::vector<cudalab::LaunchRecord> launched = rec.launches();
    if (err != cudaErrorInvalidConfiguration || !launched.empty())
      GTEST_FAIL() << "launch_sum_matrix(" << nx << " x " << ny << ", block " << shape(block)
                   << ") with limits of 512 threads per block and gridDim.y <= 100 returned " << cudaGetErrorName(err)
                   << " after " << launched.size()
                   << " launches; expected cudaErrorInvalidConfiguration and no launch: validate against the "
                      "limits you are given";
    CUDALAB_ASSERT_OK(cudaGetLastError());
  }
}

// The "any nx, ny" promise with the index in std::size_t: one launch through your launcher past
// 2^32 elements (or 2^31 where only that fits); skipped, with the reason, on smaller GPUs.
TEST_F(Launcher, RightPast32BitIndices) {
  const HugeMatrixPlan plan = plan_huge_matrix();
  if (plan.nx == 0)
    CUDALAB_SKIP_NOT_APPLICABLE() << "not enough free GPU memory for the 64-bit index test: " << plan.skip;
  LaunchLimits l;
  CUDALAB_ASSERT_OK(runtime_limits(&l));
  const dim3 block(32, 16);
  std::string why;
  const std::string error = huge_matrix_error(
      "launch_sum_matrix (sumMatrixOnGPU2D)", plan,
      [&](const float *a, const float *b, float *c, int nx, int ny) {
        if (launch_sum_matrix(l, a, b, c, nx, ny, block, &why) == cudaSuccess) why.clear();
      },
      "block=" + shape(block) + " (compute idx = iy * nx + ix in std::size_t)", seed());
  if (!why.empty()) GTEST_FAIL() << "launch_sum_matrix refused a valid configuration: " << why;
  if (!error.empty()) GTEST_FAIL() << error;
}

}  // namespace

// FaultInjection.<function>_<case>: the generic error-reporting tests (tests/support/fault_injection.cuh)
// for the functions tests/ch03_09_exposing_parallelism/grading.json declares in "reports_errors".
namespace {

const bool kFaultInjection = cudalab::testing::register_fault_injection({
    {"launch_sum_matrix",
     [](const cudalab::testing::Run &run) {
       // The limits straight from the runtime (launch_limits is graded by LaunchLimitsOnThisGpu).
       LaunchLimits limits;
       int device = 0;
       cudaError_t err = cudaGetDevice(&device);
       const std::pair<int *, cudaDeviceAttr> attrs[] = {
           {&limits.max_threads_per_block, cudaDevAttrMaxThreadsPerBlock},
           {&limits.max_block[0], cudaDevAttrMaxBlockDimX},
           {&limits.max_block[1], cudaDevAttrMaxBlockDimY},
           {&limits.max_block[2], cudaDevAttrMaxBlockDimZ},
           {&limits.max_grid[0], cudaDevAttrMaxGridDimX},
           {&limits.max_grid[1], cudaDevAttrMaxGridDimY},
           {&limits.max_grid[2], cudaDevAttrMaxGridDimZ},
           {&limits.warp_size, cudaDevAttrWarpSize},
           {&limits.sm_count, cudaDevAttrMultiProcessorCount},
           {&limits.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor}};
       for (const auto &[value, attr] : attrs)
         if (err == cudaSuccess) err = cudaDeviceGetAttribute(value, attr, device);
       const int nx = 300, ny = 200;
       cudalab::DeviceBuffer<float> a, b, c;
       if (err == cudaSuccess) err = a.upload(cudalab::random_floats(std::size_t(nx) * ny, -1.0f, 1.0f, 1));
       if (err == cudaSuccess) err = b.upload(cudalab::random_floats(std::size_t(nx) * ny, -1.0f, 1.0f, 2));
       if (err == cudaSuccess) err = c.allocate(std::size_t(nx) * ny);
       if (err != cudaSuccess) return err;
       std::string why;
       return run([&] { return launch_sum_matrix(limits, a.get(), b.get(), c.get(), nx, ny, dim3(32, 8), &why); });
     }},
});

}  // namespace
