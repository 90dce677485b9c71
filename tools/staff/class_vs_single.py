#!/usr/bin/env python3
"""Check grade_class.py against grade_submission.py: the same points, and how much faster.

    tools/staff/class_vs_single.py SUBMISSION... --labs LAB... --out DIR [-j N] [grade_class.py options]

Grades the class with tools/staff/grade_class.py into DIR/class (timed), then every submission alone
with tools/grade_submission.py --labs LAB... into DIR/single/<id> (timed, one after the other),
and compares each student's points per lab (and per test: name, points, status). Prints one line
per student, the wall time per submission of both ways and the speed-up; writes DIR/comparison.txt.
Exit 0 when every student's points are equal. On a GPU machine, make the class with
tools/staff/class_fixtures.py (e.g. --mixed 20 --no-bad: mixes of mutants and correct variants).
Options after -- go to grade_class.py (e.g. -- --gpu-share 3).

Resumable: run it again with the same DIR and the class is not graded again (DIR/class-seconds.txt
keeps its time), nor is a submission already graded alone (DIR/single/<id>/seconds.txt). With
--budget S it stops starting submissions after S seconds and says how many are left, so a
comparison longer than one sitting is done in several.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import grade_class  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def tests_of(results: Path) -> dict:
    try:
        data = json.loads(results.read_text())
    except (OSError, ValueError):
        return {}
    return {t["name"]: (float(t.get("score", 0)), float(t.get("max_score", 0)), t.get("status"))
            for t in data.get("tests", [])}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", nargs="+", type=Path)
    parser.add_argument("--labs", nargs="+", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("-j", "--workers", type=int, default=4, help="grade_class.py's worker trees (default 4)")
    parser.add_argument("--budget", type=float, default=0,
                        help="start no submission alone after this many seconds (0: no limit); run again to go on")
    args = parser.parse_args(argv)
    out = args.out.absolute()
    out.mkdir(parents=True, exist_ok=True)
    begun = time.monotonic()

    class_time = out / "class-seconds.txt"
    rc = 0
    try:
        seconds, code = class_time.read_text().split()[:2]
        class_seconds, rc = float(seconds), int(code)
        print(f"class_vs_single: the class was graded before ({class_seconds:.0f} s, exit {rc}): {class_time}")
    except (OSError, ValueError, IndexError):
        start = time.monotonic()
        rc = subprocess.run([sys.executable, str(ROOT / "tools" / "staff" / "grade_class.py"),
                             *map(str, args.submissions), "--labs", *args.labs, "--out", str(out / "class"),
                             "-j", str(args.workers), *extra]).returncode
        class_seconds = time.monotonic() - start
        class_time.write_text(f"{class_seconds:.3f} {rc}\n")
    entries, _ = grade_class.discover(args.submissions, grade_class.labinfo.lab_names(ROOT))
    lines, bad, single_seconds, left = [], 0, 0.0, 0
    for e in entries:
        single = out / "single" / e.student
        seconds_file = single / "seconds.txt"
        try:
            single_seconds += float(seconds_file.read_text())
        except (OSError, ValueError):
            if args.budget and time.monotonic() - begun > args.budget:
                left += 1
                continue
            t0 = time.monotonic()
            subprocess.run([sys.executable, str(ROOT / "tools" / "grade_submission.py"), str(e.path), "--labs",
                            *args.labs, "--out", str(single)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            single_seconds += time.monotonic() - t0
            single.mkdir(parents=True, exist_ok=True)
            seconds_file.write_text(f"{time.monotonic() - t0:.3f}\n")
        a = tests_of(out / "class" / "students" / e.student / "results.json")
        b = tests_of(single / "results.json")
        points_a = sum(v[0] for v in a.values())
        points_b = sum(v[0] for v in b.values())
        differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        bad += bool(differ) or points_a != points_b
        lines.append(f"{'same' if not differ else 'DIFF'} {e.student}: class {points_a:g}, alone {points_b:g}"
                     + (f"; {len(differ)} tests differ, e.g. {differ[0]}: {a.get(differ[0])} vs {b.get(differ[0])}"
                        if differ else ""))
        print(lines[-1], flush=True)
    if left:
        lines.append(f"class_vs_single: {left} of {len(entries)} submissions not yet graded alone (--budget); "
                     f"run the same command again to go on")
        print(lines[-1])
        (out / "comparison.txt").write_text("\n".join(lines) + "\n")
        return 3
    n = max(1, len(entries))
    lines.append(f"class_vs_single: {len(entries) - bad} of {len(entries)} students with equal points; "
                 f"grade_class.py {class_seconds / n:.1f} s per submission ({class_seconds:.0f} s, exit {rc}), "
                 f"grade_submission.py one by one {single_seconds / n:.1f} s per submission ({single_seconds:.0f} s): "
                 f"{single_seconds / max(class_seconds, 1e-9):.1f} times faster")
    print(lines[-1])
    (out / "comparison.txt").write_text("\n".join(lines) + "\n")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
