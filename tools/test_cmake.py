"""Self-test of the configure-time checks (run by ctest as tools.cmake_selftest), on small CMake
scripts and projects, without a GPU and without configuring the whole repository:

* a malformed tests/<lab>/grading.json (a stray comma, a wrong type, a total below its rules) is a
  configure error naming the file and the position (cmake/CudaLab.cmake, _cudalab_grading), and so
  is a malformed forbidden_in_source (the names a lab's sources may not use);
* the per-GPU threshold override file adds device rows to the generated thresholds table, and a
  malformed one is a configure error with the file and the position;
* CUDALAB_LABS: configure says "building N of M labs" (also when the restriction comes from the
  cache), an unknown lab name is an error;
* `--target docs` without Doxygen prints its message and fails (no shell syntax error);
* the generated CTestCustom.cmake: a plain `ctest` right after a graded one prints no stale table;
* SERIAL_TESTS: a correctness test that times kernels (or sizes its data from the free GPU memory)
  and is not declared stops the configure with the line to add; a declared test is used;
* the file name of a test's result record (cmake/TestRecords.cmake): %XX for every other byte;
* SanitizeAll (cmake/RunSanitizer.cmake, with a stand-in sanitizer): a test program that exits 0
  without writing its tests' results fails; one whose tests ran passes;
* cmake/LabBuild.cmake and cudalab_program_problem (a grade is of the code on disk): a source that
  does not compile ends the build step with status 0, its first error kept and an empty object in
  its place; a program that does not link is removed; a program built from other sources than
  those on disk, or missing, is refused with the reason when ctest starts; a lab still the skeleton
  as shipped is not started; each source is hashed once per ctest start;
* cmake/CheckLabSymbols.cmake: a lab library that reads the environment, opens files, makes a
  system call of its own or runs code before main() is refused with the file and the symbol, as is
  one that exports a name its header does not declare; a plain one passes;
* cmake/ReferenceImage.cmake: a lab's reference fatbin becomes a byte array that a test program
  reads back byte for byte, with where it came from; with no image the table is empty and says why;
  an image that does not compile leaves the build going, and the table empty with nvcc's reason.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import labinfo  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CMAKE = shutil.which("cmake")
LAB = "ch99_example"
GRADING = {
    "lab": LAB, "total_points": 12,
    "points": [{"match": "Sum.*", "points": 2}, {"match": "Perf.*", "points": 5}],
    "thresholds": {"copy_fraction": {"value": 0.75, "about": "ours / copy", "calibrated": "H100: 0.84"},
                   "speedup": {"value": 1.85, "about": "ours / naive", "calibrated": "H100: 2.06"}},
}


def run(cmd, cwd=None, env=None, timeout=120):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


@unittest.skipUnless(CMAKE, "cmake not found")
class ThresholdsTableTest(unittest.TestCase):
    """_cudalab_grading() and _cudalab_thresholds() in script mode (cmake -P): read and check
    grading.json, then write the table with the override file's rows."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.grading = self.root / "grading.json"
        self.grading.write_text(json.dumps(GRADING, indent=2) + "\n")

    def tearDown(self):
        self.tmp.cleanup()

    def configure(self, overrides=None):
        script = self.root / "run.cmake"
        script.write_text(textwrap.dedent(f"""\
            include({(ROOT / 'cmake' / 'CudaLab.cmake').as_posix()})
            set(CMAKE_CURRENT_BINARY_DIR {self.root.as_posix()})
            set(CUDALAB_THRESHOLD_OVERRIDES "{overrides.as_posix() if overrides else ''}")
            _cudalab_grading({LAB} {self.grading.as_posix()} json)
            _cudalab_thresholds({LAB} "${{json}}")
            """))
        rc, out = run([CMAKE, "-P", str(script)])
        table = self.root / f"{LAB}_thresholds.cpp"
        return rc, out, table.read_text() if table.exists() else ""

    def test_valid_grading_json_gives_the_table(self):
        rc, out, table = self.configure()
        self.assertEqual(rc, 0, out)
        self.assertIn('{"copy_fraction", 0.75, nullptr},', table)
        self.assertIn('{"speedup", 1.8', table)
        self.assertIn('kThresholdOverrides = "";', table)

    def test_stray_comma_is_an_error_with_file_and_position(self):
        # CMake's own JSON reader accepts this; Python's (the grade step) does not
        text = json.dumps(GRADING, indent=2).replace('"points": 5\n    }\n  ]', '"points": 5\n    },\n  ]')
        self.grading.write_text(text)
        rc, out, table = self.configure()
        self.assertNotEqual(rc, 0)
        self.assertIn(str(self.grading), out.replace("\n  ", " ").replace("\n", " "))
        lines = text.splitlines()
        line = lines.index("  ],")   # 1-based: the line before "  ]," holds the last rule's "},"
        self.assertIn(f"line {line}, column 6: a comma before the closing bracket", out)
        self.assertEqual(table, "")

    def test_syntax_error_comment_and_trailing_text(self):
        for text, want in (('{"lab": "x" "total_points": 1}', "line 1, column 13: Missing ',' or '}'"),
                           ("", "line 1, column 1: Syntax error"),
                           (json.dumps(GRADING) + "\n// note\n", "line 2, column 1: text after the end"),
                           (json.dumps(GRADING) + " {}", "text after the end of the JSON value")):
            self.grading.write_text(text)
            rc, out, _ = self.configure()
            self.assertNotEqual(rc, 0, text)
            self.assertIn(want, out, text)

    def test_required_fields_and_types(self):
        bad = dict(GRADING, lab="ch00_other", total_points="12", points=[{"match": "Sum.*"}, 3])
        bad["thresholds"] = {"speedup": {"value": "1.85", "about": "x"}}
        self.grading.write_text(json.dumps(bad))
        rc, out, _ = self.configure()
        self.assertNotEqual(rc, 0)
        flat = re.sub(r"\s+", " ", out)
        for needle in ('"lab" is "ch00_other", expected "ch99_example"', '"total_points": STRING found, NUMBER required',
                       '"points"[0].points: missing (NUMBER required)', '"points"[1]: NUMBER found, OBJECT required',
                       '"thresholds".speedup.value: STRING found, NUMBER required',
                       '"thresholds".speedup.calibrated: missing'):
            self.assertIn(needle, flat)

    def test_total_points_below_the_rules_is_an_error(self):
        self.grading.write_text(json.dumps(dict(GRADING, total_points=6.5)))  # rules: 2 + 5
        rc, out, _ = self.configure()
        self.assertNotEqual(rc, 0)
        self.assertIn('"total_points" is 6.5, less than the 7 points of its rules', re.sub(r"\s+", " ", out))
        self.grading.write_text(json.dumps(dict(GRADING, total_points=7)))
        self.assertEqual(self.configure()[0], 0)

    def test_malformed_forbidden_in_source_is_an_error(self):
        """forbidden_in_source (the names cmake/LabBuild.cmake refuses in a lab's sources): configure
        accepts what the grade step's check accepts (tools/grade.py) and names the file and the fault
        of anything else, instead of building the lab without the refusal."""
        import grade
        good = {"names": ["cuda_occupancy", "cudaOcc"], "why": "the lab's answer key"}
        self.grading.write_text(json.dumps(dict(GRADING, forbidden_in_source=good)))
        rc, out, _ = self.configure()
        self.assertEqual(rc, 0, out)
        self.assertEqual(grade.check_grading(dict(GRADING, forbidden_in_source=good), LAB, "g"), [])
        where = f'{self.grading}: "forbidden_in_source"'
        for bad, want in ((["cuda_occupancy"], ": ARRAY found, OBJECT required"),
                          ({"names": ["cuda_occupancy"]}, ".why: missing (STRING required)"),
                          ({"names": ["cuda_occupancy"], "why": 1}, ".why: NUMBER found, STRING required"),
                          ({"why": "x"}, ".names: missing (ARRAY required)"),
                          ({"names": "cuda_occupancy", "why": "x"}, ".names: STRING found, ARRAY required"),
                          ({"names": [], "why": "x"}, ".names is empty: at least one name required"),
                          ({"names": ["cudaOcc", 3], "why": "x"}, ".names[1]: NUMBER found, STRING required"),
                          ({"names": ["cudaOcc", ""], "why": "x"}, ".names[1] is '': letters, digits, _ and . only"),
                          ({"names": ["cuda occupancy"], "why": "x"},
                           ".names[0] is 'cuda occupancy': letters, digits, _ and . only")):
            data = dict(GRADING, forbidden_in_source=bad)
            self.assertTrue(grade.check_grading(data, LAB, "g"), bad)  # the grade step refuses it too
            self.grading.write_text(json.dumps(data))
            (self.root / f"{LAB}_thresholds.cpp").unlink(missing_ok=True)
            rc, out, table = self.configure()
            self.assertNotEqual(rc, 0, bad)
            self.assertIn(f"cuda-labs: {LAB}: grading.json is not valid", re.sub(r"\s+", " ", out))
            self.assertIn(where + want, re.sub(r"\n +", " ", out), bad)
            self.assertEqual(table, "")

    def test_missing_grading_json(self):
        self.grading.unlink()
        rc, out, _ = self.configure()
        self.assertNotEqual(rc, 0)
        self.assertIn("is missing: every lab needs one", out)

    def test_every_lab_of_the_repository_passes(self):
        script = self.root / "all.cmake"
        labs = sorted(p.parent for p in (ROOT / "tests").glob("ch*/grading.json"))
        calls = "\n".join(f"_cudalab_grading({p.name} {(p / 'grading.json').as_posix()} json)\n"
                          f'_cudalab_thresholds({p.name} "${{json}}")' for p in labs)
        script.write_text(f"include({(ROOT / 'cmake' / 'CudaLab.cmake').as_posix()})\n"
                          f"set(CMAKE_CURRENT_BINARY_DIR {self.root.as_posix()})\n"
                          f'set(CUDALAB_THRESHOLD_OVERRIDES "")\n{calls}\n')
        rc, out = run([CMAKE, "-P", str(script)])
        self.assertEqual(rc, 0, out)

    def overrides(self, data):
        path = self.root / "thresholds-overrides.json"
        path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
        return path

    def test_override_file_adds_device_rows(self):
        path = self.overrides({"devices": {
            "NVIDIA H200": {LAB: {"copy_fraction": {"value": 0.7, "calibrated": "NVIDIA H200: min 0.80, 2025-01-01"}},
                            "ch00_not_in_this_build": {"x": {"value": 1, "calibrated": "y"}}},
            "NVIDIA L4": {LAB: {"speedup": {"value": 1.5, "calibrated": "L4: min 1.8"}}}}})
        rc, out, table = self.configure(path)
        self.assertEqual(rc, 0, out)
        self.assertIn('{"copy_fraction", 0.69999999999999996, "NVIDIA H200"},', table)
        self.assertIn('{"speedup", 1.5, "NVIDIA L4"},', table)
        self.assertIn('{"copy_fraction", 0.75, nullptr},', table)   # the default row stays
        self.assertIn('kThresholdOverrides = "thresholds-overrides.json";', table)

    def test_malformed_override_file_is_an_error(self):
        good = {"devices": {"NVIDIA H200": {LAB: {"copy_fraction": {"value": 0.7, "calibrated": "x"}}}}}
        text = json.dumps(good, indent=2).replace('"x"\n', '"x",\n', 1)
        path = self.overrides(text)
        rc, out, table = self.configure(path)
        self.assertNotEqual(rc, 0)
        self.assertIn(str(path), out.replace("\n  ", " ").replace("\n", " "))
        line = next(i for i, t in enumerate(text.splitlines(), 1) if t.endswith('"x",'))
        column = text.splitlines()[line - 1].index('"x",') + 4
        self.assertIn(f"line {line}, column {column}: a comma before the closing bracket", out)
        self.assertEqual(table, "")
        for data, want in (({"devices": []}, '"devices": ARRAY found, OBJECT required'),
                           ({"devices": {"NVIDIA H200": {LAB: {"copy_fraction": {"value": "0.7", "calibrated": "x"}}}}},
                            "copy_fraction.value: STRING found, NUMBER required"),
                           ({"devices": {"NVIDIA H200": {LAB: {"copy_fraction": {"value": 0.7}}}}},
                            "copy_fraction.calibrated: missing"),
                           ({"devices": {"NVIDIA H200": {LAB: {"no_such_key": {"value": 0.7, "calibrated": "x"}}}}},
                            'grading.json has no threshold "no_such_key"')):
            rc, out, _ = self.configure(self.overrides(data))
            self.assertNotEqual(rc, 0, data)
            self.assertIn(want, re.sub(r"\s+", " ", out), data)
        rc, out, _ = self.configure(self.root / "missing.json")
        self.assertNotEqual(rc, 0)
        self.assertIn("which does not exist", re.sub(r"\s+", " ", out))


