// Self-test of tests/support/technique.hpp on handwritten PTX: the barrier check passes a
// block-uniform early exit and a guarded store before the barrier, and flags an early return of
// some threads and a barrier inside `if (threadIdx.x < 32)`; the technique facts can fail.
#include "technique.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

/// The PTX files this run wrote, removed when it ends (their names carry this process's id, so two
/// runs side by side never share one).
struct WrittenFiles {
  std::vector<std::string> paths;
  ~WrittenFiles() {
    for (const std::string &p : paths) std::remove(p.c_str());
  }
} written;

/// Writes @p body as one kernel named k into a temporary PTX file; returns its path.
std::string ptx_file(const std::string &name, const std::string &body) {
  const std::string path =
      testing::TempDir() + "technique_selftest_" + name + "_" + std::to_string(::getpid()) + ".ptx";
  written.paths.push_back(path);
  std::ofstream(path) << ".version 8.0\n.target sm_75\n.address_size 64\n\n.visible .entry _Z1kPii(\n"
                         "\t.param .u64 _Z1kPii_param_0,\n\t.param .u32 _Z1kPii_param_1\n)\n{\n"
                      << body << "}\n";
  return path;
}

const char *const kGuardedStore = R"(
	ld.param.u32 	%r1, [_Z1kPii_param_1];
	mov.u32 	%r2, %tid.x;
	setp.ge.s32 	%p1, %r2, %r1;
	@%p1 bra 	$L__BB0_2;
	st.shared.u32 	[%r2], %r1;
$L__BB0_2:
	bar.sync 	0;
	ret;
)";

const char *const kUniformExit = R"(
	ld.param.u32 	%r1, [_Z1kPii_param_1];
	mov.u32 	%r2, %ctaid.x;
	setp.ge.s32 	%p1, %r2, %r1;
	@%p1 bra 	$L__BB0_2;
	bar.sync 	0;
$L__BB0_2:
	ret;
)";

const char *const kEarlyReturn = R"(
	ld.param.u32 	%r1, [_Z1kPii_param_1];
	mov.u32 	%r2, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	add.s32 	%r4, %r2, %r3;
	setp.ge.s32 	%p1, %r4, %r1;
	@%p1 bra 	$L__BB0_2;
	st.shared.u32 	[%r2], %r1;
	bar.sync 	0;
$L__BB0_2:
	ret;
)";

const char *const kBarrierInWarp0 = R"(
	mov.u32 	%r2, %tid.x;
	setp.gt.u32 	%p1, %r2, 31;
	@%p1 bra 	$L__BB0_2;
	bar.sync 	0;
	shfl.sync.down.b32 	%r5|%p2, %r2, 16, 31, -1;
$L__BB0_2:
	ret;
)";

const char *const kThreadLoop = R"(
	mov.u32 	%r2, %tid.x;
$L__BB0_1:
	bar.sync 	0;
	add.s32 	%r2, %r2, 32;
	setp.lt.u32 	%p1, %r2, 100;
	@%p1 bra 	$L__BB0_1;
	ret;
)";

std::vector<std::string> problems(const std::string &name, const char *body) {
  std::string error;
  const auto reports = technique::check_barriers_in_file(ptx_file(name, body), &error);
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_EQ(reports.size(), 1u);
  return reports.empty() ? std::vector<std::string>{"no kernel"} : reports[0].problems;
}

TEST(BarrierCheck, PassesAGuardedStoreBeforeTheBarrier) { EXPECT_TRUE(problems("guarded", kGuardedStore).empty()); }

TEST(BarrierCheck, PassesABlockUniformEarlyExit) { EXPECT_TRUE(problems("uniform", kUniformExit).empty()); }

TEST(BarrierCheck, FlagsAnEarlyReturnOfSomeThreads) { EXPECT_EQ(problems("early", kEarlyReturn).size(), 1u); }

