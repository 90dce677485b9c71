"""Self-test of tools/staff/grade_class.py (run by ctest as tools.class_selftest), without a GPU and
without building: the per-submission build and tests are replaced by a stand-in that scores each
lab from the submitted file's text, so that what is tested is the class around them: discovery and
student ids, resume (nothing finished is redone or lost), bad submissions beside good ones, the
roster, grades and report numbers, the Slurm scripts, tasks and gather. The real build is tested
by tools/staff/ci_class_check.sh (CI), which grades a class with cmake, ctest and Slurm."""
import contextlib
import csv
import io
import json
import os
import stat
import tarfile
import tempfile
import time
import unittest
import zipfile
from pathlib import Path
from unittest import mock

import grade_class as gc

LAB1, SRC1 = "ch03_05_occupancy", "occupancy.cu"
LAB2, SRC2 = "ch04_01_throughput_and_intensity", "intensity.cu"
MAX = {LAB1: 10.0, LAB2: 6.0}
TESTS = {LAB1: ["Model.Limits", "Model.Ties"], LAB2: ["Roofline.Ridge"]}


def fake_build_and_test(self, w, selected, dest, notes):
    """Scores each test from the overlaid source: it passes when the file says GOOD, fails with a
    reason holding a number otherwise, is 'not built' when it says BROKEN; raises for CRASHGRADER."""
    tests, labs = [], {}
    for lab in selected:
        src = {LAB1: SRC1, LAB2: SRC2}[lab]
        text = (w.tree / "labs" / lab / src).read_text(errors="replace")
        if "CRASHGRADER" in text:
            raise RuntimeError("the stand-in grader fails on purpose")
        per = MAX[lab] / len(TESTS[lab])
        got = 0.0
        for t in TESTS[lab]:
            if "BROKEN" in text:
                status, reason = "not built", f"did not build: {src}(7): error"
            elif "GOOD" in text or (t == "Model.Limits" and "HALF" in text):
                status, reason = "passed", ""
            else:
                status, reason = "failed", f"index {len(text)}: expected 1, got 0 (seed {len(dest.name)})"
            got += per if status == "passed" else 0
            tests.append({"name": f"{lab}.{t}", "lab": lab, "kind": "correctness", "where": "host",
                          "status": status, "points": per if status == "passed" else 0, "max_points": per,
                          "reason": reason})
        labs[lab] = {"correctness": [got, MAX[lab]], "performance": [0, 0]}
    summary = {"device": "no GPU", "labs": labs, "tests": tests}
    grade = w.build / "grade"
    grade.mkdir(parents=True, exist_ok=True)
    (grade / "summary.json").write_text(json.dumps(summary))
    results = {"score": sum(t["points"] for t in tests), "output": "GPU: no GPU",
               "tests": [{"name": t["name"], "score": t["points"], "max_score": t["max_points"]} for t in tests]}
    (grade / "results.json").write_text(json.dumps(results))
    (dest / "summary.json").write_text(json.dumps(summary))
    return summary, "(score table)", {"build": 0.0, "wait": 0.0, "tests": 0.0}


def fake_ensure(self, warm_lock=None):
    (self.tree / "labs").mkdir(parents=True, exist_ok=True)
    (self.build / "grade").mkdir(parents=True, exist_ok=True)
    self.ready = True


def submission(where: Path, name: str, texts: dict, kind: str = "dir") -> Path:
    """A submission with labs/<lab>/<src> = text for each lab in @p texts."""
    files = {f"labs/{lab}/{ {LAB1: SRC1, LAB2: SRC2}[lab]}": t for lab, t in texts.items()}
    if kind == "zip":
        path = where / f"{name}.zip"
        with zipfile.ZipFile(path, "w") as z:
            for n, t in files.items():
                z.writestr(n, t)
        return path
    path = where / name
    for n, t in files.items():
        (path / n).parent.mkdir(parents=True, exist_ok=True)
        (path / n).write_text(t)
    return path


class ClassTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.base = Path(self.tmp.name)
        self.subs = self.base / "class"
        self.subs.mkdir()
        self.out = self.base / "out"
        self.calls = []
        calls = self.calls

        def counting(self_, w, selected, dest, notes):
            calls.append(dest.name)
            return fake_build_and_test(self_, w, selected, dest, notes)
        for p in (mock.patch.object(gc.Grader, "build_and_test", counting),
                  mock.patch.object(gc.Worker, "ensure", fake_ensure)):
            p.start()
            self.addCleanup(p.stop)

    def tearDown(self):
        self.tmp.cleanup()

    def run_main(self, *argv):
        text = io.StringIO()
        with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
            rc = gc.main([str(a) for a in argv])
        return rc, text.getvalue()

    def grade(self, *extra, labs=(LAB1, LAB2)):
        return self.run_main(self.subs, "--labs", *labs, "--out", self.out, "-j", "2", "--ccache-dir", "none", *extra)

    def roster(self, out=None):
        with ((out or self.out) / "roster.csv").open(newline="") as f:
            return [tuple(r) for r in csv.reader(f)]

    def good_class(self):
        submission(self.subs, "alice", {LAB1: "GOOD", LAB2: "GOOD"})
        submission(self.subs, "bob", {LAB1: "HALF", LAB2: "bad"}, kind="zip")
        submission(self.subs, "carol", {LAB1: "GOOD"})

    # -- discovery ------------------------------------------------------------------------------
    def test_ids_folders_and_duplicates(self):
        self.good_class()
        submission(self.subs, "Dave", {LAB1: "GOOD"})
        submission(self.subs, "dave", {LAB1: "GOOD"}, kind="zip")
        (self.subs / ".DS_Store").write_text("x")
        one = submission(self.base, "erin", {LAB1: "GOOD"})
        entries, conflicts = gc.discover([self.subs, one], gc.labinfo.lab_names())
        self.assertEqual([e.student for e in entries], ["alice", "bob", "carol", "erin"])
        self.assertEqual(len(conflicts), 1)
        self.assertIn("2 submissions share the student id", conflicts[0]["problem"])
        self.assertEqual(gc.student_id(Path("x/Jo Smith (late).tar.gz")), "Jo_Smith_late")

    # -- a class, then resume -------------------------------------------------------------------
    def test_roster_grades_and_report_numbers(self):
        self.good_class()
        rc, text = self.grade()
        self.assertEqual(rc, 0, text)
        self.assertEqual(self.roster(), [
            ("student", "lab", "points", "max"),
            ("alice", LAB1, "10", "10"), ("alice", LAB2, "6", "6"),
            ("bob", LAB1, "5", "10"), ("bob", LAB2, "0", "6"),
            ("carol", LAB1, "10", "10"), ("carol", LAB2, "0", "6")])
        grades = (self.out / "grades.csv").read_text().splitlines()
        self.assertEqual(grades[0], f"student,{LAB1},{LAB2},total,max")
        self.assertEqual(grades[1:], ["alice,10,6,16,16", "bob,5,0,5,16", "carol,10,0,10,16"])
        self.assertIn("[3/3]", text)
        self.assertIn("left", text)
        self.assertRegex(text.splitlines()[-1], r"^grade_class: 3 submissions: 3 graded, 0 not graded")
        for s in ("alice", "bob", "carol"):
            d = self.out / "students" / s
            for f in ("results.json", "report.txt", "grade.json", "summary.json"):
                self.assertTrue((d / f).is_file(), d / f)
        self.assertTrue((self.out / "students" / "carol" / "sources" / "labs" / LAB1 / SRC1).is_file())
        self.assertIn("missing: labs/ch04_01_throughput_and_intensity/intensity.cu",
                      (self.out / "students" / "carol" / "report.txt").read_text())
        page = (self.out / "class-report.html").read_text()
        self.assertNotIn("http://", page.replace("http://www.w3.org/2000/svg", ""))
        self.assertNotIn("https://", page)
        data = gc.report_data(gc.gather(self.out))
        lab1 = next(lab for lab in data["labs"] if lab["lab"] == LAB1)
        self.assertEqual(sum(lab1["bins"]), 3)
        self.assertEqual(lab1["bins"][9], 2)
        self.assertEqual(lab1["bins"][5], 1)
        self.assertEqual(lab1["stats"]["mean"], round(25 / 3, 2))
        ties = next(t for t in lab1["tests"] if t["name"].endswith("Model.Ties"))
        self.assertEqual((ties["failed"], ties["graded"]), (1, 3))
        lab2 = next(lab for lab in data["labs"] if lab["lab"] == LAB2)
        ridge = lab2["tests"][0]
        self.assertEqual(ridge["failed"], 2)  # bob's "bad" and carol's skeleton: two reasons, one kind
        self.assertEqual(ridge["message_count"], 2)

    def test_resume_never_redoes_or_loses_a_grade(self):
        self.good_class()
        self.assertEqual(self.grade()[0], 0)
        self.assertEqual(sorted(self.calls), ["alice", "bob", "carol"])
        record = (self.out / "students" / "bob" / "grade.json").read_bytes()
        roster = self.roster()
        submission(self.subs, "dan", {LAB1: "GOOD", LAB2: "GOOD"})
        rc, text = self.grade()
        self.assertEqual(rc, 0, text)
        self.assertEqual(sorted(self.calls), ["alice", "bob", "carol", "dan"])  # only the new one
        self.assertIn("3 already graded, 1 to grade", text)
        self.assertEqual((self.out / "students" / "bob" / "grade.json").read_bytes(), record)
        self.assertEqual(self.roster()[:7], roster)

    def test_a_stop_loses_only_the_submission_being_graded(self):
        self.good_class()
        submission(self.subs, "mallory", {LAB1: "CRASHGRADER"})
        rc, text = self.grade()
        self.assertEqual(rc, 1, text)
        self.assertIn("the stand-in grader fails on purpose", (self.out / "problems.csv").read_text())
        self.assertFalse((self.out / "students" / "mallory" / "grade.json").exists())
        self.assertTrue((self.out / "students" / "mallory" / "error.txt").is_file())
        self.assertEqual(len(self.roster()), 7)  # the others are graded
        # fixed and run again: only mallory is graded, the rest kept
        submission(self.subs, "mallory", {LAB1: "GOOD"})
        del self.calls[:]
        rc, text = self.grade()
        self.assertEqual(rc, 0, text)
        self.assertEqual(self.calls, ["mallory"])
        self.assertIn(("mallory", LAB1, "10", "10"), self.roster())

    def test_a_stop_writes_no_grade_for_what_was_being_graded(self):
        self.good_class()
        real = gc.Grader.build_and_test

        def stopping(self_, w, selected, dest, notes):
            if dest.name == "bob":
                gc.stop_everything()  # as Ctrl-C or scancel would, while bob's tests run
            return real(self_, w, selected, dest, notes)
        with mock.patch.object(gc.Grader, "build_and_test", stopping):
            rc, text = self.run_main(self.subs, "--labs", LAB1, LAB2, "--out", self.out, "-j", "1",
                                     "--ccache-dir", "none")
        self.assertEqual(rc, 130, text)
        self.assertTrue((self.out / "students" / "alice" / "grade.json").is_file())
        self.assertFalse((self.out / "students" / "bob" / "grade.json").exists())
        self.assertFalse((self.out / "students" / "carol" / "grade.json").exists())
        self.assertEqual(self.calls, ["alice", "bob"])
        rc, text = self.grade()
        self.assertEqual(rc, 0, text)
        self.assertEqual(sorted(self.calls[2:]), ["bob", "carol"])  # alice's grade was kept

    def test_changed_submission_keeps_its_grade_until_regrade(self):
        self.good_class()
        self.grade()
        submission(self.subs, "bob", {LAB1: "GOOD", LAB2: "GOOD"}, kind="zip")
        del self.calls[:]
        rc, text = self.grade()
        self.assertEqual(self.calls, [])
        self.assertIn("the submission changed since it was graded", (self.out / "problems.csv").read_text())
        self.assertIn(("bob", LAB1, "5", "10"), self.roster())
        rc, text = self.grade("--regrade", "bob")
        self.assertEqual(rc, 0, text)
        self.assertEqual(self.calls, ["bob"])
        self.assertIn(("bob", LAB1, "10", "10"), self.roster())
        previous = list((self.out / "previous").iterdir())
        self.assertEqual(len(previous), 1)
        self.assertEqual(json.loads((previous[0] / "grade.json").read_text())["labs"][LAB1]["points"], 5)

    # -- bad input ------------------------------------------------------------------------------
    def test_bad_submissions_beside_good_ones(self):
        self.good_class()
        (self.subs / "empty").mkdir()
        with zipfile.ZipFile(self.subs / "junk.zip", "w") as z:
            z.writestr("notes.txt", "nothing here")
        (self.subs / "notes.txt").write_text("not a submission")
        (self.subs / "zero.zip").write_bytes(b"")
        (self.subs / "corrupt.zip").write_bytes(b"PK\x03\x04 this is not a zip file")
        submission(self.subs, "broken", {LAB1: "BROKEN", LAB2: "GOOD"})
        with tarfile.open(self.subs / "strange.tar", "w") as t:
            def add(name, data=b"", **kw):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                for k, v in kw.items():
                    setattr(info, k, v)
                t.addfile(info, io.BytesIO(data) if data else None)
            add(f"labs/{LAB1}/{SRC1}", b"GOOD")
            add("../../outside.cu", b"x")
            add(f"labs/{LAB1}/link.cu", type=tarfile.SYMTYPE, linkname="/etc/passwd")
            add(f"labs/{LAB2}/{SRC2}", b"GOOD" + b" " * (3 << 20))
        submission(self.subs, "twin", {LAB1: "GOOD"})
        submission(self.subs, "twin", {LAB1: "GOOD"}, kind="zip")
        rc, text = self.grade()
        self.assertEqual(rc, 1, text)  # the duplicate id needs the instructor
        roster = self.roster()
        self.assertIn(("alice", LAB1, "10", "10"), roster)
        self.assertIn(("broken", LAB1, "0", "10"), roster)
        self.assertIn(("broken", LAB2, "6", "6"), roster)
        self.assertIn(("strange", LAB1, "10", "10"), roster)
        self.assertIn(("strange", LAB2, "0", "6"), roster)  # the 3 MiB source was refused: skeleton
        self.assertFalse(any(r[0] == "twin" for r in roster))
        for s in ("empty", "junk", "notes.txt", "zero", "corrupt"):
            self.assertIn((s if s != "notes.txt" else "notes.txt", LAB1, "0", str(gc.lab_total(LAB1)).rstrip("0").rstrip(".")),
                          roster)
        problems = {r["student"]: r["problem"] for r in csv.DictReader((self.out / "problems.csv").open())}
        self.assertIn("the submission is empty", problems["empty"])
        self.assertIn("no file of the submission is a lab's source file", problems["junk"])
        self.assertIn("neither a directory nor a .zip/.tar archive", problems["notes.txt"])
        self.assertIn("neither a directory nor a .zip/.tar archive", problems["corrupt"])
        self.assertIn("share the student id", problems["twin"])
        report = (self.out / "students" / "strange" / "report.txt").read_text()
        self.assertIn("refused: ../../outside.cu (path escapes the submission)", report)
        self.assertIn(f"refused: labs/{LAB1}/link.cu (not a regular file)", report)
        self.assertIn("larger than 2 MiB", report)
        data = gc.report_data(gc.gather(self.out))
        self.assertEqual(data["students"], 12)
        self.assertEqual(data["not_graded"], 5)

    def test_build_that_hangs_is_stopped(self):
        logfile = self.base / "log"
        logfile.write_text("")
        start = time.monotonic()
        rc = gc.run_logged(["sh", "-c", "sleep 30 & sleep 30"], logfile, timeout=0.5)
        self.assertIsNone(rc)
        self.assertLess(time.monotonic() - start, 10)
        self.assertIn("(stopped after 0.5 s)", logfile.read_text())

    def test_out_that_is_not_ours_is_refused(self):
        self.good_class()
        self.out.mkdir()
        (self.out / "thesis.tex").write_text("precious")
        rc, text = self.grade()
        self.assertEqual(rc, 2)
        self.assertIn("was not made by grade_class.py", text)
        self.assertEqual((self.out / "thesis.tex").read_text(), "precious")
        rc, text = self.run_main(self.subs, "--labs", LAB1, "--out", self.subs / "graded")
        self.assertEqual(rc, 2)
        self.assertIn("inside the submissions", text)
        self.assertFalse((self.subs / "graded").exists())
        rc, text = self.run_main(self.subs, "--labs", "ch03_05_ocupancy", "--out", self.base / "o2")
        self.assertEqual(rc, 2)
        self.assertIn("ch03_05_occupancy", text)  # the suggestion

    # -- Slurm ----------------------------------------------------------------------------------
    def test_slurm_tasks_and_gather_equal_the_local_run(self):
        self.good_class()
        submission(self.subs, "dan", {LAB1: "HALF", LAB2: "GOOD"})
        (self.subs / "empty").mkdir()
        local = self.base / "local"
        rc, _ = self.run_main(self.subs, "--labs", LAB1, LAB2, "--out", local, "--ccache-dir", "none")
        self.assertEqual(rc, 0)
        del self.calls[:]
        bin_dir = self.base / "bin"
        bin_dir.mkdir()
        sbatch_log = self.base / "sbatch.log"
        fake = bin_dir / "sbatch"
        fake.write_text(f"#!/bin/sh\necho \"$@\" >> {sbatch_log}\necho 4242\n")
        fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
        with mock.patch.dict(os.environ, {"PATH": f"{bin_dir}:{os.environ['PATH']}"}):
            rc, text = self.grade("--slurm", "--partition", "gpu", "--chunk", "2", "--setup", "module load cuda/12.6",
                                  "--launcher", "apptainer exec --nv c.sif")
        self.assertEqual(rc, 0, text)
        calls = sbatch_log.read_text().splitlines()
        self.assertEqual(len(calls), 2)
        self.assertIn("--dependency=afterany:4242", calls[1])
        array = (self.out / "slurm" / "grade.sbatch").read_text()
        self.assertIn("#SBATCH --array=0-2\n", array)  # 5 submissions, 2 per task
        self.assertIn("#SBATCH --gres=gpu:1\n", array)
        self.assertIn("#SBATCH --partition=gpu\n", array)
        self.assertIn("module load cuda/12.6\n", array)
        self.assertIn("exec apptainer exec --nv c.sif python3 ", array)
        self.assertIn("--gather", (self.out / "slurm" / "gather.sbatch").read_text())
        self.assertEqual(self.calls, [])  # nothing graded here
        # The tasks, as Slurm would run them (any order), then the gather job.
        for index in (2, 0, 1):
            with mock.patch.dict(os.environ, {"SLURM_ARRAY_JOB_ID": "4242", "TMPDIR": str(self.base)}):
                rc, text = self.run_main("--task", index, "--out", self.out)
            self.assertEqual(rc, 0, text)
        self.assertFalse(list(self.base.glob("cudalab-class-4242-*")))  # scratch trees removed
        rc, text = self.run_main("--gather", "--out", self.out)
        self.assertEqual(rc, 0, text)
        self.assertEqual(self.roster(), self.roster(local))
        self.assertEqual((self.out / "grades.csv").read_text(), (local / "grades.csv").read_text())
        # a second --slurm has nothing left to submit
        rc, text = self.grade("--slurm", "--no-submit")
        self.assertIn("nothing to submit", text)

    def test_gather_reports_missing_grades(self):
        self.good_class()
        rc, text = self.grade("--slurm", "--no-submit", "--gres", "none")
        self.assertEqual(rc, 0, text)
        self.assertNotIn("--gres", (self.out / "slurm" / "grade.sbatch").read_text())
        rc, text = self.run_main("--gather", "--out", self.out)
        self.assertEqual(rc, 1)
        self.assertIn("not graded yet", (self.out / "problems.csv").read_text())

    # -- the report's check ---------------------------------------------------------------------
    def test_report_check_finds_a_page_whose_script_did_not_run(self):
        self.good_class()
        self.grade()
        page = (self.out / "class-report.html").read_text()
        problems = gc.check_report_dom(page, self.out / "roster.csv")  # the page before its script ran
        self.assertTrue(any("did not run" in p for p in problems))
        self.assertTrue(any("no histogram" in p for p in problems))
        # a page as the browser leaves it: what the script draws, written out here by hand
        cells = "".join(f'<tr data-student="{s}"><td data-lab="{lab}" data-points="{p}" data-max="{m}"></td></tr>'
                        for s, lab, p, m in self.roster()[1:])
        hists = "".join(f'<svg class="hist" data-lab="{lab}">' + "".join(
            f'<rect data-count="{3 if i == 0 else 0}"/>' for i in range(10)) + "</svg>" for lab in (LAB1, LAB2))
        drawn = f'<html><body data-rendered="yes">{hists}<table>{cells}</table></body></html>'
        self.assertEqual(gc.check_report_dom(drawn, self.out / "roster.csv"), [])
        self.assertTrue(gc.check_report_dom(drawn.replace('data-points="5"', 'data-points="6"'), self.out / "roster.csv"))

    def test_failure_kinds_ignore_numbers(self):
        self.assertEqual(gc.message_kind("index 17: expected 3.5, got 0x1f (seed 99)"),
                         gc.message_kind("index 4: expected 1, got 0x00 (seed 7)"))
        self.assertNotEqual(gc.message_kind("index 1: expected 1"), gc.message_kind("timed out"))


