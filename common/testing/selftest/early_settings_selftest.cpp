// The harness's settings are taken before any library's constructors run (early_settings.cpp),
// and a change of the watched variables before main() is seen: on the host, no GPU. The program
// links a shared library whose constructor rewrites CUDALAB_EARLY_PROBE=original in place, as a
// lab's constructor could with the environment glibc hands it.
//
//   early_settings_selftest rewritten   run with CUDALAB_EARLY_PROBE=original: the setting keeps
//                                       "original", and the change is reported
//   early_settings_selftest untouched   run with CUDALAB_EARLY_PROBE=other: nothing is reported
#include "cudalab/settings.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int fail(const char *why) {
  std::printf("FAIL: %s\n", why);
  return 1;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const char *now = std::getenv("CUDALAB_EARLY_PROBE");
  const char *taken = cudalab::setting("CUDALAB_EARLY_PROBE");
  const std::string changed = cudalab::detail::environment_changed_since_start();
  std::printf("environment now: %s\nsetting: %s\nchanged: %s\n", now ? now : "(unset)", taken ? taken : "(unset)",
              changed.c_str());
  if (mode == "rewritten") {
    if (now == nullptr || std::strcmp(now, "rewrote!") != 0)
      return fail("the library's constructor did not run first (the test proves nothing)");
    if (taken == nullptr || std::strcmp(taken, "original") != 0)
      return fail("a library's constructor changed a setting of the harness");
    if (changed.rfind("CUDALAB_EARLY_PROBE ", 0) != 0) return fail("the change before main() was not seen");
  } else if (mode == "untouched") {
    if (!changed.empty()) return fail("a change was reported where there was none");
    if (taken == nullptr || std::strcmp(taken, "other") != 0) return fail("the setting is not the environment's");
  } else {
    return fail("usage: early_settings_selftest rewritten|untouched");
  }
  std::printf("PASS: %s\n", mode.c_str());
  return 0;
}
