/// @file ptx_code.hpp
/// @brief Checks of the student's compiled code, for the rules a value cannot show. The build
/// compiles the student's file to PTX (cudalab_student_ptx() in cmake/StudentPtx.cmake,
/// CUDALAB_STUDENT_PTX); these helpers cut one kernel out of it, together with every device function it calls that was not
/// inlined, and count its instructions by opcode (shfl.sync, bar.sync, ld.shared, ...) or find the
/// calls the device runtime makes for a launch from the GPU. Used by ch03_11 to ch03_14, ch05_02 and
/// ch05_03. PTX names the memory space of every load (ld.shared, ld.const, ld.global), before ptxas
/// turns constant loads into operands.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace ptx_code {

/// One kernel's PTX: its instruction lines and those of the functions it calls, or why not found.
struct Kernel {
  bool found = false;                 ///< the kernel's .entry was found
  std::string name;                   ///< the mangled name of the entry
  std::string error;                  ///< why not found, for the failure message
  std::vector<std::string> lines;     ///< instruction lines in file order (comments, labels dropped)
  std::vector<std::string> opcodes;   ///< the opcode of every instruction, e.g. "ld.shared.u32"
  std::vector<std::string> declared;  ///< .shared declarations inside the kernel
};

namespace detail {

/// A function or kernel defined in the file: its mangled name and the lines of its body.
struct Function {
  bool entry = false;
  std::string name;
  std::vector<std::string> body;
};

inline std::string strip_comment(const std::string &line) {
  const std::size_t c = line.find("//");
  return c == std::string::npos ? line : line.substr(0, c);
}

/// The name of the function a header line defines (".visible .entry NAME(", ".func (.param ..) NAME(").
inline std::string function_name(const std::string &line) {
  std::size_t p = line.find(".entry");
  p = p != std::string::npos ? p + 6 : line.find(".func") + 5;
  while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
  if (p < line.size() && line[p] == '(') {  // return value: (.param .b32 func_retval0)
    const std::size_t close = line.find(')', p);
    p = close == std::string::npos ? line.size() : close + 1;
    while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
  }
  std::size_t e = p;
  while (e < line.size() && line[e] != '(' && line[e] != ' ' && line[e] != '\t' && line[e] != ';') ++e;
  return line.substr(p, e - p);
}

/// Every function and kernel the PTX file defines (declarations of extern functions are skipped).
inline std::vector<Function> functions(std::istream &in) {
  std::vector<Function> out;
  std::string raw;
  Function current;
  bool in_header = false;
  int depth = 0;
  while (std::getline(in, raw)) {
    const std::string line = strip_comment(raw);
    if (depth == 0 && !in_header) {
      const bool entry = line.find(".entry") != std::string::npos;
      const bool func = line.find(".func") != std::string::npos && line.find(".extern") == std::string::npos;
      if ((entry || func) && line.find(';') == std::string::npos) {  // not a one-line declaration
        current = Function{};
        current.entry = entry;
        current.name = function_name(line);
        in_header = true;
      }
      continue;
    }
    if (in_header && depth == 0) {
      if (line.find(';') != std::string::npos && line.find('{') == std::string::npos &&
          line.find(".param") == std::string::npos) {
        in_header = false;  // a forward declaration ends with ';'
        continue;
      }
      if (line.find('{') == std::string::npos) continue;
    }
    for (char ch : line) {
      if (ch == '{') ++depth;
      if (ch == '}') --depth;
    }
    if (in_header && depth > 0) {
      current.body.push_back(line);
      continue;
    }
    if (in_header && depth == 0) {  // the closing brace
      out.push_back(current);
      in_header = false;
    }
  }
  return out;
}

inline bool mentions(const std::vector<std::string> &body, const std::string &name) {
  for (const std::string &line : body) {
    const std::size_t p = line.find(name);
    if (p == std::string::npos) continue;
    const std::size_t end = p + name.size();
    if (end == line.size() || line[end] == ',' || line[end] == ';' || line[end] == ' ' || line[end] == ')' ||
        line[end] == '\t')
      return true;
  }
  return false;
}

}  // namespace detail

