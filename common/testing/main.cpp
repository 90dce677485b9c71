// main() of every lab test binary: GoogleTest plus a listener that prints one
// "[ CUDALAB  ] reason: ..." line per failed test (and "skipped: ..." per skip) for the student,
// records the same line in the test's result record (the property "cudalab_reason" of
// GoogleTest's JSON output, which the score table reads), and starts the watchdog's clock for
// each test (cudalab/watchdog.hpp: a test that does not finish in its budget ends the process with
// a reason line instead of waiting for the CTest timeout).
//
// The result record is GoogleTest's JSON output, GTEST_OUTPUT=json:<file> (set per test by CTest,
// see cmake/TestRecords.cmake); GoogleTest writes it only when all tests of the process have
// finished. main() removes the file first, so a run that crashes, is stopped by the watchdog or
// by the CTest timeout leaves no record rather than the previous run's (docs/grading.md).
//
// `<test binary> --cudalab-probe` runs no test: it prints "[ CUDALAB  ] skipped: <why>" when there
// is no usable GPU and exits 0 (cmake/RunSanitizer.cmake asks before it starts compute-sanitizer
// on the binary, as it asks the sanitizer drivers with --probe).
#include "cudalab/settings.hpp"
#include "cudalab/watchdog.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace cudalab {
bool gpu_available(std::string *why);  // cudalab/device.cuh (a CUDA header; this file is C++)
}  // namespace cudalab

namespace {

/// The line of a failure message that says what is wrong. Messages of the labs' own helpers
/// start with it; for plain EXPECT_* assertions the user's streamed text comes last.
std::string reason_of(const std::string &message) {
  // EXPECT_TRUE(assertion_result): "Value of: ...\n  Actual: false (<the helper's message>)\n..."
  const std::string actual = "Actual: false (";
  if (std::size_t at = message.find(actual); at != std::string::npos) {
    std::size_t end = message.rfind(')');
    if (end > at) return message.substr(at + actual.size(), end - at - actual.size());
  }
  std::string first = message.substr(0, message.find('\n'));
  bool generic = first.rfind("Expected", 0) == 0 || first.rfind("Value of", 0) == 0 ||
                 first.rfind("Failed", 0) == 0 || first.empty();
  if (!generic) return first;
  std::size_t end = message.find_last_not_of("\n ");
  if (end == std::string::npos) return first;
  std::size_t start = message.rfind('\n', end);
  return message.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

class ReasonPrinter : public ::testing::EmptyTestEventListener {
  bool reported_ = false;  // a failure's reason was printed (later ones are not)
  bool recorded_ = false;  // "cudalab_reason" holds a reason (a skip's is replaced by a failure's)
  void OnTestStart(const ::testing::TestInfo &info) override {
    reported_ = recorded_ = false;
    cudalab::watchdog::arm(std::string(info.test_suite_name()) + "." + info.name());
  }
  void OnTestEnd(const ::testing::TestInfo &) override { cudalab::watchdog::disarm(); }
  void OnTestPartResult(const ::testing::TestPartResult &r) override {
    if (reported_ || r.type() == ::testing::TestPartResult::kSuccess) return;
    const char *tag = r.skipped() ? "skipped" : "reason";
    const std::string reason = reason_of(r.message());
    std::printf("[ CUDALAB  ] %s: %s\n", tag, reason.c_str());
    std::fflush(stdout);
    reported_ = !r.skipped();
    if (!recorded_ || !r.skipped()) ::testing::Test::RecordProperty("cudalab_reason", reason);
    recorded_ = true;
  }
};

/// The file of GoogleTest's JSON output (--gtest_output / GTEST_OUTPUT "json:<file>"), or "" when
/// there is none or it names a directory (GoogleTest then picks the file name itself).
std::string json_output_file() {
#ifdef GTEST_FLAG_GET
  const std::string output = GTEST_FLAG_GET(output);
#else
  const std::string output = ::testing::GTEST_FLAG(output);
#endif
  const std::string prefix = "json:";
  if (output.rfind(prefix, 0) != 0) return "";
  const std::string file = output.substr(prefix.size());
  if (file.empty() || file.back() == '/' || file.back() == '\\') return "";
  return file;
}

}  // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cudalab-probe") == 0) {
      std::string why;
      if (!cudalab::gpu_available(&why)) std::printf("[ CUDALAB  ] skipped: %s\n", why.c_str());
      return 0;
    }
  }
  // Code that ran while the program was loaded (a lab's library is loaded before main()) may not
  // have rewritten what the harness, GoogleTest or the kernel tracer read from the
  // environment: no test runs, and no record is written.
  if (const std::string changed = cudalab::detail::environment_changed_since_start(); !changed.empty()) {
    std::printf("[ CUDALAB  ] reason: the environment changed while the program was loaded, before main(): %s "
                "(code in a lab's library ran at load time; cmake/CheckLabSymbols.cmake lets none run)\n",
                changed.c_str());
    return 1;
  }
  ::testing::InitGoogleTest(&argc, argv);
  // No record of an earlier run may stand for this one: GoogleTest writes the file only at the end.
  if (const std::string record = json_output_file(); !record.empty()) std::remove(record.c_str());
  ::testing::UnitTest::GetInstance()->listeners().Append(new ReasonPrinter);
  return RUN_ALL_TESTS();
}
