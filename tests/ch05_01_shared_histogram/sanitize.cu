// ch05_01 compute-sanitizer driver: `ch05_01_shared_histogram_sanitize <case>` runs one case.
//
//   shared          histogramShared, n = 2^16 + 3 bytes starting 1 byte past a 16-byte boundary,
//                   in an allocation of exactly n + 1 bytes: uniform bytes with block 512, one
//                   repeated byte with block 512, uniform bytes with block 128 (fewer threads
//                   than bins)                                      racecheck, memcheck: clean
//   nonatomic       exhibit: the shared histogram counted with s_hist[b]++ instead of atomicAdd
//                                                                   racecheck: flagged
//   uint4_overrun   exhibit: a uint4 loop that reads the ragged tail as a whole uint4
//                                                                   memcheck: flagged
// The clean case checks the student's counts too and exits 1 with a reason when they are wrong
// (so it fails for a kernel that is wrong but race-free). The exhibits are test-side, broken on
// purpose, and independent of the student's code: they prove each check can fail. `--probe`
// prints a skip line when there is no GPU.
#include "histogram.cuh"

#include "histogram_check.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device.cuh"
#include "cudalab/launch.cuh"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// Exhibit: the seed's shared histogram (fixed for any block size), but counted with a plain
/// increment: load, add, store -- two threads on the same bin lose a count.
__global__ void histogramSharedNonAtomic(const unsigned char *colors, unsigned int *buckets, size_t n) {
  __shared__ unsigned int s_hist[kNumBins];
  for (unsigned int b = threadIdx.x; b < kNumBins; b += blockDim.x) s_hist[b] = 0;
  __syncthreads();
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    s_hist[colors[i]]++;  // the race
  __syncthreads();
  for (unsigned int b = threadIdx.x; b < kNumBins; b += blockDim.x) atomicAdd(&buckets[b], s_hist[b]);
}

/// Exhibit: ceil(n / 16) uint4 loads -- the last one reads up to 15 bytes past the array.
__global__ void histogramUint4Overrun(const unsigned char *colors, unsigned int *buckets, size_t n) {
  const uint4 *vec = reinterpret_cast<const uint4 *>(colors);
  unsigned int ones = 0;  // a stand-in for the counting: the loads are what matter here
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n + 15) / 16;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = vec[i];
    ones += __popc(v.x) + __popc(v.y) + __popc(v.z) + __popc(v.w);
  }
  atomicAdd(&buckets[0], ones);
}

/// Runs histogramShared (through run_histogram_shared) on @p input placed 1 byte past a 16-byte
/// boundary, in an allocation of exactly n + 1 bytes; "" if the counts are right.
std::string check_shared(const std::vector<unsigned char> &input, unsigned int block, const char *what) {
  const size_t n = input.size();
  std::vector<unsigned char> shifted(1, kGuardByte);
  shifted.insert(shifted.end(), input.begin(), input.end());
  cudalab::DeviceBuffer<unsigned char> in;
  cudalab::DeviceBuffer<unsigned int> buckets;
  if (in.upload(shifted) != cudaSuccess || buckets.allocate(kNumBins) != cudaSuccess) return "allocation failed";
  const unsigned int grid = histogram_shared_grid(n, block);
  cudaError_t err = run_histogram_shared(in.get() + 1, buckets.get(), n, grid, block);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, "histogramShared", __FILE__, __LINE__);
  std::vector<unsigned int> got;
  buckets.download(&got);
  const std::string ctx = "n=" + std::to_string(n) + " offset=1 block=" + std::to_string(block) +
                          " grid=" + std::to_string(grid) + " input=" + what;
  return compare_histogram("histogramShared", std::vector<unsigned long long>(kNumBins, 0), cpu_histogram(input), got,
                           n, ctx);
}

}  // namespace

int main(int argc, char **argv) {
  std::string c;
  if (!cudalab::driver_start(argc, argv, &c)) return 0;  // no GPU (skip line printed) or --probe
  const size_t n = (size_t(1) << 16) + 3;                // racecheck reports every hazard: keep it small
  const std::vector<unsigned char> uniform = make_bytes(n, Pattern::kUniform, 51);

  if (c == "shared") {
    std::string error = check_shared(uniform, kHistogramBlock, "uniform");
    if (error.empty())
      error = check_shared(make_bytes(n, Pattern::kSingleValue, 51, 7), kHistogramBlock, "single value 7");
    if (error.empty()) error = check_shared(uniform, 128, "uniform");
    return error.empty() ? 0 : cudalab::driver_fail(error);
  }
  if (c == "nonatomic") {
    cudalab::DeviceBuffer<unsigned char> in;
    cudalab::DeviceBuffer<unsigned int> buckets;
    // A few blocks are enough to race (and keep racecheck, which reports every hazard, fast).
    const std::vector<unsigned char> few(uniform.begin(), uniform.begin() + 4 * 256 * 4 + 3);
    in.upload(few);
    buckets.allocate(kNumBins);
    cudaMemset(buckets.get(), 0, kNumBins * sizeof(unsigned int));
    cudalab::launch(histogramSharedNonAtomic, 4, 256)(in.get(), buckets.get(), few.size());
    cudaDeviceSynchronize();
    return 0;
  }
  if (c == "uint4_overrun") {
    const std::vector<unsigned char> ragged(uniform.begin(), uniform.begin() + (size_t(1) << 16) + 1);  // n % 16 == 1
    cudalab::DeviceBuffer<unsigned char> in;
    cudalab::DeviceBuffer<unsigned int> buckets;
    in.upload(ragged);  // exactly n bytes: the last uint4 ends 15 bytes past the allocation
    buckets.allocate(kNumBins);
    cudaMemset(buckets.get(), 0, kNumBins * sizeof(unsigned int));
    cudalab::launch(histogramUint4Overrun, 264, 256)(in.get(), buckets.get(), ragged.size());
    cudaDeviceSynchronize();
    return 0;
  }
  std::printf("usage: %s shared|nonatomic|uint4_overrun|--probe\n", argv[0]);
  return 2;
}
