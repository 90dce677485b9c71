// The program ModernAtomics.* runs under Nsight Compute: one launch of reduceModern on 2^22 + 3 ints
// that start 1 int past a 16-byte boundary, with the one-wave grid modern_grid() gives for this
// GPU, checked against the CPU. A wrong sum prints a reason and exits 1, so a wrong kernel earns no
// profile.
//
//   profile_target           run reduceModern once
//   profile_target --probe   print "[ CUDALAB  ] skipped: <why>" if there is no usable GPU
#include "modern_check.cuh"
#include "modern_reduction.cuh"

#include <cstdio>

int main(int argc, char **argv) {
  if (!cudalab::driver_start(argc, argv, nullptr)) return 0;  // no GPU (skip line printed) or --probe
  const unsigned int n = kModernProfileN;
  const std::string error = modern_error(n, 1, 0, 7);
  if (!error.empty()) {
    std::printf("[ CUDALAB  ] reason: reduceModern is not profiled until it is correct: %s\n", error.c_str());
    return 1;
  }
  std::printf("profile target: reduceModern correct (n=%u, grid %u x %u)\n", n, modern_grid_here(n), kModernBlock);
  return 0;
}
