#include "cudalab/settings.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

extern char **environ;  // NOLINT: POSIX

namespace cudalab {
namespace {

struct Settings {
  std::mutex lock;
  std::map<std::string, std::string> values;
};

/// The harness's entries of an environment ("NAME=value", CUDALAB_* and GTEST_* only).
Settings *copy_of(char **env) {
  auto *copy = new Settings;
  for (char **e = env; e != nullptr && *e != nullptr; ++e) {
    const char *eq = std::strchr(*e, '=');
    if (eq == nullptr) continue;
    std::string name(*e, static_cast<std::size_t>(eq - *e));
    if (name.rfind("CUDALAB_", 0) == 0 || name.rfind("GTEST_", 0) == 0) copy->values[name] = eq + 1;
  }
  return copy;
}

/// The entries as the program started: copied from the environment that the dynamic loader hands
/// the test program's .preinit_array (detail::take_settings_first, before any library's
/// constructors run), as plain C strings (no C++ library is set up yet at that point).
char **early = nullptr;

Settings *taken = nullptr;  // constant-initialised: valid before any constructor

/// The copy: from the early entries where the program took them, else from the environment on
/// first use (programs without the early hook: the demos, the harness's self-tests).
Settings &settings() {
  if (taken == nullptr) taken = copy_of(early != nullptr ? early : environ);
  return *taken;
}

/// First use while the program starts, at the latest: a static initialiser of the harness.
[[maybe_unused]] const bool kTaken = (settings(), true);

}  // namespace

const char *setting(const char *name) {
  Settings &s = settings();
  std::lock_guard<std::mutex> guard(s.lock);
  auto it = s.values.find(name);
  return it == s.values.end() ? nullptr : it->second.c_str();  // entries are never erased (below)
}

namespace detail {
void take_settings_first(char **envp) {
  if (early != nullptr || taken != nullptr || envp == nullptr) return;
  std::size_t n = 0;
  for (char **e = envp; *e != nullptr; ++e)
    if (std::strncmp(*e, "CUDALAB_", 8) == 0 || std::strncmp(*e, "GTEST_", 6) == 0) ++n;
  char **copy = static_cast<char **>(std::calloc(n + 1, sizeof(char *)));
  if (copy == nullptr) return;
  std::size_t i = 0;
  for (char **e = envp; *e != nullptr && i < n; ++e)
    if (std::strncmp(*e, "CUDALAB_", 8) == 0 || std::strncmp(*e, "GTEST_", 6) == 0) copy[i++] = strdup(*e);
  early = copy;
}

void override_setting(const char *name, const char *value) {
  Settings &s = settings();
  std::lock_guard<std::mutex> guard(s.lock);
  // Unset is the empty string (the callers treat "" as unset), so earlier pointers stay valid.
  s.values[name] = value != nullptr ? value : "";
}
}  // namespace detail

}  // namespace cudalab
