// The checks every kernel gets (cudalab/launch_checks.hpp) can fail a kernel: a GPU test binary of
// the harness itself (ctest -L tools; 0 points, it belongs to no lab). A kernel that reads shared
// memory no thread wrote must see the poison word; an injected launch failure must be what the
// runtime reports; an injected kernel fault must reach the next synchronising call.
#include "cudalab/launch.cuh"
#include "cudalab/launch_checks.hpp"
#include "cudalab/launch_recorder.hpp"
#include "cudalab/testing.cuh"
#include "selftest_program.hpp"

#include <cstdint>
#include <vector>

CUDALAB_SELFTEST_PROGRAM("launch_checks_selftest")

namespace {

using namespace cudalab::testing;

/// out[i] = the word at s[i * stride] of the block's dynamic shared memory, which no thread wrote.
__global__ void readUnwrittenShared(std::uint32_t *out, unsigned int slots, unsigned int stride) {
  extern __shared__ std::uint32_t s_unwritten[];
  volatile std::uint32_t *s = s_unwritten;
  for (unsigned int i = threadIdx.x; i < slots; i += blockDim.x) out[i] = s[i * stride];
}

__global__ void writeOne(int *out) { *out = 1; }

class LaunchChecks : public cudalab::GpuTest {};

/// The words of the first block's dynamic shared memory (bytes of it, every stride-th word) as a
/// kernel that never writes them reads them.
std::vector<std::uint32_t> read_unwritten(std::size_t bytes, cudaError_t *err) {
  const unsigned int stride = 7, slots = static_cast<unsigned int>(bytes / 4 / stride);
  std::uint32_t *d = nullptr;
  std::vector<std::uint32_t> h(slots);
  *err = cudaMalloc(&d, slots * sizeof(std::uint32_t));
  if (*err == cudaSuccess) *err = cudaMemset(d, 0, slots * sizeof(std::uint32_t));
  if (*err == cudaSuccess)
    *err = cudaFuncSetAttribute(readUnwrittenShared, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
  // The fill's carveout (a hint): an SM reconfigured between the two kernels may lose the fill.
  if (*err == cudaSuccess)
    *err = cudaFuncSetAttribute(readUnwrittenShared, cudaFuncAttributePreferredSharedMemoryCarveout,
                                cudaSharedmemCarveoutMaxShared);
  if (*err == cudaSuccess) {
    cudalab::launch(readUnwrittenShared, 1, 256, bytes)(d, slots, stride);
    *err = cudaGetLastError();
  }
  if (*err == cudaSuccess) *err = cudaMemcpy(h.data(), d, slots * sizeof(std::uint32_t), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return h;
}

std::size_t count_not(const std::vector<std::uint32_t> &v, std::uint32_t word) {
  std::size_t n = 0;
  for (std::uint32_t x : v) n += x != word;
  return n;
}

// Run by ctest with CUDALAB_POISON_SHARED=1, as the labs' GPU correctness tests are.
TEST_F(LaunchChecks, UnwrittenSharedMemoryHoldsThePoisonWord) {
  ASSERT_TRUE(shared_memory_poison_enabled()) << "run with CUDALAB_POISON_SHARED=1 (ctest sets it)";
  int optin = 0;
  CUDALAB_ASSERT_OK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  for (std::size_t bytes : {std::size_t(1024), std::size_t(48 * 1024), static_cast<std::size_t>(optin)}) {
    cudalab::LaunchRecorder recorder;
    cudaError_t err = cudaSuccess;
    const std::vector<std::uint32_t> seen = read_unwritten(bytes, &err);
    CUDALAB_ASSERT_OK(err);
    EXPECT_EQ(count_not(seen, kSharedPoisonWord), 0u)
        << "shared memory not filled with the poison word (" << bytes << " B of dynamic shared memory; first word 0x"
        << std::hex << seen.at(0) << ")";
    EXPECT_EQ(recorder.launches().size(), 1u) << "the fill kernel must not be recorded";
  }
}

TEST_F(LaunchChecks, PoisonNextLaunchUsesItsWordOnce) {
  poison_next_launch(0x80000000u);
  cudaError_t err = cudaSuccess;
  std::vector<std::uint32_t> seen = read_unwritten(8 * 1024, &err);
  CUDALAB_ASSERT_OK(err);
  EXPECT_EQ(count_not(seen, 0x80000000u), 0u);
  {
    PoisonSharedMemory scope(0x12345678u);
    seen = read_unwritten(8 * 1024, &err);
    CUDALAB_ASSERT_OK(err);
    EXPECT_EQ(count_not(seen, 0x12345678u), 0u);
  }
}

TEST_F(LaunchChecks, FailLaunchesMakesTheRuntimeRefuseTheLaunch) {
  int *d = nullptr;
  CUDALAB_ASSERT_OK(cudaMalloc(&d, sizeof(int)));
  CUDALAB_ASSERT_OK(cudaMemset(d, 0, sizeof(int)));
  {
    FailLaunches fail(1);  // the second launch only
    cudalab::launch(writeOne, 1, 1)(d);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the first launch must not fail";
    cudalab::launch(writeOne, 1, 1)(d);
    EXPECT_NE(fail.error(), cudaSuccess) << "the runtime must refuse the launch";
    EXPECT_EQ(cudaGetLastError(), fail.error()) << "the runtime must record the injected failure";
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "cudaGetLastError() clears it";
    EXPECT_EQ(fail.seen(), 2);
    EXPECT_EQ(fail.failed(), 1);
  }
  CUDALAB_ASSERT_OK(cudaMemset(d, 0, sizeof(int)));
  {
    FailLaunches fail;
    cudalab::launch(writeOne, 1, 1)(d);
    EXPECT_NE(cudaPeekAtLastError(), cudaSuccess);
    EXPECT_EQ(cudaPeekAtLastError(), fail.error());
    (void)cudaGetLastError();
  }
  int h = -1;
  CUDALAB_ASSERT_OK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(h, 0) << "a failed launch must not run";
  cudalab::launch(writeOne, 1, 1)(d);  // no scope: launches work again
  CUDALAB_ASSERT_LAUNCH("writeOne");
  cudaFree(d);
}

TEST_F(LaunchChecks, FaultAfterLaunchesFaultsAsynchronously) {
  expect_sticky_error();
  int *d = nullptr;
  CUDALAB_ASSERT_OK(cudaMalloc(&d, sizeof(int)));
  int faults = 0;
  {
    FaultAfterLaunches fault;
    cudalab::launch(writeOne, 1, 1)(d);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the launch itself succeeds";
    faults = fault.faults();
  }
  EXPECT_EQ(faults, 1);
  EXPECT_NE(cudaDeviceSynchronize(), cudaSuccess) << "the injected fault must reach the next synchronising call";
}

}  // namespace
