#!/usr/bin/env python3
"""Generate the student skeletons in labs/<lab>/ from the marked reference files in solutions/<lab>/.

A reference file marks each part the student writes:

    // BEGIN SOLUTION
    ... reference code ...
    // STUB: // TODO: what to do (one or more STUB lines; their text replaces the region)
    // END SOLUTION

In the skeleton the whole region, markers included, becomes the STUB lines' text, indented like the
BEGIN marker. Each marker is a `//` line of its own, spelled exactly so; anything else that looks like
a marker (`/* BEGIN SOLUTION */`, `BEGIN_SOLUTION`, `// END SOLUTION (kernel 1)`) is an error with
file and line, as are unbalanced and nested regions: a region this tool did not recognise would be
copied into the skeleton, solution included. This module owns the marker syntax (tools/staff/mutants.py
uses it).

The files generated are the lab's declared sources, the SOURCES of cudalab_add_lab() in
tests/<lab>/CMakeLists.txt (tools/labinfo.py): labs/<lab>/<source> from solutions/<lab>/<source>.
A solution file no lab declares, or a declared one that is missing, is an error. Skeletons are
committed; `--check` fails (exit 1) when a committed skeleton differs from what this tool
generates. Errors (bad markers, unknown lab names) exit 2.

    tools/stubgen.py              regenerate every lab
    tools/stubgen.py LAB...       regenerate some labs
    tools/stubgen.py --check      verify, change nothing
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import labinfo  # noqa: E402

BEGIN = re.compile(r"^(\s*)//\s*BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*//\s*END SOLUTION\s*$")
STUB = re.compile(r"^\s*//\s*STUB:( ?)(.*)$")
# Anything that looks like a marker but is not one of the three forms above: a block comment
# (/* BEGIN SOLUTION */), BEGIN_SOLUTION, begin solution, a marker with text after it, ...
# Such a region would be copied into the skeleton verbatim, so it is an error.
MARKER_LIKE = re.compile(r"\b(BEGIN|END)[\s_-]*SOLUTION\b|\bSTUB\s*:", re.I)


class MarkerError(Exception):
    """A reference file whose markers do not pair up or are not spelled as supported."""


def scan(text: str, name: str = "<text>") -> list[tuple[str, str, str]]:
    """Classifies each line of a reference file: (kind, line, indent) with kind "code" (outside
    any region), "begin", "end", "stub" (its text in indent), or "solution" (reference code
    inside a region). Raises MarkerError (file:line) for anything else that looks like a marker,
    and for unbalanced or nested markers."""
    lines: list[tuple[str, str, str]] = []
    indent = ""
    begin_line = 0
    inside = False
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        begin, end, stub = BEGIN.match(line), END.match(line), STUB.match(line)
        if begin:
            if inside:
                raise MarkerError(f"{name}:{number}: BEGIN SOLUTION inside the region opened at line {begin_line}"
                                  " (regions cannot nest)")
            inside, indent, begin_line = True, begin.group(1), number
            lines.append(("begin", line, indent))
        elif end:
            if not inside:
                raise MarkerError(f"{name}:{number}: END SOLUTION without BEGIN SOLUTION")
            inside = False
            lines.append(("end", line, ""))
        elif stub:
            if not inside:
                raise MarkerError(f"{name}:{number}: STUB line outside a BEGIN/END SOLUTION region")
            lines.append(("stub", line, (indent + stub.group(2)).rstrip() + "\n"))
        elif MARKER_LIKE.search(line):
            raise MarkerError(f"{name}:{number}: unsupported marker {line.strip()[:80]!r}: markers are the lines "
                              "`// BEGIN SOLUTION`, `// STUB: <text>` and `// END SOLUTION`, each alone on "
                              "its line (no block comments, no other spelling)")
        else:
            lines.append(("solution" if inside else "code", line, ""))
    if inside:
        raise MarkerError(f"{name}:{begin_line}: BEGIN SOLUTION is never closed")
    return lines


def make_skeleton(text: str, name: str = "<text>") -> str:
    """Returns the skeleton for one reference file's text: each region becomes its STUB text."""
    return "".join(line if kind == "code" else stub for kind, line, stub in scan(text, name)
                   if kind in ("code", "stub"))


def strip_markers(text: str, name: str = "<text>") -> str:
    """The reference file as a student would have written it: marker and STUB lines removed
    (MarkerError as make_skeleton)."""
    return "".join(line for kind, line, _ in scan(text, name) if kind in ("code", "solution"))


