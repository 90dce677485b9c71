// The program BankConflicts.* runs under Nsight Compute: one launch of transposeShared and one of
// transposeSharedPadded on a 2048 x 2048 float matrix (whole tiles: the model's counts are
// exact). Both results are checked; a wrong one prints a reason and exits 1, so a wrong kernel
// earns no profile.
//
//   profile_target           run both kernels
//   profile_target --probe   print "[ CUDALAB  ] skipped: <why>" if there is no usable GPU
#include "bank_conflicts.cuh"
#include "transpose_check.cuh"

#include <cstdio>

int main(int argc, char **argv) {
  if (!cudalab::driver_start(argc, argv, nullptr)) return 0;  // no GPU (skip line printed) or --probe
  TransposeData d;
  if (d.init(kProfileRows, kProfileCols, 5) != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: profile target: cannot allocate device memory\n");
    return 1;
  }
  const char *names[] = {"transposeShared", "transposeSharedPadded"};
  void (*launches[])(const float *, float *, int, int, cudaStream_t) = {launch_transpose_shared,
                                                                         launch_transpose_padded};
  for (int k = 0; k < 2; ++k) {
    const std::string error =
        d.check(names[k], [&](const float *in, float *out, int r, int c) { launches[k](in, out, r, c, 0); });
    if (!error.empty()) {
      std::printf("[ CUDALAB  ] reason: %s is not profiled until it is correct: %s\n", names[k], error.c_str());
      return 1;
    }
  }
  std::printf("profile target: transposeShared and transposeSharedPadded correct\n");
  return 0;
}
