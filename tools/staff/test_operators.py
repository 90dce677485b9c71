"""Self-test of tools/staff/operators.py (no GPU, no build): each operator finds the sites it
should in a small reference file and none it should not, mutants have stable ids and hashes,
only solution regions are mutated, and the ledger's bookkeeping (what needs grading, the score,
the checks of equivalent survivors) works. Also: every operator applies somewhere in the
repository's own labs, and every lab's ledger is well formed. Skipped where tools/staff is absent
(the student release)."""
import json
import tempfile
import unittest
from pathlib import Path

try:
    import operators
except ImportError:  # the student release has no tools/staff
    operators = None

REFERENCE = """\
/// @file lab.cu
#include "lab.cuh"

__global__ void slow(int *data, int *out, unsigned int n) {
  // BEGIN SOLUTION
  unsigned int tid = threadIdx.x;
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s && tid + s < n) data[tid] += data[tid + s];  // "a < b" in a comment is no site
    __syncthreads();
  }
  if (tid == 0) atomicAdd(out, data[0]);
  // STUB: // TODO: reduce
  // END SOLUTION
}

__global__ void fast(int *data, int *out, unsigned int n) {
  // BEGIN SOLUTION
  std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = data[i];
  __syncwarp();
  // STUB: // TODO: copy
  // END SOLUTION
}

__global__ void given(int *data, int *out, unsigned int n) {
  if (threadIdx.x < n) __syncthreads();
}

cudaError_t launch(int *data, int *out, unsigned int n) {
  // BEGIN SOLUTION
  slow<<<(n + 255) / 256, 256>>>(data, out, n);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  return cudaDeviceSynchronize();
  // STUB: return cudaErrorNotSupported;
  // END SOLUTION
}

double model(double a, double b) {
  // BEGIN SOLUTION
  return a * b + a / 2;
  // STUB: return 0;
  // END SOLUTION
}

bool check(const int *limits, const unsigned *dims) {
  // BEGIN SOLUTION
  for (int i = 0; i < 3; ++i)
    if (dims[i] == 0 || dims[i] > unsigned(limits[i])) return false;
  return true;
  // STUB: return false;
  // END SOLUTION
}
"""


SAME_CODE_REFERENCE = """\
__global__ void nest(int size, int *out) {
  // BEGIN SOLUTION
  if (size <= 1) return;
  const int half = size >> 1;
  if (threadIdx.x == 0 && half > 0) out[0] = half;
  if (threadIdx.x < 4) out[threadIdx.x + 1] = size;
  // STUB: // TODO
  // END SOLUTION
}
"""


def find_nvcc():
    import shutil
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    return nvcc if Path(nvcc).is_file() else None


