// ch03_05 host tests: the occupancy calculator against the CUDA Toolkit's own calculator
// (cuda_occupancy.h, header-only, runs without a GPU) on synthetic devices of every compute capability in cudalab/arch.hpp,
// plus the cases where simple calculators go wrong, each derived by hand in its comment.
#include "occupancy.cuh"

#include "cudalab/apart.hpp"
#include "cudalab/testing.cuh"
#include "synthetic_device.hpp"

#include <cuda_occupancy.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <sstream>

namespace {

// Published limits (CUDA C++ Programming Guide, "Compute Capabilities"): tests/support/synthetic_device.hpp.
using cudalab::synthetic::Arch;
using cudalab::synthetic::kArchs;

SmLimits limits_of(const Arch &a) {
  SmLimits s;
  s.cc_major = a.major;
  s.cc_minor = a.minor;
  s.max_threads_per_sm = a.max_threads_per_sm;
  s.max_blocks_per_sm = a.max_blocks_per_sm;
  s.regs_per_sm = s.regs_per_block = 65536;
  s.smem_per_sm = a.smem_per_sm;
  s.smem_per_block = 49152;
  s.smem_per_block_optin = a.smem_optin;
  s.reserved_smem_per_block = a.reserved;
  s.smem_alloc_unit = a.major >= 8 ? 128 : 256;
  return s;
}

/// @brief Calls @p f(static_smem, dynamic_smem) for shared memory at each blocks-per-SM edge of
/// @p a (1 to @p max_blocks blocks) and one byte either side, with 0 or 1000 B of it static: where
/// every byte of a block's shared memory, the system's reservation too, decides the block count.
template <typename F>
void for_each_smem_edge(const Arch &a, int max_blocks, F f) {
  for (int blocks = 1; blocks <= max_blocks; ++blocks)
    for (std::size_t st : {std::size_t(0), std::size_t(1000)})
      for (int extra : {-1, 0, 1}) {
        const long long edge = static_cast<long long>(a.smem_per_sm / blocks / 128 * 128) -
                               static_cast<long long>(a.reserved) - static_cast<long long>(st) + extra;
        if (edge >= 0) f(st, static_cast<std::size_t>(edge));
      }
}

cudaOccDeviceProp occ_props(const Arch &a) {
  cudaOccDeviceProp p;
  p.computeMajor = a.major;
  p.computeMinor = a.minor;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsPerMultiprocessor = a.max_threads_per_sm;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.warpSize = 32;
  p.sharedMemPerBlock = 49152;
  p.sharedMemPerMultiprocessor = a.smem_per_sm;
  p.numSms = 100;
  p.sharedMemPerBlockOptin = a.smem_optin;
  p.reservedSharedMemPerBlock = a.reserved;
  return p;
}

cudaOccFuncAttributes occ_attrs(const KernelUsage &k) {
  cudaOccFuncAttributes f;
  f.maxThreadsPerBlock = k.max_threads_per_block > 0 ? k.max_threads_per_block : 1024;
  f.numRegs = k.regs_per_thread;
  f.sharedSizeBytes = k.static_smem;
  f.partitionedGCConfig = PARTITIONED_GC_OFF;
  f.shmemLimitConfig = k.smem_opt_in ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
  f.maxDynamicSharedSizeBytes = k.smem_opt_in ? k.dynamic_smem : 49152;
  f.numBlockBarriers = 0;
  return f;
}

std::string describe(const char *arch, const KernelUsage &k) {
  std::ostringstream os;
  os << arch << ": " << k.threads_per_block << " threads, " << k.regs_per_thread << " regs/thread, " << k.static_smem
     << " B static + " << k.dynamic_smem << " B dynamic shared memory" << (k.smem_opt_in ? " (opted in)" : "");
  return os.str();
}

constexpr unsigned kKnownLimiters = kLimitWarps | kLimitRegisters | kLimitSharedMemory | kLimitBlocks;

class MatchesCudaOcc : public cudalab::HostTest, public ::testing::WithParamInterface<Arch> {};

TEST_P(MatchesCudaOcc, BlocksAndLimiters) {
  const Arch &a = GetParam();
  const SmLimits sm = limits_of(a);
  const cudaOccDeviceProp props = occ_props(a);
  const cudaOccDeviceState state;
  int cases = 0, wrong = 0;
  std::string first;
  for (int threads : {32, 33, 64, 96, 100, 128, 192, 256, 288, 384, 512, 640, 768, 1024, 1025})
    for (int regs : {0, 16, 24, 32, 33, 37, 40, 48, 64, 72, 96, 128, 168, 255})
      for (std::size_t static_smem : {std::size_t(0), std::size_t(2048)})
        for (std::size_t dyn : {0, 1000, 4096, 12288, 20000, 46 * 1024, 49 * 1024, 100 * 1024, 200 * 1024})
          for (bool opt_in : {false, true}) {
            KernelUsage k{threads, regs, static_smem, dyn, opt_in, 0};
            cudaOccResult want;
            const cudaOccFuncAttributes attrs = occ_attrs(k);
            ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&want, &props, &attrs, &state, threads, dyn),
                      CUDA_OCC_SUCCESS);
            Occupancy got = compute_occupancy(sm, k);
            ++cases;
            unsigned want_lim = want.limitingFactors & kKnownLimiters;
            if (got.blocks_per_sm != want.activeBlocksPerMultiprocessor || got.limiters != want_lim) {
              if (wrong++ == 0) {
                std::ostringstream os;
                os << "compute_occupancy(" << describe(a.name, k) << "): expected "
                   << want.activeBlocksPerMultiprocessor << " blocks/SM limited by " << limiter_names(want_lim)
                   << ", got " << got.blocks_per_sm << " limited by " << limiter_names(got.limiters);
                first = os.str();
              }
            }
          }
  EXPECT_EQ(wrong, 0) << first << " (" << wrong << " of " << cases << " configurations differ from cuda_occupancy.h)";
}

