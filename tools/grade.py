#!/usr/bin/env python3
"""The grade step: turn one ctest run into a score table.

CTest runs this after every test run in a cuda-labs build tree (CTEST_CUSTOM_POST_TEST). Inputs:
  * ctest's JUnit file (written by `ctest --preset grade|check` or `ctest --output-junit ...`),
  * the labs' tests/<lab>/grading.json (points per test, see docs/grading.md),
  * the tests' labels (`ctest --show-only=json-v1`): <lab>, correctness|performance, host|gpu.
Outputs: the score table on stdout, <out>/grade.xml (JUnit with points) and <out>/summary.json.

How results travel: each test writes one result record, <build>/tests/<lab>/results/<test>.json
(GoogleTest's JSON output, GTEST_OUTPUT in the test's environment as ctest lists it; the sanitizer
checks write the same shape from cmake/RunSanitizer.cmake): passed, failed or skipped, the one-line
reason ("cudalab_reason") and the measurements ("perf.<n>.key", ".measured", ".required", ...; see
docs/grading.md). The grade step reads the record of every test this run ran. Where none can exist
-- a crash, the watchdog's stop, the CTest timeout, a record older than this ctest run -- it falls
back to the test's output (the "[ CUDALAB  ] reason:" and "[ PERF     ]" lines). ctest's own
verdict is kept where it is worse: a test whose process crashed after its record was written fails.

Scoring: a test that passed earns its points; failed, timed out, crashed, skipped or not built
earns 0, and so does a lab that is "not started" (still the skeleton as shipped: one row per program,
its tests not run; docs/grading.md). Skipped tests are listed as skipped, never as passed. A GPU
test that skips because this GPU cannot run it (its reason starts with "not applicable on this
GPU:", e.g. a 64-bit index test on a card without the memory) is "not applicable": it earns 0 of 0
points, so a correct solution on a smaller GPU still gets every point it can be graded on; the
course GPU grades the rest.
A test that writes a result record (every test binary's and sanitizer check's) counts as passed
only with this run's record: a process that exits 0 before GoogleTest wrote it (exit() in a lab's
code, even from a static constructor before any test started) fails. Without a record path, a
GoogleTest case that started ("[ RUN      ]") counts as passed only if its own "[       OK ]" line
follows.

Before each ctest run, CTest runs `grade.py --pre-test --junit FILE` (CTEST_CUSTOM_PRE_TEST), which
moves the previous run's JUnit file to junit.previous.xml: the table after a run is built only from
a file that run wrote. A malformed grading.json, manifest or JUnit file is an error with the file
and the position, and no table.
"""
from __future__ import annotations

import argparse
import datetime
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
THRESHOLD_ENV = "CUDALAB_THRESHOLD_"


class GradeError(Exception):
    """A problem with the grade step's inputs: one line that names the file and what is wrong."""


def read_json(path: Path, hint: str = "", missing: str = "missing"):
    """The JSON value in @p path (UTF-8); GradeError with the position when it is not valid JSON
    (also used by calibrate.py, whose word for an absent file is @p missing)."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise GradeError(f"{path}: {missing}{hint}") from None
    except OSError as e:
        raise GradeError(f"{path}: cannot be read ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise GradeError(f"{path}: line {line}: not UTF-8 text (byte 0x{raw[e.start]:02x})") from None
    if not text.strip():
        raise GradeError(f"{path}: empty{hint}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise GradeError(f"{path}: line {e.lineno}, column {e.colno}: {e.msg}") from None


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_grading(data, lab: str | None, path: str) -> list[str]:
    """What is wrong with a lab's grading.json (the same checks as configure, cmake/CudaLab.cmake)."""
    if not isinstance(data, dict):
        return [f"{path}: {type(data).__name__} found, an object required"]
    errors = []

    def expect(where, value, kind, optional=False):
        ok = {"number": _is_number, "string": lambda v: isinstance(v, str), "array": lambda v: isinstance(v, list),
              "object": lambda v: isinstance(v, dict)}[kind]
        if value is None:
            if not optional:
                errors.append(f"{path}: {where}: missing ({kind} required)")
            return False
        if not ok(value):
            errors.append(f"{path}: {where}: {type(value).__name__} found, {kind} required")
            return False
        return True

    if expect('"lab"', data.get("lab"), "string") and lab is not None and data["lab"] != lab:
        errors.append(f'{path}: "lab" is "{data["lab"]}", expected "{lab}"')
    expect('"default_points"', data.get("default_points"), "number", optional=True)
    total = data.get("total_points")
    if expect('"total_points"', total, "number") and total <= 0:
        errors.append(f'{path}: "total_points" is {total:g}, a positive number required')
    if expect('"points"', data.get("points"), "array"):
        rule_sum, sums = 0.0, True
        for i, rule in enumerate(data["points"]):
            where = f'"points"[{i}]'
            if not expect(where, rule, "object"):
                sums = False
                continue
            expect(f"{where}.match", rule.get("match"), "string")
            if expect(f"{where}.points", rule.get("points"), "number"):
                if rule["points"] < 0:
                    errors.append(f"{path}: {where}.points is {rule['points']:g}, a number >= 0 required")
                rule_sum += rule["points"]
            else:
                sums = False
        if sums and _is_number(total) and total + 1e-9 < rule_sum:
            errors.append(f'{path}: "total_points" is {total:g}, less than the {rule_sum:g} points of its rules '
                          "taken once each (every rule matches at least one test)")
    if expect('"forbidden_in_source"', data.get("forbidden_in_source"), "object", optional=True):
        entry = data["forbidden_in_source"]
        expect('"forbidden_in_source".why', entry.get("why"), "string")
        if expect('"forbidden_in_source".names', entry.get("names"), "array"):
            if not entry["names"] or any(not isinstance(n, str) or not re.fullmatch(r"[A-Za-z0-9_.]+", n)
                                         for n in entry["names"]):
                errors.append(f'{path}: "forbidden_in_source".names must list names of letters, digits, _ and .')
    if expect('"reports_errors"', data.get("reports_errors"), "array", optional=True):
        for i, entry in enumerate(data["reports_errors"]):
            where = f'"reports_errors"[{i}]'
            if not expect(where, entry, "object"):
                continue
            if expect(f"{where}.function", entry.get("function"), "string") and \
                    not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", entry["function"]):
                errors.append(f"{path}: {where}.function is {entry['function']!r}: a C++ function name is required")
            if expect(f"{where}.reports", entry.get("reports"), "array"):
                if not entry["reports"] or any(r not in ("launch", "kernel") for r in entry["reports"]):
                    errors.append(f'{path}: {where}.reports must list "launch", "kernel" or both')
    if expect('"thresholds"', data.get("thresholds"), "object", optional=True):
        for key, spec in data["thresholds"].items():
            where = f'"thresholds".{key}'
            if not re.fullmatch(r"[A-Za-z0-9_]+", key):
                errors.append(f"{path}: {where}: a key has letters, digits and _ only (it names ${THRESHOLD_ENV}<KEY>)")
            if expect(where, spec, "object"):
                expect(f"{where}.value", spec.get("value"), "number")
                expect(f"{where}.about", spec.get("about"), "string")
                expect(f"{where}.calibrated", spec.get("calibrated"), "string")
    return errors


