// A shared library that does what a lab's library must not: a constructor that rewrites the
// environment glibc hands it, in place (early_settings_selftest.cpp).
#include <cstring>

__attribute__((constructor)) static void rewrite(int, char **, char **envp) {
  for (char **e = envp; e != nullptr && *e != nullptr; ++e)
    if (std::strcmp(*e, "CUDALAB_EARLY_PROBE=original") == 0) std::memcpy(*e + 20, "rewrote!", 8);
}
