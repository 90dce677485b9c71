#!/usr/bin/env python3
"""Grade one student submission in isolation.

    tools/grade_submission.py SUBMISSION [--out DIR] [--labs LAB ...] [--dry-run] [--github]

SUBMISSION is a directory or an archive (.zip, .tar, .tar.gz, .tgz) holding the student's labs/
(a labs/ folder somewhere inside, or the lab folders themselves; Windows `\\` paths are fine).
Only each lab's declared sources are taken: the SOURCES of cudalab_add_lab() in
tests/<lab>/CMakeLists.txt (tools/labinfo.py), e.g. labs/ch03_05_occupancy/occupancy.cu. Every
other file (a lab's header, its demo, tests, grading.json, tools, CMake files) is refused and
listed, and this repository's copy is used: tests and their headers always come from here. A
refused file identical to this repository's copy is only counted. The tool
  1. copies this repository (without solutions/, mutants, build trees) to DIR/tree,
  2. overlays the submitted sources, keeping the skeleton for any missing one (listed),
  3. configures and builds DIR/build, continuing past labs that do not compile,
  4. runs ctest (every test in its own process, with time limits) and the grade step.
DIR/report.txt holds the notes and the score table, DIR/results.json the Gradescope results (the
notes in its output); DIR/build/grade/ the JUnit and summary.json. A lab that does not compile
shows its compiler error; a kernel that hangs, crashes or writes out of bounds loses those tests.

--labs LAB...: grade only these labs ('submitted': the labs the submission has sources for;
default: every lab). --dry-run stops after step 2 (DIR/tree is what would be built).
--github: also write the points for GitHub Actions ($GITHUB_OUTPUT: score, max_score, result for
GitHub Classroom's autograding reporter; $GITHUB_STEP_SUMMARY: a table), see
tools/staff/autograder/classroom.yml.

DIR (default build/submissions/<name>) must be new, empty, or made by this tool (it holds the
file .cudalab-submission); in such a directory only tree/, build/ and the files above are replaced.
It may not lie inside the repository (except under build/) or inside the submission.

Fails fast, before any build, with a message and a results.json that says why (exit 2): an empty
or unreadable submission, a --labs name that is not a lab, a submission with no file that is a
lab source (or whose files are all refused), none for the labs asked for. Exit 1: the copy could
not be configured or graded. Exit 0: graded (points lost or not).
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parent))
import labinfo  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXCLUDE_TOP = {"build", ".git", "solutions"}
MAX_FILE_BYTES = 2 << 20
MARKER = ".cudalab-submission"  # marks an output directory this tool made
OWN_ENTRIES = ("tree", "build", "configure.log", "build.log", "ctest.log", "report.txt", "results.json")
SHOWN = 40  # refused files listed in results.json and on stdout (report.txt lists every one)
GROUPED = 5  # more refused files than this under one top folder outside the labs: one line


class SubmissionError(Exception):
    """A submission or command line that cannot be graded (exit 2): the message says why."""


class GradingError(Exception):
    """The pristine copy could not be configured or graded (exit 1)."""


def remove_entries(folder: Path, names) -> None:
    """Removes the files or folders @p names of @p folder (a link itself, never what it points to)."""
    for name in names:
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()

def copy_pristine(dest: Path) -> None:
    """The repository without solutions/, mutants and build trees."""
    def ignore(directory: str, names: list[str]) -> set[str]:
        rel = Path(directory).resolve().relative_to(ROOT)
        skip = {n for n in names if n in ("__pycache__",)}
        if rel == Path("."):
            skip |= {n for n in names if n in EXCLUDE_TOP}
        if rel == Path("tests"):
            skip |= {"mutants"} & set(names)
        return skip
    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=False)


# ---------------------------------------------------------------------------------------------
# The output directory: never delete what this tool did not make.

def _inside(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def made_here(out: Path) -> bool:
    """@p out was made by this tool: it holds MARKER, or it is an older version's layout (its
    build/ was configured from its own tree/)."""
    if (out / MARKER).is_file():
        return True
    try:
        cache = (out / "build" / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return False
    return f"CMAKE_HOME_DIRECTORY:INTERNAL={out / 'tree'}\n" in cache


def out_problem(out: Path, submission: Path | None = None) -> str | None:
    """Why @p out cannot be this tool's output directory (None if it can)."""
    out, root = out.resolve(), ROOT.resolve()
    if _inside(out, root) and not _inside(out, root / "build") or out == root / "build":
        return (f"--out {out} is inside the repository {root}: the copy of the repository would contain "
                f"itself. Choose a directory outside it, or one under {root / 'build'}/.")
    if _inside(root, out):
        return f"--out {out} contains the repository {root}: choose a new or empty directory."
    if submission is not None:
        sub = submission.resolve()
        if sub.is_dir() and _inside(out, sub):
            return f"--out {out} is inside the submission {sub}: choose a directory outside it."
        if _inside(sub, out):
            return f"the submission {sub} is inside --out {out}: choose another --out."
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            return f"--out {out} exists and is not a directory."
        try:
            empty = not any(out.iterdir())
        except OSError as e:
            return f"--out {out} cannot be read ({e.strerror})."
        if not empty and not made_here(out):
            return (f"--out {out} is not empty and was not made by grade_submission.py (it has no {MARKER}): "
                    "nothing in it was touched. Choose a new or empty directory.")
    return None


