// ch03_03 correctness: residency predicted for real kernels (their registers and shared memory
// are the compiler's) against the runtime and the toolkit's calculator; the register cap of
// __launch_bounds__; the launcher that refuses what cannot fit one block.
#include "fault_injection.cuh"
#include "resources.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/launch_recorder.hpp"
#include "cudalab/testing.cuh"

#include <cuda_occupancy.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// Few registers, no shared memory.
__global__ void lightKernel(float *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }

/// 12 KB of static shared memory.
__global__ void staticTileKernel(float *out) {
  __shared__ float tile[3072];
  for (int i = threadIdx.x; i < 3072; i += blockDim.x) tile[i] = i;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x * 7) % 3072];
}

/// At most 128 threads per block (__launch_bounds__).
__global__ void __launch_bounds__(128) boundedKernel(float *out) { out[threadIdx.x] = 1.0f; }

struct RealKernel {
  const char *name;
  const void *func;
};
const RealKernel kKernels[] = {{"lightKernel", reinterpret_cast<const void *>(lightKernel)},
                               {"staticTileKernel", reinterpret_cast<const void *>(staticTileKernel)},
                               {"hungryKernel", reinterpret_cast<const void *>(hungryKernel)},
                               {"hungryBounded", reinterpret_cast<const void *>(hungryBounded)},
                               {"histogramShared", reinterpret_cast<const void *>(histogramShared)}};

/// The dynamic shared memory histogramShared is opted in to for the residency tests: 100 KB where
/// the GPU allows it, else the most one block may opt in to (T4: 64 KB, RTX 30/40: 99 KB), so
/// every GPU from sm_75 checks a launch above the 48 KB default.
int opt_in_bytes(const cudalab::DeviceInfo &d) {
  cudaFuncAttributes fa{};
  if (cudaFuncGetAttributes(&fa, histogramShared) != cudaSuccess) return 48 * 1024;
  return static_cast<int>(std::min<std::size_t>(100 * 1024, d.smem_per_block_optin - fa.sharedSizeBytes));
}

std::string describe(const RealKernel &k, const cudaFuncAttributes &fa, int threads, std::size_t dyn) {
  std::ostringstream os;
  os << k.name << " (" << fa.numRegs << " regs/thread, " << fa.sharedSizeBytes << " B static shared memory) with "
     << threads << " threads and " << dyn << " B dynamic shared memory";
  return os.str();
}

class ResidencyOnThisGpu : public cudalab::GpuTest {
 protected:
  /// Calls @p check for every kernel, block size and dynamic shared memory size the kernel can
  /// be launched with.
  template <class Check>
  void for_each_config(Check check) {
    const int opt_in = opt_in_bytes(device());
    CUDALAB_ASSERT_OK(cudaFuncSetAttribute(histogramShared, cudaFuncAttributeMaxDynamicSharedMemorySize, opt_in));
    // Dynamic sizes: none, small, near the 48 KB default, between it and the opt-in, and the opt-in itself.
    const std::size_t dyns[] = {0, 8192, 40000, std::size_t(48 * 1024 + opt_in) / 2 + 3, std::size_t(opt_in)};
    int cases = 0;
    for (const RealKernel &k : kKernels) {
      cudaFuncAttributes fa;
      CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&fa, k.func));
      for (int threads : {1, 32, 33, 64, 96, 100, 128, 160, 192, 256, 288, 320, 384, 500, 512, 640, 768, 1000, 1024}) {
        if (threads > fa.maxThreadsPerBlock) continue;
        for (std::size_t dyn : dyns) {
          if (dyn > std::size_t(fa.maxDynamicSharedSizeBytes)) continue;
          Residency got;
          CUDALAB_ASSERT_OK(predict_residency(k.func, threads, dyn, &got));
          ++cases;
          if (!check(k, fa, threads, dyn, got)) return;
        }
      }
      std::printf("%-17s %3d regs/thread, %6zu B static shared memory, up to %d threads: checked\n", k.name, fa.numRegs,
                  fa.sharedSizeBytes, fa.maxThreadsPerBlock);
    }
    std::printf("%d configurations checked\n", cases);
  }
};

