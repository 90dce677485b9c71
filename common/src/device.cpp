#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include "cudalab/settings.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace cudalab {

double DeviceInfo::theoretical_bandwidth_gbs() const { return 2.0 * mem_clock_khz * 1e3 * (mem_bus_bits / 8.0) / 1e9; }

std::string DeviceInfo::sm() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }

cudaError_t query_device(int device, DeviceInfo *info) {
  DeviceInfo d;
  d.device = device;
  cudaDeviceProp prop;  // only for the name, which has no attribute
  cudaError_t err = cudaGetDeviceProperties(&prop, device);
  if (err != cudaSuccess) return err;
  d.name = prop.name;
  struct Attr {
    cudaDeviceAttr attr;
    int *out;
  };
  int smem_sm = 0, smem_block = 0, smem_optin = 0, reserved = 0, l2 = 0;
  const Attr attrs[] = {
      {cudaDevAttrComputeCapabilityMajor, &d.cc_major},
      {cudaDevAttrComputeCapabilityMinor, &d.cc_minor},
      {cudaDevAttrMultiProcessorCount, &d.sm_count},
      {cudaDevAttrWarpSize, &d.warp_size},
      {cudaDevAttrMaxThreadsPerBlock, &d.max_threads_per_block},
      {cudaDevAttrMaxThreadsPerMultiProcessor, &d.max_threads_per_sm},
      {cudaDevAttrMaxBlocksPerMultiprocessor, &d.max_blocks_per_sm},
      {cudaDevAttrMaxRegistersPerMultiprocessor, &d.regs_per_sm},
      {cudaDevAttrMaxRegistersPerBlock, &d.regs_per_block},
      {cudaDevAttrMaxSharedMemoryPerMultiprocessor, &smem_sm},
      {cudaDevAttrMaxSharedMemoryPerBlock, &smem_block},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, &smem_optin},
      {cudaDevAttrReservedSharedMemoryPerBlock, &reserved},
      {cudaDevAttrL2CacheSize, &l2},
      {cudaDevAttrClockRate, &d.sm_clock_khz},
      {cudaDevAttrMemoryClockRate, &d.mem_clock_khz},
      {cudaDevAttrGlobalMemoryBusWidth, &d.mem_bus_bits},
  };
  for (const Attr &a : attrs) {
    err = cudaDeviceGetAttribute(a.out, a.attr, device);
    if (err != cudaSuccess) return err;
  }
  d.smem_per_sm = static_cast<std::size_t>(smem_sm);
  d.smem_per_block = static_cast<std::size_t>(smem_block);
  d.smem_per_block_optin = static_cast<std::size_t>(smem_optin);
  d.reserved_smem_per_block = static_cast<std::size_t>(reserved);
  d.l2_bytes = static_cast<std::size_t>(l2);
  d.max_warps_per_sm = d.warp_size > 0 ? d.max_threads_per_sm / d.warp_size : 0;
  if ((err = cudaRuntimeGetVersion(&d.runtime_version)) != cudaSuccess) return err;
  if ((err = cudaDriverGetVersion(&d.driver_version)) != cudaSuccess) return err;
  *info = d;
  return cudaSuccess;
}

