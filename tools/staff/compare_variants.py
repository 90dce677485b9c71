#!/usr/bin/env python3
"""Compare reference and skeleton grade runs (the summary.json files tools/grade.py writes).

    compare_variants.py --skeleton SKELETON.json REFERENCE.json [REFERENCE.json ...]

Prints the GPU check's summary and exits 0 only if: every reference test passed in every run,
every skeleton correctness and performance test failed, and no test has the same result in both
variants (such a test cannot fail, or cannot pass).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def load(path: str) -> dict:
    return json.loads(Path(path).read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skeleton", required=True)
    parser.add_argument("reference", nargs="+")
    args = parser.parse_args(argv)
    skeleton = {t["name"]: t for t in load(args.skeleton)["tests"]}
    runs = [load(p) for p in args.reference]
    problems: list[str] = []

    ref_status: dict[str, set[str]] = {}
    for run in runs:
        for t in run["tests"]:
            ref_status.setdefault(t["name"], set()).add(t["status"])
            if t["status"] != "passed":
                problems.append(f"reference {t['status']}: {t['name']}: {t['reason']}")
    exhibits = [n for n in ref_status if ".SanitizerExhibit." in n]
    for name in exhibits:  # deliberately broken code the sanitizer must flag, in both variants
        if name in skeleton and skeleton[name]["status"] != "passed":
            problems.append(f"skeleton {skeleton[name]['status']}: exhibit {name}: {skeleton[name]['reason']}")
    for name, t in skeleton.items():
        if name in exhibits:
            continue
        if t["status"] == "passed":
            problems.append(f"skeleton passes (cannot fail?): {name}")
        elif t["status"] == "skipped":
            problems.append(f"skeleton skipped: {name}: {t['reason']}")
        if name not in ref_status:
            problems.append(f"only in the skeleton run: {name}")
    same = [n for n, s in ref_status.items()
            if n in skeleton and n not in exhibits and s == {skeleton[n]["status"]}]
    for name in same:
        problems.append(f"same result for skeleton and reference ({skeleton[name]['status']}): {name}")

    ref_tests = len(ref_status)
    ref_passed = sum(1 for s in ref_status.values() if s == {"passed"})
    skel_failed = sum(1 for t in skeleton.values() if t["status"] in ("failed", "not built", "not started"))
    print()
    print("=" * 100)
    print(f"GPU check summary    GPU: {runs[0].get('device', '?')}")
    for label, data in [("reference", runs[-1]), ("skeleton", load(args.skeleton))]:
        for lab, s in data["labs"].items():
            c, p = s["correctness"], s["performance"]
            print(f"  {label:<9} {lab:<36} correctness {c[0]:g}/{c[1]:g}  performance {p[0]:g}/{p[1]:g}")
    print(f"  reference: {ref_passed}/{ref_tests} tests passed in all {len(runs)} run(s)")
    print(f"  skeleton:  {skel_failed}/{len(skeleton) - len(exhibits)} tests failed as intended")
    if exhibits:
        print(f"  exhibits:  {len(exhibits)} sanitizer exhibit(s) flagged in both variants, as intended")
    for p in problems[:60]:
        print(f"  PROBLEM {p}")
    print("RESULT: " + ("OK" if not problems else f"{len(problems)} PROBLEM(S)"))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
