// ch05_05 demo: your conflict model for a few tile row strides, then the three transposes side by
// side on an L2-resident matrix and on a 8192 x 8192 one: time, bandwidth, % of the measured copy
// bandwidth, and the speed-up over transposeShared.
//
//   ./ch05_05_bank_conflicts_demo                                 the tables
//   ./ch05_05_bank_conflicts_demo once naive|shared|padded [rows cols]   one launch (default 2048 x 2048), for ncu:
//     ncu --clock-control none --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
//         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
//         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum \
//         ./ch05_05_bank_conflicts_demo once shared
#include "bank_conflicts.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

const char *const kNames[] = {"naive", "shared", "padded"};
void (*const kLaunch[])(const float *, float *, int, int, cudaStream_t) = {
    launch_transpose_naive, launch_transpose_shared, launch_transpose_padded};

bool correct(int k, const std::vector<float> &host, const cudalab::DeviceBuffer<float> &in,
             cudalab::DeviceBuffer<float> &out, int rows, int cols) {
  CUDALAB_CHECK(out.poison());
  kLaunch[k](in.get(), out.get(), rows, cols, 0);
  CUDALAB_CHECK_LAUNCH("transpose");
  std::vector<float> got(std::size_t(rows) * cols);
  CUDALAB_CHECK(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t r = 0; r < std::size_t(rows); ++r)
    for (std::size_t c = 0; c < std::size_t(cols); ++c)
      if (got[c * rows + r] != host[r * cols + c]) return false;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 3 && std::strcmp(argv[1], "once") == 0) {
    const int rows = argc >= 5 ? std::atoi(argv[3]) : 2048, cols = argc >= 5 ? std::atoi(argv[4]) : 2048;
    int k = 0;
    while (k < 3 && std::strcmp(argv[2], kNames[k]) != 0) ++k;
    if (k == 3 || rows < 1 || cols < 1) {
      std::fprintf(stderr, "usage: %s once naive|shared|padded [rows cols]\n", argv[0]);
      return EXIT_FAILURE;
    }
    cudalab::DeviceBuffer<float> in, out;
    CUDALAB_CHECK(in.upload(cudalab::random_floats(std::size_t(rows) * cols, -1, 1, 1)));
    CUDALAB_CHECK(out.allocate(std::size_t(rows) * cols));
    kLaunch[k](in.get(), out.get(), rows, cols, 0);
    CUDALAB_CHECK_LAUNCH("transpose");
    return EXIT_SUCCESS;
  }

  std::printf("your conflict_degree (a warp reads one column of a tile, rows `stride` words apart):\n ");
  for (int s : {1, 2, 4, 8, 16, 31, 32, 33, 48, 64, 65}) std::printf(" %d:%d-way", s, conflict_degree(s));
  std::printf("\n\n");

  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  const double copy_gbs = cudalab::measured_copy_bandwidth_gbs();
  std::printf("%s\nblocks of 32 x 8, 32 x 32 tiles; measured copy bandwidth %.0f GB/s (each float read once, "
              "written once)\n\n",
              cudalab::describe_device(dev).c_str(), copy_gbs);
  const int small = static_cast<int>(std::sqrt(double(dev.l2_bytes ? dev.l2_bytes : (4u << 20)) / 32)) | 1;
  const int shapes[][2] = {{small, small + 6}, {8192, 8192}, {8191, 8197}};
  std::printf("%-12s %-8s %9s %8s %7s %12s | %s\n", "rows x cols", "kernel", "ms", "GB/s", "%copy", "vs shared",
              "result");
  for (const auto &shape : shapes) {
    const int rows = shape[0], cols = shape[1];
    const std::vector<float> host = cudalab::random_floats(std::size_t(rows) * cols, -1000, 1000, 1);
    cudalab::DeviceBuffer<float> in, out;
    CUDALAB_CHECK(in.upload(host));
    CUDALAB_CHECK(out.allocate(host.size()));
    double ms[3] = {0, 0, 0};
    bool ok[3];
    for (int k = 0; k < 3; ++k) {
      ok[k] = correct(k, host, in, out, rows, cols);
      const cudalab::TimingStats t = cudalab::time_kernel([&] { kLaunch[k](in.get(), out.get(), rows, cols, 0); });
      if (!t.ok) {
        std::fprintf(stderr, "%s\n", t.error.c_str());
        return EXIT_FAILURE;
      }
      ms[k] = t.median_ms;
    }
    for (int k = 0; k < 3; ++k) {
      const double bw = cudalab::gbs(2.0 * rows * double(cols) * sizeof(float), ms[k]);
      char label[32];
      std::snprintf(label, sizeof label, "%dx%d", rows, cols);
      std::printf("%-12s %-8s %9.4f %8.0f %6.1f%% %11.2fx | %s\n", k == 0 ? label : "", kNames[k], ms[k], bw,
                  100 * bw / copy_gbs, ms[1] / ms[k], ok[k] ? "ok" : "WRONG");
    }
  }
  std::printf("\n(the first shape fits in L2 with room to spare; \"vs shared\": transposeShared time / this time)\n");
  return EXIT_SUCCESS;
}
