#include "cudalab/testing.cuh"
#include "cudalab/settings.hpp"

#include "cudalab/watchdog.hpp"

#include "cudalab/driver_entry.cuh"  // green contexts (CUDALAB_SM_LIMIT), CUDA 12.4 ABI

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <iomanip>
#include <sstream>
#include <thread>

namespace cudalab {

namespace {
/// CUDALAB_FREE_MEMORY_MIB in bytes, or 0 when it is not set (or not a number).
std::size_t memory_cap() {
  const char *cap = cudalab::setting("CUDALAB_FREE_MEMORY_MIB");
  if (cap == nullptr || *cap == '\0') return 0;
  char *end = nullptr;
  const unsigned long long mib = std::strtoull(cap, &end, 10);
  return end && *end == '\0' ? std::size_t(mib) << 20 : 0;
}
}  // namespace

std::size_t free_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return 0;
  const std::size_t cap = memory_cap();
  return cap > 0 && cap < free_bytes ? cap : free_bytes;
}

bool MemoryWait::pause() {
  if (waited_ms_ >= kBudgetMs) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(kStepMs));
  waited_ms_ += kStepMs;
  return true;
}

bool MemoryWait::again(cudaError_t err) {
  if (err != cudaErrorMemoryAllocation) return false;
  (void)cudaGetLastError();  // not sticky; cleared so the next call starts clean
  return pause();
}

std::string out_of_memory(const char *expr, const char *file, int line) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cudaMemGetInfo(&free_bytes, &total_bytes);
  (void)cudaGetLastError();
  std::ostringstream os;
  os << std::fixed << std::setprecision(2) << "the GPU had no memory left for the test's own buffers (" << expr << " at "
     << file << ":" << line << ") after waiting " << MemoryWait::kBudgetMs / 1000
     << " s for other programs to free some; now " << free_bytes / double(1ull << 30) << " of "
     << total_bytes / double(1ull << 30)
     << " GiB free: not your kernel. Close the other programs that use the GPU (nvidia-smi lists them) and run "
        "the test again";
  return os.str();
}

std::string lacks_free_memory(std::size_t bytes, const std::string &what, bool *gpu_too_small) {
  // The "% of copy bandwidth" figure of the timed tests allocates buffers of its own: measured (and
  // cached) now, before the test's data takes the memory.
  measured_copy_bandwidth_gbs();
  std::size_t free_bytes = 0, total_bytes = 0;
  const std::size_t spare = std::size_t(256) << 20;
  // Other tests of the same ctest run may hold the memory for a while: wait for them (up to
  // MemoryWait's budget) before calling the memory missing.
  for (MemoryWait wait;;) {
    cudaMemGetInfo(&free_bytes, &total_bytes);
    if (const std::size_t cap = memory_cap(); cap > 0) {
      free_bytes = std::min(free_bytes, cap);
      total_bytes = std::min(total_bytes, cap);
    }
    if (bytes + spare <= free_bytes || bytes + spare > total_bytes || !wait.pause()) break;
  }
  if (gpu_too_small) *gpu_too_small = bytes + spare > total_bytes;
  if (bytes + spare <= free_bytes) return "";
  const double gib = double(1ull << 30);
  std::ostringstream os;
  os << std::fixed << std::setprecision(2) << what << " needs " << (bytes + spare) / gib
     << " GiB of GPU memory (with 256 MiB to spare); this GPU has " << total_bytes / gib << " GiB, " << free_bytes / gib
     << " GiB of it free";
  if (bytes + spare > total_bytes)
    os << " (a GPU with more memory grades it)";
  else
    os << ": close the other programs that use the GPU (nvidia-smi lists them) and run the test again";
  if (memory_cap() > 0) os << " [CUDALAB_FREE_MEMORY_MIB=" << cudalab::setting("CUDALAB_FREE_MEMORY_MIB") << "]";
  return os.str();
}

