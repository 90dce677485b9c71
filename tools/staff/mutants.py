#!/usr/bin/env python3
"""Grader self-test: grade wrong and right submissions through the submission path.

    tools/staff/mutants.py [LAB ...] [--out DIR] [-j N] [--gpu-jobs M] [--gpu-labs L] [--stop-early] [--missing]
    tools/staff/mutants.py --status [LAB ...]
    tools/staff/mutants.py --check [--compile | --symbols] [--expect full|lose] [LAB ...]

tests/mutants/<lab>/<name>/ holds a mutant: mutant.json, {"expect": "lose" | "full", "why": "...",
"edits": [...]}, and optionally whole lab files (copied over labs/<lab>/). An edit changes the
reference solution (markers removed) the way a student might: {"file", "old", "new"} replaces the
text `old` (which must occur exactly once), {"file", "copy_body_of": "k1", "into": "k2"} gives
kernel k2 the body of kernel k1 (a baseline copied into the optimised slot).
"lose" (a wrong or lazy kernel) must lose points in its lab; "full" (a correct alternative
solution) must get every point. Prints the kill table; exits 0 only if every mutant behaves.
Runs on a machine with a GPU (GPU tests skipped elsewhere make "full" impossible).

Each lab's mutants are graded in a pristine copy of the tree (build/mutants/<lab>/tree, build and
one <mutant>.txt score table each), the mutant's files overlaid and rebuilt incrementally, like
tools/grade_submission.py does for a student. With -j N, N trees are built at once (a lab with
many mutants gets several, --per-tree mutants each) while the GPU grades: correctness tests of
several labs (up to --gpu-labs) may share the GPU (up to --gpu-jobs at once per lab), performance
tests always have it to themselves. --stop-early runs each mutant's host tests first: a wrong
mutant they already cost points never waits for the GPU, and one that lost correctness points on
the GPU skips what needs the GPU alone (its serial correctness tests when the others already
failed, and its performance tests; its row says "correctness only"); correct variants always run
everything.
A machine with 16 cores and an H100 grades about 30 mutants in 10 minutes with `-j 14 --gpu-jobs 6
--stop-early` (--gpu-labs 3): the whole repository in about 95 minutes, so grade it in parts with
--missing. The kill table is also written to <out>/kill-table.txt. --host-only needs no GPU: it
grades the "lose" mutants on the host tests alone (each build still compiles the lab's kernels), and
records those a host test kills; the others wait for a machine with a GPU.

Each mutant graded on a GPU is recorded in tests/mutants/<lab>/graded.json: what it got, whether
it behaved, the GPU, and hashes of the mutant and of what grades it (the lab's tests, tests/support,
common/, cmake/, the lab's folder, tools/grade.py). --missing grades only the mutants without a
current entry, so the whole run can be split over several sittings (a few labs at a time) and a
change to one lab's tests regrades that lab's mutants only. --status (no GPU, no build) prints per
lab how many behaved on this tree, how many did not and how many wait; it exits 0 only when every
mutant behaved. Commit graded.json with the change it was graded on.

--check needs no GPU and builds nothing: it applies every mutant's edits and reports each one that
no longer applies (its `old` text is gone or occurs twice, a kernel to copy is missing, a file is
unknown), that changes nothing, or whose mutant.json is malformed. With --compile it also compiles
every mutated .cu file with nvcc -c (-arch=sm_75; -rdc=true for SEPARABLE labs), to catch mutants
that no longer compile; with --symbols it also links each mutant's objects (the lab's other sources as
in solutions/) into a shared library and runs cmake/CheckLabSymbols.cmake on it, as the build checks a
lab's library: a correct variant ("full") that it refuses is a failure, a wrong one it refuses is
listed as "refused". Exits 0 only if every mutant is fine.
"""
from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tools/: the shared modules
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/staff: operators.py
import grade_submission  # noqa: E402
import labinfo  # noqa: E402
import stubgen  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = ROOT / "tests" / "mutants"


class MutantError(Exception):
    """A mutant that cannot be applied to the current reference solution."""


def strip_markers(source: Path, root: Path = ROOT) -> str:
    """The reference file as a student would have written it: marker and STUB lines removed
    (the marker syntax is tools/stubgen.py's). MutantError if its markers are wrong."""
    try:
        return stubgen.strip_markers(stubgen.read_reference(source, root), str(source.relative_to(root)))
    except stubgen.MarkerError as e:
        raise MutantError(str(e)) from None


def body_span(text: str, kernel: str) -> tuple[int, int]:
    """[start, end) of the braces of `__global__ void kernel(...) { ... }`."""
    head = text.find(f"__global__ void {kernel}(")
    if head < 0:
        raise MutantError(f"no kernel `__global__ void {kernel}(`")
    start = text.index("{", head)
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return start, i + 1
    raise MutantError(f"unbalanced braces in {kernel}")


def mutant_files(lab: str, mutant: Path, spec: dict, root: Path = ROOT) -> dict[PurePosixPath, bytes]:
    """The mutant's lab files: edited reference files plus any whole files in its folder.
    Raises MutantError when an edit does not apply."""
    texts: dict[str, str] = {}
    for n, edit in enumerate(spec.get("edits", []), 1):
        name = edit.get("file")
        source = root / "solutions" / lab / str(name)
        if not name or not source.is_file():
            raise MutantError(f"edit {n}: no file solutions/{lab}/{name}")
        if name not in texts:
            texts[name] = strip_markers(source, root)
        text = texts[name]
        if "copy_body_of" in edit:
            s, e = body_span(text, edit["copy_body_of"])
            ts, te = body_span(text, edit["into"])
            texts[name] = text[:ts] + text[s:e] + text[te:]
        elif "old" in edit and "new" in edit:
            count = text.count(edit["old"])
            if count != 1:
                first = edit["old"].strip().splitlines()[0] if edit["old"].strip() else "(blank)"
                raise MutantError(f"edit {n} ({name}): the text to replace occurs {count} times "
                                  f"(it must occur once), first line: {first[:80]!r}")
            texts[name] = text.replace(edit["old"], edit["new"])
        else:
            raise MutantError(f"edit {n}: needs `old` and `new`, or `copy_body_of` and `into`")
    files = {PurePosixPath(lab, n): t.encode() for n, t in texts.items()}
    for f in sorted(mutant.iterdir()):
        if f.is_file() and f.name != "mutant.json":
            files[PurePosixPath(lab, f.name)] = f.read_bytes()
    return files


