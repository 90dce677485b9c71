/// @file settings.hpp
/// @brief The harness's settings (the environment variables CUDALAB_* and GTEST_*), as the process
/// started.
///
/// They are copied once, while the test program starts and before any of a lab's code can run (a
/// lab's library may run no code before main(): cmake/CheckLabSymbols.cmake), so code that later
/// rewrites the environment's strings in place cannot change a threshold, a budget or where a
/// result goes.
#pragma once

namespace cudalab {

/// @brief The value of the setting @p name (e.g. "CUDALAB_SEED") when the process started, or
/// nullptr when it was unset.
const char *setting(const char *name);

namespace detail {
/// @brief Sets (or, with nullptr, unsets) a setting for the rest of the process: for the harness's
/// own self-tests.
void override_setting(const char *name, const char *value);
}  // namespace detail

}  // namespace cudalab
