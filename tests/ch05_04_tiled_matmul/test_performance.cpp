// ch05_04 performance: the tiled kernels against the reference solution's matrixMulTiled of the
// same tile, compiled into the tests (machine code only), side by side in this process; where the
// reference cannot run, against the handed-out naive kernel and against cuBLAS SGEMM (FP32, no
// TF32), as the lab measures them, on 4096 x 4096 x 4096 (137 GFLOP per product).
#include "baseline.cuh"
#include "matmul.cuh"
#include "matmul_check.cuh"

#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"

#include <cublas_v2.h>

#include <cstdio>
#include <string>

namespace {

constexpr int kN = 4096;

// The second product timed against the reference (Tiled32ReachesFractionOfCublas): about the work
// of 4096^3, every dimension different and none a multiple of 16, so every edge tile is partial.
constexpr int kRaggedM = 4001, kRaggedN = 4003, kRaggedK = 4005;

// cuBLAS must compute in FP32 for the ratio to mean anything. In FP32 the error of an element is a
// random walk of roundings: a CPU simulation of 2000 dot products of 4096 terms (sequential FMA, the
// worst order) gives at most 2.5 u of sum |a||b|, u = 2^-24; with TF32 inputs (10-bit mantissas) the
// same simulation gives 330 u. 16 u separates them.
constexpr double kNoTf32Tolerance = 16 * kFloatU;

/// matrixMulTiled<16> and matrixMulTiled<32> have one type: the reference kernels' parameters.
using TiledDecl = decltype(&matrixMulTiled<16>);
/// A reference matrixMulTiled<tile>, loaded from the reference solution's image.
using TiledRef = cudalab::RefKernel<const float *, const float *, float *, int, int, int>;

class TiledPerformance : public cudalab::GpuTest {
 protected:
  /// Random inputs on the host and the device, M x K times K x N.
  bool prepare(int M = kN, int N = kN, int K = kN) {
    const cudaError_t err = gemm_.init(M, N, K, seed());
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
        "tile=" + std::to_string(tile), matmul_tolerance(gemm_.K()));
  }
  static std::string tiled_name(int tile) { return "matrixMulTiled<" + std::to_string(tile) + ">"; }
  /// "matrixMulTiled<tile> (4096^3)", or with the product's three sizes when they differ.
  std::string candidate_name(int tile) const {
    if (gemm_.M() == gemm_.N() && gemm_.N() == gemm_.K())
      return tiled_name(tile) + " (" + std::to_string(gemm_.M()) + "^3)";
    return tiled_name(tile) + " (" + std::to_string(gemm_.M()) + "x" + std::to_string(gemm_.N()) + "x" +
           std::to_string(gemm_.K()) + ")";
  }
  void run_tiled(int tile) { launch_tiled(tile, gemm_.a(), gemm_.b(), gemm_.ab(), gemm_.M(), gemm_.N(), gemm_.K()); }
  /// Timing options for matrixMulTiled<tile>: every timed run gets one changed element of a and a
  /// poisoned ab, and a random share of them is checked (the changed row in full, and a sample).
  /// Sampling stops once the ratio is clear of the threshold @p key the comparison is graded against.
  cudalab::TimingOptions options(int tile, const char *key) {
    cudalab::TimingOptions opts;
    opts.reps = 21;  // 64 MB per matrix: the working set does not fit in L2 either way
    opts.stop_when_clear_of = cudalab::threshold(key);
    opts.check = gemm_.sample_check(tiled_name(tile), "tile=" + std::to_string(tile), matmul_tolerance(gemm_.K()));
    return opts;
  }
  /// One line with both kernels' GFLOP/s.
  void print_gflops(const std::string &candidate, const std::string &baseline, const cudalab::Comparison &cmp) {
    const double c = gemm_.flops() / (cmp.candidate.median_ms * 1e-3) / 1e9;
    const double b = gemm_.flops() / (cmp.baseline.median_ms * 1e-3) / 1e9;
    char sizes[80];
    if (gemm_.M() == gemm_.N() && gemm_.N() == gemm_.K())
      std::snprintf(sizes, sizeof sizes, "M = N = K = %d", gemm_.M());
    else
      std::snprintf(sizes, sizeof sizes, "M = %d, N = %d, K = %d", gemm_.M(), gemm_.N(), gemm_.K());
    char line[400];
    std::snprintf(line, sizeof line, "%s: %.0f GFLOP/s; %s: %.0f GFLOP/s (%s)", candidate.c_str(), c, baseline.c_str(),
                  b, sizes);
    cudalab::Measurement m;  // no threshold: the figure the speed-up line below is about
    m.text = line;
    cudalab::report_perf(m);
  }

