// ch05_04 performance: the tiled kernels against the handed-out naive kernel and against cuBLAS
// SGEMM (FP32, no TF32), side by side in this process on 4096 x 4096 x 4096 (137 GFLOP per product).
#include "baseline.cuh"
#include "matmul.cuh"
#include "matmul_check.cuh"

#include "cudalab/testing.cuh"

#include <cublas_v2.h>

#include <cstdio>

namespace {

constexpr int kN = 4096;

// cuBLAS must compute in FP32 for the ratio to mean anything. In FP32 the error of an element is a
// random walk of roundings: a CPU simulation of 2000 dot products of 4096 terms (sequential FMA, the
// worst order) gives at most 2.5 u of sum |a||b|, u = 2^-24; with TF32 inputs (10-bit mantissas) the
// same simulation gives 330 u. 16 u separates them.
constexpr double kNoTf32Tolerance = 16 * kFloatU;

class TiledPerformance : public cudalab::GpuTest {
 protected:
  /// Random inputs on the host and the device.
  bool prepare() {
    const cudaError_t err = gemm_.init(kN, kN, kN, seed());
    if (err != cudaSuccess) ADD_FAILURE() << cudalab::describe_error(err, "BigGemm::init", __FILE__, __LINE__);
    return err == cudaSuccess;
  }
  /// Checks matrixMulTiled<tile> on the input it will be timed on ("" when right).
  std::string check_tiled(int tile) {
    return gemm_.check(
        tiled_name(tile),
        [tile](const float *a, const float *b, float *ab, int M, int N, int K) {
          return launch_tiled(tile, a, b, ab, M, N, K);
        },
        "tile=" + std::to_string(tile), matmul_tolerance(kN));
  }
  static std::string tiled_name(int tile) { return "matrixMulTiled<" + std::to_string(tile) + ">"; }
  void run_tiled(int tile) { launch_tiled(tile, gemm_.a(), gemm_.b(), gemm_.ab(), kN, kN, kN); }
  /// Timing options for matrixMulTiled<tile>: every timed run gets one changed element of a and a
  /// poisoned ab, and a random share of them is checked (the changed row in full, and a sample).
  cudalab::TimingOptions options(int tile) {
    cudalab::TimingOptions opts;
    opts.reps = 21;  // 64 MB per matrix: the working set does not fit in L2 either way
    opts.check = gemm_.sample_check(tiled_name(tile), "tile=" + std::to_string(tile), matmul_tolerance(kN));
    return opts;
  }
  /// One line with both kernels' GFLOP/s.
  void print_gflops(const std::string &candidate, const std::string &baseline, const cudalab::Comparison &cmp) {
    const double c = gemm_.flops() / (cmp.candidate.median_ms * 1e-3) / 1e9;
    const double b = gemm_.flops() / (cmp.baseline.median_ms * 1e-3) / 1e9;
    char line[300];
    std::snprintf(line, sizeof line, "%s: %.0f GFLOP/s; %s: %.0f GFLOP/s (M = N = K = %d)", candidate.c_str(), c,
                  baseline.c_str(), b, kN);
    cudalab::Measurement m;  // no threshold: the figure the speed-up line below is about
    m.text = line;
    cudalab::report_perf(m);
  }
  /// matrixMulTiled<tile> against the naive kernel (block 16 x 16), threshold @p key.
  void versus_naive(int tile, const char *key) {
    if (!prepare()) return;
    if (std::string error = check_tiled(tile); !error.empty())
      GTEST_FAIL() << tiled_name(tile) << " is not timed until it is correct: " << error;
    cudalab::Comparison cmp =
        cudalab::compare_kernels([&] { launch_naive_baseline(gemm_.a(), gemm_.b(), gemm_.ab(), kN, kN, kN); },
                                 [&] { run_tiled(tile); }, options(tile));
    print_gflops(tiled_name(tile), "matrixMulNaive", cmp);
    cudalab::expect_speedup(
        {tiled_name(tile) + " (4096^3)", "matrixMulNaive block (16,16)", cmp, cudalab::threshold(key), key, 0.0});
  }

  BigGemm gemm_;
};

TEST_F(TiledPerformance, Tiled16BeatsNaive) { versus_naive(16, "tiled16_vs_naive"); }

TEST_F(TiledPerformance, Tiled32BeatsNaive) { versus_naive(32, "tiled32_vs_naive"); }

// The ratio is cuBLAS time / tiled time: the fraction of cuBLAS's speed the tiled kernel reaches.
// ab is row-major; cuBLAS is column-major, where a row-major M x N matrix reads as its N x M
// transpose. So cuBLAS computes ab^T = b^T a^T: an N x M result from b^T (N x K, leading
// dimension N) times a^T (K x M, leading dimension K) -- which is exactly ab in row-major order.
TEST_F(TiledPerformance, Tiled32ReachesFractionOfCublas) {
  if (!prepare()) return;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) GTEST_FAIL() << "cublasCreate failed";
  struct Destroy {
    cublasHandle_t h;
    ~Destroy() { cublasDestroy(h); }
  } destroy{handle};
  // CUBLAS_DEFAULT_MATH: FP32 SGEMM without tensor cores (TF32 only with CUBLAS_TF32_TENSOR_OP_MATH
  // or the NVIDIA_TF32_OVERRIDE environment variable); checked below by the error.
  if (cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS)
    GTEST_FAIL() << "cublasSetMathMode failed";
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  auto sgemm = [&](const float *a, const float *b, float *ab, int M, int N, int K) {
    status = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, N, a, K, &zero, ab, N);
    return status == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
  };
  double cublas_error = 0.0;
  if (std::string error = gemm_.check("cublasSgemm", sgemm, "FP32", kNoTf32Tolerance, &cublas_error); !error.empty())
    GTEST_FAIL() << "cuBLAS SGEMM does not compute in FP32 here (TF32 enabled? unset NVIDIA_TF32_OVERRIDE): " << error
                 << " (cuBLAS status " << status << ")";
  std::printf("[ CUDALAB  ] cuBLAS SGEMM max error %.2f u of sum|a||b| on 2000 samples: FP32, no TF32\n",
              cublas_error / kFloatU);
  if (std::string error = check_tiled(32); !error.empty())
    GTEST_FAIL() << "matrixMulTiled<32> is not timed until it is correct: " << error;
  cudalab::Comparison cmp = cudalab::compare_kernels([&] { sgemm(gemm_.a(), gemm_.b(), gemm_.ab(), kN, kN, kN); },
                                                     [&] { run_tiled(32); }, options(32));
  print_gflops("matrixMulTiled<32>", "cublasSgemm", cmp);
  cudalab::expect_speedup({"matrixMulTiled<32> (4096^3)", "cublasSgemm FP32", cmp,
                           cudalab::threshold("tiled32_vs_cublas"), "tiled32_vs_cublas", 0.0});
}

}  // namespace
