// ch03_06 correctness: the block-level kernels and the two-launch pipeline over many randomized
// runs (sizes and block sizes that are not multiples of each other, poisoned outputs, guard
// regions), and the error-checking wrapper against a bad configuration and a kernel fault.
#include "fault_injection.cuh"
#include "poison_shared.cuh"
#include "sync_reference.hpp"
#include "synchronization.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/testing.cuh"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace {

constexpr unsigned int kGuard = 1024;    // elements after n in every buffer
constexpr int kGuardValue = 0x5EED5EED;  // read into a result, it changes the result
constexpr int kRuns = 25;                // randomized runs per test

/// A random run's size and block: mostly sizes that are not multiples of the block, any block
/// size from 32 to 1024 (not only powers of two), and a few tiny sizes.
struct RunShape {
  unsigned int n, block;
};
RunShape random_shape(std::mt19937_64 &rng, unsigned int max_n) {
  RunShape s;
  const int kind = static_cast<int>(rng() % 4);
  s.n = kind == 0 ? 1 + static_cast<unsigned int>(rng() % 70) : 1 + static_cast<unsigned int>(rng() % max_n);
  s.block = 32 + static_cast<unsigned int>(rng() % 993);
  if (rng() % 2) s.block = (s.block + 31) / 32 * 32;  // half the runs: whole warps only
  return s;
}

/// Uploads @p host followed by a guard region of kGuardValue.
template <class T>
cudaError_t upload_guarded(cudalab::DeviceBuffer<T> *buf, std::vector<T> host) {
  host.resize(host.size() + kGuard, static_cast<T>(kGuardValue));
  return buf->upload(host);
}

/// "" if the guard region after @p n elements of @p out is still poison, else what was written.
template <class T>
std::string guard_error(const char *kernel, const std::vector<T> &out, std::size_t n, const std::string &ctx) {
  for (std::size_t i = n; i < out.size(); ++i) {
    if (!cudalab::is_poison(out[i]))
      return std::string(kernel) + " wrote past the end of its output: element " + std::to_string(i) +
             " (n = " + std::to_string(n) + ") was written (" + ctx + ")";
  }
  return "";
}

/// The next launch finds the poison word 0x80000000 (INT_MIN: it wins any min, and is no value the
/// tests' data holds) in all the shared memory of every SM (poison_shared.cuh), so a kernel that
/// reads shared memory no thread of it wrote gets poison, not a lucky 0 or a neighbour's value.
void poison_shared_memory(const cudalab::DeviceInfo &) { (void)cudalab_poison::fill_shared_memory(0x80000000u); }

class BlockHazards : public cudalab::GpuTest {};

TEST_F(BlockHazards, ReverseBlockIsRightOverManyRandomRuns) {
  std::mt19937_64 rng(seed());
  for (int run = 0; run < kRuns; ++run) {
    const RunShape s = random_shape(rng, 300000);
    const std::string ctx =
        cudalab::context({{"n", s.n}, {"block", s.block}, {"run", run}, {"seed", static_cast<long long>(seed())}});
    const std::vector<int> in = cudalab::random_ints(s.n, -1000000, 1000000, seed() + run);
    cudalab::DeviceBuffer<int> d_in, d_out;
    CUDALAB_ASSERT_OK(upload_guarded(&d_in, in));
    CUDALAB_ASSERT_OK(d_out.allocate(s.n + kGuard));
    CUDALAB_ASSERT_OK(d_out.poison());
    poison_shared_memory(device());
    cudalab::launch(reverseBlock, sync_grid(s.n, s.block), s.block, s.block * sizeof(int))(d_in.get(), d_out.get(),
                                                                                           s.n);
    CUDALAB_ASSERT_LAUNCH("reverseBlock");
    std::vector<int> out;
    CUDALAB_ASSERT_OK(d_out.download(&out));
    if (std::string e = guard_error("reverseBlock", out, s.n, ctx); !e.empty()) GTEST_FAIL() << e;
    out.resize(s.n);
    auto r = cudalab::equal_arrays("reverseBlock", ctx, sync_ref::reverse_blocks(in, s.block), out);
    if (!r) GTEST_FAIL() << r.message();
  }
}

