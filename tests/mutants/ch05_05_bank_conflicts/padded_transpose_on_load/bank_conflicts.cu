/// @file bank_conflicts.cu
/// @brief Lab ch05_05: the matrix transpose three ways -- naive, through a shared tile with 32-way
/// bank conflicts, and through a padded tile without them -- and a model of the conflicts (see
/// README.md and bank_conflicts.cuh).
#include "bank_conflicts.cuh"

#include <algorithm>
#include <cstddef>
#include <utility>

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  const int c = blockIdx.x * kTileDim + threadIdx.x;
  if (c >= cols) return;
  const int r_begin = blockIdx.y * kTileDim + threadIdx.y;
  const int r_end = min(rows, static_cast<int>(blockIdx.y) * kTileDim + kTileDim);
  const float *src = in + static_cast<std::size_t>(r_begin) * cols + c;
  float *dst = out + static_cast<std::size_t>(c) * rows + r_begin;
  for (int r = r_begin; r < r_end; r += kBlockRows) {
    *dst = *src;
    src += static_cast<std::size_t>(kBlockRows) * cols;
    dst += kBlockRows;
  }
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const int tile_r = blockIdx.y * kTileDim;  // first input row of this tile
  const int tile_c = blockIdx.x * kTileDim;  // first input column of this tile

  if (tile_c + static_cast<int>(tx) < cols) {
#pragma unroll
    for (int j = 0; j < kTileDim; j += kBlockRows) {
      const int r = tile_r + ty + j;
      if (r < rows) tile[ty + j][tx] = in[static_cast<std::size_t>(r) * cols + tile_c + tx];
    }
  }
  __syncthreads();
  if (tile_r + static_cast<int>(tx) < rows) {
#pragma unroll
    for (int j = 0; j < kTileDim; j += kBlockRows) {
      const int orow = tile_c + ty + j;  // output row = input column
      if (orow < cols) out[static_cast<std::size_t>(orow) * rows + tile_r + tx] = tile[tx][ty + j];
    }
  }
}

// Padded tile, but the transpose happens on the way IN: lane tx writes its input element to
// tile[tx][ty + j] (word 33 tx + k, bank (tx + k) % 32: 32 different banks thanks to the padding),
// and the store reads the tile along a row, tile[ty + j][tx] (32 consecutive words). Both global
// accesses stay coalesced, both shared accesses are conflict-free.
__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim + 1];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const int tile_r = blockIdx.y * kTileDim;
  const int tile_c = blockIdx.x * kTileDim;

  if (tile_c + static_cast<int>(tx) < cols) {
#pragma unroll
    for (int j = 0; j < kTileDim; j += kBlockRows) {
      const int r = tile_r + ty + j;
      if (r < rows) tile[tx][ty + j] = in[static_cast<std::size_t>(r) * cols + tile_c + tx];
    }
  }
  __syncthreads();
  if (tile_r + static_cast<int>(tx) < rows) {
#pragma unroll
    for (int j = 0; j < kTileDim; j += kBlockRows) {
      const int orow = tile_c + ty + j;
      if (orow < cols) out[static_cast<std::size_t>(orow) * rows + tile_r + tx] = tile[ty + j][tx];
    }
  }
}

int bank_of(long long word_index) {
  const long long b = ((word_index % kNumBanks) + kNumBanks) % kNumBanks;
  return static_cast<int>(b);
}

int warp_conflict_degree(const long long *word_index, int lanes) {
  if (lanes <= 0) return 0;
  // (bank, word) pairs, sorted and deduplicated; the longest run of one bank is the answer.
  std::pair<int, long long> acc[32];
  const int n = std::min(lanes, 32);
  for (int l = 0; l < n; ++l) acc[l] = {bank_of(word_index[l]), word_index[l]};
  std::sort(acc, acc + n);
  const int m = static_cast<int>(std::unique(acc, acc + n) - acc);
  int worst = 0, run = 0;
  for (int i = 0; i < m; ++i) {
    run = (i > 0 && acc[i].first == acc[i - 1].first) ? run + 1 : 1;
    worst = std::max(worst, run);
  }
  return worst;
}

int conflict_degree(int row_stride_words) {
  long long words[32];
  for (int l = 0; l < 32; ++l) words[l] = static_cast<long long>(l) * row_stride_words;
  return warp_conflict_degree(words, 32);
}
