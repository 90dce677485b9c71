"""Self-test of tools/grade.py (run by ctest as tools.grade_selftest): the grader must be able to
fail a student, must never count a skipped test as passed, and must say why a test failed; bad
inputs (grading.json, manifest, JUnit file, labels) give one clear line and a non-zero exit, never a
traceback or a table built from an earlier run."""
import contextlib
import datetime
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
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

    def test_a_check_not_run_for_failed_correctness_tests_fails_and_names_them(self):
        junit = f"""<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="x" tests="2">
  <testcase name="{LAB}.SanitizeAll.memcheck" classname="a" time="0" status="notrun">
    <skipped message="Fixture dependency failed"/>
    <system-out>Failed test dependencies: {LAB}.Sum.Large {LAB}.Sum.Hangs {LAB}.Sum.Crashes</system-out></testcase>
  <testcase name="{LAB}.SanitizeAll.racecheck" classname="a" time="0" status="notrun">
    <skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
    <system-out>[ CUDALAB  ] skipped: compute-sanitizer not found</system-out></testcase>
</testsuite>
"""
        labels = {f"{LAB}.SanitizeAll.{t}": [LAB, "correctness", "gpu", "sanitizer"] for t in ("memcheck", "racecheck")}
        results = {r.name: r for r in grade.grade(junit, self.manifest, labels)}
        r = results[f"{LAB}.SanitizeAll.memcheck"]
        self.assertEqual((r.status, r.points), ("failed", 0))
        self.assertIn("correctness first: not run, because 3 of the GPU correctness tests it runs failed "
                      "(Sum.Large, Sum.Hangs and 1 more)", r.reason)
        self.assertEqual(results[f"{LAB}.SanitizeAll.racecheck"].status, "skipped")
        self.assertFalse(grade.health_line(list(results.values())).startswith("health: NO GPU TEST RAN"))

    def test_a_program_older_than_its_sources_says_build_again(self):
        why = "the test program was built from an older version of labs/x.cu: build again (cmake --build /b), then run ctest"
        stale = [grade.Result(f"{LAB}_correctness_host_NOT_BUILT", LAB, "correctness", "host", "not built", 0, 12, why)]
        table = grade.render(stale, grade.summarize(stale, self.manifest), "test GPU", dict(self.manifest, build_dir="/x/build/grade"))
        self.assertIn("BUILD AGAIN (older than its sources)", table)
        self.assertNotIn("DID NOT BUILD", table)
        self.assertTrue(table.rstrip().splitlines()[-1].startswith("Next: the tests are older than your sources: "
                                                                  "cmake --build --preset grade && ctest --preset grade"),
                        table.rstrip().splitlines()[-1])

    def test_an_untouched_lab_is_not_started(self):
        why = ("not started: /x/labs/ch03_10 is still the skeleton as shipped (x.cu), so its tests are not run "
               "(0 points). Fill in its TODO(ch03_10) parts (its README says how), build again and run ctest")
        rows = [grade.Result(f"{LAB}_correctness_host_NOT_BUILT", LAB, "correctness", "host", "not started", 0, 12, why),
                grade.Result(f"{LAB}_correctness_gpu_NOT_BUILT", LAB, "correctness", "gpu", "not started", 0, 0, why)]
        table = grade.render(rows, grade.summarize(rows, self.manifest), "test GPU", dict(self.manifest, build_dir="/x/build/grade"))
        self.assertIn("NOT STARTED", table)
        self.assertNotIn("DID NOT BUILD", table)
        self.assertNotIn("FAIL ", table)  # one line for the lab, not one failure per program
        self.assertIn(f"Not started, 0 points (1 lab(s)", table)
        self.assertIn("no lab is started yet", table)
        self.assertTrue(table.rstrip().splitlines()[-1].startswith("Next: 1 lab(s) not started yet"),
                        table.rstrip().splitlines()[-1])
        self.assertIn("health: NO GPU: no lab is started yet", grade.health_line(rows, device="no GPU (none here)"))
        # a program of the lab that did not link: the lab did not build, and that row is the failure
        broken = grade.Result(f"{LAB}_performance_gpu_NOT_BUILT", LAB, "performance", "gpu", "not built", 0, 0,
                              "the test program could not be linked with the lab's code: x.o: error")
        table = grade.render(rows + [broken], grade.summarize(rows + [broken], self.manifest), "test GPU", self.manifest)
        self.assertIn("DID NOT BUILD", table)
        self.assertIn("Failed (1):\n  FAIL " + broken.name, table)
        self.assertIn("health: no GPU test ran: labs did not build", table)
        self.assertTrue(table.rstrip().splitlines()[-1].startswith(f"Next: {LAB} did not build"))

    def test_the_stand_in_of_an_untouched_lab_is_not_started(self):
        """The stand-in row that cmake/DiscoverTests.cmake adds for a lab still as shipped has the status
        "not started" (its reason kept), 0 of the lab's total_points, and stays a failure in grade.xml
        and results.json, as every other stand-in row."""
        why = (f"not started: /x/labs/{LAB} is still the skeleton as shipped (x.cu), so its tests are not run (0 points). "
               f"Fill in its TODO({LAB}) parts (its README says how), build again and run ctest")
        stand_in = ('<testcase name="{}" classname="a" time="0" status="fail"><failure message="Failed"/>'
                    f"<system-out>[ CUDALAB  ] reason: {why}\nCMake Error at NoTests.cmake:7 (message):\n  no tests"
                    "</system-out></testcase>")
        junit = (f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="x" tests="2">\n'
                 + stand_in.format(f"{LAB}_correctness_host_NOT_BUILT")
                 + stand_in.format(f"{LAB}_correctness_gpu_NOT_BUILT") + "</testsuite>\n")
        results = grade.grade(junit, self.manifest, {})
        self.assertEqual([(r.status, r.reason, r.points, r.max_points, r.where) for r in results],
                         [("not started", why, 0.0, 30.0, "host"), ("not started", why, 0.0, 0.0, "gpu")])
        scores = grade.summarize(results, self.manifest)
        self.assertEqual(scores[LAB].correctness, [0.0, 30.0])
        self.assertIn("NOT STARTED", grade.render(results, scores, "test GPU", self.manifest))
        grade.write_junit(results, scores, "test GPU", self.root / "grade.xml")
        suite = ET.parse(self.root / "grade.xml").getroot().find("testsuite")
        self.assertEqual(suite.get("failures"), "2")
        self.assertEqual(suite.find("testcase/failure").get("message"), why)
        tests = grade.gradescope(results, "test GPU")["tests"]
        self.assertEqual([(t["status"], t["score"], t["max_score"]) for t in tests], [("failed", 0, 30), ("failed", 0, 0)])
        self.assertTrue(tests[0]["output"].startswith("FAILED: not started: "))
        # the build log's errors are never taken for the reason of a lab that is not started
        log = self.root / "build.log"
        log.write_text(f"/src/labs/{LAB}/k.cu(12): error: identifier \"x\" is undefined\n")
        grade.attach_build_errors(results, log)
        self.assertEqual(results[0].reason, why)

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

    def test_health_line_tells_a_run_without_a_gpu_from_a_healthy_one(self):
        def r(status, where="gpu", reason=""):
            return grade.Result(f"{LAB}.S.{status}{where}", LAB, "correctness", where, status, 0, 1, reason)
        no_gpu = [r("skipped", reason="no usable CUDA GPU: no CUDA-capable device is detected")] * 3
        line = grade.health_line(no_gpu + [r("passed", "host")])
        self.assertTrue(line.startswith("health: NO GPU TEST RAN: all 3 were skipped or not run"), line)
        self.assertIn("no CUDA-capable device is detected", line)
        self.assertIn("tools/doctor.py", line)
        self.assertEqual(grade.health_line([r("failed"), r("passed"), r("not applicable")]),
                         "health: OK, 2 of 3 GPU tests ran on this GPU, 1 not applicable here")
        self.assertEqual(grade.health_line([r("failed"), r("skipped", reason="x")]),
                         "health: 1 of 2 GPU tests ran on this GPU, 1 skipped (listed below)")
        self.assertEqual(grade.health_line([r("passed", "host")]), "health: no GPU tests in this run (host tests only)")
        hung = [r("failed", reason="kernel did not finish in 20 s")] + [r("failed", reason="not run: an earlier test hung")] * 4
        self.assertEqual(grade.health_line(hung),
                         "health: 1 of 5 GPU tests ran on this GPU, 4 not run after a test that did not finish")
        self.assertTrue(grade.health_line(hung[1:]).startswith("health: NO GPU TEST RAN: all 4"))
        same = [r("failed", reason="no kernel image is available for execution on the device")] * 5
        self.assertTrue(grade.health_line(same).startswith("health: every GPU test failed with the same reason"))
        self.assertNotIn("doctor", grade.health_line(no_gpu, hint=""))
        table = grade.render(no_gpu, grade.summarize(no_gpu, self.manifest), "no GPU (test)", self.manifest)
        self.assertIn("health: NO GPU TEST RAN", table.split("=" * 100)[1])  # in the table's head

    def test_failed_lab_with_a_tracer_test_points_to_the_pictures(self):
        results = list(self.results.values())
        scores = grade.summarize(results, self.manifest)
        hint = (f"  to see what your warps did in {LAB}: ctest --test-dir /b -R trace.{LAB} -V "
                f"(pictures in /b/trace/{LAB}/)")
        table = grade.render(results, scores, "test GPU", dict(self.manifest, build_dir="/b"), trace_labs={LAB})
        failed = table[table.index("Failed ("):].splitlines()
        fails = [line for line in failed if line.startswith("  FAIL ")]
        self.assertEqual(failed[1 + len(fails)], hint)  # right after the FAIL lines, once for the lab
        self.assertEqual(table.count("to see what your warps did"), 1)
        # no tracer test for the lab, or nothing failed: no line
        self.assertNotIn("to see what your warps did", grade.render(results, scores, "test GPU", self.manifest))
        passed = [r for r in results if r.status == "passed"]
        self.assertNotIn("to see what your warps did",
                         grade.render(passed, grade.summarize(passed, self.manifest), "test GPU", self.manifest, trace_labs={LAB}))

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

    def test_summary_json_says_not_started(self):
        why = (f"not started: /src/labs/{LAB} is still the skeleton as shipped (x.cu), so its tests are not run (0 "
               f"points). Fill in its TODO({LAB}) parts (its README says how), build again and run ctest")
        self.junit.write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="x" tests="1">\n'
                              f'<testcase name="{LAB}_correctness_host_NOT_BUILT" classname="a" time="0" status="fail">'
                              f'<failure message="Failed"/><system-out>[ CUDALAB  ] reason: {why}\n</system-out>'
                              "</testcase></testsuite>\n")
        rc, out, err = self.main()
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, rf"\n{LAB} +labs +0/30 +- +0/30  NOT STARTED\n")
        summary = json.loads((self.root / "grade" / "summary.json").read_text())
        self.assertEqual([(t["status"], t["reason"], t["points"], t["max_points"]) for t in summary["tests"]],
                         [("not started", why, 0.0, 30.0)])

    def test_full_run_points_to_the_tracer_when_the_build_has_it(self):
        rc, out, err = self.main()
        self.assertNotIn("to see what your warps did", out)
        tests = [{"name": n, "properties": [{"name": "LABELS", "value": v}]} for n, v in LABELS.items()]
        tests.append({"name": f"trace.{LAB}", "properties": [{"name": "LABELS", "value": ["trace"]}]})
        self.ctest.write_text(f"#!{sys.executable}\nprint({json.dumps(json.dumps({'tests': tests}))})\n")
        rc, out, err = self.main()
        self.assertEqual(rc, 0, err)
        self.assertIn(f"to see what your warps did in {LAB}: ctest --test-dir {self.root} -R trace.{LAB} -V", out)
        # a build without the Compute Sanitizer API registers the test as unavailable: no hint
        tests[-1]["properties"][0]["value"] = ["trace", "trace_unavailable"]
        self.ctest.write_text(f"#!{sys.executable}\nprint({json.dumps(json.dumps({'tests': tests}))})\n")
        rc, out, err = self.main()
        self.assertEqual(rc, 0, err)
        self.assertNotIn("to see what your warps did", out)

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

    def test_table_says_how_long_the_tests_took(self):
        rc, out, err = self.main()  # no wall-clock time in the file: the tests' own times, said as such
        self.assertEqual(rc, 0, err)
        self.assertIn("Tests: 10; their own times add up to 1 min 03 s (the run's wall-clock time is not recorded)", out)
        self.junit.write_text(JUNIT.replace('<testsuite name="x" tests="7">', '<testsuite name="x" tests="7" time="157">'))
        rc, out, err = self.main()
        self.assertEqual(rc, 0, err)
        self.assertIn("Tests: 10 in 2 min 37 s, wall clock (this ctest run; the build before it not counted)", out)

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