def simple_labs(n):
    """n labs whose tests/<lab>/CMakeLists.txt only calls cudalab_add_lab (stubbed below)."""
    labs = []
    for cml in sorted((ROOT / "tests").glob("ch*/CMakeLists.txt")):
        calls = set(re.findall(r"^\s*([A-Za-z_]+)\s*\(", cml.read_text(), re.M))
        if calls <= {"cudalab_add_lab"}:
            labs.append(cml.parent.name)
    return labs[:n]


@unittest.skipUnless(CMAKE, "cmake not found")
class RecordFileTest(unittest.TestCase):
    """cudalab_record_file(): letters, digits, '.', '_' and '-' stay, every other byte is %XX."""

    def test_names(self):
        names = {"ch03_10_x.Reduce/ReduceCorrectness.Interleaved/3": "ch03_10_x.Reduce%2FReduceCorrectness.Interleaved%2F3",
                 "lab.Sanitizer.memcheck_a-b": "lab.Sanitizer.memcheck_a-b", "a b%c": "a%20b%25c",
                 "x:y*z\"q": "x%3Ay%2Az%22q", "é": "%C3%A9"}
        with tempfile.TemporaryDirectory() as tmp:
            script = Path(tmp) / "names.cmake"
            lines = [f"include({(ROOT / 'cmake' / 'TestRecords.cmake').as_posix()})"]
            for name in names:
                quoted = name.replace("\\", "\\\\").replace('"', '\\"')
                lines += [f'cudalab_record_file("{quoted}" f)', 'message("${f}")']
            script.write_text("\n".join(lines) + "\n", encoding="utf-8")
            rc, out = run([CMAKE, "-P", str(script)])
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines(), [f"{v}.json" for v in names.values()])


