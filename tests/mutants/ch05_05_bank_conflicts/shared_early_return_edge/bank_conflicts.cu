/// @file bank_conflicts.cu
/// @brief Lab ch05_05: the matrix transpose three ways -- naive, through a shared tile with 32-way
/// bank conflicts, and through a padded tile without them -- and a model of the conflicts (see
/// README.md and bank_conflicts.cuh).
#include "bank_conflicts.cuh"

#include <cstddef>

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  const int c = blockIdx.x * kTileDim + threadIdx.x;
  if (c >= cols) return;  // thread is right of the matrix
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = blockIdx.y * kTileDim + threadIdx.y + j;
    if (r >= rows) break;
    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
  }
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim];

  const int c = blockIdx.x * kTileDim + threadIdx.x;
  if (c >= cols) return;  // thread is right of the matrix: nothing to load

  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = blockIdx.y * kTileDim + threadIdx.y + j;
    if (r < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)r * cols + c];
  }
  __syncthreads();

  const int oc = blockIdx.y * kTileDim + threadIdx.x;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int orow = blockIdx.x * kTileDim + threadIdx.y + j;
    if (oc < rows && orow < cols) out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y + j];
  }
}

__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim + 1];

  const int c = blockIdx.x * kTileDim + threadIdx.x;
  if (c >= cols) return;  // thread is right of the matrix: nothing to load

  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = blockIdx.y * kTileDim + threadIdx.y + j;
    if (r < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)r * cols + c];
  }
  __syncthreads();

  const int oc = blockIdx.y * kTileDim + threadIdx.x;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int orow = blockIdx.x * kTileDim + threadIdx.y + j;
    if (oc < rows && orow < cols) out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y + j];
  }
}

int bank_of(long long word_index) {
  long long b = word_index % kNumBanks;
  return static_cast<int>(b < 0 ? b + kNumBanks : b);
}

int warp_conflict_degree(const long long *word_index, int lanes) {
  if (lanes <= 0) return 0;
  int per_bank[kNumBanks] = {};
  for (int l = 0; l < lanes; ++l) {
    bool first = true;  // first lane to ask for this word?
    for (int e = 0; e < l; ++e)
      if (word_index[e] == word_index[l]) {
        first = false;
        break;
      }
    if (first) ++per_bank[bank_of(word_index[l])];
  }
  int worst = 0;
  for (int b = 0; b < kNumBanks; ++b) worst = per_bank[b] > worst ? per_bank[b] : worst;
  return worst;
}

int conflict_degree(int row_stride_words) {
  long long words[32];
  for (int l = 0; l < 32; ++l) words[l] = static_cast<long long>(l) * row_stride_words;
  return warp_conflict_degree(words, 32);
}
