"""Self-test of tools/staff/mutants.py --check (no GPU, no build): a mutant whose edits no longer apply to
the reference solution, that changes nothing, or whose mutant.json is malformed is reported.
Skipped where tools/staff/mutants.py is absent (the student release)."""
import contextlib
import io
import json
import tempfile
import unittest
import unittest.mock
import xml.etree.ElementTree as ET
from pathlib import Path

try:
    import mutants
except ImportError:  # the student release has no mutants
    mutants = None

REFERENCE = """\
#include "lab.cuh"
__global__ void slow(int *out) {
  // BEGIN SOLUTION
  out[threadIdx.x] = 1;
  // STUB: // TODO: write 1
  // END SOLUTION
}
__global__ void fast(int *out) {
  // BEGIN SOLUTION
  out[threadIdx.x] = 2;
  out[threadIdx.x] += 0;
  // STUB: // TODO: write 2
  // END SOLUTION
}
"""


@unittest.skipIf(mutants is None, "tools/staff/mutants.py is not part of this tree")
class CheckTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        for d in ("solutions/ch01_lab", "labs/ch01_lab", "tests/ch01_lab"):
            (self.root / d).mkdir(parents=True)
        (self.root / "solutions/ch01_lab/k.cu").write_text(REFERENCE)
        (self.root / "labs/ch01_lab/k.cu").write_text("// skeleton\n")
        (self.root / "tests/ch01_lab/CMakeLists.txt").write_text("cudalab_add_lab(ch01_lab SOURCES k.cu)\n")

    def tearDown(self):
        self.tmp.cleanup()

    def mutant(self, name, spec, files=None):
        d = self.root / "tests" / "mutants" / "ch01_lab" / name
        d.mkdir(parents=True)
        (d / "mutant.json").write_text(spec if isinstance(spec, str) else json.dumps(spec))
        for fname, text in (files or {}).items():
            (d / fname).write_text(text)
        return d

    def problems(self, name):
        return mutants.check_mutant("ch01_lab", self.root / "tests" / "mutants" / "ch01_lab" / name, self.root)[0]

    def test_edit_that_applies_is_fine_and_markers_are_gone(self):
        d = self.mutant("ok", {"expect": "lose", "why": "writes 3",
                               "edits": [{"file": "k.cu", "old": "= 1;", "new": "= 3;"}]})
        problems, files = mutants.check_mutant("ch01_lab", d, self.root)
        self.assertEqual(problems, [])
        text = next(iter(files.values())).decode()
        self.assertIn("out[threadIdx.x] = 3;", text)
        self.assertNotIn("BEGIN SOLUTION", text)
        self.assertNotIn("STUB", text)

    def test_old_text_gone_or_twice_is_reported(self):
        self.mutant("gone", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "= 7;", "new": "= 3;"}]})
        self.mutant("twice", {"expect": "lose", "why": "w",
                              "edits": [{"file": "k.cu", "old": "out[threadIdx.x]", "new": "out[0]"}]})
        self.assertRegex(" ".join(self.problems("gone")), "occurs 0 times")
        self.assertRegex(" ".join(self.problems("twice")), "occurs 3 times")

    def test_marker_lines_do_not_count_as_text(self):
        self.mutant("stub", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "TODO: write 1", "new": ""}]})
        self.assertRegex(" ".join(self.problems("stub")), "occurs 0 times")

    def test_copy_body_of_a_missing_kernel_is_reported(self):
        self.mutant("copy_ok", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "copy_body_of": "slow", "into": "fast"}]})
        self.mutant("copy_bad", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "copy_body_of": "slower", "into": "fast"}]})
        self.assertEqual(self.problems("copy_ok"), [])
        self.assertRegex(" ".join(self.problems("copy_bad")), "no kernel .*slower")

    def test_unknown_file_no_op_and_malformed_specs_are_reported(self):
        self.mutant("nofile", {"expect": "lose", "why": "w", "edits": [{"file": "gone.cu", "old": "a", "new": "b"}]})
        self.mutant("noop", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "= 1;", "new": "= 1;"}]})
        self.mutant("expect", {"expect": "maybe", "why": "w", "edits": []})
        self.mutant("nowhy", {"expect": "full", "edits": [{"file": "k.cu", "old": "= 1;", "new": "= 3;"}]})
        self.mutant("json", "{not json")
        self.mutant("empty", {"expect": "full", "why": "w"})
        self.assertRegex(" ".join(self.problems("nofile")), "no file solutions/ch01_lab/gone.cu")
        self.assertRegex(" ".join(self.problems("noop")), "change nothing")
        self.assertRegex(" ".join(self.problems("expect")), "expect")
        self.assertRegex(" ".join(self.problems("nowhy")), "why")
        self.assertRegex(" ".join(self.problems("json")), "not valid JSON")
        self.assertRegex(" ".join(self.problems("empty")), "nothing to grade")

    def test_whole_files_must_be_lab_files(self):
        self.mutant("whole", {"expect": "full", "why": "w"}, {"k.cu": "int x;\n"})
        self.mutant("stray", {"expect": "full", "why": "w"}, {"extra.cu": "int x;\n"})
        self.assertEqual(self.problems("whole"), [])
        self.assertRegex(" ".join(self.problems("stray")), "extra.cu is not a declared source of ch01_lab")

    def test_check_reports_every_bad_mutant_and_fails(self):
        self.mutant("a_ok", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "= 1;", "new": "= 3;"}]})
        self.mutant("b_gone", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "= 7;", "new": "= 3;"}]})
        out = io.StringIO()
        self.assertEqual(mutants.check([], root=self.root, out=out), 1)
        self.assertIn("ok   ch01_lab/a_ok", out.getvalue())
        self.assertIn("FAIL ch01_lab/b_gone", out.getvalue())
        self.assertIn("1 of 2 apply", out.getvalue())
        out = io.StringIO()
        self.assertEqual(mutants.check(["ch01_lb"], root=self.root, out=out), 2)  # not a lab
        self.assertIn("no lab named 'ch01_lb'; did you mean ch01_lab?", out.getvalue())
        (self.root / "tests/ch02_other").mkdir()
        (self.root / "tests/ch02_other/CMakeLists.txt").write_text("cudalab_add_lab(ch02_other SOURCES o.cu)\n")
        out = io.StringIO()
        self.assertEqual(mutants.check(["ch02_other"], root=self.root, out=out), 1)  # a lab without mutants
        self.assertIn("no mutants found for ch02_other", out.getvalue())
        (self.root / "tests/mutants/ch01_lab/b_gone").rename(self.root / "tests/mutants/ch01_lab/b_fixed")
        (self.root / "tests/mutants/ch01_lab/b_fixed/mutant.json").write_text(
            json.dumps({"expect": "full", "why": "w", "edits": [{"file": "k.cu", "old": "= 2;", "new": "= 1 + 1;"}]}))
        self.assertEqual(mutants.check(["ch01_lab"], root=self.root, out=io.StringIO()), 0)

    def test_check_can_take_only_the_correct_or_only_the_wrong_variants(self):
        self.mutant("a_wrong", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "= 7;", "new": "= 3;"}]})
        self.mutant("b_right", {"expect": "full", "why": "w", "edits": [{"file": "k.cu", "old": "= 1;", "new": "= 2 - 1;"}]})
        out = io.StringIO()
        self.assertEqual(mutants.check([], root=self.root, out=out, expect="full"), 0)  # the broken wrong one is left out
        self.assertIn("1 of 1 apply", out.getvalue())
        self.assertNotIn("a_wrong", out.getvalue())
        out = io.StringIO()
        self.assertEqual(mutants.check([], root=self.root, out=out, expect="lose"), 1)
        self.assertIn("FAIL ch01_lab/a_wrong", out.getvalue())

    def test_block_comment_markers_in_the_reference_are_reported(self):
        (self.root / "solutions/ch01_lab/k.cu").write_text("int f() {\n  /* BEGIN SOLUTION */\n  return 1;\n}\n")
        self.mutant("m", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "return 1;", "new": "return 2;"}]})
        self.assertRegex(" ".join(self.problems("m")), r"solutions/ch01_lab/k.cu:2: unsupported marker")

    def test_unknown_lab_names_exit_non_zero(self):
        for argv, hint in ((["--check", "ch03_5"], "did you mean ch03_05_occupancy"),
                           (["reduction"], "did you mean ch03_10_reduction_divergence")):
            text = io.StringIO()
            with contextlib.redirect_stderr(text), contextlib.redirect_stdout(text):
                rc = mutants.main(argv)
            self.assertEqual(rc, 2, argv)
            self.assertIn("no lab named", text.getvalue())
            self.assertIn(hint, text.getvalue())

    def test_only_names_that_match_no_mutant_exit_non_zero(self):
        text = io.StringIO()
        with contextlib.redirect_stderr(text), contextlib.redirect_stdout(text):
            rc = mutants.main(["ch03_10_reduction_divergence", "--only", "neighboredless_as_interleaved",
                               "no_such_mutant", "--out", str(self.root / "out")])
        self.assertEqual(rc, 2)
        self.assertIn("--only names no mutant of ch03_10_reduction_divergence: no_such_mutant", text.getvalue())
        self.assertFalse((self.root / "out").exists())  # nothing built, nothing written

    def test_compile_command_uses_rdc_only_for_separable_labs(self):
        src = Path("/tmp/x/ch01_lab/k.cu")
        cmd = mutants.nvcc_command("nvcc", src, "ch01_lab", src.parent, self.root)
        self.assertIn("-arch=sm_75", cmd)
        self.assertIn(str(self.root / "common" / "include"), cmd)
        self.assertNotIn("-rdc=true", cmd)
        (self.root / "tests/ch01_lab/CMakeLists.txt").write_text("cudalab_add_lab(ch01_lab\n  SOURCES k.cu\n  SEPARABLE)\n")
        self.assertIn("-rdc=true", mutants.nvcc_command("nvcc", src, "ch01_lab", src.parent, self.root))


