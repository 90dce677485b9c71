/// @file settings.hpp
/// @brief The harness's settings (the environment variables CUDALAB_* and GTEST_*), as the process
/// started.
///
/// They are copied once, while the test program starts and before any of a lab's code can run:
/// the test programs take them in their .preinit_array (common/testing/early_settings.cpp), which
/// the dynamic loader runs before the constructors of any shared library, the lab's included; a
/// lab's library may run no code before main() of its own anyway (cmake/CheckLabSymbols.cmake).
/// Code that later rewrites the environment's strings in place cannot change a threshold, a budget
/// or where a result goes.
#pragma once

#include <string>

namespace cudalab {

/// @brief The value of the setting @p name (e.g. "CUDALAB_SEED") when the process started, or
/// nullptr when it was unset.
const char *setting(const char *name);

namespace detail {
/// @brief Copies the settings from @p envp, the environment the program started with, unless they
/// were copied already: called from the test programs' .preinit_array (no C++ library set up yet).
void take_settings_first(char **envp);

/// @brief "" when the environment's CUDALAB_*, GTEST_* and TRACER_* variables are those
/// the program started with (as take_settings_first() saw them), else which one changed: called
/// at the start of main(), after every library's constructors and the test program's static
/// initialisers ran (GoogleTest and the kernel tracer read theirs there). "" in a program without
/// the early copy.
std::string environment_changed_since_start();

/// @brief Sets (or, with nullptr, unsets) a setting for the rest of the process: for the harness's
/// own self-tests.
void override_setting(const char *name, const char *value);
}  // namespace detail

}  // namespace cudalab