# tests/<lab>/skeleton.sha256: the SHA-256 of each skeleton source as shipped. A lab whose sources
# all still have these hashes is "not started": its tests are not run (cmake/DiscoverTests.cmake).
SKELETON_HASHES_HEADER = ("# Generated by tools/stubgen.py -- do not edit. The SHA-256 of each source of the skeleton as\n"
                          "# shipped: while labs/<lab>/ still has exactly these, the lab is \"not started\" and its\n"
                          "# tests are not run (cmake/DiscoverTests.cmake; CUDALAB_GRADE_SKELETONS=1 runs them).\n")


def read_reference(path: Path, root: Path) -> str:
    """A reference file's text; MarkerError if it is not UTF-8."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise MarkerError(f"{path.relative_to(root)}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def plan(root: Path, labs: list[str]) -> dict[Path, str]:
    """Maps each skeleton path to the text it must have: labs/<lab>/<source> for every declared
    source of every lab (SOURCES in tests/<lab>/CMakeLists.txt, see tools/labinfo.py), made from
    solutions/<lab>/<source>. MarkerError for a solution file that is missing, that no lab
    declares, or whose markers are wrong."""
    solutions = root / "solutions"
    names = labinfo.lab_names(root)
    problems = [f"solutions/{p.name}/ is not a lab (no tests/{p.name}/CMakeLists.txt)"
                for p in sorted(solutions.iterdir()) if p.is_dir() and p.name not in names and not labs]
    result: dict[Path, str] = {}
    for name in labs or names:
        try:
            lab = labinfo.read_lab(name, root)
        except labinfo.LabError as e:
            problems.append(str(e))
            continue
        lab_dir = solutions / name
        declared = set(lab.sources)
        hashes = []
        for source in lab.sources:
            src = lab_dir / source
            if not src.is_file():
                problems.append(f"solutions/{name}/{source} is missing (a declared SOURCES file of {name})")
                continue
            try:
                skeleton = make_skeleton(read_reference(src, root), str(src.relative_to(root)))
                result[root / "labs" / name / source] = skeleton
                hashes.append(f"{hashlib.sha256(skeleton.encode('utf-8')).hexdigest()}  {source}\n")
            except MarkerError as e:
                problems.append(str(e))
        if len(hashes) == len(lab.sources):
            result[root / "tests" / name / "skeleton.sha256"] = SKELETON_HASHES_HEADER + "".join(hashes)
        for extra in sorted(lab_dir.rglob("*")) if lab_dir.is_dir() else []:
            if extra.is_file() and extra.relative_to(lab_dir).as_posix() not in declared \
                    and "__pycache__" not in extra.parts:
                problems.append(f"solutions/{name}/{extra.relative_to(lab_dir).as_posix()} is not among the SOURCES "
                                f"of tests/{name}/CMakeLists.txt (it would never be built or turned into a skeleton)")
    if problems:
        raise MarkerError("\n".join(problems))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*", help="labs to process (default: all)")
    parser.add_argument("--check", action="store_true", help="only verify that the skeletons are up to date")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    unknown = labinfo.check_names(args.labs, args.root)
    if unknown:
        for message in unknown:
            print(f"stubgen: {message}", file=sys.stderr)
        return 2
    if not (args.root / "solutions").is_dir():
        print("stubgen: no solutions/ directory (student release): nothing to do")
        return 0
    try:
        wanted = plan(args.root, args.labs)
    except MarkerError as e:
        for message in str(e).splitlines():
            print(f"stubgen: {message}", file=sys.stderr)
        return 2
    drifted = 0
    for path, text in wanted.items():
        try:
            current = path.read_text(encoding="utf-8") if path.exists() else None
        except UnicodeDecodeError:
            current = None  # not what stubgen writes: out of date
        if current == text:
            continue
        rel = path.relative_to(args.root)
        if args.check:
            drifted += 1
            print(f"stubgen: {rel} is out of date with solutions/ (run tools/stubgen.py):")
            sys.stdout.writelines(difflib.unified_diff(
                (current or "").splitlines(keepends=True), text.splitlines(keepends=True),
                f"{rel} (committed)", f"{rel} (generated)", n=1))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"stubgen: wrote {rel}")
    if args.check:
        print(f"stubgen: {len(wanted) - drifted} of {len(wanted)} skeletons up to date")
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
