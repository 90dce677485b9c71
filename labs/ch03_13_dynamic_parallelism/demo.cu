// ch03_13 demo: the book's nestedHello and nestedReduce programs for your GPU.
//
//   ./ch03_13_dynamic_parallelism_demo [--quiet]
//
// 1. nestedHelloWorld<<<2, 8>>>, with the book's printed lines and the device-side record.
// 2. What one device-side launch costs, beside one host-side launch.
// 3. The book's nested reduction table (2^20 ints, block 512): the flat reduceNeighbored against
//    your two recursive reductions and the book's fire-and-forget nestedReduce2.
// 4. The book's nestedReduce2 against the tail launch on a large grid: wrong sums in 10 runs.
#include "nested.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/demo.cuh"
#include "cudalab/device.cuh"
#include "cudalab/reference.hpp"
#include "cudalab/timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {

/// The flat reduction the book compares against (its reduceNeighbored, fixed for any n).
__global__ void flatNeighbored(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x, start = blockIdx.x * blockDim.x;
  int *idata = g_idata + start;
  unsigned int count = min(blockDim.x, n - start);
  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0 && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

/// The book's gpuRecursiveReduce2 as printed (bounds fixed only): the next level is launched
/// fire-and-forget by block 0, thread 0, right after ITS OWN addition -- before the other threads
/// of block 0 and the other blocks have added theirs. Nothing guarantees that the child sees
/// their additions: a race in the programming model, whether or not a given GPU shows it.
__global__ void bookRecursiveReduce2(int *g_idata, int *g_odata, int iStride, int const iDim, unsigned int n) {
  unsigned int start = blockIdx.x * iDim, count = min(static_cast<unsigned int>(iDim), n - start);
  int *idata = g_idata + start;
  if (iStride == 1) {
    if (threadIdx.x == 0) g_odata[blockIdx.x] = idata[0] + (count > 1 ? idata[1] : 0);
    return;
  }
  if (threadIdx.x + iStride < count) idata[threadIdx.x] += idata[threadIdx.x + iStride];
  if (threadIdx.x == 0 && blockIdx.x == 0)
    bookRecursiveReduce2<<<gridDim.x, iStride / 2>>>(g_idata, g_odata, iStride / 2, iDim, n);
}

__global__ void emptyKernel() {}

/// One thread launches @p k empty child grids (fire-and-forget).
__global__ void launchChildren(int k, int *errors) {
  for (int i = 0; i < k; ++i) {
    emptyKernel<<<1, 1, 0, cudaStreamFireAndForget>>>();
    if (cudaGetLastError() != cudaSuccess) atomicAdd(errors, 1);
  }
}

/// A chain of @p k tail launches: each grid tail-launches the next one.
__global__ void tailChain(int k) {
  if (k > 1) tailChain<<<1, 1, 0, cudaStreamTailLaunch>>>(k - 1);
}

}  // namespace

