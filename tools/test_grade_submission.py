"""Self-test of tools/grade_submission.py (run by ctest as tools.submission_selftest), without a GPU
and without building: only each lab's declared sources are taken from a submission (a header that
redefines GoogleTest's macros is refused and the pristine tree is what gets built), --out never
loses a file it did not make, and bad submissions fail fast with a results.json that says why.

With CUDALAB_FULL_SUBMISSION_TEST=1 (and cmake, nvcc), the header-override submission is also
built and graded for real: it must score 0 (takes minutes; GPU tests need a GPU to count)."""
import base64
import contextlib
import filecmp
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
import zipfile
from pathlib import Path, PurePosixPath
from unittest import mock

import grade_submission as gs
import labinfo

ROOT = gs.ROOT
LAB = "ch03_05_occupancy"
LABS = {name: labinfo.read_lab(name) for name in (LAB, "ch03_10_reduction_divergence")}

# The attack of the issue: the skeleton's occupancy.cu, plus an occupancy.cuh (included by the
# tests) that turns GoogleTest's failure macros into no-ops.
HEADER_OVERRIDE = """
#undef EXPECT_EQ
#define EXPECT_EQ(a, b) (void)0
#undef ASSERT_EQ
#define ASSERT_EQ(a, b) (void)0
#undef EXPECT_TRUE
#define EXPECT_TRUE(a) (void)0
#undef ADD_FAILURE
#define ADD_FAILURE() std::cout
"""


def header_override_submission(where: Path) -> Path:
    lab = where / "labs" / LAB
    lab.mkdir(parents=True)
    (lab / "occupancy.cu").write_bytes((ROOT / "labs" / LAB / "occupancy.cu").read_bytes())
    (lab / "occupancy.cuh").write_text((ROOT / "labs" / LAB / "occupancy.cuh").read_text() + HEADER_OVERRIDE)
    return where


def run_main(*argv: str) -> tuple[int, str]:
    text = io.StringIO()
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
        rc = gs.main([str(a) for a in argv])
    return rc, text.getvalue()


def same_tree(a: Path, b: Path) -> list[str]:
    """Files that differ between two folders (or exist in one only)."""
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    diff = [str(Path(a, n)) for n in cmp.left_only + cmp.right_only + cmp.funny_files]
    diff += [str(Path(a, n)) for n in filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)[1]]
    for sub in cmp.common_dirs:
        diff += same_tree(a / sub, b / sub)
    return diff


