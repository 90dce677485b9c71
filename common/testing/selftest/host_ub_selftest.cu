// The host code's undefined-behaviour checks (CUDALAB_HOST_UBSAN, cmake/CudaLab.cmake) can fail:
// built exactly as a lab's sources are (nvcc, the same flags), this program writes one element
// past a fixed-size array, the off-by-one a student's bank model made. common.host_ub_selftest
// passes only if the run stops with the sanitizer's report.
#include <cstdio>
#include <cstdlib>

/// @brief Lane l's word index for a row stride, written into a 32-element array: one past its end.
static long long overrun(int stride) {
  long long words[32];
  for (int l = 0; l <= 32; ++l) words[l] = static_cast<long long>(l) * stride;  // l == 32: past the end
  long long sum = 0;
  for (int l = 0; l < 32; ++l) sum += words[l];
  return sum;
}

int main(int argc, char **argv) {
  const int stride = argc > 1 ? std::atoi(argv[1]) : 33;
  std::printf("sum %lld\n", overrun(stride));
  std::printf("no undefined behaviour reported\n");
  return 0;
}
