// ch03_09 demo: the seeds' block-shape sweep on 16384 x 16384 floats through your launcher, then
// your heuristic's pick for a few matrix shapes.
//
//   ./ch03_09_exposing_parallelism_demo                 the table
//   ./ch03_09_exposing_parallelism_demo --csv           the sweep only, as CSV (for tools/plots.py):
//     block_x,block_y,grid_x,grid_y,ms,gbs,pct_copy,book_ms,copy_gbs,result
//     (ms, gbs, pct_copy empty for a shape that was not launched; book_ms empty where the book's
//     launch failed; result: ok, WRONG or not launched)
//   ./ch03_09_exposing_parallelism_demo once BX BY      one launch, for a profiler:
//     ncu --clock-control none --metrics smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,\
//         l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second,sm__warps_active.avg.pct_of_peak_sustained_active \
//         ./ch03_09_exposing_parallelism_demo once 256 1
#include "parallelism.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.cuh"
#include "cudalab/timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char **argv) {
  const int n = 1 << 14;
  const std::size_t elems = std::size_t(n) * n;
  cudalab::demo::require_gpu();
  LaunchLimits limits;
  CUDALAB_CHECK(launch_limits(0, &limits));
  cudalab::demo::MatrixSum m = cudalab::demo::matrix_sum(elems);
  float *a = m.a.get(), *b = m.b.get(), *c = m.c.get();

  if (argc >= 4 && std::strcmp(argv[1], "once") == 0) {
    std::string why;
    const dim3 block(std::atoi(argv[2]), std::atoi(argv[3]));
    if (launch_sum_matrix(limits, a, b, c, n, n, block, &why) != cudaSuccess) {
      std::fprintf(stderr, "%s\n", why.c_str());
      return EXIT_FAILURE;
    }
    CUDALAB_CHECK_LAUNCH("sumMatrixOnGPU2D");
    return EXIT_SUCCESS;
  }

  const bool csv = argc >= 2 && std::strcmp(argv[1], "--csv") == 0;
  const auto [dev, copy_gbs] = cudalab::demo::start();
  std::vector<float> host;
  cudalab::demo::Table table({{nullptr, "block", "%-10s", "%s", ""},
                              {nullptr, "grid", "%-13s"},
                              {"block_x", nullptr, "", "%u"},
                              {"block_y", nullptr, "", "%u"},
                              {"grid_x", nullptr, "", "%u"},
                              {"grid_y", nullptr, "", "%u"},
                              {"ms", "ms", "%9.3f", "%.4f"},
                              {"gbs", "GB/s", "%8.0f", "%.1f"},
                              {"pct_copy", "%copy", "%6.1f%%", "%.1f"},
                              {"book_ms", "book ms", "%8.3f", "%.3f", " | "},
                              {"copy_gbs", nullptr, "", "%.1f"},
                              {"result", "result", "%s", "%s", "  "}},
                             csv);
  if (!csv)
    std::printf("%s\n16384 x 16384 floats (3 GiB moved per run), measured copy bandwidth %.0f GB/s\n\n",
                cudalab::describe_device(dev).c_str(), copy_gbs);
  table.header();
  struct Row {
    dim3 block;
    double book_ms;  // Tesla M2070, seed 000 sections 3.7 and 3.9
  } rows[] = {{dim3(32, 32), 60},     {dim3(32, 16), 38},     {dim3(16, 32), 51},     {dim3(16, 16), 46},
              {dim3(64, 2), 33.567},  {dim3(64, 4), 34.908},  {dim3(64, 8), 36.651},  {dim3(128, 2), 32.688},
              {dim3(128, 4), 34.786}, {dim3(128, 8), 46.157}, {dim3(256, 2), 32.793}, {dim3(256, 4), 38.092},
              {dim3(256, 8), 0},      {dim3(128, 1), 32.602}, {dim3(256, 1), 30.959}};
  using cudalab::demo::Cell;
  for (const Row &r : rows) {
    const dim3 grid = grid_for(n, n, r.block);
    const std::string bs = cudalab::demo::format("(%u,%u)", r.block.x, r.block.y);
    const std::string gs = cudalab::demo::format("(%u,%u)", grid.x, grid.y);
    // The book's launch of (256,8) failed: "error" in the table, empty in the CSV.
    const Cell book = r.book_ms > 0 ? Cell(r.book_ms) : Cell::raw("  error", "");
    std::string why;
    cudaError_t err = launch_sum_matrix(limits, a, b, c, n, n, r.block, &why);
    if (err != cudaSuccess) {
      // "not launched" spans the ms, GB/s and %copy columns of the table.
      table.row({bs, gs, r.block.x, r.block.y, grid.x, grid.y, Cell::raw("            not launched   ", ""),
                 Cell::covered(), Cell::covered(), book, copy_gbs, Cell::text(why, "not launched")});
      continue;
    }
    CUDALAB_CHECK(cudaDeviceSynchronize());
    cudalab::TimingStats t = cudalab::time_kernel([&] { launch_sum_matrix(limits, a, b, c, n, n, r.block, nullptr); });
    if (!t.ok) {
      std::fprintf(stderr, "%s\n", t.error.c_str());
      return EXIT_FAILURE;
    }
    CUDALAB_CHECK(cudaMemset(c, 0, m.c.bytes()));
    CUDALAB_CHECK(launch_sum_matrix(limits, a, b, c, n, n, r.block, nullptr));
    CUDALAB_CHECK_LAUNCH("sumMatrixOnGPU2D");
    const bool ok = cudalab::demo::every_element_is(m.c, m.want, &host);
    const double bw = cudalab::gbs(3.0 * elems * 4, t.median_ms);
    table.row({bs, gs, r.block.x, r.block.y, grid.x, grid.y, t.median_ms, bw, 100 * bw / copy_gbs, book, copy_gbs,
               ok ? "ok" : "WRONG"});
  }
  if (csv) return EXIT_SUCCESS;
  std::printf("\npick_block_shape:\n");
  const std::pair<int, int> mats[] = {{16384, 16384}, {100, 1000003}, {(1 << 22) + 1, 60}, {1000, 3}};
  for (auto [nx, ny] : mats) {
    const dim3 p = pick_block_shape(limits, nx, ny);
    std::printf("  %8d x %-8d -> block (%u,%u,%u)\n", nx, ny, p.x, p.y, p.z);
  }
  return EXIT_SUCCESS;
}
