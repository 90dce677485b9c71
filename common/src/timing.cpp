#include "cudalab/timing.cuh"
#include "cudalab/check.cuh"
#include "cudalab/settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace cudalab {

namespace {

detail::SampleWatch &sample_watch() {
  static detail::SampleWatch watch;
  return watch;
}

/// Event pair around one launch; returns milliseconds or a negative value on error.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaError_t init() {
    cudaError_t err = cudaEventCreate(&start);
    if (err == cudaSuccess) err = cudaEventCreate(&stop);
    return err;
  }
  ~EventPair() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

double percentile(const std::vector<double> &sorted, double p) {
  if (sorted.empty()) return 0.0;
  double pos = p * (sorted.size() - 1);
  std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

// Runs setup (untimed), optional flush, then @p launches calls of launch between two events.
// Returns ms per launch, or -1.
// The device is idle when a sample starts (work an earlier sample left running, on any stream, is
// not billed to this one), and the test program's watch sees every launch of the sample.
double timed_run(EventPair &ev, const std::function<void()> &launch, const std::function<void()> &setup, bool flush,
                 int launches, std::string *error, bool must_launch = false) {
  if (setup) setup();
  if (flush) flush_l2();
  launches = std::max(1, launches);
  cudaError_t err = cudaDeviceSynchronize();
  const detail::SampleWatch watch = sample_watch();
  if (watch.begin) watch.begin();
  cudaEventRecord(ev.start);
  for (int i = 0; i < launches; ++i) launch();
  cudaEventRecord(ev.stop);
  if (err == cudaSuccess) err = cudaEventSynchronize(ev.stop);
  if (err == cudaSuccess) err = cudaGetLastError();
  const std::string outside = watch.end ? watch.end(must_launch) : std::string();
  if (err != cudaSuccess) {
    *error = describe_error(err, "timed kernel", __FILE__, __LINE__);
    return -1.0;
  }
  if (!outside.empty()) {
    *error = outside;
    return -1.0;
  }
  float ms = 0.f;
  cudaEventElapsedTime(&ms, ev.start, ev.stop);
  return double(ms) / launches;
}

/// The graded kernel's side of a run of samples: its setup followed by the check's prepare(), and
/// which samples have their output verified (drawn from std::random_device, not the test's seed).
class CheckedSide {
 public:
  CheckedSide(const std::function<void()> &setup, const SampleCheck &check, int warmup, int reps)
      : setup_(setup), check_(check), warmup_(warmup), last_(warmup + reps - 1), rng_(std::random_device{}()) {}

  /// The untimed setup of sample @p i.
  std::function<void()> setup(int i) const {
    if (!check_.prepare) return setup_;
    return [this, i] {
      if (setup_) setup_();
      check_.prepare(i);
    };
  }

  /// "" or what is wrong with the output of sample @p i, when this sample is one that is checked
  /// (always with @p last: the sample after which the timing stops early).
  std::string verify(int i, bool last = false) {
    if (!check_.verify || i < warmup_) return {};
    const bool always = i == warmup_ || i == last_ || last;
    if (!always && std::uniform_real_distribution<double>(0.0, 1.0)(rng_) >= check_.share) return {};
    verified_ = i;
    std::string wrong = check_.verify(i);
    if (wrong.empty()) return {};
    return "the output of timed sample " + std::to_string(i - warmup_ + 1) + " of " +
           std::to_string(last_ - warmup_ + 1) + " is wrong (each sample gets a new input and a poisoned " +
           "output, so a kernel must do all of its work every time it runs): " + wrong;
  }
  /// Whether sample @p i's output has been checked.
  bool verified(int i) const { return verified_ == i; }

 private:
  std::function<void()> setup_;
  const SampleCheck &check_;
  int warmup_, last_;
  int verified_ = -1;
  std::mt19937_64 rng_;
};

}  // namespace

void detail::set_sample_watch(SampleWatch watch) { sample_watch() = watch; }

int detail::clear_of(const std::vector<double> &a, const std::vector<double> &b, double threshold, int min_reps,
                     double margin) {
  const std::size_t n = std::min(a.size(), b.size());
  if (threshold <= 0 || n == 0 || n < static_cast<std::size_t>(std::max(1, min_reps))) return 0;
  const double above = threshold * (1.0 + margin), below = threshold / (1.0 + margin);
  bool all_above = true, all_below = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(b[i] > 0)) return 0;  // a zero time says nothing clear
    const double r = a[i] / b[i];
    all_above = all_above && r >= above;
    all_below = all_below && r <= below;
  }
  return all_above ? 1 : all_below ? -1 : 0;
}

