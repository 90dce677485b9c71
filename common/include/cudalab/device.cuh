/// @file device.cuh
/// @brief Device query through cudaDeviceGetAttribute, and the measured copy bandwidth.
///
/// CUDA 13 removed several cudaDeviceProp fields (clockRate, memoryClockRate, ...); every figure
/// here comes from cudaDeviceGetAttribute, which works on CUDA 12 and 13 alike.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace cudalab {

/// @brief What the labs need to know about one GPU.
struct DeviceInfo {
  int device = 0;                           ///< device ordinal
  std::string name;                         ///< e.g. "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;           ///< compute capability
  int sm_count = 0;                         ///< multiprocessors
  int warp_size = 32;                       ///< threads per warp
  int max_threads_per_block = 0;            ///< launch limit per block
  int max_threads_per_sm = 0;               ///< resident threads per SM
  int max_warps_per_sm = 0;                 ///< max_threads_per_sm / warp_size
  int max_blocks_per_sm = 0;                ///< resident blocks per SM
  int regs_per_sm = 0;                      ///< 32-bit registers per SM
  int regs_per_block = 0;                   ///< registers one block may use
  std::size_t smem_per_sm = 0;              ///< shared memory per SM (bytes)
  std::size_t smem_per_block = 0;           ///< default shared memory limit per block (bytes)
  std::size_t smem_per_block_optin = 0;     ///< opt-in limit per block (bytes)
  std::size_t reserved_smem_per_block = 0;  ///< shared memory the system reserves per block
  std::size_t l2_bytes = 0;                 ///< L2 cache size
  int sm_clock_khz = 0;                     ///< peak SM clock
  int mem_clock_khz = 0;                    ///< peak memory clock
  int mem_bus_bits = 0;                     ///< memory bus width
  int runtime_version = 0;                  ///< cudaRuntimeGetVersion, e.g. 13000
  int driver_version = 0;                   ///< cudaDriverGetVersion, e.g. 13000

  /// @brief Theoretical DRAM bandwidth in GB/s: 2 (double data rate) x clock x bus width.
  double theoretical_bandwidth_gbs() const;
  /// @brief "sm_90" style name of the compute capability.
  std::string sm() const;
};

/// @brief Fills a DeviceInfo for @p device from cudaDeviceGetAttribute. Returns the first error.
cudaError_t query_device(int device, DeviceInfo *info);

/// @brief True when a usable CUDA device exists; otherwise @p why says what is missing.
bool gpu_available(std::string *why);

/// @brief Why there is no usable GPU, with its fix, from cudaGetDeviceCount's @p err and
/// @p device_count and the driver's and runtime's CUDA versions (cudaDriverGetVersion gives 0
/// where no driver is installed): no driver, a driver older than the runtime, no visible GPU.
std::string no_gpu_reason(cudaError_t err, int device_count, int driver_version, int runtime_version);

/// @brief The start of a test-side driver's main() (compute-sanitizer drivers, Nsight Compute
/// profile targets). Returns false -- main() then returns 0 -- after printing
/// "[ CUDALAB  ] skipped: <why>" when no usable GPU exists, and for `--probe`; otherwise true,
/// with @p which (if not null) set to argv[1], or "" when there is none. Where the setting
/// CUDALAB_PROFILE_OUTPUT names a file (cudalab::run_ncu), everything the program prints from then
/// on goes to that file, apart from the profiler's own output.
bool driver_start(int argc, char **argv, std::string *which);

namespace detail {
/// @brief Where the setting CUDALAB_PROFILE_OUTPUT names a file, sends this program's standard
/// output and error there (file descriptors 1 and 2), so that under Nsight Compute the profiler's
/// report is the only thing on its own output; otherwise does nothing. The first step of
/// driver_start(); exits with status 1 when the file cannot be written.
void profile_output_to_file();
}  // namespace detail

/// @brief Prints "[ CUDALAB  ] reason: <why>" (the line the score table shows) and returns 1, the
/// exit code of a driver whose check failed.
int driver_fail(const std::string &why);

/// @brief One line for logs and score tables: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs), CUDA
/// runtime 13.0, driver 13.0".
std::string describe_device(const DeviceInfo &info);

/// @brief Measured device-to-device copy bandwidth in GB/s (bytes read + written), median of
/// @p reps cudaMemcpyAsync runs of a buffer of at least 4 x L2 (so the copy is not an L2 copy).
/// Used as the ceiling for "% of bandwidth" figures. Cached after the first call per process.
/// Returns a negative value if the measurement failed.
double measured_copy_bandwidth_gbs(int reps = 21);

}  // namespace cudalab
