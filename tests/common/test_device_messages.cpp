// Self-test of the messages a GPU test skips with where there is no usable GPU
// (cudalab::no_gpu_reason, common/src/device.cpp): each cause has its own message and fix -- no
// driver at all (a CI runner, a laptop without an NVIDIA GPU), a driver older than the runtime,
// no GPU visible -- and, on a machine without any driver, what gpu_available() says is the first.
// Also the readable form of the compiled-code checks' messages (ptx_code::detail::readable).
#include "ptx_code.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace cudalab {
// cudalab/device.cuh (a CUDA header; this file is C++)
bool gpu_available(std::string *why);
std::string no_gpu_reason(cudaError_t err, int device_count, int driver_version, int runtime_version);
}  // namespace cudalab

namespace {

bool has(const std::string &text, const char *part) { return text.find(part) != std::string::npos; }

TEST(DeviceMessages, EachCauseHasItsOwnMessageAndFix) {
  const std::string none = cudalab::no_gpu_reason(cudaErrorInsufficientDriver, 0, 0, 13000);
  EXPECT_EQ(none.rfind("no NVIDIA driver on this machine", 0), 0u) << none;
  EXPECT_TRUE(has(none, "tools/doctor.py") && !has(none, "update the driver")) << none;
  const std::string old = cudalab::no_gpu_reason(cudaErrorInsufficientDriver, 0, 12020, 13000);
  EXPECT_EQ(old.rfind("the NVIDIA driver supports CUDA 12.2, older than this build's CUDA runtime 13.0", 0), 0u) << old;
  EXPECT_TRUE(has(old, "update the driver")) << old;
  const std::string hidden = cudalab::no_gpu_reason(cudaErrorNoDevice, 0, 13000, 13000);
  EXPECT_EQ(hidden.rfind("no CUDA GPU visible", 0), 0u) << hidden;
  EXPECT_TRUE(has(hidden, "CUDA_VISIBLE_DEVICES")) << hidden;
}

TEST(DeviceMessages, WithoutAnyDriverGpuAvailableSaysSo) {
  int driver = -1;
  cudaDriverGetVersion(&driver);
  if (driver != 0) GTEST_SKIP() << "an NVIDIA driver is installed here: no such case";
  std::string why;
  EXPECT_FALSE(cudalab::gpu_available(&why));
  EXPECT_EQ(why.rfind("no NVIDIA driver on this machine", 0), 0u) << why;
}

TEST(CompiledCodeMessages, KernelNamesDemangledAndPtxWithoutTabs) {
  EXPECT_EQ(ptx_code::detail::readable("_Z17reduceInterleavedPiS_j: the branch `@%p3 bra \t$L__BB0_3;`"),
            "reduceInterleaved(int*, int*, unsigned int): the branch `@%p3 bra $L__BB0_3;`");
  EXPECT_EQ(ptx_code::detail::readable("x_Z1y _Znot_a_name"), "x_Z1y _Znot_a_name");  // left as it is
}

}  // namespace