def claim_out(out: Path, submission: Path | None = None) -> Path:
    """Makes @p out this tool's directory (SubmissionError if it cannot be) and removes what an
    earlier run of this tool left in it; nothing else in it is touched."""
    problem = out_problem(out, submission)
    if problem:
        raise SubmissionError(problem)
    out = out.resolve()
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / MARKER).write_text("Made by tools/grade_submission.py. A later run replaces only: "
                                  + ", ".join(OWN_ENTRIES) + ".\n")
        remove_entries(out, OWN_ENTRIES)
    except OSError as e:
        raise SubmissionError(f"--out {out} cannot be used: {e}") from None
    return out


# ---------------------------------------------------------------------------------------------
# Intake: which submitted files are a lab's declared sources.

@dataclass
class Intake:
    """What a submission holds."""
    files: dict = field(default_factory=dict)     # PurePosixPath(lab, source) -> bytes: taken
    refused: list = field(default_factory=list)   # (path, why)
    unchanged: int = 0                            # refused files identical to this repository's copy
    entries: int = 0                              # files (not folders) in the submission

    def refused_lines(self, limit: int | None = None) -> list[str]:
        """One line per refused file; many outside the labs under one folder make one line."""
        groups: dict[str, list[tuple[str, str]]] = {}
        for path, why in self.refused:
            top = path.split("/", 1)[0] + "/" if "/" in path else path
            groups.setdefault(top if why == OUTSIDE and "/" in path else path, []).append((path, why))
        lines = []
        for key, items in groups.items():
            if len(items) > GROUPED:
                lines.append(f"refused: {len(items)} files under {key} ({OUTSIDE})")
            else:
                lines += [f"refused: {path} ({why})" for path, why in items]
        if limit is not None and len(lines) > limit:
            lines = lines[:limit] + [f"... and {len(lines) - limit} more refused files (see report.txt)"]
        return lines


OUTSIDE = "not inside labs/<lab>/: only the labs' source files are graded"


def normalize(name: str) -> str:
    """An archive member's or file's name with `/` separators (Windows zips use `\\`)."""
    return name.replace("\\", "/")


def safe(path: str) -> bool:
    p = PurePosixPath(normalize(path))
    return not p.is_absolute() and ".." not in p.parts


def lab_relative(path: str, labs) -> PurePosixPath | None:
    """'x/labs/ch03_10/reduction.cu' or 'ch03_10/reduction.cu' -> 'ch03_10/reduction.cu'."""
    parts = PurePosixPath(normalize(path)).parts
    if "labs" in parts:
        parts = parts[parts.index("labs") + 1:]
    else:
        for i, p in enumerate(parts):
            if p in labs:
                parts = parts[i:]
                break
    if len(parts) < 2 or parts[0] not in labs:
        return None
    return PurePosixPath(*parts)


