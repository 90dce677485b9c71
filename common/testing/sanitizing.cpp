/// @file sanitizing.cpp
/// @brief Whether this test process runs under compute-sanitizer (SanitizeAll), and the input sizes
/// it then leaves out. In a file of its own so that a program that needs only these (a sanitizer
/// driver) links none of the rest of the test library.
#include "cudalab/testing.cuh"
#include "cudalab/settings.hpp"

#include <cstdio>
#include <cstdlib>

namespace cudalab {

bool sanitizing() {
  const char *tool = cudalab::setting("CUDALAB_SANITIZING");
  return tool && *tool;
}

std::size_t sanitizer_max_elements() { return sanitizing() ? std::size_t(1) << 21 : 0; }

bool skipped_under_sanitizer(std::size_t n) {
  const std::size_t cap = sanitizer_max_elements();
  if (cap == 0 || n <= cap) return false;
  static bool noted = false;
  if (!noted) {
    std::printf("[ CUDALAB  ] under compute-sanitizer: inputs over %zu elements are left out (first: %zu)\n", cap, n);
    std::fflush(stdout);
    noted = true;
  }
  return true;
}

}  // namespace cudalab