def load_spec(mutant: Path) -> dict:
    """mutant.json, checked for the fields every mutant needs."""
    try:
        spec = json.loads((mutant / "mutant.json").read_text())
    except ValueError as e:
        raise MutantError(f"mutant.json is not valid JSON: {e}") from None
    if not isinstance(spec, dict):
        raise MutantError("mutant.json must hold an object")
    if spec.get("expect") not in ("lose", "full"):
        raise MutantError(f"expect must be \"lose\" or \"full\", not {spec.get('expect')!r}")
    if not isinstance(spec.get("why"), str) or not spec["why"].strip():
        raise MutantError("why (what the mutant is and which test should catch it) is missing")
    if not isinstance(spec.get("edits", []), list):
        raise MutantError("edits must be a list")
    return spec


def lab_mutants(labs: list[str], root: Path = ROOT) -> list[tuple[str, Path]]:
    """(lab, mutant folder) of every mutant, optionally only of some labs."""
    base = root / "tests" / "mutants"
    out = []
    for lab_dir in sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []:
        if labs and lab_dir.name not in labs:
            continue
        out += [(lab_dir.name, m) for m in sorted(p for p in lab_dir.iterdir() if p.is_dir())]
    return out


def check_mutant(lab: str, mutant: Path, root: Path = ROOT) -> tuple[list[str], dict[PurePosixPath, bytes]]:
    """Problems of one mutant without building anything ([] if none), and its files."""
    if not (mutant / "mutant.json").is_file():
        return ["no mutant.json"], {}
    try:
        spec = load_spec(mutant)
        files = mutant_files(lab, mutant, spec, root)
    except MutantError as e:
        return [str(e)], {}
    if not files:
        return ["no edits and no whole files: nothing to grade"], {}
    problems = []
    changed = False
    try:
        sources = labinfo.read_lab(lab, root).sources
    except labinfo.LabError as e:
        return [str(e)], {}
    for rel, data in files.items():
        name = rel.name
        if name not in sources:
            problems.append(f"{name} is not a declared source of {lab} (SOURCES in tests/{lab}/CMakeLists.txt: "
                            f"{', '.join(sources)}): the grader would refuse it")
        reference = root / "solutions" / lab / name
        try:
            original = strip_markers(reference, root).encode() if reference.is_file() else None
        except MutantError as e:
            return [str(e)], {}
        changed |= data != original
    if not changed:
        problems.append("the mutant is the reference solution: its edits change nothing")
    return problems, files


def separable(lab: str, root: Path = ROOT) -> bool:
    """The lab is built with relocatable device code (SEPARABLE in its cudalab_add_lab call)."""
    try:
        return labinfo.read_lab(lab, root).separable
    except labinfo.LabError:
        return False


def nvcc_command(nvcc: str, source: Path, lab: str, overlay_dir: Path, root: Path = ROOT) -> list[str]:
    """nvcc -c of one mutated lab file: the mutant's own files first, then the lab's headers."""
    cmd = [nvcc, "-c", str(source), "-o", str(source.with_suffix(".o")),
           "-I", str(overlay_dir), "-I", str(root / "labs" / lab), "-I", str(root / "common" / "include"),
           "-std=c++17", "--expt-relaxed-constexpr", "-arch=sm_75"]
    if separable(lab, root):
        cmd.append("-rdc=true")
    return cmd