TEST_F(ResidencyOnThisGpu, BlocksAndWarpsMatchCudaOccupancyMaxActiveBlocks) {
  const int max_warps = device().max_threads_per_sm / device().warp_size;
  for_each_config(
      [&](const RealKernel &k, const cudaFuncAttributes &fa, int threads, std::size_t dyn, const Residency &got) {
        int want = 0;
        EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&want, k.func, threads, dyn), cudaSuccess);
        const int warps = want * ((threads + 31) / 32);
        if (got.blocks_per_sm != want || got.warps_per_sm != warps || got.occupancy != double(warps) / max_warps ||
            got.regs_per_thread != fa.numRegs || got.static_smem != fa.sharedSizeBytes || got.dynamic_smem != dyn) {
          ADD_FAILURE() << "predict_residency for " << describe(k, fa, threads, dyn) << ": expected " << want
                        << " blocks/SM, " << warps << " warps, occupancy " << double(warps) / max_warps << " ("
                        << fa.numRegs << " regs, " << fa.sharedSizeBytes << " B static, " << dyn << " B dynamic), got "
                        << got.blocks_per_sm << " blocks/SM, " << got.warps_per_sm << " warps, " << got.occupancy
                        << " (" << got.regs_per_thread << " regs, " << got.static_smem << " B static, "
                        << got.dynamic_smem << " B dynamic)";
          return false;
        }
        return true;
      });
}

TEST_F(ResidencyOnThisGpu, LimitersMatchTheToolkitCalculator) {
  cudaDeviceProp prop;
  CUDALAB_ASSERT_OK(cudaGetDeviceProperties(&prop, 0));
  const cudaOccDeviceProp occ_prop(prop);
  const cudaOccDeviceState state;
  const unsigned known = kLimitWarps | kLimitRegisters | kLimitSharedMemory | kLimitBlocks;
  for_each_config(
      [&](const RealKernel &k, const cudaFuncAttributes &fa, int threads, std::size_t dyn, const Residency &got) {
        const cudaOccFuncAttributes occ_attr(fa);
        cudaOccResult want;
        EXPECT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&want, &occ_prop, &occ_attr, &state, threads, dyn),
                  CUDA_OCC_SUCCESS);
        const unsigned want_lim = want.limitingFactors & known;
        if (got.limiters != want_lim || got.blocks_per_sm != want.activeBlocksPerMultiprocessor) {
          ADD_FAILURE() << "predict_residency for " << describe(k, fa, threads, dyn) << ": expected "
                        << want.activeBlocksPerMultiprocessor << " blocks/SM limited by " << limiter_names(want_lim)
                        << " (cuda_occupancy.h), got " << got.blocks_per_sm << " limited by "
                        << limiter_names(got.limiters);
          return false;
        }
        return true;
      });
}

TEST_F(ResidencyOnThisGpu, ImpossibleBlocksGiveZeroResidentBlocks) {
  struct Case {
    const char *what;
    const void *func;
    int threads;
    std::size_t dyn;
    unsigned limiter;
  };
  cudaFuncAttributes hungry;
  CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&hungry, hungryKernel));
  std::vector<Case> cases = {
      {"lightKernel with more threads than the device allows", reinterpret_cast<const void *>(lightKernel),
       device().max_threads_per_block + 32, 0, kLimitWarps},
      {"boundedKernel (__launch_bounds__(128)) with 256 threads", reinterpret_cast<const void *>(boundedKernel), 256, 0,
       kLimitWarps},
      {"histogramShared with 1 byte more dynamic shared memory than its limit (48 KB, not opted in)",
       reinterpret_cast<const void *>(histogramShared), 256, 48 * 1024 + 1, kLimitSharedMemory},
  };
  // 1024 threads x more than 64 registers do not fit the 65536 registers of one block.
  if (hungry.numRegs > 64)
    cases.push_back({"hungryKernel (more than 64 regs/thread) with 1024 threads",
                     reinterpret_cast<const void *>(hungryKernel), 1024, 0, kLimitRegisters});
  for (const Case &c : cases) {
    Residency got;
    CUDALAB_ASSERT_OK(predict_residency(c.func, c.threads, c.dyn, &got));
    if (got.blocks_per_sm != 0 || !(got.limiters & c.limiter))
      ADD_FAILURE() << "predict_residency for " << c.what << ": expected 0 blocks/SM limited by "
                    << limiter_names(c.limiter) << ", got " << got.blocks_per_sm << " blocks/SM limited by "
                    << limiter_names(got.limiters);
  }
}

