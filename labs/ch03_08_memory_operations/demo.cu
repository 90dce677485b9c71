// ch03_08 demo: measured bandwidth beside the predicted load efficiency, for the seeds' block
// shapes and the column-major kernel, on 16384 x 16384 floats.
//
//   ./ch03_08_memory_operations_demo                 the table
//   ./ch03_08_memory_operations_demo once BX BY [col]  one launch, for a profiler:
//     ncu --clock-control none --metrics smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,\
//         l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second,sm__warps_active.avg.pct_of_peak_sustained_active \
//         ./ch03_08_memory_operations_demo once 16 16
#include "memory_operations.cuh"

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
  cudalab::demo::MatrixSum m = cudalab::demo::matrix_sum(elems);
  const cudalab::DeviceBuffer<float> &a = m.a, &b = m.b, &c = m.c;

  if (argc >= 4 && std::strcmp(argv[1], "once") == 0) {
    const dim3 block(std::atoi(argv[2]), std::atoi(argv[3]));
    if (argc >= 5 && std::strcmp(argv[4], "col") == 0)
      sumMatrixColumnMajor<<<grid_for_column_major(n, n, block), block>>>(a.get(), b.get(), c.get(), n, n);
    else
      sumMatrixCoalesced<<<grid_for(n, n, block), block>>>(a.get(), b.get(), c.get(), n, n);
    CUDALAB_CHECK_LAUNCH("sumMatrix");
    return EXIT_SUCCESS;
  }

  const auto [dev, copy_gbs] = cudalab::demo::start();
  std::vector<float> host;

  std::printf("%s\n16384 x 16384 floats (3 GiB moved per run), measured copy bandwidth %.0f GB/s\n\n",
              cudalab::describe_device(dev).c_str(), copy_gbs);
  std::printf("%-22s %9s %8s %7s | %-21s | %-30s %s\n", "", "", "", "", "predicted gld_eff", "book (Fermi M2070)", "");
  std::printf("%-22s %9s %8s %7s | %10s %10s | %6s %8s %8s %9s  %s\n", "kernel, block", "ms", "GB/s", "%copy",
              "32B sect", "128B line", "ms", "gld_eff", "gld_thr", "ach_occ", "result");
  struct Row {
    dim3 block;
    bool column_major;
    const char *book;  // ms, gld_efficiency, gld_throughput, achieved_occupancy on the M2070
  } rows[] = {{dim3(32, 32), false, "    60  100.00%   35.9GB/s  0.501"},
              {dim3(32, 16), false, "    38  100.00%   56.5GB/s  0.737"},
              {dim3(16, 32), false, "    51   49.96%   85.2GB/s  0.766"},
              {dim3(16, 16), false, "    46   49.80%   94.7GB/s  0.811"},
              {dim3(8, 32), false, "     -        -          -      -"},
              {dim3(4, 64), false, "     -        -          -      -"},
              {dim3(32, 16), true, "     -        -          -      -"}};
  for (const Row &r : rows) {
    auto launch = [&] {
      if (r.column_major)
        sumMatrixColumnMajor<<<grid_for_column_major(n, n, r.block), r.block>>>(a.get(), b.get(), c.get(), n, n);
      else
        sumMatrixCoalesced<<<grid_for(n, n, r.block), r.block>>>(a.get(), b.get(), c.get(), n, n);
    };
    cudalab::TimingStats t = cudalab::time_kernel(launch);
    if (!t.ok) {
      std::fprintf(stderr, "%s\n", t.error.c_str());
      return EXIT_FAILURE;
    }
    CUDALAB_CHECK(cudaMemset(c.get(), 0, c.bytes()));
    launch();
    CUDALAB_CHECK_LAUNCH("sumMatrix");
    const bool ok = cudalab::demo::every_element_is(c, m.want, &host);
    const Mapping m = r.column_major ? Mapping::kColumnMajor : Mapping::kRowMajor;
    const LoadEfficiency e32 = load_efficiency(r.block, n, m, 4, 32), e128 = load_efficiency(r.block, n, m, 4, 128);
    char name[40];
    std::snprintf(name, sizeof name, "%s (%u,%u)", r.column_major ? "ColumnMajor" : "Coalesced", r.block.x, r.block.y);
    const double bw = cudalab::gbs(3.0 * elems * 4, t.median_ms);
    std::printf("%-22s %9.3f %8.0f %6.1f%% | %9.1f%% %9.1f%% | %s  %s\n", name, t.median_ms, bw, 100 * bw / copy_gbs,
                100 * e32.efficiency, 100 * e128.efficiency, r.book, ok ? "ok" : "WRONG");
  }
  return EXIT_SUCCESS;
}