if __name__ == "__main__":
    unittest.main()


@unittest.skipIf(mutants is None, "tools/staff/mutants.py is not part of this tree")
class GpuLockTest(unittest.TestCase):
    """Correctness runs of at most --gpu-labs labs share the GPU; a performance run has it alone."""

    def run_holders(self, lock, kinds):
        import threading
        import time
        state = {"shared": 0, "max_shared": 0, "exclusive_with_others": False, "exclusive": 0}
        guard = threading.Lock()

        def worker(kind):
            ctx = lock.shared() if kind == "shared" else lock.exclusive()
            with ctx:
                with guard:
                    if kind == "shared":
                        state["shared"] += 1
                        state["max_shared"] = max(state["max_shared"], state["shared"])
                        if state["exclusive"]:
                            state["exclusive_with_others"] = True
                    else:
                        state["exclusive"] += 1
                        if state["shared"] or state["exclusive"] > 1:
                            state["exclusive_with_others"] = True
                time.sleep(0.2)
                with guard:
                    state["shared" if kind == "shared" else "exclusive"] -= 1

        threads = [threading.Thread(target=worker, args=(k,)) for k in kinds]
        for t in threads:
            t.start()
        self.join_all(threads)
        return state

    def join_all(self, threads):
        """Waits for every holder; fails if one never got the lock."""
        for t in threads:
            t.join(timeout=10)
        self.assertFalse(any(t.is_alive() for t in threads), "a holder never got the lock")

    def test_at_most_max_shared_labs_at_once(self):
        state = self.run_holders(mutants.GpuLock(2), ["shared"] * 8)
        self.assertEqual(state["max_shared"], 2)

    def test_no_limit_when_zero(self):
        state = self.run_holders(mutants.GpuLock(0), ["shared"] * 6)
        self.assertGreater(state["max_shared"], 2)

    def test_exclusive_runs_alone(self):
        state = self.run_holders(mutants.GpuLock(3), ["shared", "exclusive", "shared", "shared", "exclusive", "shared"])
        self.assertFalse(state["exclusive_with_others"])

    def test_exclusive_runs_alone_in_batches(self):
        state = self.run_holders(mutants.GpuLock(2, batch=2),
                                 ["shared", "exclusive", "shared", "shared", "exclusive", "shared", "exclusive"])
        self.assertFalse(state["exclusive_with_others"])

    def order_of(self, lock, script):
        """Runs holders in the order of @p script, each started once the one before it waits or holds
        (("shared"|"exclusive", name), ...); the first holds the lock until every other has started.
        Returns the names in the order they got the lock."""
        import threading
        import time
        got, guard, release = [], threading.Lock(), threading.Event()

        def worker(kind, name, first):
            with (lock.shared() if kind == "shared" else lock.exclusive()):
                with guard:
                    got.append(name)
                if first:
                    release.wait(5)
                else:
                    time.sleep(0.05)

        threads = []
        for i, (kind, name) in enumerate(script):
            threads.append(threading.Thread(target=worker, args=(kind, name, i == 0)))
            threads[-1].start()
            time.sleep(0.1)
        release.set()
        self.join_all(threads)
        return got

    def test_without_batch_an_exclusive_request_goes_first(self):
        order = self.order_of(mutants.GpuLock(1), [("shared", "a"), ("exclusive", "w1"), ("shared", "b")])
        self.assertEqual(order, ["a", "w1", "b"])

    def test_batch_lets_correctness_runs_pass_until_it_is_full(self):
        order = self.order_of(mutants.GpuLock(1, batch=2), [("shared", "a"), ("exclusive", "w1"), ("shared", "b")])
        self.assertEqual(order, ["a", "b", "w1"])  # one waiting of a batch of 2: b goes first
        order = self.order_of(mutants.GpuLock(1, batch=2),
                              [("shared", "a"), ("exclusive", "w1"), ("exclusive", "w2"), ("shared", "b")])
        self.assertEqual(order[0], "a")
        self.assertEqual(sorted(order[1:3]), ["w1", "w2"])  # a full batch: both before b
        self.assertEqual(order[3], "b")

    def test_seconds_idle_shared_alone(self):
        import time
        lock = mutants.GpuLock(2, batch=2)
        with lock.shared():
            time.sleep(0.2)
        time.sleep(0.1)
        with lock.exclusive():
            time.sleep(0.2)
        spent = lock.seconds()
        self.assertGreaterEqual(spent["shared"], 0.19)
        self.assertGreaterEqual(spent["alone"], 0.19)
        self.assertGreaterEqual(spent["idle"], 0.09)


