// The generic checks of the compiled code, added by cmake/CudaLab.cmake to the host test binary of
// every lab whose grading.json declares them (docs/grading.md, "The technique manifest"):
//  * Technique.<kernel>: one test per kernel of the "technique" manifest: every declared fact
//    about the kernel's PTX holds;
//  * Barriers.ReachedByEveryThread: every kernel named in "barrier_kernels" has a block barrier
//    (or, where it shares data only within warps, a __syncwarp() or warp shuffles and no shared
//    memory), in no kernel of the student's code can some threads of a block skip (or return
//    before) a barrier the others wait at, and after a kernel's last block barrier no warp step
//    writes shared memory that another lane of the step still reads.
// No GPU is needed: the build compiles the student's source to PTX.
#include "technique.hpp"

#include "cudalab/testing.cuh"

#include <cstdio>
#include <sstream>

namespace {

/// One Technique.<kernel> test.
/// Adds a failure whose text a student can read: kernel names demangled, PTX without its tabs.
#define CUDALAB_READABLE_FAILURE(message)                               \
  do {                                                                 \
    std::ostringstream cudalab_text;                                   \
    cudalab_text << message;                                           \
    ADD_FAILURE() << ptx_code::detail::readable(cudalab_text.str());   \
  } while (0)

class TechniqueTest : public cudalab::HostTest {
 public:
  explicit TechniqueTest(technique::Technique t) : t_(std::move(t)) {}
  void TestBody() override {
    std::printf("[ CODE     ] %s: %s (%zu facts about its PTX)\n", t_.kernel.c_str(), t_.teaches.c_str(),
                t_.facts.size());
    std::vector<std::string> failures;
    bool found = false;
    for (const std::string &ptx : technique::generated::student_ptx()) {
      if (!ptx_code::kernel(ptx, {t_.symbol}).found) continue;
      found = true;
      failures = technique::check(ptx, t_);
    }
    ASSERT_TRUE(found) << t_.kernel << " (" << t_.symbol
                       << ") not found in the PTX of the student's code: is it defined, with the header's "
                          "signature? Check of the compiled code (PTX)";
    for (const std::string &f : failures) CUDALAB_READABLE_FAILURE(f);
  }

 private:
  technique::Technique t_;
};

/// Barriers.ReachedByEveryThread.
class BarrierTest : public cudalab::HostTest {
 public:
  void TestBody() override {
    std::vector<technique::BarrierReport> all;
    for (const std::string &ptx : technique::generated::student_ptx()) {
      std::string error;
      const std::vector<technique::BarrierReport> r = technique::check_barriers_in_file(ptx, &error);
      ASSERT_TRUE(error.empty()) << error;
      all.insert(all.end(), r.begin(), r.end());
      for (const auto &[kernel, hazard] : technique::warp_step_hazards_in_file(ptx))
        CUDALAB_READABLE_FAILURE(kernel << ": after the last block barrier, " << hazard
                      << ": another lane of the warp may write what this lane is still reading. Read the "
                         "neighbour's element, __syncwarp(), then write your own (or use warp shuffles). Check of "
                         "the compiled code (PTX); compute-sanitizer's racecheck does not report this");
    }
    for (const std::string &symbol : technique::generated::barrier_kernels()) {
      bool found = false;
      for (const std::string &ptx : technique::generated::student_ptx()) {
        if (found || !ptx_code::kernel(ptx, {symbol}).found) continue;
        found = true;
        const std::string why = technique::missing_barrier(ptx, symbol);
        if (!why.empty()) CUDALAB_READABLE_FAILURE(why);
      }
      if (!found)
        CUDALAB_READABLE_FAILURE("kernel " << symbol << " not found in the PTX of the student's code. Check of the "
                                 << "compiled code (PTX)");
    }
    for (const technique::BarrierReport &r : all) {
      if (r.barriers == 0) continue;
      std::printf("[ CODE     ] %s: %d block barriers, %s\n", ptx_code::detail::readable(r.kernel).c_str(), r.barriers,
                  r.problems.empty() ? "every thread reaches them" : "some threads can skip one");
      for (const std::string &p : r.problems)
        CUDALAB_READABLE_FAILURE(r.kernel << ": " << p
                                 << ". A barrier must be reached by every thread of the block, or the block hangs or "
                                    "races: guard the work, not the barrier. Check of the compiled code (PTX)");
    }
  }
};

/// Registers the lab's tests before main() runs (gtest_discover_tests lists them).
const bool registered = [] {
  for (const technique::Technique &t : technique::generated::techniques())
    ::testing::RegisterTest("Technique", t.kernel.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [t]() -> cudalab::HostTest * { return new TechniqueTest(t); });
  if (!technique::generated::barrier_kernels().empty())
    ::testing::RegisterTest("Barriers", "ReachedByEveryThread", nullptr, nullptr, __FILE__, __LINE__,
                            []() -> cudalab::HostTest * { return new BarrierTest(); });
  return true;
}();

}  // namespace
