// The stopping rule of the timed tests (TimingOptions::stop_when_clear_of, detail::clear_of), on the
// host: no GPU. It may stop only where the grade of the samples so far cannot be on the other side
// of the threshold, and never before min_reps pairs; CUDALAB_TIMING_FULL turns it off.
#include "cudalab/settings.hpp"
#include "cudalab/timing.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {

using cudalab::detail::clear_of;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

TEST(TimingStopRule, NeverBeforeMinReps) {
  const std::vector<double> a(8, 2.0), b(8, 1.0);  // ratio 2 against threshold 1: clear, but 8 < 9
  EXPECT_EQ(clear_of(a, b, 1.0, 9, 0.1), 0);
  const std::vector<double> a9(9, 2.0), b9(9, 1.0);
  EXPECT_EQ(clear_of(a9, b9, 1.0, 9, 0.1), 1);
}

TEST(TimingStopRule, ClearPassAndClearFail) {
  const std::vector<double> b(9, 1.0);
  EXPECT_EQ(clear_of(std::vector<double>(9, 1.0), b, 0.8, 9, 0.1), 1);   // 1.0 >= 0.88
  EXPECT_EQ(clear_of(std::vector<double>(9, 0.5), b, 0.8, 9, 0.1), -1);  // 0.5 <= 0.727
}

TEST(TimingStopRule, OnePairNearTheThresholdKeepsSampling) {
  std::vector<double> a(12, 1.0), b(12, 1.0);
  a[7] = 0.85;  // 0.85 < 0.8 x 1.1: not clear, although the median is
  EXPECT_EQ(clear_of(a, b, 0.8, 9, 0.1), 0);
  a[7] = 0.75;  // within the margin below
  EXPECT_EQ(clear_of(a, b, 0.8, 9, 0.1), 0);
}

TEST(TimingStopRule, NearTheThresholdGetsEveryRep) {
  const std::vector<double> a(31, 0.82), b(31, 1.0);  // 0.82: above 0.8 but within the margin
  EXPECT_EQ(clear_of(a, b, 0.8, 9, 0.1), 0);
}

TEST(TimingStopRule, OffOrMeaninglessInputsNeverStop) {
  const std::vector<double> a(9, 2.0), b(9, 1.0);
  EXPECT_EQ(clear_of(a, b, 0.0, 9, 0.1), 0);  // no threshold: stop_when_clear_of is off
  std::vector<double> zero = b;
  zero[3] = 0.0;  // a zero time says nothing
  EXPECT_EQ(clear_of(a, zero, 1.0, 9, 0.1), 0);
  EXPECT_EQ(clear_of({}, {}, 1.0, 0, 0.1), 0);
}

// Whatever the samples, a stop agrees with the grade the same samples give: every pair on one side
// puts both medians on that side.
TEST(TimingStopRule, AStopNeverDisagreesWithTheMediansOfTheSamePairs) {
  std::mt19937_64 rng(20261128);
  std::lognormal_distribution<double> time(0.0, 0.3);
  std::uniform_real_distribution<double> speed(0.5, 1.6);
  int stops = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const double ratio = speed(rng), threshold = 0.8;
    std::vector<double> a, b;
    for (int i = 0; i < 9 + trial % 23; ++i) {
      const double c = time(rng);
      b.push_back(c);
      a.push_back(c * ratio * time(rng) / time(rng));
    }
    const int stop = clear_of(a, b, threshold, 9, 0.1);
    if (stop == 0) continue;
    ++stops;
    const double graded = median(a) / median(b);
    if (stop > 0) EXPECT_GE(graded, threshold) << "trial " << trial;
    if (stop < 0) EXPECT_LT(graded, threshold) << "trial " << trial;
  }
  EXPECT_GT(stops, 100);  // the rule does stop where the answer is clear
}

// CUDALAB_TIMING_FULL (tools/calibrate.py sets it): every rep is timed, whatever the test asks.
TEST(TimingStopRule, TimingFullSettingTurnsItOff) {
  cudalab::TimingOptions opts;
  opts.stop_when_clear_of = 0.8;
  const char *const name = "CUDALAB_TIMING_FULL";
  cudalab::detail::override_setting(name, nullptr);
  EXPECT_EQ(cudalab::detail::stop_threshold(opts), 0.8);
  cudalab::detail::override_setting(name, "0");
  EXPECT_EQ(cudalab::detail::stop_threshold(opts), 0.8);
  cudalab::detail::override_setting(name, "1");
  EXPECT_EQ(cudalab::detail::stop_threshold(opts), 0.0);
  cudalab::detail::override_setting(name, "yes");
  EXPECT_EQ(cudalab::detail::stop_threshold(opts), 0.0);
  opts.stop_when_clear_of = 0.0;  // off stays off
  cudalab::detail::override_setting(name, nullptr);
  EXPECT_EQ(cudalab::detail::stop_threshold(opts), 0.0);
}

}  // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