def load_grading(grading_path: str, lab: str | None = None) -> dict:
    """A lab's grading.json, checked (its "lab" against @p lab when given); GradeError when it is
    missing or not valid (docs/grading.md)."""
    data = read_json(Path(grading_path))
    errors = check_grading(data, lab, grading_path)
    if errors:
        raise GradeError("; ".join(errors))
    return data
GTEST_SKIP = re.compile(r"^\S+:\d+: Skipped\n(.*)$", re.M)
GTEST_FAILURE = re.compile(r"^\S+:\d+: Failure\n(.*)$", re.M)
# The undefined-behaviour sanitizer's report on the lab's host code (cmake/CudaLab.cmake,
# CUDALAB_HOST_UBSAN): "<file>:<line>:<column>: runtime error: <what>", then the process exits.
UB_REPORT = re.compile(r"^(\S+?):(\d+):\d+: runtime error: (.*)$", re.M)
NOT_APPLICABLE = "not applicable on this GPU:"  # printed by CUDALAB_SKIP_NOT_APPLICABLE() (testing.cuh)
NOT_STARTED = "not started:"  # the stand-in's reason for a lab still as shipped (cmake/DiscoverTests.cmake)
# The statuses of a program's stand-in row (<program>_NOT_BUILT): it has no test list and carries the
# points its tests would have had.
STAND_IN = ("not built", "not started")


@dataclass
class Result:
    """One graded test."""
    name: str                 # full ctest name, e.g. "ch03_10_reduction_divergence.Reduce.X"
    lab: str
    kind: str                 # correctness | performance
    where: str                # host | gpu
    status: str               # passed | failed | skipped | not applicable | not built | not started
    points: float
    max_points: float
    reason: str = ""          # one line: why it failed or was skipped
    output: str = ""          # the test's output
    measurements: list = field(default_factory=list)  # measurement(): key, measured, required, ..., text
    source: str = ""          # where status and reason came from: "record" or "output"


MEASUREMENT_FIELDS = ("key", "measured", "required", "compare", "baseline_ms", "candidate_ms", "text", "tag")
RECORD_PROPERTY = re.compile(r"^(perf|profile)\.([0-9]+)\.(key|measured|required|compare|baseline_ms|candidate_ms|text)$")
RECORD_SLACK_S = 2.0  # the JUnit file's start time has whole seconds


def measurement(text: str, tag: str = "perf", **fields) -> dict:
    """One measurement as summary.json holds it: {key, measured, required, compare, baseline_ms,
    candidate_ms, text, tag}; None where it does not apply (a line read from the output has its
    text only). tag: "perf" ("[ PERF     ]" lines: the table's performance measurements) or
    "profile" ("[ PROFILE  ]": hardware counters)."""
    m = {k: None for k in MEASUREMENT_FIELDS}
    m.update(fields, text=text, tag=tag)
    return m


@dataclass
class Record:
    """What a test's result record says."""
    status: str               # passed | failed | skipped
    reason: str               # "cudalab_reason", else the first failure's message
    measurements: list        # measurement() dicts, in the order the test recorded them


