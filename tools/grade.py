#!/usr/bin/env python3
"""The grade step: turn one ctest run into a score table.

CTest runs this after every test run in a cuda-labs build tree (CTEST_CUSTOM_POST_TEST). Inputs:
  * ctest's JUnit file (written by `ctest --preset grade|check` or `ctest --output-junit ...`),
  * the labs' tests/<lab>/grading.json (points per test, see docs/grading.md),
  * the tests' labels (`ctest --show-only=json-v1`): <lab>, correctness|performance, host|gpu.
Outputs: the score table on stdout, <out>/grade.xml (JUnit with points) and <out>/summary.json.

Scoring: a test that passed earns its points; failed, timed out, crashed, skipped or not built
earns 0. Skipped tests are listed as skipped, never as passed.
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path

REASON = re.compile(r"^\[ CUDALAB  \] (reason|skipped): (.*)$", re.M)
PERF = re.compile(r"^\[ PERF     \] (.*)$", re.M)
GTEST_SKIP = re.compile(r"^\S+:\d+: Skipped\n(.*)$", re.M)
GTEST_FAILURE = re.compile(r"^\S+:\d+: Failure\n(.*)$", re.M)


@dataclass
class Result:
    """One graded test."""
    name: str                 # full ctest name, e.g. "ch03_10_reduction_divergence.Reduce.X"
    lab: str
    kind: str                 # correctness | performance
    where: str                # host | gpu
    status: str               # passed | failed | skipped | not built
    points: float
    max_points: float
    reason: str = ""          # one line: why it failed or was skipped
    output: str = ""          # the test's output
    measurements: list = field(default_factory=list)  # "[ PERF ]" lines: times, ratio, threshold


@dataclass
class LabScore:
    name: str
    variant: str
    correctness: list = field(default_factory=lambda: [0.0, 0.0])
    performance: list = field(default_factory=lambda: [0.0, 0.0])


def load_points(grading_path: str) -> tuple[list[tuple[str, float]], float]:
    """(pattern, points) rules and the default points of a lab's grading.json."""
    try:
        data = json.loads(Path(grading_path).read_text())
    except (OSError, json.JSONDecodeError):
        return [], 1.0
    rules = [(r["match"], float(r["points"])) for r in data.get("points", [])]
    return rules, float(data.get("default_points", 1.0))


def load_total(grading_path: str) -> float:
    """The lab's "total_points" from grading.json (0 if absent)."""
    try:
        return float(json.loads(Path(grading_path).read_text()).get("total_points", 0))
    except (OSError, json.JSONDecodeError, ValueError):
        return 0.0


def points_for(test: str, rules: list[tuple[str, float]], default: float) -> float:
    """Points of a test (name without the lab prefix): the first matching rule wins."""
    for pattern, pts in rules:
        if fnmatch.fnmatchcase(test, pattern):
            return pts
    return default


def reason_for(status: str, ctest_message: str, output: str, timeout: str = "") -> str:
    """One line that says what happened to a test that did not pass."""
    if status == "not built":
        return "did not build: the lab's code does not compile or link (see the build output)"
    if ctest_message == "Timeout":
        return f"timed out{(' after ' + timeout + ' s') if timeout else ''}: an endless loop, a deadlock " \
               "(a __syncthreads() some threads never reach?) or a very slow kernel"
    crash = {"SEGFAULT": "crashed (segmentation fault)", "Child aborted": "crashed (aborted)",
             "BUS_ERROR": "crashed (bus error)", "ILLEGAL": "crashed (illegal instruction)",
             "NUMERICAL": "crashed (floating-point exception)", "OTHER_FAULT": "crashed"}
    for key, text in crash.items():
        if ctest_message.startswith(key):
            return text
    lines = [m.group(2).strip() for m in REASON.finditer(output)]
    if lines:
        return lines[0]
    m = (GTEST_SKIP if status == "skipped" else GTEST_FAILURE).search(output)
    if m:
        return m.group(1).strip()
    if status == "skipped":
        return "skipped"
    return f"failed ({ctest_message or 'exit code != 0'}): see the test's output"


