/// @file technique.hpp
/// @brief The one checker of the technique manifest (the "technique" key of tests/<lab>/grading.json,
/// docs/grading.md) and the barrier check, both over the PTX of the student's code (ptx_code.hpp).
///
///  * Technique facts: counts of opcodes (regular expressions over PTX opcodes such as
///    "^ld\\.const"), their order, and counts after the last (or before the first) instruction of a
///    kind. cmake/CudaLab.cmake turns the manifest into a table of Technique entries
///    (<lab>_technique.cpp); tests/support/test_technique.cpp makes one test per kernel.
///  * Barriers reached by every thread: a static analysis of each kernel that has a block barrier
///    (bar.sync, barrier.sync, bar.red; not bar.warp.sync). It builds the control-flow graph of the
///    kernel, marks the registers whose value can differ between the threads of a block (derived
///    from %tid, %laneid, ...), and flags a branch on such a value after which some threads can
///    reach a barrier and others cannot (an early `return` before __syncthreads(), a barrier inside
///    `if (threadIdx.x < 32)`, a barrier in a loop whose trip count depends on the thread).
#pragma once

#include "ptx_code.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace technique {

/// One fact about a kernel's compiled code (see docs/grading.md, "The technique manifest").
struct Fact {
  enum Kind { Count, Order, AfterLast, BeforeFirst, Any, NotTheCodeOf };
  Kind kind = Count;
  std::string a;               ///< Count: the opcode regex; Order: the regex that must come first;
                               ///< AfterLast/BeforeFirst: the regex of the boundary instruction;
                               ///< NotTheCodeOf: the other kernel's mangled-name prefix
  std::string b;               ///< Order: the regex that must come after; AfterLast/BeforeFirst: the counted regex
  int min = -1;                ///< at least this many (-1: no lower bound)
  int max = -1;                ///< at most this many (-1: no upper bound)
  std::string why;             ///< the reason, for the failure message
  std::vector<Fact> any = {};  ///< Any: passes when one of these does
};

/// One kernel's declared technique.
struct Technique {
  std::string kernel;  ///< the kernel's name, as in the lab header
  std::string symbol;  ///< mangled-name prefix, as ptx_code::kernel takes it
  std::string teaches;
  std::vector<Fact> facts;
};

namespace detail {

inline bool matches(const std::string &op, const std::string &re) {
  return std::regex_search(op, std::regex(re, std::regex::ECMAScript));
}

inline int count_in(const std::vector<std::string> &ops, std::size_t from, std::size_t to, const std::string &re) {
  int c = 0;
  for (std::size_t i = from; i < to && i < ops.size(); ++i) c += matches(ops[i], re);
  return c;
}

inline std::string bounds(const Fact &f) {
  if (f.min >= 0 && f.max >= 0)
    return f.min == f.max ? "exactly " + std::to_string(f.min) : std::to_string(f.min) + " to " + std::to_string(f.max);
  if (f.min >= 0) return "at least " + std::to_string(f.min);
  if (f.max >= 0) return "at most " + std::to_string(f.max);
  return "any number";
}

inline bool within(const Fact &f, int n) { return (f.min < 0 || n >= f.min) && (f.max < 0 || n <= f.max); }

}  // namespace detail

