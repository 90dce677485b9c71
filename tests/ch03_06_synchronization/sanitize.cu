// ch03_06 sanitizer driver: `ch03_06_synchronization_sanitize <case>` runs one case, for
// compute-sanitizer (see SANITIZER_CHECKS in CMakeLists.txt).
//
//   reverse, smooth, min      your kernels; the result is checked, a wrong one exits with 1
//   reverse_no_barrier,       exhibits shipped with the tests: reverseBlock without its barrier,
//   smooth_no_war_barrier     smoothTile without the barrier between read and overwrite;
//                             racecheck must flag them (proof that the checks can fail)
//   --probe                   prints "[ CUDALAB  ] skipped: <why>" when there is no usable GPU
#include "sync_reference.hpp"
#include "synchronization.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/device.cuh"
#include "cudalab/launch.cuh"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The exhibits: the reference kernels with a barrier missing. racecheck must flag them; they
// prove that the sanitizer checks of your kernels can fail.

/// reverseBlock without its barrier: a RAW hazard (reads what another warp may not have written).
__global__ void reverseNoBarrier(const int *in, int *out, unsigned int n) {
  extern __shared__ int tile[];
  const unsigned int tid = threadIdx.x, start = blockIdx.x * blockDim.x;
  const unsigned int count = min(blockDim.x, n - start);
  if (tid < count) tile[tid] = in[start + tid];
  if (tid < count) out[start + tid] = tile[count - 1 - tid];
}

/// smoothTile with the barrier in the wrong place: only after the write, none between reading the
/// neighbours and overwriting t[tid] -- a WAR hazard.
__global__ void smoothMissingWarBarrier(const unsigned int *in, unsigned int *out, unsigned int n, int steps) {
  extern __shared__ unsigned int t[];
  const unsigned int tid = threadIdx.x, start = blockIdx.x * blockDim.x;
  const unsigned int count = min(blockDim.x, n - start);
  t[tid] = tid < count ? in[start + tid] : 0u;
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    unsigned int v = 0;
    if (tid < count) v = (tid > 0 ? t[tid - 1] : 0u) + t[tid] + (tid + 1 < count ? t[tid + 1] : 0u);
    if (tid < count) t[tid] = v;
    __syncthreads();
  }
  if (tid < count) out[start + tid] = t[tid];
}

constexpr unsigned int kN = 5000, kBlock = 200;  // 25 blocks, the last one full; 200 = 6.25 warps
constexpr int kSteps = 3;

/// True if the results are equal; otherwise prints the first difference as the test's reason line
/// (when @p report is set).
template <class T>
bool same(const char *kernel, const std::vector<T> &want, const std::vector<T> &got, std::uint64_t seed, bool report) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (want[i] != got[i]) {
      if (!report) return false;
      std::printf(
          "[ CUDALAB  ] reason: %s: wrong result at index %zu: expected %lld, got %lld (n=%u block=%u seed=%llu)\n",
          kernel, i, static_cast<long long>(want[i]), static_cast<long long>(got[i]), kN, kBlock,
          static_cast<unsigned long long>(seed));
      return false;
    }
  }
  return true;
}

using ReverseKernel = void (*)(const int *, int *, unsigned int);
using SmoothKernel = void (*)(const unsigned int *, unsigned int *, unsigned int, int);

/// Runs a reverseBlock kernel once; true if its result is right.
bool run_reverse(ReverseKernel kernel, std::uint64_t seed, bool report = true) {
  const std::vector<int> in = cudalab::random_ints(kN, -1000, 1000, seed);
  cudalab::DeviceBuffer<int> d_in, d_out;
  CUDALAB_CHECK(d_in.upload(in));
  CUDALAB_CHECK(d_out.allocate(kN));
  CUDALAB_CHECK(d_out.poison());
  cudalab::launch(kernel, sync_grid(kN, kBlock), kBlock, kBlock * sizeof(int))(d_in.get(), d_out.get(), kN);
  CUDALAB_CHECK_LAUNCH("reverseBlock");
  std::vector<int> out;
  CUDALAB_CHECK(d_out.download(&out));
  return same("reverseBlock", sync_ref::reverse_blocks(in, kBlock), out, seed, report);
}

/// Runs a smoothTile kernel once; true if its result is right.
bool run_smooth(SmoothKernel kernel, std::uint64_t seed, bool report = true) {
  const std::vector<int> raw = cudalab::random_ints(kN, 0, 1 << 30, seed);
  const std::vector<unsigned int> in(raw.begin(), raw.end());
  cudalab::DeviceBuffer<unsigned int> d_in, d_out;
  CUDALAB_CHECK(d_in.upload(in));
  CUDALAB_CHECK(d_out.allocate(kN));
  CUDALAB_CHECK(d_out.poison());
  cudalab::launch(kernel, sync_grid(kN, kBlock), kBlock, kBlock * sizeof(unsigned int))(d_in.get(), d_out.get(), kN,
                                                                                        kSteps);
  CUDALAB_CHECK_LAUNCH("smoothTile");
  std::vector<unsigned int> out;
  CUDALAB_CHECK(d_out.download(&out));
  return same("smoothTile", sync_ref::smooth_blocks(in, kBlock, kSteps), out, seed, report);
}

/// Runs subtractGlobalMin once; true if its result is right.
bool run_min(std::uint64_t seed) {
  const std::vector<int> in = cudalab::random_ints(kN, -(1 << 30), 1 << 30, seed);
  cudalab::DeviceBuffer<int> d_in, d_out, d_partial;
  CUDALAB_CHECK(d_in.upload(in));
  CUDALAB_CHECK(d_out.allocate(kN));
  CUDALAB_CHECK(d_out.poison());
  CUDALAB_CHECK(d_partial.allocate(sync_grid(kN, kBlock)));
  CUDALAB_CHECK(subtractGlobalMin(d_in.get(), d_out.get(), d_partial.get(), kN, kBlock));
  CUDALAB_CHECK_LAUNCH("blockMin + subtractMin");
  std::vector<int> out;
  CUDALAB_CHECK(d_out.download(&out));
  return same("subtractGlobalMin", sync_ref::subtract_min(in), out, seed, true);
}

}  // namespace

int main(int argc, char **argv) {
  std::string which;
  if (!cudalab::driver_start(argc, argv, &which)) return 0;  // no GPU (skip line printed) or --probe
  const std::uint64_t seed = cudalab::choose_seed();
  std::printf("case %s, seed %llu\n", which.c_str(), static_cast<unsigned long long>(seed));

  if (which == "reverse") return run_reverse(reverseBlock, seed) ? 0 : 1;
  if (which == "smooth") return run_smooth(smoothTile, seed) ? 0 : 1;
  if (which == "min") return run_min(seed) ? 0 : 1;
  // The exhibits: the result does not matter, racecheck's hazards are what must fail them.
  if (which == "reverse_no_barrier") {
    run_reverse(reverseNoBarrier, seed, false);
    return 0;
  }
  if (which == "smooth_no_war_barrier") {
    run_smooth(smoothMissingWarBarrier, seed, false);
    return 0;
  }
  std::printf("unknown case '%s' (reverse, smooth, min, reverse_no_barrier, smooth_no_war_barrier, --probe)\n",
              which.c_str());
  return 2;
}
