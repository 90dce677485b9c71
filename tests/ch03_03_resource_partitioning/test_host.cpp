// ch03_03 host tests: predict_residency and launch_histogram's refusals on synthetic devices of
// every compute capability in cudalab/arch.hpp (sm_75 to sm_120), without a GPU.
//
// The student's code asks the CUDA runtime for the device's limits and the kernel's attributes.
// This test binary defines those runtime functions itself (cudaGetDevice, cudaDeviceGetAttribute,
// cudaGetDeviceProperties, cudaFuncGetAttributes, cudaFuncSetAttribute, cudaGetLastError,
// cudaPeekAtLastError, cudaOccupancyMaxActiveBlocksPerMultiprocessor[WithFlags]): a definition in
// the executable takes precedence over the shared CUDA runtime's, so every call the lab makes is
// answered by the synthetic device below. Each answer is then checked against the CUDA Toolkit's
// own calculator (cuda_occupancy.h) for the same device, over ragged block sizes, every register
// count class, static/dynamic shared memory around every limit, __launch_bounds__ limits and
// opted-in shared memory. A model that is right only for the GPU it was written on (a hard-coded
// 1 KB reservation, no 256 B unit on Turing, 2048 threads per SM, 32 blocks per SM) fails here.
#include "resources.cuh"

#include "cudalab/apart.hpp"
#include "cudalab/testing.cuh"
#include "synthetic_device.hpp"

#include <cuda_occupancy.h>

#include <climits>
#include <cstring>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using cudalab::synthetic::Arch;
using cudalab::synthetic::kArchs;
using cudalab::synthetic::kRegsPerBlock;
using cudalab::synthetic::kRegsPerSm;
using cudalab::synthetic::kSmemPerBlock;
using cudalab::synthetic::kSms;

/// What the synthetic runtime answers (one test at a time).
struct FakeRuntime {
  const Arch *arch = &kArchs[0];
  cudaFuncAttributes func{};         ///< attributes of any kernel except histogramShared
  cudaFuncAttributes histogram{};    ///< attributes of histogramShared
  std::set<int> unknown_attributes;  ///< attributes asked for that this device does not model
  int set_attribute_calls = 0;       ///< cudaFuncSetAttribute calls
} g_fake;

int attribute_value(cudaDeviceAttr attr, bool *known) {
  return cudalab::synthetic::attribute(*g_fake.arch, attr, known);
}

cudaOccDeviceProp occ_props(const Arch &a) {
  cudaOccDeviceProp p;
  p.computeMajor = a.major;
  p.computeMinor = a.minor;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsPerMultiprocessor = a.max_threads_per_sm;
  p.regsPerBlock = kRegsPerBlock;
  p.regsPerMultiprocessor = kRegsPerSm;
  p.warpSize = 32;
  p.sharedMemPerBlock = kSmemPerBlock;
  p.sharedMemPerMultiprocessor = a.smem_per_sm;
  p.numSms = kSms;
  p.sharedMemPerBlockOptin = a.smem_optin;
  p.reservedSharedMemPerBlock = a.reserved;
  return p;
}

const cudaFuncAttributes &attributes_of(const void *func) {
  return func == reinterpret_cast<const void *>(histogramShared) ? g_fake.histogram : g_fake.func;
}

}  // namespace