namespace {

/// CUDALAB_SM_LIMIT=N: this process runs its kernels on a green context of (at least) N SMs, made
/// current for the runtime, to see on a large GPU what one with fewer SMs would do. Returns the
/// partition's SM count, 0 when the variable is not set, -1 with @p why when it cannot be made.
int sm_limit_partition(std::string *why) {
  static int result = -2;
  static std::string error;
  static CUcontext partition = nullptr;
  static CUresult (*set_current)(CUcontext) = nullptr;
  if (result != -2) {
    *why = error;
    // Current again for this test: a cudaSetDevice() in earlier code makes the primary context current.
    if (result > 0 && set_current(partition) != CUDA_SUCCESS) {
      *why = "CUDALAB_SM_LIMIT: the green context could not be made current again";
      return -1;
    }
    return result;
  }
  const char *env = cudalab::setting("CUDALAB_SM_LIMIT");
  if (env == nullptr || *env == '\0') return result = 0;
  char *end = nullptr;
  const unsigned long want = std::strtoul(env, &end, 10);
  result = -1;
  if (end == nullptr || *end != '\0' || want == 0) {
    *why = error = std::string("CUDALAB_SM_LIMIT='") + env + "': a whole number of SMs is required";
    return result;
  }
#if CUDART_VERSION >= 12050
  decltype(&cuDeviceGet) get = nullptr;
  decltype(&cuDeviceGetDevResource) resource = nullptr;
  decltype(&cuDevSmResourceSplitByCount) split = nullptr;
  decltype(&cuDevResourceGenerateDesc) describe = nullptr;
  decltype(&cuGreenCtxCreate) create = nullptr;
  decltype(&cuCtxFromGreenCtx) as_context = nullptr;
  decltype(&cuCtxSetCurrent) make_current = nullptr;
  cudaFree(nullptr);  // the runtime starts the driver and the primary context
  if (!driver_entry("cuDeviceGet", get, 12040) || !driver_entry("cuDeviceGetDevResource", resource, 12040) ||
      !driver_entry("cuDevSmResourceSplitByCount", split, 12040) ||
      !driver_entry("cuDevResourceGenerateDesc", describe, 12040) || !driver_entry("cuGreenCtxCreate", create, 12040) ||
      !driver_entry("cuCtxFromGreenCtx", as_context, 12040) || !driver_entry("cuCtxSetCurrent", make_current, 12040)) {
    *why = error = "CUDALAB_SM_LIMIT needs green contexts (a CUDA 12.4 or newer driver)";
    return result;
  }
  CUdevice dev{};
  CUdevResource all{}, part{}, rest{};
  unsigned int groups = 1;
  CUdevResourceDesc desc{};
  CUgreenCtx green{};
  CUcontext ctx{};
  const char *step = nullptr;
  CUresult rc = CUDA_SUCCESS;
  if ((rc = get(&dev, 0)) != CUDA_SUCCESS)
    step = "cuDeviceGet";
  else if ((rc = resource(dev, &all, CU_DEV_RESOURCE_TYPE_SM)) != CUDA_SUCCESS)
    step = "cuDeviceGetDevResource";
  else if ((rc = split(&part, &groups, &all, &rest, 0, static_cast<unsigned int>(want))) != CUDA_SUCCESS || groups != 1)
    step = "cuDevSmResourceSplitByCount";
  else if ((rc = describe(&desc, &part, 1)) != CUDA_SUCCESS)
    step = "cuDevResourceGenerateDesc";
  else if ((rc = create(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM)) != CUDA_SUCCESS)
    step = "cuGreenCtxCreate";
  else if ((rc = as_context(&ctx, green)) != CUDA_SUCCESS)
    step = "cuCtxFromGreenCtx";
  else if ((rc = make_current(ctx)) != CUDA_SUCCESS)
    step = "cuCtxSetCurrent";
  if (step != nullptr) {
    *why = error = "CUDALAB_SM_LIMIT=" + std::string(env) + ": no green context of that many SMs (" + step +
                   " returned CUresult " + std::to_string(int(rc)) + "; the GPU has " + std::to_string(all.sm.smCount) +
                   " SMs, partitions at least " + std::to_string(all.sm.minSmPartitionSize) + ")";
    return result;
  }
  partition = ctx;
  set_current = make_current;
  std::printf("[ CUDALAB  ] CUDALAB_SM_LIMIT=%s: kernels run on %u of the GPU's %u SMs (a green context)\n", env,
              part.sm.smCount, all.sm.smCount);
  std::fflush(stdout);
  return result = static_cast<int>(part.sm.smCount);
#else
  *why = error = "CUDALAB_SM_LIMIT needs a build with CUDA 12.5 or newer (green contexts)";
  return result;
#endif
}

}  // namespace

void HostTest::SetUp() {
  seed_ = choose_seed();
  std::printf("[ CUDALAB  ] seed: %llu (reproduce with CUDALAB_SEED=%llu)\n", static_cast<unsigned long long>(seed_),
              static_cast<unsigned long long>(seed_));
  ::testing::Test::RecordProperty("seed", std::to_string(seed_));
}

void GpuTest::SetUp() {
  // A test of this lab hung earlier in this ctest run (its kernel may still be unfinished work of
  // a killed process): fail at once, before touching the GPU.
  if (std::string hung = watchdog::earlier_hang(); !hung.empty()) {
    not_run_ = true;
    GTEST_FAIL() << hung;
  }
  std::string why;
  if (!gpu_available(&why)) GTEST_SKIP() << why;
  watchdog::mark_gpu();  // from here on, a test that does not finish marks the lab as hung
  HostTest::SetUp();
  std::string partition_error;
  const int partition_sms = sm_limit_partition(&partition_error);
  if (partition_sms < 0) GTEST_FAIL() << partition_error;
  cudaError_t err = query_device(0, &device_);
  if (err != cudaSuccess) GTEST_FAIL() << describe_error(err, "query_device(0)", __FILE__, __LINE__);
  if (partition_sms > 0) device_.sm_count = partition_sms;  // what the tests size "the whole GPU" by
}