if __name__ == "__main__":
    unittest.main()


class SummaryLineTest(unittest.TestCase):
    def test_says_where_the_time_of_this_runs_grades_went(self):
        def record(build, wait, tests):
            return {"status": "graded", "labs": {LAB1: {"points": 5, "max": 10}},
                    "seconds": {"build": build, "wait": wait, "tests": tests}}
        result = gc.ClassResult(labs=[LAB1], students=3,
                                records={"a": record(10, 4, 20), "b": record(20, 6, 30), "old": record(99, 99, 99)})
        line = gc.summary_line(result, 60.0, 2, Path("/out"), {"a", "b"})
        self.assertIn("2 graded now in 1 min 00 s (30.0 s each)", line)
        # the means of this run's grades only: an earlier run's record is left out
        self.assertIn("(mean per submission: build 15.0 s, waiting for the GPU 5.0 s shared and 0.0 s alone, "
                      "tests 25.0 s)", line)
        self.assertNotIn("mean per submission", gc.summary_line(result, None, 0, Path("/out")))
        line = gc.summary_line(result, 60.0, 2, Path("/out"), {"a", "b"}, {"idle": 15, "shared": 30, "alone": 15})
        self.assertIn("the GPU was idle 15 s, shared by correctness tests 30 s, held by timed tests 15 s (25 % idle)",
                      line)


