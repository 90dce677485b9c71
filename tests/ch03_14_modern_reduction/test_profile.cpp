// ch03_14 profile: Nsight Compute counts the global atomic instructions reduceModern executes
// (profile_target.cpp: one launch on 2^22 + 3 ints, the one-wave grid). The header asks for exactly
// one atomicAdd per block, after the block's warps have been reduced; the sum is the same with one
// atomic per warp or per thread, and at 1056 blocks the extra atomics hide behind the loads, so
// only the count shows it. A warp instruction counts once however many lanes run it: one atomic
// per block is at most `grid` instructions, one per warp 8 x grid. Without ncu, or where profiling
// is not permitted (ERR_NVGPUCTRPERM), the test is skipped -- never passed.
#include "modern_check.cuh"
#include "modern_reduction.cuh"

#include "cudalab/ncu.hpp"
#include "cudalab/testing.cuh"

#include <cstdio>

namespace {

using Metric = cudalab::NcuMetric;
const Metric kRed{"inst_executed_global_reductions", "smsp__inst_executed_op_global_red.sum"};
const Metric kAtom{"inst_executed_global_atomics", "smsp__inst_executed_op_global_atom.sum"};

class ModernAtomics : public cudalab::GpuTest {};

TEST_F(ModernAtomics, OneAtomicPerBlock) {
  CUDALAB_RUN_NCU(r, "", "reduceModern", {kRed.ncu, kAtom.ncu});
  cudalab::print_profile(r, {"reduceModern"}, {kRed, kAtom});
  const double red = r.get("reduceModern", kRed.ncu), atom = r.get("reduceModern", kAtom.ncu);
  if (red < 0 && atom < 0)
    GTEST_FAIL() << "ncu reported neither " << kRed.ncu << " nor " << kAtom.ncu << " for reduceModern:\n" << r.output;
  const double atomics = (red > 0 ? red : 0) + (atom > 0 ? atom : 0);
  const unsigned int grid = modern_grid_here(kModernProfileN);
  std::printf("[ PROFILE  ] reduceModern: %.0f global atomic instructions for %u blocks (%.2f per block)\n", atomics,
              grid, atomics / grid);
  EXPECT_GE(atomics, 1.0) << "reduceModern executed no global atomic: how does the block's sum reach *g_sum?";
  EXPECT_LE(atomics, double(grid))
      << "reduceModern executed " << atomics << " global atomic instructions for " << grid << " blocks ("
      << atomics / grid << " per block; " << kRed.ncu << " + " << kAtom.ncu
      << "): one per block is the lesson -- reduce the block's warps first (warp sums through shared memory, "
         "warp 0 adds them), then one thread makes the block's single atomicAdd (n="
      << kModernProfileN << ", block " << kModernBlock << ")";
}

}  // namespace