class IntakeTest(unittest.TestCase):
    def test_only_declared_sources_are_taken(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            lab = root / "repo" / "labs" / LAB
            lab.mkdir(parents=True)
            (lab / "occupancy.cu").write_text("int x;")
            (lab / "occupancy.cuh").write_text("#define EXPECT_EQ(a, b)\n")
            (lab / "demo.cu").write_text("int main() { return 0; }\n")
            (lab / "README.md").write_bytes((ROOT / "labs" / LAB / "README.md").read_bytes())  # unchanged
            (root / "repo" / "tests" / LAB).mkdir(parents=True)
            (root / "repo" / "tests" / LAB / "grading.json").write_text("{}")
            (root / "repo" / "tools").mkdir()
            (root / "repo" / "tools" / "grade.py").write_text("print('all passed')\n")
            (lab / "link.cu").symlink_to("/etc/passwd")
            intake = gs.collect(root, LABS)
            self.assertEqual(list(intake.files), [PurePosixPath(LAB, "occupancy.cu")])
            refused = dict(intake.refused)
            self.assertIn("not a file you edit", refused[f"repo/labs/{LAB}/occupancy.cuh"])
            self.assertIn("not a file you edit", refused[f"repo/labs/{LAB}/demo.cu"])
            self.assertIn("tests and grading.json always come from the course's copy",
                          refused[f"repo/tests/{LAB}/grading.json"])
            self.assertIn("not inside labs/", refused["repo/tools/grade.py"])
            self.assertEqual(refused[f"repo/labs/{LAB}/link.cu"], "not a regular file")
            self.assertEqual(intake.unchanged, 1)  # README.md: identical to the course's copy

    def test_zip_with_escaping_paths(self):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("labs/ch03_10_reduction_divergence/reduction.cu", "ok")
            z.writestr("../../etc/evil.cu", "no")
            z.writestr("/abs/labs/ch03_10_reduction_divergence/reduction.cu", "no")
            z.writestr("labs/ch99_unknown/x.cu", "no")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.zip"
            path.write_bytes(buf.getvalue())
            intake = gs.collect(path, LABS)
            self.assertEqual(intake.files, {PurePosixPath("ch03_10_reduction_divergence/reduction.cu"): b"ok"})
            self.assertEqual(sum(why == "path escapes the submission" for _, why in intake.refused), 2)
            self.assertTrue(any("ch99_unknown" in path for path, _ in intake.refused))

    def test_windows_backslash_paths_are_accepted(self):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("alice\\labs\\", "")
            z.writestr("alice\\labs\\ch03_05_occupancy\\occupancy.cu", "// mine")
            z.writestr("alice\\labs\\ch03_05_occupancy\\occupancy.cuh", "#define X")
            z.writestr("..\\..\\evil.cu", "no")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.zip"
            path.write_bytes(buf.getvalue())
            intake = gs.collect(path, LABS)
            self.assertEqual(intake.files, {PurePosixPath(LAB, "occupancy.cu"): b"// mine"})
            refused = dict(intake.refused)
            self.assertIn("not a file you edit", refused[f"alice/labs/{LAB}/occupancy.cuh"])
            self.assertEqual(refused["../../evil.cu"], "path escapes the submission")

    def test_tarball_of_lab_folders_without_labs_prefix(self):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as t:
            data = b"int y;"
            info = tarfile.TarInfo("ch03_05_occupancy/occupancy.cu")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
            link = tarfile.TarInfo("ch03_05_occupancy/evil.cu")
            link.type = tarfile.SYMTYPE
            link.linkname = "/etc/shadow"
            t.addfile(link)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.tar.gz"
            path.write_bytes(buf.getvalue())
            intake = gs.collect(path, LABS)
            self.assertEqual(intake.files, {PurePosixPath("ch03_05_occupancy/occupancy.cu"): b"int y;"})
            self.assertIn(("ch03_05_occupancy/evil.cu", "not a regular file"), intake.refused)

    def test_two_copies_of_a_source_take_the_shallowest_and_list_the_other(self):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("backup/old/labs/ch03_05_occupancy/occupancy.cu", "old")
            z.writestr("labs/ch03_05_occupancy/occupancy.cu", "new")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.zip"
            path.write_bytes(buf.getvalue())
            intake = gs.collect(path, LABS)
            self.assertEqual(intake.files, {PurePosixPath(LAB, "occupancy.cu"): b"new"})
            self.assertIn("was taken from labs/ch03_05_occupancy/occupancy.cu", dict(intake.refused)[
                "backup/old/labs/ch03_05_occupancy/occupancy.cu"])


class HeaderOverrideTest(unittest.TestCase):
    """The issue's attack: the stub plus a header that disables GoogleTest's checks."""

    def test_header_is_refused_and_the_pristine_lab_is_built(self):
        with tempfile.TemporaryDirectory() as tmp:
            sub = header_override_submission(Path(tmp) / "alice")
            out = Path(tmp) / "out"
            rc, text = run_main(sub, "--out", out, "--labs", "submitted", "--dry-run")
            self.assertEqual(rc, 0, text)
            refused = f"refused: labs/{LAB}/occupancy.cuh (not a file you edit"
            self.assertIn(refused, text)
            # What would be built: the lab folder and the tests are exactly the course's; the
            # submitted occupancy.cu is the skeleton itself, so the lab scores what the skeleton
            # scores (0: CI's skeleton run shows its host tests fail, and on a GPU the GPU tests do).
            self.assertEqual(same_tree(out / "tree" / "labs" / LAB, ROOT / "labs" / LAB), [])
            self.assertEqual(same_tree(out / "tree" / "tests" / LAB, ROOT / "tests" / LAB), [])
            self.assertNotIn("#define EXPECT_EQ", (out / "tree" / "labs" / LAB / "occupancy.cuh").read_text())
            results = json.loads((out / "results.json").read_text())
            self.assertIn(refused, results["output"])
            self.assertTrue(any(n.startswith(refused) for n in results["extra_data"]["cudalab"]["notes"]))
            self.assertIn(refused, (out / "report.txt").read_text())

    @unittest.skipUnless(os.environ.get("CUDALAB_FULL_SUBMISSION_TEST") == "1",
                         "full build and grade: set CUDALAB_FULL_SUBMISSION_TEST=1 (minutes; a GPU for the GPU tests)")
    def test_header_override_scores_zero_when_built_and_graded(self):
        with tempfile.TemporaryDirectory() as tmp:
            sub = header_override_submission(Path(tmp) / "alice")
            out = Path(tmp) / "out"
            rc, text = run_main(sub, "--out", out, "--labs", LAB)
            self.assertEqual(rc, 0, text)
            results = json.loads((out / "results.json").read_text())
            self.assertTrue(results["tests"], text)
            self.assertEqual(results["score"], 0, text)
            self.assertIn(f"refused: labs/{LAB}/occupancy.cuh", results["output"])


class OutDirectoryTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.base = Path(self.tmp.name)
        self.sub = header_override_submission(self.base / "alice")

    def tearDown(self):
        self.tmp.cleanup()

    def test_existing_content_is_kept_and_refused(self):
        out = self.base / "mine"
        out.mkdir()
        (out / "precious.txt").write_text("keep me")
        (out / "tree").mkdir()
        (out / "tree" / "notes.txt").write_text("keep me too")
        rc, text = run_main(self.sub, "--out", out, "--labs", LAB, "--dry-run")
        self.assertEqual(rc, 2)
        self.assertIn("is not empty and was not made by grade_submission.py", text)
        self.assertEqual((out / "precious.txt").read_text(), "keep me")
        self.assertEqual((out / "tree" / "notes.txt").read_text(), "keep me too")
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["precious.txt", "tree"])

    def test_a_directory_it_made_is_reused_and_other_files_in_it_kept(self):
        out = self.base / "graded"
        out.mkdir()  # an empty directory may be used
        gs.claim_out(out)
        (out / "tree").mkdir()
        (out / "tree" / "stale.txt").write_text("from the previous run")
        (out / "results.json").write_text("{}")
        (out / "my-notes.txt").write_text("the TA's notes")
        gs.claim_out(out)
        self.assertTrue((out / gs.MARKER).is_file())
        self.assertFalse((out / "tree").exists())
        self.assertFalse((out / "results.json").exists())
        self.assertEqual((out / "my-notes.txt").read_text(), "the TA's notes")

    def test_out_inside_the_repository_or_the_submission_is_refused(self):
        inside = ROOT / "labs" / "graded-here"
        rc, text = run_main(self.sub, "--out", inside, "--labs", LAB, "--dry-run")
        self.assertEqual(rc, 2)
        self.assertIn("is inside the repository", text)
        self.assertFalse(inside.exists())
        rc, text = run_main(self.sub, "--out", self.sub / "graded", "--labs", LAB, "--dry-run")
        self.assertEqual(rc, 2)
        self.assertIn("is inside the submission", text)
        self.assertFalse((self.sub / "graded").exists())
        self.assertIsNone(gs.out_problem(ROOT / "build" / "submissions" / "alice", self.sub))  # build/ is not copied
        self.assertIn("contains the repository", gs.out_problem(ROOT.parent) or "")


