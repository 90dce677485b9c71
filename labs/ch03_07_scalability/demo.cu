// ch03_07 demo: the seeds' sumMatrix on 16384 x 16384 floats, then transparent scalability.
//
//   ./ch03_07_scalability_demo
//
// Part 1: sumMatrixOnGPU2D with the seeds' four block shapes: time, GB/s, % of the measured copy
// bandwidth, beside the book's Tesla M2070 (Fermi) milliseconds.
// Part 2: sumMatrixGridStride on a grid that 1, 2, 4, ... SMs hold at once (k resident blocks per
// SM): time, GB/s and the speed-up over one SM's worth -- linear until the memory ceiling.
#include "sum_matrix.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.cuh"
#include "cudalab/timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

const int kN = 1 << 14;
const std::size_t kElems = std::size_t(kN) * kN;

/// "ok" if every element of C is A + B.
const char *result(const cudalab::demo::MatrixSum &m, std::vector<float> *host) {
  return cudalab::demo::every_element_is(m.c, m.want, host) ? "ok" : "WRONG";
}

}  // namespace

int main() {
  const auto [dev, copy_gbs] = cudalab::demo::start();
  // A and B hold constant bytes (no 2 GiB host upload); C = A + B is checked everywhere.
  const cudalab::demo::MatrixSum m = cudalab::demo::matrix_sum(kElems);
  const cudalab::DeviceBuffer<float> &a = m.a, &b = m.b, &c = m.c;
  const double bytes = 3.0 * kElems * sizeof(float);
  std::vector<float> host;

  std::printf(
      "%s\n16384 x 16384 floats (3 GiB moved per run), measured copy bandwidth %.0f GB/s (theoretical %.0f)\n\n",
      cudalab::describe_device(dev).c_str(), copy_gbs, dev.theoretical_bandwidth_gbs());
  std::printf("sumMatrixOnGPU2D: the seeds' block shapes\n");
  std::printf("%-9s %-13s %9s %8s %7s | %8s  %s\n", "block", "grid", "ms", "GB/s", "%copy", "book ms", "result");
  struct Shape {
    dim3 block;
    double book_ms;  // Tesla M2070, seed 000 section 3.7
  } shapes[] = {{dim3(32, 32), 60}, {dim3(32, 16), 38}, {dim3(16, 32), 51}, {dim3(16, 16), 46}};
  for (const Shape &s : shapes) {
    const dim3 grid = grid_for(kN, kN, s.block);
    const cudalab::TimingStats t = cudalab::demo::time_or_exit(
        "sumMatrixOnGPU2D", [&] { sumMatrixOnGPU2D<<<grid, s.block>>>(a.get(), b.get(), c.get(), kN, kN); });
    CUDALAB_CHECK(cudaMemset(c.get(), 0, c.bytes()));
    sumMatrixOnGPU2D<<<grid, s.block>>>(a.get(), b.get(), c.get(), kN, kN);
    CUDALAB_CHECK_LAUNCH("sumMatrixOnGPU2D");
    const double bw = cudalab::gbs(bytes, t.median_ms);
    char b1[32], b2[32];
    std::snprintf(b1, sizeof b1, "(%u,%u)", s.block.x, s.block.y);
    std::snprintf(b2, sizeof b2, "(%u,%u)", grid.x, grid.y);
    std::printf("%-9s %-13s %9.3f %8.0f %6.1f%% | %8.0f  %s\n", b1, b2, t.median_ms, bw, 100 * bw / copy_gbs, s.book_ms,
                result(m, &host));
  }

  const dim3 block(256, 1);
  int k = 0;
  CUDALAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, sumMatrixGridStride, 256, 0));
  if (k < 1) k = 1;
  std::printf("\nsumMatrixGridStride, block (256,1), %d resident blocks per SM: the grid one SM, two SMs, ... hold\n",
              k);
  std::printf("%-6s %7s %-11s %9s %8s %7s %8s %10s  %s\n", "SMs", "blocks", "grid", "ms", "GB/s", "%copy", "speed-up",
              "efficiency", "result");
  const int sms = dev.sm_count;
  const int counts[] = {1, 2, 4, 8, 16, sms / 8, sms / 4, sms / 2, 3 * sms / 4, sms};
  double one_sm_ms = 0;
  int last = 0;
  for (int s : counts) {
    if (s <= last) continue;
    last = s;
    const dim3 grid = grid_with_blocks(kN, kN, block, unsigned(k * s));
    cudalab::TimingOptions opts;
    opts.reps = s < 8 ? 5 : 21;
    const cudalab::TimingStats t = cudalab::demo::time_or_exit(
        "sumMatrixGridStride", [&] { sumMatrixGridStride<<<grid, block>>>(a.get(), b.get(), c.get(), kN, kN); }, opts);
    CUDALAB_CHECK(cudaMemset(c.get(), 0, c.bytes()));
    sumMatrixGridStride<<<grid, block>>>(a.get(), b.get(), c.get(), kN, kN);
    CUDALAB_CHECK_LAUNCH("sumMatrixGridStride");
    if (one_sm_ms == 0) one_sm_ms = t.median_ms;
    const double bw = cudalab::gbs(bytes, t.median_ms), speedup = one_sm_ms / t.median_ms;
    char g[32];
    std::snprintf(g, sizeof g, "(%u,%u)", grid.x, grid.y);
    std::printf("%-6d %7u %-11s %9.3f %8.0f %6.1f%% %7.2fx %9.0f%%  %s\n", s, grid.x * grid.y, g, t.median_ms, bw,
                100 * bw / copy_gbs, speedup, 100 * speedup / s, result(m, &host));
  }
  return EXIT_SUCCESS;
}