TEST_F(BlockHazards, SmoothTileIsRightOverManyRandomRuns) {
  std::mt19937_64 rng(seed());
  for (int run = 0; run < kRuns; ++run) {
    const RunShape s = random_shape(rng, 300000);
    const int steps = 1 + static_cast<int>(rng() % 8);
    const std::string ctx = cudalab::context(
        {{"n", s.n}, {"block", s.block}, {"steps", steps}, {"run", run}, {"seed", static_cast<long long>(seed())}});
    const std::vector<int> raw = cudalab::random_ints(s.n, 0, 1 << 30, seed() + run);
    const std::vector<unsigned int> in(raw.begin(), raw.end());
    cudalab::DeviceBuffer<unsigned int> d_in, d_out;
    CUDALAB_ASSERT_OK(upload_guarded(&d_in, in));
    CUDALAB_ASSERT_OK(d_out.allocate(s.n + kGuard));
    CUDALAB_ASSERT_OK(d_out.poison());
    poison_shared_memory(device());
    cudalab::launch(smoothTile, sync_grid(s.n, s.block), s.block, s.block * sizeof(unsigned int))(
        d_in.get(), d_out.get(), s.n, steps);
    CUDALAB_ASSERT_LAUNCH("smoothTile");
    std::vector<unsigned int> out;
    CUDALAB_ASSERT_OK(d_out.download(&out));
    if (std::string e = guard_error("smoothTile", out, s.n, ctx); !e.empty()) GTEST_FAIL() << e;
    out.resize(s.n);
    auto r = cudalab::equal_arrays("smoothTile", ctx, sync_ref::smooth_blocks(in, s.block, steps), out);
    if (!r) GTEST_FAIL() << r.message();
  }
}

class GridDependency : public cudalab::GpuTest {};

TEST_F(GridDependency, SubtractGlobalMinIsRightOverManyRandomRuns) {
  std::mt19937_64 rng(seed());
  for (int run = 0; run < kRuns; ++run) {
    RunShape s = random_shape(rng, 1u << 21);
    s.block = std::max(s.block, 64u);
    const unsigned int grid = sync_grid(s.n, s.block);
    const std::string ctx = cudalab::context(
        {{"n", s.n}, {"block", s.block}, {"grid", grid}, {"run", run}, {"seed", static_cast<long long>(seed())}});
    // Values in [-2^30, 2^30]: the global minimum sits in a random block, usually not block 0.
    const std::vector<int> in = cudalab::random_ints(s.n, -(1 << 30), 1 << 30, seed() + run);
    cudalab::DeviceBuffer<int> d_in, d_out, d_partial;
    CUDALAB_ASSERT_OK(upload_guarded(&d_in, in));
    CUDALAB_ASSERT_OK(d_out.allocate(s.n + kGuard));
    CUDALAB_ASSERT_OK(d_out.poison());
    CUDALAB_ASSERT_OK(d_partial.allocate(grid + kGuard));
    CUDALAB_ASSERT_OK(d_partial.poison());
    poison_shared_memory(device());
    CUDALAB_ASSERT_OK(subtractGlobalMin(d_in.get(), d_out.get(), d_partial.get(), s.n, s.block));
    CUDALAB_ASSERT_LAUNCH("blockMin + subtractMin");
    std::vector<int> out;
    CUDALAB_ASSERT_OK(d_out.download(&out));
    if (std::string e = guard_error("subtractGlobalMin", out, s.n, ctx); !e.empty()) GTEST_FAIL() << e;
    std::vector<int> partial;
    CUDALAB_ASSERT_OK(d_partial.download(&partial));
    if (std::string e = guard_error("blockMin (d_partial holds sync_grid(n, block) ints)", partial, grid, ctx);
        !e.empty())
      GTEST_FAIL() << e;
    out.resize(s.n);
    auto r = cudalab::equal_arrays("subtractGlobalMin (blockMin + subtractMin)", ctx, sync_ref::subtract_min(in), out);
    if (!r) GTEST_FAIL() << r.message();
  }
}

TEST_F(GridDependency, SubtractGlobalMinReportsALaunchError) {
  // Blocks of twice the device's limit: the first launch fails, and the header promises its error.
  const unsigned int n = 5000, block = 2 * static_cast<unsigned int>(device().max_threads_per_block);
  cudalab::DeviceBuffer<int> d_in, d_out, d_partial;
  CUDALAB_ASSERT_OK(d_in.upload(cudalab::random_ints(n, -1000, 1000, seed())));
  CUDALAB_ASSERT_OK(d_out.allocate(n));
  CUDALAB_ASSERT_OK(d_partial.allocate(sync_grid(n, block)));
  cudalab::launch(blockMin, sync_grid(n, block), block, block * sizeof(int))(d_in.get(), d_partial.get(), n);
  const cudaError_t want = cudaGetLastError();  // what the runtime says (cudaErrorInvalidValue on CUDA 13)
  ASSERT_NE(want, cudaSuccess) << "the runtime accepted " << block << "-thread blocks";
  const cudaError_t err = subtractGlobalMin(d_in.get(), d_out.get(), d_partial.get(), n, block);
  (void)cudaGetLastError();  // whatever the wrapper left pending
  if (err != want)
    GTEST_FAIL() << "subtractGlobalMin with " << block << "-thread blocks (the limit is "
                 << device().max_threads_per_block << ") returned " << cudaGetErrorName(err) << ", expected "
                 << cudaGetErrorName(want) << ": check each launch with cudaGetLastError() and return its error";
  CUDALAB_ASSERT_OK(cudaDeviceSynchronize());
}

