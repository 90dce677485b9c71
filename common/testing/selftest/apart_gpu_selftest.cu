// cudalab::apart (cudalab/apart.hpp) in a GPU test program (CUDALAB_APART_GPU): a lab's device
// query or model runs in the worker, and the CUDA runtime functions it asks are answered by the
// test program (apart_runtime.cpp) with the same results as a direct call; the worker itself
// cannot reach the GPU or a file; a function given a device buffer (a launcher) runs in the test
// program, or, built with CUDALAB_APART_LAUNCHERS (cudalab_apart_gpu_launch_selftest), in the
// worker, its launch and copies made by the test program. The functions below stand for a lab's.
// 0 points; skipped without a GPU.
#include "cudalab/apart.hpp"
#include "cudalab/launch.cuh"
#include "cudalab/launch_checks.hpp"
#include "cudalab/testing.cuh"
#include "selftest_program.hpp"

#include <cuda_runtime.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

CUDALAB_SELFTEST_PROGRAM("apart_gpu_selftest")

namespace {

__global__ void fill_kernel(int *out, int value) { out[threadIdx.x] = value; }

/// What a lab's device query reads of the runtime, in one struct.
struct Seen {
  cudaError_t props_error, attr_error, occupancy_error, func_error, last_error;
  int sm_count, sm_count_attribute, blocks_per_sm, registers, runtime_version;
  char name[256];
  int pid;
};

Seen ask_the_runtime(int device) {
  Seen s{};
  cudaDeviceProp p{};
  s.props_error = cudaGetDeviceProperties(&p, device);
  s.sm_count = p.multiProcessorCount;
  std::memcpy(s.name, p.name, sizeof s.name);
  s.attr_error = cudaDeviceGetAttribute(&s.sm_count_attribute, cudaDevAttrMultiProcessorCount, device);
  s.occupancy_error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&s.blocks_per_sm, fill_kernel, 256, 0);
  cudaFuncAttributes a{};
  s.func_error = cudaFuncGetAttributes(&a, fill_kernel);
  s.registers = a.numRegs;
  cudaRuntimeGetVersion(&s.runtime_version);
  s.last_error = cudaGetLastError();
  s.pid = static_cast<int>(getpid());
  return s;
}

/// A device query that starts the way old examples do (cudaFree(0) and a wait, to make the
/// context) and selects the device: the test program serves all of it.
int count_after_init() {
  if (cudaFree(nullptr) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess || cudaSetDevice(0) != cudaSuccess)
    return -1;
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : -2;
}

/// What a forger would try from the worker: the GPU's device file, a file of its own (errno).
int open_the_gpu() {
  const int fd = open("/dev/nvidiactl", O_RDWR);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  return errno;
}
int open_a_file() {
  const int fd = open("/tmp/cudalab_apart_gpu_selftest_forged", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  return errno;
}

/// A launcher: given a device buffer, it runs in the test program, or in the worker where launchers
/// run apart (its pid comes back); it launches through the kernel's stub, as a lab's code does,
/// copies a value in and back, and waits.
int launch_fill(int *d_out, int value) {
  fill_kernel<<<1, 32>>>(d_out, value);  // cudalab: a lab's launch (through its stub)
  int first = 0;
  if (cudaMemcpy(&first, d_out, sizeof first, cudaMemcpyDeviceToHost) != cudaSuccess || first != value) return -1;
  if (cudaDeviceSynchronize() != cudaSuccess) return -2;
  return static_cast<int>(getpid());
}

}  // namespace

#define APART(f) \
  ::cudalab::apart::Apart<&f> { #f }

class ApartGpu : public cudalab::GpuTest {};

TEST_F(ApartGpu, DeviceQueriesInTheWorkerSeeWhatTheTestProgramSees) {
  const Seen direct = ask_the_runtime(0);
  const Seen apart = APART(ask_the_runtime)(0);
  ASSERT_NE(apart.pid, static_cast<int>(getpid())) << "the query did not run in the worker";
  EXPECT_EQ(apart.props_error, cudaSuccess);
  EXPECT_EQ(apart.attr_error, cudaSuccess);
  EXPECT_EQ(apart.occupancy_error, cudaSuccess);
  EXPECT_EQ(apart.func_error, cudaSuccess);
  EXPECT_EQ(apart.last_error, cudaSuccess);
  EXPECT_EQ(apart.sm_count, direct.sm_count);
  EXPECT_EQ(apart.sm_count_attribute, direct.sm_count_attribute);
  EXPECT_EQ(apart.blocks_per_sm, direct.blocks_per_sm);
  EXPECT_EQ(apart.registers, direct.registers);
  EXPECT_EQ(apart.runtime_version, direct.runtime_version);
  EXPECT_EQ(std::string(apart.name), std::string(direct.name));
  EXPECT_GT(apart.sm_count, 0);
}

TEST_F(ApartGpu, AQueryThatInitialisesTheContextWorksInTheWorker) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(APART(count_after_init)(), count);
}

TEST_F(ApartGpu, TheWorkerReachesNeitherTheGpuNorAFile) {
  EXPECT_EQ(APART(open_the_gpu)(), EPERM);
  EXPECT_EQ(APART(open_a_file)(), EPERM);
}

TEST_F(ApartGpu, ALauncherRunsWhereItShouldAndItsKernelRuns) {
  int *d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 32 * sizeof(int)), cudaSuccess);
  const int pid = APART(launch_fill)(d, 7);
#ifdef CUDALAB_APART_LAUNCHERS  // in the worker, its launch made by the test program
  if (!cudalab::apart::detail::launchers_apart()) GTEST_SKIP() << "the driver gives no parameter layouts (before 12.4)";
  EXPECT_NE(pid, static_cast<int>(getpid()));
#else  // in the test program
  EXPECT_EQ(pid, static_cast<int>(getpid()));
#endif
  int h[32] = {};
  ASSERT_EQ(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  for (int i = 0; i < 32; ++i) ASSERT_EQ(h[i], 7) << "at " << i;
}
