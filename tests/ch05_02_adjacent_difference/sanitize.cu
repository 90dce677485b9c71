// ch05_02 compute-sanitizer driver: `ch05_02_adjacent_difference_sanitize <case>` runs one case.
//
//   shared            adjacentDifferenceShared, n = 2^16 + 3, block 256, input and result
//                     allocated with exactly n ints                 racecheck, memcheck: clean
//   missing_barrier   exhibit: the shared kernel without the __syncthreads() between the tile
//                     load and the neighbour reads                   racecheck: flagged
//   unguarded_load    exhibit: the tile load without `if (i < n)`: the last block reads past
//                     the end of the input                           memcheck: flagged
// The clean cases check the student's result too and exit 1 with a reason if it is wrong (so they
// fail for a kernel that is wrong but race-free). The exhibits are test-side, broken on purpose,
// and independent of the student's code: they prove each check can fail. `--probe` prints a skip
// line when there is no GPU.
#include "adjacent_check.cuh"
#include "adjacent_difference.cuh"
#include "cudalab/launch.cuh"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

constexpr int kN = (1 << 16) + 3;  // racecheck reports every hazard: keep it small

/// Exhibit: thread tx reads s_data[tx - 1] with no barrier after thread tx - 1 wrote it.
__global__ void sharedWithoutBarrier(const int *input, int *result, int n) {
  extern __shared__ int s_data[];
  const unsigned int tx = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + tx;
  if (i < n) s_data[tx] = input[i];
  // missing: __syncthreads();
  if (i < n) {
    int left = 0;
    if (tx > 0)
      left = s_data[tx - 1];
    else if (i > 0)
      left = input[i - 1];
    result[i] = s_data[tx] - left;
  }
}

/// Exhibit: every thread of the last block loads its tile element, even past n.
__global__ void sharedUnguardedLoad(const int *input, int *result, int n) {
  extern __shared__ int s_data[];
  const unsigned int tx = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + tx;
  s_data[tx] = input[i];  // missing: if (i < n)
  __syncthreads();
  if (i < n) {
    int left = 0;
    if (tx > 0)
      left = s_data[tx - 1];
    else if (i > 0)
      left = input[i - 1];
    result[i] = s_data[tx] - left;
  }
}

/// Runs @p kernel once on kExhibitN ints with block 256 and the header's shared memory size: a few
/// blocks show the bug, and racecheck (which reports every hazard) stays fast.
void run_exhibit(void (*kernel)(const int *, int *, int)) {
  constexpr int kExhibitN = 4 * 256 + 3;
  AdjacentData d;
  d.init(kExhibitN, 3, 0);
  const unsigned block = kAdjacentBlock;
  cudalab::launch(kernel, adjacent_difference_grid(kExhibitN, block), block, adjacent_difference_smem_bytes(block))(
      d.input(), d.result(), kExhibitN);
  cudaDeviceSynchronize();
}

}  // namespace

int main(int argc, char **argv) {
  std::string c;
  if (!cudalab::driver_start(argc, argv, &c)) return 0;  // no GPU (skip line printed) or --probe

  if (c == "shared") {
    AdjacentData d;
    if (d.init(kN, 3, 0) != cudaSuccess) return cudalab::driver_fail("cannot allocate device memory");
    const std::string error = d.check(
        "adjacentDifferenceShared",
        [](const int *in, int *out, int n) { launch_adjacent_difference_shared(in, out, n, kAdjacentBlock); },
        kAdjacentBlock);
    return error.empty() ? 0 : cudalab::driver_fail(error);
  }
  if (c == "missing_barrier") {
    run_exhibit(sharedWithoutBarrier);
    return 0;
  }
  if (c == "unguarded_load") {
    run_exhibit(sharedUnguardedLoad);
    return 0;
  }
  std::printf("usage: %s shared|missing_barrier|unguarded_load|--probe\n", argv[0]);
  return 2;
}
