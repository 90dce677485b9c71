// ch03_04 host tests: the Little's-law calculator against the book's own tables, step by step,
// plus random cases against the formula. No GPU needed.
#include "latency.cuh"

#include "cudalab/testing.cuh"

#include <cmath>
#include <random>
#include <sstream>

namespace {

/// Fails (one line) unless |got - want| <= tol; names the call, both values and the book's figure.
void expect_value(const char *call, double got, double want, double tol, const char *book) {
  if (std::fabs(got - want) <= tol) return;
  std::ostringstream os;  // default precision: 91.954, not 91.954022988505741
  os << call << ": expected " << want << " (" << book << "), got " << got << " (tolerance " << tol << ")";
  ADD_FAILURE() << os.str();
}

class LittlesLaw : public cudalab::HostTest {};

TEST_F(LittlesLaw, ArithmeticTableOfTheBook) {
  // 32-bit FMA: latency 20 cycles; 32 (Fermi) or 192 (Kepler) operations per cycle per SM.
  expect_value("required_parallelism(20, 32)", required_parallelism(20, 32), 640, 1e-9, "book: Fermi, 640 operations");
  expect_value("required_parallelism(20, 192)", required_parallelism(20, 192), 3840, 1e-9,
               "book: Kepler, 3840 operations");
  expect_value("warps_for_operations(640, 32)", warps_for_operations(640, 32), 20, 1e-9, "book: 640 / 32 = 20 warps");
  expect_value("warps_for_operations(3840, 32)", warps_for_operations(3840, 32), 120, 1e-9, "3840 / 32 = 120 warps");
}

TEST_F(LittlesLaw, FiveCycleLatencySixWarpsPerCycleNeedThirtyWarps) {
  // The book's figure: average latency 5 cycles, throughput 6 warps per cycle.
  expect_value("required_parallelism(5, 6)", required_parallelism(5, 6), 30, 1e-9, "book: 30 warps in flight");
}

TEST_F(LittlesLaw, FermiBandwidthIs92BytesPerCycle) {
  // 144 GB/s / 1.566 GHz = 91.95 B/cycle; the book prints 92.
  expect_value("bytes_per_cycle(144, 1.566)", bytes_per_cycle(144, 1.566), 144 / 1.566, 1e-9, "book: ~92 B/cycle");
  expect_value("bytes_per_cycle(144, 1.566)", bytes_per_cycle(144, 1.566), 92, 0.1, "book: ~92 B/cycle");
}

TEST_F(LittlesLaw, FermiMemoryTableStepByStep) {
  // Each step from the book's own (rounded) previous figure.
  expect_value("bytes_in_flight(800, 92)", bytes_in_flight(800, 92), 73600, 1e-6, "book: ~74 KB");
  expect_value("threads_needed(74000, 4)", threads_needed(74000, 4), 18500, 1e-6, "book: 74 KB / 4 B = 18,500 threads");
  const int warps = warps_needed(18500, 32);
  if (warps != 579)
    ADD_FAILURE() << "warps_needed(18500, 32): expected 579 (book: 18,500 / 32 = 578.1, a partial warp is a whole "
                     "warp), got "
                  << warps;
  expect_value("warps_per_sm(579, 16)", warps_per_sm(579, 16), 579.0 / 16, 1e-9, "book: 16 SMs, ~36 warps per SM");
}

TEST_F(LittlesLaw, PartialWarpsRoundUp) {
  const int cases[][3] = {{1, 32, 1}, {32, 32, 1}, {33, 32, 2}, {64, 32, 2}, {65, 32, 3}, {18400, 32, 575}};
  for (const auto &c : cases) {
    const int got = warps_needed(c[0], c[1]);
    if (got != c[2])
      ADD_FAILURE() << "warps_needed(" << c[0] << ", " << c[1] << "): expected " << c[2] << ", got " << got;
  }
}

TEST_F(LittlesLaw, FermiChainUnroundedIsWithinOnePercentOfTheBook) {
  // The book rounds every step (92, 74 KB, 18,500, 579, 36); the unrounded chain gives
  // 91.95 B/cycle, 73,563 B, 18,391 threads, 575 warps, 35.9 warps/SM.
  const MemoryParallelism m = memory_parallelism(800, 144, 1.566, 4, 32, 16);
  expect_value("memory_parallelism(...).bytes_per_cycle", m.bytes_per_cycle, 144 / 1.566, 1e-9, "144 / 1.566");
  expect_value("memory_parallelism(...).bytes_in_flight", m.bytes_in_flight, 800 * 144 / 1.566, 1e-6,
               "800 x 144 / 1.566");
  expect_value("memory_parallelism(...).bytes_in_flight", m.bytes_in_flight, 74000, 740, "book: ~74 KB");
  expect_value("memory_parallelism(...).threads", m.threads, 18500, 185, "book: ~18,500 threads");
  expect_value("memory_parallelism(...).warps", m.warps, 579, 5.79, "book: ~579 warps");
  expect_value("memory_parallelism(...).warps", m.warps, 575, 0, "ceil(18,391 / 32)");
  expect_value("memory_parallelism(...).warps_per_sm", m.warps_per_sm, 36, 0.36, "book: ~36 warps per SM");
}

TEST_F(LittlesLaw, KeplerRowOfTheBookDoesNotAddUp) {
  // The book's Kepler row: 250 GB/s, 1.6 GHz, "96 B/cycle", 77 KB. 250 / 1.6 is 156 B/cycle;
  // the 77 KB is 800 x 96. Check the units, not the table.
  expect_value("bytes_per_cycle(250, 1.6)", bytes_per_cycle(250, 1.6), 156.25, 1e-9, "250 / 1.6, not the book's 96");
  expect_value("bytes_in_flight(800, 96)", bytes_in_flight(800, 96), 76800, 1e-6, "book: ~77 KB");
}

TEST_F(LittlesLaw, SixteenByteLoadsNeedAQuarterOfTheThreads) {
  // "If each thread has more than one independent 4-byte load in flight, fewer threads are needed."
  expect_value("threads_needed(74000, 16)", threads_needed(74000, 16), 4625, 1e-6, "18,500 / 4");
  const int warps = warps_needed(4625, 32);
  if (warps != 145) ADD_FAILURE() << "warps_needed(4625, 32): expected 145 (4625 / 32 = 144.5), got " << warps;
}

TEST_F(LittlesLaw, RandomCasesObeyTheFormula) {
  std::mt19937_64 rng(seed());
  std::uniform_real_distribution<double> latency(1, 2000), rate(0.5, 500), clock(0.5, 3.0), per_thread(1, 64);
  std::uniform_int_distribution<int> sms(1, 200);
  for (int i = 0; i < 1000; ++i) {
    const double l = latency(rng), bw = rate(rng) * 10, ghz = clock(rng), b = per_thread(rng);
    const int s = sms(rng);
    const MemoryParallelism m = memory_parallelism(l, bw, ghz, b, 32, s);
    const double bpc = bw / ghz, inflight = l * bpc, threads = inflight / b;
    const int warps = static_cast<int>(std::ceil(threads / 32));
    const double tol = 1e-9 * inflight;
    if (std::fabs(m.bytes_per_cycle - bpc) > 1e-9 * bpc || std::fabs(m.bytes_in_flight - inflight) > tol ||
        std::fabs(m.threads - threads) > 1e-9 * threads || m.warps != warps ||
        std::fabs(m.warps_per_sm - double(warps) / s) > 1e-9 * warps) {
      ADD_FAILURE() << "memory_parallelism(" << l << ", " << bw << ", " << ghz << ", " << b << ", 32, " << s
                    << "): expected {" << bpc << " B/cycle, " << inflight << " B, " << threads << " threads, " << warps
                    << " warps, " << double(warps) / s << " warps/SM}, got {" << m.bytes_per_cycle << ", "
                    << m.bytes_in_flight << ", " << m.threads << ", " << m.warps << ", " << m.warps_per_sm << "} (seed "
                    << seed() << ")";
      return;
    }
    // Little's law both ways: what is in flight divided by the latency is the throughput again.
    const double ns = l / ghz;
    const double gbs = littles_law_bandwidth_gbs(inflight, ns);
    if (std::fabs(gbs - bw) > 1e-9 * bw) {
      ADD_FAILURE() << "littles_law_bandwidth_gbs(" << inflight << ", " << ns << "): expected " << bw << " GB/s, got "
                    << gbs << " (seed " << seed() << ")";
      return;
    }
  }
}

}  // namespace