def pristine_copy(path: str, rel: PurePosixPath | None) -> Path | None:
    """This repository's file that a refused submitted file stands for (None if none): the lab
    file for a path inside a lab, else the longest tail of @p path that names a file here."""
    parts = PurePosixPath(path).parts
    candidates = [ROOT / "labs" / Path(*rel.parts)] if rel is not None else []
    candidates += [ROOT.joinpath(*parts[k:]) for k in range(len(parts))]
    for c in candidates:
        inside = c.relative_to(ROOT).parts
        if inside[0] in EXCLUDE_TOP or inside[:2] == ("tests", "mutants"):
            continue
        if c.is_file() and not c.is_symlink():
            return c
    return None


def _under_tests(name: str, rel: PurePosixPath) -> bool:
    """The file is a lab's test-side file (tests/<lab>/...), not one of labs/<lab>/."""
    parts = PurePosixPath(name).parts
    if "labs" in parts:
        return False
    i = parts.index(rel.parts[0])
    return i > 0 and parts[i - 1] == "tests"


def _members(submission: Path):
    """(name, kind, size, read) for every file of the submission; kind: file | link | other."""
    if submission.is_dir():
        for path in sorted(submission.rglob("*")):
            rel = path.relative_to(submission).as_posix()
            if path.is_symlink():
                yield rel, "link", 0, None
            elif path.is_file():
                yield rel, "file", path.stat().st_size, path.read_bytes
            elif not path.is_dir():
                yield rel, "other", 0, None
    elif zipfile.is_zipfile(submission):
        with zipfile.ZipFile(submission) as z:
            for info in z.infolist():
                if info.is_dir() or info.filename.endswith("\\"):
                    continue
                mode = (info.external_attr >> 16) & 0o170000
                kind = "link" if mode == 0o120000 else "file" if mode in (0, 0o100000) else "other"
                yield info.filename, kind, info.file_size, (lambda i=info: z.read(i))
    elif tarfile.is_tarfile(submission):
        with tarfile.open(submission) as t:
            for m in t.getmembers():
                if m.isdir():
                    continue
                kind = "file" if m.isfile() else "link" if (m.issym() or m.islnk()) else "other"
                yield m.name, kind, m.size, (lambda m=m: t.extractfile(m).read())
    elif submission.is_file() and submission.stat().st_size == 0:
        raise SubmissionError(f"the submission is empty: {submission.name} has 0 bytes")
    else:
        raise SubmissionError(f"the submission {submission.name} is neither a directory nor a .zip/.tar archive")


def collect(submission: Path, labs: dict) -> Intake:
    """The submitted files of @p labs (name -> labinfo.Lab): each lab's declared sources are
    taken, everything else is refused (or counted, if identical to this repository's copy)."""
    intake = Intake()
    candidates: dict[PurePosixPath, list[tuple[str, bytes]]] = {}
    try:
        for raw, kind, size, read in _members(submission):
            name = normalize(raw)
            intake.entries += 1
            if not safe(name):
                intake.refused.append((name, "path escapes the submission"))
                continue
            while name.startswith("./"):
                name = name[2:]
            if kind != "file":
                intake.refused.append((name, "not a regular file"))
                continue
            rel = lab_relative(name, labs)
            if rel is not None and PurePosixPath(*rel.parts[1:]).as_posix() in labs[rel.parts[0]].sources:
                if size > MAX_FILE_BYTES:
                    intake.refused.append((name, f"larger than {MAX_FILE_BYTES >> 20} MiB"))
                else:
                    candidates.setdefault(rel, []).append((name, read()))
                continue
            original = pristine_copy(name, rel)
            if original is not None and size == original.stat().st_size and read() == original.read_bytes():
                intake.unchanged += 1
            elif rel is not None and _under_tests(name, rel):
                intake.refused.append((name, "tests and grading.json always come from the course's copy"))
            elif rel is not None:
                sources = ", ".join(labs[rel.parts[0]].sources)
                intake.refused.append((name, f"not a file you edit: the course's copy is used; "
                                             f"in {rel.parts[0]} only {sources} is graded"))
            else:
                base = PurePosixPath(name).name
                homes = [f"labs/{lab.name}/{src}" for lab in labs.values() for src in lab.sources if src == base]
                intake.refused.append((name, OUTSIDE + (f"; it belongs in {homes[0]}" if len(homes) == 1 else "")))
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError, zlib.error, RuntimeError) as e:
        raise SubmissionError(f"the submission {submission.name} cannot be read: {e}") from None
    for rel, found in sorted(candidates.items()):
        found.sort(key=lambda item: (len(PurePosixPath(item[0]).parts), item[0]))
        intake.files[rel] = found[0][1]
        for other, _ in found[1:]:
            intake.refused.append((other, f"labs/{rel} was taken from {found[0][0]}"))
    return intake


