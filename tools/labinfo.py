"""The labs and what each one declares, read from their single declaration.

Every tests/<lab>/ with a CMakeLists.txt is a lab (tests/CMakeLists.txt adds them the same way), and
that CMakeLists.txt holds one `cudalab_add_lab(<lab> SOURCES <file>... ...)` call
(cmake/CudaLab.cmake). Its SOURCES are the files the student edits in labs/<lab>/: the only files
tools/grade_submission.py takes from a submission, the files tools/stubgen.py generates from
solutions/<lab>/ and the files a mutant may replace (tools/staff/mutants.py).

    import labinfo
    labinfo.lab_names()                         # ['ch03_01_warps', ...]
    labinfo.read_lab("ch03_05_occupancy").sources   # ('occupancy.cu',)
"""
from __future__ import annotations

import difflib
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# cudalab_add_lab's keywords (cmake/CudaLab.cmake). The ones that file declares are added at run
# time, so a keyword added there is never read as a file name here.
KEYWORDS = {"SOURCES", "DEMO", "DEMO_USES", "HOST_TESTS", "GPU_TESTS", "PERF_TESTS", "TEST_SOURCES",
            "LIBRARIES", "SEPARABLE", "SANITIZER_DRIVER", "SANITIZER_CHECKS", "TIMEOUT", "PERF_TIMEOUT",
            "HOST_IN_PROCESS"}
OPTIONS = {"SEPARABLE"}


class LabError(Exception):
    """A lab whose declaration cannot be read, or a name that is not a lab."""


@dataclass(frozen=True)
class Lab:
    """What tests/<lab>/CMakeLists.txt declares about one lab."""
    name: str
    sources: tuple[str, ...]          # the files the student edits, relative to labs/<lab>/
    demo: str | None = None           # the demo program in labs/<lab>/ (not the student's)
    separable: bool = False           # relocatable device code (SEPARABLE)
    arguments: dict = field(default_factory=dict, compare=False)  # every keyword's values


def lab_names(root: Path = ROOT) -> list[str]:
    """Every lab of the tree at @p root, in the book's order (tests/ch*/ with a CMakeLists.txt)."""
    tests = root / "tests"
    if not tests.is_dir():
        return []
    return sorted(p.name for p in tests.glob("ch*") if p.is_dir() and (p / "CMakeLists.txt").is_file())


def _keywords(root: Path) -> set[str]:
    """KEYWORDS plus every keyword cmake/CudaLab.cmake passes to cmake_parse_arguments."""
    words = set(KEYWORDS)
    try:
        text = (root / "cmake" / "CudaLab.cmake").read_text(errors="replace")
    except OSError:
        return words
    for call in re.finditer(r"cmake_parse_arguments\s*\(([^)]*)\)", text, re.I):
        for quoted in re.findall(r'"([^"]*)"', call.group(1)):
            words |= {w for w in quoted.split(";") if re.fullmatch(r"[A-Z][A-Z0-9_]*", w)}
    return words


def _strip_comments(text: str) -> str:
    """The CMake text with its # comments blanked (quoted strings are kept)."""
    out, i, quoted = [], 0, False
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\" and i + 1 < len(text):
                out.append(text[i:i + 2])
                i += 2
                continue
            quoted = c != '"'
        elif c == '"':
            quoted = True
        elif c == "#":
            bracket = re.match(r"#\[(=*)\[", text[i:])
            end = text.find("]" + bracket.group(1) + "]", i) + len(bracket.group(0)) if bracket else -1
            if not bracket or end < len(bracket.group(0)):
                end = text.find("\n", i)
            if end < 0:
                end = len(text)
            out.append(" " * (end - i))
            i = end
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _arguments(text: str, start: int, where: str) -> list[str]:
    """The arguments of the command whose '(' is at text[start]."""
    args, i, depth = [], start + 1, 1
    token = re.compile(r'\s+|"((?:\\.|[^"\\])*)"|(\()|(\))|([^\s()"]+)')
    while i < len(text):
        m = token.match(text, i)
        if not m:
            raise LabError(f"{where}: cannot read the cudalab_add_lab(...) call")
        i = m.end()
        if m.group(1) is not None:
            args.append(re.sub(r"\\(.)", r"\1", m.group(1)))
        elif m.group(2):
            depth += 1
        elif m.group(3):
            depth -= 1
            if depth == 0:
                return args
        elif m.group(4):
            args.append(m.group(4))
    raise LabError(f"{where}: the cudalab_add_lab( call is never closed")


