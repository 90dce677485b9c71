#include "cudalab/settings.hpp"

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

/// The copy, taken on first use.
Settings &settings() {
  static Settings *s = [] {
    auto *copy = new Settings;
    for (char **e = environ; e != nullptr && *e != nullptr; ++e) {
      const char *eq = std::strchr(*e, '=');
      if (eq == nullptr) continue;
      std::string name(*e, static_cast<std::size_t>(eq - *e));
      if (name.rfind("CUDALAB_", 0) == 0 || name.rfind("GTEST_", 0) == 0) copy->values[name] = eq + 1;
    }
    return copy;
  }();
  return *s;
}

/// First use while the program starts: a static initialiser of the harness (the test programs'
/// libraries run none of a lab's code before main()).
[[maybe_unused]] const bool kTaken = (settings(), true);

}  // namespace

const char *setting(const char *name) {
  Settings &s = settings();
  std::lock_guard<std::mutex> guard(s.lock);
  auto it = s.values.find(name);
  return it == s.values.end() ? nullptr : it->second.c_str();  // entries are never erased (below)
}

namespace detail {
void override_setting(const char *name, const char *value) {
  Settings &s = settings();
  std::lock_guard<std::mutex> guard(s.lock);
  // Unset is the empty string (the callers treat "" as unset), so earlier pointers stay valid.
  s.values[name] = value != nullptr ? value : "";
}
}  // namespace detail

}  // namespace cudalab