@unittest.skipUnless(CMAKE, "cmake not found")
class ConfigureTest(unittest.TestCase):
    """Small projects that include one of the repository's CMakeLists.txt (no compiler needed)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def project(self, body):
        src = self.root / "src"
        src.mkdir(exist_ok=True)
        (src / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.25)\nproject(selftest LANGUAGES NONE)\n"
                                            + textwrap.dedent(body))
        return src

    def test_subset_of_labs_is_never_silent(self):
        labs = simple_labs(2)
        if len(labs) < 2:
            self.skipTest("no two labs with a plain cudalab_add_lab() call")
        total = len(list((ROOT / "tests").glob("ch*/CMakeLists.txt")))
        src = self.project(f"""\
            function(cudalab_add_lab lab)
              message(STATUS "added ${{lab}}")
            endfunction()
            add_subdirectory({(ROOT / 'tests').as_posix()} tests)
            """)
        build = self.root / "build"
        rc, out = run([CMAKE, "-S", str(src), "-B", str(build), f"-DCUDALAB_LABS={labs[1]};{labs[0]}"])
        self.assertEqual(rc, 0, out)
        self.assertIn(f"building 2 of {total} labs: {labs[0]}, {labs[1]}", out)
        self.assertEqual(out.count("-- added "), 2)
        # configured again without naming CUDALAB_LABS: the cached restriction still applies, and says so
        rc, out = run([CMAKE, "-S", str(src), "-B", str(build)])
        self.assertEqual(rc, 0, out)
        self.assertIn(f"building 2 of {total} labs", out)
        rc, out = run([CMAKE, "-S", str(src), "-B", str(build), f"-DCUDALAB_LABS={labs[0]};ch03_99_typo"])
        self.assertNotEqual(rc, 0)
        self.assertIn("CUDALAB_LABS names ch03_99_typo: no such lab in tests/", out)

    def test_docs_target_without_doxygen_prints_its_message(self):
        src = self.project(f"""\
            set(CUDALAB_ROOT {ROOT.as_posix()}/)
            add_subdirectory({(ROOT / 'docs').as_posix()} docs)
            """)
        build = self.root / "build"
        rc, out = run([CMAKE, "-S", str(src), "-B", str(build), "-DCMAKE_DISABLE_FIND_PACKAGE_Doxygen=ON"])
        if rc != 0 and "CMAKE_MAKE_PROGRAM" in out:
            self.skipTest("no build tool for the default CMake generator")
        self.assertEqual(rc, 0, out)
        rc, out = run([CMAKE, "--build", str(build), "--target", "docs"])
        self.assertNotEqual(rc, 0)   # asked for the site, none was built
        self.assertIn("docs: Doxygen (1.9 or newer) was not found: install it (e.g. apt-get install doxygen)", out)
        self.assertNotIn("syntax error", out)

    def test_a_plain_ctest_after_a_graded_one_shows_no_stale_table(self):
        grading = self.root / "tests" / LAB / "grading.json"
        grading.parent.mkdir(parents=True)
        grading.write_text(json.dumps(dict(GRADING, total_points=2, points=[{"match": "Sum.*", "points": 2}])))
        info = self.root / "info.cmake"
        info.write_text('message("NVIDIA Test GPU (sm_90, 1 SMs), CUDA runtime 13.0")\n')
        src = self.project(f"""\
            set(CUDALAB_ROOT {ROOT.as_posix()}/)
            set(CUDALAB_SOLUTIONS_DIR {self.root.as_posix()}/no-solutions)
            enable_testing()
            find_package(Python3 3.8 COMPONENTS Interpreter REQUIRED)
            add_executable(cudalab_info IMPORTED)
            set_target_properties(cudalab_info PROPERTIES IMPORTED_LOCATION {shutil.which('true') or '/bin/true'})
            add_test(NAME {LAB}.Sum.Passes COMMAND ${{CMAKE_COMMAND}} -E echo ok)
            set_tests_properties({LAB}.Sum.Passes PROPERTIES LABELS "{LAB};correctness;host")
            set_property(GLOBAL APPEND PROPERTY CUDALAB_LABS "{LAB}|labs|{grading.as_posix()}")
            add_subdirectory({(ROOT / 'tools').as_posix()} tools)
            """)
        build = self.root / "build"
        rc, out = run([CMAKE, "-S", str(src), "-B", str(build)])
        self.assertEqual(rc, 0, out)
        # No CXX or CUDA language here: the tracer skips with its reason, also where the toolkit
        # has the Compute Sanitizer API (its configure-time probe compiles C++).
        self.assertIn("tracer: skipped: the tracer needs the CXX and CUDA languages", out)
        manifest = json.loads((build / "grade" / "manifest.json").read_text())
        self.assertEqual(manifest["labs"][0]["name"], LAB)
        env = {k: v for k, v in os.environ.items() if k != "CUDALAB_GRADING"}
        ctest = str(Path(CMAKE).with_name("ctest"))
        rc, out = run([ctest, "--test-dir", str(build), "-R", f"^{LAB}", "--output-junit", "grade/junit.xml"], env=env)
        self.assertEqual(rc, 0, out)
        self.assertIn("cuda-labs score table", out)
        self.assertIn("2/2", out)
        rc, out = run([ctest, "--test-dir", str(build), "-R", f"^{LAB}"], env=env)   # at once: same second
        self.assertEqual(rc, 0, out)
        self.assertNotIn("cuda-labs score table", out)
        self.assertIn("no score table: this ctest run wrote no JUnit file", out)
        self.assertTrue((build / "grade" / "junit.previous.xml").exists())


@unittest.skipUnless(CMAKE, "cmake not found")
class SerialTestsTest(unittest.TestCase):
    """_cudalab_serial_for() in script mode: declared SERIAL_TESTS against the source scan."""

    SOURCE = textwrap.dedent("""\
        class Timed : public cudalab::GpuTest {};
        TEST_F(Timed, FastEnough) {
          const double t = time_kernel(launch);
        }
        TEST(Plain, Values) { EXPECT_EQ(1, 1); }
        """)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        (self.root / "test_gpu.cu").write_text(self.SOURCE)

    def tearDown(self):
        self.tmp.cleanup()

    def serial_for(self, declared):
        script = self.root / "run.cmake"
        script.write_text(textwrap.dedent(f"""\
            cmake_minimum_required(VERSION 3.25)
            include({(ROOT / 'cmake' / 'CudaLab.cmake').as_posix()})
            set(_cudalab_declared_serial {declared})
            _cudalab_serial_for(suites {LAB} {LAB}_correctness_gpu {(self.root / 'test_gpu.cu').as_posix()})
            message(STATUS "serial: [${{suites}}]")
            """))
        return run([CMAKE, "-P", str(script)])

    def test_undeclared_timed_test_is_an_error_with_the_line_to_add(self):
        rc, out = self.serial_for("")
        self.assertNotEqual(rc, 0)
        flat = " ".join(out.split())
        self.assertIn("Timed.FastEnough", flat)
        self.assertIn(f"SERIAL_TESTS in tests/{LAB}/CMakeLists.txt", flat)

    def test_declared_test_or_suite_is_used(self):
        for declared in ("Timed.FastEnough", "Timed"):
            rc, out = self.serial_for(declared)
            self.assertEqual(rc, 0, out)
            self.assertIn(f"serial: [{declared}]", out)

    def test_declared_test_of_another_file_is_not_this_files(self):
        rc, out = self.serial_for('"Timed;Elsewhere.Test"')
        self.assertEqual(rc, 0, out)
        self.assertIn("serial: [Timed]", out)


FAKE_SANITIZER = """#!/bin/sh
# a stand-in for compute-sanitizer: drops its options, runs the program, finds nothing
while [ $# -gt 0 ]; do
  case "$1" in
    --tool|--kernel-name|--error-exitcode|--report-api-errors|--check-api-memory-access|--racecheck-report) shift 2 ;;
    --*) shift ;;
    *) break ;;
  esac
