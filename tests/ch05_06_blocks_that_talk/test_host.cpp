// ch05_06 host tests (no GPU): single_pass_grid and launch_reduce_single_pass's argument checks,
// and max_cooperative_blocks on made-up SMs, each case derived by hand in its comment, then
// against a block-by-block placement on random SMs.
#include "blocks_that_talk.cuh"

#include "cudalab/testing.cuh"

#include <random>

namespace {

class SinglePassGrid : public cudalab::HostTest {};

TEST_F(SinglePassGrid, OneBlockPerBlockOfElementsAtLeastOneAtMostTheCap) {
  struct Case {
    int n, block, want;
  } cases[] = {{0, 256, 1},  // n == 0 still needs one block to write *out = 0
               {1, 64, 1},
               {255, 256, 1},
               {256, 256, 1},
               {257, 256, 2},
               {100003, 128, 782},  // ceil(100003 / 128) = 782
               {262144, 256, 1024},
               {262145, 256, 1024},       // capped at kMaxSinglePassBlocks
               {2147483647, 1024, 1024},  // n + block - 1 overflows an int
               {1000, 100, 0},
               {1000, 32, 0},
               {1000, 2048, 0},
               {1000, 96, 0}};  // not a power of two in [64, 1024]
  for (const Case &c : cases)
    EXPECT_EQ(single_pass_grid(c.n, c.block), c.want) << "single_pass_grid(" << c.n << ", " << c.block << ")";
  std::mt19937_64 rng(seed());
  for (int i = 0; i < 1000; ++i) {
    const int n = static_cast<int>(rng() % 2000000);
    const int block = 64 << (rng() % 5);
    long long want = (static_cast<long long>(n) + block - 1) / block;
    want = want < 1 ? 1 : want > kMaxSinglePassBlocks ? kMaxSinglePassBlocks : want;
    if (single_pass_grid(n, block) != want)
      GTEST_FAIL() << "single_pass_grid(" << n << ", " << block << ") returned " << single_pass_grid(n, block)
                   << ", expected " << want << " (seed=" << seed() << ")";
  }
}

// Bad arguments are refused before anything touches the GPU (so this runs without one).
TEST_F(SinglePassGrid, LauncherRefusesBadBlocksWithoutLaunching) {
  for (int block : {0, 32, 96, 100, 2048})
    EXPECT_EQ(launch_reduce_single_pass(nullptr, nullptr, nullptr, nullptr, 1000, block), cudaErrorInvalidValue)
        << "launch_reduce_single_pass(..., n=1000, block=" << block << ")";
  EXPECT_EQ(launch_reduce_single_pass(nullptr, nullptr, nullptr, nullptr, -1, 256), cudaErrorInvalidValue)
      << "launch_reduce_single_pass(..., n=-1, block=256)";
}

// An H100-like SM: 132 SMs, 2048 threads, 32 blocks, 64K registers in 4 sub-partitions of 16K,
// warps get registers in units of 256, 228 KiB of shared memory, 1 KiB reserved per block,
// shared memory in units of 128 bytes.
SmLimits hopper() { return SmLimits{132, 2048, 32, 65536, 4, 256, 233472, 1024, 128}; }

// A Turing-like SM (sm_75): 40 SMs, 1024 threads, 16 blocks, 64 KiB shared, nothing reserved,
// shared memory in units of 256 bytes (cuda_occupancy.h, cudaOccSMemAllocationGranularity: 256
// for compute capability 7.x, 128 from 8.0 on).
SmLimits turing() { return SmLimits{40, 1024, 16, 65536, 4, 256, 65536, 0, 256}; }

class CooperativeBlocks : public cudalab::HostTest {};

TEST_F(CooperativeBlocks, HandDerivedCases) {
  struct Case {
    const char *why;
    SmLimits sm;
    KernelUse use;
    int want;
  } cases[] = {
      // threads 2048/256 = 8; regs 32*32 = 1024/warp, 16384/1024 = 16 warps/sub, 64/8 = 8;
      // shared 0 + 1024 -> 233472/1024 = 228. 8 x 132.
      {"256 threads, 32 regs", hopper(), {256, 32, 0}, 1056},
      // regs 40*32 = 1280/warp, 16384/1280 = 12 warps/sub, 48/8 = 6. 6 x 132.
      {"256 threads, 40 regs", hopper(), {256, 40, 0}, 792},
      // 33*32 = 1056 rounds up to 1280: 6 blocks, not 7 (16384/1056 = 15, 60/8 = 7).
      {"register allocation unit", hopper(), {256, 33, 0}, 792},
      // 2 warps/block, 40 regs: 12 warps/sub x 4 = 48 warps, 24 blocks -- not 25 (65536/1280 = 51
      // warps pooled over the SM): each sub-partition holds whole warps.
      {"per-sub-partition registers", hopper(), {64, 40, 0}, 24 * 132},
      // shared 45666 + 1024 = 46690 -> 46720 (x128); 233472/46720 = 4 (without the rounding or
      // the reserved KiB it would be 5).
      {"shared memory, reserved and rounded", hopper(), {256, 16, 45666}, 4 * 132},
      // 48 KiB + 1 KiB = 50176 = 392 x 128; 233472/50176 = 4.
      {"48 KiB of shared memory", hopper(), {256, 16, 49152}, 4 * 132},
      // 1024 threads = 32 warps; 64 regs = 2048/warp, 8 warps/sub, 32 warps: 1 block.
      {"1024 threads, 64 regs", hopper(), {1024, 64, 0}, 132},
      // 72 regs = 2304/warp, 7 warps/sub = 28 warps < 32: the block does not fit at all.
      {"block needs more registers than the SM has", hopper(), {1024, 72, 0}, 0},
      {"more threads than the SM holds", hopper(), {2049, 0, 0}, 0},
      {"no threads", hopper(), {0, 32, 0}, 0},
      // 4 GiB of shared memory per block: none fits. A byte count kept in 32 bits wraps to 1 KiB.
      {"4 GiB of shared memory", hopper(), {256, 16, std::size_t(1) << 32}, 0},
      // 32-thread blocks, no registers or shared memory counted: 64 by threads, 32 block slots.
      {"block slots", SmLimits{132, 2048, 32, 65536, 4, 256, 233472, 0, 128}, {32, 0, 0}, 32 * 132},
      // 100 threads = 4 warps (rounded up): 2048/128 = 16; 32 regs: 64 warps/4 = 16.
      {"partial warp counts as a whole warp", hopper(), {100, 32, 0}, 16 * 132},
      // Turing: threads 1024/256 = 4; regs 8 blocks; shared 0 (nothing reserved: no limit).
      {"Turing, 256 threads, 32 regs", turing(), {256, 32, 0}, 160},
      // Turing: 20 KiB shared: 65536/20480 = 3 blocks.
      {"Turing, 20 KiB shared", turing(), {128, 32, 20480}, 120},
      // Limits met exactly. A block of the SM's whole 1024 threads fits once (32 regs: 64 warps
      // by registers, 2 blocks). 16 KiB blocks fill Turing's 64 KiB exactly: 4 blocks, not 3.
      {"Turing, a block of all the SM's threads", turing(), {1024, 32, 0}, 40},
      {"Turing, 16 KiB shared: exactly 4 blocks", turing(), {128, 32, 16384}, 160},
      // 9300 B rounds up to 9472 (x256): 65536/9472 = 6 blocks (in units of 128 it would be
      // 9344 and 7 blocks); threads 8, registers 16. 6 x 40.
      {"Turing, shared memory in units of 256 bytes", turing(), {128, 32, 9300}, 240},
  };
  for (const Case &c : cases)
    EXPECT_EQ(max_cooperative_blocks(c.sm, c.use), c.want)
        << c.why << ": max_cooperative_blocks(threads=" << c.use.threads_per_block << ", regs=" << c.use.regs_per_thread
        << ", smem=" << c.use.smem_per_block << ")";
}

/// Blocks placed one at a time on one SM until one more would not fit, times the SM count.
int placed_blocks(const SmLimits &sm, const KernelUse &use) {
  if (use.threads_per_block < 1) return 0;
  const int warps = (use.threads_per_block + 31) / 32;
  const int regs_per_warp = use.regs_per_thread > 0 ? (use.regs_per_thread * 32 + sm.reg_alloc_unit - 1) /
                                                          sm.reg_alloc_unit * sm.reg_alloc_unit
                                                    : 0;
  std::size_t smem = use.smem_per_block + sm.smem_reserved_per_block;
  smem = (smem + sm.smem_alloc_unit - 1) / sm.smem_alloc_unit * sm.smem_alloc_unit;
  int warps_free[8] = {};
  for (int s = 0; s < sm.sub_partitions; ++s)
    warps_free[s] = regs_per_warp > 0 ? (sm.regs_per_sm / sm.sub_partitions) / regs_per_warp : 1 << 20;
  int blocks = 0, threads = 0;
  std::size_t smem_used = 0;
  for (;;) {
    if (blocks + 1 > sm.max_blocks_per_sm || threads + warps * 32 > sm.max_threads_per_sm ||
        smem_used + smem > sm.smem_per_sm)
      break;
    int total_free = 0;
    for (int s = 0; s < sm.sub_partitions; ++s) total_free += warps_free[s];
    if (total_free < warps) break;
    for (int w = 0, s = 0; w < warps; s = (s + 1) % sm.sub_partitions)  // warps go wherever there is room
      if (warps_free[s] > 0) --warps_free[s], ++w;
    ++blocks;
    threads += warps * 32;
    smem_used += smem;
  }
  return blocks * sm.sm_count;
}

TEST_F(CooperativeBlocks, MatchesBlockByBlockPlacementOnRandomSms) {
  std::mt19937_64 rng(seed());
  for (int i = 0; i < 3000; ++i) {
    // The allocation rules are the SM's fields, not today's constants: 1, 2 or 4 sub-partitions,
    // registers in units of 128, 256 or 512, shared memory in units of 128 or 256 bytes.
    SmLimits sm{1 + static_cast<int>(rng() % 200),
                1024 + 512 * static_cast<int>(rng() % 3),
                8 + static_cast<int>(rng() % 25),
                32768 << (rng() % 2),
                1 << (rng() % 3),
                128 << (rng() % 3),
                static_cast<std::size_t>(16384 + 1024 * (rng() % 213)),
                (rng() % 2) ? 1024u : 0u,
                std::size_t(128) << (rng() % 2)};
    const KernelUse use{1 + static_cast<int>(rng() % 1024), static_cast<int>(rng() % 129),
                        static_cast<std::size_t>((rng() % 3) ? rng() % 65536 : 0)};
    const int want = placed_blocks(sm, use), got = max_cooperative_blocks(sm, use);
    if (got != want)
      GTEST_FAIL() << "max_cooperative_blocks(sm_count=" << sm.sm_count << ", threads/SM=" << sm.max_threads_per_sm
                   << ", blocks/SM=" << sm.max_blocks_per_sm << ", regs/SM=" << sm.regs_per_sm << " in "
                   << sm.sub_partitions << " sub-partitions, register unit " << sm.reg_alloc_unit
                   << ", smem/SM=" << sm.smem_per_sm << ", reserved=" << sm.smem_reserved_per_block << ", smem unit "
                   << sm.smem_alloc_unit << "; threads=" << use.threads_per_block << ", regs=" << use.regs_per_thread
                   << ", smem=" << use.smem_per_block << ") returned " << got << ", expected " << want
                   << " (seed=" << seed() << ")";
  }
}

}  // namespace
