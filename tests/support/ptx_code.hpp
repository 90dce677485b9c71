/// @file ptx_code.hpp
/// @brief Checks of the student's compiled code, for the rules a value cannot show. The build
/// compiles the student's file to PTX (cudalab_student_ptx() in cmake/StudentPtx.cmake,
/// CUDALAB_STUDENT_PTX); these helpers cut one kernel out of it, together with every device function it calls that was not
/// inlined, and count its instructions by opcode (shfl.sync, bar.sync, ld.shared, ...) or find the
/// calls the device runtime makes for a launch from the GPU. Used by ch03_11 to ch03_14, ch05_02 and
/// ch05_03. PTX names the memory space of every load (ld.shared, ld.const, ld.global), before ptxas
/// turns constant loads into operands.
#pragma once

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
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

/// The PTX text with its comments taken out as ptxas takes them: `//` to the end of the line and
/// `/* ... */` across lines (each replaced by a space, its line breaks kept), outside "strings".
/// Inline asm is copied into the PTX as written, so a comment there must hide nothing from the
/// reader and must not make it see what ptxas does not (an instruction or a brace inside it).
inline std::string without_comments(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      if (i < text.size()) out += '\n';
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      out += ' ';
      for (i += 2; i < text.size() && !(text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/'); ++i)
        if (text[i] == '\n') out += '\n';
      ++i;  // the '/' of "*/"
    } else {
      out += c;
    }
  }
  return out;
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
  std::istringstream text(without_comments(std::string(std::istreambuf_iterator<char>(in), {})));
  while (std::getline(text, raw)) {
    const std::string &line = raw;
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

/// One statement of a function body: an instruction or directive up to its ';', a label, or the
/// start or end of a `{ ... }` scope (inline asm brings its own, with registers of its own).
struct Statement {
  enum Kind { kInstruction, kDirective, kLabel, kOpen, kClose } kind;
  std::string text;  ///< trimmed, without the ';' (a label: its name)
};

inline std::string trim_statement(const std::string &s) {
  const std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

inline bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$'; }

/// @brief The statements of a function body (lines with comments removed, as functions() gives
/// them), split at every ';' whatever the lines are (inline asm puts several on one line). A
/// register declared inside a nested scope (`{ .reg .pred p; ... }`, as __syncthreads_or() and
/// students' inline asm bring) is renamed within its scope to `%<name>__scope<N>`, so that two
/// scopes' `%p1` are two registers and an unprefixed `p` is read as one.
inline std::vector<Statement> statements(const std::vector<std::string> &body) {
  std::vector<Statement> out;
  std::vector<std::map<std::string, std::string>> scopes;  // scopes[0]: the function's own
  int next_scope = 0;
  std::string cur;
  int depth = 0;  // brackets inside one statement ({%r1, %r2}, [addr], (param0, ...))
  auto rename = [&](const std::string &text) {
    std::string r;
    for (std::size_t i = 0; i < text.size();) {
      const bool start = (text[i] == '%' || std::isalpha(static_cast<unsigned char>(text[i])) != 0 || text[i] == '_') &&
                         (i == 0 || (!identifier_char(text[i - 1]) && text[i - 1] != '.' && text[i - 1] != '%'));
      if (!start) {
        r += text[i++];
        continue;
      }
      std::size_t e = i + 1;
      while (e < text.size() && identifier_char(text[e])) ++e;
      std::string token = text.substr(i, e - i);
      const std::string bare = token[0] == '%' ? token.substr(1) : token;
      for (std::size_t k = scopes.size(); k-- > 1;) {
        auto it = scopes[k].find(bare);
        if (it != scopes[k].end()) {
          token = it->second;
          break;
        }
      }
      r += token;
      i = e;
    }
    return r;
  };
  auto emit = [&](Statement::Kind kind, std::string text) {
    text = trim_statement(text);
    if (kind == Statement::kDirective && scopes.size() > 1 && text.rfind(".reg", 0) == 0) {
      // .reg .pred p, %q<3>;  -> p, %q0, %q1, %q2 belong to this scope
      std::istringstream words(text);
      std::string w, names;
      while (words >> w)
        if (w[0] != '.') names += w + " ";
      std::string name;
      auto declare = [&](std::string n) {
        if (n.empty()) return;
        if (n[0] == '%') n = n.substr(1);
        const std::string unique = "%" + n + "__scope" + std::to_string(next_scope);
        const std::size_t lt = n.find('<');
        if (lt != std::string::npos) {
          const int count = std::atoi(n.c_str() + lt + 1);
          for (int j = 0; j < count && j < 4096; ++j)
            scopes.back()[n.substr(0, lt) + std::to_string(j)] = "%" + n.substr(0, lt) + std::to_string(j) + "__scope" +
                                                                  std::to_string(next_scope);
        } else {
          scopes.back()[n] = unique;
        }
      };
      for (char c : names) {
        if (c == ',' || c == ' ') {
          declare(name);
          name.clear();
        } else {
          name += c;
        }
      }
      declare(name);
    }
    if (kind == Statement::kInstruction || kind == Statement::kDirective) text = rename(text);
    out.push_back({kind, text});
  };
  for (const std::string &line : body) {
    for (char c : line + "\n") {
      const bool at_start = trim_statement(cur).empty();
      if (at_start && depth == 0 && c == '{') {
        scopes.emplace_back();
        ++next_scope;
        out.push_back({Statement::kOpen, "{"});
        cur.clear();
        continue;
      }
      if (at_start && depth == 0 && c == '}') {
        if (!scopes.empty()) scopes.pop_back();
        out.push_back({Statement::kClose, "}"});
        cur.clear();
        continue;
      }
      if (c == '{' || c == '[' || c == '(') ++depth;
      if ((c == '}' || c == ']' || c == ')') && depth > 0) --depth;
      if (c == ';' && depth == 0) {
        const std::string t = trim_statement(cur);
        emit(!t.empty() && t[0] == '.' ? Statement::kDirective : Statement::kInstruction, t);
        cur.clear();
        continue;
      }
      if (c == ':' && depth == 0) {
        const std::string t = trim_statement(cur);
        bool label = !t.empty() && t[0] != '@';
        for (char ch : t) label = label && identifier_char(ch);
        if (label) {
          out.push_back({Statement::kLabel, t});
          cur.clear();
          continue;
        }
      }
      if (c == '\n' && depth == 0) {  // debug-line directives (-lineinfo) end at the line, without ';'
        const std::string t = trim_statement(cur);
        if (t.rfind(".loc", 0) == 0 || t.rfind(".file", 0) == 0) {
          out.push_back({Statement::kDirective, t});
          cur.clear();
          continue;
        }
      }
      cur += (c == '\n' || c == '\t') ? ' ' : c;
    }
  }
  return out;
}

/// @brief @p text for a student to read: every mangled name (`_Z17reduceInterleavedPiS_j`)
/// demangled (`reduceInterleaved(int*, int*, unsigned int)`), and PTX's tabs and runs of blanks
/// as one space.
inline std::string readable(const std::string &text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const bool start = text.compare(i, 2, "_Z") == 0 && (i == 0 || !identifier_char(text[i - 1]));
    if (start) {
      std::size_t e = i;
      while (e < text.size() && identifier_char(text[e])) ++e;
      const std::string name = text.substr(i, e - i);
      int status = 0;
      char *plain = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
      out += status == 0 && plain != nullptr ? std::string(plain) : name;
      std::free(plain);
      i = e;
      continue;
    }
    const char c = text[i++] == '\t' ? ' ' : text[i - 1];
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
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
    for (const detail::Statement &st : detail::statements(f->body)) {
      if (st.kind == detail::Statement::kDirective && st.text.rfind(".shared", 0) == 0) k.declared.push_back(st.text);
      if (st.kind != detail::Statement::kInstruction) continue;
      std::istringstream words(st.text);
      std::string op;
      if (!(words >> op)) continue;
      if (op[0] == '@' && !(words >> op)) continue;  // predicate: @%p1 or @!%p1
      k.lines.push_back(st.text);
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