class FailFastTest(unittest.TestCase):
    """Bad submissions stop before any copy or build, exit 2 and say why in results.json."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.base = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def fails(self, submission, *args, expect: str) -> dict:
        out = self.base / "out"
        rc, text = run_main(submission, "--out", out, *args)
        self.assertEqual(rc, 2, text)
        self.assertIn(expect, text)
        self.assertFalse((out / "tree").exists(), "nothing may be copied or built")
        results = json.loads((out / "results.json").read_text())
        self.assertEqual(results["score"], 0)
        self.assertEqual(results["tests"], [])
        self.assertIn(expect, results["output"])
        return results

    def test_empty_submission_fails_in_under_10_s(self):
        empty = self.base / "empty"
        empty.mkdir()
        out = self.base / "out"
        start = time.monotonic()
        proc = subprocess.run([sys.executable, str(ROOT / "tools" / "grade_submission.py"), str(empty),
                               "--out", str(out)], capture_output=True, text=True, timeout=60)
        elapsed = time.monotonic() - start
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertLess(elapsed, 10.0)
        self.assertIn("the submission is empty", proc.stderr)
        self.assertFalse((out / "tree").exists())
        self.assertIn("the submission is empty", json.loads((out / "results.json").read_text())["output"])
        zipped = self.base / "empty.zip"
        zipfile.ZipFile(zipped, "w").close()
        self.fails(zipped, expect="the submission is empty")

    def test_lab_name_typo_suggests_the_closest(self):
        sub = header_override_submission(self.base / "alice")
        self.fails(sub, "--labs", "ch03_5", expect="no lab named 'ch03_5'; did you mean ch03_05_occupancy?")
        self.fails(sub, "--labs", "occupancy", expect="did you mean ch03_05_occupancy?")

    def test_no_file_of_any_lab(self):
        path = self.base / "hw.zip"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("homework/notes.txt", "hi")
            z.writestr("occupancy.cu", "int x;")
        results = self.fails(path, expect="no file of the submission is a lab's source file")
        self.assertIn("it belongs in labs/ch03_05_occupancy/occupancy.cu", results["output"])

    def test_every_file_refused(self):
        path = self.base / "header-only.zip"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr(f"labs/{LAB}/occupancy.cuh", HEADER_OVERRIDE)
            z.writestr(f"tests/{LAB}/grading.json", "{}")
        results = self.fails(path, "--labs", "submitted", expect="every file of the submission was refused")
        self.assertIn(f"refused: labs/{LAB}/occupancy.cuh", results["output"])

    def test_no_file_for_the_labs_asked_for(self):
        sub = header_override_submission(self.base / "alice")
        self.fails(sub, "--labs", "ch03_10_reduction_divergence",
                   expect="no source file for ch03_10_reduction_divergence; it has files for ch03_05_occupancy")

    def test_unreadable_submissions(self):
        bad = self.base / "bad.zip"
        bad.write_bytes(b"PK\x03\x04 not really a zip")
        self.fails(bad, expect="neither a directory nor a .zip/.tar archive")
        self.fails(self.base / "missing.zip", expect="does not exist")


class GitHubOutputTest(unittest.TestCase):
    RESULTS = {"score": 3.0, "tests": [
        {"name": "ch03_05_occupancy.A.x", "score": 3.0, "max_score": 3.0, "status": "passed", "output": "passed",
         "tags": ["ch03_05_occupancy", "correctness", "host"]},
        {"name": "ch03_05_occupancy.A.y", "score": 0.0, "max_score": 2.0, "status": "failed",
         "output": "FAILED: occupancy[3] expected 4, got 0\nmore", "tags": ["ch03_05_occupancy", "correctness", "gpu"]}]}

    def test_classroom_reporter_payload_and_summary(self):
        payload = gs.classroom_result(self.RESULTS)
        self.assertEqual(payload["status"], "fail")
        self.assertEqual(payload["max_score"], 5.0)
        self.assertEqual([t["score"] for t in payload["tests"]], [3.0, 0.0])
        self.assertEqual(payload["tests"][1]["message"], "FAILED: occupancy[3] expected 4, got 0")
        full = {"tests": [dict(self.RESULTS["tests"][0])]}
        self.assertEqual(gs.classroom_result(full)["status"], "pass")
        self.assertEqual(gs.classroom_result(gs.failure_results("not graded: empty"))["status"], "error")
        with tempfile.TemporaryDirectory() as tmp:
            output, summary = Path(tmp) / "output", Path(tmp) / "summary"
            with mock.patch.dict(os.environ, {"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)}):
                gs.github_outputs(self.RESULTS)
            values = dict(line.split("=", 1) for line in output.read_text().splitlines())
            self.assertEqual((values["score"], values["max_score"]), ("3", "5"))
            self.assertEqual(json.loads(base64.b64decode(values["result"]))["status"], "fail")
            self.assertIn("| ch03_05_occupancy | 3/5 |", summary.read_text())
            self.assertIn("`ch03_05_occupancy.A.y` (0/2)", summary.read_text())


if __name__ == "__main__":
    unittest.main()