TEST_P(MatchesCudaOcc, BestBlockSize) {
  const Arch &a = GetParam();
  const SmLimits sm = limits_of(a);
  const cudaOccDeviceProp props = occ_props(a);
  const cudaOccDeviceState state;
  for (int regs : {16, 32, 37, 40, 64, 72, 96, 128, 255})
    for (std::size_t dyn : {0, 4096, 12288, 40000})
      for (int kernel_limit : {0, 256, 640}) {
        KernelUsage k{0, regs, 0, dyn, false, kernel_limit};
        int min_grid = 0, want = 0;
        const cudaOccFuncAttributes attrs = occ_attrs(k);
        ASSERT_EQ(cudaOccMaxPotentialOccupancyBlockSize(&min_grid, &want, &props, &attrs, &state, nullptr, dyn),
                  CUDA_OCC_SUCCESS);
        int got = best_block_size(sm, k);
        ASSERT_EQ(got, want) << "best_block_size(" << a.name << ", " << regs << " regs/thread, " << dyn
                             << " B dynamic shared memory, kernel limit " << kernel_limit << " threads): expected "
                             << want << " (cudaOccMaxPotentialOccupancyBlockSize), got " << got;
      }
}

TEST_P(MatchesCudaOcc, RaggedShapesAndEveryLimitEdge) {
  // Fresh random shapes (seeded): any block size, register count, static and dynamic shared memory
  // (not multiples of any unit), kernel thread limits, opt-in or not; plus, for every k, the
  // largest block that still fits k per SM and one byte more, where the allocation unit and the
  // reservation decide between k and k - 1 blocks.
  const Arch &a = GetParam();
  const SmLimits sm = limits_of(a);
  const cudaOccDeviceProp props = occ_props(a);
  const cudaOccDeviceState state;
  std::mt19937_64 rng(seed());
  int cases = 0, wrong = 0;
  std::string first;
  auto check = [&](const KernelUsage &k) {
    cudaOccResult want;
    const cudaOccFuncAttributes attrs = occ_attrs(k);
    if (cudaOccMaxActiveBlocksPerMultiprocessor(&want, &props, &attrs, &state, k.threads_per_block, k.dynamic_smem) !=
        CUDA_OCC_SUCCESS)
      return;
    const Occupancy got = compute_occupancy(sm, k);
    const unsigned want_lim = want.limitingFactors & kKnownLimiters;
    const int want_warps = want.activeBlocksPerMultiprocessor * ((k.threads_per_block + 31) / 32);
    ++cases;
    if (got.blocks_per_sm != want.activeBlocksPerMultiprocessor || got.limiters != want_lim ||
        got.warps_per_sm != want_warps || got.occupancy != double(want_warps) / (a.max_threads_per_sm / 32)) {
      if (wrong++ == 0) {
        std::ostringstream os;
        os << "compute_occupancy(" << describe(a.name, k) << "): expected " << want.activeBlocksPerMultiprocessor
           << " blocks/SM, " << want_warps << " warps, limited by " << limiter_names(want_lim) << ", got "
           << got.blocks_per_sm << " blocks/SM, " << got.warps_per_sm << " warps, occupancy " << got.occupancy
           << ", limited by " << limiter_names(got.limiters);
        first = os.str();
      }
    }
  };
  for (int i = 0; i < 40000; ++i) {
    KernelUsage k;
    k.threads_per_block = 1 + static_cast<int>(rng() % 1100);
    k.regs_per_thread = static_cast<int>(rng() % 256);
    k.static_smem = rng() % 3 == 0 ? 0 : rng() % 16000;
    k.smem_opt_in = rng() % 2 == 0;
    const std::size_t limit = k.smem_opt_in ? a.smem_optin : 49152;
    k.dynamic_smem = rng() % 4 == 0 ? 0 : rng() % (limit + 2048);
    if (k.smem_opt_in && k.dynamic_smem <= 49152) k.dynamic_smem += 49152;  // opted in: above the default
    check(k);
  }
  for_each_smem_edge(a, a.max_blocks_per_sm, [&](std::size_t st, std::size_t dynamic) {
    for (int threads : {32, 64, 96}) check({threads, 32, st, dynamic, dynamic + st > 49152, 0});
  });
  // Exactly at the per-block limits and one byte over: 48 KB without opt-in, the opt-in limit with it.
  for (std::size_t st : {std::size_t(0), std::size_t(2048), std::size_t(3000)})
    for (bool opt_in : {false, true})
      for (int extra : {-1, 0, 1}) {
        const std::size_t limit = opt_in ? a.smem_optin : 49152;
        for (int threads : {64, 256, 1000}) check({threads, 40, st, limit - st + extra, opt_in, 0});
      }
  EXPECT_EQ(wrong, 0) << first << " (" << wrong << " of " << cases
                      << " configurations differ from cuda_occupancy.h, seed=" << seed() << ")";
}

