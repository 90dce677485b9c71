/// @file baseline.cuh
/// @brief The naive baseline of the ch05_04 performance tests.
#pragma once

#include <cuda_runtime.h>

/// @brief matrixMulNaive as handed out (a copy, so the baseline is the same for every student).
__global__ void matrixMulNaiveBaseline(const float *a, const float *b, float *ab, int M, int N, int K);

/// @brief Launches matrixMulNaiveBaseline with kNaiveBlock x kNaiveBlock threads per block and
/// matmul_grid(M, N, kNaiveBlock) blocks; returns the launch's error.
cudaError_t launch_naive_baseline(const float *a, const float *b, float *ab, int M, int N, int K);