def compile_mutant(nvcc: str, lab: str, files: dict[PurePosixPath, bytes], root: Path = ROOT,
                   symbols: list[str] | None = None) -> list[str]:
    """Compiles every mutated .cu file; the first lines of each compiler error ([] if none). With
    @p symbols (a list to fill), the objects are also linked into a shared library and checked by
    cmake/CheckLabSymbols.cmake as the build checks a lab's library (what it calls, runs before
    main(), ...; not its exports): its "error:" lines go into @p symbols."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        overlay_dir = Path(tmp) / lab
        overlay_dir.mkdir()
        for rel, data in files.items():
            (overlay_dir / rel.name).write_bytes(data)
        objects = []
        for rel in sorted(files):
            if rel.suffix != ".cu":
                continue
            cmd = nvcc_command(nvcc, overlay_dir / rel.name, lab, overlay_dir, root)
            if symbols is not None:
                cmd += ["-Xcompiler", "-fPIC", "-O3", "-DNDEBUG"]  # as the build compiles a lab's library
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
                errors = [ln for ln in lines if "error" in ln] or lines
                problems.append(f"{rel.name} does not compile: " + " | ".join(errors[:3])[:400])
            objects.append(overlay_dir / rel.with_suffix(".o").name)
        if symbols is not None and objects and not problems:
            symbols.extend(check_symbols(nvcc, lab, objects, Path(tmp), root))
    return problems


def check_symbols(nvcc: str, lab: str, objects: list[Path], tmp: Path, root: Path = ROOT) -> list[str]:
    """cmake/CheckLabSymbols.cmake on @p objects linked into a shared library: its error lines."""
    library = tmp / f"lib{lab}.so"
    link = [nvcc, "-shared", "-cudart", "shared", "-o", str(library), *map(str, objects)]  # as the build links
    if separable(lab, root):
        link += ["-rdc=true", "-lcudadevrt"]
    proc = subprocess.run(link, capture_output=True, text=True)
    if proc.returncode != 0:
        return [f"does not link: {(proc.stderr + proc.stdout).strip()[:300]}"]
    dirs = labinfo.link_dirs(nvcc)
    proc = subprocess.run([shutil.which("cmake") or "cmake", "-DOBJECTS=" + "|".join(map(str, objects)),
                           f"-DLIBRARY={library}", "-DNM=nm", "-DOBJDUMP=objdump", "-DREADELF=readelf",
                           f"-DSOURCE_DIR=labs/{lab}", f"-DSTATE={tmp}", "-DLINK_DIRS=" + "|".join(dirs),
                           "-P", str(root / "cmake" / "CheckLabSymbols.cmake")], capture_output=True, text=True)
    lines = (proc.stdout + proc.stderr).splitlines()
    problems = [ln.split(": error: ", 1)[1] if ": error: " in ln else ln
                for ln in lines if ": error: " in ln or "CMake Error" in ln]
    unchecked = re.findall(r"cuda-labs: (.*?(?:was|were) not checked)", " ".join(ln.strip() for ln in lines))
    if unchecked:  # CMake wraps its warnings: read as one text
        problems.append("the symbol check could not check everything here: " + "; ".join(unchecked)[:400])
    return problems


def find_nvcc() -> str | None:
    for candidate in (os.environ.get("NVCC"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


# ---------------------------------------------------------------------------------------------
# The record of the last grading of each hand-written mutant (tests/mutants/<lab>/graded.json), so
# that a run longer than one sitting is done in parts and nothing is graded twice.

RECORD_NAME = "graded.json"


def grader_sha(lab: str, root: Path = ROOT) -> str:
    """A hash of everything that grades a lab's mutants besides the mutant itself: the lab's tests,
    the shared test code, common/ and cmake/ (operators.tests_sha), the lab's own folder (headers,
    demo) and the grade step. A record made with another one is out of date."""
    import operators  # noqa: E402 (tools/staff, beside this file)
    h = hashlib.sha256(operators.tests_sha(lab, root).encode())
    for base in (root / "labs" / lab, root / "tools" / "grade.py"):
        for f in sorted(base.rglob("*")) if base.is_dir() else [base]:
            if f.is_file():
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def mutant_sha(spec: dict, files: dict[PurePosixPath, bytes]) -> str:
    """A hash of what the mutant submits (its files after the edits) and what it is expected to do."""
    h = hashlib.sha256(spec.get("expect", "").encode())
    for rel in sorted(files):
        h.update(str(rel).encode() + b"\0" + files[rel])
    return h.hexdigest()[:16]


def load_record(lab: str, root: Path = ROOT) -> dict:
    """The lab's graded.json ({} where there is none; where it cannot be read, {} after a warning:
    its mutants are graded again and the file is written anew, nothing in it being more than a
    record of earlier runs)."""
    path = root / "tests" / "mutants" / lab / RECORD_NAME
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        print(f"mutants: {path} cannot be read ({e}): its mutants count as not graded", file=sys.stderr)
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("mutants"), dict):
        print(f"mutants: {path} holds no \"mutants\" object: its mutants count as not graded", file=sys.stderr)
        return {}
    return data["mutants"]


def save_record(lab: str, mutants: dict, root: Path = ROOT) -> None:
    data = {"lab": lab,
            "about": "The hand-written mutants of this lab as last graded on a GPU (tools/staff/mutants.py "
                     "--missing grades only those without a current entry: another mutant, or other tests, "
                     "harness, lab folder or grade step than `grader` says).",
            "mutants": dict(sorted(mutants.items()))}
    path = root / "tests" / "mutants" / lab / RECORD_NAME
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def ran_on_gpu(summary: dict) -> bool:
    """Whether the grade step saw a GPU: its device line is cudalab_info's "NAME (sm_XY, N SMs), ..."
    (without one it says "no GPU (...)", whose reason may itself mention "sm_75")."""
    return re.match(r"(?!no GPU)\S.* \(sm_\d+[a-z]?, \d+ SMs\)", str(summary.get("device", ""))) is not None


def host_took_points(summary: dict | None, lab: str) -> dict | None:
    """The first of the lab's host tests (they need no GPU) that built, ran and failed with points
    at stake: a wrong mutant it catches loses points on any machine. A host test program that built
    but could not list its tests (the lab's code crashed or ended the process when it started,
    cmake/DiscoverTests.cmake) counts too, as does a lab library that compiled but was refused for
    the symbols it uses (cmake/CheckLabSymbols.cmake) or for a name it may not use (grading.json
    forbidden_in_source). None if there is none."""
    for t in (summary or {}).get("tests", []):
        if t.get("lab") != lab or t.get("where") != "host" or t.get("max_points", 0) <= 0:
            continue
        if t.get("status") == "failed" or (t.get("status") == "not built" and re.search(
                r"cannot list its tests|lists no tests|CheckLabSymbols\.cmake|forbidden_in_source", t.get("reason", ""))):
            return t
    return None


def record_state(lab: str, mutant: Path, record: dict, grader: str, root: Path = ROOT) -> str:
    """"behaves" (a current entry that behaved), "wrong" (a current entry that did not), "missing"
    (no entry, or one made for another mutant or another grader) or "broken" (it does not apply)."""
    try:
        spec = load_spec(mutant)
        sha = mutant_sha(spec, mutant_files(lab, mutant, spec, root))
    except MutantError:
        return "broken"
    entry = record.get(mutant.name)
    if not isinstance(entry, dict) or entry.get("sha") != sha or entry.get("grader") != grader:
        return "missing"
    return "behaves" if entry.get("ok") is True else "wrong"


def status(labs: list[str], root: Path = ROOT, out=None) -> int:
    """--status: per lab, how many mutants have a current record that behaved, did not, or none.
    Exit 0 only when every mutant behaved on the current tree."""
    out = out or sys.stdout
    counts: dict[str, dict[str, int]] = {}
    todo = []
    for lab, mutant in lab_mutants(labs, root):
        if lab not in counts:
            counts[lab] = {"behaves": 0, "wrong": 0, "missing": 0, "broken": 0}
            record, grader = load_record(lab, root), grader_sha(lab, root)
        state = record_state(lab, mutant, record, grader, root)
        counts[lab][state] += 1
        if state != "behaves":
            todo.append(f"{lab}/{mutant.name} ({state})")
    print(f"{'lab':<34} {'mutants':>7} {'behave':>7} {'wrong':>6} {'to grade':>8}", file=out)
    for lab, c in counts.items():
        print(f"{lab:<34} {sum(c.values()):>7} {c['behaves']:>7} {c['wrong']:>6} {c['missing'] + c['broken']:>8}",
              file=out)
    total = {k: sum(c[k] for c in counts.values()) for k in ("behaves", "wrong", "missing", "broken")}
    print(f"all labs: {sum(total.values())} mutants, {total['behaves']} behave as graded on this tree, "
          f"{total['wrong']} do not, {total['missing'] + total['broken']} not graded on this tree "
          f"(tools/staff/mutants.py --missing grades them)", file=out)
    return 0 if counts and not todo else 1


def check(labs: list[str], compile_too: bool = False, jobs: int = 1, root: Path = ROOT,
          nvcc: str | None = None, out=None, symbols: bool = False, expect: str = "") -> int:
    """--check: every mutant applies (and compiles); prints one line per mutant, returns the exit status.
    With @p symbols each is also checked as the build checks a lab's library: a correct variant
    ("full") that the check refuses is a problem; a wrong one that it refuses is listed as such."""
    compile_too = compile_too or symbols
    out = out or sys.stdout
    unknown = labinfo.check_names(labs, root)
    if unknown:
        for message in unknown:
            print(f"mutants: {message}", file=out)
        return 2
    mutants = lab_mutants(labs, root)
    if expect:  # only the correct variants ("full"), or only the wrong ones
        def expected(m: Path) -> str:
            try:
                return load_spec(m).get("expect", "")
            except MutantError:
                return expect  # a malformed one is reported below
        mutants = [(lab, m) for lab, m in mutants if expected(m) == expect]
    if not mutants:
        print("mutants: no mutants found" + (f" for {', '.join(labs)}" if labs else ""), file=out)
        return 1
    if compile_too:
        nvcc = nvcc or find_nvcc()
        if not nvcc:
            print("mutants: --compile needs nvcc (on PATH, in $NVCC or /usr/local/cuda/bin)", file=out)
            return 1

    def one(item: tuple[str, Path]) -> tuple[str, str, list[str], list[str]]:
        lab, mutant = item
        problems, files = check_mutant(lab, mutant, root)
        refused: list[str] = []
        if symbols and not problems:  # the library is all of the lab's sources, the others as in solutions/
            names = {rel.name for rel in files}
            for name in labinfo.read_lab(lab, root).sources:
                reference = root / "solutions" / lab / name
                if name not in names and reference.is_file():
                    files = {**files, PurePosixPath(name): strip_markers(reference, root).encode()}
        if compile_too and not problems:
            problems = compile_mutant(nvcc, lab, files, root, refused if symbols else None)
        if refused and load_spec(mutant).get("expect") == "full":
            problems = problems + [f"a correct variant that the symbol check refuses: {r}" for r in refused]
            refused = []
        return lab, mutant.name, problems, refused

    bad = refused_count = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for lab, name, problems, refused in pool.map(one, mutants):
            bad += bool(problems)
            refused_count += bool(refused)
            tag = "FAIL" if problems else "refused" if refused else "ok  "
            print(f"{tag} {lab}/{name}" + "".join(f"\n     {p}" for p in problems + refused[:2]), file=out, flush=True)
    what = "apply, compile and pass the symbol check where correct" if symbols else \
        "apply and compile" if compile_too else "apply"
    print(f"mutants: {len(mutants) - bad} of {len(mutants)} {what}" + (f"; {bad} do not" if bad else "") +
          (f"; {refused_count} wrong ones refused by the symbol check" if symbols else ""), file=out)
    return 1 if bad else 0


class GpuLock:
    """Correctness runs share the GPU; performance runs have it alone (a readers-writer lock).

    With batch=0 a run that needs the GPU alone goes first: no new correctness run starts while one
    waits. With batch=N the runs that need it alone wait for each other: they go together once N of
    them wait, or once the GPU has nothing else to do (no correctness run running or waiting), and
    then every one waiting goes, one after another, before correctness runs start again. The GPU then
    empties (every correctness run finishing before a timed one starts) once per batch, not once per
    timed run. It also counts where the time went: seconds idle, shared, alone (seconds())."""

    def __init__(self, max_shared: int = 0, batch: int = 0) -> None:
        self._cv = threading.Condition()
        self._max_shared = max_shared  # labs whose correctness tests run at once (0: no limit)
        self._batch = batch
        self._shared = 0
        self._exclusive = False
        self._waiting = 0  # exclusive requests waiting
        self._readers_waiting = 0
        self._turn = False  # batch mode: the exclusive requests' turn (readers wait)
        self._clock = time.monotonic()
        self._spent = {"idle": 0.0, "shared": 0.0, "alone": 0.0}

    def _tick(self) -> None:
        """Adds the time since the last change of state to the state it was in (under _cv)."""
        t = time.monotonic()
        state = "alone" if self._exclusive else "shared" if self._shared else "idle"
        self._spent[state] += t - self._clock
        self._clock = t

    def _update_turn(self) -> None:
        if not self._batch:
            self._turn = self._waiting > 0
        elif not self._waiting:
            self._turn = False
        elif self._waiting >= self._batch or (not self._readers_waiting and not self._shared):
            self._turn = True

    def seconds(self) -> dict:
        """Seconds so far with the GPU idle, shared by correctness runs, and held alone."""
        with self._cv:
            self._tick()
            return dict(self._spent)

    @contextmanager
    def shared(self):
        with self._cv:
            self._readers_waiting += 1
            self._update_turn()
            self._cv.wait_for(lambda: not self._exclusive and not self._turn and
                              (self._max_shared <= 0 or self._shared < self._max_shared))
            self._readers_waiting -= 1
            self._tick()
            self._shared += 1
        try:
            yield
        finally:
            with self._cv:
                self._tick()
                self._shared -= 1
                self._update_turn()
                self._cv.notify_all()

    @contextmanager
    def exclusive(self):
        with self._cv:
            self._waiting += 1
            self._update_turn()
            self._cv.notify_all()
            self._cv.wait_for(lambda: self._turn and not self._exclusive and not self._shared)
            self._waiting -= 1
            self._tick()
            self._exclusive = True
        try:
            yield
        finally:
            with self._cv:
                self._tick()
                self._exclusive = False
                self._update_turn()
                self._cv.notify_all()


@dataclass
class Row:
    lab: str
    name: str
    expect: str
    points: str
    ok: bool
    first: str
    seconds: str = ""  # where its grading time went (printed as it goes, not in the table)


def merge_junit(parts: list[Path], out: Path) -> None:
    """One JUnit file with the test cases of several ctest runs (for tools/grade.py); its wall-clock
    "time" is the sum of the runs' (they run one after another)."""
    root = None
    seconds = 0.0
    for part in parts:
        if not part.is_file():
            continue
        tree = ET.parse(part).getroot()
        seconds += float(tree.get("time") or 0)
        if root is None:
            root = tree
        else:
            for case in tree.iter("testcase"):
                root.append(case)
    if root is not None:
        root.set("time", f"{seconds:g}")
    ET.ElementTree(root if root is not None else ET.Element("testsuite")).write(out, encoding="unicode")