def _number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def read_record(path: Path, short: str, not_before: float | None = None) -> Record | None:
    """The result record of the test @p short ("Suite.Test", the ctest name without "<lab>.") in
    @p path; None when there is none, it is older than @p not_before (an earlier run's: the process
    of this run never got to remove it), it cannot be read, or it is about another test."""
    try:
        if not_before is not None and path.stat().st_mtime < not_before:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    cases = [case for suite in (data.get("testsuites") or []) if isinstance(suite, dict)
             for case in (suite.get("testsuite") or [])
             if isinstance(case, dict) and f"{suite.get('name')}.{case.get('name')}" == short]
    if len(cases) != 1 or cases[0].get("status", "RUN") != "RUN":
        return None
    case = cases[0]
    failures = [f.get("failure", "") for f in case.get("failures") or [] if isinstance(f, dict)]
    status = "failed" if failures else "skipped" if case.get("result") == "SKIPPED" else "passed"
    reason = case.get("cudalab_reason") if isinstance(case.get("cudalab_reason"), str) else ""
    if not reason and failures:
        lines = failures[0].splitlines() or [""]
        reason = lines[1] if len(lines) > 1 and re.fullmatch(r"\S+:\d+:?", lines[0]) else lines[0]
    found: dict[tuple[str, int], dict] = {}
    for name, value in case.items():
        m = RECORD_PROPERTY.match(name)
        if not m or not isinstance(value, str):
            continue
        entry = found.setdefault((m.group(1), int(m.group(2))), measurement("", m.group(1)))
        entry[m.group(3)] = value if m.group(3) in ("key", "compare", "text") else _number(value)
    measurements = [found[k] for k in sorted(found, key=lambda k: (k[0] != "perf", k[1]))]
    return Record(status, reason.strip(), measurements)


def run_start(root: ET.Element) -> float | None:
    """When the ctest run of this JUnit file started (its "timestamp", local time, whole seconds),
    less a little slack; None when the file does not say. Of a file merged from several runs
    (tools/staff/mutants.py), the first run's."""
    stamp = root.get("timestamp") or next((s.get("timestamp") for s in root.iter("testsuite")
                                           if s.get("timestamp")), None)
    try:
        return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S").timestamp() - RECORD_SLACK_S
    except (TypeError, ValueError, OverflowError):
        return None


@dataclass
class LabScore:
    name: str
    variant: str
    correctness: list = field(default_factory=lambda: [0.0, 0.0])
    performance: list = field(default_factory=lambda: [0.0, 0.0])


def load_points(grading_path: str) -> tuple[list[tuple[str, float]], float]:
    """(pattern, points) rules and the default points of a lab's grading.json."""
    data = load_grading(grading_path)
    rules = [(r["match"], float(r["points"])) for r in data["points"]]
    return rules, float(data.get("default_points", 1.0))


def load_total(grading_path: str) -> float:
    """The lab's "total_points" from grading.json."""
    return float(load_grading(grading_path)["total_points"])


def points_for(test: str, rules: list[tuple[str, float]], default: float) -> float:
    """Points of a test (name without the lab prefix): the first matching rule wins."""
    for pattern, pts in rules:
        if fnmatch.fnmatchcase(test, pattern):
            return pts
    return default


# CTest's output for a test whose fixture's setup tests failed (FIXTURES_REQUIRED; the SanitizeAll
# checks require the lab's GPU correctness tests they run, cmake/CudaLab.cmake).
DEPENDENCIES_FAILED = re.compile(r"Failed test dependencies: ([^\n]*)")


def only_stale(not_built: list) -> bool:
    """Whether every "not built" row of @p not_built (at least one) is a program older than its
    sources (cmake/DiscoverTests.cmake: "built from an older version"), which a build fixes."""
    return bool(not_built) and all("built from an older version" in r.reason for r in not_built)


def correctness_first(failed: str, lab: str) -> str:
    """The reason of a check that was not run because tests it needs failed (@p failed: CTest's
    space-separated list of their names)."""
    names = [n[len(lab) + 1:] if n.startswith(lab + ".") else n for n in failed.split()]
    shown = ", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
    return (f"correctness first: not run, because {len(names)} of the GPU correctness tests it runs failed "
            f"({shown}); it runs once they all pass")


def reason_for(status: str, ctest_message: str, output: str, timeout: str = "", recorded: str = "") -> str:
    """One line that says what happened to a test that did not pass: ctest's word for a timeout or
    a crash, else the reason of its record (@p recorded), else the one its output gives."""
    if status == "not built":
        m = re.search(r"\[ CUDALAB  \] reason: ([^\n]*)", output)  # a program that lists no tests (cmake/NoTests.cmake)
        return m.group(1).strip() if m else "did not build: the lab's code does not compile or link (see the build output)"
    if ctest_message == "Timeout":
        return f"timed out{(' after ' + timeout + ' s') if timeout else ''}: an endless loop, a deadlock " \
               "(a __syncthreads() some threads never reach?) or a very slow kernel"
    crash = {"SEGFAULT": "crashed (segmentation fault)", "Child aborted": "crashed (aborted)",
             "BUS_ERROR": "crashed (bus error)", "ILLEGAL": "crashed (illegal instruction)",
             "NUMERICAL": "crashed (floating-point exception)", "OTHER_FAULT": "crashed"}
    for key, text in crash.items():
        if ctest_message.startswith(key):
            return text
    m = UB_REPORT.search(output)
    if m:
        return f"undefined behaviour in host code at {Path(m.group(1)).name}:{m.group(2)}: {m.group(3).strip()} " \
               "(the test stopped there; the values may look right on another compiler)"
    if recorded:
        return recorded
    lines = [m.group(2).strip() for m in REASON.finditer(output)]
    if lines:
        return lines[0]
    m = (GTEST_SKIP if status == "skipped" else GTEST_FAILURE).search(output)
    if m:
        return m.group(1).strip()
    if status == "skipped":
        return "skipped"
    return f"failed ({ctest_message or 'exit code != 0'}): see the test's output"