class ClassVsSingleResume(unittest.TestCase):
    """class_vs_single.py --budget: stops starting submissions, and a second run goes on without
    grading the class or a finished submission again (the graders are stand-ins here)."""

    def test_budget_then_resume(self):
        import class_vs_single as cvs

        calls = []

        def fake_run(cmd, **kwargs):
            script = Path(cmd[1]).name
            out = Path(cmd[cmd.index("--out") + 1])
            calls.append(script)
            tests = [{"name": "Model.Limits", "score": 1, "max_score": 1, "status": "passed"}]
            if script == "grade_class.py":
                for s in ("ann", "bob", "cat"):
                    (out / "students" / s).mkdir(parents=True, exist_ok=True)
                    (out / "students" / s / "results.json").write_text(json.dumps({"tests": tests}))
            else:
                out.mkdir(parents=True, exist_ok=True)
                (out / "results.json").write_text(json.dumps({"tests": tests}))
            return mock.Mock(returncode=0)

        entries = [mock.Mock(student=s, path=Path(s)) for s in ("ann", "bob", "cat")]
        clock = iter(range(0, 1000, 10))
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(cvs.subprocess, "run", side_effect=fake_run), \
                mock.patch.object(cvs.grade_class, "discover", return_value=(entries, [])), \
                mock.patch.object(cvs.time, "monotonic", side_effect=lambda: float(next(clock))), \
                contextlib.redirect_stdout(io.StringIO()):
            args = ["sub", "--labs", LAB1, "--out", tmp, "--budget", "45"]
            self.assertEqual(cvs.main(args), 3)  # the budget ran out before every submission was graded
            first = calls.count("grade_submission.py")
            self.assertGreaterEqual(first, 1)
            self.assertLess(first, 3)
            self.assertEqual(cvs.main(args[:-2]), 0)  # no budget: the rest, and all three equal
            self.assertEqual(calls.count("grade_class.py"), 1)
            self.assertEqual(calls.count("grade_submission.py"), 3)
            self.assertIn("3 of 3 students with equal points", (Path(tmp) / "comparison.txt").read_text())