TEST(BarrierCheck, FlagsABarrierInsideIfTidBelow32) { EXPECT_EQ(problems("warp0", kBarrierInWarp0).size(), 1u); }

TEST(BarrierCheck, FlagsABarrierInALoopWhoseTripCountDependsOnTheThread) {
  const std::vector<std::string> p = problems("loop", kThreadLoop);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("loop"), std::string::npos) << p[0];
}

// Inline asm brings scopes of its own: __syncthreads_or() declares %p1 and %p2 again inside
// `{ ... }` (nvcc's PTX, trimmed). The outer %p2 depends on the thread, the scoped one holds the
// barrier's result, the same in every thread: the branch on it is uniform.
const char *const kSyncthreadsOrAfterADivergentBranch = R"(
	mov.u32 	%r1, %tid.x;
	setp.eq.s32 	%p1, %r1, 1;
	selp.u32 	%r11, 1, 0, %p1;
	shl.b32 	%r2, %r1, %r11;
	setp.gt.s32 	%p2, %r2, 10;
	selp.u32 	%r16, 1, 0, %p2;
	{ 
	.reg .pred 	%p1; 
	.reg .pred 	%p2; 
	setp.ne.u32 	%p1, %r16, 0; 
	bar.red.or.pred 	%p2, 0, %p1; 
	selp.u32 	%r17, 1, 0, %p2; 
	}
	setp.eq.s32 	%p3, %r17, 0;
	@%p3 bra 	$L__BB0_3;
	bar.sync 	0;
$L__BB0_3:
	ret;
)";

// A barrier inside a student's inline asm, on one line with its own scope and register, under
// `if (threadIdx.x < 32)`: the reader must see every statement of the line.
const char *const kBarrierHiddenInInlineAsm = R"(
	mov.u32 	%r1, %tid.x;
	setp.gt.u32 	%p1, %r1, 31;
	@%p1 bra 	$L__BB0_2;
	{ .reg .u32 t; mov.u32 t, 1; bar.sync 0; }
$L__BB0_2:
	ret;
)";

TEST(BarrierCheck, PassesSyncthreadsOrAfterAThreadDependentBranch) {
  EXPECT_TRUE(problems("sync_or", kSyncthreadsOrAfterADivergentBranch).empty());
}

TEST(BarrierCheck, FlagsABarrierHiddenInAnInlineAsmScope) {
  EXPECT_EQ(problems("asm_scope", kBarrierHiddenInInlineAsm).size(), 1u);
}

const char *const kShuffleNeighbour = R"(
	mov.u32 	%r2, %tid.x;
	shfl.sync.up.b32 	%r3|%p1, %r2, 1, 0, -1;
	ret;
)";

const char *const kSharedNoBarrier = R"(
	mov.u32 	%r2, %tid.x;
	st.shared.u32 	[%r2], %r2;
	ld.shared.u32 	%r3, [%r2+4];
	ret;
)";

const char *const kSharedWarpBarrier = R"(
	mov.u32 	%r2, %tid.x;
	st.shared.u32 	[%r2], %r2;
	bar.warp.sync 	-1;
	ld.shared.u32 	%r3, [%r2+4];
	ret;
)";

const char *const kEmpty = R"(
	ret;
)";

TEST(BarrierKernels, AcceptABarrierOrWarpOnlySharing) {
  EXPECT_EQ(technique::missing_barrier(ptx_file("bk_guarded", kGuardedStore), "_Z1k"), "");
  EXPECT_EQ(technique::missing_barrier(ptx_file("bk_shfl", kShuffleNeighbour), "_Z1k"), "");
  EXPECT_EQ(technique::missing_barrier(ptx_file("bk_warp", kSharedWarpBarrier), "_Z1k"), "");
}

