// ch05_01 performance: histogramShared (with the zeroing of buckets, through run_histogram_shared)
// against cub::DeviceHistogram::HistogramEven and against the naive global-atomic kernel, both
// measured side by side in this process. Every timed sample of histogramShared counts a changed
// input (one byte per sample) into poisoned buckets, and a random share of the samples is checked.
#include "baseline.cuh"
#include "histogram_check.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/sample_inputs.cuh"
#include "cudalab/testing.cuh"

#include <cub/device/device_histogram.cuh>

#include <random>

namespace {

constexpr size_t kBig = size_t(1) << 28;    // 256 MiB: five times the H100's L2
constexpr size_t kSmall = size_t(1) << 24;  // 16 MiB: launches and per-block setup count

class HistogramPerformance : public cudalab::GpuTest {
 protected:
  /// Uploads n bytes of @p pattern and checks histogramShared on exactly them (not timed until
  /// it is correct).
  bool prepare(size_t n, Pattern pattern) {
    n_ = n;
    const std::vector<unsigned char> bytes = make_bytes(n, pattern, seed());
    expected_ = cpu_histogram(bytes);
    grid_ = histogram_shared_grid(n);
    ctx_ = cudalab::context({{"n", static_cast<long long>(n)},
                             {"block", kHistogramBlock},
                             {"grid", grid_},
                             {"seed", static_cast<long long>(seed())}}) +
           " input=" + pattern_name(pattern, bytes);
    cudaError_t err = in_.upload(bytes);
    if (err == cudaSuccess) err = buckets_.allocate(kNumBins);
    if (err == cudaSuccess) err = buckets_.poison();
    if (err == cudaSuccess) err = run_histogram_shared(in_.get(), buckets_.get(), n, grid_);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      ADD_FAILURE() << "histogramShared is not timed until it is correct: "
                    << cudalab::describe_error(err, "run_histogram_shared", __FILE__, __LINE__) << " (" << ctx_ << ")";
      return false;
    }
    const std::string error = histogram_error("histogramShared", buckets_);
    if (!error.empty()) {
      ADD_FAILURE() << "histogramShared is not timed until it is correct: " << error;
      return false;
    }
    return true;
  }

  /// "" when @p buckets holds the histogram of the prepared input.
  std::string histogram_error(const std::string &kernel, const cudalab::DeviceBuffer<unsigned int> &buckets) {
    std::vector<unsigned int> got;
    if (cudaError_t err = buckets.download(&got); err != cudaSuccess)
      return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
    return compare_histogram(kernel, std::vector<unsigned long long>(kNumBins, 0), expected_, got, n_, ctx_);
  }

  /// Every timed sample of histogramShared counts an input no earlier sample had: before it, one
  /// random byte gets a new value (the expected counts follow it on the CPU: one bin down, one up)
  /// and buckets are poisoned; the histogram of every checked sample must be exact.
  cudalab::SampleCheck sample_check() {
    rng_.seed(seed() ^ 0x5a3c0ffee1234567ull);
    counts_ = expected_;
    cudalab::SampleCheck check;
    check.prepare = [this](int) {
      const std::size_t j = std::uniform_int_distribution<std::size_t>(0, n_ - 1)(rng_);
      unsigned char old = 0;
      cudaMemcpy(&old, in_.get() + j, 1, cudaMemcpyDeviceToHost);
      const auto value = static_cast<unsigned char>(cudalab::new_int_in(0, 255)(rng_, old));
      cudaMemcpy(in_.get() + j, &value, 1, cudaMemcpyHostToDevice);
      --counts_[old];
      ++counts_[value];
      buckets_.poison();
    };
    check.verify = [this](int) -> std::string {
      std::vector<unsigned int> got;
      if (cudaError_t err = buckets_.download(&got); err != cudaSuccess)
        return cudalab::describe_error(err, "copy back of a timed sample's buckets", __FILE__, __LINE__);
      return compare_histogram("histogramShared", std::vector<unsigned long long>(kNumBins, 0), counts_, got, n_,
                               ctx_ + ", timed launch");
    };
    return check;
  }

  /// One timed run of the student's side: zeroing buckets + histogramShared.
  void run_shared() {
    if (run_histogram_shared(in_.get(), buckets_.get(), n_, grid_) != cudaSuccess) launch_failed_ = true;
  }

