/// @file bank_conflicts.cu
/// @brief Lab ch05_05: the matrix transpose three ways -- naive, through a shared tile with 32-way
/// bank conflicts, and through a padded tile without them -- and a model of the conflicts (see
/// README.md and bank_conflicts.cuh).
#include "bank_conflicts.cuh"

#include <cstddef>

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * kTileDim + threadIdx.x;  // input column
  int y = blockIdx.y * kTileDim + threadIdx.y;  // input row (first of four)
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (x < cols && y + j < rows) out[(size_t)x * rows + (y + j)] = in[(size_t)(y + j) * cols + x];
  }
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim];

  int x = blockIdx.x * kTileDim + threadIdx.x;
  int y = blockIdx.y * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  }

  __syncthreads();

  // output: x runs over output columns (input rows), y over output rows (input columns)
  x = blockIdx.y * kTileDim + threadIdx.x;
  y = blockIdx.x * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim + 1];

  int x = blockIdx.x * kTileDim + threadIdx.x;
  int y = blockIdx.y * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  }

  __syncthreads();

  x = blockIdx.y * kTileDim + threadIdx.x;
  y = blockIdx.x * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (x < cols && y + j < rows) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

int bank_of(long long word_index) {
  int b = (int)(word_index % kNumBanks);
  return b < 0 ? b + kNumBanks : b;
}

int warp_conflict_degree(const long long *word_index, int lanes) {
  if (lanes <= 0) return 0;
  long long seen[kNumBanks][32];
  int n[kNumBanks] = {0};
  int worst = 0;
  for (int l = 0; l < lanes; ++l) {
    const int b = bank_of(word_index[l]);
    bool dup = false;
    for (int i = 0; i < n[b]; ++i)
      if (seen[b][i] == word_index[l]) dup = true;
    if (!dup) {
      seen[b][n[b]++] = word_index[l];
      if (n[b] > worst) worst = n[b];
    }
  }
  return worst;
}

int conflict_degree(int row_stride_words) {
  long long w[32];
  for (int l = 0; l < 32; ++l) w[l] = (long long)l * (long long)row_stride_words;
  return warp_conflict_degree(w, 32);
}
