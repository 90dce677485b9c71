// main() of every lab test binary: GoogleTest plus a listener that prints one
// "[ CUDALAB  ] reason: ..." line per failed test, which the score table shows, and starts the
// watchdog's clock for each test (cudalab/watchdog.hpp: a test that does not finish in its budget
// ends the process with a reason line instead of waiting for the CTest timeout).
#include "cudalab/watchdog.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

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
  bool reported_ = false;
  void OnTestStart(const ::testing::TestInfo &info) override {
    reported_ = false;
    cudalab::watchdog::arm(std::string(info.test_suite_name()) + "." + info.name());
  }
  void OnTestEnd(const ::testing::TestInfo &) override { cudalab::watchdog::disarm(); }
  void OnTestPartResult(const ::testing::TestPartResult &r) override {
    if (reported_ || r.type() == ::testing::TestPartResult::kSuccess) return;
    const char *tag = r.skipped() ? "skipped" : "reason";
    std::printf("[ CUDALAB  ] %s: %s\n", tag, reason_of(r.message()).c_str());
    std::fflush(stdout);
    reported_ = !r.skipped();
  }
};

}  // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new ReasonPrinter);
  return RUN_ALL_TESTS();
}
