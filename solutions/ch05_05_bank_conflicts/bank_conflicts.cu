/// @file bank_conflicts.cu
/// @brief Lab ch05_05: the matrix transpose three ways -- naive, through a shared tile with 32-way
/// bank conflicts, and through a padded tile without them -- and a model of the conflicts (see
/// README.md and bank_conflicts.cuh).
#include "bank_conflicts.cuh"

#include <cstddef>

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  // BEGIN SOLUTION
  const int c = blockIdx.x * kTileDim + threadIdx.x;  // input column = output row
  const int r0 = blockIdx.y * kTileDim + threadIdx.y;
  if (c >= cols) return;  // no barrier in this kernel: an early exit is safe
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    const int r = r0 + j;
    if (r < rows) out[static_cast<std::size_t>(c) * rows + r] = in[static_cast<std::size_t>(r) * cols + c];
  }
  // STUB: // TODO(ch05_05): c = blockIdx.x * 32 + threadIdx.x (input column), r = blockIdx.y * 32 +
  // STUB: // threadIdx.y + j for j = 0, 8, 16, 24 (input rows). For every (r, c) inside the matrix
  // STUB: // (r < rows, c < cols): out[c * rows + r] = in[r * cols + c] (size_t indices).
  // STUB: (void)in;
  // STUB: (void)out;
  // STUB: (void)rows;
  // STUB: (void)cols;
  // END SOLUTION
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols) {
  // BEGIN SOLUTION
  __shared__ float tile[kTileDim][kTileDim];
  const int tx = threadIdx.x, ty = threadIdx.y;
  // Read the input tile row by row: a warp reads 32 consecutive floats (coalesced).
  int c = blockIdx.x * kTileDim + tx, r = blockIdx.y * kTileDim + ty;
  for (int j = 0; j < kTileDim; j += kBlockRows)
    if (c < cols && r + j < rows) tile[ty + j][tx] = in[static_cast<std::size_t>(r + j) * cols + c];
  __syncthreads();  // the whole tile is in before any thread reads another thread's element
  // Write the output tile row by row: output row = input column, output column = input row.
  c = blockIdx.y * kTileDim + tx;  // output column (an input row)
  r = blockIdx.x * kTileDim + ty;  // output row (an input column)
  for (int j = 0; j < kTileDim; j += kBlockRows)
    if (c < rows && r + j < cols)
      out[static_cast<std::size_t>(r + j) * rows + c] = tile[tx][ty + j];  // a column: 32-way conflict
  // STUB: // TODO(ch05_05): declare `__shared__ float tile[32][32];`.
  // STUB: // 1. Load: c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 32 + threadIdx.y + j
  // STUB: //    (j = 0, 8, 16, 24); if (r, c) is inside the input, tile[threadIdx.y + j][threadIdx.x] =
  // STUB: //    in[r * cols + c].
  // STUB: // 2. __syncthreads() -- reached by every thread of the block (no return before it).
  // STUB: // 3. Store: output column c = blockIdx.y * 32 + threadIdx.x, output row r = blockIdx.x * 32 +
  // STUB: //    threadIdx.y + j; if c < rows and r < cols, out[r * rows + c] = tile[threadIdx.x][threadIdx.y + j].
  // STUB: (void)in;
  // STUB: (void)out;
  // STUB: (void)rows;
  // STUB: (void)cols;
  // END SOLUTION
}

__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols) {
  // BEGIN SOLUTION
  __shared__ float tile[kTileDim][kTileDim + 1];  // row stride 33 words: a column spans all 32 banks
  const int tx = threadIdx.x, ty = threadIdx.y;
  int c = blockIdx.x * kTileDim + tx, r = blockIdx.y * kTileDim + ty;
  for (int j = 0; j < kTileDim; j += kBlockRows)
    if (c < cols && r + j < rows) tile[ty + j][tx] = in[static_cast<std::size_t>(r + j) * cols + c];
  __syncthreads();
  c = blockIdx.y * kTileDim + tx;
  r = blockIdx.x * kTileDim + ty;
  for (int j = 0; j < kTileDim; j += kBlockRows)
    if (c < rows && r + j < cols)
      out[static_cast<std::size_t>(r + j) * rows + c] = tile[tx][ty + j];  // bank (33 tx + ty + j) % 32
  // STUB: // TODO(ch05_05): transposeShared with `__shared__ float tile[32][33];` -- one padding
  // STUB: // word per row, so that lane tx's column read tile[tx][k] (word 33 * tx + k) lands in bank
  // STUB: // (tx + k) % 32: 32 different banks. (Or keep tile[32][32] and swizzle the column.)
  // STUB: (void)in;
  // STUB: (void)out;
  // STUB: (void)rows;
  // STUB: (void)cols;
  // END SOLUTION
}

int bank_of(long long word_index) {
  // BEGIN SOLUTION
  const long long b = word_index % kNumBanks;  // C++ keeps the dividend's sign: -1 % 32 == -1
  return static_cast<int>(b < 0 ? b + kNumBanks : b);
  // STUB: // TODO(ch05_05): word_index modulo 32, in 0..31 also for negative indices.
  // STUB: (void)word_index;
  // STUB: return -1;
  // END SOLUTION
}

int warp_conflict_degree(const long long *word_index, int lanes) {
  // BEGIN SOLUTION
  int worst = 0;
  for (int bank = 0; bank < kNumBanks; ++bank) {
    int distinct = 0;  // distinct words of this bank asked for by the lanes
    for (int l = 0; l < lanes; ++l) {
      if (bank_of(word_index[l]) != bank) continue;
      bool seen = false;  // an earlier lane asked for the same word: a broadcast, no extra pass
      for (int k = 0; k < l && !seen; ++k) seen = word_index[k] == word_index[l];
      if (!seen) ++distinct;
    }
    if (distinct > worst) worst = distinct;
  }
  return worst;
  // STUB: // TODO(ch05_05): for every bank (0..31), count the DISTINCT words among word_index[0..lanes)
  // STUB: // that lie in it (bank_of); return the largest count (0 for no lanes).
  // STUB: (void)word_index;
  // STUB: (void)lanes;
  // STUB: return 0;
  // END SOLUTION
}

int conflict_degree(int row_stride_words) {
  // BEGIN SOLUTION
  long long words[kNumBanks];
  for (int l = 0; l < kNumBanks; ++l) words[l] = static_cast<long long>(l) * row_stride_words;
  return warp_conflict_degree(words, kNumBanks);
  // STUB: // TODO(ch05_05): lane l (0..31) reads word l * row_stride_words (64-bit): ask
  // STUB: // warp_conflict_degree.
  // STUB: (void)row_stride_words;
  // STUB: return 0;
  // END SOLUTION
}
