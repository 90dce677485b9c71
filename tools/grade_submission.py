#!/usr/bin/env python3
"""Grade one student submission in isolation.

    tools/grade_submission.py SUBMISSION [--out DIR] [--labs LAB ...]

SUBMISSION is a directory or an archive (.zip, .tar, .tar.gz, .tgz) holding the student's labs/
(either a labs/ folder somewhere inside, or the lab folders themselves). Only files inside labs/
are taken; tests, common/, thresholds and CMake files always come from this repository. The tool
  1. copies this repository (without solutions/, mutants, build trees) to DIR/tree,
  2. overlays the submitted labs/ files (paths escaping labs/, links and unknown labs are refused
     and listed), keeping the original skeleton for any missing file (listed),
  3. configures and builds DIR/build, continuing past labs that do not compile,
  4. runs ctest (every test in its own process, with time limits) and the grade step.
DIR/report.txt holds the notes and the score table; DIR/build/grade/ the JUnit, summary.json and
Gradescope results.json. A lab that does not compile shows its compiler error; a kernel that hangs,
crashes or writes out of bounds loses those tests only.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
EXCLUDE_TOP = {"build", ".git", "solutions"}
MAX_FILE_BYTES = 2 << 20


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


def lab_relative(path: str, labs: set[str]) -> PurePosixPath | None:
    """'x/labs/ch03_10/reduction.cu' or 'ch03_10/reduction.cu' -> 'ch03_10/reduction.cu'."""
    parts = PurePosixPath(path).parts
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


def safe(path: str) -> bool:
    p = PurePosixPath(path.replace("\\", "/"))
    return not p.is_absolute() and ".." not in p.parts and not path.startswith(("/", "\\"))


def collect(submission: Path, labs: set[str], notes: list[str]) -> dict[PurePosixPath, bytes]:
    """The submitted lab files, keyed by path below labs/."""
    files: dict[PurePosixPath, bytes] = {}

    def take(name: str, data: bytes | None, is_file: bool) -> None:
        if not safe(name):
            notes.append(f"refused: {name} (path escapes labs/)")
            return
        if not is_file:
            notes.append(f"refused: {name} (not a regular file)")
            return
        rel = lab_relative(name, labs)
        if rel is None:
            notes.append(f"ignored: {name} (only files inside labs/<lab>/ are taken)")
            return
        if data is None or len(data) > MAX_FILE_BYTES:
            notes.append(f"refused: {name} (larger than {MAX_FILE_BYTES >> 20} MiB)")
            return
        files[rel] = data

    if submission.is_dir():
        for path in sorted(submission.rglob("*")):
            rel = path.relative_to(submission).as_posix()
            if path.is_symlink():
                take(rel, None, False)
            elif path.is_file():
                take(rel, path.read_bytes() if path.stat().st_size <= MAX_FILE_BYTES else None, True)
    elif zipfile.is_zipfile(submission):
        with zipfile.ZipFile(submission) as z:
            for info in z.infolist():
                if info.is_dir():
                    continue
                is_link = (info.external_attr >> 16) & 0o170000 == 0o120000
                take(info.filename, z.read(info) if info.file_size <= MAX_FILE_BYTES else None, not is_link)
    elif tarfile.is_tarfile(submission):
        with tarfile.open(submission) as t:
            for m in t.getmembers():
                if m.isdir():
                    continue
                data = t.extractfile(m).read() if m.isfile() and m.size <= MAX_FILE_BYTES else None
                take(m.name, data, m.isfile())
    else:
        raise SystemExit(f"grade_submission: {submission} is neither a directory nor a .zip/.tar archive")
    return files


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


def overlay(tree: Path, files: dict[PurePosixPath, bytes], selected: list[str], notes: list[str]) -> None:
    """Puts the submitted files of the selected labs over the pristine labs/ of @p tree."""
    for lab in selected:  # start from the pristine lab (matters when a tree is reused)
        for original in (ROOT / "labs" / lab).rglob("*"):
            if original.is_file():
                write_if_changed(tree / "labs" / original.relative_to(ROOT / "labs"), original.read_bytes())
    for rel, data in sorted(files.items()):
        if rel.parts[0] in selected:
            write_if_changed(tree / "labs" / Path(*rel.parts), data)
    for lab in selected:
        for original in sorted((ROOT / "labs" / lab).rglob("*")):
            rel = PurePosixPath(lab, *original.relative_to(ROOT / "labs" / lab).parts)
            edited = original.suffix == ".cu" and original.name != "demo.cu"  # the files students write
            if edited and rel not in files:
                notes.append(f"missing: labs/{rel} (the original skeleton was used)")


def prepare(out: Path, selected: list[str]) -> tuple[Path, Path]:
    """A pristine copy of the repository in out/tree, configured in out/build for the selected labs."""
    tree, build = out / "tree", out / "build"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    copy_pristine(tree)
    configure = ["cmake", "-S", str(tree), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                 "-DCUDALAB_USE_SOLUTIONS=OFF", f"-DCUDALAB_LABS={';'.join(selected)}"]
    if run(configure, out / "configure.log") != 0:
        raise SystemExit(f"grade_submission: configure failed:\n{(out / 'configure.log').read_text()[-3000:]}")
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
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    run(["cmake", "--build", str(build), "-j", jobs, "--", "-k"], log)  # a lab that fails still lets others build
    junit = build / "grade" / "junit.xml"
    junit.unlink(missing_ok=True)
    env = dict(os.environ, CUDALAB_GRADING="1")  # the grade step runs below, with the build log
    (out / "ctest.log").write_text("")
    run(["ctest", "--test-dir", str(build), "-j", "1", "--output-junit", str(junit),
         "-L", "|".join(f"^{lab}$" for lab in selected)], out / "ctest.log", env=env)
    return grade_step(build, junit, log)


def grade_submission(submission: Path, out: Path, only: list[str] | None = None) -> int:
    out = out.resolve()
    labs = {p.name for p in (ROOT / "labs").iterdir() if p.is_dir()}
    notes: list[str] = []
    files = collect(submission, labs, notes)
    if only == ["submitted"]:  # the labs the submission has files for
        only = sorted({rel.parts[0] for rel in files}) or sorted(labs)
    selected = sorted(set(only) & labs) if only else sorted(labs)
    tree, build = prepare(out, selected)
    overlay(tree, files, selected, notes)
    table = build_and_grade(out, build, selected)
    report = [f"Submission: {submission}", f"Labs graded: {', '.join(selected)}"]
    report += ["Notes:"] + [f"  {n}" for n in notes] if notes else ["Notes: none"]
    report.append(table)
    (out / "report.txt").write_text("\n".join(report) + "\n")
    print("\n".join(report))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submission", type=Path)
    parser.add_argument("--out", type=Path, help="work directory (default build/submissions/<name>)")
    parser.add_argument("--labs", nargs="*",
                        help="grade only these labs ('submitted': the labs the submission has files for)")
    args = parser.parse_args(argv)
    if not args.submission.exists():
        print(f"grade_submission: {args.submission} does not exist")
        return 2
    out = args.out or ROOT / "build" / "submissions" / args.submission.name.split(".")[0]
    return grade_submission(args.submission, out, args.labs)


if __name__ == "__main__":
    sys.exit(main())
