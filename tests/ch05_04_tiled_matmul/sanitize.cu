// ch05_04 compute-sanitizer driver: `ch05_04_tiled_matmul_sanitize <case>` runs one case.
//
//   tiled16, tiled32  the student's matrixMulTiled<16> / <32> on M=100, N=90, K=70 (no dimension
//                     a multiple of the tile), every matrix in an allocation of exactly its size
//                                                                  racecheck, memcheck: clean
//   one_barrier       exhibit: the tiled kernel (16 x 16) without the second __syncthreads() of a
//                     phase -- the next phase overwrites s_a / s_b while slower warps still read
//                     them (a WAR hazard), 40 x 40 (3 phases; racecheck's time grows
//                     with every shared access it tracks)           racecheck: flagged
//   unguarded         exhibit: the tiled kernel with no bounds checks at all (right only when width
//                     is a multiple of the tile), 100 x 100: reads past a and b, writes past ab
//                                                                  memcheck: flagged
// The clean cases also check the result and exit 1 with a reason when it is wrong (so a kernel
// that is wrong but race-free still fails). The exhibits are test-side and independent of the
// student's code: they prove each check can fail. `--probe` prints a skip line without a GPU.
#include "matmul.cuh"
#include "matmul_check.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/launch.cuh"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kTile = 16;

/// Exhibit: the guarded tiled kernel with only the first barrier of each phase.
__global__ void tiledOneBarrier(const float *a, const float *b, float *ab, int width) {
  __shared__ float s_a[kTile][kTile];
  __shared__ float s_b[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int p = 0; p < (width + kTile - 1) / kTile; ++p) {
    s_a[ty][tx] = (row < width && p * kTile + tx < width) ? a[row * width + p * kTile + tx] : 0.0f;
    s_b[ty][tx] = (p * kTile + ty < width && col < width) ? b[(p * kTile + ty) * width + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += s_a[ty][k] * s_b[k][tx];
    // missing: __syncthreads();
  }
  if (row < width && col < width) ab[row * width + col] = sum;
}

/// Exhibit: the seed's tiled kernel as written for widths that are multiples of the tile.
__global__ void tiledUnguarded(const float *a, const float *b, float *ab, int width) {
  __shared__ float s_a[kTile][kTile];
  __shared__ float s_b[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int p = 0; p < (width + kTile - 1) / kTile; ++p) {
    s_a[ty][tx] = a[row * width + p * kTile + tx];
    s_b[ty][tx] = b[(p * kTile + ty) * width + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += s_a[ty][k] * s_b[k][tx];
    __syncthreads();
  }
  ab[row * width + col] = sum;
}

/// Runs an exhibit on width x width random matrices held in allocations of exactly their size.
void run_exhibit(void (*kernel)(const float *, const float *, float *, int), int width) {
  const std::size_t n = std::size_t(width) * width;
  cudalab::DeviceBuffer<float> a, b, ab;
  a.upload(cudalab::random_floats(n, -1.0f, 1.0f, 1));
  b.upload(cudalab::random_floats(n, -1.0f, 1.0f, 2));
  ab.allocate(n);
  cudalab::launch(kernel, matmul_grid(width, width, kTile), dim3(kTile, kTile))(a.get(), b.get(), ab.get(), width);
  cudaDeviceSynchronize();
}

}  // namespace

int main(int argc, char **argv) {
  std::string c;
  if (!cudalab::driver_start(argc, argv, &c)) return 0;  // no GPU (skip line printed) or --probe

  if (c == "tiled16" || c == "tiled32") {
    const int tile = c == "tiled16" ? 16 : 32;
    const std::string error = matmul_error(
        "matrixMulTiled<" + std::to_string(tile) + ">",
        [tile](const float *a, const float *b, float *ab, int M, int N, int K) {
          return launch_tiled(tile, a, b, ab, M, N, K);
        },
        100, 90, 70, "tile=" + std::to_string(tile), 54, /*guard=*/0);
    return error.empty() ? 0 : cudalab::driver_fail(error);
  }
  if (c == "one_barrier") {
    run_exhibit(tiledOneBarrier, 40);
    return 0;
  }
  if (c == "unguarded") {
    run_exhibit(tiledUnguarded, 100);
    return 0;
  }
  std::printf("usage: %s tiled16|tiled32|one_barrier|unguarded|--probe\n", argv[0]);
  return 2;
}
