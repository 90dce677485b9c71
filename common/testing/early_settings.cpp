// The test programs' settings, copied before any library's constructors run.
//
// The dynamic loader runs an executable's .preinit_array before the initialisers of every shared
// library it loaded (the lab's library among them), and hands it the environment the program
// started with. The copy taken here is the one cudalab::setting() reads (cudalab/settings.hpp),
// so nothing a lab's library runs while it is loaded can change a threshold, a budget, the
// sanitizer marker or where a result record goes. Linked into test executables only (the
// cudalab_launch_recorder objects): a shared library may not have a .preinit_array.
#include "cudalab/settings.hpp"

namespace {

/// @brief The .preinit_array entry: argc, argv and the environment, as the loader passes them.
void take_settings_first(int, char **, char **envp) { cudalab::detail::take_settings_first(envp); }

__attribute__((section(".preinit_array"), used)) void (*const preinit_entry)(int, char **, char **) =
    take_settings_first;

}  // namespace