def read_tests(manifest: dict) -> tuple[dict[str, list[str]], dict[str, Path]]:
    """Test name -> labels, and test name -> the file of its result record (GTEST_OUTPUT=json:<file>
    in its ENVIRONMENT), from `ctest --show-only=json-v1`; GradeError when ctest cannot say."""
    env = dict(os.environ, CUDALAB_GRADING="1")
    command = f"{manifest['ctest']} --show-only=json-v1 (in {manifest['build_dir']})"
    try:
        proc = subprocess.run([manifest["ctest"], "--show-only=json-v1"], cwd=manifest["build_dir"],
                              capture_output=True, env=env, timeout=300)
    except (OSError, subprocess.SubprocessError) as e:
        raise GradeError(f"cannot list the tests' labels: {command}: {e}") from None
    text = proc.stdout.decode("utf-8", errors="replace")
    try:
        data = json.loads(text[text.index("{"):])
    except ValueError as e:
        why = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise GradeError(f"cannot list the tests' labels: {command} (exit {proc.returncode}) printed no valid JSON "
                         f"({why[0] if why else e})") from None
    labels, records = {}, {}
    for test in data.get("tests", []):
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels[test["name"]] = list(prop.get("value", []))
            elif prop.get("name") == "ENVIRONMENT":
                for item in prop.get("value", []):
                    if isinstance(item, str) and item.startswith("GTEST_OUTPUT=json:"):
                        records[test["name"]] = Path(item[len("GTEST_OUTPUT=json:"):])
    return labels, records


def lab_of(name: str, labs: list[str]) -> str | None:
    """The lab a ctest test belongs to: tests are named '<lab>.<Suite>.<Test>' or '<lab>_..._NOT_BUILT'."""
    for lab in sorted(labs, key=len, reverse=True):
        if name.startswith(lab + ".") or (name.startswith(lab + "_") and name.endswith("_NOT_BUILT")):
            return lab
    return None


def parse_junit(junit: str | bytes, path: str = "the JUnit file") -> ET.Element:
    """ctest's JUnit XML; GradeError with the position when it is empty or not XML."""
    if not (junit.strip() if isinstance(junit, (str, bytes)) else junit):
        raise GradeError(f"{path}: empty: ctest did not finish writing it (interrupted?); run the tests again")
    try:
        return ET.fromstring(junit)
    except ET.ParseError as e:
        line, column = e.position
        raise GradeError(f"{path}: line {line}, column {column + 1}: not valid JUnit XML "
                         f"({str(e).split(':')[0]}); run the tests again") from None


def grade(junit_text: str | bytes, manifest: dict, labels: dict[str, list[str]],
          junit_path: str = "the JUnit file", records: dict[str, Path] | None = None) -> list[Result]:
    """Scores every lab test in ctest's JUnit XML, with the result records in @p records (test name
    -> file) where they exist and belong to this run."""
    labs = {lab["name"]: lab for lab in manifest["labs"]}
    for name, lab in labs.items():
        load_grading(lab["grading"], name)
    rules = {name: load_points(lab["grading"]) for name, lab in labs.items()}
    root = parse_junit(junit_text, junit_path)
    not_before = run_start(root)
    records = records or {}
    results = []
    for case in root.iter("testcase"):
        name = case.get("name", "")
        lab = lab_of(name, list(labs))
        if lab is None:
            continue  # the repository's own tool tests are not graded
        output = "".join(node.text or "" for node in case.iter("system-out"))
        unmet = DEPENDENCIES_FAILED.search(output) if case.get("status") == "notrun" else None
        failure = case.find("failure")
        ctest_message = failure.get("message", "") if failure is not None else ""
        tags = labels.get(name, [])
        if name.endswith("_NOT_BUILT"):
            status = "not built"
            m = re.match(re.escape(lab) + r"_(correctness|performance)_(host|gpu)_NOT_BUILT$", name)
            tags = [m.group(1), m.group(2)] if m else tags
        elif case.get("status") == "run":
            status = "passed"
        elif unmet:
            status = "failed"  # a check that needs tests which failed in this run (a CTest fixture)
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
        record = read_record(records[name], short, not_before) if name in records and status != "not built" else None
        if record is not None and status == "failed" and record.status != "failed":
            record = None  # the process failed after its record was written (a crash at exit): ctest's word
        recorded = ""
        if record is not None:
            # The test's own account, unless ctest's verdict is worse (failed > skipped > passed).
            status = max(status, record.status, key=("passed", "skipped", "failed").index)
            recorded = record.reason
        reason = "" if status == "passed" else reason_for(status, ctest_message, output, recorded=recorded)
        if status == "not built" and reason.startswith(NOT_STARTED):
            status = "not started"  # the lab is still the skeleton as shipped (cudalab_not_started): not run
        if unmet and status == "failed":
            reason = correctness_first(unmet.group(1), lab)
        if record is None and status == "passed" and name in records:
            # GoogleTest writes the record when the process ends normally and the sanitizer checks
            # always write one: a pass without it ended early
            # (exit(0) from the lab's code, from a static constructor before any test started, ...).
            status = "failed"
            reason = ("the test process exited with status 0 without writing its result record (is exit() or "
                      "quick_exit() called from the lab's code?)")
        elif record is None and status == "passed" and f"[ RUN      ] {short}\n" in output \
                and f"[       OK ] {short} (" not in output:
            status = "failed"
            reason = ("the test process exited with status 0 before the test finished (is exit() or "
                      "quick_exit() called from the lab's code?)")
        if status == "skipped" and where == "gpu" and reason.startswith(NOT_APPLICABLE):
            status = "not applicable"
            max_points = 0.0
        points = max_points if status == "passed" else 0.0
        if record is not None:
            measured, source = record.measurements, "record"
        else:
            measured, source = [measurement(m.strip()) for m in PERF.findall(output)], "output"
        results.append(Result(name, lab, kind, where, status, points, max_points, reason, output, measured, source))
    # A lab that did not build, or is not started, has no test list: its first stand-in row carries
    # the points its tests would have had ("total_points" in grading.json), so totals stay right (e.g.
    # on Gradescope).
    for lab in labs:
        stand_ins = [r for r in results if r.lab == lab and r.status in STAND_IN]
        if stand_ins:
            known = sum(points_for(r.name[len(lab) + 1:], *rules[lab]) if r.status == "not applicable"
                        else r.max_points for r in results if r.lab == lab and r.status not in STAND_IN)
            stand_ins[0].max_points = max(0.0, load_total(labs[lab]["grading"]) - known)
            continue
        # The test programs list their tests when ctest starts; the lists are fixed when the tests are
        # compiled (CI checks that the reference's carry total_points). Tests worth less than that:
        # something took tests off the list (the lab's code runs first in the program that lists
        # them), and the missing points are lost, not left out of the total.
        mine = [n for n, tags in labels.items() if lab in tags]
        listed = [n for n in mine if n.startswith(lab + ".") and ".SanitizerExhibit." not in n]
        if not listed or not any(r.lab == lab for r in results) or any(n.endswith("_NOT_BUILT") for n in mine):
            continue  # a program without its list (not built, or its stand-in) is scored by its own row
        missing = load_total(labs[lab]["grading"]) - sum(points_for(n[len(lab) + 1:], *rules[lab]) for n in listed)
        if missing > 1e-9:
            results.append(Result(
                f"{lab}.TestList.EveryTestIsListed", lab, "correctness", "host", "failed", 0.0, missing,
                f"the lab's test programs list tests worth {load_total(labs[lab]['grading']) - missing:g} of its "
                f"{load_total(labs[lab]['grading']):g} points: tests are missing from the list (does the lab's code "
                "change what a test program lists?)", source="output"))
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