def read_labels(manifest: dict) -> dict[str, list[str]]:
    """Test name -> labels, from `ctest --show-only=json-v1`."""
    env = dict(os.environ, CUDALAB_GRADING="1")
    try:
        proc = subprocess.run([manifest["ctest"], "--show-only=json-v1"], cwd=manifest["build_dir"],
                              capture_output=True, text=True, env=env, timeout=300)
        text = proc.stdout
        data = json.loads(text[text.index("{"):])
    except (OSError, ValueError, subprocess.SubprocessError):
        return {}
    labels = {}
    for test in data.get("tests", []):
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels[test["name"]] = list(prop.get("value", []))
    return labels


def lab_of(name: str, labs: list[str]) -> str | None:
    """The lab a ctest test belongs to: tests are named '<lab>.<Suite>.<Test>' or '<lab>_..._NOT_BUILT'."""
    for lab in sorted(labs, key=len, reverse=True):
        if name.startswith(lab + ".") or (name.startswith(lab + "_") and name.endswith("_NOT_BUILT")):
            return lab
    return None


def grade(junit_text: str, manifest: dict, labels: dict[str, list[str]]) -> list[Result]:
    """Scores every lab test in ctest's JUnit XML."""
    labs = {lab["name"]: lab for lab in manifest["labs"]}
    rules = {name: load_points(lab["grading"]) for name, lab in labs.items()}
    root = ET.fromstring(junit_text)
    results = []
    for case in root.iter("testcase"):
        name = case.get("name", "")
        lab = lab_of(name, list(labs))
        if lab is None:
            continue  # the repository's own tool tests are not graded
        output = "".join(node.text or "" for node in case.iter("system-out"))
        failure = case.find("failure")
        ctest_message = failure.get("message", "") if failure is not None else ""
        tags = labels.get(name, [])
        if name.endswith("_NOT_BUILT"):
            status = "not built"
            m = re.match(re.escape(lab) + r"_(correctness|performance)_(host|gpu)_NOT_BUILT$", name)
            tags = [m.group(1), m.group(2)] if m else tags
        elif case.get("status") == "run":
            status = "passed"
        elif case.get("status") in ("notrun", "disabled"):
            status = "skipped"
        else:
            status = "failed"
        kind = "performance" if "performance" in tags else "correctness"
        where = "gpu" if "gpu" in tags else "host"
        short = name[len(lab) + 1:] if name.startswith(lab + ".") else name
        max_points = points_for(short, *rules[lab])
        if short.startswith("SanitizerExhibit."):
            max_points = 0.0  # proves a sanitizer check can fail; not the student's work
        if status == "not built":
            max_points = 0.0  # set below from the lab's total_points
        points = max_points if status == "passed" else 0.0
        reason = "" if status == "passed" else reason_for(status, ctest_message, output)
        perf = [m.strip() for m in PERF.findall(output)]
        results.append(Result(name, lab, kind, where, status, points, max_points, reason, output, perf))
    # A lab that did not build has no test list: its "not built" row carries the points its tests
    # would have had ("total_points" in grading.json), so totals stay right (e.g. on Gradescope).
    for lab in labs:
        not_built = [r for r in results if r.lab == lab and r.status == "not built"]
        if not_built:
            known = sum(r.max_points for r in results if r.lab == lab and r.status != "not built")
            not_built[0].max_points = max(0.0, load_total(labs[lab]["grading"]) - known)
    return results