// Rules the values rarely show, made visible. A missing RAW barrier in reverseBlock is seen only
// when a warp reads the tile before the warp that writes it has loaded its input: here the input
// lives in host memory mapped into the GPU's address space, so the loads take microseconds and
// return in a scattered order, and shared memory starts out poisoned.
class HazardsMadeVisible : public cudalab::GpuTest {};

TEST_F(HazardsMadeVisible, ReverseBlockIsRightWhenLoadsArriveLate) {
  std::mt19937_64 rng(seed());
  for (unsigned int block : {1024u, 992u, 800u, 256u}) {
    const unsigned int n =
        block * (64 + static_cast<unsigned int>(rng() % 64)) + static_cast<unsigned int>(rng() % block);
    const std::string ctx = cudalab::context({{"n", n}, {"block", block}, {"seed", static_cast<long long>(seed())}});
    const std::vector<int> in = cudalab::random_ints(n, -1000000, 1000000, seed() + block);
    int *h_in = nullptr, *d_in = nullptr;
    CUDALAB_ASSERT_OK(cudaHostAlloc(&h_in, n * sizeof(int), cudaHostAllocMapped));
    std::copy(in.begin(), in.end(), h_in);
    cudaError_t err = cudaHostGetDevicePointer(&d_in, h_in, 0);
    cudalab::DeviceBuffer<int> d_out;
    if (err == cudaSuccess) err = d_out.allocate(n);
    if (err == cudaSuccess) err = d_out.poison();
    if (err == cudaSuccess) {
      poison_shared_memory(device());
      cudalab::launch(reverseBlock, sync_grid(n, block), block, block * sizeof(int))(d_in, d_out.get(), n);
      err = cudaGetLastError();
      if (err == cudaSuccess) err = cudaDeviceSynchronize();
    }
    cudaFreeHost(h_in);
    CUDALAB_ASSERT_OK(err);
    std::vector<int> out;
    CUDALAB_ASSERT_OK(d_out.download(&out));
    auto r = cudalab::equal_arrays(
        "reverseBlock (input in mapped host memory: slow loads; is the barrier between "
        "writing the tile and reading it there?)",
        ctx, sync_ref::reverse_blocks(in, block), out);
    if (!r) GTEST_FAIL() << r.message();
  }
}

TEST_F(HazardsMadeVisible, SmoothTileIsRightInFullBlocksOverManySteps) {
  // 32 warps per block and 32 steps: each step, the warps reach the neighbours' values at
  // different times (the shared-memory loads of 32 warps take many cycles to serve), so a missing
  // barrier between reading the neighbours and overwriting (WAR) or after writing (RAW) shows.
  std::mt19937_64 rng(seed());
  for (unsigned int block : {1024u, 1000u, 992u}) {
    const unsigned int n = (1u << 20) + static_cast<unsigned int>(rng() % block);
    const int steps = 32;
    const std::string ctx =
        cudalab::context({{"n", n}, {"block", block}, {"steps", steps}, {"seed", static_cast<long long>(seed())}});
    const std::vector<int> raw = cudalab::random_ints(n, 0, 1 << 30, seed() + block);
    const std::vector<unsigned int> in(raw.begin(), raw.end());
    cudalab::DeviceBuffer<unsigned int> d_in, d_out;
    CUDALAB_ASSERT_OK(d_in.upload(in));
    CUDALAB_ASSERT_OK(d_out.allocate(n));
    CUDALAB_ASSERT_OK(d_out.poison());
    poison_shared_memory(device());
    cudalab::launch(smoothTile, sync_grid(n, block), block, block * sizeof(unsigned int))(d_in.get(), d_out.get(), n,
                                                                                          steps);
    CUDALAB_ASSERT_LAUNCH("smoothTile");
    std::vector<unsigned int> out;
    CUDALAB_ASSERT_OK(d_out.download(&out));
    auto r = cudalab::equal_arrays("smoothTile", ctx, sync_ref::smooth_blocks(in, block, steps), out);
    if (!r) GTEST_FAIL() << r.message();
  }
}