def perf_lines(r: Result) -> list[str]:
    """The test's "[ PERF     ]" lines (without the tag), as the score table lists them."""
    return [m["text"] for m in r.measurements if m.get("tag") == "perf" and m.get("text")]


def gradescope(results: list[Result], device: str) -> dict:
    """Gradescope's results.json: one entry per test, skipped tests score 0 with a note."""
    tests = []
    for r in results:
        note = {"passed": "", "skipped": "SKIPPED (0 points): ",
                "not applicable": "NOT APPLICABLE ON THIS GPU (0 of 0 points): "}.get(r.status, "FAILED: ")
        output = note + r.reason if r.status != "passed" else "passed"
        lines = perf_lines(r)
        if lines:
            output += "\n" + "\n".join(lines)
        if r.status != "passed" and r.output:
            output += "\n\n" + r.output[-4000:]
        tests.append({"name": r.name, "score": r.points, "max_score": r.max_points,
                      "status": "passed" if r.status in ("passed", "not applicable") else "failed",
                      "output": output, "visibility": "visible",
                      "tags": [r.lab, r.kind, r.where]})
    return {"score": sum(r.points for r in results), "output": f"GPU: {device}\n{health_line(results, hint='', device=device)}",
            "visibility": "visible", "stdout_visibility": "visible", "tests": tests}


def device_line(manifest: dict) -> str:
    try:
        proc = subprocess.run([manifest["info_exe"]], capture_output=True, text=True, timeout=60)
        return proc.stdout.strip() or proc.stderr.strip() or "unknown GPU"
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown GPU ({e})"


def device_name(device: str) -> str:
    """The GPU's name (cudaDeviceProp::name) from cudalab_info's line "NAME (sm_90, 132 SMs), ..."."""
    return device.split(" (sm_", 1)[0] if " (sm_" in device else ""


def threshold_overrides(manifest: dict, device: str, ran: set[str]) -> list[str]:
    """Lines naming the thresholds of this run that are not grading.json's: the per-GPU override
    file's rows for this GPU (compiled in at configure time) and $CUDALAB_THRESHOLD_* variables."""
    lines = []
    info = manifest.get("threshold_overrides") or {}
    name = device_name(device)
    rows = [r for r in info.get("rows", []) if r.get("device") == name and r.get("lab") in ran]
    if rows:
        file = Path(info.get("file") or "the threshold override file").name
        lines.append(f"Thresholds from {file} for {name} (instead of grading.json's):")
        lines += [f"  {r['lab']} {r['key']} = {r['value']:g}" for r in rows]
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(THRESHOLD_ENV) and v)
    if env:
        lines.append("Thresholds from the environment (every lab with the key):")
        lines += [f"  ${k} = {v}" for k, v in env]
    return lines


def duration(seconds: float) -> str:
    """ "45 s", "3 min 05 s"."""
    whole = round(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60} min {whole % 60:02d} s"


def time_line(root: ET.Element) -> str:
    """How long the ctest run of this JUnit file took: its wall-clock "time" (ctest writes it on
    the file's root), else the sum of the tests' own times, said as such."""
    cases = list(root.iter("testcase"))
    try:
        wall = float(root.get("time", ""))
    except ValueError:
        wall = None
    if wall is not None:
        return f"Tests: {len(cases)} in {duration(wall)}, wall clock (this ctest run; the build before it not counted)"
    own = sum(float(c.get("time") or 0) for c in cases)
    return f"Tests: {len(cases)}; their own times add up to {duration(own)} (the run's wall-clock time is not recorded)"


