// ch03_02 source checks. mathKernel3 and mathKernel4 compute the same values as mathKernel1 and
// mathKernel2 and compile to the same predicated code, so neither their results nor their timing
// nor a profile can tell a copy of mathKernel1/2 from the seeds' forms the lab asks for. These
// two tests read the kernels' bodies in the source file that was compiled
// (CUDALAB_STUDENT_SOURCE, set by tests/ch03_02_warp_divergence/CMakeLists.txt).
#include "cudalab/testing.cuh"

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

/// The student's divergence.cu without comments, or "" if it cannot be read.
std::string source_without_comments() {
  std::ifstream in(CUDALAB_STUDENT_SOURCE);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
      out += '\n';
    } else if (s.compare(i, 2, "/*") == 0) {
      const std::size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 1;
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

/// The body (between its outer braces) of `__global__ void name(...)`, or "" if not found.
std::string kernel_body(const std::string &src, const std::string &name) {
  const std::regex head("__global__\\s+void\\s+" + name + "\\s*\\(");
  std::smatch m;
  if (!std::regex_search(src, m, head)) return "";
  std::size_t i = src.find('{', m.position(0));
  if (i == std::string::npos) return "";
  int depth = 0;
  for (std::size_t j = i; j < src.size(); ++j) {
    depth += src[j] == '{' ? 1 : src[j] == '}' ? -1 : 0;
    if (depth == 0) return src.substr(i + 1, j - i - 1);
  }
  return "";
}

/// True when a `>> 5` of @p body is used: it appears in an expression (a condition, a ternary, a
/// store), or it initialises a variable that is named again later, other than in a `(void)` cast.
bool shifted_index_is_used(const std::string &body) {
  const std::string code = std::regex_replace(body, std::regex("\\(\\s*void\\s*\\)\\s*\\(?\\s*\\w+\\s*\\)?\\s*;"), ";");
  const std::regex statement("[^;{}]*>>\\s*5\\b[^;{}]*");
  const std::regex definition(
      "^\\s*(?:(?:const|constexpr|unsigned|signed|int|long|auto|short|size_t)\\s+)*(\\w+)\\s*=[^=][^;]*$");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), statement); it != std::sregex_iterator(); ++it) {
    const std::string text = it->str();
    std::smatch def;
    if (!std::regex_match(text, def, definition)) return true;  // the shift is used where it stands
    const std::string rest = code.substr(static_cast<std::size_t>(it->position() + it->length()));
    if (std::regex_search(rest, std::regex("\\b" + def[1].str() + "\\b"))) return true;
  }
  return false;
}

class SourceChecks : public cudalab::HostTest {
 protected:
  void SetUp() override {
    cudalab::HostTest::SetUp();
    src_ = source_without_comments();
    if (src_.empty()) GTEST_FAIL() << "cannot read the source file " << CUDALAB_STUDENT_SOURCE;
  }
  std::string src_;
};

TEST_F(SourceChecks, MathKernel3UsesABoolPredicateAndTwoSeparateIfs) {
  const std::string body = kernel_body(src_, "mathKernel3");
  if (body.empty())
    GTEST_FAIL() << "mathKernel3: no `__global__ void mathKernel3(...) { ... }` in " << CUDALAB_STUDENT_SOURCE;
  std::smatch m;
  if (!std::regex_search(body, m, std::regex("\\bbool\\s+(\\w+)\\s*[={(]")))
    GTEST_FAIL() << "mathKernel3 (source check): no bool predicate. The seeds' mathKernel3 computes "
                    "`bool ipred = (tid % 2 == 0);` and branches on it twice (see divergence.cuh)";
  const std::string p = m[1];
  const bool pos = std::regex_search(body, std::regex("\\bif\\s*\\(\\s*" + p + "\\s*\\)"));
  const bool neg = std::regex_search(body, std::regex("\\bif\\s*\\(\\s*!\\s*" + p + "\\s*\\)"));
  const bool has_else = std::regex_search(body, std::regex("\\belse\\b"));
  if (!pos || !neg || has_else)
    GTEST_FAIL() << "mathKernel3 (source check): expected two separate statements `if (" << p << ")` and `if (!" << p
                 << ")` and no else (the seeds' form); found if (" << p << "): " << (pos ? "yes" : "no") << ", if (!"
                 << p << "): " << (neg ? "yes" : "no") << ", else: " << (has_else ? "yes" : "no");
}

TEST_F(SourceChecks, MathKernel4TakesTheWarpIndexWithAShift) {
  const std::string body = kernel_body(src_, "mathKernel4");
  if (body.empty())
    GTEST_FAIL() << "mathKernel4: no `__global__ void mathKernel4(...) { ... }` in " << CUDALAB_STUDENT_SOURCE;
  if (!std::regex_search(body, std::regex(">>\\s*5\\b")))
    GTEST_FAIL() << "mathKernel4 (source check): the warp index is not taken with a shift. The seeds' mathKernel4 "
                    "computes `int itid = tid >> 5;` (mathKernel2 divides by warpSize); see divergence.cuh";
  if (!shifted_index_is_used(body))
    GTEST_FAIL() << "mathKernel4 (source check): the warp index `tid >> 5` is computed but never used: the branch "
                    "must test it (the seeds' `if ((itid & 0x01) == 0)`), not mathKernel2's `tid / warpSize`";
}

}  // namespace