@unittest.skipIf(operators is None or find_nvcc() is None, "needs tools/staff/operators.py and nvcc")
class SameCodeTest(unittest.TestCase):
    """--same-code: a mutant nvcc compiles to the reference's own PTX is recorded, and needs no
    grading; one that changes the code is left for the grader."""

    def test_same_code(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for d in ("solutions/ch01_lab", "labs/ch01_lab", "tests/ch01_lab"):
                (root / d).mkdir(parents=True)
            (root / "solutions/ch01_lab/lab.cu").write_text(SAME_CODE_REFERENCE)
            (root / "tests/ch01_lab/CMakeLists.txt").write_text("cudalab_add_lab(ch01_lab\n  SOURCES lab.cu)\n")
            self.assertEqual(operators.same_code("ch01_lab", find_nvcc(), root, report=lambda _: None), 2)
            ledger = operators.load_ledger("ch01_lab", root)
            # half >= 1 after the early return, so `half >= 0` and dropping `half > 0` change nothing;
            # `threadIdx.x <= 4` writes one more element.
            self.assertEqual({k: v["result"] for k, v in ledger["mutants"].items()},
                             {"relational:nest:2": "same_code", "drop_operand:nest:2": "same_code"})
            ms = {m.id: m for m in operators.mutants_of("ch01_lab", root)}
            self.assertFalse(operators.needs_grading(ms["relational:nest:2"], ledger, "t"))
            self.assertTrue(operators.needs_grading(ms["relational:nest:3"], ledger, "t"))
            self.assertEqual(operators.score("ch01_lab", root)["equivalent"], 2)
            self.assertEqual(operators.check_ledger("ch01_lab", root), [])


@unittest.skipIf(operators is None, "tools/staff/operators.py is not part of this tree")
class OperatorTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        for d in ("solutions/ch01_lab", "labs/ch01_lab", "tests/ch01_lab"):
            (self.root / d).mkdir(parents=True)
        (self.root / "solutions/ch01_lab/lab.cu").write_text(REFERENCE)
        (self.root / "tests/ch01_lab/CMakeLists.txt").write_text(
            "cudalab_add_lab(ch01_lab\n  SOURCES lab.cu\n  GPU_TESTS test.cu)\n")
        (self.root / "tests/ch01_lab/grading.json").write_text('{"lab": "ch01_lab", "total_points": 1, "points": []}')
        self.mutants = operators.mutants_of("ch01_lab", self.root)
        self.by_op = {}
        for m in self.mutants:
            self.by_op.setdefault(m.operator, []).append(m)

    def tearDown(self):
        self.tmp.cleanup()

    def text(self, m):
        return m.files[next(iter(m.files))].decode()

    def ids(self, op):
        return [m.id for m in self.by_op.get(op, [])]

    def test_functions_and_kinds(self):
        src = operators.load_source(self.root / "solutions/ch01_lab/lab.cu", self.root)
        self.assertEqual([(f.name, f.kind) for f in src.functions],
                         [("slow", "kernel"), ("fast", "kernel"), ("given", "kernel"), ("launch", "host"),
                          ("model", "host"), ("check", "host")])
        self.assertNotIn("BEGIN SOLUTION", src.text)
        self.assertNotIn("STUB", src.text)

    def test_barriers_and_early_exit(self):
        self.assertEqual(self.ids("no_block_barrier"), ["no_block_barrier:slow:1"])  # not in `given`
        self.assertIn("(void)0;\n", self.text(self.by_op["no_block_barrier"][0]))
        self.assertEqual(self.ids("no_warp_barrier"), ["no_warp_barrier:fast:1"])
        self.assertEqual(self.ids("early_exit"), ["early_exit:slow:1"])  # fast has no block barrier
        self.assertIn("  if (blockIdx.x * blockDim.x + threadIdx.x >= n) return;\n  unsigned int tid",
                      self.text(self.by_op["early_exit"][0]))

    def test_relational_sites_are_conditions_only(self):
        afters = [m.after for m in self.by_op["relational"]]
        # slow: s > 0, tid < s, tid + s < n; fast: i < n; launch: none (!= is not relational);
        # check: i < 3, dims[i] > limit. The comment's "a < b" and the template-free code elsewhere: none.
        self.assertEqual(len(afters), 6, afters)
        self.assertTrue(any("s >= 0" in a for a in afters))
        self.assertTrue(any("tid <= s" in a for a in afters))
        self.assertFalse(any("a <= b" in a for a in afters))

    def test_drop_operand(self):
        afters = [m.after for m in self.by_op["drop_operand"]]
        self.assertTrue(any(a.startswith("if ( tid + s < n) data[tid] += data[tid + s];") for a in afters), afters)
        self.assertTrue(any(a.startswith("if (tid < s ) data[tid]") for a in afters), afters)
        self.assertTrue(any("if (dims[i] == 0 ) return false;" in a for a in afters), afters)
        self.assertTrue(any("if ( dims[i] > unsigned(limits[i])) return false;" in a for a in afters), afters)

    def test_host_operators(self):
        # `return cudaDeviceSynchronize();` made `return cudaSuccess;` is no_wait's mutant; the same
        # file is not made twice.
        self.assertEqual(self.ids("status_success"), ["status_success:launch:1"])
        self.assertEqual(self.ids("no_error_query"), ["no_error_query:launch:1"])
        self.assertEqual(self.ids("peek_error"), ["peek_error:launch:1"])
        self.assertEqual(self.ids("no_wait"), ["no_wait:launch:1"])
        self.assertIn("slow<<<1, 256>>>", self.text(self.by_op["launch_grid"][0]))
        self.assertIn("slow<<<(n + 255) / 256, 32>>>", self.text(self.by_op["launch_block"][0]))
        self.assertEqual([m.after for m in self.by_op["arithmetic"]],
                         ["slow<<<(n - 255) / 256, 256>>>(data, out, n);",
                          "slow<<<(n + 255) * 256, 256>>>(data, out, n);", "return a / b + a / 2;", "return a * b - a / 2;", "return a * b + a * 2;"])
        self.assertEqual([m.after for m in self.by_op["loop_bound"]], ["for (int i = 0; i < 2; ++i)"])

    def test_kernel_operators(self):
        self.assertEqual([m.after for m in self.by_op["narrow_64"]],
                         ["unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;"])
        self.assertEqual(len(self.by_op["accumulate"]), 1)
        self.assertIn("(*(out) += (data[0]))", self.text(self.by_op["plain_atomic"][0]))
        body = self.text(self.by_op["baseline_body"][0])
        self.assertEqual(self.ids("baseline_body"), ["baseline_body:fast:1"])  # `given` is not the student's
        self.assertEqual(body.count("atomicAdd(out, data[0])"), 2)

    def test_only_solution_regions_are_mutated(self):
        for m in self.mutants:
            self.assertNotEqual(m.function, "given", m.id)

    def test_ids_and_hashes_are_stable(self):
        again = operators.mutants_of("ch01_lab", self.root)
        self.assertEqual([(m.id, m.sha) for m in again], [(m.id, m.sha) for m in self.mutants])
        self.assertEqual(len({m.id for m in self.mutants}), len(self.mutants))
        self.assertEqual(len({m.sha for m in self.mutants}), len(self.mutants))

    def test_ledger(self):
        lab = "ch01_lab"
        ledger = operators.load_ledger(lab, self.root)
        m, s = self.mutants[0], self.mutants[1]
        self.assertTrue(operators.needs_grading(m, ledger, "t1"))
        operators.record(ledger, m, "killed", "0/1", "x", "t1", "GPU")
        operators.record(ledger, s, "survived", "1/1", "", "t1", "GPU")
        self.assertFalse(operators.needs_grading(m, ledger, "t2"))  # killed stays killed
        self.assertFalse(operators.needs_grading(s, ledger, "t1"))
        self.assertTrue(operators.needs_grading(s, ledger, "t2"))  # a survivor meets new tests
        ledger["equivalent"][s.id] = "too short"
        operators.save_ledger(lab, ledger, self.root)
        problems = operators.check_ledger(lab, self.root)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("say why", problems[0])
        ledger["equivalent"][s.id] = "nvcc moves the load under the guard, the PTX is the same"
        ledger["equivalent"]["relational:nothing:9"] = "a reason for a mutant that does not exist"
        operators.save_ledger(lab, ledger, self.root)
        self.assertIn("no such mutant", " ".join(operators.check_ledger(lab, self.root)))
        del ledger["equivalent"]["relational:nothing:9"]
        operators.save_ledger(lab, ledger, self.root)
        self.assertEqual(operators.check_ledger(lab, self.root), [])
        c = operators.score(lab, self.root)
        self.assertEqual((c["killed"], c["survived"], c["equivalent"]), (1, 0, 1))
        self.assertEqual(c["ungraded"], len(self.mutants) - 2)
        self.assertEqual(c["score"], 1.0)
        # The reference changes: the entries no longer match the mutants' hashes.
        path = self.root / "solutions/ch01_lab/lab.cu"
        path.write_text(path.read_text().replace("data[tid + s];", "data[tid + s] ;"))
        self.assertEqual(operators.score(lab, self.root)["ungraded"], len(self.mutants))

    def test_a_launcher_the_student_writes_must_promise_to_report_errors(self):
        problems = operators.check_launchers("ch01_lab", self.root)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("launch (solutions/ch01_lab/lab.cu) launches a kernel", problems[0])
        self.assertIn('"reports_errors"', problems[0])
        (self.root / "tests/ch01_lab/grading.json").write_text(
            '{"lab": "ch01_lab", "total_points": 1, "points": [], '
            '"reports_errors": [{"function": "launch", "reports": ["launch"]}]}')
        self.assertEqual(operators.check_launchers("ch01_lab", self.root), [])
        (self.root / "tests/ch01_lab/grading.json").write_text('{"lab": ')
        problems = operators.check_launchers("ch01_lab", self.root)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("cannot read", problems[0])

    def test_ledger_malformed(self):
        path = operators.ledger_path("ch01_lab", self.root)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{")
        self.assertIn("not valid JSON", operators.check_ledger("ch01_lab", self.root)[0])
        path.write_text(json.dumps({"mutants": {"x": {"result": "dead"}}}))
        self.assertIn("needs sha and a result", operators.check_ledger("ch01_lab", self.root)[0])

    def test_unreadable_ledger_is_a_clear_error_and_is_kept(self):
        path = operators.ledger_path("ch01_lab", self.root)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{ half")
        with self.assertRaisesRegex(operators.LedgerError, "not valid JSON"):
            operators.load_ledger("ch01_lab", self.root)
        with self.assertRaisesRegex(operators.LedgerError, "not valid JSON"):
            operators.score("ch01_lab", self.root)
        self.assertEqual(path.read_text(), "{ half")  # nothing written over it


@unittest.skipIf(operators is None, "tools/staff/operators.py is not part of this tree")
class RepositoryTest(unittest.TestCase):
    def test_every_operator_applies_somewhere(self):
        import labinfo
        seen = {m.operator for lab in labinfo.lab_names() for m in operators.mutants_of(lab)}
        self.assertEqual(sorted(set(operators.BY_ID) - seen), [], "operators with no site in any lab")

    def test_ledgers_are_well_formed(self):
        import labinfo
        problems = [p for lab in labinfo.lab_names() for p in operators.check_ledger(lab) + operators.check_launchers(lab)]
        self.assertEqual(problems, [])

    def test_catalogue_is_documented(self):
        doc = (operators.ROOT / "docs" / "mutation.md").read_text()
        for op in operators.OPERATORS:
            self.assertIn(f"`{op.id}`", doc, f"docs/mutation.md does not list the operator {op.id}")


if __name__ == "__main__":
    unittest.main()