def labs_line(manifest: dict) -> str:
    """ "3 of 20 labs in this build (CUDALAB_LABS=...)": a restriction left in the CMake cache shows."""
    built = len(manifest.get("labs", []))
    available = manifest.get("labs_available") or built
    restriction = manifest.get("labs_restriction") or []
    line = f"{built} of {available} labs in this build"
    if restriction or built < available:
        line += (f" (CUDALAB_LABS={';'.join(restriction)} in the CMake cache; "
                 "all labs: cmake --preset <preset> -DCUDALAB_LABS=)")
    return line


def total_notes(manifest: dict, labels: dict[str, list[str]]) -> list[str]:
    """grading.json's total_points against the points of the lab's tests as ctest lists them (all of
    them, also those this run did not select); labs whose tests are not all built are left out."""
    notes = []
    for lab in manifest.get("labs", []):
        names = [n for n, tags in labels.items() if lab["name"] in tags]
        if not names or any(n.endswith("_NOT_BUILT") for n in names):
            continue
        rules = load_points(lab["grading"])
        carried = sum(points_for(n[len(lab["name"]) + 1:], *rules) for n in names
                      if n.startswith(lab["name"] + ".") and ".SanitizerExhibit." not in n)
        declared = load_total(lab["grading"])
        if abs(carried - declared) > 1e-9:
            notes.append(f"{lab['grading']}: total_points is {declared:g}, its {len(names)} tests carry "
                         f"{carried:g} points (a lab that does not build is scored out of total_points)")
    return notes


def summarize(results: list[Result], manifest: dict) -> dict[str, LabScore]:
    scores = {lab["name"]: LabScore(lab["name"], lab["variant"]) for lab in manifest["labs"]}
    for r in results:
        bucket = getattr(scores[r.lab], r.kind)
        bucket[0] += r.points
        bucket[1] += r.max_points
    return scores


def fmt(pair: list) -> str:
    return f"{pair[0]:g}/{pair[1]:g}" if pair[1] else "-"


def trace_hints(results: list[Result], trace_labs: set[str], build_dir: str) -> list[str]:
    """One line per lab with a failed test and a kernel tracer test (trace.<lab>, tools/tracer):
    the command that draws what the lab's warps and lanes did."""
    labs = sorted({r.lab for r in results if r.status == "failed" and r.lab in trace_labs})
    return [f"to see what your warps did in {lab}: ctest --test-dir {build_dir} -R trace.{lab} -V "
            f"(pictures in {os.path.join(build_dir, 'trace', lab)}/)" for lab in labs]


def health_line(results: list[Result], hint: str = "fix this first: python3 tools/doctor.py", device: str = "") -> str:
    """One line that tells a healthy run from one whose GPU tests never ran (no GPU visible, a driver
    too old, an earlier hang): both score 0 on untouched skeletons, only this line and the reasons
    differ. @p hint ends the line of a run in which no GPU test ran ("" for none)."""
    gpu = [r for r in results if r.where == "gpu" and r.status not in STAND_IN]
    if not gpu:
        if any(r.status == "not built" for r in results):
            return "health: no GPU test ran: labs did not build (listed under Failed)"
        if any(r.status == "not started" for r in results):
            if device.startswith("no GPU"):  # the head's GPU line (cudalab_info): the GPU tests will be skipped
                return ("health: NO GPU: no lab is started yet, and once one is its GPU tests will be skipped "
                        "(the GPU line above says why)" + (f"; {hint}" if hint else ""))
            return "health: no GPU test ran: no lab is started yet (each is still the skeleton as shipped)"
        return "health: no GPU tests in this run (host tests only)"
    skipped = [r for r in gpu if r.status == "skipped"]
    not_run = [r for r in gpu if r.status == "failed" and r.reason.startswith("not run:")]
    na = sum(1 for r in gpu if r.status == "not applicable")
    ran = len(gpu) - len(skipped) - len(not_run) - na
    if ran == 0 and (skipped or not_run):
        reasons: dict[str, int] = {}
        for r in skipped + not_run:
            reasons[r.reason] = reasons.get(r.reason, 0) + 1
        why = max(reasons, key=reasons.get) or "no reason given"
        return (f"health: NO GPU TEST RAN: all {len(skipped) + len(not_run)} were skipped or not run ({why})"
                + (f"; {hint}" if hint else ""))
    failed = [r for r in gpu if r.status == "failed"]
    if len(failed) == len(gpu) - na and len(failed) > 3 and len({r.reason for r in failed}) == 1:
        return (f"health: every GPU test failed with the same reason ({failed[0].reason}): "
                "the GPU setup, not your kernels" + (f"; {hint}" if hint else ""))
    line = f"health: {ran} of {len(gpu)} GPU tests ran on this GPU"
    if na:
        line += f", {na} not applicable here"
    if skipped:
        line += f", {len(skipped)} skipped (listed below)"
    if not_run:
        line += f", {len(not_run)} not run after a test that did not finish"
    if skipped or not_run:
        return line
    return "health: OK, " + line[len("health: "):]