# ---------------------------------------------------------------------------------------------
# Building and grading the copy.

def run(cmd: list[str], log: Path, **kw) -> int:
    with log.open("a") as f:
        f.write("$ " + " ".join(map(str, cmd)) + "\n")
        f.flush()
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, **kw).returncode


def write_if_changed(path: Path, data: bytes) -> None:
    """Rewrite a file only when its content changes (keeps incremental rebuilds incremental)."""
    if not path.exists() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def overlay(tree: Path, files: dict[PurePosixPath, bytes], selected: list[str], notes: list[str],
            labs: dict | None = None) -> None:
    """Puts the submitted sources of the selected labs over the pristine labs/ of @p tree: every
    lab file is first restored from this repository, then each declared source submitted is
    written. Anything else in @p files is refused (noted); a source not submitted keeps the
    skeleton (noted)."""
    labs = labs or {name: labinfo.read_lab(name, ROOT) for name in selected}
    for lab in selected:  # start from the pristine lab (matters when a tree is reused)
        for original in (ROOT / "labs" / lab).rglob("*"):
            if original.is_file():
                write_if_changed(tree / "labs" / original.relative_to(ROOT / "labs"), original.read_bytes())
    for rel, data in sorted(files.items()):
        if rel.parts[0] not in selected:
            continue
        if PurePosixPath(*rel.parts[1:]).as_posix() in labs[rel.parts[0]].sources:
            write_if_changed(tree / "labs" / Path(*rel.parts), data)
        else:
            notes.append(f"refused: labs/{rel} (not a declared source of {rel.parts[0]})")
    for lab in selected:
        for source in labs[lab].sources:
            if PurePosixPath(lab, source) not in files:
                notes.append(f"missing: labs/{lab}/{source} (the skeleton was used)")


def configure(out: Path, tree: Path, build: Path, selected: list[str], extra: list[str] | None = None,
              env: dict | None = None) -> None:
    """Configures @p build from @p tree for the selected labs (@p extra: more -D options, e.g. a
    compiler launcher; @p env: the environment)."""
    # A grading machine: a test that needs Nsight Compute's counters fails where they cannot be read
    # (on a student's own machine it is "not applicable" instead).
    cmd = ["cmake", "-S", str(tree), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
           "-DCUDALAB_USE_SOLUTIONS=OFF", f"-DCUDALAB_LABS={';'.join(selected)}", "-DCUDALAB_REQUIRE_COUNTERS=ON",
           *(extra or [])]
    if (ROOT / "solutions").is_dir():  # the copy has no solutions/: its timed tests' reference kernels come from here
        cmd.append(f"-DCUDALAB_REFERENCE_SOLUTIONS={ROOT / 'solutions'}")
    try:
        rc = run(cmd, out / "configure.log", **({"env": env} if env is not None else {}))
    except OSError as e:
        raise GradingError(f"configure failed: cannot run cmake ({e})") from None
    if rc != 0:
        raise GradingError(f"configure failed:\n{(out / 'configure.log').read_text(errors='replace')[-3000:]}")


def prepare(out: Path, selected: list[str], files: dict | None = None, notes: list[str] | None = None,
            submission: Path | None = None, extra: list[str] | None = None,
            env: dict | None = None) -> tuple[Path, Path]:
    """A pristine copy of the repository in out/tree (with @p files overlaid, if given),
    configured in out/build for the selected labs. @p out must be new, empty or this tool's."""
    out = claim_out(out, submission)
    tree, build = out / "tree", out / "build"
    copy_pristine(tree)
    if files is not None:
        overlay(tree, files, selected, notes if notes is not None else [])
    configure(out, tree, build, selected, extra, env)
    return tree, build


