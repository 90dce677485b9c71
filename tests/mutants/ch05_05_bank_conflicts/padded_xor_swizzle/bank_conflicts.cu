/// @file bank_conflicts.cu
/// @brief Lab ch05_05: the matrix transpose three ways -- naive, through a shared tile with 32-way
/// bank conflicts, and through a padded tile without them -- and a model of the conflicts (see
/// README.md and bank_conflicts.cuh).
#include "bank_conflicts.cuh"

#include <cstddef>

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  const int c = blockIdx.x * kTileDim + threadIdx.x;
  const int r0 = blockIdx.y * kTileDim + threadIdx.y;
  if (c < cols) {
#pragma unroll
    for (int j = 0; j < kTileDim; j += kBlockRows) {
      const int r = r0 + j;
      if (r < rows) out[std::size_t(c) * rows + r] = in[std::size_t(r) * cols + c];
    }
  }
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim];
  const int tx = threadIdx.x, ty = threadIdx.y;

  {  // load the input tile row by row
    const int c = blockIdx.x * kTileDim + tx;
    const int r0 = blockIdx.y * kTileDim + ty;
#pragma unroll
    for (int j = 0; j < kTileDim; j += kBlockRows)
      if (r0 + j < rows && c < cols) tile[ty + j][tx] = in[std::size_t(r0 + j) * cols + c];
  }
  __syncthreads();
  {  // write the output tile row by row, reading the tile by column (32-way conflict)
    const int c = blockIdx.y * kTileDim + tx;   // output column: an input row
    const int r0 = blockIdx.x * kTileDim + ty;  // output row: an input column
#pragma unroll
    for (int j = 0; j < kTileDim; j += kBlockRows)
      if (r0 + j < cols && c < rows) out[std::size_t(r0 + j) * rows + c] = tile[tx][ty + j];
  }
}

// XOR swizzle instead of padding: logical element (row, col) of the tile lives at
// tile[row][col ^ row]. For a fixed row, col -> col ^ row is a permutation of 0..31, so a warp
// writing one row still hits 32 different banks; for a fixed col k, lane tx reading
// (tx, k) hits bank k ^ tx, again 32 different banks. No extra shared memory (32 x 32 floats).
__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim];
  const int tx = threadIdx.x, ty = threadIdx.y;

  {
    const int c = blockIdx.x * kTileDim + tx;
    const int r0 = blockIdx.y * kTileDim + ty;
#pragma unroll
    for (int j = 0; j < kTileDim; j += kBlockRows) {
      const int row = ty + j;
      if (r0 + j < rows && c < cols) tile[row][tx ^ row] = in[std::size_t(r0 + j) * cols + c];
    }
  }
  __syncthreads();
  {
    const int c = blockIdx.y * kTileDim + tx;
    const int r0 = blockIdx.x * kTileDim + ty;
#pragma unroll
    for (int j = 0; j < kTileDim; j += kBlockRows) {
      const int col = ty + j;  // logical column of the tile = output row within the tile
      if (r0 + j < cols && c < rows) out[std::size_t(r0 + j) * rows + c] = tile[tx][col ^ tx];
    }
  }
}

int bank_of(long long word_index) {
  // two's complement: the low five bits are the index modulo 32, also for negative indices
  // (word -1 is ...11111 -> bank 31, word -32 -> bank 0)
  return static_cast<int>(word_index & (kNumBanks - 1));
}

int warp_conflict_degree(const long long *word_index, int lanes) {
  if (lanes <= 0) return 0;
  int per_bank[kNumBanks] = {};
  int worst = 0;
  for (int l = 0; l < lanes; ++l) {
    bool repeat = false;  // an earlier lane already asked for this word: broadcast, free
    for (int e = 0; e < l && !repeat; ++e) repeat = (word_index[e] == word_index[l]);
    if (repeat) continue;
    const int n = ++per_bank[bank_of(word_index[l])];
    if (n > worst) worst = n;
  }
  return worst;
}

int conflict_degree(int row_stride_words) {
  long long words[32];
  for (int lane = 0; lane < 32; ++lane) words[lane] = static_cast<long long>(lane) * row_stride_words;
  return warp_conflict_degree(words, 32);
}
