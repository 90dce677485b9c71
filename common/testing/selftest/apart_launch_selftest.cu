// Launchers in the worker of cudalab::apart (apart_launchers.cpp), on the host: a stand-in for
// the GPU's runtime in the test program (device memory is a buffer of the test program, a launch is
// recorded) shows what a launcher's calls carry from the worker: the `<<< >>>` configuration and
// each argument's bytes at the kernel's parameter offsets, copies both ways in chunks, waits,
// allocations; and that an address which is not device memory, or a kernel handle the test
// program did not give, is refused. The runtime's own side
// (the driver's parameter layouts, the real copies) runs in the GPU self-test common.apart_gpu.*.
#include "../apart_runtime.hpp"
#include "cudalab/apart.hpp"
#include "selftest_program.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

CUDALAB_SELFTEST_PROGRAM("apart_launch_selftest")

namespace {

/// Stands for a lab's kernel: never run here (the stand-in records its launch).
__global__ void scale(float *data, int n, double factor, char tag) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = static_cast<float>(data[i] * factor) + tag;
}

// ---- The stand-in runtime, in the test program ----
unsigned char device_memory[8 << 20];  // what the launchers are given as "device" buffers
struct Launch {
  const void *func;
  cudaKernel_t handle;
  dim3 grid, block;
  std::size_t shared;
  std::vector<unsigned char> arg0, arg1, arg2, arg3;
  int pid;
};
std::vector<Launch> launches;
int syncs = 0;
cudaKernel_t const kHandle = reinterpret_cast<cudaKernel_t>(std::uintptr_t{0x5ca1e});

bool is_device(const void *p) {
  const auto *c = static_cast<const unsigned char *>(p);
  return c >= device_memory && c < device_memory + sizeof device_memory;
}
bool layout(const void *, cudaKernel_t, std::uint32_t *count, std::uint32_t *offsets, std::uint32_t *sizes,
            std::uint32_t) {
  // scale(float *, int, double, char): the offsets and sizes the driver gives (for any kernel: the
  // test program, not this stand-in, decides what the worker may launch).
  const std::uint32_t o[] = {0, 8, 16, 24}, z[] = {8, 4, 8, 1};
  *count = 4;
  std::memcpy(offsets, o, sizeof o);
  std::memcpy(sizes, z, sizeof z);
  return true;
}
cudaError_t get_kernel(cudaKernel_t *handle, const void *func) {
  *handle = func == reinterpret_cast<const void *>(scale) ? kHandle : nullptr;
  return *handle ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}
cudaError_t launch(const void *func, cudaKernel_t handle, dim3 grid, dim3 block, void **args, std::size_t shared,
                   cudaStream_t, bool) {
  const auto bytes = [&](int i, std::size_t n) {
    const auto *p = static_cast<const unsigned char *>(args[i]);
    return std::vector<unsigned char>(p, p + n);
  };
  launches.push_back({func, handle, grid, block, shared, bytes(0, 8), bytes(1, 4), bytes(2, 8), bytes(3, 1),
                      static_cast<int>(getpid())});
  return cudaSuccess;
}
cudaError_t synchronize(int, void *) {
  ++syncs;
  return cudaSuccess;
}
cudaError_t copy(void *dst, const void *src, std::size_t n, cudaMemcpyKind) {
  std::memcpy(dst, src, n);
  return cudaSuccess;
}
cudaError_t no_symbol(const void *, const void *, std::size_t, std::size_t) { return cudaErrorInvalidSymbol; }
cudaError_t no_symbol_back(void *, const void *, std::size_t, std::size_t) { return cudaErrorInvalidSymbol; }
cudaError_t set(void *p, int v, std::size_t n) {
  std::memset(p, v, n);
  return cudaSuccess;
}
cudaError_t allocate(void **p, std::size_t n) {
  *p = n <= 4096 ? device_memory + (7 << 20) : nullptr;
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t release(void *) { return cudaSuccess; }

[[maybe_unused]] const bool kStandIn =
    (cudalab::apart::detail::set_parent_runtime(
         {layout, get_kernel, launch, synchronize, is_device, copy, no_symbol, no_symbol_back, set, allocate, release}),
     true);

// ---- "Lab functions": launchers, given device buffers ----

/// Launches scale<<<(n + 255) / 256, 256, 64>>> and waits; returns the worker's pid.
int launch_scale(float *d_data, int n) {
  scale<<<(n + 255) / 256, 256, 64>>>(d_data, n, 2.5, 'x');  // cudalab: a lab's launch (through its stub)
  cudaDeviceSynchronize();
  return static_cast<int>(getpid());
}

/// Copies @p n floats from a host array of its own into @p d_data, doubles them there by a copy
/// back and forth, and returns the sum it read back.
double round_trip(float *d_data, int n) {
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 1000);
  if (cudaMemcpy(d_data, h.data(), n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) return -1;
  std::vector<float> back(n, -1.0f);
  if (cudaMemcpy(back.data(), d_data, n * sizeof(float), cudaMemcpyDefault) != cudaSuccess) return -2;
  double sum = 0;
  for (float v : back) sum += v;
  return sum;
}

/// What a forger's launcher tries: a copy into memory of the test program that is not device memory.
cudaError_t copy_into(float *d_data, float *not_device) {
  (void)d_data;
  const float value = 1.0f;
  return cudaMemcpy(not_device, &value, sizeof value, cudaMemcpyHostToDevice);
}

/// What a forger's launcher tries: a launch by a kernel handle the test program never gave it
/// (one of the test program's own kernels, say).
cudaError_t launch_forged_handle(float *d_data) {
  void *args[] = {&d_data};
  return __cudaLaunchKernel(reinterpret_cast<cudaKernel_t>(std::uintptr_t{0xbad}), 1, 1, args, 0, nullptr);
}

/// Allocates, sets and frees through the test program; returns what it read back.
int allocate_and_set(float *d_data) {
  (void)d_data;
  void *p = nullptr;
  if (cudaMalloc(&p, 64) != cudaSuccess) return -1;
  if (cudaMemset(p, 7, 64) != cudaSuccess) return -2;
  unsigned char b[64] = {};
  if (cudaMemcpy(b, p, sizeof b, cudaMemcpyDeviceToHost) != cudaSuccess) return -3;
  if (cudaFree(p) != cudaSuccess) return -4;
  return b[0] + b[63];
}

}  // namespace

