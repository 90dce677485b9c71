#!/usr/bin/env python3
"""Grader self-test: grade wrong and right submissions through the submission path.

    tools/mutants.py [LAB ...] [--out DIR]

tests/mutants/<lab>/<name>/ holds a mutant: mutant.json, {"expect": "lose" | "full", "why": "...",
"edits": [...]}, and optionally whole lab files (copied over labs/<lab>/). An edit changes the
reference solution (markers removed) the way a student might: {"file", "old", "new"} replaces the
text `old` (which must occur exactly once), {"file", "copy_body_of": "k1", "into": "k2"} gives
kernel k2 the body of kernel k1 (a baseline copied into the optimised slot).
"lose" (a wrong or lazy kernel) must lose points in its lab; "full" (a correct alternative
solution) must get every point. Prints the kill table; exits 0 only if every mutant behaves.
Runs on a machine with a GPU (GPU tests skipped elsewhere make "full" impossible).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parent))
import grade_submission  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "tests" / "mutants"


def strip_markers(text: str) -> str:
    """The reference file as a student would have written it: marker and STUB lines removed."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not re.match(r"\s*//\s*(BEGIN SOLUTION|END SOLUTION|STUB:)", line))


def body_span(text: str, kernel: str) -> tuple[int, int]:
    """[start, end) of the braces of `__global__ void kernel(...) { ... }`."""
    head = text.index(f"__global__ void {kernel}(")
    start = text.index("{", head)
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return start, i + 1
    raise ValueError(f"unbalanced braces in {kernel}")


def mutant_files(lab: str, mutant: Path, spec: dict) -> dict[PurePosixPath, bytes]:
    """The mutant's lab files: edited reference files plus any whole files in its folder."""
    texts: dict[str, str] = {}
    for edit in spec.get("edits", []):
        name = edit["file"]
        if name not in texts:
            texts[name] = strip_markers((ROOT / "solutions" / lab / name).read_text())
        text = texts[name]
        if "copy_body_of" in edit:
            s, e = body_span(text, edit["copy_body_of"])
            ts, te = body_span(text, edit["into"])
            texts[name] = text[:ts] + text[s:e] + text[te:]
        else:
            if text.count(edit["old"]) != 1:
                raise SystemExit(f"mutants: {mutant}: the text to replace occurs {text.count(edit['old'])} times")
            texts[name] = text.replace(edit["old"], edit["new"])
    files = {PurePosixPath(lab, n): t.encode() for n, t in texts.items()}
    for f in mutant.iterdir():
        if f.is_file() and f.name != "mutant.json":
            files[PurePosixPath(lab, f.name)] = f.read_bytes()
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "mutants")
    args = parser.parse_args(argv)
    rows = []
    for lab_dir in sorted(p for p in MUTANTS.iterdir() if p.is_dir()):
        lab = lab_dir.name
        if args.labs and lab not in args.labs:
            continue
        # One pristine tree and build per lab; each mutant is overlaid and rebuilt incrementally.
        work = (args.out / lab).resolve()
        tree, build = grade_submission.prepare(work, [lab])
        for mutant in sorted(p for p in lab_dir.iterdir() if (p / "mutant.json").exists()):
            spec = json.loads((mutant / "mutant.json").read_text())
            print(f"== {lab}/{mutant.name}: {spec['why']}", flush=True)
            notes: list[str] = []
            files = mutant_files(lab, mutant, spec)
            grade_submission.overlay(tree, files, [lab], notes)
            table = grade_submission.build_and_grade(work, build, [lab])
            (work / f"{mutant.name}.txt").write_text(table)
            try:
                summary = json.loads((build / "grade" / "summary.json").read_text())
                s = summary["labs"][lab]
                got = s["correctness"][0] + s["performance"][0]
                total = s["correctness"][1] + s["performance"][1]
                skipped = sum(t["status"] == "skipped" for t in summary["tests"])
                lost = [t for t in summary["tests"] if t["status"] != "passed"]
            except (OSError, KeyError, ValueError):
                got, total, skipped, lost = 0.0, 0.0, 0, []
            if spec["expect"] == "lose":
                ok = total > 0 and got < total and skipped == 0
            else:
                ok = total > 0 and got == total
            first = f"{lost[0]['name'].split('.', 1)[1]}: {lost[0]['reason']}"[:150] if lost else ""
            rows.append((lab, mutant.name, spec["expect"], f"{got:g}/{total:g}", ok, first))
    print()
    print(f"{'lab':<30} {'mutant':<30} {'expect':<6} {'points':>8}  verdict  first lost test: reason")
    for lab, name, expect, pts, ok, first in rows:
        verdict = "ok" if ok else "WRONG"
        print(f"{lab:<30} {name:<30} {expect:<6} {pts:>8}  {verdict:<7}  {first}")
    lose = [r for r in rows if r[2] == "lose"]
    full = [r for r in rows if r[2] == "full"]
    print(f"\nmutants losing points: {sum(r[4] for r in lose)}/{len(lose)}; "
          f"correct variants with full marks: {sum(r[4] for r in full)}/{len(full)}")
    return 0 if rows and all(r[4] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
