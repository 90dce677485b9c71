#!/usr/bin/env python3
"""Recalibrate the performance thresholds for your course GPU.

    tools/calibrate.py --build build/check [--repeat 3] [-L performance] [--margin 0.85] [--write]
    tools/calibrate.py --from build/gpu-check/check-1.json build/gpu-check/check-2.json ... [--write]
    tools/calibrate.py --from build/check/grade/summary.json --write-overrides thresholds-overrides.json
    tools/calibrate.py --from run-1.json run-2.json run-3.json --min-headroom 1.1

--build runs `ctest --test-dir DIR -L LABEL -LE profile` REPEAT times (one test at a time, with
no $CUDALAB_THRESHOLD_* overrides, and with CUDALAB_TIMING_FULL=1: every timed test takes all of
its repetitions instead of stopping once clear of its threshold) in a build of the reference
solutions (the `check` preset) and keeps each run's summary.json as DIR/grade/calibrate-N.json;
--from reads summary.json files of earlier runs instead (tools/grade.py writes
DIR/grade/summary.json after every graded ctest run, tools/staff/gpu-check.sh --repeat N keeps
build/gpu-check/check-N.json).

Every performance measurement of a test (summary.json "measurements", read by tools/grade.py
from the test's result record; docs/grading.md) carries its grading.json threshold key, the
measured figure and the value it was required to reach: {"key": "interleaved_speedup",
"measured": 2.06, "required": 1.85, "compare": ">=", "baseline_ms": ..., "candidate_ms": ...,
"text": "<the [ PERF ] line>", "tag": "perf"}. Calibrated are the "[ PERF ]" measurements
("tag": "perf") of minimum thresholds (">="); hardware-counter figures ("tag": "profile") and
maximum thresholds ("<=") are left alone, and so is a line with no threshold (a GFLOP/s figure).
A measurement whose key the lab's grading.json does not have is listed and left alone. A
summary.json whose measurements are text lines (written by an older tools/grade.py) is refused:
run the reference tests again.

Per lab and key it prints the current value, the smallest and the median measurement over all
runs (and all tests using the key), and

    suggested = margin x smallest measurement, rounded down to 2 significant figures

(margin 0.85 by default: 15 % below the worst run). Every threshold is a minimum ("required >=").
The headroom column is the smallest measurement / the current value: how far the reference's
worst run stays above the threshold. --min-headroom H marks every row below H and exits 1 if
there is one (for example 1.1 before a course starts: the reference's worst run at least 10 %
above every timed threshold). With --write it reports the headroom of the values before writing.
--write puts the suggested values into tests/<lab>/grading.json ("value") with a "calibrated" note
(device, date, min/median, the margin, and after "before:" the hand-set value and its note, kept
through later recalibrations); the rest of the file is left as it is. --only LAB
or KEY limits what is written.

--write-overrides FILE writes the suggestions for this GPU only, into a per-GPU override file
instead of grading.json (other GPUs' entries in FILE are kept):

    {"devices": {"NVIDIA H200": {"<lab>": {"<key>": {"value": 0.7, "calibrated": "<measured, when>"}}}}}

keyed by the device name the runs were measured on (cudaDeviceProp::name, from summary.json;
--device NAME to set it). The next configure compiles the rows in (thresholds-overrides.json at the
repository root, or the file named by the CMake cache variable CUDALAB_THRESHOLD_OVERRIDES): on
that GPU cudalab::threshold() takes them before grading.json's value ($CUDALAB_THRESHOLD_<KEY>
still wins), and the score table lists them. The "current" column shows the value in effect on the
measured GPU (its override row if FILE already has one). Review the suggestions before writing: a threshold must also stay
above what a wrong or lazy kernel reaches (see each key's "calibrated" note and the mutants:
tools/staff/mutants.py); a threshold above 1 (a required speed-up) is never written down to 1 or below,
which a copy of the baseline would pass. Keys no run measured (profile tests, or correctness tests outside -L) are
listed and left alone.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import grade  # noqa: E402  (its JSON reader and error type)

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Measurement:
    lab: str
    test: str
    measured: float
    required: float
    line: str
    key: str | None = None


@dataclass
class Row:
    lab: str
    key: str
    current: float | None
    values: list = field(default_factory=list)


CalibrateError = grade.GradeError  # bad input: one line naming the file and what is wrong


def read_json(path: Path, hint: str = ""):
    """The JSON value in @p path (UTF-8), or CalibrateError with the position."""
    return grade.read_json(path, hint, missing="no such file")


def read_summary(path: Path) -> dict:
    """A summary.json of tools/grade.py."""
    data = read_json(path, " (tools/grade.py writes <build>/grade/summary.json after a graded ctest run)")
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise CalibrateError(f"{path}: not a summary.json of tools/grade.py (no \"tests\" list)")
    for t in data["tests"]:
        if not isinstance(t, dict) or not all(isinstance(m, dict) for m in t.get("measurements", [])):
            raise CalibrateError(f"{path}: its measurements are text lines, without their threshold keys (a "
                                 "summary.json of an older tools/grade.py): run the reference tests again")
    return data


def load_thresholds(root: Path, lab: str) -> dict[str, dict]:
    path = root / "tests" / lab / "grading.json"
    if not path.exists():
        return {}  # a lab this tree does not have: its measurements are listed as unmapped
    data = read_json(path)
    thresholds = data.get("thresholds", {}) if isinstance(data, dict) else None
    if not isinstance(thresholds, dict):
        raise CalibrateError(f"{path}: \"thresholds\" is not an object")
    return thresholds


def device_name(summary: dict) -> str:
    """cudaDeviceProp::name of the GPU a summary was measured on ("" if none): summary.json's
    "device_name", else the part of its "device" line before " (sm_"."""
    name = summary.get("device_name") or ""
    device = summary.get("device", "")
    if not name and " (sm_" in device:
        name = device.split(" (sm_", 1)[0]
    return name


def load_overrides(path: Path | None) -> dict:
    """A per-GPU override file ({"devices": {...}}); {"devices": {}} when @p path does not exist."""
    if path is None or not path.exists():
        return {"devices": {}}
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("devices"), dict):
        raise CalibrateError(f"{path}: not a threshold override file (no \"devices\" object)")
    return data


def override_values(overrides: dict, device: str) -> dict[str, dict[str, float]]:
    """lab -> key -> the override value for @p device."""
    out: dict[str, dict[str, float]] = {}
    for lab, keys in (overrides["devices"].get(device) or {}).items():
        for key, spec in (keys or {}).items():
            if isinstance(spec, dict) and isinstance(spec.get("value"), (int, float)):
                out.setdefault(lab, {})[key] = float(spec["value"])
    return out


def calibrated(m: dict) -> bool:
    """Is this summary.json measurement one calibrate.py recalibrates: a "[ PERF ]" measurement
    (not a hardware counter) of a minimum threshold, with its measured and required figures?"""
    return (m.get("tag", "perf") == "perf" and (m.get("compare") or ">=") == ">="
            and all(isinstance(m.get(k), (int, float)) and not isinstance(m.get(k), bool)
                    for k in ("measured", "required")))


def collect(summaries: list[dict], root: Path) -> tuple[list[Measurement], dict[str, dict[str, dict]]]:
    """Every calibrated measurement of every run, with its threshold key (None when the lab's
    grading.json has no such key); and the thresholds of every lab seen."""
    thresholds: dict[str, dict[str, dict]] = {}
    out: list[Measurement] = []
    for summary in summaries:
        for t in summary.get("tests", []):
            lab = t["lab"]
            if lab not in thresholds:
                thresholds[lab] = load_thresholds(root, lab)
            for m in t.get("measurements", []):
                if not calibrated(m):
                    continue
                key = m.get("key") if m.get("key") in thresholds[lab] else None
                out.append(Measurement(lab, t["name"], float(m["measured"]), float(m["required"]),
                                       m.get("text") or "", key))
    return out, thresholds


def round_down_2sig(x: float) -> Decimal:
    """Rounded down to 2 significant figures: 1.7595 -> 1.7, 63.2 -> 63, 0.7148 -> 0.71, 1.037 -> 1.0."""
    if x <= 0:
        return Decimal(0)
    step = Decimal(1).scaleb(math.floor(math.log10(x)) - 1)
    return (Decimal(repr(x)) / step).to_integral_value(rounding=ROUND_FLOOR) * step


def fmt_decimal(d: Decimal) -> str:
    return format(d, "f")


def suggest(values: list[float], margin: float) -> Decimal:
    return round_down_2sig(min(values) * margin)


def table(measurements: list[Measurement], thresholds: dict[str, dict[str, dict]],
          current: dict[str, dict[str, float]] | None = None) -> list[Row]:
    rows: dict[tuple[str, str], Row] = {}
    current = current or {}
    for lab, keys in thresholds.items():
        for key, spec in keys.items():
            value = current.get(lab, {}).get(key, spec.get("value") if isinstance(spec, dict) else None)
            rows[(lab, key)] = Row(lab, key, float(value) if isinstance(value, (int, float)) else None)
    for m in measurements:
        if m.key:
            rows[(m.lab, m.key)].values.append(m.measured)
    return list(rows.values())


def headroom(r: Row) -> float | None:
    """The smallest measurement / the current value (None: not measured, or no positive value)."""
    return min(r.values) / r.current if r.values and r.current else None


def short_of_headroom(rows: list[Row], min_headroom: float | None) -> list[Row]:
    """The measured rows whose headroom is below @p min_headroom (none when it is None)."""
    return [r for r in rows if min_headroom and headroom(r) is not None and headroom(r) < min_headroom]


def render(rows: list[Row], unmapped: list[Measurement], margin: float, runs: int, device: str,
           short: list[Row] = (), min_headroom: float | None = None) -> str:
    lines = [f"Calibration from {runs} run(s) on {device}",
             f"suggested = {margin:.0%} of the smallest measurement, rounded down to 2 significant figures",
             "headroom = smallest measurement / current value", ""]
    head = (f"{'lab':<34} {'key':<30} {'current':>8} {'measured min / median (n)':>26} {'headroom':>8} "
            f"{'suggested':>10}  note")
    lines += [head, "-" * len(head)]
    short_keys = {(r.lab, r.key) for r in short}
    for r in rows:
        cur = f"{r.current:g}" if r.current is not None else "-"
        if not r.values:
            lines.append(f"{r.lab:<34} {r.key:<30} {cur:>8} {'not measured':>26} {'-':>8} {'-':>10}")
            continue
        lo, med = min(r.values), statistics.median(r.values)
        sug = suggest(r.values, margin)
        if r.current is not None and lo < r.current:
            note = "the reference FAILED in a run: check the GPU is idle, or lower the threshold"
        elif r.current is None or Decimal(repr(r.current)) == sug:
            note = "unchanged"
        else:
            note = "tighter" if sug > Decimal(repr(r.current)) else "looser"
        if loses_speed_up(r.current, sug):
            note += "; <= 1 no longer requires a speed-up: not written (keep the value, or a --margin nearer 1)"
        if (r.lab, r.key) in short_keys:
            note += f"; headroom below {min_headroom:g}"
        room = headroom(r)
        lines.append(f"{r.lab:<34} {r.key:<30} {cur:>8} {f'{lo:g} / {med:g} ({len(r.values)})':>26} "
                     f"{(f'{room:.3f}' if room is not None else '-'):>8} {fmt_decimal(sug):>10}  {note}")
    if unmapped:
        lines += ["", "Measurements without a threshold key (left alone):"]
        lines += [f"  {m.test}: {m.line}" for m in unmapped]
    return "\n".join(lines) + "\n"


def object_span(text: str, open_brace: int) -> int:
    """Index of the '}' that closes the JSON object opening at text[open_brace]."""
    depth, in_string, escaped = 0, False, False
    for i in range(open_brace, len(text)):
        c = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced braces")


def update_grading_text(text: str, key: str, value: str, note: str) -> str:
    """grading.json text with thresholds.<key>.value and .calibrated replaced; the rest untouched."""
    th = re.search(r'"thresholds"\s*:\s*\{', text)
    km = re.compile(r'"%s"\s*:\s*\{' % re.escape(key)).search(text, th.end()) if th else None
    if not km:
        raise KeyError(key)
    start = km.end() - 1
    end = object_span(text, start)
    obj = text[start:end + 1]
    obj = re.sub(r'("value"\s*:\s*)-?[0-9][0-9.eE+-]*', lambda m: m.group(1) + value, obj, count=1)
    quoted = json.dumps(note, ensure_ascii=False)
    if re.search(r'"calibrated"\s*:', obj):
        obj = re.sub(r'("calibrated"\s*:\s*)"(?:[^"\\]|\\.)*"', lambda m: m.group(1) + quoted, obj, count=1)
    else:
        obj = re.sub(r'("value"\s*:\s*[^,\n}]*)', lambda m: m.group(1) + ', "calibrated": ' + quoted, obj, count=1)
    new = text[:start] + obj + text[end + 1:]
    if float(json.loads(new)["thresholds"][key]["value"]) != float(value):
        raise ValueError(f"could not update {key}")
    return new


def calibrated_note(device: str, values: list[float], runs: int, margin: float, old_value, old_note: str) -> str:
    earlier = old_note.split("; before: ", 1)[1] if "calibrate.py" in old_note and "; before: " in old_note \
        else f"{old_value:g} ({old_note})" if old_note else f"{old_value:g}"
    return (f"{device}: tools/calibrate.py {datetime.date.today().isoformat()}, {len(values)} measurement(s) in "
            f"{runs} run(s): min {min(values):g}, median {statistics.median(values):g}; value = {margin:.0%} of "
            f"the min, rounded down to 2 significant figures; before: {earlier}")


def loses_speed_up(current, suggested: Decimal) -> bool:
    """A threshold above 1 (a speed-up is required) whose suggestion is at most 1: written, it would
    pass a copy of the baseline, so --write and --write-overrides keep the current value."""
    return current is not None and current > 1 >= suggested


def write(rows: list[Row], thresholds: dict[str, dict[str, dict]], root: Path, margin: float, runs: int,
          device: str, only: list[str]) -> list[str]:
    changed = []
    for r in rows:
        if not r.values or (only and r.lab not in only and r.key not in only):
            continue
        path = root / "tests" / r.lab / "grading.json"
        spec = thresholds[r.lab][r.key]
        suggested = suggest(r.values, margin)
        if loses_speed_up(r.current, suggested):
            changed.append(f"{r.lab} {r.key}: kept {r.current:g} (the suggestion {fmt_decimal(suggested)} "
                           f"would no longer require a speed-up)")
            continue
        value = fmt_decimal(suggested)
        note = calibrated_note(device, r.values, runs, margin, spec.get("value"), spec.get("calibrated", ""))
        path.write_text(update_grading_text(path.read_text(encoding="utf-8"), r.key, value, note), encoding="utf-8")
        changed.append(f"{r.lab} {r.key}: {spec.get('value')} -> {value}")
    return changed


def override_note(device: str, values: list[float], runs: int, margin: float, default) -> str:
    return (f"{device}: tools/calibrate.py {datetime.date.today().isoformat()}, {len(values)} measurement(s) in "
            f"{runs} run(s): min {min(values):g}, median {statistics.median(values):g}; value = {margin:.0%} of "
            f"the min, rounded down to 2 significant figures; grading.json: {default:g}")


def write_overrides(rows: list[Row], thresholds: dict[str, dict[str, dict]], path: Path, overrides: dict,
                    name: str, device: str, margin: float, runs: int, only: list[str]) -> list[str]:
    """Puts this GPU's suggestions into the override file @p path (other GPUs' entries kept)."""
    changed = []
    mine = overrides["devices"].setdefault(name, {})
    for r in rows:
        if not r.values or (only and r.lab not in only and r.key not in only):
            continue
        value = suggest(r.values, margin)
        if loses_speed_up(r.current, value):
            changed.append(f"{r.lab} {r.key}: kept {r.current:g} on {name} (the suggestion {fmt_decimal(value)} "
                           f"would no longer require a speed-up)")
            continue
        default = thresholds[r.lab][r.key].get("value")
        mine.setdefault(r.lab, {})[r.key] = {
            "value": int(value) if value == value.to_integral_value() and "." not in fmt_decimal(value)
            else float(value),
            "calibrated": override_note(device, r.values, runs, margin, default)}
        changed.append(f"{r.lab} {r.key}: {r.current:g} -> {fmt_decimal(value)} on {name}"
                       if r.current is not None else f"{r.lab} {r.key}: {fmt_decimal(value)} on {name}")
    if changed:
        text = json.dumps(overrides, indent=2, ensure_ascii=False) + "\n"
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    return changed


def run_ctest(build: Path, label: str, repeat: int) -> list[Path]:
    """Runs the labelled tests REPEAT times; returns the saved summary.json copies."""
    manifest = read_json(build / "grade" / "manifest.json", ": configure the build first (cmake --preset check)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDALAB_THRESHOLD_")}
    env["CUDALAB_TIMING_FULL"] = "1"  # every rep timed: no test stops sampling once clear of its threshold
    junit, summary = (build / "grade" / "junit.xml").resolve(), build / "grade" / "summary.json"
    saved = []
    for i in range(1, repeat + 1):
        print(f"calibrate: run {i}/{repeat}: ctest --test-dir {build} -L '{label}' -LE profile", flush=True)
        summary.unlink(missing_ok=True)  # the grade step writes it again: never read an earlier run's
        proc = subprocess.run([manifest.get("ctest", "ctest"), "--test-dir", str(build), "-L", label, "-LE", "profile",
                               "--parallel", "1", "--no-tests=error", "--output-junit", str(junit)],
                              env=env, capture_output=True, text=True)
        if not summary.exists():
            sys.exit(f"calibrate: run {i} wrote no {summary} (ctest exit {proc.returncode}):\n{proc.stdout[-3000:]}"
                     f"{proc.stderr[-2000:]}")
        copy = build / "grade" / f"calibrate-{i}.json"
        copy.write_bytes(summary.read_bytes())
        saved.append(copy)
    return saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--build", type=Path, help="build tree of the reference solutions to run ctest in")
    src.add_argument("--from", dest="summaries", type=Path, nargs="+", help="summary.json files of earlier runs")
    parser.add_argument("--repeat", type=int, default=3, help="ctest runs with --build (default 3)")
    parser.add_argument("-L", dest="label", default="performance", help="ctest label regex (default performance)")
    parser.add_argument("--margin", type=float, default=0.85, help="suggested = margin x worst (default 0.85)")
    parser.add_argument("--min-headroom", type=float, metavar="H",
                        help="mark the thresholds whose smallest measurement / value is below H; exit 1 if any")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--write", action="store_true", help="write the suggestions into tests/<lab>/grading.json")
    out.add_argument("--write-overrides", type=Path, metavar="FILE",
                     help="write the suggestions for the measured GPU into the per-GPU override file FILE")
    parser.add_argument("--device", help="with --write-overrides: the GPU's name (default: from summary.json)")
    parser.add_argument("--only", nargs="+", default=[], help="with --write/--write-overrides: only these labs or keys")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)  # for the self-test
    args = parser.parse_args(argv)
    try:
        return run(args)
    except CalibrateError as e:
        print(f"calibrate: {e}", file=sys.stderr)
        return 1


def run(args) -> int:
    paths = args.summaries or run_ctest(args.build, args.label, args.repeat)
    summaries = [read_summary(p) for p in paths]
    device = summaries[0].get("device", "unknown GPU")
    name = args.device or device_name(summaries[0])
    others = {device_name(s) for s in summaries[1:]} - {name, ""}
    if others and not args.device:
        raise CalibrateError(f"these runs were measured on different GPUs ({name}, {', '.join(sorted(others))}): "
                             "calibrate one GPU at a time")
    overrides_path = args.write_overrides or args.root / "thresholds-overrides.json"
    overrides = load_overrides(overrides_path)
    current = override_values(overrides, name)
    measurements, thresholds = collect(summaries, args.root)
    if not measurements:
        print("calibrate: no performance measurements in these runs (GPU tests skipped without a GPU?)")
        return 1
    rows = table(measurements, thresholds, current)
    short = short_of_headroom(rows, args.min_headroom)
    print(render(rows, [m for m in measurements if not m.key], args.margin, len(summaries), device, short,
                 args.min_headroom), end="")
    if short:
        print(f"\n{len(short)} threshold(s) with headroom below {args.min_headroom:g}: "
              + ", ".join(f"{r.lab} {r.key} ({headroom(r):.3f})" for r in short))
    if args.write:
        changed = write(rows, thresholds, args.root, args.margin, len(summaries), device, args.only)
        print("\nWritten (the next build compiles them in: cmake --build --preset check):" if changed else "\nNothing written.")
        print("\n".join(f"  {c}" for c in changed))
    elif args.write_overrides:
        if not name:
            raise CalibrateError(f"the runs' GPU has no name in {paths[0]} (device: {device!r}): "
                                 "give it with --device \"NVIDIA H200\"")
        changed = write_overrides(rows, thresholds, args.write_overrides, overrides, name, device, args.margin,
                                  len(summaries), args.only)
        print(f"\nWritten to {args.write_overrides} for {name} (the next configure compiles them in: "
              "cmake --workflow --preset check):" if changed else "\nNothing written.")
        print("\n".join(f"  {c}" for c in changed))
    return 1 if short else 0

if __name__ == "__main__":
    sys.exit(main())
