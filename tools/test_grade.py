"""Self-test of tools/grade.py (run by ctest as tools.grade_selftest): the grader must be able to
fail a student, must never count a skipped test as passed, and must say why a test failed; bad
inputs (grading.json, manifest, JUnit file, labels) give one clear line and a non-zero exit, never a
traceback or a table built from an earlier run."""
import contextlib
import io
import json
import os
import stat
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

import grade

LAB = "ch99_example"
JUNIT = f"""<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="x" tests="7">
  <testcase name="{LAB}.Sum.Small" classname="a" time="0.1" status="run"><system-out>[ RUN      ] Sum.Small
[       OK ] Sum.Small (3 ms)</system-out></testcase>
  <testcase name="{LAB}.Sum.ExitsEarly" classname="a" time="0.1" status="run"><system-out>[ RUN      ] Sum.ExitsEarly
</system-out></testcase>
  <testcase name="{LAB}.Sum.Huge" classname="a" time="0.1" status="notrun"><skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
    <system-out>[ CUDALAB  ] skipped: not applicable on this GPU: not enough free GPU memory (needs 25 GiB)</system-out></testcase>
  <testcase name="{LAB}.Sum.Large" classname="a" time="0.1" status="fail"><failure message="Failed"/>
    <system-out>[ CUDALAB  ] reason: reduceX: wrong result at index 3: expected 5, got 7
x.cu:10: Failure
reduceX: wrong result at index 3: expected 5, got 7</system-out></testcase>
  <testcase name="{LAB}.Sum.Hangs" classname="a" time="60" status="fail"><failure message="Timeout"/><system-out></system-out></testcase>
  <testcase name="{LAB}.Sum.Crashes" classname="a" time="1" status="fail"><failure message="SEGFAULT"/><system-out></system-out></testcase>
  <testcase name="{LAB}.Perf.Slow" classname="a" time="1" status="fail"><failure message="Failed"/>
    <system-out>[ PERF     ] reduceX vs base: 2.000 ms vs 2.100 ms, speed-up 1.05x, required >= 1.50x
[ CUDALAB  ] reason: reduceX is too slow: speed-up over base 1.05x, required >= 1.5x</system-out></testcase>
  <testcase name="{LAB}.Perf.Fast" classname="a" time="1" status="notrun"><skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
    <system-out>x.cu:3: Skipped
no usable CUDA GPU on this machine
[ CUDALAB  ] skipped: no usable CUDA GPU on this machine</system-out></testcase>
  <testcase name="{LAB}_performance_gpu_NOT_BUILT" classname="a" time="0" status="fail"><failure message="Failed"/></testcase>
  <testcase name="tools.grade_selftest" classname="a" time="0" status="run"/>
</testsuite>
"""
GRADING = {"lab": LAB, "total_points": 30, "points": [{"match": "Perf.*", "points": 5}, {"match": "Sum.*", "points": 2}]}
LABELS = {f"{LAB}.Sum.{t}": [LAB, "correctness", "gpu"]
          for t in ("Small", "Large", "Hangs", "Crashes", "ExitsEarly", "Huge")}
LABELS[f"{LAB}.Perf.Fast"] = LABELS[f"{LAB}.Perf.Slow"] = [LAB, "performance", "gpu"]


class GradeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = Path(self.tmp.name)
        (root / "grading.json").write_text(json.dumps(GRADING))
        (root / "junit.xml").write_text(JUNIT)
        self.manifest = {"labs": [{"name": LAB, "variant": "skeleton", "grading": str(root / "grading.json")}],
                         "ctest": "ctest", "build_dir": str(root), "info_exe": "/nonexistent"}
        self.results = {r.name: r for r in grade.grade(JUNIT, self.manifest, LABELS)}
        self.root = root

    def tearDown(self):
        self.tmp.cleanup()

    def test_only_lab_tests_are_graded(self):
        self.assertNotIn("tools.grade_selftest", self.results)
        self.assertEqual(len(self.results), 9)

    def test_a_process_that_exits_before_the_test_finished_fails(self):
        r = self.results[f"{LAB}.Sum.ExitsEarly"]
        self.assertEqual((r.status, r.points), ("failed", 0.0))
        self.assertIn("before the test finished", r.reason)

    def test_not_applicable_on_this_gpu_is_left_out_of_the_total(self):
        r = self.results[f"{LAB}.Sum.Huge"]
        self.assertEqual((r.status, r.points, r.max_points), ("not applicable", 0.0, 0.0))
        self.assertIn("not enough free GPU memory", r.reason)
        # a plain skip (no GPU at all) still counts: 0 of its points
        self.assertEqual(self.results[f"{LAB}.Perf.Fast"].max_points, 5)

    def test_points_follow_the_first_matching_rule(self):
        self.assertEqual(self.results[f"{LAB}.Sum.Small"].points, 2)
        self.assertEqual(self.results[f"{LAB}.Perf.Fast"].max_points, 5)

    def test_failures_score_zero_and_say_why(self):
        r = self.results[f"{LAB}.Sum.Large"]
        self.assertEqual((r.status, r.points), ("failed", 0))
        self.assertEqual(r.reason, "reduceX: wrong result at index 3: expected 5, got 7")
        self.assertIn("timed out", self.results[f"{LAB}.Sum.Hangs"].reason)
        self.assertIn("crashed", self.results[f"{LAB}.Sum.Crashes"].reason)

    def test_skipped_is_never_passed(self):
        r = self.results[f"{LAB}.Perf.Fast"]
        self.assertEqual((r.status, r.points, r.kind), ("skipped", 0, "performance"))
        self.assertIn("no usable CUDA GPU", r.reason)

    def test_not_built_is_reported(self):
        r = self.results[f"{LAB}_performance_gpu_NOT_BUILT"]
        self.assertEqual((r.status, r.kind), ("not built", "performance"))
        self.assertEqual((r.points, r.max_points), (0, 30 - 22))  # total_points minus the known tests
        self.assertIn("did not build", r.reason)

    def test_table_and_junit(self):
        results = list(self.results.values())
        scores = grade.summarize(results, self.manifest)
        self.assertEqual(scores[LAB].correctness, [2.0, 10.0])
        self.assertEqual(scores[LAB].performance, [0.0, 18.0])
        table = grade.render(results, scores, "test GPU")
        self.assertIn("2/28", table)  # 30 declared, the 2 points not applicable on this GPU left out
        self.assertIn("FAIL reduceX vs base: 2.000 ms vs 2.100 ms, speed-up 1.05x", table)
        self.assertIn("SKIP 1 test(s): no usable CUDA GPU", table)
        grade.write_junit(results, scores, "test GPU", self.root / "grade.xml")
        suite = ET.parse(self.root / "grade.xml").getroot().find("testsuite")
        self.assertEqual(suite.get("failures"), "6")  # + the test that exited early
        self.assertEqual(suite.get("skipped"), "2")  # + the one not applicable here

    def test_gradescope_results(self):
        data = grade.gradescope(list(self.results.values()), "test GPU")
        self.assertEqual(data["score"], 2.0)
        by_name = {t["name"]: t for t in data["tests"]}
        skipped = by_name[f"{LAB}.Perf.Fast"]
        self.assertEqual((skipped["score"], skipped["max_score"], skipped["status"]), (0, 5, "failed"))
        self.assertIn("SKIPPED (0 points): no usable CUDA GPU", skipped["output"])
        self.assertEqual(by_name[f"{LAB}.Sum.Small"]["status"], "passed")
        self.assertEqual(by_name[f"{LAB}.Sum.Small"]["tags"], [LAB, "correctness", "gpu"])

    def test_build_errors_are_attached(self):
        log = self.root / "build.log"
        log.write_text(f"[ 50%] Building CUDA object\ngmake[2]: *** [tests/{LAB}/CMakeFiles/x.dir/k.cu.o] Error 2\n"
                       f"/src/labs/{LAB}/k.cu(12): error: identifier \"x\" is undefined\n")
        results = list(self.results.values())
        grade.attach_build_errors(results, log)
        r = self.results[f"{LAB}_performance_gpu_NOT_BUILT"]
        self.assertIn('k.cu(12): error: identifier "x" is undefined', r.reason)

    def test_missing_junit_prints_a_hint(self):
        (self.root / "manifest.json").write_text(json.dumps(self.manifest))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = grade.main(["--manifest", str(self.root / "manifest.json"), "--junit", str(self.root / "none.xml"),
                             "--out", str(self.root)])
        self.assertEqual(rc, 0)
        self.assertIn("no score table: this ctest run wrote no JUnit file", out.getvalue())


