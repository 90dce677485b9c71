"""Self-test of tools/calibrate.py (run by ctest as tools.calibrate_selftest): measurements are read
from summary.json files with the grading.json threshold key each carries, the suggestion is the
margin below the worst run rounded down, and --write changes only the values and notes."""
import contextlib
import io
import json
import os
import shutil
import stat
import subprocess
import tempfile
import textwrap
import unittest
from decimal import Decimal
from pathlib import Path

import calibrate

LAB = "ch99_example"
GRADING = """{
  "lab": "ch99_example",
  "total_points": 20,
  "points": [
    {"match": "Perf.*", "points": 5}
  ],
  "thresholds": {
    "cub_ratio": {
      "value": 0.85,
      "about": "CUB time / ours",
      "calibrated": "H100: 1.05x; with 4-byte loads 0.79x, which must fail"
    },
    "copy_fraction": {
      "value": 0.85,
      "about": "ours / copy, both at 2^28"
    },
    "pick_vs_best": {"value": 0.9, "about": "a parameterised test", "calibrated": "H100"},
    "pct_of_copy": {"value": 60, "about": "% of copy", "calibrated": "H100: 74.3 %"},
    "dram_over_l1": {"value": 8.0, "about": "a correctness test's ratio", "calibrated": "H100: 17.3"},
    "never_run": {"value": 31.0, "about": "a profile test", "calibrated": "H100"}
  }
}
"""
def perf(speedup, required, key):
    """A summary.json measurement of expect_speedup (tools/grade.py, from the test's record)."""
    text = (f"ours vs base: 0.105 ms vs 0.216 ms (median of 31, noise 0.3% / 0.1%), speed-up {speedup:.2f}x, "
            f"required >= {required:.2f}x, 640 GB/s = 22% of measured copy bandwidth (2909 GB/s)")
    return {"key": key, "measured": speedup, "required": required, "compare": ">=", "baseline_ms": 0.216,
            "candidate_ms": 0.105, "text": text, "tag": "perf"}


def figure(key, measured, required, text, compare=">=", tag="perf"):
    return {"key": key, "measured": measured, "required": required, "compare": compare, "baseline_ms": None,
            "candidate_ms": None, "text": text, "tag": tag}


def summary(cub, copy, picks, pct, ratio):
    tests = [("Perf.KeepsUpWithCub", [perf(cub, 0.85, "cub_ratio")], "passed", ""),
             ("Perf.ReachesCopy", [perf(copy, 0.85, "copy_fraction")], "passed" if copy >= 0.85 else "failed",
              f"ours is too slow: speed-up over copy {copy}x, required >= 0.85x (threshold 'copy_fraction' from x)"),
             ("Latency.PercentOfCopy", [figure("pct_of_copy", pct, 60, f"copyInt4Ilp4 at 4 warps/SM: 0.248 ms, "
                                               f"{pct}% of measured copy bandwidth (2925 GB/s), required >= 60%")],
              "passed", ""),
             ("Chase.DramSlower", [figure("dram_over_l1", ratio, 8.0, f"pointerChase: L1 hit 39.6 cycles/load, DRAM "
                                          f"685.5 cycles/load, ratio {ratio}, required >= 8.0")], "passed", ""),
             # a key this lab's grading.json does not have: listed, left alone
             ("Other.Unknown", [figure("renamed_key", 3.0, 2.0, "something else: 3.00x faster, required >= 2.00x")],
              "passed", ""),
             # never calibrated: a figure without a threshold, a hardware counter, a maximum
             ("Gemm.Flops", [figure(None, None, None, "matrixMulTiled<32>: 9000 GFLOP/s; cuBLAS: 20000 GFLOP/s"),
                             figure("never_run", 2.0, 31.0, "counted: 2.0, required >= 31", tag="profile"),
                             figure("never_run", 40.0, 31.0, "at most: 40, required <= 31", compare="<=")],
              "passed", "")]
    tests += [(f"Sweep/Pick.Sweep/shape{i}", [perf(p, 0.90, "pick_vs_best")], "passed", "")
              for i, p in enumerate(picks)]
    return {"device": "NVIDIA Test GPU (sm_99, 1 SMs)", "labs": {},
            "tests": [{"name": f"{LAB}.{n}", "lab": LAB, "kind": "performance", "where": "gpu", "status": st,
                       "points": 0, "max_points": 5, "reason": reason, "measurements": m}
                      for n, m, st, reason in tests]}


class CalibrateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        (self.root / "tests" / LAB).mkdir(parents=True)
        (self.root / "tests" / LAB / "grading.json").write_text(GRADING)
        self.runs = []
        for i, s in enumerate([summary(1.05, 0.97, [1.01, 0.97], 74.3, 17.3),
                               summary(1.10, 0.80, [1.00, 0.99], 74.9, 17.0)]):
            path = self.root / f"run{i}.json"
            path.write_text(json.dumps(s))
            self.runs.append(path)

    def tearDown(self):
        self.tmp.cleanup()

    def main(self, *args, err=False):
        out, errors = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errors):
            rc = calibrate.main(["--root", str(self.root), *args])
        return (rc, out.getvalue(), errors.getvalue()) if err else (rc, out.getvalue())

    def test_bad_inputs_give_one_line_and_exit_1(self):
        bad = self.root / "bad.json"
        cases = [(self.root / "missing.json", None, "missing.json: no such file"),
                 (bad, "", "bad.json: empty"),
                 (bad, '{"tests": [}', "bad.json: line 1, column 12"),
                 (bad, b'{"device": "GPU \xe9"}', "bad.json: line 1: not UTF-8 text (byte 0xe9)"),
                 (bad, '{"device": "x"}', 'not a summary.json of tools/grade.py')]
        for path, content, want in cases:
            if isinstance(content, bytes):
                path.write_bytes(content)
            elif content is not None:
                path.write_text(content)
            rc, out, err = self.main("--from", str(path), err=True)
            self.assertEqual(rc, 1, want)
            self.assertIn(want, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertNotIn("Traceback", out + err)

    def test_a_summary_with_text_measurements_is_refused(self):
        # an older tools/grade.py wrote the [ PERF ] lines only, without their threshold keys
        old = json.loads(self.runs[0].read_text())
        for t in old["tests"]:
            t["measurements"] = [m["text"] for m in t["measurements"]]
        self.runs[0].write_text(json.dumps(old))
        rc, out, err = self.main("--from", *map(str, self.runs), err=True)
        self.assertEqual(rc, 1)
        self.assertIn(f"{self.runs[0]}: its measurements are text lines", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_write_overrides_per_gpu(self):
        grading = self.root / "tests" / LAB / "grading.json"
        before = grading.read_text()
        target = self.root / "thresholds-overrides.json"
        other = {"NVIDIA L4": {LAB: {"cub_ratio": {"value": 0.5, "calibrated": "L4, by hand"}}}}
        target.write_text(json.dumps({"devices": other}))
        rc, out = self.main("--from", *map(str, self.runs), "--write-overrides", str(target),
                            "--only", "cub_ratio", "copy_fraction")
        self.assertEqual(rc, 0, out)
        self.assertEqual(grading.read_text(), before)   # grading.json untouched
        data = json.loads(target.read_text())
        self.assertEqual(data["devices"]["NVIDIA L4"], other["NVIDIA L4"])   # other GPUs kept
        mine = data["devices"]["NVIDIA Test GPU"][LAB]
        self.assertEqual(sorted(mine), ["copy_fraction", "cub_ratio"])
        self.assertEqual(mine["cub_ratio"]["value"], 0.89)
        self.assertEqual(mine["copy_fraction"]["value"], 0.68)
        note = mine["copy_fraction"]["calibrated"]
        self.assertIn("NVIDIA Test GPU (sm_99, 1 SMs): tools/calibrate.py 20", note)
        self.assertIn("min 0.8, median 0.885", note)
        self.assertIn("grading.json: 0.85", note)
        self.assertIn("0.68 on NVIDIA Test GPU", out)
        # the next calibration shows the value in effect on this GPU: the override row
        rc, out = self.main("--from", *map(str, self.runs), "--write-overrides", str(target))
        row = next(line for line in out.splitlines() if line.startswith(LAB) and " copy_fraction " in line)
        self.assertRegex(row, r"copy_fraction\s+0\.68\s")
        # --device names the GPU when the summary cannot
        rc, out = self.main("--from", str(self.runs[0]), "--write-overrides", str(target), "--device", "NVIDIA H200",
                            "--only", "pct_of_copy")
        self.assertEqual(json.loads(target.read_text())["devices"]["NVIDIA H200"][LAB]["pct_of_copy"]["value"], 63)

    def test_write_overrides_keeps_a_malformed_file(self):
        target = self.root / "thresholds-overrides.json"
        target.write_text('{"devices": {"NVIDIA L4": {},}}')
        rc, out, err = self.main("--from", *map(str, self.runs), "--write-overrides", str(target), err=True)
        self.assertEqual(rc, 1)
        self.assertIn("thresholds-overrides.json: line 1, column 30", err)
        self.assertEqual(target.read_text(), '{"devices": {"NVIDIA L4": {},}}')   # nothing lost

    def test_write_overrides_needs_a_gpu_name(self):
        summary = json.loads(self.runs[0].read_text())
        summary["device"] = "no GPU (no CUDA device); CUDA runtime 13.0"
        self.runs[0].write_text(json.dumps(summary))
        rc, out, err = self.main("--from", str(self.runs[0]), "--write-overrides", str(self.root / "o.json"), err=True)
        self.assertEqual(rc, 1)
        self.assertIn("give it with --device", err)
        self.assertFalse((self.root / "o.json").exists())

    @unittest.skipUnless(shutil.which("cmake"), "cmake not found")
    def test_configure_reads_the_written_overrides(self):
        """calibrate.py's file, read by cmake/CudaLab.cmake (_cudalab_grading and _cudalab_thresholds, in
        script mode)."""
        grading = self.root / "tests" / LAB / "grading.json"
        data = json.loads(grading.read_text())
        for spec in data["thresholds"].values():
            spec.setdefault("calibrated", "by hand")   # configure requires the note
        grading.write_text(json.dumps(data, indent=2))
        target = self.root / "thresholds-overrides.json"
        rc, _ = self.main("--from", *map(str, self.runs), "--write-overrides", str(target), "--only", "copy_fraction")
        self.assertEqual(rc, 0)
        script = self.root / "configure.cmake"
        script.write_text(textwrap.dedent(f"""\
            include({(calibrate.ROOT / 'cmake' / 'CudaLab.cmake').as_posix()})
            set(CMAKE_CURRENT_BINARY_DIR {self.root.as_posix()})
            set(CUDALAB_THRESHOLD_OVERRIDES {target.as_posix()})
            _cudalab_grading({LAB} {grading.as_posix()} json)
            _cudalab_thresholds({LAB} "${{json}}")
            """))
        proc = subprocess.run(["cmake", "-P", str(script)], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        table = (self.root / f"{LAB}_thresholds.cpp").read_text()
        self.assertRegex(table, r'\{"copy_fraction", 0\.68[0-9]*, "NVIDIA Test GPU"\},')
        self.assertRegex(table, r'\{"copy_fraction", 0\.8[45][0-9]*, nullptr\},')

    def test_runs_of_different_gpus_are_refused(self):
        summary = json.loads(self.runs[1].read_text())
        summary["device"] = "NVIDIA H200 (sm_90, 132 SMs), CUDA runtime 13.0"
        self.runs[1].write_text(json.dumps(summary))
        rc, out, err = self.main("--from", *map(str, self.runs), err=True)
        self.assertEqual(rc, 1)
        self.assertIn("measured on different GPUs", err)

    def test_only_perf_minimum_measurements_are_calibrated(self):
        ms, _ = calibrate.collect([json.loads(self.runs[0].read_text())], self.root)
        self.assertNotIn(f"{LAB}.Gemm.Flops", [m.test for m in ms])   # no threshold, a counter, a maximum
        self.assertTrue(calibrate.calibrated(perf(2.0, 1.5, "k")))
        self.assertFalse(calibrate.calibrated(figure("k", 2.0, 1.5, "x", tag="profile")))
        self.assertFalse(calibrate.calibrated(figure("k", 2.0, 1.5, "x", compare="<=")))
        self.assertFalse(calibrate.calibrated(figure(None, None, None, "x")))

    def test_round_down_two_significant_figures(self):
        for x, want in ((1.7595, "1.7"), (63.155, "63"), (0.7148, "0.71"), (14.705, "14"), (0.85 * 1.0, "0.85"),
                        (2.0, "2.0"), (123.4, "120"), (1.037, "1.0")):
            self.assertEqual(calibrate.fmt_decimal(calibrate.round_down_2sig(x)), want, x)
        self.assertEqual(calibrate.suggest([1.79, 2.0, 1.9], 0.85), Decimal("1.5"))

    def test_measurements_keyed_by_threshold(self):
        ms, _ = calibrate.collect([json.loads(p.read_text()) for p in self.runs], self.root)
        keyed = {}
        for m in ms:
            keyed.setdefault(m.key, []).append(m.measured)
        # cub_ratio and copy_fraction share the value 0.85: each measurement names its key
        self.assertEqual(sorted(keyed["cub_ratio"]), [1.05, 1.10])
        self.assertEqual(sorted(keyed["copy_fraction"]), [0.80, 0.97])
        self.assertEqual(sorted(keyed["pick_vs_best"]), [0.97, 0.99, 1.00, 1.01])   # TEST_P instances
        self.assertEqual(sorted(keyed["pct_of_copy"]), [74.3, 74.9])
        self.assertEqual(sorted(keyed["dram_over_l1"]), [17.0, 17.3])
        self.assertEqual(keyed[None], [3.0, 3.0])   # a key grading.json does not have: left alone, listed
        self.assertNotIn("never_run", keyed)        # a counter and a maximum: not calibrated

    def test_table(self):
        rc, out = self.main("--from", *map(str, self.runs))
        self.assertEqual(rc, 0)
        rows = {line.split()[1]: line for line in out.splitlines() if line.startswith(LAB)}
        self.assertRegex(rows["cub_ratio"], r"0\.85\s+1\.05 / 1\.075 \(2\)\s+1\.235\s+0\.89\s+tighter")
        self.assertRegex(rows["pick_vs_best"], r"0\.9\s+0\.97 / 0\.995 \(4\)\s+1\.078\s+0\.82\s+looser")
        self.assertRegex(rows["pct_of_copy"], r"60\s+74\.3 / 74\.6 \(2\)\s+1\.238\s+63\s+tighter")
        self.assertIn("FAILED", rows["copy_fraction"])   # 0.80 < 0.85 in run 2
        self.assertIn("not measured", rows["never_run"])
        self.assertIn("Other.Unknown", out)
        self.assertIn("NVIDIA Test GPU", out)
        _, out = self.main("--from", str(self.runs[0]), "--margin", "0.9")
        self.assertIn("90% of the smallest", out)

    def test_min_headroom_marks_the_rows_below_it_and_exits_1(self):
        # headroom = smallest measurement / value: cub_ratio 1.05 / 0.85 = 1.235, pick_vs_best
        # 0.97 / 0.9 = 1.078, copy_fraction 0.80 / 0.85 = 0.941 (the reference failed there)
        rc, out = self.main("--from", *map(str, self.runs), "--min-headroom", "1.1")
        self.assertEqual(rc, 1)
        rows = {line.split()[1]: line for line in out.splitlines() if line.startswith(LAB)}
        self.assertIn("headroom below 1.1", rows["pick_vs_best"])
        self.assertIn("headroom below 1.1", rows["copy_fraction"])
        self.assertNotIn("headroom below", rows["cub_ratio"])
        self.assertNotIn("headroom below", rows["never_run"])   # not measured: no headroom
        self.assertIn("2 threshold(s) with headroom below 1.1", out)
        self.assertIn("pick_vs_best (1.078)", out)
        rc, out = self.main("--from", *map(str, self.runs), "--min-headroom", "0.9")
        self.assertEqual(rc, 0)
        self.assertNotIn("headroom below", out)

    def test_write_changes_values_and_notes_only(self):
        path = self.root / "tests" / LAB / "grading.json"
        before = path.read_text()
        rc, out = self.main("--from", *map(str, self.runs), "--write", "--only", "cub_ratio", "copy_fraction",
                            "pct_of_copy")
        self.assertEqual(rc, 0)
        after = path.read_text()
        data = json.loads(after)["thresholds"]
        self.assertEqual(data["cub_ratio"]["value"], 0.89)
        self.assertEqual(data["copy_fraction"]["value"], 0.68)   # 0.85 x 0.80, rounded down
        self.assertEqual(data["pct_of_copy"]["value"], 63)
        self.assertEqual(data["pick_vs_best"]["value"], 0.9)     # not in --only
        self.assertEqual(data["never_run"]["value"], 31.0)
        note = data["cub_ratio"]["calibrated"]
        self.assertIn("NVIDIA Test GPU", note)
        self.assertIn("min 1.05, median 1.075", note)
        self.assertIn("before: 0.85 (H100: 1.05x; with 4-byte loads 0.79x, which must fail)", note)
        self.assertIn("calibrated", data["copy_fraction"])        # added where there was none
        # the rest of the file keeps its layout
        self.assertIn('    {"match": "Perf.*", "points": 5}\n', after)
        self.assertIn('"pick_vs_best": {"value": 0.9, "about": "a parameterised test", "calibrated": "H100"},', after)
        self.assertEqual(len(before.splitlines()), len(after.splitlines()))
        # recalibrating keeps the hand-set note once, not nested
        self.main("--from", *map(str, self.runs), "--write", "--only", "cub_ratio", "--margin", "0.8")
        note2 = json.loads(path.read_text())["thresholds"]["cub_ratio"]["calibrated"]
        self.assertEqual(note2.count("before:"), 1)
        self.assertIn("before: 0.85 (H100: 1.05x", note2)
        self.assertEqual(json.loads(path.read_text())["thresholds"]["cub_ratio"]["value"], 0.84)

    def test_a_required_speed_up_is_never_written_down_to_1(self):
        path = self.root / "tests" / LAB / "grading.json"
        path.write_text(GRADING.replace('"value": 0.85,\n      "about": "CUB time / ours"',
                                        '"value": 1.02,\n      "about": "CUB time / ours"'))
        rc, out = self.main("--from", *map(str, self.runs))
        self.assertIn("not written", [line for line in out.splitlines() if "cub_ratio" in line][0])
        rc, out = self.main("--from", *map(str, self.runs), "--write", "--only", "cub_ratio")
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(path.read_text())["thresholds"]["cub_ratio"]["value"], 1.02)
        self.assertIn("kept 1.02", out)
        overrides = self.root / "ov.json"
        rc, out = self.main("--from", *map(str, self.runs), "--write-overrides", str(overrides), "--only", "cub_ratio")
        self.assertEqual(rc, 0)
        self.assertIn("kept 1.02", out)
        if overrides.exists():
            self.assertNotIn("cub_ratio", overrides.read_text())

    def test_runs_ctest_and_keeps_each_summary(self):
        build = self.root / "build"
        (build / "grade").mkdir(parents=True)
        fake = self.root / "fake_ctest.py"
        # stands in for ctest + the grade step: writes grade/summary.json, and records its arguments
        fake.write_text("#!/usr/bin/env python3\nimport os, shutil, sys\n"
                        f"open({str(self.root / 'args.txt')!r}, 'a').write(' '.join(sys.argv[1:]) + ' ' + "
                        "os.environ.get('CUDALAB_TIMING_FULL', '-') + ' ' + "
                        "os.environ.get('CUDALAB_THRESHOLD_CUB_RATIO', '-') + '\\n')\n"
                        f"shutil.copy({str(self.runs[0])!r}, {str(build / 'grade' / 'summary.json')!r})\n")
        fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
        (build / "grade" / "manifest.json").write_text(json.dumps({"ctest": str(fake), "labs": []}))
        before = os.environ.get("CUDALAB_TIMING_FULL")
        os.environ["CUDALAB_THRESHOLD_CUB_RATIO"] = "5"
        os.environ["CUDALAB_TIMING_FULL"] = "0"  # the caller's value does not count: calibration times every rep
        try:
            rc, out = self.main("--build", str(build), "--repeat", "2")
        finally:
            del os.environ["CUDALAB_THRESHOLD_CUB_RATIO"]
            if before is None:
                del os.environ["CUDALAB_TIMING_FULL"]
            else:
                os.environ["CUDALAB_TIMING_FULL"] = before
        self.assertEqual(rc, 0)
        self.assertTrue((build / "grade" / "calibrate-1.json").exists())
        self.assertTrue((build / "grade" / "calibrate-2.json").exists())
        calls = (self.root / "args.txt").read_text().splitlines()
        self.assertEqual(len(calls), 2)
        self.assertIn("-L performance -LE profile", calls[0])
        self.assertTrue(calls[0].endswith(" -"))   # threshold overrides are not passed on
        self.assertTrue(calls[0].endswith(" 1 -"))  # CUDALAB_TIMING_FULL=1: no timed test stops early
        self.assertIn("Calibration from 2 run(s)", out)


if __name__ == "__main__":
    unittest.main()
