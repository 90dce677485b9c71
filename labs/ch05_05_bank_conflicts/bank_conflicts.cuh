/// @file bank_conflicts.cuh
/// @brief Lab ch05_05 -- shared-memory bank conflicts, shown by the matrix transpose
/// (memory-hierarchy notes, "Bank conflict for shared memory").
///
/// Shared memory is split into 32 **banks**; 4-byte word w lives in bank w % 32. The words a warp
/// asks for in one instruction are served together when they lie in different banks (or are the
/// same word: a broadcast). Different words in the same bank are served one after the other: an
/// n-way conflict costs n passes (wavefronts) instead of one.
///
/// The transpose: for a rows x cols matrix `in` (row-major, `in[r * cols + c]`), write the
/// cols x rows matrix `out` with `out[c * rows + r] = in[r * cols + c]`. Any rows, cols >= 1
/// (ragged: not multiples of 32), rows * cols < 2^31, rows and cols at most 65535 * 32.
///
/// **Launch shape (all three kernels, and the tests' copy baseline).** The matrix is cut into
/// 32 x 32 tiles. One block of 32 x 8 threads (kTransposeBlock) handles one tile: block
/// (blockIdx.x, blockIdx.y) covers input columns 32 * blockIdx.x .. + 31 and input rows
/// 32 * blockIdx.y .. + 31, so the grid is transpose_grid(rows, cols) = (ceil(cols / 32),
/// ceil(rows / 32)). Thread (tx, ty) handles the four tile rows ty, ty + 8, ty + 16, ty + 24
/// (a loop `for (int j = 0; j < 32; j += 8)`). A warp is one tile row of 32 consecutive threads
/// (tx = 0..31, one ty).
#pragma once

#include "cudalab/launch.cuh"

#include <cuda_runtime.h>

/// Tile edge: 32 x 32 floats, one warp per tile row.
constexpr int kTileDim = 32;
/// Rows of threads in a block: each thread handles kTileDim / kBlockRows = 4 tile rows.
constexpr int kBlockRows = 8;
/// Number of shared-memory banks, each 4 bytes wide.
constexpr int kNumBanks = 32;

/// Threads of one block: 32 x 8.
inline dim3 transpose_block() { return dim3(kTileDim, kBlockRows); }

/// @brief Grid for a rows x cols input: one block per 32 x 32 tile, x over the input's columns,
/// y over its rows.
/// @param rows rows of the input (>= 1)
/// @param cols columns of the input (>= 1)
inline dim3 transpose_grid(int rows, int cols) {
  return dim3(static_cast<unsigned>((cols + kTileDim - 1) / kTileDim),
              static_cast<unsigned>((rows + kTileDim - 1) / kTileDim));
}

/// @brief YOURS: the naive transpose, no shared memory. Thread (tx, ty) of block (bx, by) reads
/// in[r][c] for c = 32 bx + tx and r = 32 by + ty + j (j = 0, 8, 16, 24) and writes it to
/// out[c][r]. The reads of a warp are consecutive (coalesced); its writes are `rows` floats apart
/// (strided: 32 different 32-byte sectors per warp store). Writes nothing outside the rows x cols
/// result. Launch with transpose_grid(rows, cols) blocks of transpose_block().
/// @param in rows x cols floats, row-major (read only)
/// @param out cols x rows floats, row-major: out[c * rows + r] = in[r * cols + c]
/// @param rows rows of the input
/// @param cols columns of the input
__global__ void transposeNaive(const float *in, float *out, int rows, int cols);

/// @brief YOURS: the transpose through a shared tile `__shared__ float tile[32][32]`. Each block
/// reads its input tile row by row (coalesced) into tile[row][col], waits at `__syncthreads()`,
/// and writes the transposed tile row by row (coalesced): output row 32 bx + ty + j, columns
/// 32 by + tx, so thread tx reads the tile **by column**: tile[tx][ty + j]. Lane tx then reads
/// word 32 tx + (ty + j): all 32 lanes in the same bank, a 32-way bank conflict (on purpose:
/// this kernel is the lab's "before"). Same contract and launch as transposeNaive.
__global__ void transposeShared(const float *in, float *out, int rows, int cols);

/// @brief YOURS: transposeShared without bank conflicts: the tile padded to `tile[32][33]` (lane
/// tx's column read then hits word 33 tx + k, bank (tx + k) % 32: all different), or the same
/// 32 x 32 tile with its columns permuted by an XOR swizzle. Same contract and launch as
/// transposeNaive; at most 32 x 33 floats of static shared memory.
__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols);

/// @brief Launches transposeNaive on @p stream (grid transpose_grid(rows, cols), block
/// transpose_block()).
inline void launch_transpose_naive(const float *in, float *out, int rows, int cols, cudaStream_t stream = 0) {
  cudalab::launch(transposeNaive, transpose_grid(rows, cols), transpose_block(), 0, stream)(in, out, rows, cols);
}

/// @brief Launches transposeShared on @p stream (as launch_transpose_naive).
inline void launch_transpose_shared(const float *in, float *out, int rows, int cols, cudaStream_t stream = 0) {
  cudalab::launch(transposeShared, transpose_grid(rows, cols), transpose_block(), 0, stream)(in, out, rows, cols);
}

/// @brief Launches transposeSharedPadded on @p stream (as launch_transpose_naive).
inline void launch_transpose_padded(const float *in, float *out, int rows, int cols, cudaStream_t stream = 0) {
  cudalab::launch(transposeSharedPadded, transpose_grid(rows, cols), transpose_block(), 0, stream)(in, out, rows, cols);
}

/// @brief YOURS (host): the bank that holds 4-byte word @p word_index of shared memory: the
/// word index modulo 32, always in 0..31 (a negative index, an offset before the array's start,
/// counts backwards: word -1 is in bank 31).
/// @param word_index a word offset (byte offset / 4)
int bank_of(long long word_index);

/// @brief YOURS (host): the n-way bank conflict of one warp-wide shared-memory access of 4-byte
/// words: lane l (0 <= l < @p lanes) reads word @p word_index[l]. The answer is, over the 32
/// banks, the largest number of **distinct** words asked for in one bank. Lanes asking for the
/// same word share one read (a broadcast), so 32 lanes reading one word cost 1, not 32.
/// @param word_index the word each active lane reads (@p lanes entries)
/// @param lanes active lanes, 0 to 32 (0: no access, the answer is 0)
/// @return 1 (conflict-free) to 32 (fully serialised); 0 when @p lanes is 0
int warp_conflict_degree(const long long *word_index, int lanes);

/// @brief YOURS (host): the n-way conflict of a full warp reading one **column** of a 2D float
/// tile whose rows are @p row_stride_words words apart: lane l reads word
/// l * row_stride_words + k (the column k does not change the answer). 32 for `tile[32][32]`,
/// 1 for `tile[32][33]`, 2 for a stride of 2. Count it with warp_conflict_degree.
/// @param row_stride_words words from one row to the next (>= 0; 0: every lane reads one word)
int conflict_degree(int row_stride_words);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_bank_conflicts.hpp")
#include "cudalab_apart_bank_conflicts.hpp"
#endif
