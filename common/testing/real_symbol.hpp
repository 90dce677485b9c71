// The CUDA runtime's own entry point behind a name that the test binaries' link wraps
// (-Wl,--wrap=<name>, see common/CMakeLists.txt), or that the program defines itself
// (apart_runtime.cpp, apart_launchers.cpp): looked up in the shared runtime.
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace cudalab::detail {

/// @brief Function @p name as found from @p where (RTLD_DEFAULT or RTLD_NEXT), as a pointer of
/// type @p Fn; aborts with a message when there is none.
template <class Fn>
Fn runtime_symbol(void *where, const char *name) {
  static_assert(sizeof(Fn) == sizeof(void *), "function pointer");
  void *sym = dlsym(where, name);
  if (!sym) {
    std::fprintf(stderr, "cudalab: the CUDA runtime has no %s (%s)\n", name, dlerror());
    std::abort();
  }
  return reinterpret_cast<Fn>(sym);
}

/// @brief The runtime's function @p name (not the wrapper that the link puts in its place).
template <class Fn>
Fn real_symbol(const char *name) {
  return runtime_symbol<Fn>(RTLD_DEFAULT, name);
}

/// @brief The runtime's own function @p name where this program defines one of that name itself:
/// the next definition after the program's (RTLD_NEXT, from the program's own code).
template <class Fn>
Fn next_symbol(const char *name) {
  return runtime_symbol<Fn>(RTLD_NEXT, name);
}

}  // namespace cudalab::detail
