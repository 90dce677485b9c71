/// @file ptx_check.hpp
/// @brief Source checks on the compiled student code. The build compiles the student's file to
/// PTX (tests/LAB/CMakeLists.txt, CUDALAB_STUDENT_PTX); these helpers cut one kernel out of it
/// and count its instructions by opcode (ld.shared, ld.const, ld.global, shfl.sync, ...). PTX
/// names the memory space of every load, before ptxas turns constant loads into operands.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ptx_check {

/// One kernel's PTX: its instruction lines (predicates and labels stripped), or why not found.
struct KernelPtx {
  bool found = false;                  ///< the kernel's .entry was found
  std::string error;                   ///< why not, for the failure message
  std::vector<std::string> opcodes;    ///< the opcode of every instruction, e.g. "ld.shared.u32"
};

/// @brief The instructions of kernel @p name (its unmangled name; templates: the name without
/// arguments, @p nth = which instantiation in file order) in the PTX file at @p path.
inline KernelPtx kernel_ptx(const std::string &path, const std::string &name, int nth = 0) {
  KernelPtx k;
  std::ifstream in(path);
  if (!in) {
    k.error = "cannot read the PTX of the student's code at " + path + " (the build writes it)";
    return k;
  }
  const std::string mangled = std::to_string(name.size()) + name;  // _Z<len><name>...
  std::string line;
  bool in_entry = false, in_body = false;
  int seen = 0;
  while (std::getline(in, line)) {
    if (!in_entry) {
      if (line.find(".entry") != std::string::npos && line.find("_Z" + mangled) != std::string::npos) {
        if (seen++ == nth) in_entry = true;
      }
      continue;
    }
    if (!in_body) {
      if (line == "{") in_body = true;
      continue;
    }
    if (line == "}") {
      k.found = true;
      return k;
    }
    std::istringstream words(line);
    std::string op;
    if (!(words >> op)) continue;
    if (op[0] == '@' && !(words >> op)) continue;  // predicate: @%p1 or @!%p1
    if (op[0] == '$' || op[0] == '.' || op[0] == '/' || op[0] == '{' || op[0] == '}') continue;
    k.opcodes.push_back(op);
  }
  k.error = "kernel " + name + " not found in the PTX of the student's code (" + path + ")";
  return k;
}

/// @brief How many instructions of @p k have an opcode that starts with @p prefix ("ld.shared").
inline int count(const KernelPtx &k, const std::string &prefix) {
  int c = 0;
  for (const std::string &op : k.opcodes) c += op.compare(0, prefix.size(), prefix) == 0;
  return c;
}

}  // namespace ptx_check