def grade_step(build: Path, junit: Path, build_log: Path) -> str:
    """tools/grade.py on one ctest JUnit file of @p build: writes build/grade/summary.json and the
    rest, returns the score table."""
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"),
                           "--manifest", str(build / "grade" / "manifest.json"), "--junit", str(junit),
                           "--out", str(build / "grade"), "--build-log", str(build_log)],
                          capture_output=True, text=True)
    return proc.stdout + (proc.stderr if proc.returncode else "")


def build_and_grade(out: Path, build: Path, selected: list[str]) -> str:
    """Builds (past labs that do not compile), runs ctest and the grade step; returns the table."""
    log = out / "build.log"
    log.write_text("")
    run(["cmake", "--build", str(build), "--", "-k", "0"], log)  # a lab that fails still lets others build
    junit = build / "grade" / "junit.xml"
    junit.unlink(missing_ok=True)
    (build / "grade" / "results.json").unlink(missing_ok=True)
    env = dict(os.environ, CUDALAB_GRADING="1")  # the grade step runs below, with the build log
    (out / "ctest.log").write_text("")
    run(["ctest", "--test-dir", str(build), "-j", "4", "--output-junit", str(junit),
         "-L", "|".join(f"^{lab}$" for lab in selected)], out / "ctest.log", env=env)
    return grade_step(build, junit, log)


# ---------------------------------------------------------------------------------------------
# Results.

def shorten(notes: list[str]) -> list[str]:
    """The first SHOWN notes (all of them are in report.txt)."""
    return notes[:SHOWN] + ([f"... and {len(notes) - SHOWN} more (see report.txt)"] if len(notes) > SHOWN else [])


def notes_block(notes: list[str]) -> list[str]:
    return ["Notes:"] + [f"  {n}" for n in notes] if notes else ["Notes: none"]


def failure_results(message: str, notes: list[str] | None = None) -> dict:
    """Gradescope results for a submission that was not graded."""
    output = message + ("\n\n" + "\n".join(shorten(notes)) if notes else "")
    return {"score": 0.0, "output": output, "visibility": "visible", "stdout_visibility": "visible",
            "tests": [], "extra_data": {"cudalab": {"error": message, "notes": notes or []}}}


def classroom_result(results: dict) -> dict:
    """GitHub Classroom's autograding reporter format (one runner) for Gradescope @p results."""
    tests = results.get("tests", [])
    max_score = sum(float(t.get("max_score", 0)) for t in tests)
    score = sum(float(t.get("score", 0)) for t in tests)
    error = results.get("extra_data", {}).get("cudalab", {}).get("error")
    status = "error" if error or not tests else "pass" if score >= max_score else "fail"
    out = [{"name": t.get("name", "?"), "status": "pass" if t.get("status") == "passed" else "fail",
            "score": float(t.get("score", 0)), "line_no": 0, "test_code": "", "filename": "", "duration": 0,
            "message": str(t.get("output", "")).splitlines()[0][:200] if t.get("output") else ""}
           for t in tests]
    if error:
        out = [{"name": "submission", "status": "error", "score": 0, "line_no": 0, "test_code": "",
                "filename": "", "duration": 0, "message": error[:1000]}]
    return {"version": 1, "status": status, "max_score": max_score, "tests": out}