class RegisterPressure : public cudalab::GpuTest {};

TEST_F(RegisterPressure, LaunchBoundsCapHungryBoundedAt64RegistersWithTheSameResults) {
  cudaFuncAttributes free_fa, bounded_fa;
  CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&free_fa, hungryKernel));
  CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&bounded_fa, hungryBounded));
  std::printf(
      "hungryKernel: %d registers/thread, %zu B local memory; hungryBounded: %d registers/thread, %zu B local memory "
      "(spills)\n",
      free_fa.numRegs, free_fa.localSizeBytes, bounded_fa.numRegs, bounded_fa.localSizeBytes);
  if (bounded_fa.maxThreadsPerBlock != 256 || bounded_fa.numRegs > 64)
    GTEST_FAIL() << "hungryBounded: expected at most 256 threads per block and at most 64 registers per thread "
                    "(__launch_bounds__ for 4 blocks of 256 threads per SM), got "
                 << bounded_fa.maxThreadsPerBlock << " threads and " << bounded_fa.numRegs << " registers";
  int want_blocks = 0;
  CUDALAB_ASSERT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&want_blocks, hungryBounded, 256, 0));
  const int possible = std::min(4, device().max_threads_per_sm / 256);
  if (want_blocks < possible)
    GTEST_FAIL() << "hungryBounded: " << want_blocks << " resident blocks of 256 threads per SM, expected at least "
                 << possible;
  // Spilling changes where values live, never the result.
  const unsigned int n = 100000 + static_cast<unsigned int>(seed() % 1000);
  const std::vector<int> raw = cudalab::random_ints(n, 0, 1 << 30, seed());
  const std::vector<unsigned int> in(raw.begin(), raw.end());
  std::vector<unsigned int> want(n);
  for (unsigned int i = 0; i < n; ++i) want[i] = hungry_mix(in[i]);
  cudalab::DeviceBuffer<unsigned int> d_in, d_out;
  CUDALAB_ASSERT_OK(d_in.upload(in));
  CUDALAB_ASSERT_OK(d_out.allocate(n));
  CUDALAB_ASSERT_OK(d_out.poison());
  cudalab::launch(hungryBounded, (n + 255) / 256, 256)(d_in.get(), d_out.get(), n);
  CUDALAB_ASSERT_LAUNCH("hungryBounded");
  std::vector<unsigned int> out;
  CUDALAB_ASSERT_OK(d_out.download(&out));
  auto r = cudalab::equal_arrays("hungryBounded", cudalab::context({{"n", n}, {"seed", (long long)seed()}}), want, out);
  if (!r) GTEST_FAIL() << r.message();
}

