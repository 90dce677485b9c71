// The naive kernel the performance tests compare against, as handed out in the lab. It lives with
// the tests, so the baseline is the same for every student.
#include "baseline.cuh"
#include "cudalab/launch.cuh"
#include "matmul.cuh"

__global__ void matrixMulNaiveBaseline(const float *a, const float *b, float *ab, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += a[row * K + k] * b[k * N + col];
    ab[row * N + col] = sum;
  }
}

cudaError_t launch_naive_baseline(const float *a, const float *b, float *ab, int M, int N, int K) {
  cudalab::launch(matrixMulNaiveBaseline, matmul_grid(M, N, kNaiveBlock), dim3(kNaiveBlock, kNaiveBlock))(a, b, ab, M,
                                                                                                          N, K);
  return cudaGetLastError();
}