def markdown_summary(results: dict) -> str:
    """A job summary: the points per lab and the tests that lost points."""
    tests = results.get("tests", [])
    data = results.get("extra_data", {}).get("cudalab", {})
    lines = ["## cuda-labs grade", ""]
    if data.get("error"):
        lines += ["**Not graded:** " + data["error"].replace("\n", " "), ""]
    labs: dict[str, list[float]] = {}
    for t in tests:
        lab = (t.get("tags") or ["?"])[0]
        pair = labs.setdefault(lab, [0.0, 0.0])
        pair[0] += float(t.get("score", 0))
        pair[1] += float(t.get("max_score", 0))
    if labs:
        total = [sum(p[0] for p in labs.values()), sum(p[1] for p in labs.values())]
        lines += ["| lab | points |", "|---|---|"]
        lines += [f"| {lab} | {p[0]:g}/{p[1]:g} |" for lab, p in labs.items()]
        lines += [f"| **total** | **{total[0]:g}/{total[1]:g}** |", ""]
        lost = [t for t in tests if float(t.get("score", 0)) < float(t.get("max_score", 0))]
        if lost:
            lines += [f"### Points lost ({len(lost)} tests)", ""]
            for t in lost[:100]:
                first = str(t.get("output", "")).splitlines()[0] if t.get("output") else ""
                lines.append(f"- `{t['name']}` ({float(t['score']):g}/{float(t['max_score']):g}): {first[:200]}")
            lines.append("")
    notes = data.get("notes") or []
    if notes:
        lines += ["### Notes", ""] + [f"- {n}" for n in notes[:SHOWN + 1]] + [""]
    return "\n".join(lines) + "\n"


def github_outputs(results: dict) -> None:
    """$GITHUB_OUTPUT (score, max_score, result: base64 reporter JSON) and $GITHUB_STEP_SUMMARY."""
    tests = results.get("tests", [])
    score = sum(float(t.get("score", 0)) for t in tests)
    max_score = sum(float(t.get("max_score", 0)) for t in tests)
    encoded = base64.b64encode(json.dumps(classroom_result(results)).encode()).decode()
    if os.environ.get("GITHUB_OUTPUT"):
        with open(os.environ["GITHUB_OUTPUT"], "a") as f:
            f.write(f"score={score:g}\nmax_score={max_score:g}\nresult={encoded}\n")
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a") as f:
            f.write(markdown_summary(results))