done
echo "========= COMPUTE-SANITIZER"
"$@"; rc=$?
echo "========= ERROR SUMMARY: 0 errors"
exit $rc
"""


@unittest.skipUnless(CMAKE and os.name == "posix", "cmake and a POSIX shell needed")
class SanitizeAllRecordTest(unittest.TestCase):
    """A SanitizeAll check passes only when the lab's tests ran under the sanitizer and wrote results."""

    def check(self, program_body):
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp)
            (t / "sanitizer").write_text(FAKE_SANITIZER)
            (t / "program").write_text("#!/bin/sh\n[ \"$1\" = --cudalab-probe ] && exit 0\n" + program_body)
            for f in ("sanitizer", "program"):
                (t / f).chmod(0o755)
            (t / "results").mkdir()
            env = dict(os.environ, GTEST_OUTPUT=f"json:{t / 'results' / 'r.json'}")
            rc, out = run([CMAKE, f"-DSANITIZER={t / 'sanitizer'}", "-DTOOL=memcheck", f"-DEXE={t / 'program'}",
                           "-DKERNELS=k1", "-DNAME=SanitizeAll.memcheck", "-P",
                           str(ROOT / "cmake" / "RunSanitizer.cmake")], env=env)
            record = json.loads((t / "results" / "r.json").read_text())
        return rc, out, record["testsuites"][0]["testsuite"][0]

    def test_exit_zero_without_results_fails(self):
        rc, out, case = self.check("exit 0\n")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("wrote no results", case.get("cudalab_reason", ""))

    def test_tests_that_ran_pass(self):
        rc, out, case = self.check('f=${GTEST_OUTPUT#json:}\n'
                                   'echo \'{"tests": 2, "failures": 0, "testsuites": []}\' > "$f"\nexit 0\n')
        self.assertEqual(rc, 0, out)
        self.assertNotIn("failures", case)


@unittest.skipUnless(CMAKE and os.name == "posix", "cmake and a POSIX shell needed")
class GlobalRaceTest(unittest.TestCase):
    """SanitizeAll.globalrace (cmake/RunSanitizer.cmake, TOOL=globalrace): the hazard file that the
    kernel tracer writes (tools/tracer/trace_writer.hpp), read back into a pass, a failure that names
    the race, or a skip; here a stand-in program writes it."""

    def check(self, hazard_lines, *, tracer=True, unavailable=""):
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp)
            (t / "libkernel_tracer.so").write_text("")  # never loaded: the stand-in program plays its part
            (t / "tracer_patches.fatbin").write_text("")
            (t / "unavailable.txt").write_text(unavailable)
            lines = "".join(f"echo '{line}' >> \"$TRACER_HAZARDS\"\n" for line in hazard_lines)
            (t / "program").write_text(
                "#!/bin/sh\n[ \"$1\" = --cudalab-probe ] && exit 0\n"
                "[ -n \"$TRACER_KERNELS_EXACT\" ] || exit 3\n: > \"$TRACER_HAZARDS\"\n" + lines +
                'f=${GTEST_OUTPUT#json:}\necho \'{"tests": 2, "failures": 0, "testsuites": []}\' > "$f"\nexit 0\n')
            (t / "program").chmod(0o755)
            (t / "results").mkdir()
            env = dict(os.environ, GTEST_OUTPUT=f"json:{t / 'results' / 'r.json'}")
            env.pop("LD_PRELOAD", None)
            sanitizer = str(t / "libkernel_tracer.so") if tracer else ""
            rc, out = run([CMAKE, f"-DSANITIZER={sanitizer}", "-DTOOL=globalrace", f"-DEXE={t / 'program'}",
                           f"-DTRACER_PATCHES={t / 'tracer_patches.fatbin'}",
                           f"-DTRACER_UNAVAILABLE={t / 'unavailable.txt'}", "-DKERNELS=reduceInterleaved",
                           "-DNAME=SanitizeAll.globalrace", "-P", str(ROOT / "cmake" / "RunSanitizer.cmake")], env=env)
            record = json.loads((t / "results" / "r.json").read_text())
        return rc, out, record["testsuites"][0]["testsuite"][0]

    LAUNCH = ('{"type":"hazards","id":0,"kernel":"reduceInterleaved(int*, int*, unsigned int)","grid":[4,1,1],'
              '"block":[64,1,1],"traced_blocks":4,"accesses":900,"dropped":0,')

    def test_no_hazard_passes_and_says_how_many_launches_were_traced(self):
        rc, out, case = self.check([self.LAUNCH + '"hazards":0,"first":[]}'] * 2)
        self.assertEqual(rc, 0, out)
        self.assertNotIn("failures", case)
        self.assertIn("2 launches of your kernels traced, no race on global memory", out)

    def test_a_race_fails_and_names_kernel_threads_and_the_missing_barrier(self):
        race = ('"hazards":3,"first":[{"block":0,"address":139637976727620,"offset":64,"writer":16,"reader":0,'
                '"writer_pc":256,"reader_pc":240,"size":4,"step":2,"writer_phase":0,"reader_phase":0,'
                '"same_warp":true}]}')
        rc, out, case = self.check([self.LAUNCH + '"hazards":0,"first":[]}', self.LAUNCH + race])
        self.assertNotEqual(rc, 0, out)
        reason = case.get("cudalab_reason", "")
        self.assertIn("a data race on global memory in your kernels (3 places in 2 traced launches)", reason)
        self.assertIn("reduceInterleaved(int*, int*, unsigned int), block 0: thread 0 reads the 4 bytes at offset 64",
                      reason)
        self.assertIn("while thread 16 writes them, after the same __syncthreads() (number 2)", reason)
        self.assertIn("no __syncwarp() between them", reason)

    def test_threads_of_two_warps_are_told_about_syncthreads(self):
        race = ('"hazards":1,"first":[{"block":1,"address":4096,"offset":128,"writer":40,"reader":3,'
                '"writer_pc":256,"reader_pc":240,"size":4,"step":0,"writer_phase":1,"reader_phase":0,'
                '"same_warp":false}]}')
        rc, out, case = self.check([self.LAUNCH + race])
        self.assertNotEqual(rc, 0, out)
        self.assertIn("before the first __syncthreads(); threads of different warps, and threads of different "
                      "warps are ordered only by __syncthreads()", case.get("cudalab_reason", ""))

    def test_a_tracer_that_could_not_run_or_was_not_built_skips(self):
        rc, out, case = self.check(['{"type":"skipped","reason":"sanitizerSubscribe failed: busy"}'])
        self.assertEqual((rc, case["result"]), (0, "SKIPPED"), out)
        self.assertIn("the kernel tracer could not run: sanitizerSubscribe failed", case.get("cudalab_reason", ""))
        rc, out, case = self.check([], tracer=False, unavailable="no Compute Sanitizer API here\n")
        self.assertEqual((rc, case["result"]), (0, "SKIPPED"), out)
        self.assertIn("needs the kernel tracer: no Compute Sanitizer API here", case.get("cudalab_reason", ""))


