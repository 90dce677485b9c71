// ch03_14 compute-sanitizer driver: `ch03_14_modern_reduction_sanitize <case>` runs one case.
//
//   shuffle8          reduceShuffle8, n = 2^20 + 3, block 256          racecheck: clean
//   modern            reduceModern, n = 2^20 + 3, input 1 int past a 16-byte boundary
//                                                                       racecheck, memcheck: clean
//   missing_barrier   exhibit: reduceShuffle8's warp-sum step without the __syncthreads()
//                                                                       racecheck: flagged
//   int4_overrun      exhibit: an int4 loop that reads the ragged tail as a whole int4
//                                                                       memcheck: flagged
// The clean cases check the student's kernel's result too and exit 1 with a reason if it is wrong
// (so they fail for a kernel that is wrong but race-free). The exhibits are test-side, broken on
// purpose, and independent of the student's code: they prove each check can fail. `--probe`
// prints a skip line when there is no GPU.
#include "modern_reduction.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/launch.cuh"
#include "cudalab/reference.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// Exhibit: the warp sums are read by warp 0 with no barrier after the other warps wrote them.
__global__ void shuffle8WithoutBarrier(const int *g_idata, int *g_odata, unsigned int n) {
  __shared__ int warp_sums[32];
  const unsigned int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const unsigned int base = blockIdx.x * blockDim.x * 8 + tid;
  int sum = 0;
  for (unsigned int k = 0; k < 8; ++k)
    if (base + k * blockDim.x < n) sum += g_idata[base + k * blockDim.x];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) warp_sums[warp] = sum;
  // missing: __syncthreads();
  if (warp == 0) {
    sum = lane < blockDim.x / 32 ? warp_sums[lane] : 0;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) g_odata[blockIdx.x] = sum;
  }
}

/// Exhibit: ceil(n / 4) int4 loads -- the last one reads up to 12 bytes past the array.
__global__ void int4Overrun(const int *g_idata, unsigned int n, int *g_sum) {
  const int4 *vec = reinterpret_cast<const int4 *>(g_idata);
  int sum = 0;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n + 3) / 4; i += gridDim.x * blockDim.x) {
    const int4 a = vec[i];
    sum += a.x + a.y + a.z + a.w;
  }
  atomicAdd(g_sum, sum);
}

/// Runs reduceShuffle8 on @p input (block 256); "" if its total is right.
std::string check_shuffle8(const std::vector<int> &input) {
  const unsigned int n = input.size(), block = 256, grid = shuffle8_grid(n, block);
  cudalab::DeviceBuffer<int> in, out;
  if (in.upload(input) != cudaSuccess || out.allocate(grid) != cudaSuccess) return "allocation failed";
  cudalab::launch(reduceShuffle8, grid, block)(in.get(), out.get(), n);
  if (cudaDeviceSynchronize() != cudaSuccess) return "reduceShuffle8 failed to run";
  std::vector<int> partial;
  out.download(&partial);
  long long total = 0;
  for (int p : partial) total += p;
  if (total != cudalab::cpu::sum(input))
    return "reduceShuffle8 is wrong (total " + std::to_string(total) + ", expected " +
           std::to_string(cudalab::cpu::sum(input)) + ", n=" + std::to_string(n) + " block=256)";
  return "";
}

/// Runs reduceModern on @p input placed 1 int past a 16-byte boundary, in an allocation of
/// exactly n + 1 ints; "" if the sum is right.
std::string check_modern(const std::vector<int> &input) {
  const unsigned int n = input.size();
  cudalab::DeviceInfo dev;
  cudalab::query_device(0, &dev);
  const unsigned int grid = modern_grid(n, dev.sm_count, dev.max_threads_per_sm, kModernBlock);
  std::vector<int> shifted(1, 0);
  shifted.insert(shifted.end(), input.begin(), input.end());
  cudalab::DeviceBuffer<int> in, sum;
  if (in.upload(shifted) != cudaSuccess || sum.allocate(1) != cudaSuccess) return "allocation failed";
  cudaMemset(sum.get(), 0, sizeof(int));
  cudalab::launch(reduceModern, grid, kModernBlock)(in.get() + 1, n, sum.get());
  if (cudaDeviceSynchronize() != cudaSuccess) return "reduceModern failed to run";
  std::vector<int> got;
  sum.download(&got);
  if (got[0] != cudalab::cpu::sum(input))
    return "reduceModern is wrong (sum " + std::to_string(got[0]) + ", expected " +
           std::to_string(cudalab::cpu::sum(input)) + ", n=" + std::to_string(n) + " offset=1)";
  return "";
}

}  // namespace

int main(int argc, char **argv) {
  std::string c;
  if (!cudalab::driver_start(argc, argv, &c)) return 0;  // no GPU (skip line printed) or --probe
  const std::vector<int> input = cudalab::random_ints((1u << 20) + 3, -1000, 1000, 14);

  if (c == "shuffle8") {
    const std::string error = check_shuffle8(input);
    return error.empty() ? 0 : cudalab::driver_fail(error);
  }
  if (c == "modern") {
    const std::string error = check_modern(input);
    return error.empty() ? 0 : cudalab::driver_fail(error);
  }
  if (c == "missing_barrier") {
    const unsigned int n = input.size(), block = 256, grid = shuffle8_grid(n, block);
    cudalab::DeviceBuffer<int> in, out;
    in.upload(input);
    out.allocate(grid);
    cudalab::launch(shuffle8WithoutBarrier, grid, block)(in.get(), out.get(), n);
    cudaDeviceSynchronize();
    return 0;
  }
  if (c == "int4_overrun") {
    const std::vector<int> ragged(input.begin(), input.begin() + (1u << 20) + 1);  // n % 4 == 1
    cudalab::DeviceBuffer<int> in, sum;
    in.upload(ragged);  // exactly n ints: the last int4 ends 12 bytes past the allocation
    sum.allocate(1);
    cudaMemset(sum.get(), 0, sizeof(int));
    cudalab::launch(int4Overrun, 264, 256)(in.get(), ragged.size(), sum.get());
    cudaDeviceSynchronize();
    return 0;
  }
  std::printf("usage: %s shuffle8|modern|missing_barrier|int4_overrun|--probe\n", argv[0]);
  return 2;
}