double detail::stop_threshold(const TimingOptions &opts) {
  const char *full = setting("CUDALAB_TIMING_FULL");
  if (full != nullptr && *full != '\0' && std::strcmp(full, "0") != 0) return 0.0;
  return opts.stop_when_clear_of;
}

TimingStats summarize(std::vector<double> samples) {
  TimingStats s;
  if (samples.empty()) {
    s.error = "no samples";
    return s;
  }
  std::sort(samples.begin(), samples.end());
  s.ok = true;
  s.reps = static_cast<int>(samples.size());
  s.median_ms = percentile(samples, 0.5);
  s.min_ms = samples.front();
  s.max_ms = samples.back();
  s.spread = s.median_ms > 0 ? (percentile(samples, 0.75) - percentile(samples, 0.25)) / s.median_ms : 0.0;
  return s;
}

void flush_l2() {
  static void *buf = nullptr;
  static std::size_t bytes = 0;
  if (!buf) {
    int dev = 0, l2 = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    bytes = 2 * static_cast<std::size_t>(l2 > 0 ? l2 : (8 << 20));
    if (cudaMalloc(&buf, bytes) != cudaSuccess) {
      buf = nullptr;
      return;
    }
  }
  cudaMemsetAsync(buf, 0, bytes);
}

TimingStats time_kernel(const std::function<void()> &launch, const TimingOptions &opts,
                        const std::function<void()> &setup) {
  EventPair ev;
  TimingStats bad;
  if (cudaError_t err = ev.init(); err != cudaSuccess) {
    bad.error = describe_error(err, "cudaEventCreate", __FILE__, __LINE__);
    return bad;
  }
  std::vector<double> samples;
  CheckedSide side(setup, opts.check, opts.warmup, opts.reps);
  for (int i = 0; i < opts.warmup + opts.reps; ++i) {
    double ms = timed_run(ev, launch, side.setup(i), opts.flush_l2, opts.launches, &bad.error);
    if (ms < 0) return bad;
    bad.error = side.verify(i);
    if (!bad.error.empty()) return bad;
    if (i >= opts.warmup) samples.push_back(ms);
  }
  TimingStats s = summarize(samples);
  s.launches = std::max(1, opts.launches);
  return s;
}

Comparison compare_kernels(const std::function<void()> &baseline, const std::function<void()> &candidate,
                           const TimingOptions &opts, const std::function<void()> &setup_baseline,
                           const std::function<void()> &setup_candidate) {
  Comparison c;
  EventPair ev;
  if (cudaError_t err = ev.init(); err != cudaSuccess) {
    c.baseline.error = c.candidate.error = describe_error(err, "cudaEventCreate", __FILE__, __LINE__);
    return c;
  }
  std::vector<double> a, b;
  CheckedSide side(setup_candidate, opts.check, opts.warmup, opts.reps);
  const double stop_at = detail::stop_threshold(opts);  // 0 under CUDALAB_TIMING_FULL: every rep
  for (int i = 0; i < opts.warmup + opts.reps; ++i) {
    double ta = timed_run(ev, baseline, setup_baseline, opts.flush_l2, opts.launches, &c.baseline.error);
    if (ta < 0) return c;
    double tb = timed_run(ev, candidate, side.setup(i), opts.flush_l2, opts.launches, &c.candidate.error, true);
    if (tb < 0) return c;
    c.candidate.error = side.verify(i);
    if (!c.candidate.error.empty()) return c;
    if (i >= opts.warmup) {
      a.push_back(ta);
      b.push_back(tb);
      if (stop_at > 0 && i + 1 < opts.warmup + opts.reps &&
          detail::clear_of(a, b, stop_at, opts.min_reps, opts.clear_margin) != 0) {
        // The last sample taken is always checked, as the last of a full run is.
        if (!side.verified(i)) c.candidate.error = side.verify(i, true);
        if (!c.candidate.error.empty()) return c;
        break;
      }
    }
  }
  c.baseline = summarize(a);
  c.candidate = summarize(b);
  c.baseline.launches = c.candidate.launches = std::max(1, opts.launches);
  return c;
}

}  // namespace cudalab
