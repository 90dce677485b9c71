"""Self-test of tools/stubgen.py (run by ctest as tools.stubgen_selftest)."""
import contextlib
import io
import tempfile
import unittest
from pathlib import Path

import labinfo
import stubgen

REFERENCE = """\
#include "lab.cuh"
__global__ void k(int *out) {
  // BEGIN SOLUTION
  out[threadIdx.x] = 1;
  // STUB: // TODO: write 1 to out[threadIdx.x]
  // END SOLUTION
}
int f() {
    // BEGIN SOLUTION
    return 42;
    // STUB: return 0;  // TODO
    // END SOLUTION
}
"""

SKELETON = """\
#include "lab.cuh"
__global__ void k(int *out) {
  // TODO: write 1 to out[threadIdx.x]
}
int f() {
    return 0;  // TODO
}
"""


class StubgenTest(unittest.TestCase):
    def test_regions_become_stub_text(self):
        self.assertEqual(stubgen.make_skeleton(REFERENCE), SKELETON)

    def test_file_without_markers_is_unchanged(self):
        self.assertEqual(stubgen.make_skeleton("int x;\n"), "int x;\n")

    def test_unclosed_region_is_an_error(self):
        with self.assertRaisesRegex(stubgen.MarkerError, "never closed"):
            stubgen.make_skeleton("// BEGIN SOLUTION\nint x;\n")

    def test_end_without_begin_is_an_error(self):
        with self.assertRaisesRegex(stubgen.MarkerError, "without BEGIN"):
            stubgen.make_skeleton("int x;\n// END SOLUTION\n")

    def test_nested_begin_is_an_error(self):
        with self.assertRaisesRegex(stubgen.MarkerError, "inside the region"):
            stubgen.make_skeleton("// BEGIN SOLUTION\n// BEGIN SOLUTION\n")

    def test_block_comment_markers_are_rejected_with_file_and_line(self):
        leaky = "int f() {\n  /* BEGIN SOLUTION */\n  return 42;\n  /* END SOLUTION */\n}\n"
        with self.assertRaisesRegex(stubgen.MarkerError, r"^k\.cu:2: unsupported marker '/\* BEGIN SOLUTION \*/'"):
            stubgen.make_skeleton(leaky, "k.cu")

    def test_other_marker_spellings_are_rejected(self):
        for line in ("// BEGIN_SOLUTION", "// begin solution", "//BEGIN SOLUTION: kernel 1",
                     "/* STUB: return 0; */", "# END SOLUTION", "// END SOLUTION (kernel 1)"):
            with self.subTest(line=line), self.assertRaisesRegex(stubgen.MarkerError, "k.cu:2: unsupported marker"):
                stubgen.make_skeleton(f"int x;\n{line}\nint y;\n", "k.cu")

    def test_nested_region_after_an_unsupported_marker_is_an_error(self):
        with self.assertRaisesRegex(stubgen.MarkerError, "k.cu:3: unsupported marker"):
            stubgen.make_skeleton("// BEGIN SOLUTION\nint x;\n/* BEGIN SOLUTION */\n// END SOLUTION\n", "k.cu")

    def test_strip_markers_keeps_the_solution(self):
        self.assertEqual(stubgen.strip_markers(REFERENCE).count("BEGIN"), 0)
        self.assertIn("return 42;", stubgen.strip_markers(REFERENCE))
        self.assertNotIn("STUB", stubgen.strip_markers(REFERENCE))

    def tree(self, tmp, reference=REFERENCE, sources="k.cu"):
        root = Path(tmp)
        (root / "solutions" / "ch01_lab").mkdir(parents=True)
        (root / "solutions" / "ch01_lab" / "k.cu").write_text(reference)
        (root / "labs" / "ch01_lab").mkdir(parents=True)
        (root / "tests" / "ch01_lab").mkdir(parents=True)
        (root / "tests" / "ch01_lab" / "CMakeLists.txt").write_text(
            f"# a comment: SOURCES x.cu\ncudalab_add_lab(ch01_lab\n  SOURCES {sources}\n  DEMO demo.cu\n  GPU_TESTS t.cu)\n")
        return root

    def run_main(self, *args):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = stubgen.main(list(args))
        return rc, err.getvalue()

    def test_check_rejects_block_comment_markers(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = self.tree(tmp, "int f() {\n/* BEGIN SOLUTION */\nreturn 42;\n/* END SOLUTION */\n}\n")
            (root / "labs" / "ch01_lab" / "k.cu").write_text("int f() {\n/* BEGIN SOLUTION */\nreturn 42;\n/* END SOLUTION */\n}\n")
            rc, err = self.run_main("--check", "--root", tmp)
            self.assertEqual(rc, 2)
            self.assertIn("solutions/ch01_lab/k.cu:2: unsupported marker", err)
            rc, err = self.run_main("--root", tmp)
            self.assertEqual(rc, 2)

    def test_unknown_lab_name_fails_with_a_suggestion(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp)
            rc, err = self.run_main("--check", "--root", tmp, "ch01")
            self.assertEqual(rc, 2)
            self.assertIn("no lab named 'ch01'; did you mean ch01_lab?", err)
        rc, err = self.run_main("--check", "ch03_05")  # this repository
        self.assertEqual(rc, 2)
        self.assertIn("did you mean ch03_05_occupancy", err)

    def test_only_declared_sources_are_generated(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = self.tree(tmp)
            (root / "solutions" / "ch01_lab" / "helper.cuh").write_text("int h;\n")
            rc, err = self.run_main("--check", "--root", tmp)
            self.assertEqual(rc, 2)
            self.assertIn("solutions/ch01_lab/helper.cuh is not among the SOURCES", err)
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp, sources="k.cu other.cu")
            rc, err = self.run_main("--check", "--root", tmp)
            self.assertEqual(rc, 2)
            self.assertIn("solutions/ch01_lab/other.cu is missing", err)

    def test_check_detects_drift_and_generation_fixes_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = self.tree(tmp)
            (root / "labs" / "ch01_lab" / "k.cu").write_text("stale\n")
            self.assertEqual(self.run_main("--check", "--root", tmp)[0], 1)
            self.assertEqual(self.run_main("--root", tmp)[0], 0)
            self.assertEqual((root / "labs" / "ch01_lab" / "k.cu").read_text(), SKELETON)
            self.assertEqual(self.run_main("--check", "--root", tmp)[0], 0)
            self.assertEqual(self.run_main("--check", "--root", tmp, "ch01_lab")[0], 0)

    def test_student_release_without_solutions_is_fine(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(self.run_main("--check", "--root", tmp)[0], 0)


class LabinfoTest(unittest.TestCase):
    """tools/labinfo.py reads the one declaration of a lab's sources (cudalab_add_lab's SOURCES)."""

    def lab(self, tmp, cmake, name="ch01_lab"):
        (Path(tmp) / "tests" / name).mkdir(parents=True, exist_ok=True)
        (Path(tmp) / "tests" / name / "CMakeLists.txt").write_text(cmake)
        return labinfo.read_lab(name, Path(tmp))

    def test_sources_demo_and_separable(self):
        with tempfile.TemporaryDirectory() as tmp:
            lab = self.lab(tmp, '# SOURCES fake.cu (a comment)\ncudalab_add_lab(ch01_lab # the lab\n'
                                '  SOURCES a.cu "b c.cu"  # two files\n  DEMO demo.cu\n  GPU_TESTS t.cu\n'
                                '  SANITIZER_CHECKS "racecheck:x:clean"\n  SEPARABLE)\n')
            self.assertEqual(lab.sources, ("a.cu", "b c.cu"))
            self.assertEqual(lab.demo, "demo.cu")
            self.assertTrue(lab.separable)
            self.assertEqual(labinfo.lab_names(Path(tmp)), ["ch01_lab"])

    def test_bad_declarations_are_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            for cmake, message in (("cudalab_add_lab(ch01_lab DEMO demo.cu)\n", "declares no SOURCES"),
                                   ("add_subdirectory(x)\n", "found 0"),
                                   ("cudalab_add_lab(other SOURCES a.cu)\n", "first argument"),
                                   ("cudalab_add_lab(ch01_lab SOURCES ../x.cu)\n", "plain path"),
                                   ("cudalab_add_lab(ch01_lab SOURCES a.cu\n", "never closed")):
                with self.subTest(cmake=cmake), self.assertRaisesRegex(labinfo.LabError, message):
                    self.lab(tmp, cmake)
            with self.assertRaisesRegex(labinfo.LabError, "no lab named 'ch01'; did you mean ch01_lab"):
                labinfo.read_lab("ch01", Path(tmp))

    def test_every_lab_of_this_repository_declares_sources_that_exist(self):
        labs = labinfo.read_labs()
        self.assertEqual(len(labs), len(labinfo.lab_names()))
        self.assertTrue(labs)
        for lab in labs.values():
            for source in lab.sources:
                self.assertTrue((labinfo.ROOT / "labs" / lab.name / source).is_file(), f"{lab.name}/{source}")


if __name__ == "__main__":
    unittest.main()
