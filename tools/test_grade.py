"""Self-test of tools/grade.py (run by ctest as tools.grade_selftest): the grader must be able to
fail a student, must never count a skipped test as passed, and must say why a test failed."""
import json
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

import grade

LAB = "ch99_example"
JUNIT = f"""<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="x" tests="7">
  <testcase name="{LAB}.Sum.Small" classname="a" time="0.1" status="run"><system-out>ok</system-out></testcase>
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
GRADING = {"total_points": 30, "points": [{"match": "Perf.*", "points": 5}, {"match": "Sum.*", "points": 2}]}
LABELS = {f"{LAB}.Sum.{t}": [LAB, "correctness", "gpu"] for t in ("Small", "Large", "Hangs", "Crashes")}
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
        self.assertEqual(len(self.results), 7)

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
        self.assertEqual((r.points, r.max_points), (0, 30 - 18))  # total_points minus the known tests
        self.assertIn("did not build", r.reason)

    def test_table_and_junit(self):
        results = list(self.results.values())
        scores = grade.summarize(results, self.manifest)
        self.assertEqual(scores[LAB].correctness, [2.0, 8.0])
        self.assertEqual(scores[LAB].performance, [0.0, 22.0])
        table = grade.render(results, scores, "test GPU")
        self.assertIn("2/30", table)
        self.assertIn("FAIL reduceX vs base: 2.000 ms vs 2.100 ms, speed-up 1.05x", table)
        self.assertIn("SKIP 1 test(s): no usable CUDA GPU", table)
        grade.write_junit(results, scores, "test GPU", self.root / "grade.xml")
        suite = ET.parse(self.root / "grade.xml").getroot().find("testsuite")
        self.assertEqual(suite.get("failures"), "5")
        self.assertEqual(suite.get("skipped"), "1")

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
        self.assertEqual(grade.main(["--manifest", "m.json", "--junit", str(self.root / "none.xml"),
                                     "--out", str(self.root)]), 0)


if __name__ == "__main__":
    unittest.main()