NVCC = shutil.which("nvcc")


@unittest.skipUnless(CMAKE and NVCC and shutil.which("nm") and shutil.which("objdump") and shutil.which("readelf"),
                     "cmake, nvcc and binutils needed")
class LabSymbolsTest(unittest.TestCase):
    """cmake/CheckLabSymbols.cmake on small lab libraries compiled and linked with nvcc, as the build does."""

    def check(self, source, exports="_Z6launchPi*", version_script=True, outside=False, flags=(), link_flags=()):
        """(refused, output): the check's verdict on a shared library of `source` that exports `exports`."""
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp)
            (t / "lab.cu").write_text(source)
            rc, out = run([NVCC, *flags, "-c", "-Xcompiler", "-fPIC", "-o", str(t / "lab.cu.o"), str(t / "lab.cu")], timeout=300)
            self.assertEqual(rc, 0, out)
            link = [NVCC, "-shared", *link_flags, "-o", str(t / "liblab.so"), str(t / "lab.cu.o")]
            if version_script:
                (t / "lab.map").write_text("{ global: %s; local: *; };\n" % exports.replace("|", "; "))
                link += ["-Xlinker", f"--version-script={t / 'lab.map'}"]
            rc, out = run(link, timeout=300)
            self.assertEqual(rc, 0, out)
            rc, out = run([CMAKE, f"-DOBJECTS={t / 'lab.cu.o'}", f"-DLIBRARY={t / 'liblab.so'}", f"-DEXPORTS={exports}",
                           "-DNM=nm", "-DOBJDUMP=objdump", "-DREADELF=readelf", "-DSOURCE_DIR=labs/x", f"-DSTATE={t}",
                           # what it uses from outside itself (not the course's library, which the build links in)
                           "-DLINK_DIRS=" + ("|".join(self.link_dirs()) if outside else ""),
                           "-P", str(ROOT / "cmake" / "CheckLabSymbols.cmake")])
            self.assertEqual(rc, 0, out)  # the build goes on with the other labs
            self.assertNotIn("was not found in", out)
            refused = (t / "lab-build-error.txt").exists()
            self.assertEqual(refused, not (t / "liblab.so").exists(), out)  # a refused library is removed
            return refused, out

    @staticmethod
    def link_dirs():
        """Where the libraries a lab's library links are, as cudalab_add_lab passes them (LINK_DIRS)."""
        return labinfo.link_dirs(NVCC)

    def test_a_statically_linked_cpp_runtime_is_the_cpp_runtime(self):
        """A compiler set up to link libstdc++ statically (-static-libstdc++) leaves it out of the
        library's DT_NEEDED and its copy's weak references (__cxa_pure_virtual, libitm's _ITM_*)
        undefined: they are still the C++ runtime's names, not the test programs'."""
        source = textwrap.dedent("""\
            #include <string>
            struct Shape { virtual ~Shape() = default; virtual int sides() const = 0; };
            struct Square : Shape { int sides() const override { return 4; } };
            __global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
            void launch(int *p) { Square s; const Shape &b = s; k<<<1, 32>>>(p); p[0] = std::to_string(b.sides()).size(); }
            """)
        refused, out = self.check(source, outside=True, link_flags=("-Xcompiler", "-static-libstdc++"))
        self.assertFalse(refused, out)

    def test_the_c_library_is_an_allowlist(self):
        """Of libc, the lab's code calls only what allowed_libc lists: a name no denylist foresaw (writing
        to a descriptor with dprintf, a FILE over one with fdopen, the login name) is refused; what
        correct labs use (memory, strings, numbers, printing, time, locks, C++'s library) is not."""
        refused, out = self.check(textwrap.dedent("""\
            #include <cstdio>
            #include <unistd.h>
            __global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
            void launch(int *p) { k<<<1, 32>>>(p); dprintf(3, "{}"); }
            void other() { std::FILE *f = fdopen(4, "w"); std::fputs(getlogin(), f); }
            """), outside=True)
        self.assertTrue(refused, out)
        for name in ("dprintf", "fdopen", "getlogin"):
            self.assertIn(f"labs/x/lab.cu: error: calls {name} (cmake/CheckLabSymbols.cmake), a function of the C library "
                          "that is not on the list", out)
        refused, out = self.check(textwrap.dedent("""\
            #include <algorithm>
            #include <cassert>
            #include <chrono>
            #include <cmath>
            #include <cstdio>
            #include <cstdlib>
            #include <cstring>
            #include <iostream>
            #include <mutex>
            #include <random>
            #include <sstream>
            #include <string>
            #include <thread>
            #include <vector>
            __global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
            static std::mutex lock;
            const std::string &name() { static const std::string n = "launch"; return n; }
            static int by_value(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
            void launch(int *p) {
              std::lock_guard<std::mutex> hold(lock);
              const auto t0 = std::chrono::steady_clock::now();
              std::vector<int> v(100);
              std::mt19937 gen(42);
              for (int &x : v) x = static_cast<int>(gen() % 1000) + std::rand() % 3;
              std::sort(v.begin(), v.end());
              std::qsort(v.data(), v.size(), sizeof(int), by_value);
              int *h = static_cast<int *>(std::malloc(64));
              std::memset(h, 0, 64);
              std::free(h);
              assert(v.size() == 100);
              char buf[64];
              std::snprintf(buf, sizeof buf, "%s %g %ld", name().c_str(), std::pow(2.0, v[0] * 0.5), std::strtol("12", nullptr, 10));
              std::ostringstream os;
              os << buf << std::sqrt(static_cast<double>(v[1]));
              std::this_thread::sleep_for(std::chrono::microseconds(1));
              k<<<1, 32>>>(p);
              std::cout << os.str() << " " << (std::chrono::steady_clock::now() - t0).count() << std::endl;
              std::fprintf(stderr, "%zu\\n", std::strlen(buf));
            }
            """), outside=True)
        self.assertFalse(refused, out)

    def test_weak_references_and_the_runtimes_names_are_refused(self):
        """A weak reference is a use like any other (getenv declared weak binds to libc's); a
        definition of a name the compiler's own load-time code calls (__cxa_atexit, nvcc's
        __cudaRegisterFunction) or that libc defines (an extern "C" fputs) is refused."""
        refused, out = self.check(textwrap.dedent("""\
            extern "C" char *getenv(const char *) __attribute__((weak));
            void launch(int *) {}
            const char *where() { return getenv ? getenv("GTEST_OUTPUT") : nullptr; }
            """), outside=True)
        self.assertTrue(refused, out)
        self.assertIn("labs/x/lab.cu: error: calls getenv", out)
        refused, out = self.check(textwrap.dedent("""\
            #include <cstdio>
            void launch(int *) {}
            extern "C" int __cxa_atexit(void (*)(void *), void *, void *) { return 0; }
            extern "C" int fputs(const char *, FILE *) { return 0; }
            """), outside=True)
        self.assertTrue(refused, out)
        self.assertIn("error: defines __cxa_atexit", out)
        self.assertIn("error: defines fputs", out)

    def test_reaching_past_the_tests_is_refused_plain_code_is_not(self):
        refused, out = self.check(textwrap.dedent("""\
            #include <cstdio>
            #include <cstdlib>
            #include <fstream>
            __global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
            void launch(int *p) { k<<<1, 32>>>(p); std::printf("launched\\n"); }
            const char *where() { return std::getenv("GTEST_OUTPUT"); }
            void forge(const char *path) { std::ofstream(path) << "{}"; if (std::FILE *f = std::fopen(path, "w")) std::fclose(f); }
            long raw(long n) { long r; asm volatile("syscall" : "=a"(r) : "a"(n) : "rcx", "r11", "memory"); return r; }
            """))
        self.assertTrue(refused, out)
        for needle in ("labs/x/lab.cu: error: calls getenv", "error: calls fopen", "error: uses std::basic_ofstream",
                       "makes a system call of its own (cmake/CheckLabSymbols.cmake): syscall"):
            self.assertIn(needle, out)
        refused, out = self.check(textwrap.dedent("""\
            #include <cstdio>
            __global__ void k(int *p) { unsigned s; asm("mov.u32 %0, %%smid;" : "=r"(s)); p[threadIdx.x] = s; }
            void launch(int *p) { k<<<1, 32>>>(p); std::printf("launched\\n"); }
            """))
        self.assertFalse(refused, out)

    def test_code_hidden_from_the_disassembly_is_refused(self):
        """A jump into the middle of an instruction (a syscall's bytes inside a movabs's immediate, which a
        linear disassembly reads as data) is refused; jumps and calls the compiler emits, a tail call to
        another function included, are not."""
        refused, out = self.check(textwrap.dedent("""\
            __global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
            long hidden(long n) {
              long r;
              asm volatile("jmp 1f\\n\\t.byte 0x48, 0xb8\\n1:\\t.byte 0x0f, 0x05\\n\\t.byte 0x90,0x90,0x90,0x90,0x90,0x90\\n"
                           : "=a"(r) : "a"(n) : "rcx", "r11", "memory");
              return r;
            }
            void launch(int *p) { k<<<1, 32>>>(p); hidden(39); }
            """))
        self.assertTrue(refused, out)
        self.assertIn("labs/x/lab.cu: error: jumps into the middle of an instruction (cmake/CheckLabSymbols.cmake)", out)
        self.assertNotIn("makes a system call of its own", out)  # the linear disassembly never sees it
        refused, out = self.check(textwrap.dedent("""\
            #include <cstdio>
            __global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
            int pick(int x) { switch (x) { case 0: return 3; case 1: return 7; case 2: return 9; default: return x; } }
            void launch(int *p) { for (int i = 0; i < 4; ++i) if (pick(i) > 5) k<<<1, 32>>>(p); std::printf("%d\\n", pick(3)); }
            """), flags=("-O3",))
        self.assertFalse(refused, out)

    def test_the_harness_and_launches_it_cannot_see_are_refused_the_device_query_is_not(self):
        refused, out = self.check(textwrap.dedent("""\
            #include <cuda_runtime.h>
            #include <functional>
            #include <string>
            namespace cudalab { namespace detail { struct SampleWatch { std::function<void()> begin; };
            void set_sample_watch(SampleWatch); } const char *setting(const char *); }
            __global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
            void launch(int *p) { cudalab::detail::set_sample_watch({}); k<<<1, 32>>>(p); }
            const char *peek() { return cudalab::setting("CUDALAB_THRESHOLD_X"); }
            cudaError_t load(const void *image) { cudaLibrary_t l; return cudaLibraryLoadData(&l, image, 0, 0, 0, 0, 0, 0); }
            extern "C" int sanitizerUnsubscribe(void *);
            int quiet(void *tracer) { return sanitizerUnsubscribe(tracer); }
            """))
        self.assertTrue(refused, out)
        for needle in ("error: calls cudalab::detail::set_sample_watch", "error: calls cudalab::setting",
                       "error: calls cudaLibraryLoadData", "error: calls sanitizerUnsubscribe"):
            self.assertIn(needle, out)
        refused, out = self.check(textwrap.dedent("""\
            struct Dev { double theoretical_bandwidth_gbs() const; };
            namespace cudalab { struct DeviceInfo { double theoretical_bandwidth_gbs() const; }; }
            __global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
            double launch(int *p, const cudalab::DeviceInfo &d) { k<<<1, 32>>>(p); return d.theoretical_bandwidth_gbs(); }
            """), exports="_Z6launchPiRKN7cudalab10DeviceInfoE")
        self.assertFalse(refused, out)

    def test_code_before_main_is_refused(self):
        for code in ("__attribute__((constructor)) static void early(int, char **, char **envp) { envp[0][0] = 'X'; }",
                     "struct Early { Early() { std::printf(\"early\\n\"); } } early;"):
            refused, out = self.check("#include <cstdio>\nvoid launch(int *) {}\n" + code + "\n")
            self.assertTrue(refused, out)
            self.assertIn("labs/x/lab.cu: error: runs code before main()", out)

    def test_iostreams_initialiser_is_the_one_allowed(self):
        """<iostream> gives each file a static std::ios_base::Init (GCC before 13): that initialiser
        alone is allowed, optimised or not; a global object of the lab's own beside it is not."""
        lab = "#include <iostream>\nvoid launch(int *) { std::cout << \"launched\\n\"; }\n"
        for flags in (("-O3",), ("-Xcompiler", "-O0", "-G")):
            refused, out = self.check(lab, flags=flags)
            self.assertFalse(refused, f"{flags}: {out}")
            refused, out = self.check(lab + "static int answer = std::rand();\n", flags=flags)
            self.assertTrue(refused, f"{flags}: {out}")
            self.assertIn("labs/x/lab.cu: error: runs code before main()", out)
        # Code smuggled into that initialiser (a file-static global before the #include, inlined
        # beside std::ios_base::Init): reading the environment glibc hands it in %rdx, a loop.
        for smuggled in ("static char **seen;\n"
                         "static int grab = [] { char **e; asm volatile(\"mov %%rdx, %0\" : \"=r\"(e)); seen = e; return 0; }();\n",
                         "static volatile int spin;\n"
                         "static int loop = [] { for (int i = 0; i < 1000; ++i) spin = spin + i; return 0; }();\n"):
            # GCC 13 and later emit no initialiser for <iostream>: then the smuggled one stands alone.
            refused, out = self.check(smuggled + lab, flags=("-O3",))
            self.assertTrue(refused, out)
            self.assertIn("labs/x/lab.cu: error: runs code before main()", out)

    def test_only_the_headers_names_are_exported(self):
        source = "#include <cstdio>\nvoid launch(int *) {}\nextern \"C\" int fputs(const char *, FILE *) { return 0; }\n"
        refused, out = self.check(source, version_script=False)  # a library linked without the allowlist
        self.assertTrue(refused, out)
        self.assertIn("error: exports fputs (cmake/CheckLabSymbols.cmake), which the lab's header does not declare", out)
        refused, out = self.check(source)  # the build's link: fputs stays inside the library
        self.assertFalse(refused, out)