#define APART(f) \
  ::cudalab::apart::Apart<&f> { #f }

TEST(ApartLaunchers, ALaunchCarriesItsConfigurationAndEveryArgumentsBytes) {
  launches.clear();
  syncs = 0;
  auto *d = reinterpret_cast<float *>(device_memory);
  const int pid = APART(launch_scale)(d, 1000);
  ASSERT_NE(pid, static_cast<int>(getpid())) << "the launcher did not run in the worker";
  ASSERT_EQ(launches.size(), 1u);
  const Launch &l = launches[0];
  EXPECT_EQ(l.pid, static_cast<int>(getpid())) << "the launch was not made by the test program";
  EXPECT_EQ(l.handle, kHandle);
  EXPECT_EQ(l.grid.x, 4u);
  EXPECT_EQ(l.block.x, 256u);
  EXPECT_EQ(l.shared, 64u);
  float *p = nullptr;
  int n = 0;
  double factor = 0;
  std::memcpy(&p, l.arg0.data(), 8);
  std::memcpy(&n, l.arg1.data(), 4);
  std::memcpy(&factor, l.arg2.data(), 8);
  EXPECT_EQ(p, d);
  EXPECT_EQ(n, 1000);
  EXPECT_EQ(factor, 2.5);
  EXPECT_EQ(l.arg3[0], 'x');
  EXPECT_EQ(syncs, 1) << "cudaDeviceSynchronize was not the test program's";
}

TEST(ApartLaunchers, CopiesTravelBothWaysInChunks) {
  constexpr int n = (3 << 20) / 4 + 17;  // 3 MiB and a bit: four chunks each way
  std::memset(device_memory, 0, sizeof device_memory);
  double want = 0;
  for (int i = 0; i < n; ++i) want += i % 1000;
  EXPECT_EQ(APART(round_trip)(reinterpret_cast<float *>(device_memory), n), want);
  EXPECT_EQ(reinterpret_cast<float *>(device_memory)[n - 1], static_cast<float>((n - 1) % 1000))
      << "the copy did not reach the test program's device memory";
}

TEST(ApartLaunchers, AnAddressThatIsNotDeviceMemoryIsRefused) {
  static float judge_state = 0.0f;  // stands for the test program's own memory
  EXPECT_EQ(APART(copy_into)(reinterpret_cast<float *>(device_memory), &judge_state), cudaErrorInvalidValue);
  EXPECT_EQ(judge_state, 0.0f);
}

TEST(ApartLaunchers, AKernelHandleTheTestProgramDidNotGiveIsNotLaunched) {
  launches.clear();
  EXPECT_NE(APART(launch_forged_handle)(reinterpret_cast<float *>(device_memory)), cudaSuccess);
  EXPECT_TRUE(launches.empty());
}

TEST(ApartLaunchers, AllocationsSetsAndFreesAreTheTestPrograms) {
  EXPECT_EQ(APART(allocate_and_set)(reinterpret_cast<float *>(device_memory)), 14);
  EXPECT_EQ(device_memory[(7 << 20) + 5], 7) << "the set did not reach the test program's memory";
}