class GradeStepTest(unittest.TestCase):
    """grade.py as CTest runs it: with a manifest, a JUnit file and a (stand-in) ctest for the labels."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.grading = self.root / "tests" / LAB / "grading.json"
        self.grading.parent.mkdir(parents=True)
        self.grading.write_text(json.dumps(GRADING, indent=2))
        self.junit = self.root / "grade" / "junit.xml"
        self.junit.parent.mkdir()
        self.junit.write_text(JUNIT)
        tests = [{"name": n, "properties": [{"name": "LABELS", "value": v}]} for n, v in LABELS.items()]
        tests.append({"name": f"{LAB}_performance_gpu_NOT_BUILT",
                      "properties": [{"name": "LABELS", "value": [LAB, "performance", "gpu"]}]})
        self.ctest = self.executable("fake_ctest.py", f"print({json.dumps(json.dumps({'tests': tests}))})")
        self.info = self.executable("fake_info.py", 'print("NVIDIA Test GPU (sm_90, 132 SMs), CUDA runtime 13.0")')
        self.manifest = {"labs": [{"name": LAB, "variant": "labs", "grading": str(self.grading)}],
                         "ctest": str(self.ctest), "build_dir": str(self.root), "info_exe": str(self.info),
                         "labs_available": 20, "labs_restriction": [],
                         "threshold_overrides": {"file": "/src/thresholds-overrides.json", "rows": [
                             {"lab": LAB, "device": "NVIDIA Test GPU", "key": "copy_fraction", "value": 0.7},
                             {"lab": LAB, "device": "NVIDIA Other GPU", "key": "speedup", "value": 1.2}]}}
        self.write_manifest()

    def tearDown(self):
        self.tmp.cleanup()

    def executable(self, name, body):
        path = self.root / name
        path.write_text(f"#!{sys.executable}\n{body}\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return path

    def write_manifest(self):
        (self.root / "grade" / "manifest.json").write_text(json.dumps(self.manifest))

    def main(self, *extra, manifest=None):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = grade.main(["--manifest", str(manifest or self.root / "grade" / "manifest.json"),
                             "--junit", str(self.junit), "--out", str(self.root / "grade"), *extra])
        return rc, out.getvalue(), err.getvalue()

    def assert_clear_error(self, rc, out, err, *needles):
        self.assertEqual(rc, 1)
        self.assertNotIn("Traceback", out + err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)  # one line
        for needle in needles:
            self.assertIn(needle, err)
        self.assertNotIn("score table    GPU", out)

    def test_full_run_writes_the_table(self):
        rc, out, err = self.main()
        self.assertEqual(rc, 0, err)
        self.assertIn("cuda-labs score table    GPU: NVIDIA Test GPU", out)
        self.assertTrue((self.root / "grade" / "summary.json").exists())

    def test_malformed_grading_json_is_an_error_with_the_position(self):
        # the case that once turned 0/34 into 0/19: a stray comma after the last rule
        text = json.dumps(GRADING, indent=2).replace('"points": 2\n    }\n  ]', '"points": 2\n    },\n  ]')
        self.assertNotEqual(text, json.dumps(GRADING, indent=2))
        self.grading.write_text(text)
        (self.root / "grade" / "summary.json").write_text("{}")  # an earlier run's
        rc, out, err = self.main()
        self.assert_clear_error(rc, out, err, str(self.grading), "line 13, column 3: Expecting value")
        self.assertFalse((self.root / "grade" / "summary.json").exists())  # set aside, not read as this run's
        self.assertTrue((self.root / "grade" / "summary.previous.json").exists())
        results = json.loads((self.root / "grade" / "results.json").read_text())
        self.assertIn("The grade step failed", results["output"])

    def test_grading_json_fields_and_types(self):
        bad = {"lab": "ch00_other", "total_points": "30", "points": [{"match": "A.*"}, 3],
               "thresholds": {"k": {"value": "1.5", "about": "x"}, "bad key": {}}}
        errors = grade.check_grading(bad, LAB, "g.json")
        text = "\n".join(errors)
        for needle in ('"lab" is "ch00_other", expected "ch99_example"', '"total_points": str found, number required',
                       '"points"[0].points: missing', '"points"[1]: int found, object required',
                       '"thresholds".k.value: str found', '"thresholds".k.calibrated: missing',
                       '"thresholds".bad key: a key has letters'):
            self.assertIn(needle, text)
        self.assertEqual(grade.check_grading(GRADING, LAB, "g.json"), [])
        low = dict(GRADING, total_points=6)  # the rules alone give 5 + 2
        self.assertIn("less than the 7 points of its rules", "\n".join(grade.check_grading(low, LAB, "g.json")))
        self.grading.write_text(json.dumps(dict(GRADING, total_points="30")))
        rc, out, err = self.main()
        self.assert_clear_error(rc, out, err, '"total_points": str found, number required')

    def test_non_utf8_grading_json(self):
        self.grading.write_bytes(json.dumps(GRADING).replace("Perf.*", "Perf\xe9.*").encode("latin-1"))
        rc, out, err = self.main()
        self.assert_clear_error(rc, out, err, "not UTF-8 text (byte 0xe9)")

    def test_corrupt_or_empty_junit(self):
        self.junit.write_text(JUNIT[: len(JUNIT) // 2])
        rc, out, err = self.main()
        self.assert_clear_error(rc, out, err, str(self.junit), "not valid JUnit XML", "line ")
        self.junit.write_text("")
        rc, out, err = self.main()
        self.assert_clear_error(rc, out, err, "empty: ctest did not finish writing it")

    def test_missing_or_corrupt_manifest(self):
        rc, out, err = self.main(manifest=self.root / "nowhere.json")
        self.assert_clear_error(rc, out, err, "nowhere.json: missing: configure this build first")
        (self.root / "grade" / "manifest.json").write_text('{"labs": [}')
        rc, out, err = self.main()
        self.assert_clear_error(rc, out, err, "manifest.json: line 1, column 11")
        (self.root / "grade" / "manifest.json").write_text('{"labs": []}')
        rc, out, err = self.main()
        self.assert_clear_error(rc, out, err, "no build_dir, ctest")

    def test_labels_that_cannot_be_read(self):
        self.manifest["ctest"] = str(self.root / "no-ctest")
        self.write_manifest()
        rc, out, err = self.main()
        self.assert_clear_error(rc, out, err, "cannot list the tests' labels")
        self.manifest["ctest"] = str(self.executable("bad_ctest.py", 'print("{not json")'))
        self.write_manifest()
        rc, out, err = self.main()
        self.assert_clear_error(rc, out, err, "printed no valid JSON")

    def test_a_second_run_never_shows_the_first_runs_table(self):
        rc, out, _ = self.main()
        self.assertIn("score table", out)
        # a plain `ctest` right after (within the same second): the pre-test step moves the JUnit
        # file aside, ctest writes none, the post-test step says so instead of re-showing the table
        self.assertEqual(grade.main(["--pre-test", "--junit", str(self.junit)]), 0)
        self.assertFalse(self.junit.exists())
        self.assertEqual((self.root / "grade" / "junit.previous.xml").read_text(), JUNIT)
        rc, out, _ = self.main()
        self.assertEqual(rc, 0)
        self.assertIn("no score table: this ctest run wrote no JUnit file", out)
        self.assertNotIn("score table    GPU", out)

    def test_pre_test_step_is_skipped_inside_the_grade_step(self):
        # grade.py runs `ctest --show-only`, which runs the pre-test step again: it must not move the file
        os.environ["CUDALAB_GRADING"] = "1"
        try:
            self.assertEqual(grade.main(["--pre-test", "--junit", str(self.junit)]), 0)
        finally:
            del os.environ["CUDALAB_GRADING"]
        self.assertTrue(self.junit.exists())

    def test_table_says_how_many_labs_are_built(self):
        rc, out, _ = self.main()
        self.assertIn("1 of 20 labs in this build", out)
        self.manifest["labs_restriction"] = [LAB]
        self.write_manifest()
        rc, out, _ = self.main()
        self.assertIn(f"1 of 20 labs in this build (CUDALAB_LABS={LAB} in the CMake cache", out)
        summary = json.loads((self.root / "grade" / "summary.json").read_text())
        self.assertIn("1 of 20 labs", summary["labs_line"])

    def test_table_shows_thresholds_from_the_override_file(self):
        os.environ["CUDALAB_THRESHOLD_SPEEDUP"] = "1.1"
        try:
            rc, out, _ = self.main()
        finally:
            del os.environ["CUDALAB_THRESHOLD_SPEEDUP"]
        self.assertEqual(rc, 0)
        self.assertIn("Thresholds from thresholds-overrides.json for NVIDIA Test GPU (instead of grading.json's):\n"
                      f"  {LAB} copy_fraction = 0.7", out)
        self.assertNotIn("NVIDIA Other GPU", out)   # another GPU's row does not apply here
        self.assertIn("$CUDALAB_THRESHOLD_SPEEDUP = 1.1", out)
        summary = json.loads((self.root / "grade" / "summary.json").read_text())
        self.assertEqual(summary["device_name"], "NVIDIA Test GPU")
        self.assertEqual([(r["key"], r["value"]) for r in summary["threshold_overrides"]], [("copy_fraction", 0.7)])
        # on another GPU: no override line
        self.info.write_text(f'#!{sys.executable}\nprint("NVIDIA H100 80GB HBM3 (sm_90, 132 SMs), CUDA runtime 13.0")\n')
        rc, out, _ = self.main()
        self.assertNotIn("Thresholds from", out)

    def test_total_points_checked_against_the_listed_tests(self):
        # all of the lab's tests listed by ctest: 6 x 2 + 2 x 5 = 22 points, 30 declared
        notes = grade.total_notes(self.manifest, LABELS)
        self.assertEqual(len(notes), 1)
        self.assertIn("total_points is 30, its 8 tests carry 22 points", notes[0])
        # a test executable that did not build: its tests are unknown, nothing to compare
        with_not_built = dict(LABELS, **{f"{LAB}_performance_gpu_NOT_BUILT": [LAB, "performance", "gpu"]})
        self.assertEqual(grade.total_notes(self.manifest, with_not_built), [])
        self.grading.write_text(json.dumps(dict(GRADING, total_points=22)))
        self.assertEqual(grade.total_notes(self.manifest, LABELS), [])


if __name__ == "__main__":
    unittest.main()