// The synthetic runtime. Only what a residency model and a launcher's checks may ask for. The queries
// can be made to fail one at a time (cudalab::synthetic::injected_failure, RuntimeErrors below).
namespace {
cudaError_t synthetic_cudaGetDevice(int *device) {
  *device = 0;
  if (cudaError_t e = cudalab::synthetic::injected_failure(); e != cudaSuccess) return e;
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaGetDevice(int *device) { return cudalab::apart::in_parent<&synthetic_cudaGetDevice>(device); }
namespace {
cudaError_t synthetic_cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  bool known = false;
  *value = attribute_value(attr, &known);
  if (cudaError_t e = cudalab::synthetic::injected_failure(); e != cudaSuccess) return e;
  if (device != 0) return cudaErrorInvalidDevice;
  if (!known) {
    g_fake.unknown_attributes.insert(static_cast<int>(attr));
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  return cudalab::apart::in_parent<&synthetic_cudaDeviceGetAttribute>(value, attr, device);
}
namespace {
cudaError_t synthetic_cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  cudalab::synthetic::properties(*g_fake.arch, prop);
  if (cudaError_t e = cudalab::synthetic::injected_failure(); e != cudaSuccess) return e;
  return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}
}  // namespace
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  return cudalab::apart::in_parent<&synthetic_cudaGetDeviceProperties>(prop, device);
}
namespace {
cudaError_t synthetic_cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func) {
  *attr = attributes_of(func);
  if (cudaError_t e = cudalab::synthetic::injected_failure(); e != cudaSuccess) return e;
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func) {
  return cudalab::apart::in_parent<&synthetic_cudaFuncGetAttributes>(attr, func);
}
namespace {
cudaError_t synthetic_cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value) {
  ++g_fake.set_attribute_calls;
  cudaFuncAttributes &fa = func == reinterpret_cast<const void *>(histogramShared) ? g_fake.histogram : g_fake.func;
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || static_cast<std::size_t>(value) + fa.sharedSizeBytes > std::size_t(g_fake.arch->smem_optin))
      return cudaErrorInvalidValue;
    fa.maxDynamicSharedSizeBytes = value;
  }
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value) {
  return cudalab::apart::in_parent<&synthetic_cudaFuncSetAttribute>(func, attr, value);
}
namespace {
cudaError_t synthetic_cudaGetLastError() { return cudaSuccess; }
}  // namespace
cudaError_t cudaGetLastError() { return cudalab::apart::in_parent<&synthetic_cudaGetLastError>(); }
namespace {
cudaError_t synthetic_cudaPeekAtLastError() { return cudaSuccess; }
}  // namespace
cudaError_t cudaPeekAtLastError() { return cudalab::apart::in_parent<&synthetic_cudaPeekAtLastError>(); }
namespace {
cudaError_t synthetic_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func, int threads,
                                                                             size_t dyn, unsigned int p4) {
  if (cudaError_t e = cudalab::synthetic::injected_failure(); e != cudaSuccess) return e;
  const cudaOccDeviceProp props = occ_props(*g_fake.arch);
  const cudaOccFuncAttributes attrs(attributes_of(func));
  const cudaOccDeviceState state;
  cudaOccResult r;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &props, &attrs, &state, threads, dyn) != CUDA_OCC_SUCCESS)
    return cudaErrorInvalidValue;
  *blocks = r.activeBlocksPerMultiprocessor;
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func, int threads,
                                                                   size_t dyn, unsigned int p4) {
  return cudalab::apart::in_parent<&synthetic_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags>(blocks, func,
                                                                                                      threads, dyn, p4);
}
namespace {
cudaError_t synthetic_cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int threads,
                                                                    size_t dyn) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, threads, dyn, 0);
}
}  // namespace
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int threads, size_t dyn) {
  return cudalab::apart::in_parent<&synthetic_cudaOccupancyMaxActiveBlocksPerMultiprocessor>(blocks, func, threads,
                                                                                             dyn);
}

