// ch03_14 demo: then and now -- every reduction kernel of ch03_10 to ch03_14 on your GPU, beside
// the book's Tesla M2070 (Fermi) column, then the modern kernel against CUB and the copy at 1 GiB.
//
//   ./ch03_14_modern_reduction_demo [--csv]
//
// The ch03_10-ch03_12 kernels are reference copies kept in this file (so the table does not depend
// on how far you are in those labs); the ch03_14 rows are your kernels.
#include "modern_reduction.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/reference.hpp"
#include "cudalab/timing.cuh"

#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {

// ---- ch03_10: divergence (in place, chunk = blockDim.x) ----------------------------------------
__global__ void reduceNeighbored(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x, start = blockIdx.x * blockDim.x, count = min(blockDim.x, n - start);
  int *idata = g_idata + start;
  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0 && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceNeighboredLess(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x, start = blockIdx.x * blockDim.x, count = min(blockDim.x, n - start);
  int *idata = g_idata + start;
  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    unsigned int index = 2 * stride * tid;
    if (index + stride < count) idata[index] += idata[index + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceInterleaved(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x, start = blockIdx.x * blockDim.x, count = min(blockDim.x, n - start);
  int *idata = g_idata + start;
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// ---- ch03_11/12: unrolling, the reference kernels of those labs (chunk = U * blockDim.x) ----
__global__ void reduceUnrolling2(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int start = blockIdx.x * blockDim.x * 2;
  unsigned int idx = start + tid;
  int *idata = g_idata + start;

  // unroll: add the second data block onto the first (if that element exists)
  if (idx + blockDim.x < n) g_idata[idx] += g_idata[idx + blockDim.x];
  __syncthreads();

  // column tid holds a value only if its first element exists
  unsigned int count = min(blockDim.x, n - start);
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceUnrolling4(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int start = blockIdx.x * blockDim.x * 4;
  unsigned int idx = start + tid;
  int *idata = g_idata + start;

  if (idx + 3 * blockDim.x < n) {  // all four elements exist: four independent loads
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + blockDim.x];
    int a3 = g_idata[idx + 2 * blockDim.x];
    int a4 = g_idata[idx + 3 * blockDim.x];
    g_idata[idx] = a1 + a2 + a3 + a4;
  } else if (idx < n) {  // the ragged last chunk: add the ones that exist
    int sum = 0;
    for (unsigned int k = 0; k < 4 && idx + k * blockDim.x < n; ++k) sum += g_idata[idx + k * blockDim.x];
    g_idata[idx] = sum;
  }
  __syncthreads();

  unsigned int count = min(blockDim.x, n - start);
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceUnrolling8(int *g_idata, int *g_odata, unsigned int n) {
  unsigned int tid = threadIdx.x;
  unsigned int start = blockIdx.x * blockDim.x * 8;
  unsigned int idx = start + tid;
  int *idata = g_idata + start;

  if (idx + 7 * blockDim.x < n) {
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + blockDim.x];
    int a3 = g_idata[idx + 2 * blockDim.x];
    int a4 = g_idata[idx + 3 * blockDim.x];
    int b1 = g_idata[idx + 4 * blockDim.x];
    int b2 = g_idata[idx + 5 * blockDim.x];
    int b3 = g_idata[idx + 6 * blockDim.x];
    int b4 = g_idata[idx + 7 * blockDim.x];
    g_idata[idx] = a1 + a2 + a3 + a4 + b1 + b2 + b3 + b4;
  } else if (idx < n) {
    int sum = 0;
    for (unsigned int k = 0; k < 8 && idx + k * blockDim.x < n; ++k) sum += g_idata[idx + k * blockDim.x];
    g_idata[idx] = sum;
  }
  __syncthreads();

  unsigned int count = min(blockDim.x, n - start);
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride && tid + stride < count) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void reduceUnrollWarps8(int *g_idata, int *g_odata, unsigned int n) {
  __shared__ int smem[1024];
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 8 + tid;

  // unroll 8 into a register, then stage the column sum in shared memory (0 if it has no element)
  int sum = 0;
  if (idx + 7 * blockDim.x < n) {
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + blockDim.x];
    int a3 = g_idata[idx + 2 * blockDim.x];
    int a4 = g_idata[idx + 3 * blockDim.x];
    int b1 = g_idata[idx + 4 * blockDim.x];
    int b2 = g_idata[idx + 5 * blockDim.x];
    int b3 = g_idata[idx + 6 * blockDim.x];
    int b4 = g_idata[idx + 7 * blockDim.x];
    sum = a1 + a2 + a3 + a4 + b1 + b2 + b3 + b4;
  } else {
    for (unsigned int k = 0; k < 8 && idx + k * blockDim.x < n; ++k) sum += g_idata[idx + k * blockDim.x];
  }
  smem[tid] = sum;
  __syncthreads();

  for (unsigned int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (tid < stride) smem[tid] += smem[tid + stride];
    __syncthreads();
  }

  // the last warp: no block barrier, but every read of a neighbour's element is separated from
  // that neighbour's next write by __syncwarp()
  if (tid < 32) {
    int v = smem[tid] + smem[tid + 32];
    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
      __syncwarp();
      smem[tid] = v;
      __syncwarp();
      v += smem[tid + offset];
    }
    if (tid == 0) g_odata[blockIdx.x] = v;
  }
}

__global__ void reduceCompleteUnrollWarps8(int *g_idata, int *g_odata, unsigned int n) {
  __shared__ int smem[1024];
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x * 8 + tid;

  int sum = 0;
  if (idx + 7 * blockDim.x < n) {
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + blockDim.x];
    int a3 = g_idata[idx + 2 * blockDim.x];
    int a4 = g_idata[idx + 3 * blockDim.x];
    int b1 = g_idata[idx + 4 * blockDim.x];
    int b2 = g_idata[idx + 5 * blockDim.x];
    int b3 = g_idata[idx + 6 * blockDim.x];
    int b4 = g_idata[idx + 7 * blockDim.x];
    sum = a1 + a2 + a3 + a4 + b1 + b2 + b3 + b4;
  } else {
    for (unsigned int k = 0; k < 8 && idx + k * blockDim.x < n; ++k) sum += g_idata[idx + k * blockDim.x];
  }
  smem[tid] = sum;
  __syncthreads();

  // the interleaved loop, completely unrolled (blockDim.x is a power of two in [64, 1024])
  if (blockDim.x >= 1024 && tid < 512) smem[tid] += smem[tid + 512];
  __syncthreads();
  if (blockDim.x >= 512 && tid < 256) smem[tid] += smem[tid + 256];
  __syncthreads();
  if (blockDim.x >= 256 && tid < 128) smem[tid] += smem[tid + 128];
  __syncthreads();
  if (blockDim.x >= 128 && tid < 64) smem[tid] += smem[tid + 64];
  __syncthreads();

  // the last warp with register shuffles: no shared memory, so nothing to race on
  if (tid < 32) {
    int v = smem[tid] + smem[tid + 32];
    v += __shfl_down_sync(0xffffffffu, v, 16);
    v += __shfl_down_sync(0xffffffffu, v, 8);
    v += __shfl_down_sync(0xffffffffu, v, 4);
    v += __shfl_down_sync(0xffffffffu, v, 2);
    v += __shfl_down_sync(0xffffffffu, v, 1);
    if (tid == 0) g_odata[blockIdx.x] = v;
  }
}

template <unsigned int iBlockSize>
__global__ void reduceCompleteUnroll(int *g_idata, int *g_odata, unsigned int n) {
  __shared__ int smem[iBlockSize];
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * iBlockSize * 8 + tid;

  int sum = 0;
  if (idx + 7 * iBlockSize < n) {
    int a1 = g_idata[idx];
    int a2 = g_idata[idx + iBlockSize];
    int a3 = g_idata[idx + 2 * iBlockSize];
    int a4 = g_idata[idx + 3 * iBlockSize];
    int b1 = g_idata[idx + 4 * iBlockSize];
    int b2 = g_idata[idx + 5 * iBlockSize];
    int b3 = g_idata[idx + 6 * iBlockSize];
    int b4 = g_idata[idx + 7 * iBlockSize];
    sum = a1 + a2 + a3 + a4 + b1 + b2 + b3 + b4;
  } else {
    for (unsigned int k = 0; k < 8 && idx + k * iBlockSize < n; ++k) sum += g_idata[idx + k * iBlockSize];
  }
  smem[tid] = sum;
  __syncthreads();

  // decided at compile time: for iBlockSize = 256 the first two steps disappear
  if (iBlockSize >= 1024 && tid < 512) smem[tid] += smem[tid + 512];
  if (iBlockSize >= 1024) __syncthreads();
  if (iBlockSize >= 512 && tid < 256) smem[tid] += smem[tid + 256];
  if (iBlockSize >= 512) __syncthreads();
  if (iBlockSize >= 256 && tid < 128) smem[tid] += smem[tid + 128];
  if (iBlockSize >= 256) __syncthreads();
  if (iBlockSize >= 128 && tid < 64) smem[tid] += smem[tid + 64];
  if (iBlockSize >= 128) __syncthreads();

  if (tid < 32) {
    int v = smem[tid] + smem[tid + 32];
    v += __shfl_down_sync(0xffffffffu, v, 16);
    v += __shfl_down_sync(0xffffffffu, v, 8);
    v += __shfl_down_sync(0xffffffffu, v, 4);
    v += __shfl_down_sync(0xffffffffu, v, 2);
    v += __shfl_down_sync(0xffffffffu, v, 1);
    if (tid == 0) g_odata[blockIdx.x] = v;
  }
}

// ---- ch03_14 ablation: reduceModern's structure with 4-byte loads ------------------------------
__global__ void reduceGridStrideScalar(const int *g_idata, unsigned int n, int *g_sum) {
  __shared__ int warp_sums[32];
  int sum = 0;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += g_idata[i];
  for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
    for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if (threadIdx.x == 0) atomicAdd(g_sum, sum);
  }
}