class HostSeesKernelErrors : public cudalab::GpuTest {};

/// Random indices into a source of @p m elements, and the source itself.
struct GatherInput {
  std::vector<int> src;
  std::vector<unsigned int> idx;
};
GatherInput gather_input(unsigned int n, unsigned int m, std::uint64_t seed) {
  GatherInput g;
  g.src = cudalab::random_ints(m, -1000000, 1000000, seed);
  const std::vector<int> idx = cudalab::random_ints(n, 0, static_cast<int>(m) - 1, seed + 1);
  g.idx.assign(idx.begin(), idx.end());
  return g;
}

TEST_F(HostSeesKernelErrors, GatherCheckedReturnsSuccessAndTheRightData) {
  std::mt19937_64 rng(seed());
  for (int run = 0; run < 10; ++run) {
    const RunShape s = random_shape(rng, 500000);
    const unsigned int m = 1 + static_cast<unsigned int>(rng() % 100000);
    const std::string ctx = cudalab::context(
        {{"n", s.n}, {"block", s.block}, {"m", m}, {"run", run}, {"seed", static_cast<long long>(seed())}});
    const GatherInput g = gather_input(s.n, m, seed() + run);
    cudalab::DeviceBuffer<int> d_src, d_dst;
    cudalab::DeviceBuffer<unsigned int> d_idx;
    CUDALAB_ASSERT_OK(d_src.upload(g.src));
    CUDALAB_ASSERT_OK(d_idx.upload(g.idx));
    CUDALAB_ASSERT_OK(d_dst.allocate(s.n + kGuard));
    CUDALAB_ASSERT_OK(d_dst.poison());
    const cudaError_t err = gatherChecked(d_src.get(), d_idx.get(), d_dst.get(), s.n, s.block);
    if (err != cudaSuccess)
      GTEST_FAIL() << "gatherChecked returned " << cudaGetErrorName(err) << " for a valid launch (" << ctx << ")";
    std::vector<int> out, want(s.n);
    CUDALAB_ASSERT_OK(d_dst.download(&out));
    if (std::string e = guard_error("gatherChecked", out, s.n, ctx); !e.empty()) GTEST_FAIL() << e;
    out.resize(s.n);
    for (unsigned int i = 0; i < s.n; ++i) want[i] = g.src[g.idx[i]];
    auto r = cudalab::equal_arrays("gatherChecked (gatherKernel)", ctx, want, out);
    if (!r) GTEST_FAIL() << r.message();
  }
}

TEST_F(HostSeesKernelErrors, GatherCheckedReportsABadLaunchConfiguration) {
  const unsigned int n = 1000, block = 2 * static_cast<unsigned int>(device().max_threads_per_block);
  const GatherInput g = gather_input(n, 500, seed());
  cudalab::DeviceBuffer<int> d_src, d_dst;
  cudalab::DeviceBuffer<unsigned int> d_idx;
  CUDALAB_ASSERT_OK(d_src.upload(g.src));
  CUDALAB_ASSERT_OK(d_idx.upload(g.idx));
  CUDALAB_ASSERT_OK(d_dst.allocate(n));
  // What the runtime itself reports for this launch (cudaErrorInvalidValue on CUDA 13).
  cudalab::launch(gatherKernel, sync_grid(n, block), block)(d_src.get(), d_idx.get(), d_dst.get(), n);
  const cudaError_t want = cudaGetLastError();
  ASSERT_NE(want, cudaSuccess) << "the runtime accepted " << block << "-thread blocks";
  const cudaError_t err = gatherChecked(d_src.get(), d_idx.get(), d_dst.get(), n, block);
  if (err != want)
    GTEST_FAIL() << "gatherChecked with " << block << "-thread blocks (the limit is " << device().max_threads_per_block
                 << ") returned " << cudaGetErrorName(err) << ", expected " << cudaGetErrorName(want)
                 << ": the launch error comes from cudaGetLastError() right after the launch";
  // A launch error is not sticky: once read, the next launch works.
  const cudaError_t again = gatherChecked(d_src.get(), d_idx.get(), d_dst.get(), n, 256);
  if (again != cudaSuccess)
    GTEST_FAIL() << "gatherChecked returned " << cudaGetErrorName(again)
                 << " for a valid launch after a rejected one: the old launch error was not consumed";
}