def grade_lab(work: Path, build: Path, lab: str, expect: str, gpu: GpuLock, gpu_jobs: int,
              build_jobs: int, stop_early: bool, times: dict | None = None, host_first: bool = False,
              host_only: bool = False, host_seeds: tuple[int, ...] = ()) -> tuple[dict | None, str, bool]:
    """Builds the overlaid lab and runs its tests: correctness tests (up to gpu_jobs at once, the
    GPU shared with other labs' correctness runs), then performance tests with the GPU to
    themselves. With stop_early, a "lose" mutant that already lost correctness points skips the
    performance tests. Returns the summary (None if grading failed), the score table, and whether
    the performance tests ran. With host_first the lab's host tests run first, and a wrong mutant
    they already cost points goes no further (host_only: nothing else runs; with host_seeds the host
    tests run again with each of these CUDALAB_SEED values, and the first run in which the mutant
    keeps its host points is the one returned: a kill must not depend on the random inputs). Correctness tests labelled "serial" (RUN_SERIAL: they size their data
    from the free GPU memory) also have the GPU to themselves. `times` receives the seconds spent
    building, waiting for the GPU and running tests."""
    times = times if times is not None else {}
    for key in ("build", "wait", "tests"):
        times[key] = 0.0
    log = work / "build.log"
    log.write_text("")
    start = time.monotonic()
    built = grade_submission.run(["nice", "-n", "10", "cmake", "--build", str(build), "-j", str(build_jobs), "--",
                                  "-k", "0"], log) == 0
    times["build"] = time.monotonic() - start
    if not built:
        # A failed rebuild leaves the previous submission's programs behind: remove the lab's, so its
        # tests say "not built", as they do for a student whose code does not compile.
        for exe in (build / "tests" / lab).glob(f"{lab}_*"):
            if exe.is_file() and os.access(exe, os.X_OK):
                exe.unlink()
    env = dict(os.environ, CUDALAB_GRADING="1")
    grade_dir = build / "grade"
    grade_dir.mkdir(parents=True, exist_ok=True)
    parts = []

    @contextmanager
    def holding(lock):
        asked = time.monotonic()
        with lock:
            got = time.monotonic()
            times["wait"] += got - asked
            yield
            times["tests"] += time.monotonic() - got

    def ctest(kind: str, jobs: int, select: list[str] | None = None, part: str = "") -> None:
        junit = grade_dir / f"junit-{kind}{'-' + part if part else ''}.xml"
        junit.unlink(missing_ok=True)
        grade_submission.run(["ctest", "--test-dir", str(build), "-j", str(jobs), "--output-junit", str(junit),
                              "-L", f"^{lab}$", "-L", f"^{kind}$", *(select or [])], work / "ctest.log", env=env)
        parts.append(junit)

    def grade() -> tuple[dict | None, str]:
        junit = grade_dir / "junit.xml"
        merge_junit(parts, junit)
        (grade_dir / "summary.json").unlink(missing_ok=True)  # never read the previous mutant's
        table = grade_submission.grade_step(build, junit, log)
        try:
            return json.loads((grade_dir / "summary.json").read_text()), table
        except (OSError, ValueError):
            return None, table

    def lost_on_host(summary: dict | None) -> bool:
        return summary is not None and any(
            t["lab"] == lab and t["where"] == "host" and t["status"] in ("failed", "not built", "not started")
            and t["max_points"] > 0
            for t in summary["tests"])

    def lost_correctness(summary: dict | None) -> bool:
        if summary is None:
            return False
        got, total = summary["labs"][lab]["correctness"]
        return got < total

    (work / "ctest.log").write_text("")
    if host_first:
        # The host tests need no GPU: a mutant they kill never waits for it (and on a machine
        # without a GPU they are all there is to grade).
        ctest("correctness", 2, ["-L", "^host$"], part="host")
        summary, table = grade()
        if host_only and expect == "lose" and lost_on_host(summary):
            for seed in host_seeds:
                parts.clear()
                env["CUDALAB_SEED"] = str(seed)
                ctest("correctness", 2, ["-L", "^host$"], part=f"host-seed-{seed}")
                again, again_table = grade()
                if not lost_on_host(again):
                    return again, f"with CUDALAB_SEED={seed} the host tests do not kill it:\n{again_table}", False
        if host_only or (stop_early and expect == "lose" and lost_on_host(summary)):
            return summary, table, False
    with holding(gpu.shared()):
        ctest("correctness", gpu_jobs, ["-LE", "^(serial|host)$"] if host_first else ["-LE", "^serial$"])
    if stop_early and expect == "lose":
        # A wrong mutant that already lost points need not wait for the GPU alone (serial tests).
        summary, table = grade()
        if lost_correctness(summary):
            return summary, table, False
    with holding(gpu.exclusive()):  # RUN_SERIAL tests (timed, big-memory): no other lab's tests beside them
        ctest("correctness", 1, ["-L", "^serial$"], part="serial")
    summary, table = grade()
    if stop_early and expect == "lose" and lost_correctness(summary):
        return summary, table, False
    with holding(gpu.exclusive()):
        ctest("performance", 1)
    summary, table = grade()
    return summary, table, True


