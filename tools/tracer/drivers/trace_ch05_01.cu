/// @file trace_ch05_01.cu
/// @brief Small-input driver for ch05_01: histogramShared on 2048 bytes in blocks of 64 threads,
/// once with every byte different within a warp (bytes i % 256) and once with every byte 0 (all
/// lanes hit one bin: one address, one bank).
#include "histogram.cuh"

#include "driver_util.cuh"

/// @brief Runs histogramShared on the two inputs with 2 blocks.
int main() {
  require_gpu();
  const size_t n = 2048;
  const unsigned int block = 64, grid = 2;
  auto colors = zeroed<unsigned char>(n);
  auto buckets = zeroed<unsigned int>(kNumBins);
  std::vector<unsigned char> spread(n), same(n, 0);
  for (size_t i = 0; i < n; ++i) spread[i] = static_cast<unsigned char>(i % 256);
  for (const auto *input : {&spread, &same}) {
    CUDALAB_CHECK(colors.upload(*input));
    CUDALAB_CHECK(cudaMemset(buckets.get(), 0, sizeof(unsigned int) * kNumBins));
    histogramShared<<<grid, block>>>(colors.get(), buckets.get(), n);
    finish(input == &spread ? "histogramShared spread" : "histogramShared same");
  }
  return EXIT_SUCCESS;
}