/// Path of this test binary (Linux).
std::string self_exe() {
  char buf[4096];
  const ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (len <= 0) return "";
  buf[len] = '\0';
  return buf;
}

constexpr const char *kChildEnv = "CUDALAB_CH03_06_FAULT_CHILD";
constexpr const char *kChildTag = "[ CHILD    ] gatherChecked returned ";

TEST_F(HostSeesKernelErrors, GatherCheckedReportsAFaultSeenOnlyAfterSynchronizing) {
  const unsigned int n = 4096;
  if (std::getenv(kChildEnv)) {
    // The child: a gather through a null source pointer faults while the kernel runs. The fault
    // is sticky (the context is unusable afterwards), which is why it runs in its own process.
    const GatherInput g = gather_input(n, n, seed());
    cudalab::DeviceBuffer<int> d_dst;
    cudalab::DeviceBuffer<unsigned int> d_idx;
    CUDALAB_ASSERT_OK(d_idx.upload(g.idx));
    CUDALAB_ASSERT_OK(d_dst.allocate(n));
    const cudaError_t err = gatherChecked(nullptr, d_idx.get(), d_dst.get(), n, 256);
    std::printf("%s%s\n", kChildTag, cudaGetErrorName(err));
    std::fflush(stdout);
    std::_Exit(0);
  }
  const std::string exe = self_exe();
  ASSERT_FALSE(exe.empty()) << "cannot find this test binary (/proc/self/exe) to run the faulting launch in";
  const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string cmd = std::string(kChildEnv) + "=1 CUDALAB_SEED=" + std::to_string(seed()) + " '" + exe +
                          "' --gtest_filter=" + info->test_suite_name() + "." + info->name() + " 2>&1";
  std::string output;
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char line[1024];
    while (std::fgets(line, sizeof line, p)) output += line;
    pclose(p);
  }
  const std::size_t at = output.find(kChildTag);
  if (at == std::string::npos)
    GTEST_FAIL() << "the faulting gatherChecked call did not return (crashed or exited?); its process printed:\n"
                 << output;
  std::string got = output.substr(at + std::string(kChildTag).size());
  got = got.substr(0, got.find('\n'));
  std::printf("gatherChecked on a faulting kernel returned %s\n", got.c_str());
  if (got != "cudaErrorIllegalAddress" && got != "cudaErrorLaunchFailure")
    GTEST_FAIL() << "gatherChecked returned " << got
                 << " for a kernel that read through a null pointer, expected cudaErrorIllegalAddress: "
                    "the launch returns before the kernel runs, so the fault is only reported by a "
                    "synchronizing call such as cudaDeviceSynchronize()";
}

}  // namespace

// FaultInjection.<function>_<case>: the generic error-reporting tests (tests/support/fault_injection.cuh)
// for the functions tests/ch03_06_synchronization/grading.json declares in "reports_errors".
namespace {

constexpr unsigned int kFaultN = 5000, kFaultBlock = 256;

const bool kFaultInjection = cudalab::testing::register_fault_injection({
    {"subtractGlobalMin",
     [](const cudalab::testing::Run &run) {
       cudalab::DeviceBuffer<int> d_in, d_out, d_partial;
       cudaError_t err = d_in.upload(cudalab::random_ints(kFaultN, -1000, 1000, 7));
       if (err == cudaSuccess) err = d_out.allocate(kFaultN);
       if (err == cudaSuccess) err = d_partial.allocate(sync_grid(kFaultN, kFaultBlock));
       if (err != cudaSuccess) return err;
       return run([&] { return subtractGlobalMin(d_in.get(), d_out.get(), d_partial.get(), kFaultN, kFaultBlock); });
     }},
    {"gatherChecked",
     [](const cudalab::testing::Run &run) {
       std::vector<unsigned int> idx(kFaultN);
       for (unsigned int i = 0; i < kFaultN; ++i) idx[i] = (i * 7u) % kFaultN;
       cudalab::DeviceBuffer<int> d_src, d_dst;
       cudalab::DeviceBuffer<unsigned int> d_idx;
       cudaError_t err = d_src.upload(cudalab::random_ints(kFaultN, -1000, 1000, 8));
       if (err == cudaSuccess) err = d_idx.upload(idx);
       if (err == cudaSuccess) err = d_dst.allocate(kFaultN);
       if (err != cudaSuccess) return err;
       return run([&] { return gatherChecked(d_src.get(), d_idx.get(), d_dst.get(), kFaultN, kFaultBlock); });
     }},
});

}  // namespace