TEST_P(MatchesCudaOcc, BestBlockSizeForRaggedKernelLimits) {
  // Brute force: every multiple of 32 up to the device's and the kernel's limit, most active warps
  // (cuda_occupancy.h), ties to the larger block; 0 if none can run. Kernel limits that are not
  // multiples of 32 (__launch_bounds__(100)), static shared memory, opt-in.
  const Arch &a = GetParam();
  const SmLimits sm = limits_of(a);
  const cudaOccDeviceProp props = occ_props(a);
  const cudaOccDeviceState state;
  std::mt19937_64 rng(seed());
  auto check = [&](const KernelUsage &k) {
    const int cap = k.max_threads_per_block > 0 ? std::min(1024, k.max_threads_per_block) : 1024;
    int want = 0, want_warps = 0;
    for (int t = 32; t <= cap; t += 32) {
      KernelUsage u = k;
      u.threads_per_block = t;
      const cudaOccFuncAttributes attrs = occ_attrs(u);
      cudaOccResult r;
      ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &props, &attrs, &state, t, k.dynamic_smem),
                CUDA_OCC_SUCCESS);
      const int warps = r.activeBlocksPerMultiprocessor * (t / 32);
      if (warps > 0 && warps >= want_warps) {
        want = t;
        want_warps = warps;
      }
    }
    const int got = best_block_size(sm, k);
    ASSERT_EQ(got, want) << "best_block_size(" << describe(a.name, k) << ", kernel limit " << k.max_threads_per_block
                         << " threads): expected " << want << " (" << want_warps
                         << " warps per SM; ties go to the larger block, 0 if no block size can run), got " << got
                         << " (seed=" << seed() << ")";
  };
  for (int i = 0; i < 400 && !HasFatalFailure(); ++i) {
    KernelUsage k;
    k.regs_per_thread = static_cast<int>(rng() % 256);
    k.static_smem = rng() % 2 == 0 ? 0 : rng() % 12000;
    k.smem_opt_in = rng() % 3 == 0;
    k.dynamic_smem = rng() % 3 == 0 ? 0 : rng() % (k.smem_opt_in ? a.smem_optin : 49152);
    const int limits[] = {0, 100, 200, 256, 500, 640, 1000, 32 + static_cast<int>(rng() % 1000)};
    k.max_threads_per_block = limits[rng() % 8];
    check(k);
  }
  // Few registers and shared memory at the edges of 1 to 8 blocks per SM: the block count, and so
  // the best block size, depends on every byte of it, whatever the seed.
  for_each_smem_edge(a, 8, [&](std::size_t st, std::size_t dynamic) {
    if (dynamic + st > a.smem_optin) return;
    for (int limit : {0, 256, 1000}) {
      if (HasFatalFailure()) return;
      KernelUsage k;
      k.regs_per_thread = 16;
      k.static_smem = st;
      k.dynamic_smem = dynamic;
      k.smem_opt_in = dynamic + st > 49152;
      k.max_threads_per_block = limit;
      check(k);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(OccupancyVsToolkit, MatchesCudaOcc, ::testing::ValuesIn(cudalab::synthetic::kJudgedArchs),
                         [](const auto &info) { return std::string(info.param.name); });

// The hand-derived cases. Each one is a trap for a calculator that divides totals.
class OccupancyModel : public cudalab::HostTest {};

const Arch &arch(const char *name) {
  for (const Arch &a : kArchs)
    if (std::string(name) == a.name) return a;
  return kArchs[0];
}

void expect_blocks(const char *a, KernelUsage k, int blocks, unsigned limiters) {
  Occupancy got = compute_occupancy(limits_of(arch(a)), k);
  EXPECT_EQ(got.blocks_per_sm, blocks) << "compute_occupancy(" << describe(a, k) << "): expected " << blocks
                                       << " blocks/SM, got " << got.blocks_per_sm;
  EXPECT_EQ(got.limiters, limiters) << "compute_occupancy(" << describe(a, k) << "): expected limiter "
                                    << limiter_names(limiters) << ", got " << limiter_names(got.limiters);
}

TEST_F(OccupancyModel, BookExampleIsRegisterLimited) {
  // 37 regs x 32 lanes = 1184 -> 1280 per warp; 16384 per sub-partition / 1280 = 12 warps, x4 = 48
  // warps per SM; 256 threads = 8 warps -> 6 blocks (shared memory would allow 45, warps 8).
  expect_blocks("sm_90", {256, 37, 4096, 0, false, 0}, 6, kLimitRegisters);
  EXPECT_DOUBLE_EQ(compute_occupancy(limits_of(arch("sm_90")), {256, 37, 4096, 0, false, 0}).occupancy, 0.75);
}

TEST_F(OccupancyModel, RegistersAreAllocatedPerWarpInUnitsOf256) {
  // 33 regs: 1056 per warp rounds up to 1280. 48 warps / 8 = 6 blocks, not 65536 / (33 x 256) = 7.
  expect_blocks("sm_90", {256, 33, 0, 0, false, 0}, 6, kLimitRegisters);
}

TEST_F(OccupancyModel, RegistersAreSplitAcrossFourSubPartitions) {
  // 96 regs: 3072 per warp. Each sub-partition (16384 regs) holds 5 such warps -> 20 per SM, not
  // 65536 / 3072 = 21. One-warp blocks: 20 blocks.
  expect_blocks("sm_90", {32, 96, 0, 0, false, 0}, 20, kLimitRegisters);
}

TEST_F(OccupancyModel, SharedMemoryReservationCountsPerBlock) {
  // sm_90 reserves 1 KB per block: 113 KB + 1 KB = 114 KB -> 228 KB / 114 KB = 2 blocks, but
  // 114 KB + 1 KB = 115 KB -> 1 block (without the reservation it would still be 2).
  expect_blocks("sm_90", {64, 16, 0, 113 * 1024, true, 0}, 2, kLimitSharedMemory);
  expect_blocks("sm_90", {64, 16, 0, 114 * 1024, true, 0}, 1, kLimitSharedMemory);
}

TEST_F(OccupancyModel, TinyBlocksHitTheBlockLimit) {
  // Turing: 32 warp slots but only 16 blocks per SM, so 1-warp blocks reach 50 % occupancy.
  expect_blocks("sm_75", {32, 16, 0, 0, false, 0}, 16, kLimitBlocks);
  EXPECT_DOUBLE_EQ(compute_occupancy(limits_of(arch("sm_75")), {32, 16, 0, 0, false, 0}).occupancy, 0.5);
}

TEST_F(OccupancyModel, ImpossibleLaunchesGiveZeroBlocks) {
  expect_blocks("sm_90", {1025, 16, 0, 0, false, 0}, 0, kLimitWarps);  // more than 1024 threads
  // 49 KB of dynamic shared memory without the opt-in exceeds the 48 KB default.
  expect_blocks("sm_90", {128, 16, 0, 49 * 1024, false, 0}, 0, kLimitSharedMemory);
  // 255 regs x 1024 threads: 8192 regs per warp x 32 warps > 65536 registers per block.
  expect_blocks("sm_90", {1024, 255, 0, 0, false, 0}, 0, kLimitRegisters);
  // 4 GiB of dynamic shared memory, opted in: far over any SM's. A byte count kept in 32 bits
  // wraps to a few hundred bytes and lets blocks in.
  expect_blocks("sm_90", {256, 16, 0, std::size_t(1) << 32, true, 0}, 0, kLimitSharedMemory);
  // The largest block the per-dimension limits allow to be asked for (1024 x 1024 x 64 threads) at
  // 255 registers: registers per block past 2^31, which 32-bit arithmetic overflows (the host
  // tests stop at a signed overflow). Zero blocks, whichever limits the model names.
  const KernelUsage huge{1 << 26, 255, 0, 0, false, 0};
  const Occupancy got = compute_occupancy(limits_of(arch("sm_90")), huge);
  EXPECT_EQ(got.blocks_per_sm, 0) << "compute_occupancy(" << describe("sm_90", huge) << "): expected 0 blocks/SM, got "
                                  << got.blocks_per_sm;
}

}  // namespace

// sm_limits_from_device on synthetic devices. The student's function asks the CUDA runtime; this
// test binary defines the runtime functions it may use (cudaGetDevice, cudaDeviceGetAttribute,
// cudaGetDeviceProperties) itself: a definition in the executable takes precedence over the shared
// CUDA runtime's (as in ch03_03's host tests), so the answers come from the synthetic device of
// the running test, on any machine. A model that reads the limits of the GPU it was written on
// and hard-codes the rest (128 B shared-memory units, right on sm_80+ only) fails on sm_75 here.
namespace {

const Arch *g_device = nullptr;  // the synthetic device answering the calls below (none: no GPU)
std::set<int> g_unknown;         // attributes asked for that it does not model

}  // namespace

namespace {
cudaError_t synthetic_cudaGetDevice(int *device) {
  *device = 0;
  if (cudaError_t e = cudalab::synthetic::injected_failure(); e != cudaSuccess) return e;
  return g_device ? cudaSuccess : cudaErrorNoDevice;
}
}  // namespace
cudaError_t cudaGetDevice(int *device) { return cudalab::apart::in_parent<&synthetic_cudaGetDevice>(device); }
namespace {
cudaError_t synthetic_cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  *value = 0;
  if (cudaError_t e = cudalab::synthetic::injected_failure(); e != cudaSuccess) return e;
  if (!g_device) return cudaErrorNoDevice;
  if (device != 0) return cudaErrorInvalidDevice;
  bool known = false;
  *value = cudalab::synthetic::attribute(*g_device, attr, &known);
  if (!known) g_unknown.insert(static_cast<int>(attr));
  return known ? cudaSuccess : cudaErrorInvalidValue;
}
}  // namespace
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  return cudalab::apart::in_parent<&synthetic_cudaDeviceGetAttribute>(value, attr, device);
}
namespace {
cudaError_t synthetic_cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  std::memset(prop, 0, sizeof *prop);
  if (cudaError_t e = cudalab::synthetic::injected_failure(); e != cudaSuccess) return e;
  if (!g_device) return cudaErrorNoDevice;
  if (device != 0) return cudaErrorInvalidDevice;
  cudalab::synthetic::properties(*g_device, prop);
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  return cudalab::apart::in_parent<&synthetic_cudaGetDeviceProperties>(prop, device);
}