class LaunchHistogram : public cudalab::GpuTest {
 protected:
  /// Runs launch_histogram on fresh data; "" if it succeeded with the right counts.
  std::string run(unsigned int n, unsigned int bins, int threads, int blocks, LaunchReport *rep) {
    const std::string ctx = cudalab::context(
        {{"n", n}, {"bins", bins}, {"threads", threads}, {"blocks", blocks}, {"seed", static_cast<long long>(seed())}});
    const std::vector<int> raw = cudalab::random_ints(n, 0, 2147483647, seed() + bins);
    const std::vector<unsigned int> in(raw.begin(), raw.end());
    std::vector<unsigned int> want(bins, 0);
    for (unsigned int v : in) ++want[v % bins];
    cudalab::DeviceBuffer<unsigned int> d_in, d_hist;
    cudaError_t err = d_in.upload(in);
    if (err == cudaSuccess) err = d_hist.allocate(bins);
    if (err == cudaSuccess) err = cudaMemset(d_hist.get(), 0, d_hist.bytes());
    if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
    cudalab::LaunchRecorder recorder;
    *rep = launch_histogram(d_in.get(), d_hist.get(), n, bins, threads, blocks);
    if (rep->error != cudaSuccess)
      return std::string("launch_histogram refused or failed a launch that fits: ") + cudaGetErrorName(rep->error) +
             " \"" + rep->message + "\" (" + ctx + ")";
    // The header's launch: blocks x threads, bins * 4 bytes of dynamic shared memory, once.
    const std::vector<cudalab::LaunchRecord> launched = recorder.launches_of(histogramShared);
    if (launched.size() != 1)
      return "launch_histogram launched histogramShared " + std::to_string(launched.size()) +
             " times, expected once (" + ctx + ")";
    const cudalab::LaunchRecord &l = launched[0];
    if (l.grid.x != unsigned(blocks) || l.grid.y != 1 || l.grid.z != 1 || l.block.x != unsigned(threads) ||
        l.block.y != 1 || l.block.z != 1 || l.shared_bytes != std::size_t(bins) * 4)
      return "launch_histogram launched histogramShared with " + cudalab::describe(l) + ", expected grid (" +
             std::to_string(blocks) + ",1,1) block (" + std::to_string(threads) + ",1,1) shared " +
             std::to_string(std::size_t(bins) * 4) + " B: the blocks, threads and bins it was given (" + ctx + ")";
    std::vector<unsigned int> got;
    if ((err = d_hist.download(&got)) != cudaSuccess)
      return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
    auto r = cudalab::equal_arrays("launch_histogram (histogramShared)", ctx, want, got, "bin");
    return r ? "" : r.message();
  }
};

TEST_F(LaunchHistogram, RunsEveryLaunchThatFitsIncludingOptInSharedMemory) {
  struct Config {
    unsigned int n, bins;
    int threads, blocks;
  };
  // Sizes follow this GPU's opt-in limit: 25600 bins (100 KB) where it allows that, else halfway
  // between the 48 KB default and the limit (T4: 14336 bins, 56 KB), so every GPU opts in.
  const unsigned int max_bins = static_cast<unsigned int>(device().smem_per_block_optin / 4);
  const unsigned int big = std::min(25600u, (12288u + max_bins) / 2);
  // Exactly at the limit: all the opt-in shared memory the kernel's own static shared memory leaves.
  cudaFuncAttributes fa;
  CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&fa, histogramShared));
  const unsigned int at_limit = static_cast<unsigned int>((device().smem_per_block_optin - fa.sharedSizeBytes) / 4);
  const Config configs[] = {{1000, 1, 32, 1},         {100003, 257, 256, 64},  {1 << 20, 5000, 200, 300},
                            {77777, 12288, 1024, 2},  {300001, big, 512, 132}, {50000, max_bins - 16, 96, 7},
                            {30011, at_limit, 64, 3}, {999, 3, 1, 5}};
  for (const Config &c : configs) {
    LaunchReport rep;
    const std::string error = run(c.n, c.bins, c.threads, c.blocks, &rep);
    if (!error.empty()) GTEST_FAIL() << error;
    Residency want;
    CUDALAB_ASSERT_OK(
        predict_residency(reinterpret_cast<const void *>(histogramShared), c.threads, c.bins * 4u, &want));
    if (rep.residency.blocks_per_sm < 1 || rep.residency.blocks_per_sm != want.blocks_per_sm)
      GTEST_FAIL() << "launch_histogram: report.residency says " << rep.residency.blocks_per_sm << " blocks/SM for "
                   << c.bins << " bins and " << c.threads << " threads, predict_residency says " << want.blocks_per_sm;
    std::printf("%6u bins (%6u B), %4d threads: %2d blocks/SM, limited by %s\n", c.bins, c.bins * 4u, c.threads,
                rep.residency.blocks_per_sm, limiter_names(rep.residency.limiters).c_str());
  }
}

