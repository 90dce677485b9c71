// ch03_12 correctness: the launcher's switch and every instantiation, for sizes that are not
// multiples of the chunk (8 x block); and an unsupported block size launches nothing.
#include "baseline.cuh"
#include "fault_injection.cuh"
#include "templates.cuh"

#include "cudalab/launch_recorder.hpp"

#include <string>

namespace {

const unsigned int kSizes[] = {1, 31, 33, 1000, 4097, 8 * 512 - 1, (1u << 20) + 3, (1u << 24) + 7};

class TemplateCorrectness : public cudalab::GpuTest, public ::testing::WithParamInterface<unsigned int> {};

TEST_P(TemplateCorrectness, PartialSumsRightForAnyN) {
  const unsigned int block = GetParam();
  const std::string name = "reduceCompleteUnroll<" + std::to_string(block) + "> via launch_complete_unroll";
  for (unsigned int n : kSizes) {
    if (cudalab::skipped_under_sanitizer(n)) continue;  // a SanitizeAll run checks the smaller sizes only
    std::vector<cudalab::LaunchRecord> all, mine;
    const std::string error = reduction_error(
        name.c_str(),
        [&](int *in, int *out, unsigned int count) {
          cudalab::LaunchRecorder recorder;
          const cudaError_t err = launch_complete_unroll(block, in, out, count);
          all = recorder.launches();
          mine = recorder.launches_of(complete_unroll_kernel(block));
          return err;
        },
        n, block, 8 * block, seed() + n);
    if (!error.empty()) GTEST_FAIL() << error;
    // The right sums can come from the wrong instantiation (the <1024> kernel on 512 threads reads
    // shared memory nobody wrote, which is often zero): check the launch that happened.
    const unsigned int grid = complete_unroll_grid(n, block);
    if (all.size() != 1 || mine.size() != 1)
      GTEST_FAIL() << "launch_complete_unroll(block=" << block << ", n=" << n << ") made " << all.size()
                   << " kernel launches, " << mine.size() << " of them of reduceCompleteUnroll<" << block
                   << ">: expected exactly one launch, of the instantiation for this block size (seed " << seed()
                   << ")";
    const cudalab::LaunchRecord &l = mine.front();
    if (l.block.x != block || l.block.y != 1 || l.block.z != 1 || l.grid.x != grid || l.grid.y != 1 || l.grid.z != 1)
      GTEST_FAIL() << "launch_complete_unroll(block=" << block << ", n=" << n << ") launched reduceCompleteUnroll<"
                   << block << "> with " << cudalab::describe(l) << "; expected grid (" << grid << ",1,1) block ("
                   << block << ",1,1) (complete_unroll_grid(n, block) blocks of `block` threads)";
  }
}

INSTANTIATE_TEST_SUITE_P(Template, TemplateCorrectness, ::testing::Values(64u, 128u, 256u, 512u, 1024u),
                         [](const auto &info) { return "block" + std::to_string(info.param); });

class TemplateRejection : public cudalab::GpuTest {};

TEST_F(TemplateRejection, UnsupportedBlockSizeWritesNothingAndLeavesNoError) {
  const unsigned int n = 100000, block = 96;
  std::vector<int> input = cudalab::random_ints(n, -1000, 1000, seed());
  cudalab::DeviceBuffer<int> d_in, d_out;
  CUDALAB_ASSERT_OK(d_in.upload(input));
  CUDALAB_ASSERT_OK(d_out.allocate(complete_unroll_grid(n, 64)));
  CUDALAB_ASSERT_OK(d_out.poison());
  const cudaError_t err = launch_complete_unroll(block, d_in.get(), d_out.get(), n);
  const cudaError_t pending = cudaGetLastError();
  CUDALAB_ASSERT_OK(cudaDeviceSynchronize());
  if (err != cudaErrorInvalidValue)
    GTEST_FAIL() << "launch_complete_unroll(block=96) returned " << cudaGetErrorName(err)
                 << ", expected cudaErrorInvalidValue (seed " << seed() << ")";
  if (pending != cudaSuccess)
    GTEST_FAIL() << "launch_complete_unroll(block=96) left a pending CUDA error (" << cudaGetErrorName(pending)
                 << "): reject the block size before launching anything";
  std::vector<int> out;
  CUDALAB_ASSERT_OK(d_out.download(&out));
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!cudalab::is_poison(out[i]))
      GTEST_FAIL() << "launch_complete_unroll(block=96) wrote g_odata[" << i << "] = " << out[i]
                   << ": an unsupported block size must launch nothing (seed " << seed() << ")";
}

}  // namespace

// FaultInjection.<function>_<case>: the generic error-reporting tests (tests/support/fault_injection.cuh)
// for the functions tests/ch03_12_templates/grading.json declares in "reports_errors".
namespace {

const bool kFaultInjection = cudalab::testing::register_fault_injection({
    {"launch_complete_unroll",
     [](const cudalab::testing::Run &run) {
       const unsigned int n = 1u << 16, block = 256;
       cudalab::DeviceBuffer<int> in, out;
       cudaError_t err = in.upload(cudalab::random_ints(n, -100, 100, 3));
       if (err == cudaSuccess) err = out.allocate(n);
       if (err != cudaSuccess) return err;
       return run([&] { return launch_complete_unroll(block, in.get(), out.get(), n); });
     }},
});

}  // namespace