/// @brief Checks one fact against the opcodes of @p k. Returns "" when it holds, else a sentence
/// with the expected and the actual figures.
inline std::string check_fact(const ptx_code::Kernel &k, const Fact &f) {
  const std::vector<std::string> &ops = k.opcodes;
  switch (f.kind) {
    case Fact::Count: {
      const int n = detail::count_in(ops, 0, ops.size(), f.a);
      if (detail::within(f, n)) return "";
      return "expected " + detail::bounds(f) + " instructions matching /" + f.a + "/, found " + std::to_string(n);
    }
    case Fact::Order: {
      int last_a = -1, first_b = -1;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (detail::matches(ops[i], f.a)) last_a = static_cast<int>(i);
        if (first_b < 0 && detail::matches(ops[i], f.b)) first_b = static_cast<int>(i);
      }
      // Both kinds must be there: an empty kernel (a stub) orders nothing and must not pass.
      if (last_a < 0) return "expected instructions matching /" + f.a + "/, found none";
      if (first_b < 0) return "expected instructions matching /" + f.b + "/, found none";
      if (last_a < first_b) return "";
      const int late = detail::count_in(ops, first_b + 1, ops.size(), f.a);
      return "expected every instruction matching /" + f.a + "/ before the first matching /" + f.b + "/ (`" +
             k.lines[first_b] + "`), found " + std::to_string(late) + " after it (the last: `" + k.lines[last_a] + "`)";
    }
    case Fact::AfterLast:
    case Fact::BeforeFirst: {
      int at = -1;
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (detail::matches(ops[i], f.a)) {
          if (f.kind == Fact::BeforeFirst) {
            at = static_cast<int>(i);
            break;
          }
          at = static_cast<int>(i);
        }
      const bool after = f.kind == Fact::AfterLast;
      const std::string where = after ? "after the last" : "before the first";
      if (at < 0) {
        const int n = detail::count_in(ops, 0, ops.size(), f.b);  // no boundary: the whole kernel
        if (detail::within(f, n)) return "";
        return "expected " + detail::bounds(f) + " instructions matching /" + f.b + "/ " + where + " /" + f.a +
               "/; there is no /" + f.a + "/, and the whole kernel has " + std::to_string(n);
      }
      const int n = after ? detail::count_in(ops, at + 1, ops.size(), f.b) : detail::count_in(ops, 0, at, f.b);
      if (detail::within(f, n)) return "";
      return "expected " + detail::bounds(f) + " instructions matching /" + f.b + "/ " + where + " /" + f.a + "/ (" +
             k.lines[at] + "), found " + std::to_string(n);
    }
    case Fact::NotTheCodeOf:
      return "";  // needs the other kernel: check() compares the two
    case Fact::Any: {
      std::string all;
      for (const Fact &g : f.any) {
        const std::string r = check_fact(k, g);
        if (r.empty()) return "";
        all += (all.empty() ? "" : "; or ") + r;
      }
      return "none of the alternatives holds: " + all;
    }
  }
  return "unknown fact";
}

namespace detail {

/// The kernel's instructions with what names the kernel itself taken out: its mangled name (in
/// its parameters and its static shared arrays) and the function number in its labels.
inline std::vector<std::string> own_name_removed(const ptx_code::Kernel &k) {
  const std::string name = k.name.rfind("_Z", 0) == 0 ? k.name.substr(2) : k.name;
  static const std::regex label(R"(\$L__BB[0-9]+_)");
  std::vector<std::string> out;
  for (std::string line : k.lines) {
    for (std::size_t at; !name.empty() && (at = line.find(name)) != std::string::npos;)
      line.replace(at, name.size(), "<kernel>");
    out.push_back(std::regex_replace(line, label, "$$L__BB_"));
  }
  return out;
}

}  // namespace detail

/// @brief Checks a NotTheCodeOf fact: "" when kernel @p k compiles to other instructions than the
/// kernel @p f.a of the same PTX file (names and label numbers aside), else a sentence.
inline std::string check_not_the_code_of(const std::string &ptx_path, const ptx_code::Kernel &k, const Fact &f) {
  const ptx_code::Kernel other = ptx_code::kernel(ptx_path, {f.a});
  if (!other.found || other.name == k.name) return "";  // no such kernel here: nothing to be a copy of
  if (detail::own_name_removed(k) != detail::own_name_removed(other)) return "";
  return "it compiles to exactly the instructions of " + ptx_code::detail::readable(other.name) + " (" +
         std::to_string(k.lines.size()) + " instructions, the same one by one): one kernel's code in two slots";
}

