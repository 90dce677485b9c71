// ch03_13 correctness: nestedHelloWorld's recursion, read from a device-side record (not printf).
#include "device_runtime.cuh"
#include "nested.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/testing.cuh"

#include <sstream>

namespace {

struct HelloCase {
  int grid, block;
};

class NestedHelloWorld : public cudalab::GpuTest, public ::testing::WithParamInterface<HelloCase> {};
class NestedHelloLaunchErrors : public cudalab::GpuTest {};

// Launched as <<<G, B>>>(B, 0, record): depth 0 is the host's grid (G blocks of B threads); every
// block's thread 0 launches a 1-block child of B/2 threads, so depth d >= 1 holds G grids of one
// block of B >> d threads each, down to the depth where B >> d == 1.
TEST_P(NestedHelloWorld, EveryBlockRecursesDownToOneThread) {
  const auto [grid, block] = GetParam();
  HelloRecord host{};
  cudalab::DeviceBuffer<HelloRecord> record;
  CUDALAB_ASSERT_OK(record.allocate(1));
  CUDALAB_ASSERT_OK(cudaMemset(record.get(), 0, sizeof(HelloRecord)));
  CUDALAB_ASSERT_OK(ready_device_runtime());
  cudalab::launch(nestedHelloWorld, grid, block)(block, 0, record.get());
  CUDALAB_ASSERT_LAUNCH("nestedHelloWorld");  // the host's synchronize waits for all child grids
  CUDALAB_ASSERT_OK(cudaMemcpy(&host, record.get(), sizeof(HelloRecord), cudaMemcpyDeviceToHost));

  const std::string ctx = cudalab::context({{"grid", grid}, {"block", block}});
  if (host.launch_errors != 0)
    GTEST_FAIL() << "nestedHelloWorld: " << host.launch_errors << " device-side launches returned an error (" << ctx
                 << ")";
  if (host.too_deep != 0)
    GTEST_FAIL() << "nestedHelloWorld: " << host.too_deep << " threads ran at depth >= " << kMaxHelloDepth
                 << ": the recursion does not stop at iSize == 1 (" << ctx << ")";
  int depths = 0;
  while ((block >> depths) >= 1) ++depths;  // block, block/2, ..., 1
  for (int d = 0; d < kMaxHelloDepth; ++d) {
    const bool runs = d < depths;
    const int want_threads = runs ? grid * (block >> d) : 0;
    const int want_blocks = runs ? grid : 0;
    const int want_grids = runs ? (d == 0 ? 1 : grid) : 0;
    const int want_launches = (runs && d > 0) ? grid : 0;
    const int want_dim = runs ? (block >> d) : 0;
    auto fail = [&](const char *what, int want, int got) {
      std::ostringstream os;
      os << "nestedHelloWorld: wrong " << what << " at depth " << d << ": expected " << want << ", got " << got << " ("
         << ctx << ", recursion depths 0.." << depths - 1 << ")";
      return os.str();
    };
    if (host.threads[d] != want_threads) GTEST_FAIL() << fail("thread count", want_threads, host.threads[d]);
    if (host.blocks[d] != want_blocks) GTEST_FAIL() << fail("block count", want_blocks, host.blocks[d]);
    if (host.grids[d] != want_grids) GTEST_FAIL() << fail("grid count", want_grids, host.grids[d]);
    if (host.launches[d] != want_launches)
      GTEST_FAIL() << fail("number of child launches", want_launches, host.launches[d]);
    if (host.block_dim[d] != want_dim) GTEST_FAIL() << fail("block size", want_dim, host.block_dim[d]);
  }
}

// The book's runs (1 and 2 blocks of 8), a deeper one, a block size that is not a power of two
// (6 -> 3 -> 1), and blocks of one thread, which launch nothing.
INSTANTIATE_TEST_SUITE_P(Nested, NestedHelloWorld,
                         ::testing::Values(HelloCase{1, 8}, HelloCase{2, 8}, HelloCase{3, 64}, HelloCase{5, 6},
                                           HelloCase{4, 1}),
                         [](const auto &info) {
                           return "grid" + std::to_string(info.param.grid) + "_block" +
                                  std::to_string(info.param.block);
                         });

// A launch from the GPU can fail. Here the device runtime's pool of pending launches is made as
// small as it goes (cudaLimitDevRuntimePendingLaunchCount 1; "when the buffer is full, an attempt
// to allocate a launch slot during a device side kernel launch will fail": CUDA C++ Programming
// Guide, dynamic parallelism, configuration options) while thousands of blocks launch their child
// at once, so some launches fail. Whichever fail, the record must add up: every launch that did
// not run reported an error, and no launch that ran did. A kernel that reads cudaGetLastError()
// before its launch, or not for this launch, reports none.
TEST_F(NestedHelloLaunchErrors, EveryFailedChildLaunchIsReported) {
  std::size_t before = 0;
  CUDALAB_ASSERT_OK(cudaDeviceGetLimit(&before, cudaLimitDevRuntimePendingLaunchCount));
  struct Restore {  // the other tests get the pool they had
    std::size_t value;
    ~Restore() { cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, value); }
  } restore{before};
  CUDALAB_ASSERT_OK(ready_device_runtime(1));
  const int block = 64;
  int grid = 1 << 12, attempts = 0, ran = 0;
  HelloRecord host{};
  cudalab::DeviceBuffer<HelloRecord> record;
  CUDALAB_ASSERT_OK(record.allocate(1));
  for (int round = 0; round < 3 && attempts == ran; ++round, grid *= 4) {
    CUDALAB_ASSERT_OK(cudaMemset(record.get(), 0, sizeof(HelloRecord)));
    cudalab::launch(nestedHelloWorld, grid, block)(block, 0, record.get());
    CUDALAB_ASSERT_LAUNCH("nestedHelloWorld");
    CUDALAB_ASSERT_OK(cudaMemcpy(&host, record.get(), sizeof(HelloRecord), cudaMemcpyDeviceToHost));
    attempts = ran = 0;
    for (int d = 1; d < kMaxHelloDepth; ++d) {
      attempts += host.launches[d];
      ran += host.grids[d];
    }
  }
  const std::string ctx = cudalab::context({{"grid", grid / 4}, {"block", block}, {"pending launch slots", 1}});
  // "No launch failed here" must be the GPU's word, not the kernel's: every block of the big grid
  // ran and asked for its child (a kernel that launches or records less at this size is wrong,
  // not excused).
  if (host.blocks[0] != grid / 4 || host.launches[1] != grid / 4)
    GTEST_FAIL() << "nestedHelloWorld<<<" << grid / 4 << ", " << block << ">>>: " << host.blocks[0]
                 << " blocks ran at depth 0 and " << host.launches[1] << " child launches were recorded into depth 1; "
                 << "every block runs, and thread 0 of each launches its child and calls record_launch() (" << ctx
                 << ")";
  if (attempts == ran)
    CUDALAB_SKIP_NOT_APPLICABLE() << "no device-side launch failed with one pending-launch slot (" << ctx << ")";
  if (host.launch_errors != attempts - ran)
    GTEST_FAIL() << "nestedHelloWorld: " << attempts - ran << " of " << attempts
                 << " child launches failed (the device runtime's pool of pending launches was made small on "
                    "purpose), but record_launch() was told of "
                 << host.launch_errors
                 << " errors: pass cudaGetLastError() to record_launch() right after the launch it is about (" << ctx
                 << ")";
}

}  // namespace
