// The CUDA runtime's own entry point behind a name that the test binaries' link wraps
// (-Wl,--wrap=<name>, see common/CMakeLists.txt): looked up in the shared runtime.
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace cudalab::detail {

/// @brief The runtime's function @p name (not the wrapper), as a pointer of type @p Fn; aborts with
/// a message when the runtime has no such function.
template <class Fn>
Fn real_symbol(const char *name) {
  static_assert(sizeof(Fn) == sizeof(void *), "function pointer");
  void *sym = dlsym(RTLD_DEFAULT, name);
  if (!sym) {
    std::fprintf(stderr, "cudalab: the CUDA runtime has no %s (%s)\n", name, dlerror());
    std::abort();
  }
  return reinterpret_cast<Fn>(sym);
}

}  // namespace cudalab::detail