def attach_build_errors(results: list[Result], build_log: Path | None) -> None:
    """For labs that did not build: put their compiler errors into the output and reason."""
    if not build_log or not build_log.exists():
        return
    log = build_log.read_text(errors="replace").splitlines()
    for r in results:
        if r.status != "not built":
            continue
        mine = [i for i, line in enumerate(log) if "error:" in line and f"/{r.lab}/" in line]  # compiler
        for k, line in enumerate(log):  # nvcc: "N errors detected in the compilation of <file>"
            if not mine and "detected in the compilation of" in line and f"/{r.lab}/" in line:
                start = max((j for j in range(k) if log[j].startswith("[")), default=0)
                mine = [j for j in range(start, k) if "error" in log[j]][:1]
        mine = mine or [i for i, line in enumerate(log) if re.search(r"\b(error|Error)\b", line) and f"/{r.lab}/" in line]
        if mine:
            first = log[mine[0]].strip()
            r.reason = f"did not build: {first[:300]}"
            r.output = "\n".join(log[max(0, mine[0] - 2):mine[0] + 15])


def gradescope(results: list[Result], device: str) -> dict:
    """Gradescope's results.json: one entry per test, skipped tests score 0 with a note."""
    tests = []
    for r in results:
        note = {"passed": "", "skipped": "SKIPPED (0 points): "}.get(r.status, "FAILED: ")
        output = note + r.reason if r.status != "passed" else "passed"
        if r.measurements:
            output += "\n" + "\n".join(r.measurements)
        if r.status != "passed" and r.output:
            output += "\n\n" + r.output[-4000:]
        tests.append({"name": r.name, "score": r.points, "max_score": r.max_points,
                      "status": "passed" if r.status == "passed" else "failed",
                      "output": output, "visibility": "visible",
                      "tags": [r.lab, r.kind, r.where]})
    return {"score": sum(r.points for r in results), "output": f"GPU: {device}",
            "visibility": "visible", "stdout_visibility": "visible", "tests": tests}


def device_line(manifest: dict) -> str:
    try:
        proc = subprocess.run([manifest["info_exe"]], capture_output=True, text=True, timeout=60)
        return proc.stdout.strip() or proc.stderr.strip() or "unknown GPU"
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown GPU ({e})"


def summarize(results: list[Result], manifest: dict) -> dict[str, LabScore]:
    scores = {lab["name"]: LabScore(lab["name"], lab["variant"]) for lab in manifest["labs"]}
    for r in results:
        bucket = getattr(scores[r.lab], r.kind)
        bucket[0] += r.points
        bucket[1] += r.max_points
    return scores


def fmt(pair: list) -> str:
    return f"{pair[0]:g}/{pair[1]:g}" if pair[1] else "-"


def render(results: list[Result], scores: dict[str, LabScore], device: str) -> str:
    ran = {r.lab for r in results}
    lines = ["", "=" * 100, f"cuda-labs score table    GPU: {device}", "=" * 100]
    header = f"{'lab':<36} {'variant':<9} {'correctness':>12} {'performance':>12} {'points':>10}  note"
    lines += [header, "-" * len(header)]
    total = [0.0, 0.0]
    for name, s in scores.items():
        if name not in ran:
            continue
        pts = [s.correctness[0] + s.performance[0], s.correctness[1] + s.performance[1]]
        total = [total[0] + pts[0], total[1] + pts[1]]
        skipped = sum(1 for r in results if r.lab == name and r.status == "skipped")
        not_built = any(r.lab == name and r.status == "not built" for r in results)
        note = "DID NOT BUILD" if not_built else (f"{skipped} skipped" if skipped else "")
        lines.append(f"{name:<36} {s.variant:<9} {fmt(s.correctness):>12} {fmt(s.performance):>12} "
                     f"{fmt(pts):>10}  {note}")
    lines += ["-" * len(header), f"{'total':<36} {'':<9} {'':>12} {'':>12} {fmt(total):>10}"]
    measured = [r for r in results if r.measurements]
    if measured:
        lines += ["", "Performance measurements:"]
        lines += [f"  {'PASS' if r.status == 'passed' else 'FAIL'} {m}" for r in measured for m in r.measurements]
    failed = [r for r in results if r.status in ("failed", "not built")]
    skipped = [r for r in results if r.status == "skipped"]
    if failed:
        lines += ["", f"Failed ({len(failed)}):"]
        lines += [f"  FAIL {r.name} [{r.kind}, {r.max_points:g} pt]: {r.reason}" for r in failed]
    if skipped:
        lines += ["", f"Skipped, 0 points ({len(skipped)}):"]
        reasons: dict[str, int] = {}
        for r in skipped:
            reasons[r.reason] = reasons.get(r.reason, 0) + 1
        lines += [f"  SKIP {n} test(s): {why}" for why, n in reasons.items()]
    if failed:
        lines += ["", "Details of one test: ctest --preset grade -R '<test name>' --output-on-failure"]
    lines.append("")
    return "\n".join(lines)