def next_steps(results: list[Result], manifest: dict | None) -> list[str]:
    """The closing lines of the table: what to do next, and what ctest's own percentage means."""
    build = (manifest or {}).get("build_dir", "")
    preset = Path(build).name if Path(build).name in ("grade", "check") else ""
    build_cmd = f"cmake --build --preset {preset}" if preset else f"cmake --build {build or '<build>'}"
    ctest_cmd = f"ctest --preset {preset}" if preset else f"ctest --test-dir {build or '<build>'}"
    lines = []
    waiting = [r for r in results if r.status == "not started"]
    not_built = [r for r in results if r.status == "not built"]
    failed = [r for r in results if r.status == "failed"]
    if only_stale(not_built):
        lines.append(f"Next: the tests are older than your sources: {build_cmd} && {ctest_cmd}")
    elif not_built:
        r = not_built[0]
        lines.append(f"Next: {r.lab} did not build (its row above says why); fix it, then "
                     f"{build_cmd} && {ctest_cmd} -L {r.lab}")
    elif failed:
        r = failed[0]
        lines.append(f"Next: {r.name} failed first; its whole output: {ctest_cmd} -R '{r.name}' --output-on-failure")
    elif waiting:
        lines.append(f"Next: {len({r.lab for r in waiting})} lab(s) not started yet; open one's README (e.g. "
                     f"labs/{waiting[0].lab}/README.md), fill in its TODOs, then {build_cmd} && {ctest_cmd} -L {waiting[0].lab}")
    elif any(r.status == "skipped" for r in results):
        lines.append("Next: the skipped tests earn no points until they run (the health line says why)")
    else:
        lines.append("Next: every test of this run passed.")
    if any(r.status in ("skipped", "not applicable") for r in results):
        lines.append("(ctest's own \"% tests passed\" above counts skipped tests as passed: the points are in this table.)")
    return lines


def render(results: list[Result], scores: dict[str, LabScore], device: str, manifest: dict | None = None,
           notes: list[str] | None = None, trace_labs: set[str] | None = None, timing: str = "") -> str:
    """The score table, details first: measurements, notes, failures, tests not applicable and
    skipped; then the table with the GPU and the health line; what to do next is the last line."""
    ran = {r.lab for r in results}
    lines = []
    measured = [r for r in results if perf_lines(r)]
    if measured:
        lines += ["", "Performance measurements:"]
        lines += [f"  {'PASS' if r.status == 'passed' else 'FAIL'} {m}" for r in measured for m in perf_lines(r)]
    overridden = threshold_overrides(manifest, device, ran) if manifest is not None else []
    if overridden:
        lines += [""] + overridden
    if notes:
        lines += ["", "Notes:"] + [f"  {n}" for n in notes]
    failed = [r for r in results if r.status in ("failed", "not built")]
    skipped = [r for r in results if r.status == "skipped"]
    waiting = sorted({r.lab for r in results if r.status == "not started"})
    if waiting:
        lines += ["", f"Not started, 0 points ({len(waiting)} lab(s) still the skeleton as shipped; their tests were "
                      "not run):", "  " + ", ".join(waiting)]
    if failed:
        lines += ["", f"Failed ({len(failed)}):"]
        lines += [f"  FAIL {r.name} [{r.kind}, {r.max_points:g} pt]: {r.reason}" for r in failed]
        build_dir = manifest.get("build_dir", "<build>") if manifest is not None else "<build>"
        lines += [f"  {hint}" for hint in trace_hints(failed, trace_labs or set(), build_dir)]
    na = [r for r in results if r.status == "not applicable"]
    if na:
        lines += ["", f"Not applicable on this GPU, left out of the total ({len(na)}):"]
        lines += [f"  N/A  {r.name}: {r.reason[len(NOT_APPLICABLE):].strip()}" for r in na]
    if skipped:
        lines += ["", f"Skipped, 0 points ({len(skipped)}):"]
        reasons: dict[str, int] = {}
        for r in skipped:
            reasons[r.reason] = reasons.get(r.reason, 0) + 1
        lines += [f"  SKIP {n} test(s): {why}" for why, n in reasons.items()]
    lines += ["", "=" * 100, f"cuda-labs score table    GPU: {device}"]
    if manifest is not None:
        lines.append(labs_line(manifest))
    lines.append(health_line(results, device=device))
    lines.append("=" * 100)
    header = f"{'lab':<36} {'variant':<9} {'correctness':>12} {'performance':>12} {'points':>10}  note"
    lines += [header, "-" * len(header)]
    total = [0.0, 0.0]
    for name, s in scores.items():
        if name not in ran:
            continue
        pts = [s.correctness[0] + s.performance[0], s.correctness[1] + s.performance[1]]
        total = [total[0] + pts[0], total[1] + pts[1]]
        n_skipped = sum(1 for r in results if r.lab == name and r.status == "skipped")
        n_na = sum(1 for r in results if r.lab == name and r.status == "not applicable")
        stand_ins = [r for r in results if r.lab == name and r.status in STAND_IN]
        if stand_ins:
            note = ("NOT STARTED" if all(r.status == "not started" for r in stand_ins) else
                    "BUILD AGAIN (older than its sources)" if only_stale(stand_ins) else "DID NOT BUILD")
        else:
            note = ", ".join(x for x in (f"{n_skipped} skipped" if n_skipped else "",
                                         f"{n_na} not applicable here" if n_na else "") if x)
        lines.append(f"{name:<36} {s.variant:<9} {fmt(s.correctness):>12} {fmt(s.performance):>12} "
                     f"{fmt(pts):>10}  {note}")
    lines += ["-" * len(header), f"{'total':<36} {'':<9} {'':>12} {'':>12} {fmt(total):>10}"]
    if timing:
        lines.append(timing)
    lines += next_steps(results, manifest)
    lines.append("")
    return "\n".join(lines)