/// @brief The PTX of one kernel in the file at @p path: the first .entry whose mangled name
/// contains every string of @p name_parts (e.g. {"_Z18reduceUnrollWarps8"} or, for a template
/// instantiation, {"20reduceCompleteUnroll", "ILj64E"}), plus the bodies of the device functions
/// it calls (transitively), so a helper the compiler did not inline still counts.
inline Kernel kernel(const std::string &path, const std::vector<std::string> &name_parts) {
  Kernel k;
  std::ifstream in(path);
  std::string wanted;
  for (const std::string &part : name_parts) wanted += (wanted.empty() ? "" : " ") + part;
  if (!in) {
    k.error = "cannot read the PTX of the student's code at " + path + " (the build writes it)";
    return k;
  }
  const std::vector<detail::Function> all = detail::functions(in);
  const detail::Function *entry = nullptr;
  for (const detail::Function &f : all) {
    if (!f.entry) continue;
    bool match = true;
    for (const std::string &part : name_parts) match = match && f.name.find(part) != std::string::npos;
    if (match) {
      entry = &f;
      break;
    }
  }
  if (!entry) {
    k.error = "kernel " + wanted + " not found in the PTX of the student's code (" + path + ")";
    return k;
  }
  k.found = true;
  k.name = entry->name;
  std::vector<const detail::Function *> todo{entry}, taken{entry};
  while (!todo.empty()) {
    const detail::Function *f = todo.back();
    todo.pop_back();
    for (const std::string &line : f->body) {
      std::istringstream words(line);
      std::string op;
      if (!(words >> op)) continue;
      if (op.rfind(".shared", 0) == 0) k.declared.push_back(line);
      if (op[0] == '@' && !(words >> op)) continue;  // predicate: @%p1 or @!%p1
      if (op[0] == '$' || op[0] == '.' || op[0] == '{' || op[0] == '}' || op[0] == '(' || op[0] == ')') continue;
      k.lines.push_back(line);
      k.opcodes.push_back(op);
    }
    for (const detail::Function &g : all) {
      if (g.entry) continue;
      bool seen = false;
      for (const detail::Function *t : taken) seen = seen || t == &g;
      if (!seen && detail::mentions(f->body, g.name)) {
        taken.push_back(&g);
        todo.push_back(&g);
      }
    }
  }
  return k;
}

/// @brief How many instructions of @p k have an opcode that starts with @p prefix ("bar.sync").
inline int count(const Kernel &k, const std::string &prefix) {
  int c = 0;
  for (const std::string &op : k.opcodes) c += op.compare(0, prefix.size(), prefix) == 0;
  return c;
}

/// @brief Loads from shared memory (ld.shared, ld.volatile.shared, ...).
inline int shared_loads(const Kernel &k) {
  int c = 0;
  for (const std::string &op : k.opcodes) c += op.rfind("ld.", 0) == 0 && op.find(".shared") != std::string::npos;
  return c;
}

/// @brief Stores to shared memory (st.shared, st.volatile.shared, ...).
inline int shared_stores(const Kernel &k) {
  int c = 0;
  for (const std::string &op : k.opcodes) c += op.rfind("st.", 0) == 0 && op.find(".shared") != std::string::npos;
  return c;
}

/// @brief Block-wide barriers (__syncthreads(), cg::this_thread_block().sync()): bar.sync,
/// barrier.sync and their .aligned forms, and bar.red (__syncthreads_count/_and/_or).
inline int block_barriers(const Kernel &k) {
  return count(k, "bar.sync") + count(k, "barrier.sync") + count(k, "bar.red") + count(k, "barrier.red");
}

/// @brief Warp-level instructions: shuffles (__shfl_*_sync), warp barriers (__syncwarp()), and
/// warp reductions (__reduce_*_sync, cg::reduce on sm_80+).
inline int warp_level(const Kernel &k) {
  return count(k, "shfl.sync") + count(k, "bar.warp.sync") + count(k, "redux.sync");
}

/// @brief Index in k.lines of the first line that contains @p text, or -1.
inline int first_line_with(const Kernel &k, const std::string &text) {
  for (std::size_t i = 0; i < k.lines.size(); ++i)
    if (k.lines[i].find(text) != std::string::npos) return static_cast<int>(i);
  return -1;
}

}  // namespace ptx_code