int main(int argc, char **argv) {
  const bool quiet = argc > 1 && std::strcmp(argv[1], "--quiet") == 0;
  cudalab::demo::require_gpu();
  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  CUDALAB_CHECK(configure_device_runtime());
  std::printf("%s\n\n", cudalab::describe_device(dev).c_str());

  // 1. nestedHelloWorld<<<2, 8>>>.
  {
    cudalab::DeviceBuffer<HelloRecord> rec;
    CUDALAB_CHECK(rec.allocate(1));
    HelloRecord h{};
    h.verbose = quiet ? 0 : 1;
    CUDALAB_CHECK(cudaMemcpy(rec.get(), &h, sizeof h, cudaMemcpyHostToDevice));
    std::printf("== nestedHelloWorld<<<2, 8>>>(8, 0)\n");
    std::fflush(stdout);
    nestedHelloWorld<<<2, 8>>>(8, 0, rec.get());
    CUDALAB_CHECK_LAUNCH("nestedHelloWorld");
    CUDALAB_CHECK(cudaMemcpy(&h, rec.get(), sizeof h, cudaMemcpyDeviceToHost));
    std::printf("depth  grids  blocks  threads  blockDim   (launch errors: %d)\n", h.launch_errors);
    for (int d = 0; d < kMaxHelloDepth && h.grids[d] > 0; ++d)
      std::printf("%5d %6d %7d %8d %9d\n", d, h.grids[d], h.blocks[d], h.threads[d], h.block_dim[d]);
    std::printf("\n");
  }

  // 2. Launch cost.
  {
    const int k = 4096;
    cudalab::DeviceBuffer<int> errors;
    CUDALAB_CHECK(errors.allocate(1));
    CUDALAB_CHECK(cudaMemset(errors.get(), 0, sizeof(int)));
    cudalab::TimingOptions opts;
    auto none = cudalab::time_kernel([&] { launchChildren<<<1, 1>>>(0, errors.get()); }, opts);
    auto many = cudalab::time_kernel([&] { launchChildren<<<1, 1>>>(k, errors.get()); }, opts);
    auto chain = cudalab::time_kernel([&] { tailChain<<<1, 1>>>(64); }, opts);
    auto host = cudalab::time_kernel(
        [&] {
          for (int i = 0; i < k; ++i) emptyKernel<<<1, 1>>>();
        },
        opts);
    CUDALAB_CHECK_LAUNCH("launch-cost kernels");
    int err_count = 0;
    CUDALAB_CHECK(cudaMemcpy(&err_count, errors.get(), sizeof(int), cudaMemcpyDeviceToHost));
    if (!none.ok || !many.ok || !chain.ok || !host.ok) {
      std::fprintf(stderr, "timing failed\n");
      return EXIT_FAILURE;
    }
    std::printf("== launch cost (median of %d runs)\n", many.reps);
    std::printf("device: one thread launches %d empty grids: %.3f ms -> %.2f us per launch (%d launch errors)\n", k,
                many.median_ms, 1e3 * (many.median_ms - none.median_ms) / k, err_count);
    std::printf("device: chain of 64 tail launches:          %.3f ms -> %.2f us per level\n", chain.median_ms,
                1e3 * chain.median_ms / 64);
    std::printf("host:   %d empty launches in a row:       %.3f ms -> %.2f us per launch\n\n", k, host.median_ms,
                1e3 * host.median_ms / k);
  }

  // 3. The book's nested reduction table.
  const unsigned int n = 1u << 20, block = 512;
  const cudalab::demo::ReductionInput input = cudalab::demo::reduction_input(n);
  const cudalab::DeviceBuffer<int> &work = input.work;
  cudalab::DeviceBuffer<int> out;
  CUDALAB_CHECK(out.allocate(nested_grid(n, block)));
  auto restore = [&] { input.restore(); };
  struct Row {
    const char *name;
    const char *book;  // Tesla K40c, the book's nestedReduce output
    unsigned int grid, threads;
    std::function<void()> launch;
  };
  const unsigned int g = nested_grid(n, block);
  std::vector<Row> rows = {
      {"flat reduceNeighbored", "0.532", g, block, [&] { flatNeighbored<<<g, block>>>(work.get(), out.get(), n); }},
      {"gpuRecursiveReduceNosync", "59.125", g, block,
       [&] { gpuRecursiveReduceNosync<<<g, block>>>(work.get(), out.get(), n); }},
      {"gpuRecursiveReduce2 (tail launch)", "-", g, block / 2,
       [&] { gpuRecursiveReduce2<<<g, block / 2>>>(work.get(), out.get(), block / 2, block, n); }},
      {"book's nestedReduce2 (plain launch)", "0.797", g, block / 2,
       [&] { bookRecursiveReduce2<<<g, block / 2>>>(work.get(), out.get(), block / 2, block, n); }},
  };
  std::printf("== nested reduction, n = 2^20 ints, chunk 512 per block, input restored before each run\n");
  std::printf(
      "(book, Tesla K40c: device-synchronising gpuRecursiveReduce 172.036 ms -- it does not compile for "
      "CDP2)\n");
  std::printf("%-36s %10s %9s %10s  %-10s %s\n", "kernel", "ms", "x flat", "book ms", "<<<g, b>>>", "result");
  double flat_ms = 0;
  for (const Row &r : rows) {
    cudalab::TimingOptions opts;
    opts.reps = 11;
    const cudalab::TimingStats t = cudalab::demo::time_or_exit(r.name, r.launch, opts, restore);
    restore();
    CUDALAB_CHECK(cudaMemset(out.get(), 0xCD, out.bytes()));
    r.launch();
    CUDALAB_CHECK_LAUNCH("reduction");
    const long long sum = cudalab::demo::sum_of_partials(out, out.size());
    if (flat_ms == 0) flat_ms = t.median_ms;
    std::printf("%-36s %10.4f %8.1fx %10s  <<<%u,%u>>> %s\n", r.name, t.median_ms, t.median_ms / flat_ms, r.book,
                r.grid, r.threads, sum == input.sum ? "ok" : "WRONG SUM");
  }

  // 4. The race, on a grid large enough that block 0 finishes long before the last blocks start.
  //    (Whether it shows depends on how the GPU schedules the child grid; it is never guaranteed.)
  {
    const unsigned int big = (1u << 24) + 7, iDim = 512, gb = nested_grid(big, iDim);
    std::vector<int> data = cudalab::random_ints(big, -1000, 1000, 7);
    const long long want = cudalab::cpu::sum(data);
    cudalab::DeviceBuffer<int> d_in, d_out;
    CUDALAB_CHECK(d_out.allocate(gb));
    int wrong_book = 0, wrong_tail = 0;
    for (int run = 0; run < 10; ++run) {
      for (int variant = 0; variant < 2; ++variant) {
        CUDALAB_CHECK(d_in.upload(data));
        if (variant == 0)
          bookRecursiveReduce2<<<gb, iDim / 2>>>(d_in.get(), d_out.get(), iDim / 2, iDim, big);
        else
          gpuRecursiveReduce2<<<gb, iDim / 2>>>(d_in.get(), d_out.get(), iDim / 2, iDim, big);
        CUDALAB_CHECK_LAUNCH("recursive reduction");
        if (cudalab::demo::sum_of_partials(d_out, d_out.size()) != want) ++(variant == 0 ? wrong_book : wrong_tail);
      }
    }
    std::printf("\n== race check, n = 2^24 + 7, %u blocks per level, 10 runs each\n", gb);
    std::printf("book's nestedReduce2 (plain launch)   : %d of 10 runs wrong\n", wrong_book);
    std::printf("gpuRecursiveReduce2 (tail launch):      %d of 10 runs wrong\n", wrong_tail);
  }
  return EXIT_SUCCESS;
}