@unittest.skipUnless(CMAKE, "cmake not found")
class CodeOnDiskTest(unittest.TestCase):
    """cmake/LabBuild.cmake (the launcher) with a stand-in compiler, and cudalab_program_problem."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.source = self.root / "lab.cu"
        self.source.write_text("int ok;\n")
        # The stand-in compiler and linker: fails when its input says "broken", else copies it to -o.
        self.tool = self.root / "tool.sh"
        self.tool.write_text("#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in -o) out=$2; shift;; *) in=$1;; esac; shift; done\n"
                             "if grep -q broken \"$in\"; then echo \"$in(3): error: expected a ';'\" >&2; exit 2; fi\n"
                             "cp \"$in\" \"$out\"\n")
        self.tool.chmod(0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def launch(self, mode, src, out):
        return run([CMAKE, f"-DMODE={mode}", f"-DSTATE={self.root}", f"-DSOURCES={self.source}", "-P",
                    str(ROOT / "cmake" / "LabBuild.cmake"), "--", str(self.tool), str(src), "-o", str(out)])

    def problem(self, program):
        script = self.root / "problem.cmake"
        script.write_text(f"include([==[{ROOT / 'cmake' / 'DiscoverTests.cmake'}]==])\n"
                          f"cudalab_program_problem([==[{program}]==] [==[{self.root}]==] [==[/b]==] why [==[{self.source}]==])\n"
                          "message(\"WHY=${why}\")\n")
        rc, out = run([CMAKE, "-P", str(script)])
        self.assertEqual(rc, 0, out)
        return out.split("WHY=", 1)[1].strip()

    def test_a_grade_is_of_the_code_on_disk(self):
        obj, program = self.root / "lab.o", self.root / "program"
        rc, out = self.launch("compile", self.source, obj)
        self.assertEqual((rc, obj.read_text()), (0, "int ok;\n"), out)
        rc, out = self.launch("link", obj, program)
        self.assertEqual(rc, 0, out)
        self.assertTrue((self.root / "program.built-from").exists())
        self.assertEqual(self.problem(program), "")
        # Edited after the build: refused until it is built again.
        self.source.write_text("int ok = 1;\n")
        self.assertIn("built from an older version", self.problem(program))
        # Does not compile: the build goes on (status 0) with an empty object, the error is kept.
        self.source.write_text("broken\n")
        rc, out = self.launch("compile", self.source, obj)
        self.assertEqual(rc, 0, out)
        self.assertIn("error: expected a ';'", out)
        self.assertIn("Compiled in place of a lab source", obj.read_text())
        self.assertIn("the lab's code did not build: " + str(self.source) + "(3): error: expected a '\u037e'",
                      self.problem(program))
        # A program that does not link is removed, never kept from an earlier build.
        broken = self.root / "broken.o"
        broken.write_text("broken\n")
        rc, out = self.launch("link", broken, program)
        self.assertEqual(rc, 0, out)
        self.assertFalse(program.exists())
        self.source.write_text("int ok = 2;\n")
        rc, out = self.launch("compile", self.source, obj)  # compiles again: the marker goes
        self.assertEqual(rc, 0, out)
        self.assertIn("could not be linked with the lab's code: " + str(broken) + "(3): error", self.problem(program))
        rc, out = self.launch("link", obj, program)
        self.assertEqual((rc, self.problem(program)), (0, ""), out)

    def test_an_untouched_skeleton_is_not_started(self):
        """cudalab_not_started: a lab whose sources all have the hashes of tests/<lab>/skeleton.sha256
        runs no test (CUDALAB_GRADE_SKELETONS=1 runs them anyway); an edited file starts it."""
        import hashlib
        lab = self.root / "labs" / "ch99_01_x"
        lab.mkdir(parents=True)
        (self.root / "tests" / "ch99_01_x").mkdir(parents=True)
        self.source = lab / "x.cu"
        self.source.write_text("// TODO(ch99_01_x)\n")
        (self.root / "tests" / "ch99_01_x" / "skeleton.sha256").write_text(
            "# generated\n" + hashlib.sha256(self.source.read_bytes()).hexdigest() + "  x.cu\n")
        obj, program = self.root / "lab.o", self.root / "program"
        self.assertEqual(self.launch("compile", self.source, obj)[0], 0)
        self.assertEqual(self.launch("link", obj, program)[0], 0)
        self.assertTrue(self.problem(program).startswith("not started: " + str(lab)), self.problem(program))
        os.environ["CUDALAB_GRADE_SKELETONS"] = "1"
        try:
            self.assertEqual(self.problem(program), "")
        finally:
            del os.environ["CUDALAB_GRADE_SKELETONS"]
        self.source.write_text("// TODO(ch99_01_x)\nint started;\n")
        self.assertEqual(self.launch("compile", self.source, obj)[0], 0)
        self.assertEqual(self.launch("link", obj, program)[0], 0)
        self.assertEqual(self.problem(program), "")

    def test_the_sources_are_hashed_once_per_ctest_start(self):
        """Both checks of cudalab_program_problem (built from these sources? still the skeleton?), and
        every program of the lab, share one SHA-256 per source while ctest reads the test list: a
        change after the first look is not seen until the next ctest run."""
        script = self.root / "twice.cmake"
        script.write_text(f"include([==[{ROOT / 'cmake' / 'DiscoverTests.cmake'}]==])\n"
                          f"_cudalab_source_hashes(first [==[{self.source}]==] [==[{self.root / 'none.cu'}]==])\n"
                          f"file(WRITE [==[{self.source}]==] \"int edited;\\n\")\n"
                          f"_cudalab_source_hashes(again [==[{self.source}]==])\n"
                          "message(\"FIRST=${first}\\nAGAIN=${again}\")\n")
        rc, out = run([CMAKE, "-P", str(script)])
        self.assertEqual(rc, 0, out)
        import hashlib
        before = hashlib.sha256(b"int ok;\n").hexdigest()
        self.assertIn(f"FIRST={before};missing\nAGAIN={before}\n", out)


if __name__ == "__main__":
    unittest.main()


@unittest.skipUnless(CMAKE and NVCC, "cmake and nvcc needed")
class ReferenceImageTest(unittest.TestCase):
    """cmake/ReferenceImage.cmake: the generated table of reference images, compiled into a program."""

    PROGRAM = textwrap.dedent("""\
        #include "cudalab/reference_kernels.hpp"
        #include <cstdio>
        #include <cstring>
        int main(int argc, char **argv) {
          std::FILE *f = std::fopen(argv[1], "rb");
          static unsigned char file[1 << 20];
          const std::size_t n = f ? std::fread(file, 1, sizeof file, f) : 0;
          const cudalab::detail::ReferenceImage &first = cudalab::detail::kReferenceImages[0];
          std::printf("origin=%s\\n", cudalab::detail::kReferenceOrigin);
          if (first.bytes == nullptr) { std::printf("images=0\\n"); return 0; }
          std::printf("name=%s same=%d second=%d\\n", first.name,
                      int(first.size == n && std::memcmp(first.bytes, file, n) == 0),
                      int(cudalab::detail::kReferenceImages[1].bytes != nullptr));
          return 0;
        }
        """)

    def generate_and_run(self, t, images, origin, fatbin):
        cpp = t / "reference.cpp"
        rc, out = run([CMAKE, f"-DOUTPUT={cpp}", f"-DIMAGES={images}", f"-DORIGIN={origin}", "-P",
                       str(ROOT / "cmake" / "ReferenceImage.cmake")])
        self.assertEqual(rc, 0, out)
        (t / "main.cpp").write_text(self.PROGRAM)
        rc, out = run([NVCC, "-std=c++17", "-I", str(ROOT / "common" / "testing" / "include"), "-o", str(t / "prog"),
                       str(t / "main.cpp"), str(cpp)], timeout=300)
        self.assertEqual(rc, 0, out)
        rc, out = run([str(t / "prog"), str(fatbin)])
        self.assertEqual(rc, 0, out)
        return out

    def test_a_fatbin_comes_back_byte_for_byte(self):
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp)
            (t / "k.cu").write_text("__global__ void k(int *p) { p[threadIdx.x] = 1; }\n")
            fatbin = t / "k.cu.fatbin"
            rc, out = run([NVCC, "-fatbin", "-no-compress", "-gencode", "arch=compute_75,code=sm_75", "-o", str(fatbin),
                           str(t / "k.cu")], timeout=300)
            self.assertEqual(rc, 0, out)
            out = self.generate_and_run(t, f"k.cu={fatbin}", 'built from "solutions" for 75', fatbin)
            self.assertIn('origin=built from "solutions" for 75', out)
            self.assertIn("name=k.cu same=1 second=0", out)

    def test_no_image_says_why(self):
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp)
            out = self.generate_and_run(t, "", "this release has no reference kernels for ch99", t / "none")
            self.assertIn("origin=this release has no reference kernels for ch99", out)
            self.assertIn("images=0", out)

    def test_a_missing_image_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp)
            rc, out = run([CMAKE, f"-DOUTPUT={t / 'r.cpp'}", f"-DIMAGES=k.cu={t / 'absent.fatbin'}", "-DORIGIN=x", "-P",
                           str(ROOT / "cmake" / "ReferenceImage.cmake")])
            self.assertNotEqual(rc, 0)
            self.assertIn("does not exist", out)

    def test_an_image_that_does_not_compile_leaves_the_table_empty(self):
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp)
            (t / "k.cu").write_text("__global__ void k(int *p) { p[threadIdx.x] = not_declared; }\n")
            fatbin = t / "k.cu.fatbin"
            rc, out = run([CMAKE, f"-DNVCC={NVCC}", f"-DSOURCE={t / 'k.cu'}", f"-DFATBIN={fatbin}",
                           "-DFLAGS=-gencode;arch=compute_75,code=sm_75", "-P", str(ROOT / "cmake" / "ReferenceImage.cmake")],
                          timeout=300)
            self.assertEqual(rc, 0, out)  # the build goes on
            self.assertIn("did not compile", out)
            self.assertEqual(fatbin.stat().st_size, 0)
            self.assertIn("not_declared", (t / "k.cu.fatbin.why").read_text())
            out = self.generate_and_run(t, f"k.cu={fatbin}", "compiled from solutions", fatbin)
            self.assertIn("origin=the reference kernels did not compile in this build (k.cu: nvcc status", out)
            self.assertIn("images=0", out)

