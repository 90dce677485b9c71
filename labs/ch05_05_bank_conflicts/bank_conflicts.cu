/// @file bank_conflicts.cu
/// @brief Lab ch05_05: the matrix transpose three ways -- naive, through a shared tile with 32-way
/// bank conflicts, and through a padded tile without them -- and a model of the conflicts (see
/// README.md and bank_conflicts.cuh).
#include "bank_conflicts.cuh"

#include <cstddef>

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  // TODO(ch05_05): c = blockIdx.x * 32 + threadIdx.x (input column), r = blockIdx.y * 32 +
  // threadIdx.y + j for j = 0, 8, 16, 24 (input rows). For every (r, c) inside the matrix
  // (r < rows, c < cols): out[c * rows + r] = in[r * cols + c] (size_t indices).
  (void)in;
  (void)out;
  (void)rows;
  (void)cols;
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols) {
  // TODO(ch05_05): declare `__shared__ float tile[32][32];`.
  // 1. Load: c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 32 + threadIdx.y + j
  //    (j = 0, 8, 16, 24); if (r, c) is inside the input, tile[threadIdx.y + j][threadIdx.x] =
  //    in[r * cols + c].
  // 2. __syncthreads() -- reached by every thread of the block (no return before it).
  // 3. Store: output column c = blockIdx.y * 32 + threadIdx.x, output row r = blockIdx.x * 32 +
  //    threadIdx.y + j; if c < rows and r < cols, out[r * rows + c] = tile[threadIdx.x][threadIdx.y + j].
  (void)in;
  (void)out;
  (void)rows;
  (void)cols;
}

__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols) {
  // TODO(ch05_05): transposeShared with `__shared__ float tile[32][33];` -- one padding
  // word per row, so that lane tx's column read tile[tx][k] (word 33 * tx + k) lands in bank
  // (tx + k) % 32: 32 different banks. (Or keep tile[32][32] and swizzle the column.)
  (void)in;
  (void)out;
  (void)rows;
  (void)cols;
}

int bank_of(long long word_index) {
  // TODO(ch05_05): word_index modulo 32, in 0..31 also for negative indices.
  (void)word_index;
  return -1;
}

int warp_conflict_degree(const long long *word_index, int lanes) {
  // TODO(ch05_05): for every bank (0..31), count the DISTINCT words among word_index[0..lanes)
  // that lie in it (bank_of); return the largest count (0 for no lanes).
  (void)word_index;
  (void)lanes;
  return 0;
}

int conflict_degree(int row_stride_words) {
  // TODO(ch05_05): lane l (0..31) reads word l * row_stride_words (64-bit): ask
  // warp_conflict_degree.
  (void)row_stride_words;
  return 0;
}