std::string no_gpu_reason(cudaError_t err, int device_count, int driver_version, int runtime_version) {
  // One message per cause, each with its fix: no driver at all (cudaDriverGetVersion gives 0: no
  // NVIDIA GPU, or its driver is not installed), a driver older than this runtime, no GPU visible
  // to CUDA, anything else.
  const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  const std::string what = std::string(" (cudaGetDeviceCount: ") + cudaGetErrorName(err) + ")";
  if (err == cudaErrorInsufficientDriver && driver_version == 0)
    return "no NVIDIA driver on this machine" + what +
           ": no NVIDIA GPU, or its driver is not installed. GPU tests run on a machine with an NVIDIA GPU "
           "(sm_75 or newer) and its driver: python3 tools/doctor.py says which";
  if (err == cudaErrorInsufficientDriver)
    return "the NVIDIA driver supports CUDA " + version(driver_version) + ", older than this build's CUDA runtime " +
           version(runtime_version) + what + ": update the driver (docs/troubleshooting.md)";
  if (err == cudaErrorNoDevice || (err == cudaSuccess && device_count == 0))
    return "no CUDA GPU visible" + what +
           ": is CUDA_VISIBLE_DEVICES empty, or the GPU taken by a VM or container? python3 tools/doctor.py";
  return std::string("no usable CUDA GPU on this machine (cudaGetDeviceCount: ") + cudaGetErrorName(err) + ": " +
         cudaGetErrorString(err) + "); GPU tests run on a machine with an NVIDIA GPU (sm_75 or newer)";
}

bool gpu_available(std::string *why) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (why) {
      int driver = 0, runtime = 0;
      cudaDriverGetVersion(&driver);
      cudaRuntimeGetVersion(&runtime);
      *why = no_gpu_reason(err, count, driver, runtime);
    }
    cudaGetLastError();  // clear
    return false;
  }
  int major = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  if (major < 7) {
    if (why) *why = "GPU 0 has compute capability " + std::to_string(major) + ".x; the labs need sm_75 or newer";
    return false;
  }
  return true;
}

namespace detail {
void profile_output_to_file() {
  const char *path = setting("CUDALAB_PROFILE_OUTPUT");
  if (path == nullptr || *path == '\0') return;
  std::fflush(stdout);
  std::fflush(stderr);
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0) {
    std::fprintf(stderr, "[ CUDALAB  ] reason: profile target: cannot write its output to %s\n", path);
    std::exit(1);
  }
  ::close(fd);
}
}  // namespace detail

bool driver_start(int argc, char **argv, std::string *which) {
  detail::profile_output_to_file();  // first: nothing the program prints may reach ncu's report
  std::string why;
  if (!gpu_available(&why)) {
    std::printf("[ CUDALAB  ] skipped: %s\n", why.c_str());
    return false;
  }
  const std::string first = argc > 1 ? argv[1] : "";
  if (first == "--probe") return false;
  if (which) *which = first;
  return true;
}

int driver_fail(const std::string &why) {
  std::printf("[ CUDALAB  ] reason: %s\n", why.c_str());
  return 1;
}

std::string describe_device(const DeviceInfo &d) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s (%s, %d SMs), CUDA runtime %d.%d, driver %d.%d", d.name.c_str(), d.sm().c_str(),
                d.sm_count, d.runtime_version / 1000, (d.runtime_version % 1000) / 10, d.driver_version / 1000,
                (d.driver_version % 1000) / 10);
  return buf;
}

double measured_copy_bandwidth_gbs(int reps) {
  static double cached = 0.0;
  if (cached > 0.0) return cached;
  DeviceInfo d;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || query_device(dev, &d) != cudaSuccess) return -1.0;
  std::size_t bytes = std::max<std::size_t>(4 * d.l2_bytes, std::size_t(256) << 20);
  void *src = nullptr, *dst = nullptr;
  if (cudaMalloc(&src, bytes) != cudaSuccess) {
    cudaGetLastError();  // an allocation that failed leaves no error for the test to trip on
    return -1.0;
  }
  if (cudaMalloc(&dst, bytes) != cudaSuccess) {
    cudaGetLastError();
    cudaFree(src);
    return -1.0;
  }
  cudaMemset(src, 1, bytes);
  TimingOptions opts;
  opts.reps = reps;
  TimingStats s = time_kernel([&] { cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice); }, opts);
  cudaFree(src);
  cudaFree(dst);
  if (!s.ok) return -1.0;
  cached = 2.0 * bytes / (s.median_ms * 1e-3) / 1e9;
  return cached;
}

}  // namespace cudalab
