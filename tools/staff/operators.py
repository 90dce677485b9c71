#!/usr/bin/env python3
"""Operator-based mutation of every function a student writes (the solution regions).

A hand-written mutant (tests/mutants/<lab>/<name>/) is one mistake somebody thought of. The
operators here are the mistakes students make in CUDA, applied at *every* site of the reference
solutions where they can be made: one mutant per site. tools/staff/mutants.py --operators grades
them like the hand-written ones and keeps what it learns in a per-lab ledger
(tests/mutants/<lab>/ledger.json), so nothing is graded twice.

    tools/staff/operators.py [LAB ...]            list the operators' mutants of each lab (no build)
    tools/staff/operators.py --catalogue          the operator catalogue (docs/mutation.md shows it)
    tools/staff/operators.py --score [LAB ...]    the mutation score of each lab, from its ledger
    tools/staff/operators.py --check [LAB ...]    every ledger entry is well formed, every
                                                  "equivalent" survivor has a reason, and every
                                                  launcher the student writes is declared in
                                                  "reports_errors"; exits 1 if not
    tools/staff/operators.py --same-code [LAB ...] record the kernel mutants that nvcc compiles to the
                                                  reference's own PTX (no GPU; they need no grading)

Sites are found in the reference file as a student would have written it (markers removed), in
the lines of its solution regions only, with comments and string literals masked. The code is
clang-formatted, which the operators rely on: a binary operator has a blank on each side
(`a < b`), a template bracket has none (`static_cast<int>`).

Every mutant has a stable id, `<operator>:<function>:<k>` (the k-th site of that operator in that
function, from 1), and the sha256 of the lab files it produces: a ledger entry whose hash no longer
matches (the reference changed) is graded again.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tools/: the shared modules
import labinfo  # noqa: E402
import stubgen  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------------------
# The source as the operators see it


@dataclass
class Function:
    """A function defined in the file: its name, kind and the spans of its header and body."""

    name: str
    kind: str  # "kernel" (__global__), "device" (__device__ only) or "host"
    returns: str  # the header's text before the name (template, qualifiers and return type)
    params: str  # the parameter list's text, without the parentheses
    start: int  # offset of the header's first character
    body: tuple[int, int]  # [start, end) of the braces


@dataclass
class Source:
    """One reference file, markers removed, with the facts every operator needs."""

    name: str  # the file's name in the lab (reduction.cu)
    text: str  # as a student would have written it
    masked: str  # the same length; comments and string/char literals blanked
    solution: list[tuple[int, int]]  # [start, end) offsets of the solution regions' lines
    functions: list[Function] = field(default_factory=list)

    def in_solution(self, start: int, end: int | None = None) -> bool:
        end = start + 1 if end is None else end
        return any(s <= start and end <= e for s, e in self.solution)

    def function_at(self, offset: int) -> Function | None:
        for f in self.functions:
            if f.body[0] < offset < f.body[1]:
                return f
        return None

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1


def mask(text: str) -> str:
    """The text with comments and the contents of string and char literals replaced by blanks
    (newlines kept), so offsets into it are offsets into the text."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = [ch if ch == "\n" else " " for ch in text[i:j]]
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out[i + 1:j] = " " * (j - i - 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def match_close(masked: str, open_at: int) -> int:
    """Offset of the bracket that closes the one at open_at (( [ { or <)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    opener = masked[open_at]
    closer = pairs[opener]
    depth = 0
    for i in range(open_at, len(masked)):
        if masked[i] == opener:
            depth += 1
        elif masked[i] == closer:
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"unbalanced {opener!r} at offset {open_at}")


_NAME_BEFORE_PARAMS = re.compile(r"([A-Za-z_]\w*)\s*$")


def find_functions(masked: str) -> list[Function]:
    """Functions defined at namespace scope: a `{` whose header ends with a parameter list."""
    functions = []
    i, n = 0, len(masked)
    header_start = 0
    while i < n:
        c = masked[i]
        if c == "#":  # a preprocessor line is no part of a header
            j = masked.find("\n", i)
            i = header_start = n if j < 0 else j + 1
            continue
        if c in ";}":
            i += 1
            header_start = i
            continue
        if c == "{":
            header = masked[header_start:i]
            stripped = header.strip()
            if re.match(r"^(namespace\b|extern\s+\"C\")", stripped) or re.match(r"^extern\s*$", stripped):
                i += 1
                header_start = i
                continue
            close = match_close(masked, i)
            h = re.sub(r"\s*(const|noexcept|override)\s*$", "", header.rstrip())
            if h.endswith(")") and "=" not in h.split("(")[0]:
                popen = _find_param_open(h)
                name_m = _NAME_BEFORE_PARAMS.search(header[:popen])
                if name_m:
                    returns = header[:name_m.start()].strip()
                    kind = "kernel" if "__global__" in returns else ("device" if "__device__" in returns and
                                                                      "__host__" not in returns else "host")
                    params = header[popen + 1:len(h) - 1]
                    functions.append(Function(name_m.group(1), kind, " ".join(returns.split()),
                                              " ".join(params.split()), header_start + len(header) - len(header.lstrip()),
                                              (i, close + 1)))
            i = close + 1
            header_start = i
            continue
        i += 1
    return functions


def _find_param_open(h: str) -> int:
    """Offset of the `(` that opens the parameter list at the end of the header h."""
    depth = 0
    for k in range(len(h) - 1, -1, -1):
        if h[k] == ")":
            depth += 1
        elif h[k] == "(":
            depth -= 1
            if depth == 0:
                return k
    return 0


def load_source(path: Path, root: Path = ROOT) -> Source:
    """The reference file, markers removed, with its solution regions and functions."""
    reference = stubgen.read_reference(path, root)
    rel = str(path.relative_to(root))
    lines = stubgen.scan(reference, rel)
    text_parts: list[str] = []
    solution: list[tuple[int, int]] = []
    offset = 0
    for kind, line, _ in lines:
        if kind in ("begin", "end", "stub"):
            continue
        if kind == "solution":
            if solution and solution[-1][1] == offset:
                solution[-1] = (solution[-1][0], offset + len(line))
            else:
                solution.append((offset, offset + len(line)))
        text_parts.append(line)
        offset += len(line)
    text = "".join(text_parts)
    masked = mask(text)
    return Source(path.name, text, masked, solution, find_functions(masked))


# ---------------------------------------------------------------------------------------------
# Operators


@dataclass
class Site:
    """One place an operator changes: text[start:end] becomes `new`."""

    start: int
    end: int
    new: str


@dataclass
class Operator:
    """A kind of mistake, and where it can be made."""

    id: str
    models: str  # the student's mistake it stands for
    applies_to: str  # kernel/device code, host code, or both
    sites: Callable[[Source, Function], Iterable[Site]]


def _calls(src: Source, func: Function, pattern: str, new: str) -> Iterable[Site]:
    """Each match of pattern (a call, with its argument list matched) inside the function's
    solution lines, replaced by `new` ({args} is the argument list's text)."""
    for m in re.finditer(pattern, src.masked[func.body[0]:func.body[1]]):
        start = func.body[0] + m.start()
        open_at = func.body[0] + m.end() - 1
        close = match_close(src.masked, open_at)
        if src.in_solution(start, close + 1):
            yield Site(start, close + 1, new.format(args=src.text[open_at + 1:close]))


def _is_device(func: Function) -> bool:
    return func.kind in ("kernel", "device")


def sites_block_barrier(src, func):
    if _is_device(func):
        yield from _calls(src, func, r"\b__syncthreads\s*\(", "(void)0")


def sites_warp_barrier(src, func):
    if _is_device(func):
        yield from _calls(src, func, r"\b__syncwarp\s*\(", "(void)0")


def sites_fence(src, func):
    if _is_device(func):
        yield from _calls(src, func, r"\b__threadfence(_block|_system)?\s*\(", "(void)0")


_SIZE_PARAM = re.compile(r"\b(?:unsigned\s+int|unsigned|int|size_t|std::size_t|long\s+long|int64_t)\s+"
                         r"(n|N|count|size|len|length|num\w*|nx|n_elements|elements)\s*(?:,|$)")


def sites_early_exit(src, func):
    """`if (blockIdx.x * blockDim.x + threadIdx.x >= n) return;` at the top of a kernel that has a
    block barrier: the seeds' pattern, which leaves the barrier to the threads that stayed."""
    if func.kind != "kernel":
        return
    body = src.masked[func.body[0]:func.body[1]]
    m = _SIZE_PARAM.search(func.params)
    if not m or "__syncthreads" not in body:
        return
    first = next((s for s, e in src.solution if func.body[0] < s < func.body[1]), None)
    if first is None:
        return
    indent = re.match(r"[ \t]*", src.text[first:]).group(0)
    yield Site(first, first, f"{indent}if (blockIdx.x * blockDim.x + threadIdx.x >= {m.group(1)}) return;\n")


def _condition_spans(src: Source, func: Function) -> Iterable[tuple[int, int]]:
    """[start, end) of every if/while condition and for-loop test in the function's solution lines."""
    body0, body1 = func.body
    for m in re.finditer(r"\b(if|while|for)\s*\(", src.masked[body0:body1]):
        open_at = body0 + m.end() - 1
        close = match_close(src.masked, open_at)
        if not src.in_solution(body0 + m.start(), close + 1):
            continue
        if m.group(1) == "for":
            inner = src.masked[open_at + 1:close]
            parts = _split_top(inner, ";")
            if len(parts) != 3:
                continue
            s = open_at + 1 + parts[0][1] + 1
            yield s, open_at + 1 + parts[1][1]
        else:
            yield open_at + 1, close


def _split_top(text: str, sep: str) -> list[tuple[int, int]]:
    """[start, end) of the pieces of text between top-level (unbracketed) separators."""
    pieces, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            pieces.append((start, i))
            i += len(sep)
            start = i
            continue
        i += 1
    pieces.append((start, len(text)))
    return pieces


_RELATIONAL = {" < ": " <= ", " <= ": " < ", " > ": " >= ", " >= ": " > "}


def sites_relational(src, func):
    """Each relational operator of a condition moved by one: < and <=, > and >=."""
    for s, e in _condition_spans(src, func):
        for m in re.finditer(r" (<=|>=|<|>) ", src.masked[s:e]):
            yield Site(s + m.start(), s + m.end(), _RELATIONAL[m.group(0)])


def sites_drop_operand(src, func):
    """Each operand of a condition's && or || chain left out, at every level of parentheses."""
    for s, e in _condition_spans(src, func):
        yield from _drop_operands(src, s, e)


def _drop_operands(src: Source, s: int, e: int) -> Iterable[Site]:
    text = src.masked[s:e]
    for op in ("&&", "||"):
        pieces = _split_top(text, op)
        if len(pieces) > 1:
            for k, (ps, pe) in enumerate(pieces):
                if k == 0:
                    cut = (s + ps, s + pieces[1][0])  # the operand and the operator after it
                else:
                    cut = (s + pieces[k - 1][1], s + pe)  # the operator before it and the operand
                yield Site(cut[0], cut[1], "")
            break
    for m in re.finditer(r"\(", text):  # parenthesised sub-conditions
        open_at = s + m.start()
        close = match_close(src.masked, open_at)
        inner = src.masked[open_at + 1:close]
        if ("&&" in inner or "||" in inner) and close < e and not re.search(r"\w\s*$", src.masked[s:open_at]):
            yield from _drop_operands(src, open_at + 1, close)


_WIDE = [(r"\bunsigned long long\b", "unsigned int"), (r"\blong long\b", "int"), (r"\bstd::size_t\b", "unsigned int"),
         (r"\bsize_t\b", "unsigned int"), (r"\bu?int64_t\b", "int"), (r"\bptrdiff_t\b", "int")]


def sites_narrow(src, func):
    """Each 64-bit integer type (declaration or cast) in a kernel, device function or host model
    made 32-bit: an index, address or count that overflows past 2^31 (the host code's signed
    overflow is also stopped by the labs' undefined-behaviour checks, CUDALAB_HOST_UBSAN)."""
    body0, body1 = func.body
    taken: set[int] = set()
    for pattern, new in _WIDE:
        for m in re.finditer(pattern, src.masked[body0:body1]):
            s = body0 + m.start()
            if s in taken or not src.in_solution(s, body0 + m.end()):
                continue
            taken.update(range(s, body0 + m.end()))
            yield Site(s, body0 + m.end(), new)


def sites_status_success(src, func):
    """Each `return <status>;` of a function that returns cudaError_t made `return cudaSuccess;`."""
    if "cudaError_t" not in func.returns.split():
        return
    for m in re.finditer(r"\breturn\s+([^;]+);", src.masked[func.body[0]:func.body[1]]):
        s = func.body[0] + m.start()
        if src.in_solution(s, func.body[0] + m.end()) and m.group(1).strip() != "cudaSuccess":
            yield Site(func.body[0] + m.start(1), func.body[0] + m.end(1), "cudaSuccess")


def sites_no_error_query(src, func):
    if not _is_device(func):
        yield from _calls(src, func, r"\bcudaGetLastError\s*\(", "cudaSuccess")


def sites_peek(src, func):
    if not _is_device(func):
        yield from _calls(src, func, r"\bcudaGetLastError\s*\(", "cudaPeekAtLastError()")


def sites_no_wait(src, func):
    if not _is_device(func):
        yield from _calls(src, func, r"\bcuda(Device|Stream)Synchronize\s*\(", "cudaSuccess")


def _launches(src: Source, func: Function) -> Iterable[tuple[int, list[tuple[int, int]]]]:
    for m in re.finditer(r"<<<", src.masked[func.body[0]:func.body[1]]):
        s = func.body[0] + m.end()
        e = src.masked.find(">>>", s)
        if e < 0 or not src.in_solution(s, e):
            continue
        yield s, [(s + a, s + b) for a, b in _split_top(src.masked[s:e], ",")]


def sites_launch_grid(src, func):
    """The grid of each launch made one block."""
    for _, args in _launches(src, func):
        a, b = args[0]
        if src.text[a:b].strip() != "1":
            yield Site(a, b, "1")


def sites_launch_block(src, func):
    """The block of each launch made one warp (a 1D block of 32 threads)."""
    for _, args in _launches(src, func):
        if len(args) > 1:
            a, b = args[1]
            if src.text[a:b].strip() != "32":
                yield Site(a, b, " 32")


def sites_baseline_body(src, func):
    """A kernel given the body of an earlier kernel of the file with the same parameters: one
    kernel's code submitted in another's slot (a baseline in the optimised slot)."""
    if func.kind != "kernel" or not src.in_solution(func.body[0] + 1, func.body[1] - 1) and not any(
            func.body[0] < s and e <= func.body[1] for s, e in src.solution):
        return
    for other in src.functions:
        if other is func:
            break
        if other.kind == "kernel" and other.params == func.params and "template" not in other.returns + func.returns:
            if src.text[other.body[0]:other.body[1]] != src.text[func.body[0]:func.body[1]]:
                yield Site(func.body[0], func.body[1], src.text[other.body[0]:other.body[1]])


_STRINGY = re.compile(r'"\s*$|\b(std::string|std::to_string|to_string|cudaGetErrorString|cudaGetErrorName|'
                      r'\w+\.str)\s*\(')


def sites_arithmetic(src, func):
    """In host code (the models and calculators), each + and - swapped, each * and / swapped."""
    if _is_device(func):
        return
    body0, body1 = func.body
    swap = {" + ": " - ", " - ": " + ", " * ": " / ", " / ": " * "}
    for m in re.finditer(r" [-+*/] ", src.masked[body0:body1]):
        s = body0 + m.start()
        before = src.masked[max(body0, s - 1)]
        if before in "=(,<>!&|?:" or not src.in_solution(s, s + 3):
            continue  # a unary operator or a pointer declaration, not a binary operator
        after = src.masked[s + 3:s + 40]
        if m.group(0) == " + " and (src.masked[:s].rstrip().endswith(('"', ")")) and _STRINGY.search(
                src.text[max(body0, s - 60):s]) or after.startswith('"') or _STRINGY.match(after)):
            continue  # string concatenation: `-` on strings does not compile
        if m.group(0) == " * " and re.search(r"(const|\w)\s*$", src.masked[body0:s]) and \
                re.match(r"\s*\*\s*[A-Za-z_]\w*\s*[=;,)]", src.masked[s:s + 40]) and \
                re.search(r"\b(int|float|double|char|void|auto|unsigned|size_t|\w+_t)\s*$", src.masked[body0:s]):
            continue  # `int * p = ...`: a declaration
        yield Site(s, s + 3, swap[m.group(0)])


def sites_accumulate(src, func):
    """In kernels, each `+=` made `=`: a sum that keeps only its last term."""
    if not _is_device(func):
        return
    for m in re.finditer(r" \+= ", src.masked[func.body[0]:func.body[1]]):
        s = func.body[0] + m.start()
        if src.in_solution(s, s + 4):
            yield Site(s, s + 4, " = ")


def sites_plain_atomic(src, func):
    """Each atomicAdd made a plain read-modify-write: the race that atomics exist for."""
    if not _is_device(func):
        return
    for site in _calls(src, func, r"\batomicAdd(_block|_system)?\s*\(", "{args}"):
        args = site.new
        pieces = _split_top(mask(args), ",")
        if len(pieces) == 2:
            p, v = (args[a:b].strip() for a, b in pieces)
            yield Site(site.start, site.end, f"(*({p}) += ({v}))")


def sites_dimension(src, func):
    """In kernels that use two dimensions, each .x of threadIdx/blockIdx/blockDim made .y and each
    .y made .x: a 2D index or guard that mixes up its axes."""
    if not _is_device(func):
        return
    body = src.masked[func.body[0]:func.body[1]]
    if not re.search(r"\b(threadIdx|blockIdx)\.y\b", body):
        return
    for m in re.finditer(r"\b(threadIdx|blockIdx|blockDim|gridDim)\.([xy])\b", body):
        s = func.body[0] + m.start(2)
        if src.in_solution(s, s + 1):
            yield Site(s, s + 1, "y" if m.group(2) == "x" else "x")


def sites_loop_bound(src, func):
    """Each `for` loop whose test compares with an integer literal stops one earlier: a check
    that skips its last dimension, a loop that leaves out its last step."""
    for s, e in _condition_spans(src, func):
        if src.masked[:s].rstrip().endswith(";"):  # a for loop's test (after its init)
            m = re.search(r" (<|<=|!=) (\d+)\s*$", src.masked[s:e])
            if m and int(m.group(2)) > 0:
                a = s + m.start(2)
                yield Site(a, a + len(m.group(2)), str(int(m.group(2)) - 1))


OPERATORS = [
    Operator("no_block_barrier", "a __syncthreads() left out", "kernels", sites_block_barrier),
    Operator("no_warp_barrier", "a __syncwarp() left out (warp-synchronous code without its barrier)", "kernels",
             sites_warp_barrier),
    Operator("no_fence", "a __threadfence() left out (another block reads before the write is visible)", "kernels",
             sites_fence),
    Operator("early_exit", "the seeds' `if (idx >= n) return;` before the block barriers", "kernels with a barrier",
             sites_early_exit),
    Operator("relational", "an off-by-one guard or loop test: < for <=, > for >= and back", "both",
             sites_relational),
    Operator("drop_operand", "one part of a guard left out (`idx < n` without `tid < stride`, a check that "
             "skips one dimension)", "both", sites_drop_operand),
    Operator("narrow_64", "a 64-bit index, address or count declared 32-bit (wrong past 2^31)", "both",
             sites_narrow),
    Operator("no_error_query", "the launch's error never read (cudaGetLastError() left out)", "host",
             sites_no_error_query),
    Operator("peek_error", "the launch's error read but left pending (cudaPeekAtLastError)", "host", sites_peek),
    Operator("no_wait", "no wait for the kernel whose faults the function reports (no synchronize)", "host",
             sites_no_wait),
    Operator("status_success", "a function that promises an error returns cudaSuccess without asking", "host",
             sites_status_success),
    Operator("launch_grid", "a launch that ignores its grid (one block)", "host", sites_launch_grid),
    Operator("launch_block", "a launch that ignores its block (one warp)", "host", sites_launch_block),
    Operator("baseline_body", "an earlier kernel's code submitted in a later kernel's slot", "kernels",
             sites_baseline_body),
    Operator("arithmetic", "a wrong formula in a model or calculator: + for -, * for / and back", "host",
             sites_arithmetic),
    Operator("accumulate", "a sum that keeps only its last term: = for +=", "kernels", sites_accumulate),
    Operator("plain_atomic", "an atomicAdd written as a plain read-modify-write", "kernels", sites_plain_atomic),
    Operator("dimension", "x and y mixed up in a 2D kernel", "kernels", sites_dimension),
    Operator("loop_bound", "a loop over dimensions or steps that stops one early", "both", sites_loop_bound),
]
BY_ID = {op.id: op for op in OPERATORS}


# ---------------------------------------------------------------------------------------------
# Mutants


@dataclass
class Mutant:
    """One operator applied at one site."""

    lab: str
    id: str  # operator:function:k
    operator: str
    function: str
    file: str
    line: int
    before: str  # the text the site changes (one line, shortened)
    after: str
    files: dict[PurePosixPath, bytes]  # the lab files a student would hand in
    sha: str  # of those files
    kind: str = "host"  # the mutated function's kind: "kernel", "device" or "host"

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line} {self.function}"


def _shorten(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def lab_sources(lab: str, root: Path = ROOT) -> list[Source]:
    """The lab's declared sources as the operators see them."""
    sources = []
    for name in labinfo.read_lab(lab, root).sources:
        path = root / "solutions" / lab / name
        if path.is_file():
            sources.append(load_source(path, root))
    return sources


def mutants_of(lab: str, root: Path = ROOT, operators: list[str] | None = None) -> list[Mutant]:
    """Every operator's mutants of the lab, in file, function and site order."""
    sources = lab_sources(lab, root)
    originals = {s.name: s.text for s in sources}
    out = []
    shas: set[str] = set()  # two operators that make the same file make one mutant (the first)
    for src in sources:
        for func in src.functions:
            if not any(func.body[0] < s < func.body[1] for s, _ in src.solution):
                continue  # nothing of it is the student's
            for op in OPERATORS:
                if operators and op.id not in operators:
                    continue
                seen: set[tuple[int, int, str]] = set()
                k = 0
                for site in op.sites(src, func):
                    key = (site.start, site.end, site.new)
                    if key in seen:
                        continue
                    seen.add(key)
                    text = src.text[:site.start] + site.new + src.text[site.end:]
                    if text == src.text:
                        continue
                    k += 1  # ids count sites, so a duplicate left out does not renumber the rest
                    files = dict(originals)
                    files[src.name] = text
                    data = {PurePosixPath(lab, n): t.encode() for n, t in sorted(files.items())}
                    sha = hashlib.sha256(b"".join(bytes(str(p), "utf-8") + b"\0" + d for p, d in data.items()))
                    if sha.hexdigest() in shas:
                        continue
                    shas.add(sha.hexdigest())
                    line_start = src.text.rfind("\n", 0, site.start) + 1
                    line_end = src.text.find("\n", site.end)
                    line_end = len(src.text) if line_end < 0 else line_end
                    new_line_end = line_start + (line_end - line_start) + len(site.new) - (site.end - site.start)
                    out.append(Mutant(lab, f"{op.id}:{func.name}:{k}", op.id, func.name, src.name,
                                      src.line_of(site.start),
                                      _shorten(src.text[line_start:line_end]),
                                      _shorten(text[line_start:new_line_end]) if "\n" not in site.new
                                      else _shorten(site.new), data, sha.hexdigest()[:16], func.kind))
    return out


# ---------------------------------------------------------------------------------------------
# The ledger: tests/mutants/<lab>/ledger.json


LEDGER_RESULTS = ("killed", "survived", "stillborn", "same_code")

#: The architectures whose PTX must be identical for a mutant to count as the reference's own code:
#: the oldest the labs support and a current one (nvcc's optimiser is the same; the PTX ISA differs).
SAME_CODE_ARCHS = ("sm_75", "sm_90")


class LedgerError(Exception):
    """A ledger that cannot be read: nothing is graded or written over it."""


def ledger_path(lab: str, root: Path = ROOT) -> Path:
    return root / "tests" / "mutants" / lab / "ledger.json"


def support_files(lab: str, root: Path = ROOT) -> list[Path]:
    """The files of tests/support/ that grade the lab: those whose name the lab's test folder or
    cmake/ mentions, and those the files found mention, transitively (a name that merely contains
    another counts it too: hashing a file too many only grades a mutant again)."""
    support = root / "tests" / "support"
    files = {p.name: p for p in sorted(support.rglob("*")) if p.is_file()} if support.is_dir() else {}
    texts = [p.read_text(errors="replace") for base in (root / "tests" / lab, root / "cmake")
             for p in (sorted(base.rglob("*")) if base.is_dir() else []) if p.is_file()]
    used: set[str] = set()
    while texts:
        text = texts.pop()
        for name, p in files.items():
            if name not in used and name in text:
                used.add(name)
                texts.append(p.read_text(errors="replace"))
    return [files[name] for name in sorted(used)]


def tests_sha(lab: str, root: Path = ROOT) -> str:
    """A hash of what grades the lab: its test folder and the shared code (common/: the harness,
    the timing, the checks; cmake/; the files of tests/support/ it uses; the kernel tracer's sources). A survivor is graded again when this changes (a new check may
    kill it); a killed mutant is not."""
    h = hashlib.sha256()
    for base in (root / "tests" / lab, root / "common", root / "cmake"):
        for p in sorted(base.rglob("*")) if base.is_dir() else []:
            if p.is_file():
                h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    for p in support_files(lab, root):
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    # The kernel tracer's race check (SanitizeAll.globalrace): its sources, not its pictures.
    tracer = root / "tools" / "tracer"
    for p in sorted(tracer.glob("*")) if tracer.is_dir() else []:
        if p.is_file() and (p.suffix in (".h", ".hpp", ".cpp", ".cu") or p.name == "CMakeLists.txt"):
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def load_ledger(lab: str, root: Path = ROOT) -> dict:
    path = ledger_path(lab, root)
    if not path.is_file():
        return {"lab": lab, "mutants": {}, "equivalent": {}}
    try:
        data = json.loads(path.read_text())
    except ValueError as e:
        raise LedgerError(f"{path}: not valid JSON ({e}); fix or remove it (tools/staff/operators.py --check)") \
            from None
    if not isinstance(data, dict):
        raise LedgerError(f"{path}: a JSON object is required (tools/staff/operators.py --check)")
    data.setdefault("mutants", {})
    data.setdefault("equivalent", {})
    return data


def save_ledger(lab: str, ledger: dict, root: Path = ROOT) -> None:
    path = ledger_path(lab, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    ordered = {"lab": lab,
               "about": "Operator mutants of this lab's reference (tools/staff/operators.py, docs/mutation.md): "
                        "the result of each as last graded, and the reason each equivalent survivor cannot be killed.",
               "mutants": dict(sorted(ledger.get("mutants", {}).items())),
               "equivalent": dict(sorted(ledger.get("equivalent", {}).items()))}
    path.write_text(json.dumps(ordered, indent=1, ensure_ascii=False) + "\n")


def needs_grading(m: Mutant, ledger: dict, tests: str) -> bool:
    """Not yet graded with these sources; or a survivor and the tests changed since."""
    entry = ledger.get("mutants", {}).get(m.id)
    if not entry or entry.get("sha") != m.sha:
        return True
    if entry.get("result") == "survived" and entry.get("tests") != tests and m.id not in ledger.get("equivalent", {}):
        return True
    return False


def device_code(lab: str, files: dict[PurePosixPath, bytes], nvcc: str, root: Path = ROOT) -> list[str] | None:
    """The PTX nvcc makes of the lab's .cu files for each of SAME_CODE_ARCHS, comments and the
    file's own name left out; None if a file does not compile."""
    import subprocess
    import tempfile
    separable = "SEPARABLE" in (root / "tests" / lab / "CMakeLists.txt").read_text() \
        if (root / "tests" / lab / "CMakeLists.txt").is_file() else False
    out = []
    with tempfile.TemporaryDirectory(prefix="same-code-") as tmp:
        d = Path(tmp)
        for rel, data in files.items():
            (d / rel.name).write_bytes(data)
        for rel in sorted(files):
            if rel.suffix != ".cu":
                continue
            for arch in SAME_CODE_ARCHS:
                cmd = [nvcc, "-ptx", f"-arch={arch}", "-std=c++17", "--expt-relaxed-constexpr", "-I", str(d),
                       "-I", str(root / "labs" / lab), "-I", str(root / "common" / "include"), str(d / rel.name),
                       "-o", str(d / "out.ptx")] + (["-rdc=true"] if separable else [])
                if subprocess.run(cmd, capture_output=True).returncode != 0:
                    return None
                out.append(re.sub(r"//[^\n]*", "", (d / "out.ptx").read_text()))
    return out


def same_code(lab: str, nvcc: str, root: Path = ROOT, jobs: int = 2, report=print) -> int:
    """Trivial compiler equivalence: every mutant of a kernel or device function that the ledger
    has not killed, and for which nvcc emits exactly the reference's PTX (SAME_CODE_ARCHS), is
    the reference's own program. It is recorded as "same_code" and never needs a GPU. Returns how
    many were recorded."""
    from concurrent.futures import ThreadPoolExecutor
    ledger = load_ledger(lab, root)
    todo = []
    for m in mutants_of(lab, root):
        entry = ledger["mutants"].get(m.id)
        if m.kind == "host" or (entry and entry.get("sha") == m.sha and entry.get("result") != "survived"):
            continue
        if m.id in ledger["equivalent"]:
            continue
        todo.append(m)
    if not todo:
        return 0
    reference = {PurePosixPath(lab, src.name): src.text.encode() for src in lab_sources(lab, root)}
    want = device_code(lab, reference, nvcc, root)
    if want is None:
        report(f"{lab}: the reference does not compile with {nvcc}; nothing compared")
        return 0
    found = 0
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        for m, code in zip(todo, pool.map(lambda m: device_code(lab, m.files, nvcc, root), todo)):
            if code is None or code != want:
                continue
            found += 1
            ledger["mutants"][m.id] = {
                "sha": m.sha, "where": m.where, "before": m.before, "after": m.after, "result": "same_code",
                "points": "", "first_lost": f"nvcc emits the reference's PTX ({', '.join(SAME_CODE_ARCHS)})",
                "tests": "", "gpu": ""}
            report(f"same code  {lab}/{m.id}: {m.before} -> {m.after}")
    if found:
        save_ledger(lab, ledger, root)
    return found


def record(ledger: dict, m: Mutant, result: str, points: str, first: str, tests: str, gpu: str) -> None:
    ledger.setdefault("mutants", {})[m.id] = {
        "sha": m.sha, "where": m.where, "before": m.before, "after": m.after, "result": result,
        "points": points, "first_lost": first, "tests": tests, "gpu": gpu}


def score(lab: str, root: Path = ROOT) -> dict:
    """Counts of the lab's current mutants by what the ledger says of them."""
    mutants = mutants_of(lab, root)
    ledger = load_ledger(lab, root)
    counts = {"mutants": len(mutants), "killed": 0, "survived": 0, "equivalent": 0, "stillborn": 0, "ungraded": 0,
              "older_tests": 0}
    tests = tests_sha(lab, root)
    for m in mutants:
        entry = ledger["mutants"].get(m.id)
        if not entry or entry.get("sha") != m.sha:
            counts["ungraded"] += 1
        elif (entry["result"] == "survived" and m.id in ledger["equivalent"]) or entry["result"] == "same_code":
            counts["equivalent"] += 1
        else:
            counts[entry["result"]] += 1
            if entry["result"] == "survived" and entry.get("tests") != tests:
                counts["older_tests"] += 1  # graded before the lab's tests last changed: graded again next run
    graded = counts["killed"] + counts["survived"]
    counts["score"] = counts["killed"] / graded if graded else None
    return counts


def check_ledger(lab: str, root: Path = ROOT) -> list[str]:
    """Problems of the lab's ledger ([] if none)."""
    path = ledger_path(lab, root)
    if not path.is_file():
        return []
    try:
        ledger = json.loads(path.read_text())
    except ValueError as e:
        return [f"{path.relative_to(root)}: not valid JSON: {e}"]
    problems = []
    ids = {m.id for m in mutants_of(lab, root)}
    for mid, entry in ledger.get("mutants", {}).items():
        if not isinstance(entry, dict) or entry.get("result") not in LEDGER_RESULTS or not entry.get("sha"):
            problems.append(f"{path.relative_to(root)}: mutant {mid}: needs sha and a result in {LEDGER_RESULTS}")
    for mid, why in ledger.get("equivalent", {}).items():
        if not isinstance(why, str) or len(why.split()) < 4:
            problems.append(f"{path.relative_to(root)}: equivalent {mid}: say why it cannot be killed (a sentence)")
        if mid not in ids:
            problems.append(f"{path.relative_to(root)}: equivalent {mid}: no such mutant of the current reference")
    return problems


_LAUNCH = re.compile(r"<<<|\bcudaLaunch(?:Kernel|KernelEx|CooperativeKernel)\s*\(")


def check_launchers(lab: str, root: Path = ROOT) -> list[str]:
    """Problems of the lab's error-reporting declarations ([] if none): every host function the student
    writes that returns a cudaError_t and launches a kernel in its solution lines must be declared in
    tests/<lab>/grading.json "reports_errors", so that the harness's fault injection tries it (a launcher
    that returns cudaSuccess without asking the runtime is a class of mistake, not one mutant)."""
    grading = root / "tests" / lab / "grading.json"
    try:
        declared = {e.get("function") for e in json.loads(grading.read_text()).get("reports_errors", [])
                    if isinstance(e, dict)}
    except (OSError, ValueError, AttributeError) as e:
        return [f"tests/{lab}/grading.json: cannot read its \"reports_errors\" ({e})"]
    problems = []
    for src in lab_sources(lab, root):
        for func in src.functions:
            if func.kind != "host" or not re.search(r"\bcudaError_t\b", func.returns):
                continue
            body = src.masked[func.body[0]:func.body[1]]
            launches = [func.body[0] + m.start() for m in _LAUNCH.finditer(body)]
            if any(src.in_solution(at) for at in launches) and func.name not in declared:
                problems.append(f"tests/{lab}/grading.json: {func.name} (solutions/{lab}/{src.name}) "
                                f"launches a kernel and returns a cudaError_t the student writes: declare it in "
                                f"\"reports_errors\" and give it a row in the lab's fault-injection table")
    return problems


# ---------------------------------------------------------------------------------------------
# Command line


def catalogue_markdown() -> str:
    lines = ["| operator | the mistake it stands for | where |", "|---|---|---|"]
    lines += [f"| `{op.id}` | {op.models} | {op.applies_to} |" for op in OPERATORS]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `operators.py LAB | head` ends quietly
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*")
    parser.add_argument("--catalogue", action="store_true", help="print the operator catalogue (Markdown)")
    parser.add_argument("--score", action="store_true", help="the mutation score of each lab, from its ledger")
    parser.add_argument("--check", action="store_true", help="check the ledgers")
    parser.add_argument("--operator", action="append", default=[], help="only these operators (repeatable)")
    parser.add_argument("--same-code", action="store_true",
                        help="record the kernel mutants for which nvcc emits the reference's PTX (needs nvcc, no GPU)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="--same-code: nvcc runs at once")
    args = parser.parse_args(argv)
    if args.catalogue:
        print(catalogue_markdown())
        return 0
    unknown = labinfo.check_names(args.labs)
    if unknown:
        for message in unknown:
            print(f"operators: {message}", file=sys.stderr)
        return 2
    bad_ops = [o for o in args.operator if o not in BY_ID]
    if bad_ops:
        print(f"operators: unknown operator {', '.join(bad_ops)}; known: {', '.join(BY_ID)}", file=sys.stderr)
        return 2
    labs = args.labs or labinfo.lab_names()
    if args.check:
        problems = [p for lab in labs for p in check_ledger(lab) + check_launchers(lab)]
        for p in problems:
            print(f"operators: {p}")
        print(f"operators: {len(labs)} ledgers and their labs' launchers checked, {len(problems)} problems")
        return 1 if problems else 0
    if args.same_code:
        import shutil
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        if not Path(nvcc).is_file():
            print("operators: --same-code needs nvcc (the CUDA Toolkit) on PATH", file=sys.stderr)
            return 2
        try:
            total = sum(same_code(lab, nvcc, jobs=args.jobs) for lab in labs)
        except LedgerError as e:
            print(f"operators: {e}", file=sys.stderr)
            return 2
        print(f"operators: {total} mutants compile to the reference's own PTX (recorded as same_code)")
        return 0
    if args.score:
        try:
            print(score_table(labs))
        except LedgerError as e:
            print(f"operators: {e}", file=sys.stderr)
            return 2
        return 0
    for lab in labs:
        ms = mutants_of(lab, operators=args.operator or None)
        print(f"{lab}: {len(ms)} mutants")
        for m in ms:
            print(f"  {m.id:<44} {m.where}\n      - {m.before}\n      + {m.after}")
    return 0


def score_table(labs: list[str], root: Path = ROOT) -> str:
    """One row per lab, as PIT and Stryker print it: killed / (killed + survived), equivalent
    survivors and mutants that do not compile left out, ungraded ones counted apart."""
    head = f"{'lab':<34} {'mutants':>7} {'killed':>6} {'survived':>8} {'equivalent':>10} {'stillborn':>9} " \
           f"{'ungraded':>8} {'score':>6}  survivors graded with older tests"
    rows = [head]
    total = {"mutants": 0, "killed": 0, "survived": 0, "equivalent": 0, "stillborn": 0, "ungraded": 0,
             "older_tests": 0}
    for lab in labs:
        c = score(lab, root)
        for k in total:
            total[k] += c[k]
        s = f"{100 * c['score']:.0f} %" if c["score"] is not None else "-"
        rows.append(f"{lab:<34} {c['mutants']:>7} {c['killed']:>6} {c['survived']:>8} {c['equivalent']:>10} "
                    f"{c['stillborn']:>9} {c['ungraded']:>8} {s:>6}  {c['older_tests'] or ''}")
    graded = total["killed"] + total["survived"]
    s = f"{100 * total['killed'] / graded:.0f} %" if graded else "-"
    rows.append(f"{'all labs':<34} {total['mutants']:>7} {total['killed']:>6} {total['survived']:>8} "
                f"{total['equivalent']:>10} {total['stillborn']:>9} {total['ungraded']:>8} {s:>6}  "
                f"{total['older_tests'] or ''}")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
