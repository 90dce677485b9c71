"""tools/staff/new_lab.py: the files of a new lab, refusals, and that the other tools accept the result.

    python3 -m unittest -v test_new_lab      (from tools/; ctest runs it as tools.new_lab_selftest)

That the new lab builds in both variants, is graded and selected by `ctest -L` is checked by .ci/run.
"""
from __future__ import annotations

import json
import shutil
import tempfile
import unittest
from pathlib import Path

import mutants
import new_lab
import stubgen
import test_readmes

ROOT = Path(__file__).resolve().parents[2]
LAB = "ch99_01_scale_example"


class NewLab(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        shutil.copytree(ROOT / "cmake", self.root / "cmake")
        (self.root / "tests").mkdir()

    def tearDown(self):
        self.tmp.cleanup()

    def test_writes_a_lab_the_tools_accept(self):
        written = new_lab.create(LAB, "Scaling an array", "an example", self.root)
        self.assertIn(Path("labs", LAB, "scale_example.cu"), written)
        self.assertIn(Path("solutions", LAB, "scale_example.cu"), written)
        for rel in written:
            self.assertTrue((self.root / rel).is_file(), rel)
        # The committed skeleton is what stubgen makes of the solution, with no solution code in it.
        plan = stubgen.plan(self.root, [LAB])
        skeleton = self.root / "labs" / LAB / "scale_example.cu"
        self.assertEqual(skeleton.read_text(), plan[skeleton])
        self.assertNotIn("(n + block - 1) / block", skeleton.read_text())
        self.assertNotIn("SOLUTION", skeleton.read_text())
        # grading.json's total is the sum of its tests' points (2 host + 2 GPU tests, 2 points each).
        grading = json.loads((self.root / "tests" / LAB / "grading.json").read_text())
        self.assertEqual(grading["total_points"], 8)
        # The README has the one outline and names only tests that exist.
        text = (self.root / "labs" / LAB / "README.md").read_text()
        self.assertEqual(test_readmes.structure_problems(LAB, text, grading["total_points"]), [])
        self.assertEqual(test_readmes.missing_tests(LAB, text, self.root), [])
        # The first mutant applies and changes the reference.
        problems, files = mutants.check_mutant(LAB, self.root / "tests" / "mutants" / LAB / "blocks_for_rounds_down",
                                               self.root)
        self.assertEqual(problems, [])
        self.assertTrue(files)

    def test_refuses_a_bad_name(self):
        for name in ("Bad", "ch5_1_x", "ch05_01", "ch05_01_Upper", "ch05_01_x-y", "../ch05_01_x"):
            with self.assertRaises(new_lab.NewLabError, msg=name):
                new_lab.create(name, "t", "s", self.root)
        self.assertEqual(list((self.root / "tests").iterdir()), [])

    def test_never_writes_over_a_lab(self):
        (self.root / "solutions" / LAB).mkdir(parents=True)
        (self.root / "solutions" / LAB / "mine.cu").write_text("keep me")
        with self.assertRaises(new_lab.NewLabError) as e:
            new_lab.create(LAB, "t", "s", self.root)
        self.assertIn(f"solutions/{LAB}", str(e.exception))
        self.assertFalse((self.root / "labs" / LAB).exists())
        self.assertEqual((self.root / "solutions" / LAB / "mine.cu").read_text(), "keep me")

    def test_command_line(self):
        self.assertEqual(new_lab.main([LAB, "--root", str(self.root)]), 0)
        self.assertEqual(new_lab.main([LAB, "--root", str(self.root)]), 2)  # exists now


if __name__ == "__main__":
    unittest.main()
