/// @file bank_conflicts.cu
/// @brief Lab ch05_05: the matrix transpose three ways -- naive, through a shared tile with 32-way
/// bank conflicts, and through a padded tile without them -- and a model of the conflicts (see
/// README.md and bank_conflicts.cuh).
#include "bank_conflicts.cuh"

#include <cstddef>

// Flat index into a shared tile: row-major, kTileDim floats per row.
#define TILE_IDX(row, col) ((row) * kTileDim + (col))

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  const int c = blockIdx.x * kTileDim + threadIdx.x;
  const int rbase = blockIdx.y * kTileDim + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = rbase + j;
    if (r < rows && c < cols) out[static_cast<std::size_t>(c) * rows + r] = in[static_cast<std::size_t>(r) * cols + c];
  }
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim * kTileDim];  // tile[32][32], flattened

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c = blockIdx.x * kTileDim + tx;
  const int rbase = blockIdx.y * kTileDim;
#pragma unroll
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = rbase + ty + j;
    if (r < rows && c < cols) tile[TILE_IDX(ty + j, tx)] = in[static_cast<std::size_t>(r) * cols + c];
  }
  __syncthreads();

  const int oc = blockIdx.y * kTileDim + tx;    // output column = input row
  const int orbase = blockIdx.x * kTileDim;     // output rows = input columns
#pragma unroll
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int orow = orbase + ty + j;
    if (oc < rows && orow < cols) out[static_cast<std::size_t>(orow) * rows + oc] = tile[TILE_IDX(tx, ty + j)];
  }
}

__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim * (kTileDim + 1)];  // tile[32][33]: one padding word per row

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c = blockIdx.x * kTileDim + tx;
  const int rbase = blockIdx.y * kTileDim;
#pragma unroll
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = rbase + ty + j;
    if (r < rows && c < cols) tile[TILE_IDX(ty + j, tx)] = in[static_cast<std::size_t>(r) * cols + c];
  }
  __syncthreads();

  const int oc = blockIdx.y * kTileDim + tx;
  const int orbase = blockIdx.x * kTileDim;
#pragma unroll
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int orow = orbase + ty + j;
    if (oc < rows && orow < cols) out[static_cast<std::size_t>(orow) * rows + oc] = tile[TILE_IDX(tx, ty + j)];
  }
}

int bank_of(long long word_index) {
  return static_cast<int>(((word_index % kNumBanks) + kNumBanks) % kNumBanks);
}

int warp_conflict_degree(const long long *word_index, int lanes) {
  int worst = 0;
  for (int bank = 0; bank < kNumBanks; ++bank) {
    int n = 0;
    for (int l = 0; l < lanes; ++l) {
      if (bank_of(word_index[l]) != bank) continue;
      bool dup = false;
      for (int e = 0; e < l && !dup; ++e) dup = word_index[e] == word_index[l];
      if (!dup) ++n;
    }
    if (n > worst) worst = n;
  }
  return worst;
}

int conflict_degree(int row_stride_words) {
  long long words[kNumBanks];
  for (int l = 0; l < kNumBanks; ++l) words[l] = static_cast<long long>(l) * row_stride_words;
  return warp_conflict_degree(words, kNumBanks);
}