TEST(BarrierKernels, FlagSharedMemoryWithoutABarrierAndAnEmptyKernel) {
  const std::string shared = technique::missing_barrier(ptx_file("bk_shared", kSharedNoBarrier), "_Z1k");
  EXPECT_NE(shared.find("writes shared memory (1 stores"), std::string::npos) << shared;
  const std::string empty = technique::missing_barrier(ptx_file("bk_empty", kEmpty), "_Z1k");
  EXPECT_NE(empty.find("has no block barrier"), std::string::npos) << empty;
  EXPECT_NE(technique::missing_barrier(ptx_file("bk_other", kEmpty), "_Z9elsewhere").find("not found"),
            std::string::npos);
}

TEST(TechniqueFacts, CountOrderAndAfterLastCanFail) {
  const std::string path = ptx_file("facts", kBarrierInWarp0);
  using F = technique::Fact;
  const technique::Technique t{
      "k",
      "_Z1k",
      "a self-test",
      {F{F::Count, "^ld\\.const", "", 1, -1, "constant loads", {}},                       // none: fails
       F{F::Order, "^shfl", "^bar\\.sync", -1, -1, "shuffle before barrier", {}},         // after: fails
       F{F::AfterLast, "^bar\\.sync", "^shfl\\.sync", 5, -1, "five shuffles after", {}},  // one: fails
       F{F::BeforeFirst, "^bar\\.sync", "^mov", 1, 1, "one mov before", {}},              // holds
       F{F::Any,
         "",
         "",
         -1,
         -1,
         "either",
         {F{F::Count, "^redux", "", 1, -1, "redux", {}}, F{F::Count, "^shfl", "", 1, -1, "shfl", {}}}}}};  // holds
  const std::vector<std::string> failures = technique::check(path, t);
  ASSERT_EQ(failures.size(), 3u);
  EXPECT_NE(failures[0].find("found 0"), std::string::npos) << failures[0];
  EXPECT_NE(failures[2].find("found 1"), std::string::npos) << failures[2];
  EXPECT_NE(failures[0].find("Check of the compiled code (PTX)"), std::string::npos) << failures[0];
}

// Two kernels in one file: _Z1aPi and _Z1bPi, whose bodies differ only where they name themselves
// (parameters, labels' function numbers) unless @p b_extra adds an instruction to b.
std::string two_kernels(const std::string &name, const std::string &b_extra) {
  const auto kernel = [](const std::string &k, int fn, const std::string &extra) {
    const std::string p = "_Z1" + k + "Pi_param_0";
    return ".visible .entry _Z1" + k + "Pi(\n\t.param .u64 " + p + "\n)\n{\n\tld.param.u64 \t%rd1, [" + p +
           "];\n\tmov.u32 \t%r1, %tid.x;\n\tsetp.gt.u32 \t%p1, %r1, 15;\n\t@%p1 bra \t$L__BB" + std::to_string(fn) +
           "_2;\n" + extra + "\tst.global.u32 \t[%rd1], %r1;\n$L__BB" + std::to_string(fn) + "_2:\n\tret;\n}\n";
  };
  const std::string path =
      testing::TempDir() + "technique_selftest_" + name + "_" + std::to_string(::getpid()) + ".ptx";
  written.paths.push_back(path);
  std::ofstream(path) << ".version 8.0\n.target sm_75\n.address_size 64\n\n"
                      << kernel("a", 0, "") << kernel("b", 1, b_extra);
  return path;
}

TEST(TechniqueFacts, NotTheCodeOfFailsOnACopyOnly) {
  using F = technique::Fact;
  const technique::Technique t{"b", "_Z1b", "a self-test", {F{F::NotTheCodeOf, "_Z1a", "", -1, -1, "its own", {}}}};
  const std::vector<std::string> copy = technique::check(two_kernels("copy", ""), t);
  ASSERT_EQ(copy.size(), 1u);
  EXPECT_NE(copy[0].find("exactly the instructions of"), std::string::npos) << copy[0];
  EXPECT_TRUE(technique::check(two_kernels("own", "\tadd.s32 \t%r1, %r1, 1;\n"), t).empty());
  const technique::Technique missing{"b", "_Z1b", "", {F{F::NotTheCodeOf, "_Z1c", "", -1, -1, "", {}}}};
  EXPECT_TRUE(technique::check(two_kernels("missing", ""), missing).empty());  // no such kernel: no copy
}