/// Checks a refused launch: error set, limiter, both numbers in the message, nothing pending,
/// and the next launch works.
void expect_refused(const LaunchReport &rep, unsigned limiter, const std::string &asked, const std::string &allowed,
                    const char *what) {
  if (rep.error == cudaSuccess)
    GTEST_FAIL() << "launch_histogram with " << what
                 << " returned cudaSuccess: a launch that cannot fit one block must be refused";
  if (rep.limiter != limiter)
    GTEST_FAIL() << "launch_histogram with " << what << ": limiter is " << limiter_names(rep.limiter) << ", expected "
                 << limiter_names(limiter) << " (message: \"" << rep.message << "\")";
  if (rep.message.find(asked) == std::string::npos || rep.message.find(allowed) == std::string::npos)
    GTEST_FAIL() << "launch_histogram with " << what << ": the message \"" << rep.message
                 << "\" should name what was asked (" << asked << ") and what this GPU allows (" << allowed << ")";
  const cudaError_t pending = cudaGetLastError();
  if (pending != cudaSuccess)
    GTEST_FAIL() << "launch_histogram with " << what
                 << " left an error pending: cudaGetLastError() = " << cudaGetErrorName(pending);
  std::printf("refused as expected: %s -> %s\n", what, rep.message.c_str());
}

TEST_F(LaunchHistogram, TooManyThreadsIsReportedNotLaunched) {
  const int threads = 2 * device().max_threads_per_block;
  cudalab::DeviceBuffer<unsigned int> d_in, d_hist;
  CUDALAB_ASSERT_OK(d_in.upload(std::vector<unsigned int>(1000, 3)));
  CUDALAB_ASSERT_OK(d_hist.allocate(16));
  const LaunchReport rep = launch_histogram(d_in.get(), d_hist.get(), 1000, 16, threads, 4);
  expect_refused(rep, kLimitWarps, std::to_string(threads), std::to_string(device().max_threads_per_block),
                 (std::to_string(threads) + " threads per block").c_str());
  if (HasFailure()) return;
  LaunchReport ok;
  const std::string error = run(5000, 16, 256, 8, &ok);
  if (!error.empty()) GTEST_FAIL() << "after a refused launch: " << error;
}

TEST_F(LaunchHistogram, TooMuchSharedMemoryIsReportedNotLaunched) {
  const std::size_t limit = device().smem_per_block_optin;
  const unsigned int bins = static_cast<unsigned int>(limit / 4) + 1 + static_cast<unsigned int>(seed() % 1000);
  cudalab::DeviceBuffer<unsigned int> d_in, d_hist;
  CUDALAB_ASSERT_OK(d_in.upload(std::vector<unsigned int>(1000, 3)));
  CUDALAB_ASSERT_OK(d_hist.allocate(bins));
  const LaunchReport rep = launch_histogram(d_in.get(), d_hist.get(), 1000, bins, 256, 4);
  expect_refused(
      rep, kLimitSharedMemory, std::to_string(std::size_t(bins) * 4), std::to_string(limit),
      (std::to_string(bins) + " bins (" + std::to_string(std::size_t(bins) * 4) + " B of shared memory)").c_str());
  if (HasFailure()) return;
  LaunchReport ok;
  const std::string error = run(5000, 16, 256, 8, &ok);
  if (!error.empty()) GTEST_FAIL() << "after a refused launch: " << error;
}

}  // namespace

// FaultInjection.<function>_<case>: the generic error-reporting tests (tests/support/fault_injection.cuh)
// for the functions tests/ch03_03_resource_partitioning/grading.json declares in "reports_errors".
namespace {

const bool kFaultInjection = cudalab::testing::register_fault_injection({
    {"launch_histogram",
     [](const cudalab::testing::Run &run) {
       const unsigned int n = 100000, bins = 64;
       const std::vector<int> values = cudalab::random_ints(n, 0, 1 << 20, 7);
       cudalab::DeviceBuffer<unsigned int> in, hist;
       cudaError_t err = in.upload(std::vector<unsigned int>(values.begin(), values.end()));
       if (err == cudaSuccess) err = hist.allocate(bins);
       if (err == cudaSuccess) err = cudaMemset(hist.get(), 0, bins * sizeof(unsigned int));
       if (err != cudaSuccess) return err;
       return run([&] { return launch_histogram(in.get(), hist.get(), n, bins, 256, 32).error; });
     }},
});

}  // namespace
