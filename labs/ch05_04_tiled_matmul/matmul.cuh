/// @file matmul.cuh
/// @brief Lab ch05_04 -- matrix multiplication (SGEMM): the naive kernel, the shared-memory tiled
/// kernel with two barriers per phase, and (stretch) a register-blocked kernel, against cuBLAS.
///
/// Every matrix is float and row-major: a is M x K (element (i, p) at a[i * K + p]), b is K x N,
/// ab = a x b is M x N (element (row, col) at ab[row * N + col]). The seed's square case is
/// M = N = K = width. Any M, N, K >= 1 with M * K, K * N and M * N below 2^31 must work.
#pragma once

#include <cuda_runtime.h>

/// Block of the naive kernel: kNaiveBlock x kNaiveBlock threads (the seed's 16 x 16).
constexpr int kNaiveBlock = 16;

/// @brief Grid for a kernel whose blocks each compute a tile x tile piece of ab: x covers the N
/// columns, y the M rows (ceil(N / tile) x ceil(M / tile) blocks).
inline dim3 matmul_grid(int M, int N, int tile) { return dim3((N + tile - 1) / tile, (M + tile - 1) / tile); }

/// @brief GIVEN: the seed's naive kernel. Thread (row, col) computes ab[row * N + col] as the dot
/// product of row `row` of a and column `col` of b, reading both straight from global memory: two
/// 4-byte loads per multiply-add. Launch: <<<matmul_grid(M, N, kNaiveBlock), dim3(kNaiveBlock,
/// kNaiveBlock)>>> (any 2D block works).
/// @param a M x K input
/// @param b K x N input
/// @param ab M x N output
/// @param M rows of a and ab
/// @param N columns of b and ab
/// @param K columns of a, rows of b
__global__ void matrixMulNaive(const float *a, const float *b, float *ab, int M, int N, int K);

/// @brief YOURS: the seed's tiled kernel for any M, N, K. Block (bx, by) of TILE_WIDTH x
/// TILE_WIDTH threads computes the TILE_WIDTH x TILE_WIDTH piece of ab whose top-left element is
/// (by * TILE_WIDTH, bx * TILE_WIDTH). It walks through ceil(K / TILE_WIDTH) phases; in phase p
/// thread (tx, ty) loads one element of a and one of b into shared memory (the seed's formulas,
/// with the row lengths K and N for width):
///
///     s_a[ty][tx] = a[row * K + p * TILE_WIDTH + tx]        s_b[ty][tx] = b[(p * TILE_WIDTH + ty) * N + col]
///
/// or 0 where that element lies outside a or b (so partial tiles add nothing); a barrier; the
/// TILE_WIDTH partial products from shared memory; a second barrier before the next phase
/// overwrites the tiles. Writes ab only inside the matrix; reads a and b only inside them.
/// Instantiated for TILE_WIDTH = 16 and 32 (see launch_tiled); must be launched with
/// dim3(TILE_WIDTH, TILE_WIDTH) threads and matmul_grid(M, N, TILE_WIDTH) blocks.
/// @param a M x K input
/// @param b K x N input
/// @param ab M x N output
/// @param M rows of a and ab
/// @param N columns of b and ab
/// @param K columns of a, rows of b
template <int TILE_WIDTH>
__global__ void matrixMulTiled(const float *a, const float *b, float *ab, int M, int N, int K);

/// @brief GIVEN: launches matrixMulTiled<tile> (tile 16 or 32) with its grid and block on @p stream.
/// @return cudaErrorInvalidValue without launching for another tile; cudaSuccess without launching
///         when M or N is 0; otherwise the launch's error (cudaGetLastError()).
cudaError_t launch_tiled(int tile, const float *a, const float *b, float *ab, int M, int N, int K,
                         cudaStream_t stream = 0);

/// @brief GIVEN: matrixMulTiled<tile> as a pointer for cudaFuncGetAttributes and the occupancy API
/// (an instantiation of a kernel template cannot be named from another file), nullptr for a tile
/// other than 16 or 32.
const void *tiled_kernel(int tile);

/// Register-blocked kernel (stretch): each block computes a kRbTile x kRbTile piece of ab.
constexpr int kRbTile = 128;
/// Register-blocked kernel: the K-slice of a and b held in shared memory per step.
constexpr int kRbTileK = 8;
/// Register-blocked kernel: each thread computes kRbThread x kRbThread outputs (in registers).
constexpr int kRbThread = 8;
/// Register-blocked kernel: threads per block, (kRbTile / kRbThread)^2 = 256.
constexpr int kRbThreads = (kRbTile / kRbThread) * (kRbTile / kRbThread);

/// @brief STRETCH (ungraded; the demo shows it beside cuBLAS): the same product with far more reuse
/// per load. Each block of kRbThreads threads computes a kRbTile x kRbTile piece of ab; per step it
/// stages a kRbTile x kRbTileK slice of a and a kRbTileK x kRbTile slice of b in shared memory,
/// and each thread keeps a kRbThread x kRbThread block of ab in registers, reading kRbThread values
/// of a and kRbThread of b (as float4) for kRbThread^2 multiply-adds. Any M, N, K (zero-padded
/// tiles, guarded stores). Launch: launch_register_blocked.
/// @param a M x K input
/// @param b K x N input
/// @param ab M x N output
/// @param M rows of a and ab
/// @param N columns of b and ab
/// @param K columns of a, rows of b
__global__ void matrixMulRegisterBlocked(const float *a, const float *b, float *ab, int M, int N, int K);

/// @brief GIVEN: launches matrixMulRegisterBlocked with matmul_grid(M, N, kRbTile) blocks of
/// kRbThreads threads on @p stream; cudaSuccess without launching when M or N is 0, otherwise the
/// launch's error.
cudaError_t launch_register_blocked(const float *a, const float *b, float *ab, int M, int N, int K,
                                    cudaStream_t stream = 0);

/// @brief What the seed's cost analysis counts for the tiled kernel with tile x tile blocks on an
/// M x K times K x N product. tile = 1 is the naive kernel: each thread fetches its own row of a and
/// column of b, as if each tile were a single element.
struct MatmulTraffic {
  long long flops = 0;          ///< 2 M N K: a multiply and an add per term
  long long global_loads = 0;   ///< floats all threads together read from global memory; the
                                ///< zeros stored for elements outside a or b are not loads
  double flops_per_load = 0.0;  ///< flops / global_loads (the seed: 1 naive, 16 with 16 x 16 tiles)
  double bytes_per_flop = 0.0;  ///< 4 * global_loads / flops (the seed: 4 B/FLOP naive)
  long long blocks = 0;         ///< tiles of ab = blocks of the grid: ceil(M / tile) * ceil(N / tile)
  long long phases = 0;         ///< phases each block walks through: ceil(K / tile)
  long long shared_bytes = 0;   ///< shared memory per block for s_a and s_b: 2 * tile * tile * 4
};

/// @brief YOURS: the seed's count for any sizes and tile (square multiples of the tile: 2 n^3 / tile
/// loads). Count thread by thread, or per element of a and b: how many blocks load it? Host
/// function, tested without a GPU.
/// @param M rows of a and ab
/// @param N columns of b and ab
/// @param K columns of a, rows of b
/// @param tile tile width (1: the naive kernel)
MatmulTraffic matmul_traffic(int M, int N, int K, int tile);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_matmul.hpp")
#include "cudalab_apart_matmul.hpp"
#endif