def write_junit(results: list[Result], scores: dict[str, LabScore], device: str, path: Path) -> None:
    suites = ET.Element("testsuites", name="cuda-labs")
    for name, s in scores.items():
        mine = [r for r in results if r.lab == name]
        if not mine:
            continue
        suite = ET.SubElement(suites, "testsuite", name=name, tests=str(len(mine)),
                              failures=str(sum(r.status in ("failed", "not built") for r in mine)),
                              skipped=str(sum(r.status == "skipped" for r in mine)))
        props = ET.SubElement(suite, "properties")
        for key, value in (("variant", s.variant), ("device", device),
                           ("points", str(s.correctness[0] + s.performance[0])),
                           ("max_points", str(s.correctness[1] + s.performance[1]))):
            ET.SubElement(props, "property", name=key, value=value)
        for r in mine:
            case = ET.SubElement(suite, "testcase", name=r.name, classname=f"{r.lab}.{r.kind}")
            cprops = ET.SubElement(case, "properties")
            ET.SubElement(cprops, "property", name="points", value=f"{r.points:g}")
            ET.SubElement(cprops, "property", name="max_points", value=f"{r.max_points:g}")
            if r.status in ("failed", "not built"):
                ET.SubElement(case, "failure", message=r.reason).text = r.output
            elif r.status == "skipped":
                ET.SubElement(case, "skipped", message=r.reason)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path, required=True)
    parser.add_argument("--junit", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--build-log", type=Path, help="build output, to report why a lab did not build")
    args = parser.parse_args(argv)
    if os.environ.get("CUDALAB_GRADING"):
        return 0  # called from our own `ctest --show-only`
    manifest = json.loads(args.manifest.read_text()) if args.manifest.exists() else {}
    last_log = Path(manifest.get("build_dir", ".")) / "Testing" / "Temporary" / "LastTest.log"
    stale = (args.junit.exists() and last_log.exists()
             and args.junit.stat().st_mtime + 2.0 < last_log.stat().st_mtime)  # written by a later run
    if not args.junit.exists() or stale:
        print("(no score table: this ctest run wrote no JUnit file; use `ctest --preset grade` or "
              f"`ctest --output-junit {args.junit}`)")
        return 0
    junit_text = args.junit.read_text()  # first: `ctest --show-only` below runs the pre-test step
    results = grade(junit_text, manifest, read_labels(manifest))
    if not results:
        print("(no lab tests in this run: no score table)")
        return 0
    attach_build_errors(results, args.build_log)
    device = device_line(manifest)
    scores = summarize(results, manifest)
    print(render(results, scores, device))
    args.out.mkdir(parents=True, exist_ok=True)
    write_junit(results, scores, device, args.out / "grade.xml")
    summary = {"device": device,
               "labs": {n: asdict(s) for n, s in scores.items() if any(r.lab == n for r in results)},
               "tests": [{k: v for k, v in asdict(r).items() if k != "output"} for r in results]}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (args.out / "results.json").write_text(json.dumps(gradescope(results, device), indent=2) + "\n")
    print(f"Score table also written to {args.out}/: grade.xml (JUnit), summary.json, results.json (Gradescope)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
