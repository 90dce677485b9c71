/// @file bank_conflicts.cu
/// @brief Lab ch05_05: the matrix transpose three ways -- naive, through a shared tile with 32-way
/// bank conflicts, and through a padded tile without them -- and a model of the conflicts (see
/// README.md and bank_conflicts.cuh).
#include "bank_conflicts.cuh"

#include <cstddef>

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  const int c = blockIdx.x * 32 + threadIdx.x;
  for (int j = 0; j < 32; j += 8) {
    const int r = blockIdx.y * 32 + threadIdx.y + j;
    if (r < rows && c < cols) {
      out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
    }
  }
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[32][32];

  const int in_c = blockIdx.x * 32 + threadIdx.x;
  for (int j = 0; j < 32; j += 8) {
    const int in_r = blockIdx.y * 32 + threadIdx.y + j;
    if (in_r < rows && in_c < cols) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)in_r * cols + in_c];
  }
  __syncthreads();

  const int out_c = blockIdx.y * 32 + threadIdx.x;
  for (int j = 0; j < 32; j += 8) {
    const int out_r = blockIdx.x * 32 + threadIdx.y + j;
    if (out_c < rows && out_r < cols) out[(size_t)out_r * rows + out_c] = tile[threadIdx.x][threadIdx.y + j];
  }
}

__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[32][33];

  const int in_c = blockIdx.x * 32 + threadIdx.x;
  for (int j = 0; j < 32; j += 8) {
    const int in_r = blockIdx.y * 32 + threadIdx.y + j;
    if (in_r < rows && in_c < cols) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)in_r * cols + in_c];
  }
  __syncthreads();

  const int out_c = blockIdx.y * 32 + threadIdx.x;
  for (int j = 0; j < 32; j += 8) {
    const int out_r = blockIdx.x * 32 + threadIdx.y + j;
    if (out_c < rows && out_r < cols) out[(size_t)out_r * rows + out_c] = tile[threadIdx.x][threadIdx.y + j];
  }
}

int bank_of(long long word_index) {
  if (word_index >= 0) return (int)(word_index % 32);
  // % of a negative number is negative in C++, so count back from bank 32: word -1 -> 31
  return (int)(32 + word_index % 32);
}

int warp_conflict_degree(const long long *word_index, int lanes) {
  if (lanes == 0) return 0;
  int worst = 0;
  for (int i = 0; i < lanes; ++i) {
    // distinct words in lane i's bank
    int distinct = 0;
    for (int k = 0; k < lanes; ++k) {
      if (bank_of(word_index[k]) != bank_of(word_index[i])) continue;
      bool earlier = false;
      for (int e = 0; e < k; ++e)
        if (word_index[e] == word_index[k]) {
          earlier = true;
          break;
        }
      if (!earlier) ++distinct;
    }
    if (distinct > worst) worst = distinct;
  }
  return worst;
}

int conflict_degree(int row_stride_words) {
  long long w[32];
  for (int lane = 0; lane < 32; ++lane) w[lane] = (long long)lane * row_stride_words;
  return warp_conflict_degree(w, 32);
}