@unittest.skipIf(mutants is None, "tools/staff/mutants.py is not part of this tree")
class MergeJunitTest(unittest.TestCase):
    def test_cases_of_every_run_and_the_sum_of_their_times(self):
        with tempfile.TemporaryDirectory() as tmp:
            parts = [Path(tmp, f"part{i}.xml") for i in range(3)]
            for i, (part, seconds) in enumerate(zip(parts[:2], ("3", "4.5"))):
                part.write_text(f'<testsuite time="{seconds}"><testcase name="t{i}" time="1"/></testsuite>')
            out = Path(tmp, "junit.xml")
            mutants.merge_junit(parts, out)  # parts[2] was never written: left out
            root = ET.parse(out).getroot()
            self.assertEqual([c.get("name") for c in root.iter("testcase")], ["t0", "t1"])
            self.assertEqual(root.get("time"), "7.5")


@unittest.skipIf(mutants is None, "tools/staff/mutants.py is not part of this tree")
class HostSeedsTest(unittest.TestCase):
    """grade_lab(host_only, host_seeds): a kill that some random inputs miss is reported."""

    def grade(self, killed_by_seed: dict) -> tuple[dict, str, list]:
        runs = []

        def run(cmd, log, env=None, **kwargs):
            runs.append((env or {}).get("CUDALAB_SEED", "own"))
            return 0

        def grade_step(build, junit, log):
            lost = killed_by_seed[runs[-1]]
            test = {"lab": "lab", "where": "host", "status": "failed" if lost else "passed", "max_points": 1}
            Path(build, "grade", "summary.json").write_text(json.dumps({"tests": [test]}))
            return f"table of run {runs[-1]}"

        with tempfile.TemporaryDirectory() as tmp, \
                unittest.mock.patch.object(mutants.grade_submission, "run", run), \
                unittest.mock.patch.object(mutants.grade_submission, "grade_step", grade_step):
            summary, table, _ = mutants.grade_lab(Path(tmp), Path(tmp), "lab", "lose", mutants.GpuLock(), 1, 1,
                                                  False, host_first=True, host_only=True, host_seeds=(7, 8))
        return summary, table, runs

    def test_a_kill_on_every_seed_is_a_kill(self):
        summary, table, runs = self.grade({"own": True, "7": True, "8": True})
        self.assertEqual(summary["tests"][0]["status"], "failed")
        self.assertEqual(runs[1:], ["own", "7", "8"])  # runs[0]: the build

    def test_a_seed_that_misses_the_kill_is_the_result(self):
        summary, table, runs = self.grade({"own": True, "7": False, "8": True})
        self.assertEqual(summary["tests"][0]["status"], "passed")
        self.assertIn("with CUDALAB_SEED=7 the host tests do not kill it", table)


