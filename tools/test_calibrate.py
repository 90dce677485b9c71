"""Self-test of tools/calibrate.py (run by ctest as tools.calibrate_selftest): measurements are read
from summary.json files and keyed by their grading.json threshold, the suggestion is the margin
below the worst run rounded down, and --write changes only the values and notes."""
import contextlib
import io
import json
import os
import stat
import tempfile
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
SOURCES = """
TEST_F(Perf, KeepsUpWithCub) { versus_cub(1u << 24, "cub_ratio"); }

TEST_F(Perf, ReachesCopy) {
  cudalab::expect_speedup({"ours", "copy", cmp, cudalab::threshold("copy_fraction"), "copy_fraction", bytes});
}

TEST_P(Pick, Sweep) { expect({"pick", cudalab::threshold("pick_vs_best"), "pick_vs_best"}); }

TEST_F(Latency, PercentOfCopy) { need = cudalab::threshold("pct_of_copy"); }

TEST_F(Chase, DramSlower) { need = cudalab::threshold("dram_over_l1"); }
"""


def perf(speedup, required):
    return (f"ours vs base: 0.105 ms vs 0.216 ms (median of 31, noise 0.3% / 0.1%), speed-up {speedup:.2f}x, "
            f"required >= {required:.2f}x, 640 GB/s = 22% of measured copy bandwidth (2909 GB/s)")


def summary(cub, copy, picks, pct, ratio):
    tests = [("Perf.KeepsUpWithCub", [perf(cub, 0.85)], "passed", ""),
             ("Perf.ReachesCopy", [perf(copy, 0.85)], "passed" if copy >= 0.85 else "failed",
              f"ours is too slow: speed-up over copy {copy}x, required >= 0.85x (threshold 'copy_fraction' from x)"),
             ("Latency.PercentOfCopy", [f"copyInt4Ilp4 at 4 warps/SM: 0.248 ms (noise 0.3%), 2157 GB/s = {pct}% of "
                                        f"measured copy bandwidth (2925 GB/s), required >= 60%; one load: 34.7%"],
              "passed", ""),
             ("Chase.DramSlower", [f"pointerChase: L1 hit 39.6 cycles/load, DRAM 685.5 cycles/load, ratio {ratio}, "
                                   "required >= 8.0"], "passed", ""),
             ("Other.Unknown", ["something else: 3.00x faster, required >= 2.00x"], "passed", "")]
    tests += [(f"Sweep/Pick.Sweep/shape{i}", [perf(p, 0.90)], "passed", "") for i, p in enumerate(picks)]
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
        (self.root / "tests" / LAB / "test_performance.cu").write_text(SOURCES)
        self.runs = []
        for i, s in enumerate([summary(1.05, 0.97, [1.01, 0.97], 74.3, 17.3),
                               summary(1.10, 0.80, [1.00, 0.99], 74.9, 17.0)]):
            path = self.root / f"run{i}.json"
            path.write_text(json.dumps(s))
            self.runs.append(path)

    def tearDown(self):
        self.tmp.cleanup()

    def main(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = calibrate.main(["--root", str(self.root), *args])
        return rc, out.getvalue()

    def test_parse_line_formats(self):
        self.assertEqual(calibrate.parse_line(perf(2.06, 1.85)), (2.06, 1.85, "1.85"))
        pct = ("copyInt4Ilp4 at 4 warps/SM: 0.248 ms (noise 0.3%), 2157 GB/s = 74.3% of measured copy bandwidth "
               "(2925 GB/s), required >= 60%; one load per thread: 34.7%")
        self.assertEqual(calibrate.parse_line(pct), (74.3, 60.0, "60"))
        chase = "pointerChase: L1 hit 39.6 cycles/load, DRAM 685.5 cycles/load, ratio 17.3, required >= 8.0"
        self.assertEqual(calibrate.parse_line(chase), (17.3, 8.0, "8.0"))
        self.assertIsNone(calibrate.parse_line("no threshold here: 2.0x"))

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
        # cub_ratio and copy_fraction share the value 0.85: the test's source tells them apart
        self.assertEqual(sorted(keyed["cub_ratio"]), [1.05, 1.10])
        self.assertEqual(sorted(keyed["copy_fraction"]), [0.80, 0.97])
        self.assertEqual(sorted(keyed["pick_vs_best"]), [0.97, 0.99, 1.00, 1.01])   # TEST_P instances
        self.assertEqual(sorted(keyed["pct_of_copy"]), [74.3, 74.9])
        self.assertEqual(sorted(keyed["dram_over_l1"]), [17.0, 17.3])
        self.assertEqual(keyed[None], [3.0, 3.0])   # no key: left alone, listed
        self.assertNotIn("never_run", keyed)

    def test_table(self):
        rc, out = self.main("--from", *map(str, self.runs))
        self.assertEqual(rc, 0)
        rows = {line.split()[1]: line for line in out.splitlines() if line.startswith(LAB)}
        self.assertRegex(rows["cub_ratio"], r"0\.85\s+1\.05 / 1\.075 \(2\)\s+0\.89\s+tighter")
        self.assertRegex(rows["pick_vs_best"], r"0\.9\s+0\.97 / 0\.995 \(4\)\s+0\.82\s+looser")
        self.assertRegex(rows["pct_of_copy"], r"60\s+74\.3 / 74\.6 \(2\)\s+63\s+tighter")
        self.assertIn("FAILED", rows["copy_fraction"])   # 0.80 < 0.85 in run 2
        self.assertIn("not measured", rows["never_run"])
        self.assertIn("Other.Unknown", out)
        self.assertIn("NVIDIA Test GPU", out)
        _, out = self.main("--from", str(self.runs[0]), "--margin", "0.9")
        self.assertIn("90% of the smallest", out)

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

    def test_runs_ctest_and_keeps_each_summary(self):
        build = self.root / "build"
        (build / "grade").mkdir(parents=True)
        fake = self.root / "fake_ctest.py"
        # stands in for ctest + the grade step: writes grade/summary.json, and records its arguments
        fake.write_text("#!/usr/bin/env python3\nimport os, shutil, sys\n"
                        f"open({str(self.root / 'args.txt')!r}, 'a').write(' '.join(sys.argv[1:]) + ' ' + "
                        "os.environ.get('CUDALAB_THRESHOLD_CUB_RATIO', '-') + '\\n')\n"
                        f"shutil.copy({str(self.runs[0])!r}, {str(build / 'grade' / 'summary.json')!r})\n")
        fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
        (build / "grade" / "manifest.json").write_text(json.dumps({"ctest": str(fake), "labs": []}))
        os.environ["CUDALAB_THRESHOLD_CUB_RATIO"] = "5"
        try:
            rc, out = self.main("--build", str(build), "--repeat", "2")
        finally:
            del os.environ["CUDALAB_THRESHOLD_CUB_RATIO"]
        self.assertEqual(rc, 0)
        self.assertTrue((build / "grade" / "calibrate-1.json").exists())
        self.assertTrue((build / "grade" / "calibrate-2.json").exists())
        calls = (self.root / "args.txt").read_text().splitlines()
        self.assertEqual(len(calls), 2)
        self.assertIn("-L performance -LE profile", calls[0])
        self.assertTrue(calls[0].endswith(" -"))   # threshold overrides are not passed on
        self.assertIn("Calibration from 2 run(s)", out)


if __name__ == "__main__":
    unittest.main()