/// @brief Every failed fact of @p t in the kernel's PTX at @p ptx_path, as one message per fact
/// naming the kernel, the technique, the fact's reason and the expected and actual figures.
inline std::vector<std::string> check(const std::string &ptx_path, const Technique &t) {
  const ptx_code::Kernel k = ptx_code::kernel(ptx_path, {t.symbol});
  if (!k.found) return {k.error};
  std::vector<std::string> out;
  for (const Fact &f : t.facts) {
    const std::string r = f.kind == Fact::NotTheCodeOf ? check_not_the_code_of(ptx_path, k, f) : check_fact(k, f);
    if (!r.empty())
      out.push_back(t.kernel + " (technique: " + t.teaches + "): " + f.why + " -- " + r +
                    ". Check of the compiled code (PTX), " + ptx_path);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The barrier check.

/// One PTX instruction of a kernel, as the barrier analysis reads it.
struct Instruction {
  std::string guard;                  ///< "%p1" for @%p1, "" when unguarded
  bool negated = false;               ///< @!%p1
  std::string opcode;                 ///< "bar.sync", "setp.lt.s32", ...
  std::vector<std::string> operands;  ///< as written, split on top-level commas
  std::string text;                   ///< the whole instruction, for messages
};

/// A basic block: instructions from a label (or after a branch) to the next branch or label.
struct Block {
  std::vector<std::string> labels;
  std::vector<Instruction> code;
  std::vector<int> succ;  ///< successors (an index of the exit node for ret / exit)
};

namespace detail {

inline std::string trim(const std::string &s) {
  const std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

/// Registers (%r12, %rd3, %p1, %f2, ...) and special registers (%tid.x) named in an operand.
inline std::vector<std::string> registers(const std::string &operand) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < operand.size(); ++i) {
    if (operand[i] != '%') continue;
    std::size_t e = i + 1;
    while (e < operand.size() &&
           (std::isalnum(static_cast<unsigned char>(operand[e])) || operand[e] == '_' || operand[e] == '.'))
      ++e;
    out.push_back(operand.substr(i, e - i));
    i = e - 1;
  }
  return out;
}

inline Instruction parse(const std::string &statement) {
  Instruction ins;
  ins.text = trim(statement);
  std::string s = ins.text;
  if (!s.empty() && s[0] == '@') {
    const std::size_t sp = s.find_first_of(" \t");
    ins.guard = s.substr(1, sp - 1);
    if (!ins.guard.empty() && ins.guard[0] == '!') {
      ins.negated = true;
      ins.guard = ins.guard.substr(1);
    }
    s = trim(s.substr(sp));
  }
  const std::size_t sp = s.find_first_of(" \t");
  ins.opcode = s.substr(0, sp);
  const std::string rest = sp == std::string::npos ? "" : s.substr(sp);
  int depth = 0;
  std::string cur;
  for (char c : rest) {
    if (c == '{' || c == '(' || c == '[') ++depth;
    if (c == '}' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      ins.operands.push_back(trim(cur));
      cur.clear();
    } else if (c != ';') {
      cur += c;
    }
  }
  if (!trim(cur).empty()) ins.operands.push_back(trim(cur));
  return ins;
}

inline bool starts(const std::string &s, const char *p) { return s.rfind(p, 0) == 0; }

/// A block-wide barrier: __syncthreads() and its _count/_and/_or forms, cg's block sync.
inline bool is_block_barrier(const std::string &op) {
  if (starts(op, "bar.warp") || starts(op, "bar.arrive") || starts(op, "barrier.arrive") ||
      starts(op, "barrier.cluster"))
    return false;  // a warp barrier, or an arrival that does not wait
  return op == "bar" || op == "barrier" || starts(op, "bar.") || starts(op, "barrier.");
}

/// Instructions that write no register: their first operand is no destination.
inline bool writes_nothing(const std::string &op) {
  if (starts(op, "bar.red") || starts(op, "barrier.red")) return false;  // __syncthreads_count() returns a value
  return starts(op, "st.") || starts(op, "red.") || starts(op, "bar") || starts(op, "bra") || op == "ret" ||
         op == "exit" || starts(op, "membar") || starts(op, "fence") || starts(op, "prefetch") || starts(op, "call") ||
         starts(op, "trap") || starts(op, "cp.async") || starts(op, "mbarrier.arrive") || starts(op, "barrier");
}

/// Special registers whose value differs between the threads of one block.
inline bool thread_dependent_special(const std::string &reg) {
  return starts(reg, "%tid") || starts(reg, "%laneid") || starts(reg, "%warpid") || starts(reg, "%lanemask") ||
         starts(reg, "%clock") || starts(reg, "%globaltimer") || starts(reg, "%smid");
}

/// Opcodes whose result differs between threads whatever their operands (one thread wins an
/// atomic; a shuffle reads another lane; a vote is per warp) -- except bar.red, whose result
/// (__syncthreads_count/_and/_or) is the same in every thread of the block.
inline bool thread_dependent_result(const std::string &op) {
  return starts(op, "atom.") || starts(op, "shfl.") || starts(op, "vote.") || starts(op, "activemask") ||
         starts(op, "match.") || starts(op, "redux.") || starts(op, "ld.local") || starts(op, "ld.volatile") ||
         starts(op, "mbarrier.");
}

}  // namespace detail

/// One kernel's control-flow graph, read from PTX.
struct Graph {
  std::string name;
  std::vector<Block> blocks;  ///< blocks[0] is the entry; the exit node is index blocks.size()
  int exit() const { return static_cast<int>(blocks.size()); }
};

/// @brief Builds the control-flow graph of one function body (lines as ptx_code::detail::functions
/// gives them). Calls of functions in @p barrier_functions count as block barriers (call.uni of a
/// device function that was not inlined and holds __syncthreads()).
inline Graph build_graph(const std::string &name, const std::vector<std::string> &body,
                         const std::set<std::string> &barrier_functions) {
  Graph g;
  g.name = name;
  // Statements (ptx_code::detail::statements): labels ("$L__BB0_3"), and instructions up to their
  // ';' (calls span several lines; inline asm puts several on one), with the registers of nested
  // `{ ... }` scopes renamed apart; declarations (.reg, .shared, .pragma) and scopes are skipped.
  std::vector<std::string> labels_before;  // labels waiting for the next instruction
  std::vector<std::pair<std::vector<std::string>, Instruction>> stmts;
  for (const ptx_code::detail::Statement &st : ptx_code::detail::statements(body)) {
    if (st.kind == ptx_code::detail::Statement::kLabel) {
      labels_before.push_back(st.text);
      continue;
    }
    if (st.kind != ptx_code::detail::Statement::kInstruction || st.text.empty()) continue;
    Instruction ins = detail::parse(st.text + ";");
    if (detail::starts(ins.opcode, "call")) {
      for (const std::string &f : barrier_functions)
        if (ins.text.find(f) != std::string::npos) ins.opcode = "bar.sync.call";  // a barrier inside
    }
    stmts.push_back({labels_before, ins});
    labels_before.clear();
  }
  // Basic blocks: a new block at each label and after each branch, ret or exit.
  std::map<std::string, int> label_block;
  for (auto &st : stmts) {
    const bool need_new =
        g.blocks.empty() || !st.first.empty() ||
        (!g.blocks.back().code.empty() &&
         (detail::starts(g.blocks.back().code.back().opcode, "bra") || g.blocks.back().code.back().opcode == "ret" ||
          g.blocks.back().code.back().opcode == "exit"));
    if (need_new) g.blocks.push_back(Block{});
    for (const std::string &l : st.first) {
      label_block[l] = static_cast<int>(g.blocks.size()) - 1;
      g.blocks.back().labels.push_back(l);
    }
    g.blocks.back().code.push_back(st.second);
  }
  if (!labels_before.empty()) {  // labels at the very end (before the closing brace)
    g.blocks.push_back(Block{});
    for (const std::string &l : labels_before) label_block[l] = static_cast<int>(g.blocks.size()) - 1;
  }
  const int exit = g.exit();
  for (std::size_t b = 0; b < g.blocks.size(); ++b) {
    Block &blk = g.blocks[b];
    const int next = b + 1 < g.blocks.size() ? static_cast<int>(b) + 1 : exit;
    if (blk.code.empty()) {
      blk.succ.push_back(next);
      continue;
    }
    const Instruction &last = blk.code.back();
    if (detail::starts(last.opcode, "bra")) {
      const std::string target = last.operands.empty() ? "" : last.operands[0];
      auto it = label_block.find(target);
      blk.succ.push_back(it == label_block.end() ? exit : it->second);
      if (!last.guard.empty()) blk.succ.push_back(next);  // conditional: falls through too
    } else if (last.opcode == "ret" || last.opcode == "exit") {
      blk.succ.push_back(exit);
      if (!last.guard.empty()) blk.succ.push_back(next);
    } else {
      blk.succ.push_back(next);
    }
  }
  return g;
}

/// What the barrier check found in one kernel.
struct BarrierReport {
  std::string kernel;
  int barriers = 0;                   ///< block barriers in the kernel's own code
  std::vector<std::string> problems;  ///< one sentence per divergent branch that skips a barrier
};

/// @brief The barrier check of one kernel's graph: registers that depend on the thread (a taint
/// analysis to a fixed point), then every conditional branch on such a register after which a
/// barrier is reachable that does not post-dominate the branch (some threads reach it, others can
/// leave or go round it), and every barrier guarded by such a predicate.
inline BarrierReport check_barriers(const Graph &g) {
  BarrierReport rep;
  rep.kernel = g.name;
  const int n = static_cast<int>(g.blocks.size()), exit = g.exit();
  std::vector<bool> has_barrier(n, false);
  for (int b = 0; b < n; ++b)
    for (const Instruction &ins : g.blocks[b].code)
      if (detail::is_block_barrier(ins.opcode)) {
        has_barrier[b] = true;
        ++rep.barriers;
      }
  if (rep.barriers == 0) return rep;

  // Post-dominators (iterative, sets as bit vectors); the exit node post-dominates only itself.
  std::vector<std::vector<bool>> pdom(n + 1, std::vector<bool>(n + 1, true));
  pdom[exit].assign(n + 1, false);
  pdom[exit][exit] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (int b = n - 1; b >= 0; --b) {
      std::vector<bool> s(n + 1, true);
      for (int t : g.blocks[b].succ)
        for (int i = 0; i <= n; ++i) s[i] = s[i] && pdom[t][i];
      s[b] = true;
      if (s != pdom[b]) {
        pdom[b] = s;
        changed = true;
      }
    }
  }
  // reach[b][c]: block c can run after block b (through b's successors).
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n + 1, false));
  for (int start = 0; start < n; ++start) {
    std::vector<int> todo(g.blocks[start].succ.begin(), g.blocks[start].succ.end());
    while (!todo.empty()) {
      const int b = todo.back();
      todo.pop_back();
      if (reach[start][b]) continue;
      reach[start][b] = true;
      if (b < n) todo.insert(todo.end(), g.blocks[b].succ.begin(), g.blocks[b].succ.end());
    }
  }
  // Control dependence: block c depends on the branch ending block b when c post-dominates one of
  // b's successors but not b itself (whether c runs is decided there); closed transitively, so a
  // barrier under a uniform `if` inside a thread-dependent `if` depends on the outer branch too.
  std::vector<std::vector<bool>> depends(n, std::vector<bool>(n, false));
  for (int b = 0; b < n; ++b)
    if (g.blocks[b].succ.size() > 1)
      for (int s : g.blocks[b].succ)
        for (int c = 0; c < n; ++c)
          if (pdom[s][c] && !pdom[b][c]) depends[b][c] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < n; ++c)
        if (depends[b][c] && c != b)
          for (int d = 0; d < n; ++d)
            if (depends[c][d] && !depends[b][d]) {
              depends[b][d] = true;
              changed = true;
            }
  }
  auto dependent_blocks = [&](int b) { return depends[b]; };

  // Taint: registers whose value may differ between the threads of the block.
  std::set<std::string> tainted;
  auto is_tainted = [&](const std::string &reg) { return detail::thread_dependent_special(reg) || tainted.count(reg); };
  auto divergent = [&](const Instruction &ins) { return !ins.guard.empty() && is_tainted(ins.guard); };
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<bool> controlled(n, false);  // blocks control-dependent on a divergent branch
    for (int b = 0; b < n; ++b) {
      const Block &blk = g.blocks[b];
      if (!blk.code.empty() && detail::starts(blk.code.back().opcode, "bra") && divergent(blk.code.back())) {
        const std::vector<bool> dep = dependent_blocks(b);
        for (int c = 0; c < n; ++c) controlled[c] = controlled[c] || dep[c];
      }
    }
    for (int b = 0; b < n; ++b)
      for (const Instruction &ins : g.blocks[b].code) {
        if (detail::writes_nothing(ins.opcode) || ins.operands.empty()) continue;
        bool t = controlled[b] || divergent(ins) || detail::thread_dependent_result(ins.opcode);
        if (detail::starts(ins.opcode, "ld.param") && ins.text.find("retval") != std::string::npos) t = true;
        for (std::size_t i = 1; i < ins.operands.size() && !t; ++i)  // sources (a load: its address)
          for (const std::string &r : detail::registers(ins.operands[i])) t = t || is_tainted(r);
        if (detail::starts(ins.opcode, "bar.red")) t = false;  // the same result in every thread
        if (!t) continue;
        for (const std::string &r : detail::registers(ins.operands[0]))  // "%r1", "{%r1, %r2}", "%p1|%p2"
          if (!tainted.count(r)) {
            tainted.insert(r);
            changed = true;
          }
      }
  }

  // The findings.
  for (int b = 0; b < n; ++b) {
    for (const Instruction &ins : g.blocks[b].code)
      if (detail::is_block_barrier(ins.opcode) && divergent(ins))
        rep.problems.push_back("the barrier `" + ins.text + "` is guarded by " + ins.guard +
                               ", which depends on the thread: only some threads of the block execute it");
    if (g.blocks[b].code.empty()) continue;
    const Instruction &last = g.blocks[b].code.back();
    const bool branch = detail::starts(last.opcode, "bra") || last.opcode == "ret" || last.opcode == "exit";
    if (!branch || !divergent(last)) continue;
    for (int c = 0; c < n; ++c) {
      if (!has_barrier[c]) continue;
      // A loop: the barrier and the branch on one cycle, and a successor of the branch that can
      // never come back to the barrier (the loop's exit).
      bool loop = false;
      if (reach[b][c] && reach[c][b])
        for (int s : g.blocks[b].succ) loop = loop || (s != c && (s == exit || !reach[s][c]));
      if (!depends[b][c] && !loop) continue;
      std::string barrier;
      for (const Instruction &ins : g.blocks[c].code)
        if (detail::is_block_barrier(ins.opcode) && barrier.empty()) barrier = ins.text;
      rep.problems.push_back(
          "the branch `" + last.text + "` depends on the thread (its predicate derives from threadIdx/laneid), and " +
          (loop ? "the barrier `" + barrier +
                      "` is inside a loop whose exit it decides: threads that leave the loop early skip the "
                      "barrier the others wait at"
                : "after it some threads reach the barrier `" + barrier +
                      "` while others can skip it or return: an early `if (...) return;` before "
                      "__syncthreads(), or a barrier inside `if (threadIdx.x < ...)`"));
      break;  // one message per branch
    }
  }
  return rep;
}