def record(short, result="COMPLETED", failures=(), **props):
    """A test's result record as GoogleTest's JSON output writes it (one test), with properties."""
    suite, _, name = short.partition(".")
    case = {"name": name, "status": "RUN", "result": result, "timestamp": "2026-01-01T10:00:00.000Z",
            "time": "0.1s", "classname": suite, **props}
    if failures:
        case["failures"] = [{"failure": f, "type": ""} for f in failures]
    return {"tests": 1, "failures": len(failures), "name": "AllTests",
            "testsuites": [{"name": suite, "tests": 1, "failures": len(failures), "testsuite": [case]}]}


SLOW = {"cudalab_reason": "reduceX is too slow: speed-up over base 1.05x, required >= 1.5x (threshold 'speedup' from "
                          "tests/ch99_example/grading.json)",
        "perf.1.key": "speedup", "perf.1.measured": "1.049999", "perf.1.required": "1.5", "perf.1.compare": ">=",
        "perf.1.baseline_ms": "2.1", "perf.1.candidate_ms": "2", "perf.1.text": "reduceX vs base: 2.000 ms vs 2.100 ms",
        "profile.1.key": "max_loads", "profile.1.measured": "1", "profile.1.required": "1.5",
        "profile.1.compare": "<=", "profile.1.text": "loads per warp: 1.00, required <= 1.5",
        "perf.2.text": "reduceX: 640 GB/s", "seed": "42"}