def read_lab(name: str, root: Path = ROOT) -> Lab:
    """The declaration of lab @p name; LabError if it is not a lab or cannot be read."""
    where = f"tests/{name}/CMakeLists.txt"
    path = root / "tests" / name / "CMakeLists.txt"
    if name not in lab_names(root):
        raise LabError(unknown_lab(name, lab_names(root)))
    try:
        text = _strip_comments(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise LabError(f"{where}: cannot be read ({e})") from None
    calls = [m for m in re.finditer(r"\bcudalab_add_lab\s*\(", text, re.I)]
    if len(calls) != 1:
        raise LabError(f"{where}: needs exactly one cudalab_add_lab(...) call, found {len(calls)}")
    args = _arguments(text, calls[0].end() - 1, where)
    if not args or args[0] != name:
        raise LabError(f"{where}: cudalab_add_lab's first argument must be the lab's name, {name}")
    keywords = _keywords(root)
    values: dict[str, list[str]] = {}
    current = None
    for arg in args[1:]:
        if arg in keywords:
            current = arg
            values.setdefault(arg, [])
        elif current is None or current in OPTIONS:
            raise LabError(f"{where}: unexpected argument {arg!r} of cudalab_add_lab")
        else:
            values[current].append(arg)
    sources = values.get("SOURCES", [])
    if not sources:
        raise LabError(f"{where}: cudalab_add_lab({name} ...) declares no SOURCES (the files students edit)")
    for s in sources:
        if "${" in s or s.startswith("/") or ".." in Path(s).parts:
            raise LabError(f"{where}: SOURCES entry {s!r} must be a plain path inside labs/{name}/")
    demo = values.get("DEMO", [None])[0] if values.get("DEMO") else None
    return Lab(name, tuple(sources), demo, "SEPARABLE" in values, values)


def read_labs(root: Path = ROOT) -> dict[str, Lab]:
    """Every lab's declaration, by name."""
    return {name: read_lab(name, root) for name in lab_names(root)}


def suggest(name: str, known: list[str], n: int = 3) -> list[str]:
    """The lab names closest to @p name: those it starts or is part of, those with its chapter and
    section numbers, else the most similar."""
    lowered = name.lower()
    prefix = [k for k in known if k.lower().startswith(lowered)] if lowered else []
    if prefix:
        return prefix[:n]
    contains = [k for k in known if lowered in k.lower()] if len(lowered) >= 4 else []
    if contains:
        return contains[:n]
    numbers = re.match(r"ch0*(\d+)[_.-]0*(\d+)", lowered)  # ch3_5, ch03.05, ...
    if numbers:
        same = [k for k in known if re.match(rf"ch0*{numbers[1]}_0*{numbers[2]}(_|$)", k)]
        if same:
            return same[:n]
    return difflib.get_close_matches(lowered, known, n=n, cutoff=0.5)


def unknown_lab(name: str, known: list[str]) -> str:
    """'no lab named X' with the closest names."""
    close = suggest(name, known)
    hint = f"; did you mean {' or '.join(close)}?" if close else (
        f"; the labs are {known[0]} ... {known[-1]} (tests/<lab>/)" if known else "; this tree has no labs")
    return f"no lab named {name!r}{hint}"


def check_names(names: list[str], root: Path = ROOT) -> list[str]:
    """A message for every name in @p names that is not a lab ([] if all are labs)."""
    known = lab_names(root)
    return [unknown_lab(n, known) for n in names if n not in known]


def link_dirs(nvcc: str) -> list[str]:
    """Where the libraries a lab's library links (the CUDA runtime, libc, libstdc++, libgcc) are found:
    what cmake/CheckLabSymbols.cmake takes as LINK_DIRS, as cudalab_add_lab passes it. The CUDA
    runtime's folders are the ones @p nvcc itself links from (its -L flags, asked with --dryrun), so
    an nvcc reached through a wrapper script or a link elsewhere finds them too."""
    dirs: list[str] = []
    proc = subprocess.run([nvcc, "--dryrun", "-shared", "-o", "/dev/null", "link_dirs.cu"],  # reads no file
                          capture_output=True, text=True)
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.startswith("#$ LIBRARIES="):
            for word in shlex.split(line.split("=", 1)[1]):
                if word.startswith("-L") and not word.rstrip("/").endswith("/stubs"):
                    dirs.append(str(Path(word[2:]).resolve()))
    top = Path(nvcc).resolve().parent.parent
    dirs += [str(top / sub) for sub in ("lib64", "lib", "targets/x86_64-linux/lib")]
    for name in ("libc.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libm.so.6"):
        found = subprocess.run(["g++", f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
        if "/" in found:
            dirs.append(str(Path(found).resolve().parent))
    dirs += ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"]
    return list(dict.fromkeys(dirs))
