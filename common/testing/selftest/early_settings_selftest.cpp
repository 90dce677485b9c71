// The harness's settings are taken before any library's constructors run (early_settings.cpp):
// on the host, no GPU. The program links a shared library whose constructor rewrites the
// environment's strings in place, as a lab's constructor could with the environment glibc hands
// it; cudalab::setting() must still give the value the program started with.
//
//   early_settings_selftest     run with CUDALAB_EARLY_PROBE=original (add_test below)
#include "cudalab/settings.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main() {
  const char *now = std::getenv("CUDALAB_EARLY_PROBE");
  const char *taken = cudalab::setting("CUDALAB_EARLY_PROBE");
  std::printf("environment now: %s\nsetting: %s\n", now ? now : "(unset)", taken ? taken : "(unset)");
  if (now == nullptr || std::strcmp(now, "rewrote!") != 0) {
    std::printf("FAIL: the library's constructor did not run first (the test proves nothing)\n");
    return 1;
  }
  if (taken == nullptr || std::strcmp(taken, "original") != 0) {
    std::printf("FAIL: a library's constructor changed a setting of the harness\n");
    return 1;
  }
  std::printf("PASS: the settings were taken before the library's constructor ran\n");
  return 0;
}