namespace {

/// A kernel as the compiler and the runtime would describe it.
cudaFuncAttributes kernel_attributes(int regs, std::size_t static_smem, int max_threads, int max_dynamic) {
  cudaFuncAttributes fa{};
  fa.numRegs = regs;
  fa.sharedSizeBytes = static_smem;
  fa.maxThreadsPerBlock = max_threads;
  fa.maxDynamicSharedSizeBytes = max_dynamic;
  fa.ptxVersion = fa.binaryVersion = 75;
  return fa;
}

std::string describe(const Arch &a, const cudaFuncAttributes &fa, int threads, std::size_t dyn) {
  std::ostringstream os;
  os << "synthetic " << a.name << ", kernel with " << fa.numRegs << " regs/thread, " << fa.sharedSizeBytes
     << " B static shared memory, maxThreadsPerBlock " << fa.maxThreadsPerBlock << ", maxDynamicSharedSizeBytes "
     << fa.maxDynamicSharedSizeBytes << "; launched with " << threads << " threads and " << dyn
     << " B dynamic shared memory";
  return os.str();
}

// Stand-ins for device buffers: a refused launch never touches them (n = 0 in any case).
unsigned int g_dummy_in[16], g_dummy_hist[16];

constexpr unsigned kKnown = kLimitWarps | kLimitRegisters | kLimitSharedMemory | kLimitBlocks;

class SyntheticDevice : public cudalab::HostTest, public ::testing::WithParamInterface<Arch> {
 protected:
  void SetUp() override {
    cudalab::HostTest::SetUp();
    g_fake = FakeRuntime{};
    g_fake.arch = &GetParam();
  }
  /// Fails with the attributes asked for that the synthetic device does not model, if any.
  void expect_only_known_attributes() {
    for (int attr : g_fake.unknown_attributes)
      ADD_FAILURE() << "the code asked for device attribute " << attr
                    << " (cudaDeviceAttr), which a residency model does not need and this test does not model";
  }
};

TEST_P(SyntheticDevice, ResidencyMatchesTheToolkitCalculator) {
  const Arch &a = GetParam();
  const cudaOccDeviceProp props = occ_props(a);
  const cudaOccDeviceState state;
  std::mt19937_64 rng(seed());
  const int max_warps = a.max_threads_per_sm / 32;

  std::vector<int> threads_list = {1,   31,  32,  33,  64,  96,  100,  128,  160,  192, 224, 256,
                                   288, 320, 352, 384, 416, 480, 500,  512,  544,  640, 672, 736,
                                   768, 800, 896, 928, 960, 992, 1000, 1024, 1025, 2048};
  std::vector<int> regs_list = {0, 16, 24, 32, 33, 37, 40, 56, 64, 65, 72, 96, 128, 168, 255};
  for (int i = 0; i < 4; ++i) threads_list.push_back(1 + static_cast<int>(rng() % 1024));
  for (int i = 0; i < 3; ++i) regs_list.push_back(1 + static_cast<int>(rng() % 255));
  // Static shared memory: none, 2 KB, 12 KB, and odd sizes (not a multiple of any allocation unit).
  const std::size_t statics[] = {0, 2048, 12288, 3000, 1 + rng() % 20000};
  // Kernel thread limits: none, __launch_bounds__ of 128, 256, 640 and a ragged one.
  const int max_threads_list[] = {1024, 128, 256, 640, 96 + 32 * static_cast<int>(rng() % 20)};

  long long cases = 0, wrong = 0;
  std::string first;
  // One call as every other test makes it: each runtime question answered by this program, so
  // that the attributes asked for are recorded here (expect_only_known_attributes below).
  {
    g_fake.func = kernel_attributes(32, 0, 1024, kSmemPerBlock);
    Residency got;
    (void)predict_residency(reinterpret_cast<const void *>(&g_fake), 256, 0, &got);
  }
  // The sweep: millions of calls in the lab's own process (cudalab/apart.hpp), a kernel's
  // configurations at a time, the runtime questions answered there from a copy of what this
  // program's synthetic device answers.
  const cudalab::apart::LocalAnswers local{{&g_fake.arch, sizeof g_fake.arch},
                                           {&g_fake.func, sizeof g_fake.func},
                                           {&g_fake.histogram, sizeof g_fake.histogram}};
  for (std::size_t st : statics) {
    // Not opted in (48 KB - static) and opted in to the device's limit or to a ragged amount above 48 KB.
    const int default_dyn = kSmemPerBlock - static_cast<int>(st);
    const int optin_dyn = a.smem_optin - static_cast<int>(st);
    const int ragged_dyn = kSmemPerBlock + static_cast<int>(rng() % (a.smem_optin - kSmemPerBlock + 1)) - int(st);
    for (int max_dyn : {default_dyn, optin_dyn, ragged_dyn}) {
      std::vector<std::size_t> dyns = {0,     1,     1000,      4096,      8192,       12288,
                                       20000, 40000, 46 * 1024, 49 * 1024, 100 * 1024, 200 * 1024};
      for (int edge : {default_dyn, optin_dyn, ragged_dyn, a.smem_per_sm / 2, a.smem_per_sm / 3, a.smem_per_sm / 7})
        for (int d : {edge - a.reserved - 1, edge - 1, edge, edge + 1})
          if (d >= 0) dyns.push_back(std::size_t(d));
      // The largest block (allocation unit of 128 B) that still fits k per SM, and one byte more:
      // where the allocation unit and the reservation decide between k and k - 1 blocks.
      for (int k = 1; k <= a.max_blocks_per_sm; ++k) {
        const int d = a.smem_per_sm / k / 128 * 128 - a.reserved - static_cast<int>(st);
        if (d >= 0) dyns.insert(dyns.end(), {std::size_t(d), std::size_t(d) + 1});
      }
      dyns.push_back(rng() % (a.smem_optin + 1));
      for (int max_threads : max_threads_list)
        for (int regs : regs_list) {
          g_fake.func = kernel_attributes(regs, st, max_threads, max_dyn);
          const cudaOccFuncAttributes occ_attr(g_fake.func);
          // This kernel's configurations in one visit to the lab's process (cudalab::apart::each).
          std::vector<Residency> gots(threads_list.size() * dyns.size());
          std::vector<std::tuple<const void *, int, std::size_t, Residency *>> calls;
          calls.reserve(gots.size());
          for (int threads : threads_list)
            for (std::size_t dyn : dyns)
              calls.emplace_back(reinterpret_cast<const void *>(&g_fake), threads, dyn, &gots[calls.size()]);
          const std::vector<cudaError_t> errs = cudalab::apart::each<&::predict_residency>("predict_residency", calls);
          std::size_t at = 0;
          for (int threads : threads_list)
            for (std::size_t dyn : dyns) {
              const Residency &got = gots[at];
              const cudaError_t err = errs[at++];
              cudaOccResult want;
              ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&want, &props, &occ_attr, &state, threads, dyn),
                        CUDA_OCC_SUCCESS);
              // cuda_occupancy.h does not apply the kernel's own thread limit (__launch_bounds__):
              // such a block cannot run (README), 0 blocks with warps among the limiters.
              const bool over_kernel_limit = threads > max_threads;
              if (over_kernel_limit) {
                want.activeBlocksPerMultiprocessor = 0;
                want.limitingFactors = kLimitWarps;
              }
              const int want_warps = want.activeBlocksPerMultiprocessor * ((threads + 31) / 32);
              const unsigned want_lim = want.limitingFactors & kKnown;
              ++cases;
              const bool ok = err == cudaSuccess && got.blocks_per_sm == want.activeBlocksPerMultiprocessor &&
                              got.warps_per_sm == want_warps &&
                              (over_kernel_limit ? (got.limiters & kLimitWarps) != 0 : got.limiters == want_lim) &&
                              got.occupancy == double(want_warps) / max_warps && got.regs_per_thread == regs &&
                              got.static_smem == st && got.dynamic_smem == dyn;
              if (!ok && wrong++ == 0) {
                std::ostringstream os;
                os << "predict_residency(" << describe(a, g_fake.func, threads, dyn) << "): expected "
                   << want.activeBlocksPerMultiprocessor << " blocks/SM, " << want_warps << " warps, occupancy "
                   << double(want_warps) / max_warps << ", limited by " << limiter_names(want_lim)
                   << (over_kernel_limit ? " (more threads than the kernel allows)" : " (cuda_occupancy.h)")
                   << ", got ";
                if (err != cudaSuccess)
                  os << "error " << cudaGetErrorName(err);
                else
                  os << got.blocks_per_sm << " blocks/SM, " << got.warps_per_sm << " warps, occupancy " << got.occupancy
                     << ", limited by " << limiter_names(got.limiters) << " (regs " << got.regs_per_thread
                     << ", static " << got.static_smem << " B, dynamic " << got.dynamic_smem << " B)";
                first = os.str();
              }
            }
        }
    }
  }
  expect_only_known_attributes();
  std::printf("[ CUDALAB  ] %s: %lld configurations compared with cuda_occupancy.h\n", a.name, cases);
  EXPECT_EQ(wrong, 0) << first << "; " << wrong << " of " << cases << " configurations differ (seed=" << seed() << ")";
}

