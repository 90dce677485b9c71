"""Every lab README has the workbook's one structure and agrees with its lab.

    python3 -m unittest -v test_readmes      (from tools/; ctest runs it as tools.readmes_selftest)

The structure (docs/instructor-guide.md, "Writing a lab README"): the title line, then exactly these
level-2 sections in this order: Goal, Concept, Your task, Hints, What is graded (N points), Questions
to think about, Then and now, Going further. N is the lab's total_points in tests/LAB/grading.json,
and every test the graded table names exists in the lab's test sources. And the tests' sources launch
every kernel through cudalab::launch, never `<<< >>>` (cudalab/launch.cuh: a lab kernel's host
stub is the lab's code), but in device code.
"""
from __future__ import annotations

import json
import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The tools of the SanitizeAll checks (CUDALAB_SANITIZE_ALL_TOOLS in cmake/CudaLab.cmake).
SANITIZE_ALL_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck", "globalrace")

SECTIONS = ["Goal", "Concept", "Your task", "Hints", "What is graded", "Questions to think about",
            "Then and now", "Going further"]


def lab_dirs(root: Path = ROOT) -> list[Path]:
    """labs/ch*/ folders that have a README."""
    return sorted(p for p in (root / "labs").glob("ch*") if (p / "README.md").is_file())


def headings(text: str) -> list[str]:
    """Level-2 headings outside fenced code blocks."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            out.append(line[3:].strip())
    return out


def structure_problems(lab: str, text: str, total_points: float | None) -> list[str]:
    """What is wrong with one README's outline ([] if nothing)."""
    problems = []
    first = text.splitlines()[0] if text else ""
    short = lab.split("_", 2)[0] + "_" + lab.split("_", 2)[1] if lab.count("_") >= 2 else lab
    if not first.startswith(f"# {short} — "):
        problems.append(f"the first line must be the title `# {short} — ...`, not {first[:60]!r}")
    found = headings(text)
    names = [re.sub(r" \(.*\)$", "", h) if h.startswith("What is graded") else h for h in found]
    if names != SECTIONS:
        problems.append(f"level-2 sections are {names}, expected {SECTIONS} (other sections go under "
                        "them as ### subsections)")
    graded = [h for h in found if h.startswith("What is graded")]
    if graded and total_points is not None:
        m = re.fullmatch(r"What is graded \((\d+(?:\.\d+)?) points\)", graded[0])
        if not m or float(m.group(1)) != total_points:
            problems.append(f"`## {graded[0]}` must say ({total_points:g} points), the total_points of "
                            "its grading.json")
    return problems


def graded_table_tests(text: str) -> list[str]:
    """Test names in the first column of the 'What is graded' table: `Suite.Name`, with optional
    `Prefix/` and `/suffix` parts of parameterised tests."""
    section = text.split("## What is graded", 1)[1] if "## What is graded" in text else ""
    section = section.split("\n## ", 1)[0]
    names = []
    for line in section.splitlines():
        m = re.match(r"\|\s*`([^`]+)`", line)
        if m:
            names.append(m.group(1))
    return names


def missing_tests(lab: str, text: str, root: Path = ROOT) -> list[str]:
    """Graded-table entries whose test name appears nowhere in tests/LAB/ (sources and CMake)."""
    sources = "".join(p.read_text(errors="replace") for p in sorted((root / "tests" / lab).rglob("*"))
                      if p.is_file() and p.suffix in (".cu", ".cpp", ".cuh", ".hpp", ".h", ".txt", ".cmake"))
    # SANITIZER_CHECKS tool:case:clean makes Sanitizer.tool_case, tool:case:flagged SanitizerExhibit.tool_case
    sanitizer = {("Sanitizer" if expect == "clean" else "SanitizerExhibit", f"{tool}_{case}")
                 for tool, case, expect in re.findall(r"\b(\w+):(\w+):(clean|flagged)\b", sources)}
    # Tests generated from grading.json (cmake/StudentPtx.cmake): Technique.<kernel> for each kernel
    # of "technique", Barriers.ReachedByEveryThread when "barrier_kernels" is declared.
    grading = root / "tests" / lab / "grading.json"
    if grading.is_file():
        declared = json.loads(grading.read_text())
        sources += " ".join(f" Technique {k} " for k in declared.get("technique", {}))
        if declared.get("barrier_kernels"):
            sources += " Barriers ReachedByEveryThread "
    # FaultInjection.<function>_<case>: registered for grading.json's "reports_errors"
    # (tests/support/fault_injection.cuh): _launch_failure, _no_fault, and _kernel_fault for "kernel".
    fault_tests = set()
    grading = root / "tests" / lab / "grading.json"
    if grading.is_file():
        for entry in json.loads(grading.read_text()).get("reports_errors", []):
            cases = ["launch_failure", "no_fault"] + (["kernel_fault"] if "kernel" in entry.get("reports", []) else [])
            fault_tests.update(f"{entry.get('function')}_{case}" for case in cases)
    # cudalab_add_lab makes SanitizeAll.<tool> for every tool that grading.json's sanitize_all does
    # not leave out (skip_tools), in a lab whose student writes kernels
    grading = root / "tests" / lab / "grading.json"
    config = json.loads(grading.read_text()).get("sanitize_all", {}) if grading.is_file() else {}
    sanitize_all = {t for t in SANITIZE_ALL_TOOLS if t not in config.get("skip_tools", {})}
    missing = []
    for entry in graded_table_tests(text):
        for part in entry.split("/"):
            m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*|\*)", part.strip())
            if m:
                if m.group(1) == "FaultInjection":
                    if m.group(2) != "*" and m.group(2) not in fault_tests or m.group(2) == "*" and not fault_tests:
                        missing.append(entry)
                    break
                if m.group(1) == "SanitizeAll":
                    if m.group(2) != "*" and m.group(2) not in sanitize_all:
                        missing.append(entry)
                    break
                if m.group(1) in ("Sanitizer", "SanitizerExhibit"):
                    if m.group(2) != "*" and m.groups() not in sanitizer:
                        missing.append(entry)
                    break
                words = [w for w in m.groups() if w != "*"]
                if not all(re.search(rf"\b{w}\b", sources) for w in words):
                    missing.append(entry)
                break
    return missing


