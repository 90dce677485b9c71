// Host test of threshold selection (cudalab/thresholds.hpp): a row of the per-GPU override file
// wins for exactly its device, grading.json's value is the fallback, $CUDALAB_THRESHOLD_<KEY> wins
// over both. Runs without a GPU (ctest: common.thresholds_selftest).
#include "cudalab/settings.hpp"
#include "cudalab/thresholds.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace cudalab::detail {
// What cmake/CudaLab.cmake generates for a lab with one override row for "NVIDIA Test GPU".
const char *const kLabName = "ch99_example";
const char *const kThresholdOverrides = "thresholds-overrides.json";
const ThresholdEntry kThresholds[] = {{"copy_fraction", 0.7, "NVIDIA H200"},
                                      {"copy_fraction", 0.75, nullptr},
                                      {"speedup", 1.85, nullptr},
                                      {"speedup", 1.5, "NVIDIA H200 NVL"},
                                      {"only_on_h200", 2.0, "NVIDIA H200"},
                                      {nullptr, 0.0, nullptr}};
}  // namespace cudalab::detail

namespace {

using cudalab::detail::find_threshold;
using cudalab::detail::kThresholds;

TEST(ThresholdSelection, DeviceRowWinsForExactlyThatDevice) {
  const auto *row = find_threshold(kThresholds, "copy_fraction", "NVIDIA H200");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->value, 0.7);
  EXPECT_STREQ(row->device, "NVIDIA H200");
  // a row listed after the default row still wins for its device
  row = find_threshold(kThresholds, "speedup", "NVIDIA H200 NVL");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->value, 1.5);
}

TEST(ThresholdSelection, OtherDevicesGetGradingJsonValue) {
  for (const char *device : {"NVIDIA H100 80GB HBM3", "NVIDIA H200 NVL", "nvidia h200", "NVIDIA H20", ""}) {
    const auto *row = find_threshold(kThresholds, "copy_fraction", device);
    ASSERT_NE(row, nullptr) << device;
    EXPECT_EQ(row->value, 0.75) << device;
    EXPECT_EQ(row->device, nullptr) << device;
  }
  EXPECT_EQ(find_threshold(kThresholds, "speedup", "NVIDIA H200")->value, 1.85);
}

TEST(ThresholdSelection, UnknownKeyHasNoRow) {
  EXPECT_EQ(find_threshold(kThresholds, "missing", "NVIDIA H200"), nullptr);
  EXPECT_EQ(find_threshold(kThresholds, "only_on_h200", "NVIDIA H100 80GB HBM3"), nullptr);
  EXPECT_EQ(find_threshold(kThresholds, "only_on_h200", "NVIDIA H200")->value, 2.0);
}

TEST(ThresholdSelection, TableWithoutDeviceRowsNeverAsksTheGpu) {
  const cudalab::detail::ThresholdEntry plain[] = {{"a", 1.0, nullptr}, {nullptr, 0.0, nullptr}};
  EXPECT_FALSE(cudalab::detail::has_device_rows(plain));
  EXPECT_TRUE(cudalab::detail::has_device_rows(kThresholds));
}

TEST(ThresholdSelection, EnvironmentWinsAndIsNamedAsTheSource) {
  // Without a GPU (CI) the device name is "", so grading.json's value applies here; on an
  // "NVIDIA H200" it would be the override row.
  const bool h200 = cudalab::detail::current_device_name() == "NVIDIA H200";
  EXPECT_EQ(cudalab::threshold("copy_fraction"), h200 ? 0.7 : 0.75);
  EXPECT_EQ(cudalab::threshold_source("copy_fraction"),
            h200 ? "thresholds-overrides.json for NVIDIA H200" : "tests/ch99_example/grading.json");
  EXPECT_EQ(cudalab::threshold_note("copy_fraction"),
            h200 ? " (threshold from thresholds-overrides.json for NVIDIA H200)" : "");
  cudalab::detail::override_setting("CUDALAB_THRESHOLD_COPY_FRACTION", "0.5");
  EXPECT_EQ(cudalab::threshold("copy_fraction"), 0.5);
  EXPECT_EQ(cudalab::threshold_source("copy_fraction"), "$CUDALAB_THRESHOLD_COPY_FRACTION");
  EXPECT_EQ(cudalab::threshold_note("copy_fraction"), " (threshold from $CUDALAB_THRESHOLD_COPY_FRACTION)");
  cudalab::detail::override_setting("CUDALAB_THRESHOLD_COPY_FRACTION", nullptr);
}

}  // namespace