  /// histogramShared vs cub::DeviceHistogram::HistogramEven (257 levels 0..256: one bin per byte
  /// value) on the prepared input.
  void versus_cub(size_t n, Pattern pattern, int reps, bool flush, const char *key) {
    if (!prepare(n, pattern)) return;
    cudalab::DeviceBuffer<unsigned int> cub_hist;
    cudalab::DeviceBuffer<unsigned char> temp;
    std::size_t temp_bytes = 0;
    const int levels = kNumBins + 1, samples = static_cast<int>(n);
    CUDALAB_ASSERT_OK(cub_hist.allocate(kNumBins));
    CUDALAB_ASSERT_OK(
        cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, in_.get(), cub_hist.get(), levels, 0, 256, samples));
    CUDALAB_ASSERT_OK(temp.allocate(temp_bytes));
    auto run_cub = [&] {
      cub::DeviceHistogram::HistogramEven(temp.get(), temp_bytes, in_.get(), cub_hist.get(), levels, 0, 256, samples);
    };
    run_cub();
    CUDALAB_ASSERT_OK(cudaDeviceSynchronize());
    if (std::string error = histogram_error("cub::DeviceHistogram::HistogramEven", cub_hist); !error.empty())
      GTEST_FAIL() << "test setup: CUB's histogram disagrees with the CPU: " << error;

    cudalab::TimingOptions opts;
    opts.reps = reps;
    opts.flush_l2 = flush;
    opts.check = sample_check();
    opts.stop_when_clear_of = cudalab::threshold(key);  // sampling stops once clear of it
    cudalab::Comparison cmp = cudalab::compare_kernels(
        run_cub, [&] { run_shared(); }, opts);
    if (launch_failed_) GTEST_FAIL() << "run_histogram_shared failed during timing (" << ctx_ << ")";
    const std::string what = pattern == Pattern::kUniform ? ", uniform bytes" : ", one repeated byte";
    cudalab::expect_speedup({"histogramShared (+ zeroing buckets)" + what, "cub::DeviceHistogram::HistogramEven", cmp,
                             cudalab::threshold(key), key, double(n)});
  }

  cudalab::DeviceBuffer<unsigned char> in_;
  cudalab::DeviceBuffer<unsigned int> buckets_;
  std::vector<unsigned long long> expected_;
  std::vector<unsigned long long> counts_;  ///< the histogram of in_ as the timed samples changed it
  std::mt19937_64 rng_;                     ///< which byte a timed sample changes, and to what
  std::string ctx_;
  size_t n_ = 0;
  unsigned int grid_ = 1;
  bool launch_failed_ = false;
};

// The main figure: 256 MiB of uniform random bytes. CUB reads them with 4-byte loads and counts
// into one shared histogram per block.
TEST_F(HistogramPerformance, KeepsUpWithCubOnUniformBytes) {
  versus_cub(kBig, Pattern::kUniform, 21, false, "cub_ratio_uniform");
}

// 16 MiB (fits the L2, flushed before every run): the per-block setup (zeroing, merging) and the
// launches weigh more; a grid far larger than one wave pays for it.
TEST_F(HistogramPerformance, KeepsUpWithCubOnSmallInput) {
  versus_cub(kSmall, Pattern::kUniform, 41, true, "cub_ratio_small");
}

// Worst-case contention: every byte the same. A loose bound -- CUB's own shared atomics all hit
// one address here too; global atomics on one address fall far behind.
TEST_F(HistogramPerformance, KeepsUpWithCubOnSingleValue) {
  versus_cub(kBig, Pattern::kSingleValue, 21, false, "cub_ratio_single");
}

// Privatisation against the handed-out kernel (one global atomic per byte), both with the
// zeroing of buckets, on 256 MiB of uniform bytes.
TEST_F(HistogramPerformance, BeatsTheNaiveKernelOnUniformBytes) {
  if (!prepare(kBig, Pattern::kUniform)) return;
  cudalab::DeviceBuffer<unsigned int> naive_buckets;
  CUDALAB_ASSERT_OK(naive_buckets.allocate(kNumBins));
  const unsigned int block = 256, grid = global_grid(n_, block);
  auto run_naive = [&] {
    cudaMemsetAsync(naive_buckets.get(), 0, kNumBins * sizeof(unsigned int));
    cudalab::launch(histogramGlobalBaseline, grid, block)(in_.get(), naive_buckets.get(), n_);
  };
  run_naive();
  CUDALAB_ASSERT_OK(cudaGetLastError());
  CUDALAB_ASSERT_OK(cudaDeviceSynchronize());
  if (std::string error = histogram_error("histogramGlobal (baseline)", naive_buckets); !error.empty())
    GTEST_FAIL() << "test setup: the baseline is wrong: " << error;

  cudalab::TimingOptions opts;
  opts.warmup = 2;
  opts.reps = 11;  // the naive kernel is slow: a few runs are plenty
  opts.check = sample_check();
  opts.stop_when_clear_of = cudalab::threshold("shared_vs_global");  // sampling stops once clear of it
  cudalab::Comparison cmp = cudalab::compare_kernels(
      run_naive, [&] { run_shared(); }, opts);
  if (launch_failed_) GTEST_FAIL() << "run_histogram_shared failed during timing (" << ctx_ << ")";
  cudalab::expect_speedup({"histogramShared (+ zeroing buckets)", "histogramGlobal (one global atomic per byte)", cmp,
                           cudalab::threshold("shared_vs_global"), "shared_vs_global", double(n_)});
}

}  // namespace
