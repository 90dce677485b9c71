// ch03_11 checks of the compiled code (no GPU needed): the rules of the two *Warps8 kernels that
// no value and no timing can show. The demo measures them within 3 % of reduceUnrolling8 on the
// H100, so a copy of reduceUnrolling8's body returns the right sums, as fast, and racecheck finds
// nothing in it (it has no shared memory). The PTX of your unrolling.cu (compiled by the build,
// CUDALAB_STUDENT_PTX) shows what the kernel is made of:
//  * staged in shared memory: st.shared instructions;
//  * a warp-level last step: shfl.sync (__shfl_down_sync, cg::reduce), bar.warp.sync (__syncwarp())
//    or redux.sync -- the book's volatile form and a plain __syncthreads() loop down to stride 1
//    have none;
//  * the stride loop written out (reduceCompleteUnrollWarps8): one __syncthreads() after the
//    staging and one after each of the four steps, at least five block barriers in the code; a
//    loop has one in its body.
#include "ptx_code.hpp"

#include "cudalab/testing.cuh"

#include <cstdio>

namespace {

class CompiledCode : public cudalab::HostTest {
 protected:
  /// The kernel's PTX; fails the test when it cannot be read.
  static ptx_code::Kernel load(const char *mangled) { return ptx_code::kernel(CUDALAB_STUDENT_PTX, {mangled}); }

  /// Shared-memory staging and a warp-level last step.
  static void expect_shared_and_warp_step(const ptx_code::Kernel &k, const char *name) {
    const int stores = ptx_code::shared_stores(k), warp = ptx_code::warp_level(k);
    std::printf("[ CODE     ] %s (PTX): %d shared-memory stores, %d warp-level instructions, %d block barriers\n", name,
                stores, warp, ptx_code::block_barriers(k));
    EXPECT_GT(stores, 0) << name
                         << " stores nothing to shared memory: stage the column sums in `__shared__ int "
                            "smem[1024]` and run the tree there (README: the race checks see shared memory only). "
                            "Check of the compiled code, " CUDALAB_STUDENT_PTX;
    EXPECT_GT(warp, 0)
        << name
        << " has no warp-level instruction (no __shfl_down_sync, __syncwarp() or cg::reduce): the "
           "last warp is not unrolled -- the body of reduceUnrolling8, a __syncthreads() loop down "
           "to stride 1, or the book's volatile pointer. Check of the compiled code, " CUDALAB_STUDENT_PTX;
  }
};

TEST_F(CompiledCode, UnrollWarps8StagesInSharedMemoryAndUnrollsTheLastWarp) {
  const ptx_code::Kernel k = load("_Z18reduceUnrollWarps8");
  ASSERT_TRUE(k.found) << k.error;
  expect_shared_and_warp_step(k, "reduceUnrollWarps8");
}

TEST_F(CompiledCode, CompleteUnrollWarps8WritesOutTheStrideLoop) {
  const ptx_code::Kernel k = load("_Z26reduceCompleteUnrollWarps8");
  ASSERT_TRUE(k.found) << k.error;
  expect_shared_and_warp_step(k, "reduceCompleteUnrollWarps8");
  EXPECT_GE(ptx_code::block_barriers(k), 5)
      << "reduceCompleteUnrollWarps8 has " << ptx_code::block_barriers(k)
      << " block barriers in its code; the stride loop written out has at least five (after the staging, and "
         "after each of the steps 1024, 512, 256, 128). A `for (stride ...)` loop has one in its body: write the "
         "four `if (blockDim.x >= S && tid < S / 2)` steps out. Check of the compiled code, " CUDALAB_STUDENT_PTX;
}

}  // namespace
