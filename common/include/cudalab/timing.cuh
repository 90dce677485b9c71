/// @file timing.cuh
/// @brief CUDA-event timing: warm-up, N timed repetitions, median and spread, optional L2 flush,
/// and a side-by-side comparison of two kernels that returns their speed ratio.
///
/// Every timed region holds exactly one launch; work that must happen between repetitions (for
/// example restoring an input that an in-place kernel destroyed) goes in the untimed `setup`.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace cudalab {

/// @brief Ties the timed samples of the graded kernel to real work: every sample gets an input no
/// earlier sample had and a poisoned output, and the output of a random share of the samples (the
/// first and last timed ones always) is checked. A kernel that remembers an earlier result, skips
/// work when it sees the same launch again, or computes less while it is timed then loses the test,
/// where a check of one run before the timing cannot see it.
struct SampleCheck {
  /// Untimed, before the graded kernel's sample @p sample (0, 1, ...; warm-up runs included), after
  /// that side's setup: change the input so that it differs from every earlier sample's (for
  /// example one random element per sample) and poison the output.
  std::function<void(int sample)> prepare;
  /// After sample @p sample has finished: "" if its output is right for the input prepare() gave
  /// it, else what is wrong (the first wrong index, expected and actual values).
  std::function<std::string(int sample)> verify;
  /// Share of the timed samples whose output is checked, drawn afresh in every run (not from the
  /// test's seed, so no code can know in advance which samples are looked at).
  double share = 0.25;
  /// @brief Whether a check is installed.
  explicit operator bool() const { return static_cast<bool>(prepare) || static_cast<bool>(verify); }
};

/// @brief How to time.
struct TimingOptions {
  int warmup = 3;         ///< untimed runs first (clocks up, caches and JIT warm)
  int reps = 21;          ///< timed runs; the median is reported
  bool flush_l2 = false;  ///< overwrite a buffer of 2 x L2 size before every timed run
  /// Launches per sample: each timed run calls the launch function this many times back to back
  /// between its two events, and the times reported are per launch (sample / launches). A kernel
  /// of a few microseconds is otherwise timed mostly by the gap between an event and the launch.
  int launches = 1;
  /// Inputs and output checks of the graded kernel's samples (the candidate of compare_kernels, the
  /// one kernel of time_kernel); none when unset.
  SampleCheck check;
  /// Stop when the answer is clear (compare_kernels only; 0: off, every rep is timed). The threshold
  /// the speed-up (baseline / candidate) is graded against: once at least `min_reps` pairs are
  /// timed and every pair's ratio is at least threshold x (1 + `clear_margin`), or every one at most
  /// threshold / (1 + `clear_margin`), sampling stops (detail::clear_of). Then every pair is on one
  /// side, so both medians are too (b_i >= t c_i for all i gives median(b) >= t median(c)): the grade
  /// is the one these samples give, and a result near the threshold still gets every rep. The
  /// setting CUDALAB_TIMING_FULL (anything but "" or "0"; tools/calibrate.py sets it) turns it off,
  /// so that a calibration run sees every rep (detail::stop_threshold).
  double stop_when_clear_of = 0.0;
  int min_reps = 9;            ///< timed pairs before sampling may stop (stop_when_clear_of)
  double clear_margin = 0.10;  ///< how far every pair must be from the threshold to stop early
};

/// @brief Result of timing one kernel.
struct TimingStats {
  bool ok = false;         ///< false if a CUDA call failed (see error)
  std::string error;       ///< what failed
  double median_ms = 0.0;  ///< median of the timed runs
  double min_ms = 0.0;     ///< fastest run
  double max_ms = 0.0;     ///< slowest run
  double spread = 0.0;     ///< (75th - 25th percentile) / median: the noise of the measurement
  int reps = 0;            ///< number of timed runs
  int launches = 1;        ///< launches per timed run (TimingOptions::launches); the times are per launch
};

/// @brief Summarises raw samples (milliseconds) into a TimingStats.
TimingStats summarize(std::vector<double> samples_ms);

/// @brief Times @p launch (which must enqueue on the default stream) with CUDA events.
/// @p setup runs before each run, outside the timed region.
TimingStats time_kernel(const std::function<void()> &launch, const TimingOptions &opts = {},
                        const std::function<void()> &setup = {});

/// @brief Two kernels timed side by side.
struct Comparison {
  TimingStats baseline;   ///< the reference point
  TimingStats candidate;  ///< the kernel being graded
  /// @brief baseline time / candidate time: > 1 means the candidate is faster.
  double speedup() const { return candidate.median_ms > 0 ? baseline.median_ms / candidate.median_ms : 0.0; }
};

/// @brief Times two kernels interleaved (A, B, A, B, ...) so clock and thermal drift hit both
/// alike, and returns both medians. Each side may have its own untimed setup.
Comparison compare_kernels(const std::function<void()> &baseline, const std::function<void()> &candidate,
                           const TimingOptions &opts = {}, const std::function<void()> &setup_baseline = {},
                           const std::function<void()> &setup_candidate = {});

/// @brief Overwrites a scratch buffer of 2 x L2 size, so the next kernel starts with a cold L2.
void flush_l2();

/// @brief Gigabytes per second for @p bytes moved in @p ms milliseconds.
inline double gbs(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; }

namespace detail {
/// @brief The stopping rule of TimingOptions::stop_when_clear_of on the timed pairs so far (@p a
/// baseline and @p b candidate milliseconds, pair i timed side by side): +1 when at least
/// @p min_reps pairs are in and every a_i / b_i >= threshold x (1 + margin) (clearly passes), -1
/// when every one is <= threshold / (1 + margin) (clearly fails), 0 otherwise (keep sampling).
int clear_of(const std::vector<double> &a, const std::vector<double> &b, double threshold, int min_reps, double margin);

/// @brief The threshold compare_kernels stops at: @p opts.stop_when_clear_of, or 0 (every rep is
/// timed) where the setting CUDALAB_TIMING_FULL is set to anything but "" or "0".
double stop_threshold(const TimingOptions &opts);

/// @brief What the test programs watch in every timed sample (common/testing/launch_recorder.cpp
/// sets it): @p begin runs before the sample's start event, @p end after its stop event and returns
/// "" or why the sample does not measure the work: a launch on a stream the events do not wait
/// for, or, where @p must_launch (the candidate of compare_kernels), no kernel launched at all (a
/// launcher that skips work it did before). Unset (the demos): nothing is watched.
struct SampleWatch {
  void (*begin)() = nullptr;
  std::string (*end)(bool must_launch) = nullptr;
};
/// @brief Installs @p watch for every later timed sample of this program.
void set_sample_watch(SampleWatch watch);
}  // namespace detail

}  // namespace cudalab
