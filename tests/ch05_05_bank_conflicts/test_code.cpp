// ch05_05 source check (no GPU): transposeShared and transposeSharedPadded must go through shared
// memory (ld.shared and st.shared in their PTX) with a block barrier between the two. The naive
// transpose submitted in a shared slot is correct, and only Nsight Compute (which needs
// permission to read GPU counters) or the timing would tell it apart otherwise.
#include "ptx_code.hpp"

#include "cudalab/testing.cuh"

namespace {

class TileCode : public cudalab::HostTest {};

void expect_tile(const char *name, const char *mangled) {
  const ptx_code::Kernel k = ptx_code::kernel(CUDALAB_STUDENT_PTX, {mangled});
  ASSERT_TRUE(k.found) << k.error;
  const int loads = ptx_code::shared_loads(k), stores = ptx_code::shared_stores(k);
  const int barriers = ptx_code::block_barriers(k);
  std::printf("[ CODE     ] %s (PTX): %d shared loads, %d shared stores, %d block barriers\n", name, loads, stores,
              barriers);
  EXPECT_GT(loads, 0) << name << " reads no shared memory (no ld.shared in its PTX): the transposed tile must be "
                      << "read back from `__shared__ float tile[...]` (source check of " CUDALAB_STUDENT_PTX ")";
  EXPECT_GT(stores, 0) << name << " writes no shared memory (no st.shared in its PTX): load the input tile into "
                       << "`__shared__ float tile[...]` first";
  EXPECT_GT(barriers, 0) << name << " has no __syncthreads() (no bar.sync in its PTX): a thread reads tile "
                         << "elements that other warps wrote, so the whole tile must be in first";
}

TEST_F(TileCode, SharedKernelStagesTheTileInSharedMemory) { expect_tile("transposeShared", "_Z15transposeShared"); }

TEST_F(TileCode, PaddedKernelStagesTheTileInSharedMemory) {
  expect_tile("transposeSharedPadded", "_Z21transposeSharedPadded");
}

}  // namespace