// Comments in inline asm are PTX comments: the reader must see what ptxas sees. A `/* } */` hides
// no instruction after it; a `/* ... */` over several lines (ending behind a `//`) adds none.
TEST(TechniqueFacts, CommentsInInlineAsmHideNothingAndAddNothing) {
  using F = technique::Fact;
  const technique::Technique t{"k",
                               "_Z1k",
                               "a self-test",
                               {F{F::Count, "^ld\\.global", "", 1, -1, "a global load", {}},
                                F{F::Count, "^ld\\.shared", "", -1, 0, "no shared load", {}},
                                F{F::Count, "^bar\\.sync", "", -1, 0, "no barrier", {}}}};
  const std::string hidden =
      ptx_file("brace_comment", "\tmov.u32 \t%r2, %tid.x;\n\t/* } */\n\tld.global.u32 \t%r3, [%rd1];\n\tret;\n");
  EXPECT_TRUE(technique::check(hidden, t).empty()) << technique::check(hidden, t)[0];
  const std::string fake = ptx_file("fake_tiles",
                                    "\t/*;\n\tld.shared.f32 \t%f1, [%r1];\n\tbar.sync \t0;\n\t// */\n"
                                    "\tld.global.u32 \t%r3, [%rd1];\n\tret;\n");
  EXPECT_TRUE(technique::check(fake, t).empty()) << technique::check(fake, t)[0];
}

// The last warp's steps: `s[tid] += s[tid + 16]; __syncwarp();` (the read of lane t + 16's element
// and the write of one's own in one step), the same step guarded by `if (tid < 16)`, and the
// Programming Guide's correct form (read, __syncwarp(), write).
std::string warp_step(const std::string &guard, const std::string &before_store, const std::string &after_store) {
  return "\tmov.u32 \t%r2, %tid.x;\n\tshl.b32 \t%r3, %r2, 2;\n\tbar.sync \t0;\n" + guard +
         "\tld.shared.u32 \t%r4, [%r3];\n\tld.shared.u32 \t%r5, [%r3+64];\n\tadd.s32 \t%r6, %r4, %r5;\n" +
         before_store + "\tst.shared.u32 \t[%r3], %r6;\n" + after_store + "\tbar.warp.sync \t-1;\n\tret;\n";
}
const std::string kWarpStepRace = warp_step("", "", "");
const std::string kWarpStepGuarded =
    warp_step("\tsetp.gt.u32 \t%p1, %r2, 15;\n\t@%p1 bra \t$L__BB0_2;\n", "", "$L__BB0_2:\n");
const std::string kWarpStepSynced = warp_step("", "\tbar.warp.sync \t-1;\n", "");

TEST(WarpSteps, AReadOfAnotherLaneThenAWriteWithoutSyncwarpCanFail) {
  const auto race = technique::warp_step_hazards_in_file(ptx_file("ws_race", kWarpStepRace));
  ASSERT_EQ(race.size(), 1u);
  EXPECT_EQ(race[0].first, "_Z1kPii");
  EXPECT_NE(race[0].second.find("[%r3+64]"), std::string::npos) << race[0].second;
  EXPECT_TRUE(technique::warp_step_hazards_in_file(ptx_file("ws_guarded", kWarpStepGuarded)).empty());
  EXPECT_TRUE(technique::warp_step_hazards_in_file(ptx_file("ws_synced", kWarpStepSynced)).empty());
}

}  // namespace

#ifdef CUDALAB_TECHNIQUE_SELFTEST_MAIN
int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
#endif
