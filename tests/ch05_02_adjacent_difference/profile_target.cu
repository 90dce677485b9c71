// The program GlobalLoads.* runs under Nsight Compute: one launch of the naive baseline and one
// of adjacentDifferenceShared, 2^24 ints, block 256. adjacentDifferenceShared's result is
// checked; a wrong result prints a reason and exits 1, so a wrong kernel earns no profile.
//
//   profile_target           run both kernels
//   profile_target --probe   print "[ CUDALAB  ] skipped: <why>" if there is no usable GPU
#include "adjacent_check.cuh"
#include "adjacent_difference.cuh"
#include "cudalab/launch.cuh"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  if (!cudalab::driver_start(argc, argv, nullptr)) return 0;  // no GPU (skip line printed) or --probe
  AdjacentData d;
  if (d.init(kProfileN, 5) != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: profile target: cannot allocate device memory\n");
    return 1;
  }
  cudalab::launch(adjacentDifferenceNaiveBaseline, adjacent_difference_grid(kProfileN, kProfileBlock), kProfileBlock)(
      d.input(), d.result(), kProfileN);
  const std::string error = d.check(
      "adjacentDifferenceShared",
      [](const int *in, int *out, int n) { launch_adjacent_difference_shared(in, out, n, kProfileBlock); },
      kProfileBlock);
  if (!error.empty()) {
    std::printf("[ CUDALAB  ] reason: adjacentDifferenceShared is not profiled until it is correct: %s\n",
                error.c_str());
    return 1;
  }
  std::printf("profile target: adjacentDifferenceShared correct\n");
  return 0;
}