@unittest.skipIf(mutants is None, "tools/staff/mutants.py is not part of this tree")
class RecordTest(unittest.TestCase):
    """graded.json: a mutant's entry counts only for the mutant and the grader it was made with."""
    setUp, tearDown, mutant = CheckTest.setUp, CheckTest.tearDown, CheckTest.mutant

    def test_only_a_grade_that_saw_a_gpu_is_recorded(self):
        gpu = "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs), CUDA runtime 13.0, driver 13.0"
        self.assertTrue(mutants.ran_on_gpu({"device": gpu}))
        # The no-GPU line names "sm_75" in its reason: a machine without a GPU records nothing.
        none = ("no GPU (no usable CUDA GPU on this machine (cudaGetDeviceCount: cudaErrorInsufficientDriver); GPU "
                "tests run on a machine with an NVIDIA GPU (sm_75 or newer)); CUDA runtime 13.0")
        self.assertFalse(mutants.ran_on_gpu({"device": none}))
        self.assertFalse(mutants.ran_on_gpu({"device": "GPU query failed"}))
        self.assertFalse(mutants.ran_on_gpu({}))

    def test_without_a_gpu_only_a_host_test_that_failed_is_a_kill(self):
        def test(where, status, points=2, lab="ch01_lab"):
            return {"lab": lab, "where": where, "status": status, "max_points": points, "name": f"{where}.{status}"}
        host_fail = test("host", "failed")
        # GPU tests skipped, a host test that did not build or is not started, one worth nothing, another
        # lab's: no kill
        for tests in ([test("gpu", "skipped"), test("host", "passed")], [test("host", "not built")],
                      [test("host", "not started")],
                      [test("host", "failed", points=0)], [test("host", "failed", lab="ch02_other")]):
            self.assertIsNone(mutants.host_took_points({"tests": tests}, "ch01_lab"), tests)
        self.assertIs(mutants.host_took_points({"tests": [test("gpu", "skipped"), host_fail]}, "ch01_lab"), host_fail)
        self.assertIsNone(mutants.host_took_points(None, "ch01_lab"))
        # a host program that built but could not list its tests (the lab's code ended it first): a kill
        unlisted = dict(test("host", "not built"), reason="ch01_lab_correctness_host cannot list its tests (Subprocess "
                        "aborted): does the lab's code crash when the program starts (...)?")
        self.assertIs(mutants.host_took_points({"tests": [unlisted]}, "ch01_lab"), unlisted)
        refused = dict(test("host", "not built"), reason="did not build: lab.cu: error: calls fopen: the lab's code may "
                       "not ... (the tests run it, cmake/CheckLabSymbols.cmake says why)")
        self.assertIs(mutants.host_took_points({"tests": [refused]}, "ch01_lab"), refused)

    def state(self, name):
        lab = "ch01_lab"
        return mutants.record_state(lab, self.root / "tests" / "mutants" / lab / name, mutants.load_record(lab, self.root),
                                    mutants.grader_sha(lab, self.root), self.root)

    def record(self, name, ok=True):
        lab = "ch01_lab"
        d = self.root / "tests" / "mutants" / lab / name
        spec = mutants.load_spec(d)
        entries = mutants.load_record(lab, self.root)
        entries[name] = {"sha": mutants.mutant_sha(spec, mutants.mutant_files(lab, d, spec, self.root)),
                         "grader": mutants.grader_sha(lab, self.root), "ok": ok}
        mutants.save_record(lab, entries, self.root)

    def test_current_missing_and_wrong(self):
        edit = {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "= 2;", "new": "= 3;"}]}
        self.mutant("m1", edit)
        self.mutant("m2", dict(edit, edits=[{"file": "k.cu", "old": "= 1;", "new": "= 3;"}]))
        self.assertEqual(self.state("m1"), "missing")
        self.record("m1")
        self.record("m2", ok=False)
        self.assertEqual((self.state("m1"), self.state("m2")), ("behaves", "wrong"))
        out = io.StringIO()
        self.assertEqual(mutants.status([], self.root, out), 1)
        self.assertIn("2 mutants, 1 behave as graded on this tree, 1 do not, 0 not graded", out.getvalue())

    def test_a_change_to_the_tests_the_lab_or_the_mutant_makes_it_missing(self):
        edit = {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "= 2;", "new": "= 3;"}]}
        d = self.mutant("m1", edit)
        for change in (lambda: (self.root / "tests/ch01_lab/test.cpp").write_text("// a new check\n"),
                       lambda: (self.root / "labs/ch01_lab/k.cuh").write_text("// a header\n"),
                       lambda: (d / "mutant.json").write_text(json.dumps(dict(edit, expect="full"))),
                       lambda: (self.root / "solutions/ch01_lab/k.cu").write_text(REFERENCE.replace("+= 0", "+= 1"))):
            self.record("m1")
            self.assertEqual(self.state("m1"), "behaves")
            change()
            self.assertEqual(self.state("m1"), "missing")
        out = io.StringIO()
        self.assertEqual(mutants.status([], self.root, out), 1)

    def test_an_unreadable_record_counts_as_not_graded_with_a_message(self):
        self.mutant("m1", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "= 2;", "new": "= 3;"}]})
        (self.root / "tests/mutants/ch01_lab" / mutants.RECORD_NAME).write_text("{not json")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(self.state("m1"), "missing")
        self.assertIn("cannot be read", err.getvalue())

    def test_every_mutant_behaving_is_status_0(self):
        self.mutant("m1", {"expect": "lose", "why": "w", "edits": [{"file": "k.cu", "old": "= 2;", "new": "= 3;"}]})
        self.record("m1")
        self.assertEqual(mutants.status([], self.root, io.StringIO()), 0)