struct Row {
  const char *name;
  const char *lab;
  double book_s;  // the book's Tesla M2070 time in seconds (0: not in the book)
  std::function<void()> launch;
  bool in_place;
  std::function<long long()> result;  // the sum the run produced
};

}  // namespace

int main(int argc, char **argv) {
  const bool csv = argc > 1 && std::strcmp(argv[1], "--csv") == 0;
  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  const double copy_gbs = cudalab::measured_copy_bandwidth_gbs();
  const unsigned int n = 1u << 24, block = 512;

  std::vector<int> input = cudalab::random_ints(n, 0, 255, 2024);  // the book's rand() & 0xFF
  const long long cpu_sum = cudalab::cpu::sum(input);
  cudalab::DeviceBuffer<int> pristine, work, out, sum;
  CUDALAB_CHECK(pristine.upload(input));
  CUDALAB_CHECK(work.allocate(n));
  CUDALAB_CHECK(out.allocate(n / 64 + 1));
  CUDALAB_CHECK(sum.allocate(1));
  auto restore = [&] { cudaMemcpyAsync(work.get(), pristine.get(), work.bytes(), cudaMemcpyDeviceToDevice); };
  auto partial_total = [&](unsigned int grid) {
    std::vector<int> p;
    CUDALAB_CHECK(out.download(&p));
    long long t = 0;
    for (unsigned int b = 0; b < grid; ++b) t += p[b];
    return t;
  };
  auto scalar_total = [&] {
    std::vector<int> s;
    CUDALAB_CHECK(sum.download(&s));
    return static_cast<long long>(s[0]);
  };
  std::size_t cub_bytes = 0;
  CUDALAB_CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, pristine.get(), sum.get(), static_cast<int>(n)));
  cudalab::DeviceBuffer<unsigned char> cub_temp;
  CUDALAB_CHECK(cub_temp.allocate(cub_bytes));

  const unsigned int g1 = n / block, g8 = n / (8 * block),
                     gm = modern_grid(n, dev.sm_count, dev.max_threads_per_sm, kModernBlock);
  int *w = work.get(), *o = out.get(), *s = sum.get();
  const int *in = pristine.get();
  auto with_zero = [&](auto launch) {
    return [&, launch] {
      cudaMemsetAsync(s, 0, sizeof(int));
      launch();
    };
  };
  std::vector<Row> rows = {
      {"reduceNeighbored", "ch03_10", 0.011722, [&] { reduceNeighbored<<<g1, block>>>(w, o, n); }, true,
       [&] { return partial_total(g1); }},
      {"reduceNeighboredLess", "ch03_10", 0.009321, [&] { reduceNeighboredLess<<<g1, block>>>(w, o, n); }, true,
       [&] { return partial_total(g1); }},
      {"reduceInterleaved", "ch03_10", 0.006967, [&] { reduceInterleaved<<<g1, block>>>(w, o, n); }, true,
       [&] { return partial_total(g1); }},
      {"reduceUnrolling2", "ch03_11", 0.003430, [&] { reduceUnrolling2<<<g1 / 2, block>>>(w, o, n); }, true,
       [&] { return partial_total(g1 / 2); }},
      {"reduceUnrolling4", "ch03_11", 0.001829, [&] { reduceUnrolling4<<<g1 / 4, block>>>(w, o, n); }, true,
       [&] { return partial_total(g1 / 4); }},
      {"reduceUnrolling8", "ch03_11", 0.001422, [&] { reduceUnrolling8<<<g8, block>>>(w, o, n); }, true,
       [&] { return partial_total(g8); }},
      {"reduceUnrollWarps8", "ch03_11", 0.001355, [&] { reduceUnrollWarps8<<<g8, block>>>(w, o, n); }, true,
       [&] { return partial_total(g8); }},
      {"reduceCompleteUnrollWarps8", "ch03_11", 0.001280, [&] { reduceCompleteUnrollWarps8<<<g8, block>>>(w, o, n); },
       true, [&] { return partial_total(g8); }},
      {"reduceCompleteUnroll<512>", "ch03_12", 0.001253, [&] { reduceCompleteUnroll<512><<<g8, block>>>(w, o, n); },
       true, [&] { return partial_total(g8); }},
      {"reduceShuffle8 (yours)", "ch03_14", 0, [&] { reduceShuffle8<<<g8, block>>>(in, o, n); }, false,
       [&] { return partial_total(g8); }},
      {"grid-stride, 4-byte loads", "ch03_14", 0,
       with_zero([&] { reduceGridStrideScalar<<<gm, kModernBlock>>>(in, n, s); }), false, scalar_total},
      {"reduceModern (yours)", "ch03_14", 0, with_zero([&] { reduceModern<<<gm, kModernBlock>>>(in, n, s); }), false,
       scalar_total},
      {"cub::DeviceReduce::Sum", "CUB", 0,
       [&] { cub::DeviceReduce::Sum(cub_temp.get(), cub_bytes, in, s, static_cast<int>(n)); }, false, scalar_total},
  };

  if (csv) {
    std::printf("kernel,lab,ms,gbs,pct_copy,step_speedup,cumulative_speedup,book_ms,book_cumulative\n");
  } else {
    std::printf(
        "%s\nn = 2^24 ints, block 512 (reduceModern: %u x %u), cold L2, measured copy bandwidth %.0f GB/s "
        "(theoretical %.0f)\n\n",
        cudalab::describe_device(dev).c_str(), gm, kModernBlock, copy_gbs, dev.theoretical_bandwidth_gbs());
    std::printf("%-27s %-8s %8s %7s %6s %6s %7s | %8s %7s  %s\n", "kernel", "lab", "ms", "GB/s", "%copy", "step",
                "cumul", "book ms", "cumul", "result");
  }
  double first_ms = 0, prev_ms = 0;
  for (const Row &r : rows) {
    cudalab::TimingOptions opts;
    opts.flush_l2 = true;
    opts.reps = 31;
    cudalab::TimingStats t =
        cudalab::time_kernel(r.launch, opts, r.in_place ? std::function<void()>(restore) : nullptr);
    if (!t.ok) {
      std::fprintf(stderr, "%s: %s\n", r.name, t.error.c_str());
      return EXIT_FAILURE;
    }
    restore();
    CUDALAB_CHECK(cudaMemset(s, 0, sizeof(int)));
    r.launch();
    CUDALAB_CHECK_LAUNCH("reduction");
    // One int holds the total modulo 2^32 (the book's own sum, 2139353471, is just below 2^31).
    const bool ok = static_cast<std::uint32_t>(r.result()) == static_cast<std::uint32_t>(cpu_sum);
    if (first_ms == 0) first_ms = prev_ms = t.median_ms;
    const double bw = cudalab::gbs(double(n) * sizeof(int), t.median_ms);
    char book[32] = "-", book_cum[32] = "-";
    if (r.book_s > 0) {
      std::snprintf(book, sizeof book, "%.3f", 1e3 * r.book_s);
      std::snprintf(book_cum, sizeof book_cum, "%.2fx", rows[0].book_s / r.book_s);
    }
    if (csv) {
      std::printf("%s,%s,%.4f,%.1f,%.1f,%.3f,%.3f,%s,%s\n", r.name, r.lab, t.median_ms, bw, 100 * bw / copy_gbs,
                  prev_ms / t.median_ms, first_ms / t.median_ms, book, book_cum);
    } else {
      std::printf("%-27s %-8s %8.4f %7.0f %5.1f%% %5.2fx %6.2fx | %8s %7s  %s\n", r.name, r.lab, t.median_ms, bw,
                  100 * bw / copy_gbs, prev_ms / t.median_ms, first_ms / t.median_ms, book, book_cum,
                  ok ? "ok" : "WRONG SUM");
    }
    prev_ms = t.median_ms;
  }

  // 1 GiB: where the bandwidth ceiling, not the launch, decides.
  const unsigned int big = 1u << 28;
  cudalab::DeviceBuffer<int> b_in, b_dst;
  CUDALAB_CHECK(b_in.upload(cudalab::random_ints(big, -1000, 1000, 7)));
  CUDALAB_CHECK(b_dst.allocate(big));
  std::size_t big_bytes = 0;
  CUDALAB_CHECK(cub::DeviceReduce::Sum(nullptr, big_bytes, b_in.get(), s, static_cast<int>(big)));
  cudalab::DeviceBuffer<unsigned char> big_temp;
  CUDALAB_CHECK(big_temp.allocate(big_bytes));
  const unsigned int gb = modern_grid(big, dev.sm_count, dev.max_threads_per_sm, kModernBlock);
  struct Big {
    const char *name;
    double bytes_factor;  // bytes moved / (4 n)
    std::function<void()> launch;
  } bigs[] = {
      {"cudaMemcpy D2D (read + write)", 2.0,
       [&] { cudaMemcpyAsync(b_dst.get(), b_in.get(), b_in.bytes(), cudaMemcpyDeviceToDevice); }},
      {"cub::DeviceReduce::Sum", 1.0,
       [&] { cub::DeviceReduce::Sum(big_temp.get(), big_bytes, b_in.get(), s, static_cast<int>(big)); }},
      {"reduceModern + zeroing (yours)", 1.0,
       [&] {
         cudaMemsetAsync(s, 0, sizeof(int));
         reduceModern<<<gb, kModernBlock>>>(b_in.get(), big, s);
       }},
      {"reduceModern kernel only", 1.0, [&] { reduceModern<<<gb, kModernBlock>>>(b_in.get(), big, s); }},
      {"grid-stride, 4-byte loads", 1.0,
       [&] {
         cudaMemsetAsync(s, 0, sizeof(int));
         reduceGridStrideScalar<<<gb, kModernBlock>>>(b_in.get(), big, s);
       }},
  };
  std::printf("\nn = 2^28 ints (1 GiB), median of 21 runs\n%-32s %8s %7s %8s\n", "", "ms", "GB/s", "% copy");
  double copy_big = 0;
  for (const Big &b : bigs) {
    cudalab::TimingOptions opts;
    cudalab::TimingStats t = cudalab::time_kernel(b.launch, opts);
    CUDALAB_CHECK_LAUNCH("1 GiB runs");
    const double bw = cudalab::gbs(b.bytes_factor * big * sizeof(int), t.median_ms);
    if (copy_big == 0) copy_big = bw;
    std::printf("%-32s %8.4f %7.0f %7.1f%%\n", b.name, t.median_ms, bw, 100 * bw / copy_big);
  }
  return EXIT_SUCCESS;
}