class TestListTest(unittest.TestCase):
    """Tests missing from a lab's test list (the lab's code runs first in the program that lists them)."""

    def test_points_missing_from_the_list_are_lost_not_left_out(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "grading.json").write_text(json.dumps(GRADING))
            manifest = {"labs": [{"name": LAB, "variant": "labs", "grading": str(Path(tmp) / "grading.json")}]}
            junit = (f'<testsuite name="x" tests="1"><testcase name="{LAB}.Sum.Small" classname="a" time="0.1" '
                     'status="run"><system-out>[ RUN      ] Sum.Small\n[       OK ] Sum.Small (3 ms)</system-out>'
                     '</testcase></testsuite>')
            only_one = {f"{LAB}.Sum.Small": [LAB, "correctness", "host"]}
            results = grade.grade(junit, manifest, only_one)
            missing = [r for r in results if r.name.endswith("TestList.EveryTestIsListed")]
            self.assertEqual(len(missing), 1)
            self.assertEqual((missing[0].status, missing[0].points, missing[0].max_points), ("failed", 0.0, 28.0))
            self.assertIn("worth 2 of its 30 points", missing[0].reason)
            # tests worth all 30 points listed: nothing is missing
            full = dict(only_one, **{f"{LAB}.Sum.Extra{i}": [LAB, "correctness", "gpu"] for i in range(14)})
            self.assertFalse([r for r in grade.grade(junit, manifest, full) if "TestList" in r.name])


