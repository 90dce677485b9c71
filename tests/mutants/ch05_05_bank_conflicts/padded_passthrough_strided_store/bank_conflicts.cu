/// @file bank_conflicts.cu
/// @brief Lab ch05_05: the matrix transpose three ways -- naive, through a shared tile with 32-way
/// bank conflicts, and through a padded tile without them -- and a model of the conflicts (see
/// README.md and bank_conflicts.cuh).
#include "bank_conflicts.cuh"

#include <cstddef>

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  const int c = blockIdx.x * kTileDim + threadIdx.x;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = blockIdx.y * kTileDim + threadIdx.y + j;
    if (r < rows && c < cols) out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
  }
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim];

  const int c = blockIdx.x * kTileDim + threadIdx.x;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = blockIdx.y * kTileDim + threadIdx.y + j;
    if (r < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<size_t>(r) * cols + c];
  }
  __syncthreads();

  const int oc = blockIdx.y * kTileDim + threadIdx.x;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int orow = blockIdx.x * kTileDim + threadIdx.y + j;
    if (oc < rows && orow < cols)
      out[static_cast<size_t>(orow) * rows + oc] = tile[threadIdx.x][threadIdx.y + j];  // 32-way conflict
  }
}

__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim + 1];

  const int c = blockIdx.x * kTileDim + threadIdx.x;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = blockIdx.y * kTileDim + threadIdx.y + j;
    if (r < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<size_t>(r) * cols + c];
  }
  __syncthreads();

  // Read the tile back along its rows: lane tx reads word 33 * (ty + j) + tx, 32 consecutive
  // words, so 32 different banks -- no conflict at all (the padding keeps it that way).
  // Each thread writes the element it loaded to its transposed place.
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = blockIdx.y * kTileDim + threadIdx.y + j;
    if (r < rows && c < cols) out[static_cast<size_t>(c) * rows + r] = tile[threadIdx.y + j][threadIdx.x];
  }
}

int bank_of(long long word_index) {
  const long long m = word_index % kNumBanks;
  return static_cast<int>(m < 0 ? m + kNumBanks : m);
}

int warp_conflict_degree(const long long *word_index, int lanes) {
  int worst = 0;
  for (int b = 0; b < kNumBanks; ++b) {
    int distinct = 0;
    for (int l = 0; l < lanes; ++l) {
      if (bank_of(word_index[l]) != b) continue;
      int e = 0;
      while (e < l && word_index[e] != word_index[l]) ++e;
      if (e == l) ++distinct;  // no earlier lane asked for this word
    }
    if (distinct > worst) worst = distinct;
  }
  return worst;
}

int conflict_degree(int row_stride_words) {
  long long w[32];
  for (int l = 0; l < 32; ++l) w[l] = static_cast<long long>(l) * row_stride_words;
  return warp_conflict_degree(w, 32);
}