/// @brief The barrier check of every kernel in the PTX file at @p path (kernels without block
/// barriers pass and are reported with barriers == 0). Sets @p error when the file cannot be read.
inline std::vector<BarrierReport> check_barriers_in_file(const std::string &path, std::string *error = nullptr) {
  std::ifstream in(path);
  if (!in) {
    if (error) *error = "cannot read the PTX of the student's code at " + path + " (the build writes it)";
    return {};
  }
  const std::vector<ptx_code::detail::Function> all = ptx_code::detail::functions(in);
  // Functions that hold a block barrier, directly or through the functions they call.
  std::set<std::string> with_barrier;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto &f : all) {
      if (f.entry || with_barrier.count(f.name)) continue;
      bool has = false;
      for (const std::string &line : f.body) {
        const Instruction ins = detail::parse(line);
        const std::string op = ins.opcode;
        has = has || detail::is_block_barrier(op);
        for (const std::string &w : with_barrier)
          has = has || (detail::starts(op, "call") && line.find(w) != std::string::npos);
      }
      if (has) {
        with_barrier.insert(f.name);
        changed = true;
      }
    }
  }
  std::vector<BarrierReport> out;
  for (const auto &f : all)
    if (f.entry) out.push_back(check_barriers(build_graph(f.name, f.body, with_barrier)));
  return out;
}

