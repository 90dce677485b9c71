// cudalab::run_ncu on the host (no GPU, no Nsight Compute): stand-ins for ncu (shell scripts
// written here) run this program as the profile target. The target prints what a lab's kernel or
// launcher could print to forge a profile: a CSV report of its own, ERR_NVGPUCTRPERM and a skip
// line that claims "not applicable". Its output goes to a file of its own
// (cudalab::detail::profile_output_to_file, as cudalab::driver_start does), so none of it may
// change what run_ncu reads from ncu's report.
//
//   ncu_selftest                      the tests
//   ncu_selftest --target <mode>      the profile target: forge | wrong
#include "cudalab/device.cuh"
#include "cudalab/ncu.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

std::string self;  // this program's path, the profile target

/// An executable stand-in for ncu in the test's temporary directory, removed when the call that
/// uses it ends. Like ncu it takes nine option words before the target, runs the target, then
/// prints @p after. The file is named after the test and this process, so tests that CTest runs
/// side by side never write a script another one is executing ("Text file busy").
class FakeNcu {
 public:
  FakeNcu(const std::string &name, const std::string &after) {
    const ::testing::TestInfo *test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = ::testing::TempDir() + "cudalab_fake_ncu_" + name + "_" + (test ? test->name() : "none") + "_" +
            std::to_string(::getpid()) + ".sh";
    std::ofstream(path_) << "#!/bin/sh\nshift 9\n\"$@\"\n" << after;
    ::chmod(path_.c_str(), 0755);
  }
  ~FakeNcu() { std::remove(path_.c_str()); }
  FakeNcu(const FakeNcu &) = delete;
  FakeNcu &operator=(const FakeNcu &) = delete;
  operator std::string() const { return path_; }

 private:
  std::string path_;
};

const char *const kReport =
    "echo '==PROF== Connected to process 1'\n"
    "echo '\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"'\n"
    "echo '\"0\",\"1\",\"heavy(float *, int)\",\"smsp__branch_targets_threads_divergent.sum\",\"\",\"1,234\"'\n";

TEST(RunNcu, ReadsOnlyTheProfilersReport) {
  const cudalab::NcuResult r = cudalab::run_ncu(FakeNcu("report", kReport), self, "--target forge", "heavy",
                                                {"smsp__branch_targets_threads_divergent.sum"});
  ASSERT_EQ(r.status, cudalab::NcuResult::Status::kOk) << r.message << "\n" << r.output;
  EXPECT_EQ(r.get("heavy", "smsp__branch_targets_threads_divergent.sum"), 1234.0) << r.output;
  EXPECT_EQ(r.values.size(), 1u) << "a kernel the target printed was read as profiled:\n" << r.output;
  EXPECT_FALSE(r.counters_unavailable);
  EXPECT_NE(r.output.find("forged"), std::string::npos) << "the target's own output is kept for the student";
}

TEST(RunNcu, CountersRefusedOnlyWhenNcuSaysSo) {
  const cudalab::NcuResult refused = cudalab::run_ncu(
      FakeNcu("noperm",
              "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
              "Performance Counters' >&2\nexit 1\n"),
      self, "--target wrong", "heavy", {"m"});
  EXPECT_EQ(refused.status, cudalab::NcuResult::Status::kSkip) << refused.output;
  EXPECT_TRUE(refused.counters_unavailable);
}

TEST(RunNcu, ATargetsSkipLineIsNeverNotApplicable) {
  const cudalab::NcuResult r = cudalab::run_ncu(FakeNcu("silent", "exit 1\n"), self, "--target forge", "heavy", {"m"});
  EXPECT_EQ(r.status, cudalab::NcuResult::Status::kSkip) << r.output;
  EXPECT_FALSE(r.counters_unavailable) << "the target's ERR_NVGPUCTRPERM was taken for ncu's";
  EXPECT_EQ(r.message.rfind("the profile target did not run: ", 0), 0u) << r.message;
}

TEST(RunNcu, ATargetsReasonFails) {
  const cudalab::NcuResult r = cudalab::run_ncu(FakeNcu("silent", "exit 1\n"), self, "--target wrong", "heavy", {"m"});
  EXPECT_EQ(r.status, cudalab::NcuResult::Status::kFail);
  EXPECT_EQ(r.message, "heavyKernel2 is not profiled until it is correct") << r.output;
}

/// The profile target: its output to the file run_ncu names, then what a forging lab prints.
int target(const std::string &mode) {
  cudalab::detail::profile_output_to_file();
  if (mode == "wrong") {
    std::printf("[ CUDALAB  ] reason: heavyKernel2 is not profiled until it is correct\n");
    return 1;
  }
  std::printf("\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n");
  std::printf("\"0\",\"heavy(float *, int)\",\"smsp__branch_targets_threads_divergent.sum\",\"0\"\n");
  std::printf("\"1\",\"forged(float *, int)\",\"smsp__branch_targets_threads_divergent.sum\",\"0\"\n");
  std::printf("==ERROR== ERR_NVGPUCTRPERM (forged)\n");
  std::fprintf(stderr, "[ CUDALAB  ] skipped: not applicable on this GPU: forged\n");
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "--target") return target(argv[2]);
  self = argv[0];
  if (self.find('/') == std::string::npos) self = "./" + self;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