namespace {

class SyntheticDevices : public cudalab::HostTest {
 protected:
  void TearDown() override {
    g_device = nullptr;
    cudalab::synthetic::call_failures() = {};
  }
};

TEST_F(SyntheticDevices, SmLimitsFromDeviceOnEveryArchitecture) {
  for (const Arch &a : kArchs) {
    g_device = &a;
    g_unknown.clear();
    SmLimits got;
    const cudaError_t err = sm_limits_from_device(0, &got);
    ASSERT_EQ(err, cudaSuccess) << "sm_limits_from_device(0) on a synthetic " << a.name << " returned "
                                << cudaGetErrorName(err);
    const SmLimits want = limits_of(a);
    std::ostringstream wrong;
    auto check = [&](const char *field, long long g, long long w) {
      if (g != w) wrong << "\n  " << field << " = " << g << ", expected " << w;
    };
    check("cc_major", got.cc_major, want.cc_major);
    check("cc_minor", got.cc_minor, want.cc_minor);
    check("warp_size", got.warp_size, want.warp_size);
    check("max_threads_per_block", got.max_threads_per_block, want.max_threads_per_block);
    check("max_threads_per_sm", got.max_threads_per_sm, want.max_threads_per_sm);
    check("max_blocks_per_sm", got.max_blocks_per_sm, want.max_blocks_per_sm);
    check("regs_per_sm", got.regs_per_sm, want.regs_per_sm);
    check("regs_per_block", got.regs_per_block, want.regs_per_block);
    check("max_regs_per_thread", got.max_regs_per_thread, want.max_regs_per_thread);
    check("reg_alloc_unit", got.reg_alloc_unit, want.reg_alloc_unit);
    check("sub_partitions", got.sub_partitions, want.sub_partitions);
    check("smem_per_sm", static_cast<long long>(got.smem_per_sm), static_cast<long long>(want.smem_per_sm));
    check("smem_per_block", static_cast<long long>(got.smem_per_block), static_cast<long long>(want.smem_per_block));
    check("smem_per_block_optin", static_cast<long long>(got.smem_per_block_optin),
          static_cast<long long>(want.smem_per_block_optin));
    check("reserved_smem_per_block", static_cast<long long>(got.reserved_smem_per_block),
          static_cast<long long>(want.reserved_smem_per_block));
    check("smem_alloc_unit", static_cast<long long>(got.smem_alloc_unit), static_cast<long long>(want.smem_alloc_unit));
    if (!wrong.str().empty()) {
      std::ostringstream unknown;
      for (int attr : g_unknown) unknown << " " << attr;
      ADD_FAILURE() << "sm_limits_from_device(0) on a synthetic " << a.name << " (compute capability " << a.major << "."
                    << a.minor << "):" << wrong.str()
                    << (g_unknown.empty() ? ""
                                          : "\n  (it also asked for attributes this synthetic device does not "
                                            "model, answered with cudaErrorInvalidValue:" +
                                                unknown.str() + ")");
    }
  }
}

TEST_F(SyntheticDevices, SmLimitsFromDeviceReturnsTheRuntimesError) {
  g_device = &cudalab::synthetic::arch_named("sm_90");
  SmLimits got;
  const cudaError_t err = sm_limits_from_device(3, &got);  // the synthetic machine has device 0 only
  EXPECT_NE(err, cudaSuccess) << "sm_limits_from_device(3) returned cudaSuccess on a machine with one GPU: "
                                 "return the first CUDA error";
}

// Every runtime call the function makes is made to fail in turn (the synthetic device answers the
// k-th call with cudaErrorInvalidValue): "returns the first CUDA error" means that error comes back,
// whichever call it was. A function that returns cudaSuccess after a failed query, or checks only
// some of its calls, fails here.
TEST_F(SyntheticDevices, EveryRuntimeErrorIsReturned) {
  g_device = &cudalab::synthetic::arch_named("sm_90");
  {
    const std::string problem = cudalab::synthetic::every_error_returned("sm_limits_from_device", [] {
      SmLimits sm;
      return sm_limits_from_device(0, &sm);
    });
    EXPECT_TRUE(problem.empty()) << problem;
  }
  {
    const std::string problem = cudalab::synthetic::every_error_returned("device_query", [] {
      DeviceReport r;
      return device_query(0, &r);
    });
    EXPECT_TRUE(problem.empty()) << problem;
  }
}

}  // namespace
