// ch05_05 compute-sanitizer driver: `ch05_05_bank_conflicts_sanitize <case>` runs one case.
//
//   naive, shared, padded  your transpose on a ragged 300 x 333 matrix, input and output
//                          allocated with exactly rows * cols floats     racecheck, memcheck: clean
//   missing_barrier        exhibit: the tiled transpose without the __syncthreads() between the
//                          tile writes and the (transposed) tile reads    racecheck: flagged
// The clean cases check the student's result too and exit 1 with a reason if it is wrong (so they
// fail for a kernel that is wrong but race-free). The exhibit is test-side, broken on purpose, and
// independent of the student's code: it proves the check can fail. `--probe` prints a skip line
// when there is no GPU.
#include "bank_conflicts.cuh"
#include "cudalab/launch.cuh"
#include "transpose_check.cuh"

#include <cstdio>
#include <string>

namespace {

constexpr int kRows = 300, kCols = 333;  // racecheck reports every hazard: keep it small

/// Exhibit: thread (tx, ty) reads tile[tx][ty + j], written by another warp, with no barrier.
__global__ void transposeWithoutBarrier(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTileDim][kTileDim + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int c = blockIdx.x * kTileDim + tx, r = blockIdx.y * kTileDim + ty;
  for (int j = 0; j < kTileDim; j += kBlockRows)
    if (c < cols && r + j < rows) tile[ty + j][tx] = in[static_cast<std::size_t>(r + j) * cols + c];
  // missing: __syncthreads();
  c = blockIdx.y * kTileDim + tx;
  r = blockIdx.x * kTileDim + ty;
  for (int j = 0; j < kTileDim; j += kBlockRows)
    if (c < rows && r + j < cols) out[static_cast<std::size_t>(r + j) * rows + c] = tile[tx][ty + j];
}

int run_student(const char *name, void (*launch)(const float *, float *, int, int, cudaStream_t)) {
  TransposeData d;
  if (d.init(kRows, kCols, 3, 0) != cudaSuccess) return cudalab::driver_fail("cannot allocate device memory");
  const std::string error = d.check(name, [&](const float *in, float *out, int r, int c) { launch(in, out, r, c, 0); });
  return error.empty() ? 0 : cudalab::driver_fail(error);
}

}  // namespace

int main(int argc, char **argv) {
  std::string c;
  if (!cudalab::driver_start(argc, argv, &c)) return 0;  // no GPU (skip line printed) or --probe

  if (c == "naive") return run_student("transposeNaive", launch_transpose_naive);
  if (c == "shared") return run_student("transposeShared", launch_transpose_shared);
  if (c == "padded") return run_student("transposeSharedPadded", launch_transpose_padded);
  if (c == "missing_barrier") {
    constexpr int kExhibit = 2 * kTileDim + 5;  // a few blocks show the race
    TransposeData d;
    d.init(kExhibit, kExhibit, 3, 0);
    cudalab::launch(transposeWithoutBarrier, transpose_grid(kExhibit, kExhibit), transpose_block())(
        d.input(), d.output(), kExhibit, kExhibit);
    cudaDeviceSynchronize();
    return 0;
  }
  std::printf("usage: %s naive|shared|padded|missing_barrier|--probe\n", argv[0]);
  return 2;
}
