// ch03_16 host tests (no GPU): the scheduler model on hand-derived cases (each derived in its
// comment), against the tests' own copy of the model on fresh random cases (fractional warps,
// ILP 1..32, latencies 1..40 cycles: what one GPU measures cannot be hard-coded), warps to
// saturate, warps per scheduler from occupancy, and scheduler_view_from_device on synthetic
// devices of every compute capability in cudalab/arch.hpp.
//
// scheduler_view_from_device asks the CUDA runtime. As in ch03_03 and ch03_05, this test binary
// defines the runtime functions it may call (cudaGetDevice, cudaDeviceGetAttribute,
// cudaGetDeviceProperties) itself: a definition in the executable takes precedence over the shared
// CUDA runtime's, so the answers come from the synthetic device of the running test, on any
// machine. A view that is right only for the GPU it was written on (64 warps per SM) fails here.
#include "scheduling_check.cuh"
#include "warp_scheduling.cuh"

#include "cudalab/apart.hpp"
#include "cudalab/testing.cuh"
#include "synthetic_device.hpp"

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

namespace {

using cudalab::synthetic::Arch;
using cudalab::synthetic::kArchs;

std::string args(double w, int k, double l) {
  std::ostringstream os;
  os << "predict_scheduler(warps=" << w << ", ilp=" << k << ", latency=" << l << ")";
  return os.str();
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

class SchedulerModel : public cudalab::HostTest {};

TEST_F(SchedulerModel, IssueUtilizationHandDerived) {
  struct Case {
    double w;
    int k;
    double l, want;
    const char *why;
  };
  const Case cases[] = {
      {1, 1, 4, 0.25, "one warp, one chain: an fmaf every 4 cycles"},
      {2, 1, 4, 0.5, "two warps take turns: 2 issues per 4 cycles"},
      {1, 2, 4, 0.5, "two independent chains in one warp do as much as two warps"},
      {3, 1, 4.5, 3 / 4.5, "3 warps x 1/4.5"},
      {4, 1, 4, 1, "4 warps x 1/4 = 1: just saturated"},
      {8, 1, 4, 1, "twice the warps needed: still one issue per cycle"},
      {1, 4, 4, 1, "ILP 4 = latency: one warp issues every cycle"},
      {1, 8, 4, 1, "a warp issues at most once per cycle, however many chains it has"},
      {0.5, 8, 4, 0.5, "half a warp on average: it issues at most once per cycle, so 0.5"},
      {6, 1, 20, 0.3, "the book's 20-cycle latency: 6/20"},
      {10, 2, 20, 1, "10 x 2/20 = 1"},
      {0, 3, 4, 0, "no warps, no issue"},
  };
  for (const Case &c : cases)
    EXPECT_TRUE(close(predict_scheduler(c.w, c.k, c.l).issue_utilization, c.want))
        << args(c.w, c.k, c.l) << ".issue_utilization = " << predict_scheduler(c.w, c.k, c.l).issue_utilization
        << ", expected " << c.want << ": " << c.why;
}

TEST_F(SchedulerModel, EligibleWarpsHandDerived) {
  struct Case {
    double w;
    int k;
    double l, want;
    const char *why;
  };
  const Case cases[] = {
      {1, 1, 4, 0.25, "stall-bound: a warp is eligible only in the cycle it issues"},
      {2, 1, 4, 0.5, "stall-bound: eligible = issue"},
      {6, 3, 20, 0.9, "6 x 3/20 = 0.9 < 1: stall-bound, eligible = 0.9"},
      {4, 1, 4, 1, "the boundary: both regimes give 1"},
      {8, 1, 4, 5, "issue-bound: the warps issued in the last 3 cycles still wait (4-cycle latency), 8 - 3"},
      {16, 1, 4, 13, "16 - 3"},
      {8, 2, 4, 7, "two chains: after issuing both, a warp waits 2 cycles, one warp per issue: 8 - (4/2 - 1)"},
      {8, 4, 4, 8, "ILP 4 = latency: no warp ever waits"},
      {2, 8, 4, 2, "more chains than latency: no warp waits"},
      {0.5, 8, 4, 0.5, "half a warp on average, never waiting: 0.5, not more than the warps there are"},
      {32, 1, 20, 13, "the book's latency, 32 warps: 32 - 19"},
      {0, 1, 4, 0, "no warps"},
  };
  for (const Case &c : cases)
    EXPECT_TRUE(close(predict_scheduler(c.w, c.k, c.l).eligible_warps, c.want))
        << args(c.w, c.k, c.l) << ".eligible_warps = " << predict_scheduler(c.w, c.k, c.l).eligible_warps
        << ", expected " << c.want << ": " << c.why;
}

TEST_F(SchedulerModel, WarpStateSharesHandDerived) {
  struct Case {
    double w;
    int k;
    double l, selected, not_selected, waiting;
    const char *why;
  };
  const Case cases[] = {
      {2, 1, 4, 0.25, 0, 0.75, "each warp issues 1 cycle in 4 and waits 3; nobody queues"},
      {8, 1, 4, 0.125, 0.5, 0.375, "1 of 8 issues, 3 wait, 4 are eligible but not selected"},
      {8, 4, 4, 0.125, 0.875, 0, "nobody waits; 7 of 8 queue for the issue slot"},
      {1, 4, 4, 1, 0, 0, "one warp, issuing every cycle"},
      {0, 1, 4, 0, 0, 0, "no warps: no cycles to share"},
  };
  for (const Case &c : cases) {
    const SchedulerPrediction p = predict_scheduler(c.w, c.k, c.l);
    EXPECT_TRUE(close(p.selected_share, c.selected) && close(p.not_selected_share, c.not_selected) &&
                close(p.waiting_share, c.waiting))
        << args(c.w, c.k, c.l) << ": selected / not selected / waiting shares " << p.selected_share << " / "
        << p.not_selected_share << " / " << p.waiting_share << ", expected " << c.selected << " / " << c.not_selected
        << " / " << c.waiting << ": " << c.why;
  }
}

TEST_F(SchedulerModel, MatchesTheModelOnRandomCases) {
  std::mt19937_64 gen(seed());
  std::uniform_real_distribution<double> warps(0.0, 64.0), latency(1.0, 40.0);
  int wrong = 0;
  for (int i = 0; i < 20000 && wrong < 5; ++i) {
    // Whole warps half of the time, averages otherwise; whole latencies half of the time.
    const double w = (i % 2) ? warps(gen) : double(gen() % 65);
    const int k = 1 + int(gen() % 32);
    const double l = (i % 4 < 2) ? latency(gen) : double(1 + gen() % 40);
    const SchedulerPrediction got = predict_scheduler(w, k, l), want = model_prediction(w, k, l);
    const bool ok = close(got.issue_utilization, want.issue_utilization) &&
                    close(got.eligible_warps, want.eligible_warps) && close(got.selected_share, want.selected_share) &&
                    close(got.not_selected_share, want.not_selected_share) &&
                    close(got.waiting_share, want.waiting_share);
    if (!ok) {
      ++wrong;
      ADD_FAILURE() << args(w, k, l) << " = {issue " << got.issue_utilization << ", eligible " << got.eligible_warps
                    << ", shares " << got.selected_share << " / " << got.not_selected_share << " / "
                    << got.waiting_share << "}, expected {issue " << want.issue_utilization << ", eligible "
                    << want.eligible_warps << ", shares " << want.selected_share << " / " << want.not_selected_share
                    << " / " << want.waiting_share << "}";
    }
    if (w > 0 && std::fabs(got.selected_share + got.not_selected_share + got.waiting_share - 1) > 1e-9 && wrong < 5) {
      ++wrong;
      ADD_FAILURE() << args(w, k, l) << ": the three shares add up to "
                    << got.selected_share + got.not_selected_share + got.waiting_share
                    << ", not 1 (every active warp-cycle is selected, eligible but not selected, or waiting)";
    }
  }
}

TEST_F(SchedulerModel, WarpsToSaturate) {
  struct Case {
    int k;
    double l;
    int want;
  };
  // ceil(L / min(k, L)): 4 warps at ILP 1, 2 at ILP 2, 1 from ILP 4 on (4-cycle latency); the
  // book's 20 cycles: 20 warps at ILP 1, ceil(20/3) = 7 at ILP 3; 4.5 cycles: 5 warps, then 3, 2.
  const Case cases[] = {{1, 4, 4},  {2, 4, 2},  {3, 4, 2},   {4, 4, 1},   {8, 4, 1},   {1, 20, 20},
                        {3, 20, 7}, {4, 20, 5}, {1, 4.5, 5}, {2, 4.5, 3}, {3, 4.5, 2}, {1, 1, 1}};
  for (const Case &c : cases)
    EXPECT_EQ(warps_to_saturate(c.k, c.l), c.want) << "warps_to_saturate(ilp=" << c.k << ", latency=" << c.l << ")";
  std::mt19937_64 gen(seed());
  std::uniform_real_distribution<double> latency(1.0, 60.0);
  int wrong = 0;
  for (int i = 0; i < 20000 && wrong < 5; ++i) {
    const int k = 1 + int(gen() % 16);
    const double l = latency(gen), q = l / std::min(double(k), l);
    if (std::fabs(q - std::round(q)) < 1e-6) continue;  // a tie: W x (k/L) lands on 1 up to rounding
    const int want = int(std::ceil(q)), got = warps_to_saturate(k, l);
    if (got != want && ++wrong)
      ADD_FAILURE() << "warps_to_saturate(ilp=" << k << ", latency=" << l << ") = " << got << ", expected " << want;
  }
}

TEST_F(SchedulerModel, WarpsPerSchedulerFromOccupancy) {
  const SchedulerView hopper{4, 64, 16}, turing{4, 32, 8}, ada{4, 48, 12};
  EXPECT_DOUBLE_EQ(warps_per_scheduler(1.0, hopper), 16.0) << "64 warps per SM over 4 schedulers";
  EXPECT_DOUBLE_EQ(warps_per_scheduler(0.25, hopper), 4.0) << "occupancy 25 % on sm_90: 16 warps per SM";
  EXPECT_DOUBLE_EQ(warps_per_scheduler(1.0, turing), 8.0) << "sm_75: 32 warps per SM";
  EXPECT_DOUBLE_EQ(warps_per_scheduler(0.75, turing), 6.0) << "sm_75 at 75 %";
  EXPECT_DOUBLE_EQ(warps_per_scheduler(0.5, ada), 6.0) << "sm_89 (48 warps per SM) at 50 %";
  EXPECT_DOUBLE_EQ(warps_per_scheduler(0.3, ada), 0.3 * 12) << "not rounded: an average";
  EXPECT_DOUBLE_EQ(warps_per_scheduler(0.0, ada), 0.0);
  const SchedulerView two{2, 64, 32};  // a made-up SM with two schedulers: the view is an input
  EXPECT_DOUBLE_EQ(warps_per_scheduler(0.5, two), 16.0) << "SchedulerView{2 schedulers, 64 warps}: 32 warps over 2";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// scheduler_view_from_device on synthetic devices (tests/support/synthetic_device.hpp)
// ---------------------------------------------------------------------------------------------
namespace {
const Arch *g_device = nullptr;  // the synthetic device answering the calls below (none: no GPU)
}  // namespace

namespace {
cudaError_t synthetic_cudaGetDevice(int *device) {
  *device = 0;
  return g_device ? cudaSuccess : cudaErrorNoDevice;
}
}  // namespace
cudaError_t cudaGetDevice(int *device) { return cudalab::apart::in_parent<&synthetic_cudaGetDevice>(device); }
namespace {
cudaError_t synthetic_cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  *value = 0;
  if (!g_device) return cudaErrorNoDevice;
  if (device != 0) return cudaErrorInvalidDevice;
  bool known = false;
  *value = cudalab::synthetic::attribute(*g_device, attr, &known);
  return known ? cudaSuccess : cudaErrorInvalidValue;
}
}  // namespace
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  return cudalab::apart::in_parent<&synthetic_cudaDeviceGetAttribute>(value, attr, device);
}
namespace {
cudaError_t synthetic_cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  std::memset(prop, 0, sizeof *prop);
  if (!g_device) return cudaErrorNoDevice;
  if (device != 0) return cudaErrorInvalidDevice;
  cudalab::synthetic::properties(*g_device, prop);
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  return cudalab::apart::in_parent<&synthetic_cudaGetDeviceProperties>(prop, device);
}

namespace {

class SyntheticDevices : public cudalab::HostTest {
 protected:
  void TearDown() override { g_device = nullptr; }
};

TEST_F(SyntheticDevices, SchedulerViewOnEveryArchitecture) {
  for (const Arch &a : kArchs) {
    g_device = &a;
    SchedulerView got;
    const cudaError_t err = scheduler_view_from_device(0, &got);
    ASSERT_EQ(err, cudaSuccess) << "scheduler_view_from_device(0) on a synthetic " << a.name << " returned "
                                << cudaGetErrorName(err);
    const int warps = a.max_threads_per_sm / 32;
    EXPECT_TRUE(got.schedulers_per_sm == 4 && got.max_warps_per_sm == warps && got.max_warps_per_scheduler == warps / 4)
        << "scheduler_view_from_device(0) on a synthetic " << a.name << " (" << a.max_threads_per_sm
        << " threads per SM): {" << got.schedulers_per_sm << " schedulers, " << got.max_warps_per_sm << " warps per SM, "
        << got.max_warps_per_scheduler << " per scheduler}, expected {4, " << warps << ", " << warps / 4 << "}";
  }
  // A device that does not exist: the runtime's error, and nothing written.
  g_device = &kArchs[0];
  SchedulerView untouched{-7, -7, -7};
  const cudaError_t err = scheduler_view_from_device(3, &untouched);
  EXPECT_EQ(err, cudaErrorInvalidDevice) << "scheduler_view_from_device(3) on a machine with one GPU returned "
                                         << cudaGetErrorName(err) << ", expected the runtime's cudaErrorInvalidDevice";
  EXPECT_EQ(untouched.max_warps_per_sm, -7) << "scheduler_view_from_device wrote *out although it failed";
}

}  // namespace
