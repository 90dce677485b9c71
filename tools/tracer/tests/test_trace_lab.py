"""trace_lab.py (what `ctest -L trace` runs) with stand-in drivers: skip lines and exit status 77,
pictures from a trace, a failing driver, and the reference checks (--expect). No GPU needed.

    python3 -m unittest discover -s tools/tracer/tests -v     (ctest: tools.tracer_selftest)
"""
import contextlib
import gzip
import io
import os
import stat
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/tracer
sys.path.insert(0, HERE)
import trace_lab  # noqa: E402

FIXTURES = os.path.join(HERE, "tests", "fixtures")


class TraceLabTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.library = self.touch("libkernel_tracer.txt")  # not a library: ld.so ignores it
        self.patches = self.touch("tracer_patches.fatbin")

    def tearDown(self):
        self.tmp.cleanup()

    def touch(self, name):
        path = os.path.join(self.dir, name)
        open(path, "w").close()
        return path

    def driver(self, body):
        """A stand-in driver: a shell script; $TRACER_OUT is where the trace goes."""
        path = os.path.join(self.dir, "driver.sh")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def fixture_copy(self, lab):
        path = os.path.join(self.dir, f"{lab}.jsonl")
        with gzip.open(os.path.join(FIXTURES, f"h100-{lab}.jsonl.gz"), "rb") as f, open(path, "wb") as g:
            g.write(f.read())
        return path

    def run_lab(self, *extra, lab="ch03_10_reduction_divergence", driver=None):
        out = os.path.join(self.dir, "trace", lab)
        argv = ["--lab", lab, "--out", out, "--library", self.library, "--patches", self.patches, *extra]
        if driver:
            argv += ["--driver", driver]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            status = trace_lab.main(argv)
        return status, buf.getvalue(), out

    def test_skip_reason_from_configure(self):
        status, text, _ = self.run_lab("--skip", "sanitizer.h not found (looked in /x)")
        self.assertEqual((status, text), (77, "skipped: sanitizer.h not found (looked in /x)\n"))

    def test_no_gpu_is_a_skip(self):
        status, text, _ = self.run_lab(driver=self.driver(
            'echo "skipped: no usable NVIDIA GPU (no CUDA-capable device is detected)"; exit 77'))
        self.assertEqual(status, 77)
        self.assertEqual(text, "skipped: no usable NVIDIA GPU (no CUDA-capable device is detected)\n")

    def test_tracer_that_could_not_subscribe_is_a_skip(self):
        status, text, _ = self.run_lab(driver=self.driver(
            """echo '{"type":"skipped","reason":"sanitizerSubscribe failed"}' > "$TRACER_OUT"; exit 0"""))
        self.assertEqual(status, 77)
        self.assertIn("skipped: the tracer did not run: sanitizerSubscribe failed", text)

    def test_pictures_and_paths(self):
        trace = self.fixture_copy("ch03_10")
        status, text, out = self.run_lab("--expect", "--variant", "solutions",
                                         driver=self.driver(f'cp "{trace}" "$TRACER_OUT"'))
        self.assertEqual(status, 0, text)
        self.assertIn("trace.ch03_10_reduction_divergence: 3 kernel launches traced from solutions/", text)
        svgs = sorted(f for f in os.listdir(out) if f.endswith(".svg"))
        self.assertEqual(svgs, ["launch0_reduceNeighbored_lanes.svg", "launch0_reduceNeighbored_reduction.svg",
                                "launch1_reduceNeighboredLess_lanes.svg", "launch1_reduceNeighboredLess_reduction.svg",
                                "launch2_reduceInterleaved_lanes.svg", "launch2_reduceInterleaved_reduction.svg"])
        for svg in svgs:
            self.assertIn(os.path.join(out, svg), text)
        self.assertIn(f"text form: {os.path.join(out, 'summary.txt')}", text)
        self.assertIn("the trace shows what the reference kernels must do", text)

    def test_expect_fails_on_other_kernels(self):
        trace = self.fixture_copy("ch04_02")  # a ch04_02 trace is no reduction
        status, text, _ = self.run_lab("--expect", driver=self.driver(f'cp "{trace}" "$TRACER_OUT"'))
        self.assertEqual(status, 1)
        self.assertIn("NOT AS EXPECTED for the reference kernels: no launch 0 of reduceNeighbored", text)

    def test_a_student_trace_is_compared_with_the_reference_without_failing(self):
        # the H100 trace of reduceNeighboredLess's code submitted as reduceInterleaved: right sums
        wrong = os.path.join(self.dir, "wrong.jsonl")
        with gzip.open(os.path.join(FIXTURES, "h100-ch03_10-neighboredless_as_interleaved.jsonl.gz"), "rb") as f:
            wrong_lines = f.read()
        with gzip.open(os.path.join(FIXTURES, "h100-ch03_10.jsonl.gz"), "rb") as f:
            reference_lines = f.read()
        first_two = b"".join(l for l in reference_lines.splitlines(keepends=True)
                             if b'"l":2' not in l and b'"id":2' not in l)
        with open(wrong, "wb") as g:
            g.write(first_two + wrong_lines)
        status, text, _ = self.run_lab(driver=self.driver(f'cp "{wrong}" "$TRACER_OUT"'))
        self.assertEqual(status, 0, text)
        self.assertIn("where your kernels' trace differs from the reference kernels' (not graded", text)
        self.assertIn("    reduceInterleaved sectors per store: [[8, 8, 8, 4, 2, 1], [1]], expected [[4, 2, 1, 1, 1, 1], [1]]",
                      text)
        status, text, _ = self.run_lab(driver=self.driver(f'cp "{self.fixture_copy("ch03_10")}" "$TRACER_OUT"'))
        self.assertEqual(status, 0, text)
        self.assertIn("your kernels' trace shows what the reference kernels' does", text)
        # a lab without reference facts prints neither, and --expect does not apply to it
        for extra in ((), ("--expect",)):
            status, text, _ = self.run_lab(*extra, lab="ch03_01_warps",
                                           driver=self.driver(f'cp "{self.fixture_copy("ch03_01")}" "$TRACER_OUT"'))
            self.assertEqual(status, 0, text)
            self.assertNotIn("reference kernels", text)

    def test_failing_driver_fails_but_still_draws(self):
        trace = self.fixture_copy("ch03_10")
        status, text, out = self.run_lab(driver=self.driver(
            f'cp "{trace}" "$TRACER_OUT"; echo "reduceNeighbored: sum 7, expected 768" >&2; exit 1'))
        self.assertEqual(status, 1)
        self.assertIn("the driver exited with status 1: ", text)
        self.assertIn("reduceNeighbored: sum 7, expected 768", text)
        self.assertTrue(os.path.exists(os.path.join(out, "launch0_reduceNeighbored_lanes.svg")))

    def test_stale_pictures_are_removed(self):
        out = os.path.join(self.dir, "trace", "ch03_10_reduction_divergence")
        os.makedirs(out)
        open(os.path.join(out, "launch9_old_lanes.svg"), "w").close()
        status, text, _ = self.run_lab(driver=self.driver("exit 0"))
        self.assertEqual(status, 1)
        self.assertIn("no trace was written (the driver exited with status 0)", text)
        self.assertFalse(os.path.exists(os.path.join(out, "launch9_old_lanes.svg")))

    def test_no_launch_recorded_fails(self):
        status, text, _ = self.run_lab(driver=self.driver(': > "$TRACER_OUT"'))
        self.assertEqual(status, 1)
        self.assertIn("nothing was recorded", text)

    def test_a_trace_cut_short_fails_with_a_message(self):
        driver = self.driver('echo "{cut short" > "$TRACER_OUT"; exit 139')
        status, text, _ = self.run_lab(driver=driver)
        self.assertEqual(status, 1)
        self.assertIn("cannot be read", text)
        self.assertIn("status 139", text)

    def test_missing_driver_says_build_first(self):
        status, text, _ = self.run_lab(driver=os.path.join(self.dir, "nope"))
        self.assertEqual(status, 1)
        self.assertIn("is missing: build first", text)

    def test_a_tracer_that_does_not_build_fails_this_test_only_with_the_compiler_output(self):
        driver = self.driver('echo "should not run" >&2; exit 3')
        status, out, _ = self.run_lab("--build-dir", os.path.join(self.dir, "no-such-build"),
                                      "--targets", "kernel_tracer", driver=driver)
        self.assertEqual(status, 1)
        self.assertIn("building the tracer failed", out)
        self.assertIn("your labs' build is not affected", out)
        self.assertNotIn("should not run", out)


if __name__ == "__main__":
    unittest.main()
