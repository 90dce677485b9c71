/// @file baseline.cuh
/// @brief The column-major baseline of the ch03_08 performance tests.
#pragma once

#include <cuda_runtime.h>

/// @brief sumMatrixColumnMajor as handed out: the thread's x index walks down a column.
/// Launch with grid_for_column_major(nx, ny, block).
__global__ void sumMatrixColumnMajorBaseline(const float *A, const float *B, float *C, int nx, int ny);