  /// @brief The reference solution's matrixMulTiled<tile>, launched as the solution's launch_tiled
  /// launches it (ceil(N / tile) x ceil(M / tile) blocks of tile x tile threads, no dynamic shared
  /// memory, the default stream), after one trial run on the product of this test checked like
  /// the student's kernel. Empty, with the reason in @p why, where it cannot run here or its
  /// result is wrong (the test then grades against its baseline).
  MatmulLaunch reference_tiled(int tile, std::string *why) {
    // The instantiations of the solution's matmul.cu, named by its launch_tiled (readelf -s).
    const char *mangled =
        tile == 16 ? "_Z14matrixMulTiledILi16EEvPKfS1_Pfiii" : "_Z14matrixMulTiledILi32EEvPKfS1_Pfiii";
    auto as_launch = [tile](const TiledRef &kernel) -> MatmulLaunch {
      return [kernel, tile](const float *a, const float *b, float *ab, int M, int N, int K) {
        const dim3 grid((N + tile - 1) / tile, (M + tile - 1) / tile), block(tile, tile);
        return kernel.launch(grid, block, 0, nullptr, a, b, ab, M, N, K);
      };
    };
    const TiledRef kernel =
        cudalab::checked_reference_kernel(static_cast<TiledDecl>(nullptr), mangled, [&](const TiledRef &k) {
          return gemm_.check("the reference solution's " + tiled_name(tile), as_launch(k),
                             "tile=" + std::to_string(tile), matmul_tolerance(gemm_.K()));
        });
    *why = kernel.why_not();
    if (!kernel) return {};
    return as_launch(kernel);
  }

  /// @brief Times matrixMulTiled<tile> against @p reference (the reference solution's kernel of
  /// the same tile, reference_tiled()) on the product of this test, threshold @p key: about 1.0
  /// for a correct kernel on any GPU.
  void versus_reference(int tile, const MatmulLaunch &reference, const char *key) {
    if (std::string error = check_tiled(tile); !error.empty())
      GTEST_FAIL() << tiled_name(tile) << " is not timed until it is correct: " << error;
    const std::string name = "the reference solution's " + tiled_name(tile);
    cudalab::Comparison cmp =
        cudalab::compare_kernels([&] { reference(gemm_.a(), gemm_.b(), gemm_.ab(), gemm_.M(), gemm_.N(), gemm_.K()); },
                                 [&] { run_tiled(tile); }, options(tile, key));
    print_gflops(tiled_name(tile), name, cmp);
    cudalab::expect_speedup({candidate_name(tile), name, cmp, cudalab::threshold(key), key, 0.0});
  }

  /// matrixMulTiled<tile> on 4096^3 against the reference solution's matrixMulTiled<tile>,
  /// threshold @p reference_key; where the reference cannot run, against the naive kernel (block
  /// 16 x 16), threshold @p naive_key.
  void keeps_up(int tile, const char *reference_key, const char *naive_key) {
    if (!prepare()) return;
    std::string why;
    if (const MatmulLaunch reference = reference_tiled(tile, &why)) {
      versus_reference(tile, reference, reference_key);
      return;
    }
    if (const std::string f = cudalab::reference_fallback(tiled_name(tile), "the naive kernel", why); !f.empty())
      GTEST_FAIL() << f;
    if (std::string error = check_tiled(tile); !error.empty())
      GTEST_FAIL() << tiled_name(tile) << " is not timed until it is correct: " << error;
    cudalab::Comparison cmp =
        cudalab::compare_kernels([&] { launch_naive_baseline(gemm_.a(), gemm_.b(), gemm_.ab(), kN, kN, kN); },
                                 [&] { run_tiled(tile); }, options(tile, naive_key));
    print_gflops(tiled_name(tile), "matrixMulNaive", cmp);
    cudalab::expect_speedup({tiled_name(tile) + " (4096^3)", "matrixMulNaive block (16,16)", cmp,
                             cudalab::threshold(naive_key), naive_key, 0.0});
  }

  BigGemm gemm_;
};

TEST_F(TiledPerformance, Tiled16BeatsNaive) { keeps_up(16, "tiled16_vs_reference", "tiled16_vs_naive"); }

TEST_F(TiledPerformance, Tiled32BeatsNaive) { keeps_up(32, "tiled32_vs_reference", "tiled32_vs_naive"); }

// Against the reference, matrixMulTiled<32> is timed a second time on a ragged product
// (4001 x 4003 x 4005): the kernel keeps up where its edge tiles are partial too.
// Where the reference cannot run: the fraction of cuBLAS's speed, cuBLAS time / tiled time, on
// 4096^3. ab is row-major; cuBLAS is column-major, where a row-major M x N matrix reads as its
// N x M transpose. So cuBLAS computes ab^T = b^T a^T: an N x M result from b^T (N x K, leading
// dimension N) times a^T (K x M, leading dimension K) -- which is exactly ab in row-major order.
TEST_F(TiledPerformance, Tiled32ReachesFractionOfCublas) {
  if (!prepare(kRaggedM, kRaggedN, kRaggedK)) return;
  std::string why;
  if (const MatmulLaunch reference = reference_tiled(32, &why)) {
    versus_reference(32, reference, "tiled32_vs_reference_ragged");
    return;
  }
  if (const std::string f = cudalab::reference_fallback(tiled_name(32), "cublasSgemm", why); !f.empty())
    GTEST_FAIL() << f;
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
                                                     [&] { run_tiled(32); }, options(32, "tiled32_vs_cublas"));
  print_gflops("matrixMulTiled<32>", "cublasSgemm", cmp);
  cudalab::expect_speedup({"matrixMulTiled<32> (4096^3)", "cublasSgemm FP32", cmp,
                           cudalab::threshold("tiled32_vs_cublas"), "tiled32_vs_cublas", 0.0});
}

}  // namespace
