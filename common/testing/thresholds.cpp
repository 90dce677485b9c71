#include "cudalab/thresholds.hpp"
#include "cudalab/settings.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>

namespace cudalab {

namespace {
std::string env_name(const std::string &key) {
  std::string name = "CUDALAB_THRESHOLD_";
  for (char c : key) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

/// The generated table's row for @p key on this GPU (the GPU is only asked when the table has rows for some GPU).
const detail::ThresholdEntry *row_for(const std::string &key) {
  static const std::string none;
  const std::string &device = detail::has_device_rows(detail::kThresholds) ? detail::current_device_name() : none;
  return detail::find_threshold(detail::kThresholds, key, device);
}
}  // namespace

namespace detail {

const ThresholdEntry *find_threshold(const ThresholdEntry *table, const std::string &key, const std::string &device) {
  const ThresholdEntry *fallback = nullptr;
  for (const ThresholdEntry *e = table; e->key; ++e) {
    if (key != e->key) continue;
    if (e->device == nullptr) {
      if (!fallback) fallback = e;
    } else if (!device.empty() && device == e->device) {
      return e;
    }
  }
  return fallback;
}

bool has_device_rows(const ThresholdEntry *table) {
  for (const ThresholdEntry *e = table; e->key; ++e)
    if (e->device) return true;
  return false;
}

const std::string &current_device_name() {
  static const std::string name = [] {
    int dev = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
      (void)cudaGetLastError();  // no GPU: leave no error behind for the test's own checks
      return std::string();
    }
    return std::string(prop.name);
  }();
  return name;
}

}  // namespace detail

double threshold(const std::string &key) {
  if (const char *env = cudalab::setting(env_name(key).c_str()); env && *env) return std::strtod(env, nullptr);
  if (const detail::ThresholdEntry *e = row_for(key)) return e->value;
  ADD_FAILURE() << "threshold '" << key << "' is not defined in tests/" << detail::kLabName << "/grading.json";
  return 0.0;
}

std::string threshold_source(const std::string &key) {
  std::string env = env_name(key);
  if (const char *v = cudalab::setting(env.c_str()); v && *v) return "$" + env;
  if (const detail::ThresholdEntry *e = row_for(key); e && e->device)
    return std::string(*detail::kThresholdOverrides ? detail::kThresholdOverrides : "the threshold override file") +
           " for " + e->device;
  return std::string("tests/") + detail::kLabName + "/grading.json";
}

std::string threshold_note(const std::string &key) {
  if (key.empty()) return "";
  std::string env = env_name(key);
  const char *v = cudalab::setting(env.c_str());
  const detail::ThresholdEntry *e = row_for(key);
  if ((v && *v) || (e && e->device)) return " (threshold from " + threshold_source(key) + ")";
  return "";
}

const char *lab_name() { return detail::kLabName; }

}  // namespace cudalab
