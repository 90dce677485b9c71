/// @file bank_conflicts.cu
/// @brief Lab ch05_05: the matrix transpose three ways -- naive, through a shared tile with 32-way
/// bank conflicts, and through a padded tile without them -- and a model of the conflicts (see
/// README.md and bank_conflicts.cuh).
#include "bank_conflicts.cuh"

#include <cstddef>

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  const int c = blockIdx.x * kTileDim + threadIdx.x;
  const int r0 = blockIdx.y * kTileDim + threadIdx.y;
  if (c >= cols) return;  // no barrier here, so returning is fine
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = r0 + j;
    if (r < rows) out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
  }
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim];

  // load: input tile, row by row (coalesced)
  int c = blockIdx.x * kTileDim + threadIdx.x;
  int r = blockIdx.y * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (r + j < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<size_t>(r + j) * cols + c];
  }

  __syncthreads();

  // store: output tile row by row; output row = input column
  c = blockIdx.y * kTileDim + threadIdx.x;  // output column (< rows)
  r = blockIdx.x * kTileDim + threadIdx.y;  // output row (< cols)
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (c < rows && r + j < cols) out[static_cast<size_t>(r + j) * rows + c] = tile[threadIdx.x][threadIdx.y + j];
  }
}

__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim + 1];  // +1: column reads hit 32 different banks

  int c = blockIdx.x * kTileDim + threadIdx.x;
  int r = blockIdx.y * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (r + j < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<size_t>(r + j) * cols + c];
  }

  __syncthreads();

  c = blockIdx.y * kTileDim + threadIdx.x;
  r = blockIdx.x * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (c < rows && r + j < cols) out[static_cast<size_t>(r + j) * rows + c] = tile[threadIdx.x][threadIdx.y + j];
  }
}

int bank_of(long long word_index) {
  long long b = word_index % kNumBanks;
  if (b < 0) b += kNumBanks;
  return static_cast<int>(b);
}

int warp_conflict_degree(const long long *word_index, int lanes) {
  if (lanes <= 0) return 0;
  // One pass over the lanes: per bank, the number of distinct words and the word seen last.
  // A lane asking for the same word as the bank's current one is a broadcast and costs nothing.
  int count[kNumBanks] = {0};
  long long last[kNumBanks];
  bool used[kNumBanks] = {false};
  for (int l = 0; l < lanes; ++l) {
    const int b = bank_of(word_index[l]);
    if (used[b] && last[b] == word_index[l]) continue;  // broadcast
    used[b] = true;
    last[b] = word_index[l];
    ++count[b];
  }
  int worst = 0;
  for (int b = 0; b < kNumBanks; ++b)
    if (count[b] > worst) worst = count[b];
  return worst;
}

int conflict_degree(int row_stride_words) {
  long long words[32];
  for (int l = 0; l < 32; ++l) words[l] = static_cast<long long>(l) * row_stride_words;
  return warp_conflict_degree(words, 32);
}
