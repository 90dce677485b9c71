// ch03_12 host test: the launcher rejects block sizes that have no instantiation before it touches
// the GPU (so it runs, and means the same, on a machine without one).
#include "templates.cuh"

#include "cudalab/launch_recorder.hpp"
#include "cudalab/testing.cuh"

namespace {

class TemplateDispatch : public cudalab::HostTest {};

TEST_F(TemplateDispatch, UnsupportedBlockSizesAreRejectedBeforeLaunch) {
  // not powers of two, below a warp pair, above the 1024-thread limit
  const unsigned int bad[] = {0, 1, 32, 48, 63, 96, 100, 192, 500, 768, 2048, 4096};
  for (unsigned int block : bad) {
    const cudaError_t err = launch_complete_unroll(block, nullptr, nullptr, 1000);
    if (err != cudaErrorInvalidValue)
      GTEST_FAIL() << "launch_complete_unroll(block=" << block << ", n=1000) returned " << cudaGetErrorName(err)
                   << ", expected cudaErrorInvalidValue (only 64, 128, 256, 512 and 1024 have an instantiation; "
                      "reject the others before any CUDA call)";
  }
}

// The header's promise for n == 0: cudaSuccess and no launch (a grid of 0 blocks is an invalid
// launch configuration, which would leave cudaErrorInvalidConfiguration behind).
TEST_F(TemplateDispatch, NoElementsLaunchNothing) {
  for (unsigned int block : {64u, 128u, 256u, 512u, 1024u}) {
    cudalab::LaunchRecorder recorder;
    const cudaError_t err = launch_complete_unroll(block, nullptr, nullptr, 0);
    const std::size_t launches = recorder.launches().size();
    (void)cudaGetLastError();  // a launch of 0 blocks, or one without a GPU, leaves an error behind
    if (err != cudaSuccess)
      GTEST_FAIL() << "launch_complete_unroll(block=" << block << ", n=0) returned " << cudaGetErrorName(err)
                   << ", expected cudaSuccess: with no elements there is nothing to launch";
    if (launches != 0)
      GTEST_FAIL() << "launch_complete_unroll(block=" << block << ", n=0) launched " << launches
                   << " kernel(s), expected none";
  }
}

}  // namespace