class LabReadmes(unittest.TestCase):
    def test_there_are_labs(self):
        self.assertTrue(lab_dirs(), "no labs/ch*/README.md found")

    def test_every_readme_has_the_one_structure(self):
        for lab_dir in lab_dirs():
            lab = lab_dir.name
            with self.subTest(lab=lab):
                grading = ROOT / "tests" / lab / "grading.json"
                total = json.loads(grading.read_text())["total_points"] if grading.is_file() else None
                problems = structure_problems(lab, (lab_dir / "README.md").read_text(), total)
                self.assertEqual(problems, [], f"labs/{lab}/README.md: " + "; ".join(problems))

    def test_every_graded_test_exists(self):
        for lab_dir in lab_dirs():
            lab = lab_dir.name
            if not (ROOT / "tests" / lab).is_dir():
                continue
            with self.subTest(lab=lab):
                text = (lab_dir / "README.md").read_text()
                self.assertTrue(graded_table_tests(text), f"labs/{lab}/README.md: no tests in 'What is graded'")
                missing = missing_tests(lab, text)
                self.assertEqual(missing, [], f"labs/{lab}/README.md names tests that tests/{lab}/ does not have")


def learning_path_figures(text: str) -> tuple[float, float, int, tuple[float, float, int] | None]:
    """(hours of every lab, hours of the short course, its labs) added up from docs/learning-path.md's
    table (columns: #, lab, book sections, hours, difficulty, take/skip), and the figures its
    sentence "About X hours for all ..., about Y for the short course (N labs)" states (None when
    the sentence is missing)."""
    total = short = 0.0
    taken = 0
    for line in text.splitlines():
        if not re.match(r"^\| *\d+ *\|", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        total += float(cells[3])
        if cells[5] == "take":
            short += float(cells[3])
            taken += 1
    m = re.search(r"About ([\d.]+) hours for all .*?, about ([\d.]+) for the short course \((\d+) labs\)", text)
    stated = (float(m.group(1)), float(m.group(2)), int(m.group(3))) if m else None
    return total, short, taken, stated


class Figures(unittest.TestCase):
    """Figures the docs state are checked against the tree, so they cannot drift."""

    def test_the_learning_paths_hours_add_up(self):
        total, short, taken, stated = learning_path_figures((ROOT / "docs" / "learning-path.md").read_text())
        self.assertIsNotNone(stated, "docs/learning-path.md: the sentence with the hours is missing")
        self.assertEqual(stated, (total, short, taken),
                         f"docs/learning-path.md states {stated}, its table adds up to {(total, short, taken)}")

    def test_the_student_guides_label_example_selects_what_it_says(self):
        labs = [p.name for p in lab_dirs()]
        text = (ROOT / "docs" / "student-guide.md").read_text()
        for pattern, first, last in re.findall(r"`-L '([^']+)'` for (ch\d+_\d+) … (ch\d+_\d+)", text):
            chosen = [l for l in labs if re.search(pattern, l)]
            self.assertEqual((chosen[0][:7], chosen[-1][:7]), (first, last),
                             f"docs/student-guide.md: -L '{pattern}' selects {chosen}")


def host_launches_with_a_stub(text: str) -> list[int]:
    """The line numbers of @p text (C++/CUDA source) with a `<<<` outside comments and strings that
    is not marked as a device-side launch (`// cudalab: device-side launch`: cudalab::launch is a
    host function, and a kernel launching a kernel runs no host code) or as a lab's own launch in
    a self-test that stands for a lab (`// cudalab: a lab's launch`)."""
    lines = []
    in_block = False
    for number, line in enumerate(text.splitlines(), 1):
        code = ""
        i = 0
        while i < len(line):
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    i = len(line)
                    continue
                in_block, i = False, end + 2
            elif line.startswith("/*", i):
                in_block, i = True, i + 2
            elif line.startswith("//", i):
                break
            elif line[i] == '"':
                j = i + 1
                while j < len(line) and line[j] != '"':
                    j += 2 if line[j] == "\\" else 1
                i = j + 1
            else:
                code += line[i]
                i += 1
        if "<<<" in code and "cudalab: device-side launch" not in line and "cudalab: a lab's launch" not in line:
            lines.append(number)
    return lines


class TestsLaunchWithoutStubs(unittest.TestCase):
    """tests/, common/testing/ and the labs' headers (whose inline launchers the tests call) launch
    kernels with cudalab::launch (cudalab/launch.cuh), which hands the kernel's address to the
    runtime: `kernel<<< >>>` would call the kernel's host stub, which for a lab's kernel is compiled
    from the lab's file and can run the lab's host code."""

    def test_no_stub_launch_in_the_tests(self):
        found = []
        for base in (ROOT / "tests", ROOT / "common" / "testing", ROOT / "labs"):
            for path in sorted(base.rglob("*")):
                if path.suffix not in (".cu", ".cuh", ".cpp", ".hpp", ".h") or "mutants" in path.parts:
                    continue
                if base.name == "labs" and path.suffix not in (".cuh", ".hpp", ".h"):
                    continue  # the student's sources and demos launch as they like; a header's inline
                    # launchers run in the tests
                for number in host_launches_with_a_stub(path.read_text(errors="replace")):
                    found.append(f"{path.relative_to(ROOT)}:{number}")
        self.assertEqual(found, [], "launch with cudalab::launch(kernel, grid, block[, shared[, stream]])(args...) "
                                    "instead of kernel<<<...>>>(args...) (cudalab/launch.cuh)")

    def test_the_scan(self):
        text = ('k<<<1, 1>>>(p);\n'
                '// k<<<1, 1>>>(p) in a comment\n'
                'msg << "k<<<" << 1;\n'
                '/* k<<<1, 1>>>(p)\n'
                '   still a comment */ cudalab::launch(k, 1, 1)(p);\n'
                '__global__ void parent() { child<<<1, 1>>>(); }  // cudalab: device-side launch\n'
                'f(x); kernel<<<g, b, 0, s>>>(a, b);\n')
        self.assertEqual(host_launches_with_a_stub(text), [1, 7])


class Checks(unittest.TestCase):
    """The checks above can fail."""
    GOOD = ("# ch09_01 — A lab (notes)\n\n## Goal\n\n## Concept\n```\n## not a heading\n```\n## Your task\n"
            "## Hints\n## What is graded (7 points)\n\n| test | points |\n|---|---|\n| `Suite.Name` | 7 |\n\n"
            "## Questions to think about\n## Then and now\n## Going further\n")

    def test_good_outline(self):
        self.assertEqual(structure_problems("ch09_01_lab", self.GOOD, 7), [])
        self.assertEqual(graded_table_tests(self.GOOD), ["Suite.Name"])

    def test_wrong_points_missing_or_extra_section_and_title(self):
        self.assertTrue(structure_problems("ch09_01_lab", self.GOOD, 8))
        self.assertTrue(structure_problems("ch09_01_lab", self.GOOD.replace("## Hints\n", ""), 7))
        self.assertTrue(structure_problems("ch09_01_lab", self.GOOD.replace("## Goal\n", "## Goal\n## Extra\n"), 7))
        self.assertTrue(structure_problems("ch09_01_lab", self.GOOD.replace("ch09_01 —", "ch09_02 —"), 7))

    def test_a_graded_test_that_does_not_exist(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            tests = Path(tmp) / "tests" / "ch09_01_lab"
            tests.mkdir(parents=True)
            (tests / "test_gpu.cu").write_text("TEST(Suite, Name) {}\n")
            (tests / "CMakeLists.txt").write_text("SANITIZER_CHECKS racecheck:x:clean racecheck:y:flagged\n")
            text = self.GOOD.replace("| `Suite.Name` | 7 |", "| `Suite.Name` | 1 |\n| `Suite.Other` | 1 |\n"
                                     "| `Sanitizer.racecheck_x` | 1 |\n| `Sanitizer.racecheck_y` | 0 |\n"
                                     "| `SanitizerExhibit.racecheck_y` | 0 |")
            self.assertEqual(missing_tests("ch09_01_lab", text, Path(tmp)),
                             ["Suite.Other", "Sanitizer.racecheck_y"])


if __name__ == "__main__":
    unittest.main()