@dataclass
class Item:
    """One submission to grade in a slot: a mutant folder, or an operator mutant (tools/staff/operators.py)."""
    name: str
    load: "callable"  # () -> (spec, files); raises MutantError
    done: "callable | None" = None  # (summary, row, perf_ran) -> None, after it is graded


def folder_item(lab: str, mutant: Path) -> Item:
    def load():
        spec = load_spec(mutant)
        return spec, mutant_files(lab, mutant, spec)
    return Item(mutant.name, load)


def run_slot(lab: str, items: list[Item], work: Path, gpu: GpuLock, args, report) -> list[Row]:
    """One pristine tree and build for a share of a lab's mutants; each is overlaid in turn and
    rebuilt incrementally."""
    rows = []
    try:
        tree, build = grade_submission.prepare(work, [lab])
    except (grade_submission.GradingError, grade_submission.SubmissionError) as e:
        first = str(e).splitlines()[0][:150]
        return [report(Row(lab, m.name, "?", "-", False, f"not graded: {first} (see {work}/configure.log)"))
                for m in items]
    for item in items:
        try:
            spec, files = item.load()
        except MutantError as e:
            rows.append(report(Row(lab, item.name, "?", "-", False, f"does not apply: {e}"[:150])))
            continue
        grade_submission.overlay(tree, files, [lab], [])
        times: dict = {}
        summary, table, perf_ran = grade_lab(work, build, lab, spec["expect"], gpu, args.gpu_jobs,
                                             args.build_jobs, args.stop_early, times,
                                             # with --stop-early a wrong mutant the host tests already
                                             # cost points never waits for the GPU
                                             host_first=getattr(args, "host_first", False) or args.stop_early or getattr(args, "host_only", False),
                                             host_only=getattr(args, "host_only", False),
                                             host_seeds=tuple(getattr(args, "host_seeds", ())))
        (work / f"{item.name.replace(':', '-')}.txt").write_text(f"{spec['why']}\n\n{table}")
        try:
            s = summary["labs"][lab]
            got = s["correctness"][0] + s["performance"][0]
            total = s["correctness"][1] + s["performance"][1]
            skipped = sum(t["status"] == "skipped" for t in summary["tests"])
            lost = [t for t in summary["tests"] if t["status"] != "passed" and t["max_points"] > 0]
        except (TypeError, KeyError, ValueError):
            got, total, skipped, lost = 0.0, 0.0, 0, []
        host_kill = host_took_points(summary, lab)
        if getattr(args, "host_only", False):
            # GPU tests skipped: only a host test that failed tells anything (a "full" mutant never gets here)
            ok = host_kill is not None
            lost = [host_kill] if host_kill else []
        elif spec["expect"] == "lose":
            ok = total > 0 and got < total and skipped == 0
        else:
            ok = total > 0 and got == total and perf_ran
        points = f"{got:g}/{total:g}" + ("" if perf_ran else " (correctness only)")
        first = f"{lost[0]['name'].split('.', 1)[-1]}: {lost[0]['reason']}"[:150] if lost else ""
        seconds = f"[build {times['build']:.0f} s, GPU wait {times['wait']:.0f} s, tests {times['tests']:.0f} s]"
        row = Row(lab, item.name, spec["expect"], points, ok, first, seconds)
        if item.done:
            item.done(summary, row, perf_ran)
        rows.append(report(row))
    return rows


