// ch04_01 GPU correctness: device_figures on this GPU against its attributes, intensityKernel for
// any n, k and block, and registerArrayKernel: right, and without local memory.
#include "intensity.cuh"
#include "intensity_check.cuh"
#include "cudalab/testing.cuh"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace {

class DeviceFiguresOnThisGpu : public cudalab::GpuTest {};

TEST_F(DeviceFiguresOnThisGpu, MatchTheAttributes) {
  int major = 0, minor = 0, clock_khz = 0, mem_khz = 0, bus = 0;
  CUDALAB_ASSERT_OK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CUDALAB_ASSERT_OK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  // The SMs this test runs on, not cudaDevAttrMultiProcessorCount: under CUDALAB_SM_LIMIT (a green
  // context) they are fewer, and device() -- what device_figures() is given -- says so.
  const int sms = device().sm_count;
  CUDALAB_ASSERT_OK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  CUDALAB_ASSERT_OK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0));
  CUDALAB_ASSERT_OK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0));
  // FP32 lanes per SM (CUDA C++ Programming Guide, "Arithmetic Instructions").
  int lanes = 0;
  if (major == 7 || (major == 8 && minor == 0)) lanes = 64;
  if ((major == 8 && minor != 0) || major == 9 || (major >= 10 && major <= 12)) lanes = 128;
  if (lanes == 0) CUDALAB_SKIP_NOT_APPLICABLE() << "no FP32 lane count known for sm_" << major << minor << " in this test";
  const double measured = cudalab::measured_copy_bandwidth_gbs();
  ASSERT_GT(measured, 0.0) << "measuring the copy bandwidth failed";

  const DeviceFigures f = device_figures(device(), measured);
  const double peak = 2.0 * lanes * sms * (clock_khz / 1e6);       // GFLOP/s
  const double theoretical = 2.0 * (mem_khz / 1e6) * (bus / 8.0);  // GB/s
  std::ostringstream os;
  os.precision(8);
  const auto check = [&](const char *field, double got, double want) {
    if (!(std::abs(got - want) <= 1e-9 * std::max(1.0, std::abs(want))))
      os << (os.str().empty() ? " " : "; ") << field << " expected " << want << ", got " << got;
  };
  check("fp32_lanes_per_sm", f.fp32_lanes_per_sm, lanes);
  check("peak_gflops", f.peak_gflops, peak);
  check("theoretical_gbs", f.theoretical_gbs, theoretical);
  check("measured_gbs", f.measured_gbs, measured);
  check("gfloats", f.gfloats, measured / 4.0);
  check("compute_to_io", f.compute_to_io, peak / (measured / 4.0));
  check("ridge", f.ridge, peak / measured);
  const std::pair<const char *, RooflinePoint> points[] = {
      {"naive", f.naive}, {"tiled16", f.tiled16}, {"tiled32", f.tiled32}};
  const int tiles[] = {1, 16, 32};
  for (int i = 0; i < 3; ++i) {
    const double intensity = tiles[i] / 4.0, gflops = std::min(peak, intensity * measured);
    const std::string name = points[i].first;
    check((name + ".intensity").c_str(), points[i].second.intensity, intensity);
    check((name + ".gflops").c_str(), points[i].second.gflops, gflops);
    check((name + ".pct_of_peak").c_str(), points[i].second.pct_of_peak, 100.0 * gflops / peak);
  }
  std::printf(
      "[ CUDALAB  ] %s: peak %.0f GFLOP/s (%d SMs x %d lanes x 2 x %.3f GHz), %.0f GB/s theoretical, "
      "%.0f GB/s measured, %.1f FLOPs per float loaded, ridge %.1f FLOP/B\n",
      device().name.c_str(), peak, sms, lanes, clock_khz / 1e6, theoretical, measured, peak / (measured / 4.0),
      peak / measured);
  if (!os.str().empty())
    ADD_FAILURE() << "device_figures(" << device().name << " (sm_" << major << minor << "), " << measured
                  << " GB/s):" << os.str();
}

class IntensityCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned> {};

TEST_P(IntensityCorrectness, RightForAnyNAndK) {
  const unsigned block = GetParam();
  for (int n : {1, 31, 33, 1000, 4097, (1 << 20) + 3}) {
    for (int k : {0, 1, 5, 64}) {
      const std::string error = intensity_error(n, k, block, seed() + 131 * n + k);
      if (!error.empty()) GTEST_FAIL() << error;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Intensity, IntensityCorrectness, ::testing::Values(32u, 256u, 1000u),
                         [](const auto &info) { return "block" + std::to_string(info.param); });

class RegisterArrayKernel : public cudalab::GpuTest {};

TEST_F(RegisterArrayKernel, MatchesLocalArrayKernelForAnyN) {
  for (unsigned block : {32u, 256u, 1000u}) {
    for (int n : {1, 31, 33, 1000, 4097, (1 << 20) + 3}) {
      const std::string error = register_array_error(n, block, seed() + 7 * n + block);
      if (!error.empty()) GTEST_FAIL() << error;
    }
  }
}

TEST_F(RegisterArrayKernel, KeepsItsArrayInRegisters) {
  if (std::string error = register_array_error(4097, 256, seed()); !error.empty())
    GTEST_FAIL() << "registerArrayKernel's local memory is not checked until it is correct: " << error;
  cudaFuncAttributes mine, given;
  CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&mine, registerArrayKernel));
  CUDALAB_ASSERT_OK(cudaFuncGetAttributes(&given, localArrayKernel));
  std::printf(
      "[ CUDALAB  ] localArrayKernel: %d registers, %zu bytes local memory per thread; "
      "registerArrayKernel: %d registers, %zu bytes\n",
      given.numRegs, given.localSizeBytes, mine.numRegs, mine.localSizeBytes);
  EXPECT_EQ(mine.localSizeBytes, 0u)
      << "registerArrayKernel uses " << mine.localSizeBytes
      << " bytes of local memory per thread (cudaFuncGetAttributes(...).localSizeBytes; localArrayKernel: "
      << given.localSizeBytes << "): an array indexed with a value known only at run time cannot live in "
      << "registers -- index it only with compile-time constants (#pragma unroll), or use no array. "
      << "(Built with -G, everything goes to local memory: grade a Release build.)";
}

}  // namespace