namespace detail {

/// A shared-memory address operand ("[%r5+64]") as its base register and byte offset.
struct SharedAddress {
  bool ok = false;  ///< the operand has that form
  std::string base;
  long offset = 0;
};

inline SharedAddress shared_address(const std::string &operand) {
  static const std::regex form("^\\[\\s*([^+\\-\\s\\]]+)\\s*(?:([+\\-])\\s*([0-9]+))?\\s*\\]$");
  std::smatch m;
  SharedAddress a;
  if (!std::regex_match(operand, m, form)) return a;
  a.ok = true;
  a.base = m[1];
  if (m[3].matched) a.offset = (m[2] == "-" ? -1 : 1) * std::stol(m[3]);
  return a;
}

/// Bytes one lane moves with a load or store opcode ("st.shared.v2.u32" -> 8), 4 when unsure.
inline long access_bytes(const std::string &op) {
  std::smatch m;
  long lanes = 1, bits = 32;
  if (std::regex_search(op, m, std::regex("\\.v([248])\\."))) lanes = std::stol(m[1]);
  if (std::regex_search(op, m, std::regex("\\.[busf](8|16|32|64)$"))) bits = std::stol(m[1]);
  return lanes * bits / 8;
}

inline bool shared_access(const Instruction &ins, const char *kind) {
  return starts(ins.opcode, kind) && ins.opcode.find(".shared") != std::string::npos;
}

/// After the kernel's last block barrier (the whole kernel if there is none), the first unguarded
/// shared-memory store that follows a shared-memory load of another lane's element (same base
/// register, an offset below 32 elements) with no barrier or __syncwarp() between them: "" when
/// there is none, else the two instructions. The CUDA Programming Guide's "incorrect use of
/// __syncwarp()": `s[tid] += s[tid + 16]; __syncwarp();` lets lane t + 16 write s[t + 16] in the
/// same step in which lane t reads it; racecheck does not report it. A step behind a branch or a
/// predicate (`if (tid < 16)`: the lanes that read are not those that write) is not flagged.
inline std::string unsynced_warp_step(const ptx_code::Kernel &k) {
  std::vector<Instruction> code;
  std::size_t from = 0;
  for (const std::string &line : k.lines) {
    code.push_back(parse(line));
    if (is_block_barrier(code.back().opcode)) from = code.size();
  }
  std::vector<const Instruction *> loads;  // shared loads since the last barrier or __syncwarp()
  bool guarded = false;                    // a branch since then: the next step may run in some lanes only
  for (std::size_t i = from; i < code.size(); ++i) {
    const Instruction &ins = code[i];
    const std::string &op = ins.opcode;
    if (starts(op, "bar.") || starts(op, "barrier.")) {
      loads.clear();
      guarded = false;
    } else if (starts(op, "bra") || op == "ret" || op == "exit" || starts(op, "call")) {
      guarded = true;
    } else if (shared_access(ins, "ld.") && ins.operands.size() > 1) {
      loads.push_back(&ins);
    } else if (shared_access(ins, "st.") && !ins.operands.empty()) {
      // A guard covers one step (`if (tid < 16) s[tid] += s[tid + 16];`), not the steps after it.
      if (std::exchange(guarded, false) || !ins.guard.empty()) continue;
      // Lane t stores at base + t * size; a load at base + t * size + d reads what lane t + d / size
      // stores, which another lane of the warp does when 0 < |d| < 32 * size.
      const SharedAddress to = shared_address(ins.operands[0]);
      const long size = access_bytes(op);
      for (const Instruction *ld : loads) {
        const SharedAddress from_load = shared_address(ld->operands[1]);
        if (!to.ok || !from_load.ok || to.base != from_load.base) continue;  // different bases: cannot tell
        const long d = from_load.offset - to.offset;
        if (d != 0 && d < 32 * size && -d < 32 * size)
          return "`" + ld->text + "` then `" + ins.text + "` in the same warp step, with no __syncwarp() between";
      }
    }
  }
  return "";
}

}  // namespace detail

