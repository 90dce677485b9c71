// ch03_09 host test: launch_limits returns the runtime's errors, on a synthetic device (no GPU).
//
// launch_limits asks the CUDA runtime. This test binary defines the runtime functions it may use
// (cudaGetDevice, cudaDeviceGetAttribute, cudaGetDeviceProperties) itself: a definition in the
// executable takes precedence over the shared CUDA runtime's (as in ch03_03's and ch03_05's host
// tests), so a synthetic sm_90 device answers them on any machine, and each call can be made to
// fail in turn. The binary's other tests ask the runtime nothing.
#include "parallelism.cuh"

#include "cudalab/apart.hpp"
#include "cudalab/testing.cuh"
#include "synthetic_device.hpp"

#include <cstring>
#include <string>

namespace {

const cudalab::synthetic::Arch *g_device = nullptr;  // the synthetic device answering (none: no GPU)

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

class RuntimeErrors : public cudalab::HostTest {
 protected:
  void TearDown() override {
    g_device = nullptr;
    cudalab::synthetic::call_failures() = {};
  }
};

// "Returns the first error": each runtime call launch_limits makes is made to fail in turn, and
// that error must come back, whichever call it was; asked for a device the machine does not have,
// it returns the runtime's error. A function that returns cudaSuccess after a failed query, or
// checks only some of its calls, fails here.
TEST_F(RuntimeErrors, LaunchLimitsReturnsEveryRuntimeError) {
  g_device = &cudalab::synthetic::arch_named("sm_90");
  const std::string problem = cudalab::synthetic::every_error_returned("launch_limits", [] {
    LaunchLimits l;
    return launch_limits(0, &l);
  });
  EXPECT_TRUE(problem.empty()) << problem;
  LaunchLimits l;
  const cudaError_t err = launch_limits(3, &l);  // the synthetic machine has device 0 only
  EXPECT_NE(err, cudaSuccess) << "launch_limits(3) returned cudaSuccess on a machine with one GPU (device 0): "
                                 "return the first CUDA error";
}

}  // namespace
