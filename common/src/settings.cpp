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

namespace {

/// The names whose values the harness and the tools it loads read while the program starts
/// (the harness's CUDALAB_*, GoogleTest's flags in its static initialisers, the kernel tracer's
/// TRACER_* in its constructor): watched from the .preinit_array to main().
bool watched(const char *entry) {
  return std::strncmp(entry, "CUDALAB_", 8) == 0 || std::strncmp(entry, "GTEST_", 6) == 0 ||
         std::strncmp(entry, "TRACER_", 7) == 0;
}

/// The watched entries as the program started ("NAME=value" copies), null-terminated.
char **watched_at_start = nullptr;

}  // namespace

namespace detail {
std::string environment_changed_since_start() {
  if (watched_at_start == nullptr) return "";
  std::size_t now = 0;
  for (char **e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!watched(*e)) continue;
    ++now;
    bool found = false;
    for (char **w = watched_at_start; *w != nullptr && !found; ++w) found = std::strcmp(*w, *e) == 0;
    if (!found) {
      const char *eq = std::strchr(*e, '=');
      return std::string(*e, eq != nullptr ? static_cast<std::size_t>(eq - *e) : std::strlen(*e)) +
             " is not what the program started with";
    }
  }
  std::size_t then = 0;
  for (char **w = watched_at_start; *w != nullptr; ++w) ++then;
  if (now != then) return "a variable the program started with is gone";
  return "";
}

void take_settings_first(char **envp) {
  if (early != nullptr || taken != nullptr || envp == nullptr) return;
  std::size_t all = 0;
  for (char **e = envp; *e != nullptr; ++e)
    if (watched(*e)) ++all;
  if (char **copy = static_cast<char **>(std::calloc(all + 1, sizeof(char *)))) {
    std::size_t i = 0;
    for (char **e = envp; *e != nullptr && i < all; ++e)
      if (watched(*e)) copy[i++] = strdup(*e);
    watched_at_start = copy;
  }
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