def write_junit(results: list[Result], scores: dict[str, LabScore], device: str, path: Path) -> None:
    suites = ET.Element("testsuites", name="cuda-labs")
    for name, s in scores.items():
        mine = [r for r in results if r.lab == name]
        if not mine:
            continue
        suite = ET.SubElement(suites, "testsuite", name=name, tests=str(len(mine)),
                              failures=str(sum(r.status in ("failed", *STAND_IN) for r in mine)),
                              skipped=str(sum(r.status in ("skipped", "not applicable") for r in mine)))
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
            if r.status in ("failed", *STAND_IN):
                ET.SubElement(case, "failure", message=r.reason).text = r.output
            elif r.status in ("skipped", "not applicable"):
                ET.SubElement(case, "skipped", message=r.reason)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def pre_test(junit: Path) -> int:
    """Before a ctest run: the previous run's JUnit file becomes junit.previous.xml, so that the
    score table after this run never shows an earlier run's results."""
    if junit.exists():
        try:
            junit.replace(junit.with_name(junit.stem + ".previous" + junit.suffix))
        except OSError as e:
            print(f"grade.py: cannot move the previous run's {junit} aside: {e.strerror or e}", file=sys.stderr)
            return 1
    return 0


def load_manifest(path: Path) -> dict:
    """The build's grade/manifest.json (tools/CMakeLists.txt writes it at configure time)."""
    manifest = read_json(path, ": configure this build first (cmake --preset grade)")
    missing = [k for k in ("labs", "build_dir", "ctest") if not isinstance(manifest, dict) or k not in manifest]
    if missing:
        raise GradeError(f"{path}: no {', '.join(missing)}: configure this build again (cmake --preset grade)")
    for i, lab in enumerate(manifest["labs"]):
        if not isinstance(lab, dict) or not all(isinstance(lab.get(k), str) for k in ("name", "variant", "grading")):
            raise GradeError(f"{path}: labs[{i}] needs name, variant and grading: configure this build again")
    return manifest


def set_aside(out: Path) -> None:
    """An earlier run's outputs are renamed (*.previous.*) so no tool takes them for this run's."""
    for name in ("summary.json", "grade.xml"):
        f = out / name
        if f.exists():
            f.replace(out / name.replace(".", ".previous.", 1))


def run(args) -> int:
    manifest = load_manifest(args.manifest)
    if not args.junit.exists():
        print("(no score table: this ctest run wrote no JUnit file; use `ctest --preset grade` or "
              f"`ctest --output-junit {args.junit}`)")
        return 0
    junit = args.junit.read_bytes()  # first: `ctest --show-only` below runs the pre-test step
    timing = time_line(parse_junit(junit, str(args.junit)))
    for lab in manifest["labs"]:
        load_grading(lab["grading"], lab["name"])
    labels, records = read_tests(manifest)
    results = grade(junit, manifest, labels, str(args.junit), records)
    if not results:
        print("(no lab tests in this run: no score table)")
        return 0
    attach_build_errors(results, args.build_log)
    device = device_line(manifest)
    scores = summarize(results, manifest)
    # tools/tracer/CMakeLists.txt: trace.<lab>, labelled trace_unavailable where the tracer is not built
    trace_labs = {lab for lab in scores
                  if f"trace.{lab}" in labels and "trace_unavailable" not in labels[f"trace.{lab}"]}
    args.out.mkdir(parents=True, exist_ok=True)
    write_junit(results, scores, device, args.out / "grade.xml")
    ran = {r.lab for r in results}
    info = manifest.get("threshold_overrides") or {}
    summary = {"device": device, "device_name": device_name(device), "labs_line": labs_line(manifest),
               "labs": {n: asdict(s) for n, s in scores.items() if any(r.lab == n for r in results)},
               "threshold_overrides": [dict(r, file=info.get("file", "")) for r in info.get("rows", [])
                                       if r.get("device") == device_name(device) and r.get("lab") in ran],
               "tests": [{k: v for k, v in asdict(r).items() if k != "output"} for r in results]}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (args.out / "results.json").write_text(json.dumps(gradescope(results, device), indent=2) + "\n",
                                           encoding="utf-8")
    print(f"\nThe score table is also in {args.out}/: grade.xml (JUnit), summary.json, results.json (Gradescope)")
    # Last, where the eye lands: the failures' reasons, then the table, the health line, what next.
    print(render(results, scores, device, manifest, total_notes(manifest, labels), trace_labs, timing))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path)
    parser.add_argument("--junit", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--build-log", type=Path, help="build output, to report why a lab did not build")
    parser.add_argument("--pre-test", action="store_true",
                        help="before a ctest run: move the previous JUnit file aside (CTEST_CUSTOM_PRE_TEST)")
    args = parser.parse_args(argv)
    if os.environ.get("CUDALAB_GRADING"):
        return 0  # called from our own `ctest --show-only`, or by a tool that grades by itself
    if args.pre_test:
        return pre_test(args.junit)
    if args.manifest is None or args.out is None:
        parser.error("--manifest and --out are required (except with --pre-test)")
    try:
        return run(args)
    except GradeError as e:
        print(f"grade.py: no score table: {e}", file=sys.stderr)
        try:
            set_aside(args.out)
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "results.json").write_text(json.dumps(
                {"score": 0, "output": f"The grade step failed: {e}", "visibility": "visible",
                 "stdout_visibility": "visible", "tests": []}, indent=2) + "\n", encoding="utf-8")
        except OSError:
            pass
        return 1

if __name__ == "__main__":
    sys.exit(main())