/// @brief The warp-step check for every kernel of the PTX file at @p path: {kernel, the two
/// instructions} for each kernel where, after its last block barrier, a warp step writes shared
/// memory that another lane of the step still reads (detail::unsynced_warp_step).
inline std::vector<std::pair<std::string, std::string>> warp_step_hazards_in_file(const std::string &path) {
  std::ifstream in(path);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto &f : ptx_code::detail::functions(in)) {
    if (!f.entry) continue;
    const ptx_code::Kernel k = ptx_code::kernel(path, {f.name});
    if (!k.found) continue;
    const std::string hazard = detail::unsynced_warp_step(k);
    if (!hazard.empty()) out.emplace_back(k.name, hazard);
  }
  return out;
}

/// @brief The "barrier_kernels" rule for one kernel of the PTX file at @p path: "" when the kernel
/// has a block barrier, or shares data only within warps (a __syncwarp(), or shuffles and no write
/// to shared memory: a neighbour taken with __shfl_up_sync needs no barrier); else why it fails.
inline std::string missing_barrier(const std::string &path, const std::string &symbol) {
  const ptx_code::Kernel code = ptx_code::kernel(path, {symbol});
  if (!code.found) return code.error + ". Check of the compiled code (PTX)";
  int shared_writes = 0, warp_barriers = 0, shuffles = 0;
  for (const std::string &op : code.opcodes) {
    const bool shared = op.find(".shared") != std::string::npos;
    shared_writes += shared && (detail::starts(op, "st.") || detail::starts(op, "atom.") || detail::starts(op, "red."));
    warp_barriers += detail::starts(op, "bar.warp.sync");
    shuffles += detail::starts(op, "shfl.");
  }
  if (ptx_code::block_barriers(code) > 0 || warp_barriers > 0 || (shuffles > 0 && shared_writes == 0)) return "";
  if (shared_writes > 0)
    return code.name + " writes shared memory (" + std::to_string(shared_writes) +
           " stores or atomics) but has no barrier in its compiled code: no __syncthreads() between the writes and "
           "the other threads' reads (nor a __syncwarp() where the data stays in one warp). Check of the compiled "
           "code (PTX)";
  return code.name +
         " has no block barrier (__syncthreads()) in its compiled code and shares no data between "
         "threads (no shared memory, no warp shuffle); the lab's technique needs one. Check of the "
         "compiled code (PTX)";
}

/// The lab's declarations, generated from its grading.json by cmake/CudaLab.cmake (<lab>_technique.cpp).
namespace generated {
/// @brief The PTX files of the student's sources (as the lab builds them: labs/ or solutions/).
const std::vector<std::string> &student_ptx();
/// @brief The "technique" manifest: one entry per kernel (empty when grading.json has none).
const std::vector<Technique> &techniques();
/// @brief "barrier_kernels": symbols of the kernels that must have a block barrier, unless they share data
/// only within warps (a __syncwarp(), or shuffles and no shared memory) (empty: no barrier check).
const std::vector<std::string> &barrier_kernels();
}  // namespace generated

}  // namespace technique
