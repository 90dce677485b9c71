// ch05_06 GPU tests: reduceSinglePass against the CPU sum on ragged sizes, any block size and any
// grid, many launches sharing one counter, block sums beyond the int range, and the cooperative
// grid limit against the runtime's occupancy calculator and a real cooperative launch.
#include "baseline.cuh"
#include "blocks_check.cuh"
#include "blocks_that_talk.cuh"
#include "fault_injection.cuh"

namespace {

class ReduceSinglePass : public cudalab::GpuTest, public ::testing::WithParamInterface<int> {};

// n = 0 (out = 0), fewer elements than threads, one either side of a block, a ragged size that
// fills the launcher's 1024 blocks, and one where every thread loops several times.
TEST_P(ReduceSinglePass, RaggedSizesMatchTheCpu) {
  const int block = GetParam();
  for (int n : {0, 1, 31, block - 1, block, block + 1, 1000003, (1 << 22) + 5}) {
    const std::string error = single_pass_error(n, block, 0, seed() + n);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

INSTANTIATE_TEST_SUITE_P(SinglePass, ReduceSinglePass, ::testing::Values(64, 128, 256, 512, 1024),
                         [](const auto &info) { return "block" + std::to_string(info.param); });

class SinglePassGridSize : public cudalab::GpuTest {};

// The kernel itself must work for any grid, not only the launcher's: one block, a few, more
// blocks than elements, and more than kMaxSinglePassBlocks.
TEST_F(SinglePassGridSize, AnyGridGivesTheSameSum) {
  for (int grid : {1, 2, 7, 333, 3000}) {
    const std::string error = single_pass_error(100003, 128, grid, seed() + grid);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

class SinglePassRepeat : public cudalab::GpuTest {};

// Two launches with one counter: the second is right only if the first put the counter back to 0.
TEST_F(SinglePassRepeat, CounterIsResetForTheNextLaunch) {
  const std::string error = repeated_launches_error(300007, 256, 2, seed());
  if (!error.empty()) GTEST_FAIL() << error;
}

// Hundreds of launches back to back, 1024 blocks each, alternating inputs: a last block that
// reads a partial sum before its writer's store is visible gets a stale (previous launch's) or
// poisoned value. Rare on real hardware even without a fence -- the PTX checks (OrderingCode)
// are what grade the fence; this test shows the values stay right.
TEST_F(SinglePassRepeat, HundredsOfLaunchesNeverSeeAStalePartial) {
  for (int block : {64, 256}) {
    const std::string error = repeated_launches_error((1 << 18) + 3, block, 400, seed() + block);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

class SinglePassOverflow : public cudalab::GpuTest {};

// Every element is at least 2^30: two of them already overflow an int, so every partial sum
// must be 64-bit from the first addition on.
TEST_F(SinglePassOverflow, BlockSumsBeyondTheIntRange) {
  for (int n : {3, 4097, (1 << 20) + 1}) {
    const std::string error = single_pass_error(n, 256, 0, seed() + n, 1 << 30, 2147483647);
    if (!error.empty()) GTEST_FAIL() << error;
  }
}

class CooperativeGrid : public cudalab::GpuTest {};

SmLimits limits_of(const cudaDeviceProp &p) {
  SmLimits sm{};
  sm.sm_count = p.multiProcessorCount;
  sm.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  sm.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  sm.regs_per_sm = p.regsPerMultiprocessor;
  sm.sub_partitions = p.major == 6 && p.minor == 0 ? 2 : 4;
  sm.reg_alloc_unit = 256;
  sm.smem_per_sm = p.sharedMemPerMultiprocessor;
  sm.smem_reserved_per_block = p.reservedSharedMemPerBlock;
  sm.smem_alloc_unit = p.major >= 8 ? 128 : 256;  // cuda_occupancy.h: 256 on 7.x
  return sm;
}

// max_cooperative_blocks for this GPU and two real kernels (yours and a test-side cooperative
// one) must equal what the runtime computes: cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs.
TEST_F(CooperativeGrid, MatchesTheRuntimeOccupancyCalculator) {
  cudaDeviceProp p{};
  CUDALAB_ASSERT_OK(cudaGetDeviceProperties(&p, 0));
  const SmLimits sm = limits_of(p);
  struct Kernel {
    const char *name;
    const void *func;
  } kernels[] = {{"reduceSinglePass", reinterpret_cast<const void *>(reduceSinglePass)},
                 {"gridSyncCount (test-side)", reinterpret_cast<const void *>(gridSyncCount)}};
  for (const Kernel &k : kernels) {
    cudaFuncAttributes attr{};
    CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&attr, k.func));
    for (int block : {64, 128, 256, 512, 1024}) {
      if (block > attr.maxThreadsPerBlock) continue;
      int per_sm = 0;
      CUDALAB_ASSERT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.func, block, 0));
      const KernelUse use{block, attr.numRegs, attr.sharedSizeBytes};
      EXPECT_EQ(max_cooperative_blocks(sm, use), per_sm * sm.sm_count)
          << "max_cooperative_blocks for " << k.name << " (block " << block << ", " << attr.numRegs
          << " registers/thread, " << attr.sharedSizeBytes << " B static shared) on " << p.name
          << "; the runtime says " << per_sm << " blocks/SM x " << sm.sm_count << " SMs";
    }
  }
}

// A cooperative launch at max_cooperative_blocks must run (every block passes grid.sync() and
// block 0 sees all arrivals); one block more must be refused with
// cudaErrorCooperativeLaunchTooLarge -- never launched, so it cannot hang.
TEST_F(CooperativeGrid, CooperativeLaunchAcceptsExactlyThatGrid) {
  cudaDeviceProp p{};
  CUDALAB_ASSERT_OK(cudaGetDeviceProperties(&p, 0));
  if (!p.cooperativeLaunch) CUDALAB_SKIP_NOT_APPLICABLE() << "the GPU does not support cooperative launches";
  cudaFuncAttributes attr{};
  CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void *>(gridSyncCount)));
  const int block = 256;
  const int grid = max_cooperative_blocks(limits_of(p), KernelUse{block, attr.numRegs, attr.sharedSizeBytes});
  ASSERT_GT(grid, 0) << "max_cooperative_blocks returned " << grid << " for a 256-thread kernel with "
                     << attr.numRegs << " registers/thread";
  cudalab::DeviceBuffer<unsigned int> d;  // [0] arrived, [1] seen
  CUDALAB_ASSERT_OK(d.allocate(2));
  CUDALAB_ASSERT_OK(cudaMemset(d.get(), 0, 2 * sizeof(unsigned int)));
  unsigned int *arrived = d.get(), *seen = d.get() + 1;
  void *args[] = {&arrived, &seen};
  cudaError_t err = cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(gridSyncCount), dim3(grid),
                                                dim3(block), args, 0, 0);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  ASSERT_EQ(err, cudaSuccess) << "a cooperative launch of " << grid << " blocks (max_cooperative_blocks) failed: "
                              << cudaGetErrorString(err) << " -- is the grid too large?";
  std::vector<unsigned int> got;
  CUDALAB_ASSERT_OK(d.download(&got));
  EXPECT_EQ(got[1], static_cast<unsigned int>(grid)) << "block 0 saw " << got[1] << " arrivals after grid.sync()";
  err = cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(gridSyncCount), dim3(grid + 1), dim3(block),
                                    args, 0, 0);
  cudaGetLastError();  // clear the expected error
  EXPECT_EQ(err, cudaErrorCooperativeLaunchTooLarge)
      << "a cooperative launch of " << grid + 1 << " blocks (max_cooperative_blocks + 1) was not refused ("
      << cudaGetErrorString(err) << "): max_cooperative_blocks is below the real limit";
  cudaDeviceSynchronize();
}

}  // namespace

// FaultInjection.<function>_<case>: the generic error-reporting tests (tests/support/fault_injection.cuh)
// for the functions tests/ch05_06_blocks_that_talk/grading.json declares in "reports_errors".
namespace {

const bool kFaultInjection = cudalab::testing::register_fault_injection({
    {"launch_reduce_single_pass",
     [](const cudalab::testing::Run &run) {
       const int n = 1 << 16, block = 256;
       cudalab::DeviceBuffer<int> in;
       cudalab::DeviceBuffer<long long> partial, out;
       cudalab::DeviceBuffer<unsigned int> counter;
       cudaError_t err = in.upload(cudalab::random_ints(n, -100, 100, 3));
       if (err == cudaSuccess) err = partial.allocate(kMaxSinglePassBlocks);
       if (err == cudaSuccess) err = out.allocate(1);
       if (err == cudaSuccess) err = counter.allocate(1);
       if (err == cudaSuccess) err = cudaMemset(counter.get(), 0, sizeof(unsigned int));
       if (err != cudaSuccess) return err;
       return run([&] {
         return launch_reduce_single_pass(in.get(), partial.get(), counter.get(), out.get(), n, block);
       });
     }},
});

}  // namespace