class RecordTest(unittest.TestCase):
    """The result records (<build>/tests/<lab>/results/<test>.json) and where the grade step falls
    back to the test's output."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        (self.root / "grading.json").write_text(json.dumps(GRADING))
        self.manifest = {"labs": [{"name": LAB, "variant": "labs", "grading": str(self.root / "grading.json")}],
                         "ctest": "ctest", "build_dir": str(self.root), "info_exe": "/nonexistent"}
        self.records = {}

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, short, data, age_s=0.0):
        path = self.root / "results" / f"{LAB}.{short.replace('/', '%2F')}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(data))
        if age_s:
            t = time.time() - age_s
            os.utime(path, (t, t))
        self.records[f"{LAB}.{short}"] = path
        return path

    def grade(self, junit=JUNIT):
        return {r.name: r for r in grade.grade(junit, self.manifest, LABELS, records=self.records)}

    def test_record_gives_status_reason_and_measurements_with_keys(self):
        self.write("Perf.Slow", record("Perf.Slow", failures=["x.cu:3\nreduceX is too slow"], **SLOW))
        r = self.grade()[f"{LAB}.Perf.Slow"]
        self.assertEqual((r.status, r.points, r.source), ("failed", 0, "record"))
        self.assertTrue(r.reason.startswith("reduceX is too slow: speed-up over base 1.05x"))
        perf, gbs, counter = r.measurements
        self.assertEqual(perf, {"key": "speedup", "measured": 1.049999, "required": 1.5, "compare": ">=",
                                "baseline_ms": 2.1, "candidate_ms": 2.0,
                                "text": "reduceX vs base: 2.000 ms vs 2.100 ms", "tag": "perf"})
        self.assertEqual((gbs["key"], gbs["measured"], gbs["text"]), (None, None, "reduceX: 640 GB/s"))
        self.assertEqual((counter["tag"], counter["key"], counter["compare"]), ("profile", "max_loads", "<="))
        # the table lists the [ PERF ] lines, as the test printed them; the counter only in summary.json
        table = grade.render(list(self.grade().values()), grade.summarize(list(self.grade().values()), self.manifest),
                             "test GPU")
        self.assertIn("FAIL reduceX vs base: 2.000 ms vs 2.100 ms\n  FAIL reduceX: 640 GB/s", table)
        self.assertNotIn("loads per warp", table)

    def test_a_record_passes_a_test_whose_output_was_cut(self):
        # ctest keeps a bounded part of the output; the record still says the test finished
        self.write("Sum.ExitsEarly", record("Sum.ExitsEarly"))
        r = self.grade()[f"{LAB}.Sum.ExitsEarly"]
        self.assertEqual((r.status, r.points, r.source), ("passed", 2, "record"))

    def test_failure_reason_without_cudalab_reason(self):
        self.write("Sum.Large", record("Sum.Large", failures=["x.cu:10\nreduceX: wrong at 3\nmore"]))
        self.assertEqual(self.grade()[f"{LAB}.Sum.Large"].reason, "reduceX: wrong at 3")

    def test_skipped_record_not_applicable(self):
        self.write("Sum.Huge", record("Sum.Huge", "SKIPPED", cudalab_reason="not applicable on this GPU: needs 25 GiB"))
        r = self.grade()[f"{LAB}.Sum.Huge"]
        self.assertEqual((r.status, r.max_points, r.source), ("not applicable", 0.0, "record"))
        self.assertIn("needs 25 GiB", r.reason)

    def test_crash_timeout_and_missing_record_fall_back_to_the_output(self):
        # a record that says passed cannot save a test whose process crashed (after writing it)
        self.write("Sum.Crashes", record("Sum.Crashes"))
        results = self.grade()
        crashed = results[f"{LAB}.Sum.Crashes"]
        self.assertEqual((crashed.status, crashed.reason, crashed.source), ("failed", "crashed (segmentation fault)",
                                                                            "output"))
        hung = results[f"{LAB}.Sum.Hangs"]  # killed by the CTest timeout: no record
        self.assertIn("timed out", hung.reason)
        large = results[f"{LAB}.Sum.Large"]  # no record (e.g. stopped by the watchdog): its output's reason line
        self.assertEqual((large.reason, large.source), ("reduceX: wrong result at index 3: expected 5, got 7", "output"))
        slow = results[f"{LAB}.Perf.Slow"]  # measurements from the [ PERF ] lines, text only
        self.assertEqual(slow.measurements[0]["text"], "reduceX vs base: 2.000 ms vs 2.100 ms, speed-up 1.05x, "
                                                       "required >= 1.50x")
        self.assertIsNone(slow.measurements[0]["key"])
        # the exit-early check of the output still applies where there is no record
        self.assertEqual(results[f"{LAB}.Sum.ExitsEarly"].status, "failed")

    def test_stale_record_is_ignored(self):
        stamp = datetime.datetime.now().strftime("%Y-%m-%dT%H:%M:%S")
        junit = JUNIT.replace('<testsuite name="x" tests="7">', f'<testsuite name="x" tests="7" timestamp="{stamp}">')
        # an earlier run's record: this run's process never started (a missing library), so it stayed
        self.write("Sum.Large", record("Sum.Large", failures=["x.cu:1\nold"], cudalab_reason="an old reason"),
                   age_s=3600)
        self.write("Sum.Small", record("Sum.Small", failures=["x.cu:1\nold"]), age_s=3600)
        self.write("Perf.Slow", record("Perf.Slow", failures=["x.cu:3\nslow"], **SLOW))  # this run's
        results = self.grade(junit)
        self.assertEqual(results[f"{LAB}.Sum.Large"].reason, "reduceX: wrong result at index 3: expected 5, got 7")
        # ctest says passed, but this run wrote no record: the process ended early (exit(0) from the
        # lab's code, perhaps before any test started), so it fails
        small = results[f"{LAB}.Sum.Small"]
        self.assertEqual((small.status, small.points, small.source), ("failed", 0.0, "output"))
        self.assertIn("without writing its result record", small.reason)
        self.assertEqual(results[f"{LAB}.Perf.Slow"].source, "record")
        self.assertIsNone(grade.read_record(self.records[f"{LAB}.Sum.Large"], "Sum.Large", time.time() - 60))

    def test_a_record_of_another_test_or_unreadable_is_ignored(self):
        path = self.write("Sum.Large", record("Sum.Other", failures=["x.cu:1\nother"]))
        self.assertIsNone(grade.read_record(path, "Sum.Large"))
        path.write_text('{"testsuites": [')
        self.assertIsNone(grade.read_record(path, "Sum.Large"))
        self.assertIsNone(grade.read_record(self.root / "none.json", "Sum.Large"))
        self.assertEqual(self.grade()[f"{LAB}.Sum.Large"].source, "output")

    def test_a_pass_without_its_record_fails_even_without_a_run_line(self):
        # exit(0) from a static constructor of the lab's code: no "[ RUN      ]" line, no record
        self.records[f"{LAB}.Sum.Small"] = self.root / "results" / "never-written.json"
        r = self.grade()[f"{LAB}.Sum.Small"]
        self.assertEqual((r.status, r.points), ("failed", 0.0))
        self.assertIn("without writing its result record", r.reason)
        # a test without a record path (none in its environment) keeps ctest's word
        del self.records[f"{LAB}.Sum.Small"]
        self.assertEqual(self.grade()[f"{LAB}.Sum.Small"].status, "passed")

    def test_parameterised_names(self):
        path = self.write("Big/Sum.Huge/3", record("Big/Sum.Huge/3"))
        self.assertEqual(grade.read_record(path, "Big/Sum.Huge/3").status, "passed")

    @unittest.skipUnless(shutil.which("cmake"), "cmake not found")
    def test_sanitizer_checks_write_a_record_too(self):
        """cmake/RunSanitizer.cmake without compute-sanitizer: a skip, and with the lab marked as hung: a failure."""
        script = Path(grade.__file__).resolve().parent.parent / "cmake" / "RunSanitizer.cmake"
        out = self.root / "results" / "sanitizer.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text("{}")  # an earlier run's: removed first
        env = dict(os.environ, GTEST_OUTPUT=f"json:{out}", CUDALAB_STATE_DIR=str(self.root))
        args = ["cmake", "-DSANITIZER=", "-DTOOL=memcheck", "-DEXE=/bin/true", "-DCASE=c", "-DEXPECT=clean",
                "-DNAME=Sanitizer.memcheck_c", "-P", str(script)]
        proc = subprocess.run(args, env=env, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rec = grade.read_record(out, "Sanitizer.memcheck_c")
        self.assertEqual((rec.status, rec.reason), ("skipped", "compute-sanitizer not found (it ships with the CUDA "
                                                                "Toolkit, in <cuda>/bin)"))
        (self.root / "lab-hung.txt").write_text('20\nSum.Loops "quoted" \\ name\n')
        proc = subprocess.run(args, env=env, capture_output=True, text=True)
        self.assertNotEqual(proc.returncode, 0)
        rec = grade.read_record(out, "Sanitizer.memcheck_c")
        self.assertEqual(rec.status, "failed")
        self.assertIn('did not finish in 20 s (Sum.Loops "quoted" \\ name)', rec.reason)
        self.assertIn("[ CUDALAB  ] reason: not run: an earlier test", proc.stderr)


class ReasonTest(unittest.TestCase):
    def test_undefined_behaviour_in_host_code_is_named_with_its_line(self):
        # what the undefined-behaviour sanitizer prints before it ends the test's process
        out = ("[ RUN      ] ConflictDegree.Strides\n/home/s/cuda-labs/labs/ch05_05_bank_conflicts/bank_conflicts.cu"
               ":115:47: runtime error: index 32 out of bounds for type 'long long int [32]'\n")
        why = grade.reason_for("failed", "Failed", out)
        self.assertTrue(why.startswith("undefined behaviour in host code at bank_conflicts.cu:115: index 32 out of "
                                       "bounds for type 'long long int [32]'"), why)
        # a crash keeps ctest's word; output without such a report keeps the old fallback
        self.assertEqual(grade.reason_for("failed", "SEGFAULT", out), "crashed (segmentation fault)")
        self.assertIn("see the test's output", grade.reason_for("failed", "Failed", "nothing to see\n"))


if __name__ == "__main__":
    unittest.main()
