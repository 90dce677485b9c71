// Self-test of the message a GPU test skips with where there is no usable GPU
// (cudalab::gpu_available, common/src/device.cpp): without any NVIDIA driver (a CI runner, a laptop
// without an NVIDIA GPU) it says so and where to look, not "update the driver". On a machine with
// a driver the case does not arise and the test is skipped.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace cudalab {
bool gpu_available(std::string *why);  // cudalab/device.cuh (a CUDA header; this file is C++)
}  // namespace cudalab

namespace {

TEST(DeviceMessages, NoDriverSaysSoAndWhereToLook) {
  int driver = -1;
  cudaDriverGetVersion(&driver);
  if (driver != 0) GTEST_SKIP() << "an NVIDIA driver is installed here (CUDA " << driver / 1000 << "): no such case";
  std::string why;
  EXPECT_FALSE(cudalab::gpu_available(&why));
  EXPECT_EQ(why.rfind("no NVIDIA driver on this machine", 0), 0u) << why;
  EXPECT_NE(why.find("tools/doctor.py"), std::string::npos) << why;
  EXPECT_EQ(why.find("update the driver"), std::string::npos) << why;
}

}  // namespace