def make_slots(items: list[tuple[str, Item]], out: Path, args) -> list | None:
    """(lab, items, work directory) per tree: with -j N, a lab's items are shared among
    ceil(items / --per-tree) trees. None (after a message) when a directory is not the grader's."""
    slots = []
    for lab, group in itertools.groupby(items, key=lambda c: c[0]):
        share = [i for _, i in group]
        n = max(1, math.ceil(len(share) / max(1, args.per_tree))) if args.jobs > 1 else 1
        for k in range(n):
            slots.append((lab, share[k::n], (out / (lab if n == 1 else f"{lab}-{k}")).resolve()))
    for _, _, work in slots:  # never write over a directory the grader did not make
        problem = grade_submission.out_problem(work)
        if problem:
            print(f"mutants: {problem}", file=sys.stderr)
            return None
    return slots


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "mutants")
    parser.add_argument("--check", action="store_true",
                        help="only check that every mutant still applies (no build, no GPU)")
    parser.add_argument("--compile", action="store_true",
                        help="with --check: also compile every mutated file with nvcc -c")
    parser.add_argument("--symbols", action="store_true",
                        help="with --check: also link each mutant's objects into a library and run "
                             "cmake/CheckLabSymbols.cmake on it (a correct variant must pass it)")
    parser.add_argument("--expect", choices=("full", "lose"), default="",
                        help="with --check: only the correct variants (full) or only the wrong ones (lose)")
    parser.add_argument("-j", "--jobs", type=int, default=1,
                        help="--check --compile: parallel nvcc runs; grading: trees built at once (each lab's "
                             "mutants are shared among up to ceil(mutants / --per-tree) trees)")
    parser.add_argument("--per-tree", type=int, default=4, help="grading: mutants per tree (default 4)")
    parser.add_argument("--build-jobs", type=int, default=2, help="grading: compile jobs per tree (default 2)")
    parser.add_argument("--gpu-jobs", type=int, default=1,
                        help="grading: correctness tests run at once (timed tests always run alone)")
    parser.add_argument("--gpu-labs", type=int, default=3,
                        help="grading: labs whose correctness tests share the GPU at once (default 3; each runs "
                             "--gpu-jobs tests at once). More processes on one GPU than a student's `ctest -j 4` "
                             "puts there can make single waits on it last longer than the watchdog's budget")
    parser.add_argument("--only", nargs="+", default=[], metavar="NAME",
                        help="grading: only these mutants (their names, or lab/name)")
    parser.add_argument("--missing", action="store_true",
                        help="grading: only the mutants without a current entry in their lab's graded.json (never "
                             "graded, or graded with other tests, harness, lab folder or grade step)")
    parser.add_argument("--status", action="store_true",
                        help="no GPU, no build: per lab, the mutants that behaved, did not, or are not graded on "
                             "this tree (graded.json); exit 0 only if every one behaved")
    parser.add_argument("--stop-early", action="store_true",
                        help="a wrong mutant that already lost correctness points skips what needs the GPU alone")
    parser.add_argument("--operators", action="store_true",
                        help="grade the operator mutants of tools/staff/operators.py (every site of every "
                             "operator) instead of the mutant folders, and record them in each lab's ledger")
    parser.add_argument("--operator", action="append", default=[], metavar="OP",
                        help="--operators: only this operator (repeatable)")
    parser.add_argument("--regrade", action="store_true",
                        help="--operators: grade again what the ledger already holds for these sources")
    parser.add_argument("--survivors", action="store_true",
                        help="--operators: only the ledger's survivors that are not equivalent (after a new check)")
    parser.add_argument("--host-only", action="store_true",
                        help="run the host tests only (a machine without a GPU); a mutant they kill is recorded, "
                             "one they do not is left ungraded (mutant folders: only the \"lose\" ones are graded)")
    parser.add_argument("--sample", type=int, default=0, metavar="N",
                        help="--operators --host-only: grade again N mutants that the ledger says host tests kill "
                             "(chosen with --seed) and fail if one of them now survives")
    parser.add_argument("--seed", type=int, default=None, help="--sample: the seed (default: printed, random)")
    args = parser.parse_args(argv)
    if args.operators:
        return main_operators(args)
    if (args.compile or args.symbols or args.expect) and not args.check:
        parser.error("--compile, --symbols and --expect go with --check")
    if args.check:
        return check(args.labs, args.compile, args.jobs, symbols=args.symbols, expect=args.expect)
    unknown = labinfo.check_names(args.labs)
    if unknown:
        for message in unknown:
            print(f"mutants: {message}", file=sys.stderr)
        return 2
    if args.status:
        return status(args.labs)
    records = {lab: load_record(lab) for lab in {lab for lab, _ in lab_mutants(args.labs)}}
    graders = {lab: grader_sha(lab) for lab in records}

    def selected(lab: str, path: Path) -> bool:
        if args.missing and record_state(lab, path, records[lab], graders[lab]) == "behaves":
            return False
        if args.host_only:  # only a wrong mutant can be graded without a GPU, and only if a host test kills it
            try:
                if load_spec(path).get("expect") != "lose":
                    return False
            except MutantError:
                pass
        return not args.only or path.name in args.only or f"{lab}/{path.name}" in args.only

    chosen = [(lab, m) for lab, m in lab_mutants(args.labs) if selected(lab, m)]
    if not chosen and args.missing:
        print("mutants: every mutant of these labs behaved on this tree (graded.json); --status lists them")
        return 0
    unmatched = [n for n in args.only if not any(n in (m.name, f"{lab}/{m.name}") for lab, m in chosen)]
    if unmatched:
        print(f"mutants: --only names no mutant{' of ' + ', '.join(args.labs) if args.labs else ''}: "
              f"{', '.join(unmatched)}", file=sys.stderr)
        return 2
    if not chosen:
        print("mutants: no mutants found" + (f" for {', '.join(args.labs)}" if args.labs else ""), file=sys.stderr)
        return 1

    record_lock = threading.Lock()

    def recorded_item(lab: str, mutant: Path) -> Item:
        item = folder_item(lab, mutant)
        loaded: dict = {}  # the spec and files graded, as load() read them

        def load():
            loaded["spec"], loaded["files"] = spec_files = folder_item(lab, mutant).load()
            return spec_files

        def done(summary, row, perf_ran):
            if summary is None:
                return
            if not ran_on_gpu(summary) and not (row.expect == "lose" and host_took_points(summary, lab)):
                return  # no GPU (GPU tests skipped) and no host test took points: nothing to record
            with record_lock:
                records[lab][mutant.name] = {
                    "sha": mutant_sha(loaded["spec"], loaded["files"]), "grader": graders[lab],
                    "expect": row.expect, "points": row.points, "ok": row.ok, "first_lost": row.first,
                    "gpu": summary.get("device_name") if ran_on_gpu(summary) else "none needed (a host test)",
                    "graded_at": time.strftime("%Y-%m-%d")}
                save_record(lab, records[lab])
        item.load, item.done = load, done
        return item

    slots = make_slots([(lab, recorded_item(lab, m)) for lab, m in chosen], args.out, args)
    if slots is None:
        return 2
    gpu = GpuLock(args.gpu_labs)
    printing = threading.Lock()

    def report(row: Row) -> Row:
        with printing:
            print(f"{'ok   ' if row.ok else 'WRONG'} {row.lab}/{row.name} ({row.expect}): {row.points} {row.seconds} "
                  f"{row.first}", flush=True)
        return row

    rows: list[Row] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for result in pool.map(lambda slot: run_slot(*slot, gpu, args, report), slots):
            rows += result
    rows.sort(key=lambda r: (r.lab, r.name))
    lines = [f"{'lab':<34} {'mutant':<38} {'expect':<6} {'points':>8}  verdict  first lost test: reason"]
    for r in rows:
        lines.append(f"{r.lab:<34} {r.name:<38} {r.expect:<6} {r.points:>8}  {'ok' if r.ok else 'WRONG':<7}  {r.first}")
    lose = [r for r in rows if r.expect == "lose"]
    full = [r for r in rows if r.expect == "full"]
    lines.append(f"\nmutants losing points: {sum(r.ok for r in lose)}/{len(lose)}; "
                 f"correct variants with full marks: {sum(r.ok for r in full)}/{len(full)}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "kill-table.txt").write_text("\n".join(lines) + "\n")
    print("\n" + "\n".join(lines))
    return 0 if rows and all(r.ok for r in rows) else 1


def classify(summary: dict | None, lab: str, perf_ran: bool, host_only: bool) -> tuple[str | None, str]:
    """What one graded operator mutant was: ("killed", "host"|"gpu"), ("stillborn", ""),
    ("survived", ""), or (None, "") when the run cannot tell (host tests only, GPU tests skipped)."""
    tests = [t for t in (summary or {}).get("tests", []) if t.get("lab") == lab]
    if not tests:
        return None, ""
    if any(t["status"] in ("not built", "not started") for t in tests):
        return "stillborn", ""
    failed = [t for t in tests if t["status"] == "failed" and t["max_points"] > 0]
    if failed:
        return "killed", "host" if any(t["where"] == "host" for t in failed) else "gpu"
    if host_only or not perf_ran or any(t["status"] == "skipped" and t["where"] == "gpu" for t in tests):
        return None, ""
    return "survived", ""


def main_operators(args) -> int:
    """--operators: grade the operator mutants that the ledgers lack, record each result."""
    import random
    import operators  # noqa: E402 (tools/staff, beside this file)

    unknown = labinfo.check_names(args.labs)
    bad_ops = [o for o in args.operator if o not in operators.BY_ID]
    if unknown or bad_ops:
        for message in unknown + ([f"unknown operator {', '.join(bad_ops)}"] if bad_ops else []):
            print(f"mutants: {message}", file=sys.stderr)
        return 2
    if args.sample and not args.host_only:
        print("mutants: --sample goes with --host-only", file=sys.stderr)
        return 2
    labs = args.labs or labinfo.lab_names()
    try:
        ledgers = {lab: operators.load_ledger(lab) for lab in labs}
    except operators.LedgerError as e:
        print(f"mutants: {e}", file=sys.stderr)
        return 2
    tests = {lab: operators.tests_sha(lab) for lab in labs}
    chosen: list[tuple[str, operators.Mutant]] = []
    for lab in labs:
        for m in operators.mutants_of(lab, operators=args.operator or None):
            entry = ledgers[lab]["mutants"].get(m.id, {})
            if args.sample:
                # Checks of the compiled code read PTX made for the build's GPU (or compute_75 without
                # one): a kill they recorded on another GPU need not repeat here, so they are not sampled.
                if entry.get("sha") == m.sha and entry.get("result") == "killed" and entry.get("killed_by") == "host" \
                        and not re.match(r"(\w*Code|Technique|Barriers)\.", entry.get("first_lost", "")):
                    chosen.append((lab, m))
            elif args.survivors:
                if entry.get("sha") == m.sha and entry.get("result") == "survived" \
                        and m.id not in ledgers[lab]["equivalent"]:
                    chosen.append((lab, m))
            elif args.regrade or operators.needs_grading(m, ledgers[lab], tests[lab]):
                chosen.append((lab, m))
    if args.sample:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
        rng = random.Random(seed)
        if chosen:  # one lab, so that one tree is built (a machine without a GPU is often small)
            lab = rng.choice(sorted({lab for lab, _ in chosen}))
            pool = [c for c in chosen if c[0] == lab]
            # Each is graded with the tests' own random seed and then with two more: a kill that
            # depends on the random inputs is a test that some wrong submissions pass by luck.
            args.host_seeds = (rng.randrange(1, 1 << 31), rng.randrange(1, 1 << 31))
            print(f"mutants: --sample {args.sample} of the {len(pool)} host-killed operator mutants of {lab} "
                  f"(the ledger's word checked again, also with CUDALAB_SEED={args.host_seeds[0]} and "
                  f"{args.host_seeds[1]}), seed {seed}")
            chosen = sorted(rng.sample(pool, min(args.sample, len(pool))), key=lambda c: (c[0], c[1].id))
    if not chosen:
        print("mutants: every operator mutant of these labs is in its ledger (--regrade grades them again)")
        print(operators.score_table(labs))
        return 0
    lock = threading.Lock()
    gpu_name = "no GPU (host tests only)" if args.host_only else ""
    disagree: list[str] = []
    results: dict[str, str] = {}

    def item(lab: str, m) -> Item:
        spec = {"expect": "lose", "why": f"operator {m.operator} at {m.where}: {m.before}  ->  {m.after}"}

        def done(summary, row, perf_ran):
            result, by = classify(summary, lab, perf_ran, args.host_only)
            device = gpu_name or (summary or {}).get("device_name") or "GPU"
            with lock:
                results[f"{lab}/{m.id}"] = result or "ungraded"
                if args.sample:
                    if result != "killed":
                        disagree.append(f"{lab}/{m.id}: the ledger says host tests kill it; now {result or 'not killed'}"
                                        f" (with the tests' seed or CUDALAB_SEED={' or '.join(map(str, args.host_seeds))}"
                                        f"; {args.out / 'operators'}/.../{m.id.replace(':', '-')}.txt says which)")
                    return
                if result is None:
                    return
                operators.record(ledgers[lab], m, result, row.points, row.first, tests[lab], device)
                if by:
                    ledgers[lab]["mutants"][m.id]["killed_by"] = by
                operators.save_ledger(lab, ledgers[lab])
        return Item(m.id, lambda: (spec, m.files), done)

    slots = make_slots([(lab, item(lab, m)) for lab, m in chosen], args.out / "operators", args)
    if slots is None:
        return 2
    args.stop_early = True  # an operator mutant is graded until it is killed
    args.host_first = True
    gpu = GpuLock(args.gpu_labs)
    printing = threading.Lock()
    print(f"mutants: {len(chosen)} operator mutants in {len(slots)} trees", flush=True)

    def report(row: Row) -> Row:
        with printing:
            print(f"{results.get(f'{row.lab}/{row.name}', '?'):<9} {row.lab}/{row.name}: {row.points} {row.seconds} "
                  f"{row.first}", flush=True)
        return row

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(lambda slot: run_slot(*slot, gpu, args, report), slots))
    if args.sample:
        for d in disagree:
            print(f"mutants: {d}")
        print(f"mutants: sample of {len(chosen)}: {len(chosen) - len(disagree)} killed by the host tests as the "
              f"ledger says" + (f", {len(disagree)} not" if disagree else ""))
        return 1 if disagree else 0
    survivors = [f"  {lab}/{m.id}  {m.where}: {m.before}  ->  {m.after}" for lab, m in chosen
                 if results.get(f"{lab}/{m.id}") == "survived" and m.id not in ledgers[lab]["equivalent"]]
    print("\n" + operators.score_table(labs))
    if survivors:
        print(f"\nsurvivors of this run ({len(survivors)}): kill each with a check, or give the reason it is "
              "equivalent in the lab's ledger (\"equivalent\")\n" + "\n".join(survivors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