TEST_P(SyntheticDevice, LaunchHistogramRefusesWhatThisDeviceCannotHold) {
  const Arch &a = GetParam();
  // histogramShared as the compiler builds it: few registers, no static shared memory, not opted in.
  g_fake.histogram = kernel_attributes(18, 0, 1024, kSmemPerBlock);
  // More shared memory than this device's opt-in limit: refused, naming both numbers. These
  // launches are refused before anything reaches the (absent) GPU. The last two need 2^32 bytes
  // and more: a byte count computed in 32 bits wraps to 0 or to a small number and would launch.
  std::mt19937_64 rng(seed());
  const unsigned int optin_bins = static_cast<unsigned int>(a.smem_optin / 4);
  for (unsigned int bins :
       {optin_bins + 1u, optin_bins + 2u + static_cast<unsigned int>(rng() % 5000), 1u << 30, 0xFFFFFFFFu}) {
    const LaunchReport rep = launch_histogram(g_dummy_in, g_dummy_hist, 0, bins, 256, 4);
    const std::string asked = std::to_string(std::size_t(bins) * 4), allowed = std::to_string(a.smem_optin);
    if (rep.error == cudaSuccess || rep.limiter != kLimitSharedMemory || rep.message.find(asked) == std::string::npos ||
        rep.message.find(allowed) == std::string::npos)
      ADD_FAILURE() << "launch_histogram on synthetic " << a.name << " (opt-in limit " << a.smem_optin << " B) with "
                    << bins << " bins (" << asked << " B): expected a refusal with limiter shared memory and a message "
                    << "naming " << asked << " and " << allowed << "; got error " << cudaGetErrorName(rep.error)
                    << ", limiter " << limiter_names(rep.limiter) << ", message \"" << rep.message << "\"";
  }
  // One thread more than the device allows: refused, naming both numbers.
  const LaunchReport rep = launch_histogram(g_dummy_in, g_dummy_hist, 0, 16, 1025, 4);
  if (rep.error == cudaSuccess || rep.limiter != kLimitWarps || rep.message.find("1025") == std::string::npos ||
      rep.message.find("1024") == std::string::npos)
    ADD_FAILURE() << "launch_histogram on synthetic " << a.name
                  << " with 1025 threads per block (the device allows 1024): expected a refusal with limiter warps "
                     "naming 1025 and 1024; got error "
                  << cudaGetErrorName(rep.error) << ", limiter " << limiter_names(rep.limiter) << ", message \""
                  << rep.message << "\"";
  expect_only_known_attributes();
}

INSTANTIATE_TEST_SUITE_P(SyntheticDevices, SyntheticDevice, ::testing::ValuesIn(cudalab::synthetic::kJudgedArchs),
                         [](const auto &info) { return std::string(info.param.name); });

// Every runtime query predict_residency makes is made to fail in turn: "returns the first CUDA
// error" means that error comes back, whichever query it was (a model that returns cudaSuccess
// after a failed cudaFuncGetAttributes, or checks only some of its calls, fails here).
class RuntimeErrors : public cudalab::HostTest {
 protected:
  void TearDown() override {
    g_fake = FakeRuntime{};
    cudalab::synthetic::call_failures() = {};
  }
};

TEST_F(RuntimeErrors, PredictResidencyReturnsEveryRuntimeError) {
  g_fake = FakeRuntime{};
  g_fake.arch = &cudalab::synthetic::arch_named("sm_90");
  g_fake.func = kernel_attributes(32, 1024, 1024, 48 * 1024 - 1024);
  {
    const std::string problem = cudalab::synthetic::every_error_returned("predict_residency", [] {
      Residency r;
      return predict_residency(g_dummy_in, 256, 4096, &r);
    });
    EXPECT_TRUE(problem.empty()) << problem;
  }
}

}  // namespace