def finish(out: Path | None, results: dict, report: list[str], github: bool) -> None:
    """Writes out/results.json and out/report.txt (when there is an out) and the GitHub outputs."""
    if out is not None:
        (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
        (out / "report.txt").write_text("\n".join(report) + "\n")
    if github:
        github_outputs(results)


# ---------------------------------------------------------------------------------------------

def parse_labs(values: list[str] | None) -> list[str] | None:
    """--labs values, also comma- or space-separated in one argument."""
    if values is None:
        return None
    return [v for value in values for v in value.replace(",", " ").split()]


def plan_submission(submission: Path, only: list[str] | None, header: list[str],
                    notes: list[str]) -> tuple[Intake, dict, list[str]]:
    """What grading @p submission means, before anything is copied or built: its intake (the taken
    and refused files), the labs (name -> labinfo.Lab) and the labs to grade (@p only: --labs).
    Appends to @p header ("Labs graded: ...") and @p notes (refused, ignored) as it goes, so that
    they hold what was found when it raises SubmissionError or labinfo.LabError (not graded)."""
    names = labinfo.lab_names(ROOT)
    labs = labinfo.read_labs(ROOT)
    if only is not None:
        unknown = labinfo.check_names([n for n in only if n != "submitted"], ROOT)
        if unknown:
            raise SubmissionError("--labs: " + "; ".join(unknown))
        if not only:
            raise SubmissionError("--labs needs at least one lab name (or 'submitted')")
    if not submission.exists():
        raise SubmissionError(f"the submission {submission} does not exist")
    intake = collect(submission, labs)
    notes[:] = intake.refused_lines()
    if intake.unchanged:
        notes.append(f"ignored: {intake.unchanged} submitted course files identical to the course's copy")
    example = f"labs/{names[0]}/{labs[names[0]].sources[0]}" if names else "labs/<lab>/<file>.cu"
    if intake.entries == 0:
        raise SubmissionError(f"the submission is empty: {submission.name} holds no files. Submit your "
                              f"labs/ folder (or a .zip of it) with the files you edited, e.g. {example}.")
    if not intake.files:
        lab_files = any(not why.startswith(OUTSIDE) for _, why in intake.refused)
        what = ("every file of the submission was refused" if lab_files
                else "no file of the submission is a lab's source file")
        raise SubmissionError(f"{what}: nothing to grade. Graded files are each lab's sources, e.g. {example} "
                              "(inside a labs/ folder, or the lab folders themselves).")
    submitted = sorted({rel.parts[0] for rel in intake.files})
    if only is None:
        selected = names
    else:
        asked = {n for n in only if n != "submitted"} | set(submitted if "submitted" in only else [])
        selected = sorted(asked, key=names.index)
        without = [n for n in selected if n not in submitted]
        if without and not any(n in submitted for n in selected):
            raise SubmissionError(f"the submission has no source file for {', '.join(without)}; it has files "
                                  f"for {', '.join(submitted)}")
    header.append(f"Labs graded: {', '.join(selected)}")
    return intake, labs, selected


def graded_results(build: Path, selected: list[str], notes: list[str], table: str) -> dict:
    """The Gradescope results of a graded copy: the grade step's build/grade/results.json with the
    notes at the top of its output and in extra_data (GradingError if the grade step wrote none)."""
    try:
        results = json.loads((build / "grade" / "results.json").read_text())
    except (OSError, ValueError):
        raise GradingError(f"the grade step wrote no results.json:\n{table[-3000:]}") from None
    shown = shorten(notes)
    results["output"] = "\n".join((["Notes:"] + shown + [""] if notes else [])
                                  + [str(results.get("output", ""))])
    results.setdefault("extra_data", {})["cudalab"] = {"labs": selected, "notes": notes}
    return results


def grade_submission(submission: Path, out: Path, only: list[str] | None = None, dry_run: bool = False,
                     github: bool = False) -> int:
    """Grades @p submission in @p out; returns the exit status (see the module's docstring)."""
    try:
        out = claim_out(out, submission)
    except SubmissionError as e:
        print(f"grade_submission: {e}", file=sys.stderr)
        if github:
            github_outputs(failure_results(str(e)))
        return 2
    header = [f"Submission: {submission}"]
    notes: list[str] = []
    try:
        intake, labs, selected = plan_submission(submission, only, header, notes)
    except (SubmissionError, labinfo.LabError) as e:
        message = f"not graded: {e}"
        print(f"grade_submission: {message}", file=sys.stderr)
        for n in shorten(notes):
            print(f"  {n}", file=sys.stderr)
        finish(out, failure_results(message, notes), header + [message] + notes, github)
        return 2

    try:
        tree = out / "tree"
        copy_pristine(tree)
        overlay(tree, intake.files, selected, notes, labs)
        shown = shorten(notes)
        if dry_run:
            table = f"(dry run: {tree} holds what would be built; nothing was built or graded)"
            results = failure_results("dry run: not built or graded", notes)
            results["extra_data"]["cudalab"].update(dry_run=True, error=None, labs=selected, notes=notes)
        else:
            build = out / "build"
            configure(out, tree, build, selected)
            table = build_and_grade(out, build, selected)
            results = graded_results(build, selected, notes, table)
    except OSError as e:
        message = f"could not be graded: {e}"
        print(f"grade_submission: {message}", file=sys.stderr)
        finish(out, failure_results(message, notes), header + notes + [message], github)
        return 1
    except GradingError as e:
        message = f"could not be graded: {e}"
        print(f"grade_submission: {message}", file=sys.stderr)
        finish(out, failure_results(message, notes), header + notes + [message], github)
        return 1
    finish(out, results, header + notes_block(notes) + [table], github)
    print("\n".join(header + notes_block(shown) + [table]))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submission", type=Path)
    parser.add_argument("--out", type=Path, help="work directory (default build/submissions/<name>)")
    parser.add_argument("--labs", nargs="*",
                        help="grade only these labs ('submitted': the labs the submission has files for)")
    parser.add_argument("--dry-run", action="store_true",
                        help="stop after overlaying the submission: DIR/tree is what would be built")
    parser.add_argument("--github", action="store_true",
                        help="also write $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY (GitHub Actions)")
    args = parser.parse_args(argv)
    out = args.out or ROOT / "build" / "submissions" / (args.submission.name.split(".")[0] or "submission")
    return grade_submission(args.submission, out, parse_labs(args.labs), args.dry_run, args.github)


if __name__ == "__main__":
    sys.exit(main())
