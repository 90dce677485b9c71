"""Self-test of tools/stubgen.py (run by ctest as tools.stubgen_selftest)."""
import tempfile
import unittest
from pathlib import Path

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

    def test_check_detects_drift_and_generation_fixes_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "solutions" / "lab1").mkdir(parents=True)
            (root / "solutions" / "lab1" / "k.cu").write_text(REFERENCE)
            (root / "labs" / "lab1").mkdir(parents=True)
            (root / "labs" / "lab1" / "k.cu").write_text("stale\n")
            self.assertEqual(stubgen.main(["--check", "--root", tmp]), 1)
            self.assertEqual(stubgen.main(["--root", tmp]), 0)
            self.assertEqual((root / "labs" / "lab1" / "k.cu").read_text(), SKELETON)
            self.assertEqual(stubgen.main(["--check", "--root", tmp]), 0)

    def test_student_release_without_solutions_is_fine(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(stubgen.main(["--check", "--root", tmp]), 0)


if __name__ == "__main__":
    unittest.main()
