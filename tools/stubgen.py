#!/usr/bin/env python3
"""Generate the student skeletons in labs/<lab>/ from the marked reference files in solutions/<lab>/.

A reference file marks each part the student writes:

    // BEGIN SOLUTION
    ... reference code ...
    // STUB: // TODO: what to do (one or more STUB lines; their text replaces the region)
    // END SOLUTION

In the skeleton the whole region, markers included, becomes the STUB lines' text, indented like the
BEGIN marker. Files without markers are copied unchanged. Skeletons are committed; `--check` fails
(exit 1) when a committed skeleton differs from what this tool generates.

    tools/stubgen.py              regenerate every lab
    tools/stubgen.py LAB...       regenerate some labs
    tools/stubgen.py --check      verify, change nothing
"""
from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

BEGIN = re.compile(r"^(\s*)//\s*BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*//\s*END SOLUTION\s*$")
STUB = re.compile(r"^\s*//\s*STUB:( ?)(.*)$")
SOURCE_SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc"}


class MarkerError(Exception):
    """A reference file whose markers do not pair up."""


def make_skeleton(text: str, name: str = "<text>") -> str:
    """Returns the skeleton for one reference file's text."""
    out: list[str] = []
    region: list[str] | None = None
    indent = ""
    begin_line = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if BEGIN.match(line):
            if region is not None:
                raise MarkerError(f"{name}:{number}: BEGIN SOLUTION inside the region opened at line {begin_line}")
            region, indent, begin_line = [], BEGIN.match(line).group(1), number
        elif END.match(line):
            if region is None:
                raise MarkerError(f"{name}:{number}: END SOLUTION without BEGIN SOLUTION")
            out.extend(region)
            region = None
        elif region is not None:
            stub = STUB.match(line)
            if stub:
                region.append((indent + stub.group(2)).rstrip() + "\n")
        elif STUB.match(line):
            raise MarkerError(f"{name}:{number}: STUB line outside a BEGIN/END SOLUTION region")
        else:
            out.append(line)
    if region is not None:
        raise MarkerError(f"{name}:{begin_line}: BEGIN SOLUTION is never closed")
    return "".join(out)


def plan(root: Path, labs: list[str]) -> dict[Path, str]:
    """Maps each skeleton path to the text it must have."""
    solutions = root / "solutions"
    result: dict[Path, str] = {}
    for lab_dir in sorted(p for p in solutions.iterdir() if p.is_dir()):
        if labs and lab_dir.name not in labs:
            continue
        for src in sorted(lab_dir.rglob("*")):
            if src.is_file() and src.suffix in SOURCE_SUFFIXES:
                rel = src.relative_to(solutions)
                result[root / "labs" / rel] = make_skeleton(src.read_text(), str(src.relative_to(root)))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*", help="labs to process (default: all)")
    parser.add_argument("--check", action="store_true", help="only verify that the skeletons are up to date")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    if not (args.root / "solutions").is_dir():
        print("stubgen: no solutions/ directory (student release): nothing to do")
        return 0
    try:
        wanted = plan(args.root, args.labs)
    except MarkerError as e:
        print(f"stubgen: {e}", file=sys.stderr)
        return 2
    drifted = 0
    for path, text in wanted.items():
        current = path.read_text() if path.exists() else None
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
            path.write_text(text)
            print(f"stubgen: wrote {rel}")
    if args.check:
        print(f"stubgen: {len(wanted) - drifted} of {len(wanted)} skeletons up to date")
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