void GpuTest::TearDown() {
  if (IsSkipped() || not_run_ || sticky_expected_) return;
  // A kernel that faulted leaves the context unusable; say so rather than fail confusingly later.
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) ADD_FAILURE() << describe_error(err, "device state after the test", __FILE__, __LINE__);
}

std::string PerfReport::line() const {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(3);
  os << candidate << " vs " << baseline << ": " << cmp.candidate.median_ms << " ms vs " << cmp.baseline.median_ms
     << " ms (median of " << cmp.candidate.reps
     << (cmp.candidate.launches > 1 ? " samples of " + std::to_string(cmp.candidate.launches) + " launches" : "")
     << ", noise " << 100.0 * cmp.candidate.spread << "% / " << 100.0 * cmp.baseline.spread << "%)";
  os.precision(2);
  os << ", speed-up " << cmp.speedup() << "x, required >= " << threshold << "x" << threshold_note(threshold_key);
  if (bytes > 0) {
    double bw = gbs(bytes, cmp.candidate.median_ms);
    double copy = measured_copy_bandwidth_gbs();
    os.precision(0);
    os << ", " << bw << " GB/s";
    if (copy > 0) os << " = " << 100.0 * bw / copy << "% of measured copy bandwidth (" << copy << " GB/s)";
  }
  return os.str();
}

void expect_speedup(const PerfReport &r) {
  if (!r.cmp.baseline.ok || !r.cmp.candidate.ok) {
    ADD_FAILURE() << r.candidate
                  << ": timing failed: " << (r.cmp.candidate.ok ? r.cmp.baseline.error : r.cmp.candidate.error);
    return;
  }
  std::string line = r.line();
  Measurement m;
  m.key = r.threshold_key;
  m.measured = r.cmp.speedup();
  m.required = r.threshold;
  m.baseline_ms = r.cmp.baseline.median_ms;
  m.candidate_ms = r.cmp.candidate.median_ms;
  m.text = line;
  report_perf(m);
  if (r.cmp.speedup() < r.threshold) {
    ADD_FAILURE() << r.candidate << " is too slow: speed-up over " << r.baseline << " " << r.cmp.speedup()
                  << "x, required >= " << r.threshold << "x (threshold '" << r.threshold_key << "' from "
                  << threshold_source(r.threshold_key) << ")\n  " << line;
  }
}

namespace {
std::string full_precision(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}
}  // namespace

void record_measurement(const std::string &tag, const Measurement &m) {
  // n: one more than the measurements of this tag the test has recorded (each has a ".text").
  int n = 1;
  if (const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    const ::testing::TestResult *result = info->result();
    const std::string prefix = tag + ".", suffix = ".text";
    for (int i = 0; i < result->test_property_count(); ++i) {
      const std::string key = result->GetTestProperty(i).key();
      if (key.rfind(prefix, 0) == 0 && key.size() > prefix.size() + suffix.size() &&
          key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0)
        ++n;
    }
  }
  const std::string p = tag + "." + std::to_string(n) + ".";
  if (!m.key.empty()) {
    ::testing::Test::RecordProperty(p + "key", m.key);
    ::testing::Test::RecordProperty(p + "measured", full_precision(m.measured));
    ::testing::Test::RecordProperty(p + "required", full_precision(m.required));
    ::testing::Test::RecordProperty(p + "compare", m.compare);
  }
  if (m.baseline_ms >= 0) ::testing::Test::RecordProperty(p + "baseline_ms", full_precision(m.baseline_ms));
  if (m.candidate_ms >= 0) ::testing::Test::RecordProperty(p + "candidate_ms", full_precision(m.candidate_ms));
  ::testing::Test::RecordProperty(p + "text", m.text);
}

void report_perf(const Measurement &m) {
  std::printf("[ PERF     ] %s\n", m.text.c_str());
  std::fflush(stdout);
  record_measurement("perf", m);
}

void report_profile(const Measurement &m) {
  std::printf("[ PROFILE  ] %s\n", m.text.c_str());
  std::fflush(stdout);
  record_measurement("profile", m);
}

void report_profile(const std::string &key, double measured, double required, const char *compare,
                    const std::string &text) {
  Measurement m;
  m.key = key;
  m.measured = measured;
  m.required = required;
  m.compare = compare;
  m.text = text;
  report_profile(m);
}

std::string context(std::initializer_list<std::pair<const char *, long long>> values) {
  std::ostringstream os;
  bool first = true;
  for (const auto &[k, v] : values) {
    os << (first ? "" : " ") << k << "=" << v;
    first = false;
  }
  return os.str();
}

}  // namespace cudalab
