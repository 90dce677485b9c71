#!/usr/bin/env python3
"""Grade a whole class: every submission with tools/grade_submission.py's rules, in a few shared trees.

    tools/staff/grade_class.py SUBMISSION... --labs LAB... --out DIR [-j N] [--gpu-jobs M] [--gpu-share K]
    tools/staff/grade_class.py SUBMISSION... --labs LAB... --out DIR --slurm [--partition P] [--gres gpu:1] ...
    tools/staff/grade_class.py --gather --out DIR

SUBMISSION is one student's submission (a folder or a .zip/.tar/.tar.gz archive, as
grade_submission.py takes it) or a folder of them: a folder with a labs/ folder or lab folders
(ch03_05_occupancy/, ...) directly inside is one submission, any other folder holds one submission
per entry (hidden entries are skipped). The student id is the entry's name without the archive
suffix (alice.zip -> alice). Two submissions with the same id (alice/ and alice.zip, or Alice and
alice) are neither graded nor in the roster: both are listed as problems until one is removed.

Each submission is graded exactly as `grade_submission.py SUBMISSION --labs LAB...` grades it: only
each lab's declared sources are taken, tests and thresholds come from a pristine copy of this
repository, the same points. What is shared: N worker trees (-j), each copied and configured once
for all the labs asked for; each submission is overlaid on a worker's tree and only its labs are
rebuilt (a compiler cache, ccache, makes a source compiled once for the whole class; --ccache-dir);
host tests run beside everything, the GPU correctness tests of up to --gpu-share submissions share
the GPU (--gpu-jobs tests each), and the tests that time kernels or size their data from the free
GPU memory (RUN_SERIAL, label "serial": every performance test) always have the GPU alone: those
of up to --serial-batch submissions one after another, so that the GPU empties for them once per
batch. The closing line says where the time went (build, waiting for the GPU, tests; the GPU idle,
shared, alone).

Output in DIR:
  students/<id>/   results.json and report.txt as grade_submission.py writes them, summary.json
                   and grade.xml (the grade step's), build.log, ctest.log, sources/ (the files graded) and
                   grade.json (this tool's record: written last, it marks the grade finished)
  roster.csv       student,lab,points,max: one row per student and lab (Gradescope, Canvas)
  grades.csv       one row per student: a column per lab, total, max
  problems.csv     student,submission,problem: not graded (and why), duplicate ids, changed since graded
  class-report.html  one self-contained page: the score distribution per lab, per test how many
                   students failed it and the most common failure message, the problems
  class.json       the class as last planned (submissions, labs), read by --gather

Resumable: a finished grade (students/<id>/grade.json) is never redone or lost. A second run grades
only the submissions that have none; a submission that changed since its grade (or a run with other
--labs) is listed as a problem and keeps its grade until `--regrade ID` (the earlier grade is moved
to DIR/previous/, never deleted). A stop (Ctrl-C) or a crash loses only the submissions being graded.

A submission that does not compile, hangs or crashes loses those tests (time limits per test,
--build-timeout per build); one that is empty, unreadable, holds no lab source or only refused
files (paths escaping it, links, files over 2 MiB) is "not graded" with grade_submission.py's
reason and 0 points for each lab named in --labs. A submission that could not be graded for a reason
of the grading machine (configure failed, disk full) gets no record and is tried again next run.

Slurm (--slurm): writes DIR/slurm/grade.sbatch, a job array with one task per --chunk submissions
(those without a finished grade), and DIR/slurm/gather.sbatch, which runs after every task
(--dependency=afterany) and writes the roster and report; submits both with sbatch (--no-submit:
writes them and prints the commands). Each task grades its submissions in one worker tree under
--scratch (node-local, removed at the end) and writes students/<id>/ into DIR, which must be on a
file system the compute nodes share with this machine, as must this repository. The cluster needs:
  --partition P        a partition with GPU nodes (sinfo -o "%P %G" lists partitions and their gres)
  --gres gpu:1         one GPU per task (the default; "none" for a partition without gres)
  --cpus-per-task 8    compile jobs per task; --time 2:00:00 per task; --mem 16G
  --setup "module load cuda/12.6 cmake ninja"   shell lines run first in every task (repeatable):
                       the CUDA Toolkit (12.0 or newer), CMake >= 3.25, Ninja, Python 3, ccache if any
  --launcher "apptainer exec --nv cuda-labs.sif"   or a container with all of them, the command prefix
Rerunning --slurm submits only what is still missing; `--gather --out DIR` rebuilds the roster and
report by hand. See docs/instructor-guide.md, "Grading a class".

Exit status: 0 every submission has a grade or a reason it was not graded; 1 some have neither
(duplicate ids, submissions that could not be graded, tasks still running); 2 bad command line.
"""
from __future__ import annotations

import argparse
import csv
import fcntl
import datetime
import hashlib
import html
import io
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tools/: the shared modules
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/staff: mutants.py
import grade_submission as gs  # noqa: E402
import labinfo  # noqa: E402
from mutants import GpuLock, merge_junit  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOOL = Path(__file__).resolve()
FORMAT = 1
RECORD = "grade.json"
ARCHIVE_SUFFIXES = (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".zip", ".tar")
ID_CHARS = re.compile(r"[^A-Za-z0-9._@+-]+")


class UsageError(Exception):
    """A command line or output directory that cannot be used (exit 2)."""


def log(message: str) -> None:
    print(message, flush=True)


# ---------------------------------------------------------------------------------------------
# The class: which submissions, which student ids.

@dataclass
class Entry:
    student: str
    path: Path
    fingerprint: str = ""


def student_id(path: Path) -> str:
    """alice.zip -> alice; characters a folder name should not have become '_'."""
    name = path.name
    for suffix in ARCHIVE_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[:-len(suffix)]
            break
    name = ID_CHARS.sub("_", name).strip("._") or "_"
    return name


def looks_like_submission(folder: Path, labs: list[str]) -> bool:
    """A folder with labs/ or a lab folder directly inside is one submission."""
    try:
        names = {p.name for p in folder.iterdir()}
    except OSError:
        return True  # unreadable: graded (and reported) as one submission
    return "labs" in names or any(n in labs for n in names)


def discover(paths: list[Path], labs: list[str]) -> tuple[list[Entry], list[dict]]:
    """The submissions named on the command line (folders of submissions expanded) and the
    conflicts: ids that two submissions share ({student, submissions, problem})."""
    found: list[Path] = []
    for p in paths:
        if p.is_dir() and not p.is_symlink() and not looks_like_submission(p, labs):
            found += sorted(c for c in p.iterdir() if not c.name.startswith("."))
        else:
            found.append(p)
    unique: dict[Path, Path] = {}
    for p in found:
        unique.setdefault(p.resolve() if p.exists() else p.absolute(), p)
    by_id: dict[str, list[Path]] = {}
    for p in unique:
        by_id.setdefault(student_id(p).casefold(), []).append(p)
    entries, conflicts = [], []
    for key in sorted(by_id):
        group = sorted(by_id[key])
        if len(group) == 1:
            entries.append(Entry(student_id(group[0]), group[0]))
        else:
            conflicts.append({"student": student_id(group[0]), "submissions": [str(p) for p in group],
                              "problem": f"{len(group)} submissions share the student id {student_id(group[0])!r}: "
                                         + ", ".join(p.name for p in group)
                                         + "; neither is graded or in the roster. Keep one (or rename one) and run again."})
    return entries, conflicts


def fingerprint(path: Path) -> str:
    """A hash of the submission: its bytes (an archive), or its files' names, sizes and contents
    (a folder; files over 16 MiB by size and time only)."""
    h = hashlib.sha256()
    try:
        if path.is_file():
            with path.open("rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        elif path.is_dir():
            for p in sorted(path.rglob("*")):
                rel = p.relative_to(path).as_posix()
                if p.is_symlink():
                    h.update(f"L {rel} -> {os.readlink(p)}\n".encode())
                elif p.is_file():
                    st = p.stat()
                    h.update(f"F {rel} {st.st_size}\n".encode())
                    if st.st_size <= 16 << 20:
                        h.update(hashlib.sha256(p.read_bytes()).digest())
                    else:
                        h.update(str(st.st_mtime_ns).encode())
        else:
            h.update(b"missing" if not path.exists() else b"other")
    except OSError as e:
        h.update(f"unreadable {e}".encode())
    return h.hexdigest()[:32]


# ---------------------------------------------------------------------------------------------
# Records: students/<id>/grade.json, written last and atomically.

def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def load_record(out: Path, student: str) -> dict | None:
    try:
        record = json.loads((out / "students" / student / RECORD).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("format") == FORMAT else None


def lab_total(lab: str) -> float:
    """grading.json's total_points (what a lab is out of when it is not graded)."""
    try:
        return float(json.loads((ROOT / "tests" / lab / "grading.json").read_text()).get("total_points", 0))
    except (OSError, ValueError, TypeError):
        return 0.0


def named_labs(labs: list[str]) -> list[str]:
    return [lab for lab in labs if lab != "submitted"]


def not_graded_record(entry: Entry, labs: list[str], reason: str) -> dict:
    """The record of a submission that is not graded: 0 of total_points for each named lab."""
    per_lab = {lab: {"points": 0.0, "max": lab_total(lab)} for lab in named_labs(labs)}
    return {"format": FORMAT, "student": entry.student, "submission": str(entry.path),
            "fingerprint": entry.fingerprint, "labs_asked": labs, "status": "not graded", "reason": reason,
            "labs": per_lab, "tests": [], "device": "", "graded_at": now(), "seconds": {}}


def graded_record(entry: Entry, labs: list[str], summary: dict, seconds: dict) -> dict:
    per_lab = {}
    for lab, s in summary.get("labs", {}).items():
        per_lab[lab] = {"points": s["correctness"][0] + s["performance"][0],
                        "max": s["correctness"][1] + s["performance"][1]}
    tests = [{k: t.get(k) for k in ("name", "lab", "kind", "where", "status", "points", "max_points", "reason")}
             for t in summary.get("tests", [])]
    return {"format": FORMAT, "student": entry.student, "submission": str(entry.path),
            "fingerprint": entry.fingerprint, "labs_asked": labs, "status": "graded", "reason": "",
            "labs": per_lab, "tests": tests, "device": summary.get("device", ""), "graded_at": now(),
            "seconds": {k: round(v, 1) for k, v in seconds.items()}}


def now() -> str:
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def duration(seconds: float) -> str:
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


# ---------------------------------------------------------------------------------------------
# Grading: worker trees, one submission at a time each.

class Stopped(Exception):
    """The run is being stopped (Ctrl-C, SIGTERM, scancel): no grade may be written now."""


STOP = threading.Event()
RUNNING: set = set()  # the process groups of the commands running now
RUNNING_LOCK = threading.Lock()


def stop_everything(*_) -> None:
    """Stops every command this run started; the submissions being graded get no grade."""
    STOP.set()
    with RUNNING_LOCK:
        for pid in list(RUNNING):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def run_logged(cmd: list[str], logfile: Path, timeout: float | None = None, env: dict | None = None) -> int | None:
    """Runs @p cmd with its output appended to @p logfile; None if it ran past @p timeout
    (its whole process group is stopped). Raises Stopped when the run is being stopped."""
    if STOP.is_set():
        raise Stopped()
    with logfile.open("a") as f:
        f.write("$ " + " ".join(map(str, cmd)) + "\n")
        f.flush()
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        with RUNNING_LOCK:
            RUNNING.add(proc.pid)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            f.write(f"\n(stopped after {timeout:g} s)\n")
            rc = None
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        finally:
            with RUNNING_LOCK:
                RUNNING.discard(proc.pid)
        if STOP.is_set():
            raise Stopped()
        return rc


@dataclass
class Options:
    labs: list[str]
    out: Path
    workers: int = 1
    build_jobs: int = 2
    gpu_jobs: int = 4
    gpu_share: int = 2
    serial_batch: int = 1         # submissions whose timed tests wait for each other (GpuLock's batch)
    ccache_dir: str = ""          # "" : none
    build_timeout: float = 1800
    test_timeout: float = 3 * 3600
    work: Path | None = None      # where the worker trees go (default out/work)


def cores() -> int:
    """The cores this process may use (a Slurm task's allocation, not the whole node's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 2


def config_labs(labs: list[str]) -> list[str]:
    """The labs a worker tree is configured for: the named ones, every lab with 'submitted'."""
    names = labinfo.lab_names(ROOT)
    return names if "submitted" in labs else [n for n in names if n in labs]


class Worker:
    """One pristine tree and build, configured once for every lab of the class."""

    def __init__(self, work: Path, opts: Options) -> None:
        self.work, self.opts = work, opts
        self.tree, self.build = work / "tree", work / "build"
        self.ready = False
        self.env = dict(os.environ)
        self.extra: list[str] = []
        if opts.ccache_dir:
            self.env.update(CCACHE_DIR=opts.ccache_dir, CCACHE_BASEDIR=str(work.parent), CCACHE_NOHASHDIR="true")
            self.extra = ["-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]

    def ensure(self, warm_lock: threading.Lock | None = None) -> None:
        """Copies and configures the tree (once). With the compiler cache, the first worker then
        builds every lab of the class from the pristine tree on all cores while the others wait, so
        that the code every submission shares (tests, common, GoogleTest) is compiled once and the
        other workers take it from the cache."""
        if self.ready:
            return
        labs = config_labs(self.opts.labs)
        gs.prepare(self.work, labs, extra=self.extra, env=self.env)
        if self.opts.ccache_dir and warm_lock is not None:
            with warm_lock:
                (self.work / "warm.log").write_text("")
                run_logged(["nice", "-n", "5", "cmake", "--build", str(self.build), "-j", str(cores()),
                            "--target", *[f"tests/{lab}/all" for lab in labs], "cudalab_info", "--", "-k", "0"],
                           self.work / "warm.log", self.opts.build_timeout, self.env)
        self.ready = True

    def stale_programs(self, labs: list[str]) -> list[Path]:
        """After a failed build: the labs' programs that were not rebuilt (a previous submission's)."""
        stale = []
        for lab in labs:
            for exe in sorted((self.build / "tests" / lab).glob(f"{lab}_*")):
                if not (exe.is_file() and os.access(exe, os.X_OK)):
                    continue
                proc = subprocess.run(["ninja", "-C", str(self.build), "-n", str(exe.relative_to(self.build))],
                                      capture_output=True, text=True)
                if "no work to do" not in proc.stdout:
                    stale.append(exe)
        return stale

    def build_labs(self, labs: list[str], build_log: Path, notes: list[str]) -> float:
        """Rebuilds the labs' targets only (past failures); a program that did not build is removed,
        so its tests say "not built", as for a student whose code does not compile."""
        start = time.monotonic()
        targets = [f"tests/{lab}/all" for lab in labs] + ["cudalab_info"]
        rc = run_logged(["cmake", "--build", str(self.build), "-j", str(self.opts.build_jobs), "--target", *targets,
                         "--", "-k", "0"], build_log, self.opts.build_timeout, self.env)
        if rc is None:
            notes.append(f"the build ran past {self.opts.build_timeout:g} s and was stopped: what did not build "
                         "is graded as not built")
        if rc != 0:
            for exe in self.stale_programs(labs):
                exe.unlink()
        return time.monotonic() - start


class Grader:
    """Grades entries into out/students/<id>/ with a pool of worker trees and one GPU."""

    def __init__(self, opts: Options) -> None:
        self.opts = opts
        self.gpu = GpuLock(opts.gpu_share, batch=opts.serial_batch)
        self.workers: list[Worker] = []
        self.free: list[Worker] = []
        self.lock = threading.Lock()
        self.warm_lock = threading.Lock()

    def worker(self) -> Worker:
        with self.lock:
            if self.free:
                return self.free.pop()
            work = (self.opts.work or self.opts.out / "work") / f"w{len(self.workers)}"
            w = Worker(work.resolve() if work.is_absolute() else work.absolute(), self.opts)
            self.workers.append(w)
            return w

    def release(self, w: Worker) -> None:
        with self.lock:
            self.free.append(w)

    def grade(self, entry: Entry) -> tuple[dict | None, str]:
        """Grades one submission: (its record, "") or (None, why it could not be graded)."""
        dest = self.opts.out / "students" / entry.student
        clear_student(dest)
        header = [f"Submission: {entry.path}"]
        notes: list[str] = []
        only = self.opts.labs
        try:
            intake, labs, selected = gs.plan_submission(entry.path, only, header, notes)
        except (gs.SubmissionError, labinfo.LabError) as e:
            message = f"not graded: {e}"
            gs.finish(dest, gs.failure_results(message, notes), header + [message] + notes, False)
            record = not_graded_record(entry, only, str(e))
            write_atomic(dest / RECORD, json.dumps(record, indent=1) + "\n")
            return record, ""
        save_sources(dest, intake.files, selected)
        w = self.worker()
        try:
            try:
                w.ensure(self.warm_lock)
            except (gs.GradingError, gs.SubmissionError, OSError) as e:
                return None, f"worker tree {w.work} could not be prepared: {str(e).splitlines()[0]}"
            gs.overlay(w.tree, intake.files, selected, notes, labs)
            summary, table, seconds = self.build_and_test(w, selected, dest, notes)
            if STOP.is_set():
                raise Stopped()
            results = gs.graded_results(w.build, selected, notes, table)
            gs.finish(dest, results, header + gs.notes_block(notes) + [table], False)
            record = graded_record(entry, only, summary, seconds)
            write_atomic(dest / RECORD, json.dumps(record, indent=1) + "\n")
            return record, ""
        except Stopped:
            return None, "stopped before it was graded"
        except gs.GradingError as e:
            w.ready = False  # configure it again before its next submission
            return None, f"could not be graded: {str(e).strip().splitlines()[0][:300]}"
        except Exception as e:  # noqa: BLE001 -- one submission's failure never stops the class
            w.ready = False
            (dest / "error.txt").write_text(traceback.format_exc())
            return None, f"could not be graded: {type(e).__name__}: {e} (see {dest / 'error.txt'})"
        finally:
            self.release(w)

    def build_and_test(self, w: Worker, selected: list[str], dest: Path,
                       notes: list[str]) -> tuple[dict, str, dict]:
        """Builds the selected labs in worker @p w and runs their tests: host tests beside anything,
        GPU correctness tests sharing the GPU, serial ones (timed, big-memory) alone. Returns the
        grade step's summary, score table and where the time went."""
        build_log, ctest_log = dest / "build.log", dest / "ctest.log"
        build_log.write_text("")
        ctest_log.write_text("")
        seconds = {"build": w.build_labs(selected, build_log, notes), "wait": 0.0, "wait_alone": 0.0, "tests": 0.0}
        grade_dir = w.build / "grade"
        grade_dir.mkdir(parents=True, exist_ok=True)
        env = dict(w.env, CUDALAB_GRADING="1")
        labs_re = "^(" + "|".join(re.escape(lab) for lab in selected) + ")$"
        parts = []

        def ctest(part: str, jobs: int, select: list[str], lock=None) -> None:
            junit = grade_dir / f"junit-{part}.xml"
            junit.unlink(missing_ok=True)
            asked = time.monotonic()
            if lock is not None:
                lock.__enter__()
            got = time.monotonic()
            seconds["wait_alone" if part == "serial" else "wait"] += got - asked
            try:
                rc = run_logged(["ctest", "--test-dir", str(w.build), "-j", str(jobs), "--output-junit", str(junit),
                                 "-L", labs_re, *select], ctest_log, self.opts.test_timeout, env)
            finally:
                if lock is not None:
                    lock.__exit__(None, None, None)
                seconds["tests"] += time.monotonic() - got
            if rc is None:
                raise gs.GradingError(f"ctest ({part}) ran past {self.opts.test_timeout:g} s")
            parts.append(junit)

        ctest("host", max(1, self.opts.build_jobs), ["-L", "^host$"])
        ctest("gpu", max(1, self.opts.gpu_jobs), ["-LE", "^(host|serial)$"], self.gpu.shared())
        ctest("serial", 1, ["-L", "^serial$", "-LE", "^host$"], self.gpu.exclusive())
        junit = grade_dir / "junit.xml"
        merge_junit(parts, junit)
        (grade_dir / "summary.json").unlink(missing_ok=True)
        (grade_dir / "results.json").unlink(missing_ok=True)
        table = gs.grade_step(w.build, junit, build_log)
        try:
            summary = json.loads((grade_dir / "summary.json").read_text())
        except (OSError, ValueError):
            raise gs.GradingError(f"the grade step wrote no summary.json:\n{table[-3000:]}") from None
        for name in ("summary.json", "grade.xml"):
            if (grade_dir / name).is_file():
                shutil.copyfile(grade_dir / name, dest / name)
        table = table.replace(f"{grade_dir}/: grade.xml (JUnit), summary.json, results.json",
                              f"{dest}/: grade.xml (JUnit), summary.json, results.json")
        return summary, table, seconds


STUDENT_ENTRIES = ("results.json", "report.txt", "summary.json", "grade.xml", "build.log", "ctest.log", "sources", "error.txt",
                   RECORD)


def clear_student(dest: Path) -> None:
    """Removes what an unfinished earlier attempt of this tool left in @p dest (never a finished one:
    callers only grade students without a record)."""
    dest.mkdir(parents=True, exist_ok=True)
    gs.remove_entries(dest, STUDENT_ENTRIES)


def save_sources(dest: Path, files: dict, selected: list[str]) -> None:
    """The files that were graded, as dest/sources/labs/<lab>/<file>."""
    for rel, data in files.items():
        if rel.parts[0] in selected:
            path = dest / "sources" / "labs" / Path(*rel.parts)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


# ---------------------------------------------------------------------------------------------
# Planning and running a class.

def plan(out: Path, entries: list[Entry], labs: list[str], regrade: list[str]) -> tuple[list[Entry], list[dict]]:
    """(the entries to grade now, problems with finished grades), after moving --regrade's grades
    to out/previous/."""
    todo, notes = [], []
    wanted = {r.casefold() for r in regrade}
    for e in entries:
        record = load_record(out, e.student)
        if record is not None and (e.student.casefold() in wanted or "all" in wanted):
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            target = out / "previous" / f"{e.student}-{stamp}"
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(out / "students" / e.student, target)
            log(f"grade_class: {e.student}: the earlier grade was moved to {target}")
            record = None
        if record is None:
            todo.append(e)
        elif record.get("fingerprint") != e.fingerprint or record.get("labs_asked") != labs:
            what = "the submission changed" if record.get("fingerprint") != e.fingerprint else "--labs differ"
            notes.append({"student": e.student, "submission": str(e.path),
                          "problem": f"{what} since it was graded ({record.get('graded_at', '?')}): the earlier grade "
                                     f"is kept; --regrade {e.student} grades it again"})
    return todo, notes


def write_class(out: Path, entries: list[Entry], conflicts: list[dict], labs: list[str], stale: list[dict]) -> None:
    data = {"format": FORMAT, "labs": labs, "planned_at": now(),
            "submissions": [{"student": e.student, "path": str(e.path), "fingerprint": e.fingerprint} for e in entries],
            "conflicts": conflicts, "stale": stale}
    write_atomic(out / "class.json", json.dumps(data, indent=1) + "\n")


def read_class(out: Path) -> dict:
    try:
        data = json.loads((out / "class.json").read_text())
    except FileNotFoundError:
        raise UsageError(f"{out / 'class.json'} is missing: grade the class into {out} first") from None
    except (OSError, ValueError) as e:
        raise UsageError(f"{out / 'class.json'} cannot be read: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{out / 'class.json'} was not written by this version of grade_class.py")
    return data


def grade_entries(todo: list[Entry], opts: Options, total: int, already: int,
                  gpu_seconds: dict | None = None) -> list[dict]:
    """Grades @p todo with opts.workers workers, printing progress; returns the problems. Fills
    @p gpu_seconds with the seconds the GPU was idle, shared by correctness tests, and alone."""
    grader = Grader(opts)
    problems: list[dict] = []
    printing = threading.Lock()
    start = time.monotonic()
    done = [0]

    def one(entry: Entry) -> None:
        if STOP.is_set():
            return
        t0 = time.monotonic()
        try:
            record, why = grader.grade(entry)
        except Exception as e:  # noqa: BLE001 (the class goes on)
            record, why = None, f"could not be graded: {type(e).__name__}: {e}"
        with printing:
            if STOP.is_set() and record is None:
                log(f"grade_class: {entry.student}: stopped before it was graded")
                return
            done[0] += 1
            elapsed = time.monotonic() - start
            left = elapsed / done[0] * (len(todo) - done[0])
            if record is None:
                problems.append({"student": entry.student, "submission": str(entry.path),
                                 "problem": why + " (tried again on the next run)"})
                what = why
            elif record["status"] != "graded":
                what = f"not graded: {record['reason'][:200]}"
            else:
                got = sum(v["points"] for v in record["labs"].values())
                top = sum(v["max"] for v in record["labs"].values())
                what = f"{got:g}/{top:g} (" + ", ".join(f"{lab} {v['points']:g}/{v['max']:g}"
                                                        for lab, v in record["labs"].items()) + ")"
            log(f"[{already + done[0]}/{total}] {entry.student}: {what} in {duration(time.monotonic() - t0)}; "
                f"{'about ' + duration(left) + ' left' if done[0] < len(todo) else 'last one'}")

    with ThreadPoolExecutor(max_workers=max(1, opts.workers)) as pool:
        list(pool.map(one, todo))
    if gpu_seconds is not None:
        gpu_seconds.update(grader.gpu.seconds())
    return problems


# ---------------------------------------------------------------------------------------------
# Gather: roster, grades, problems and the class report from the records.

@dataclass
class ClassResult:
    labs: list[str]
    rows: list[tuple[str, str, float, float]] = field(default_factory=list)   # roster
    records: dict = field(default_factory=dict)                                # student -> record
    problems: list[dict] = field(default_factory=list)
    students: int = 0
    missing: int = 0      # submissions without a grade (not yet, or could not be graded)
    conflicts: int = 0    # duplicate ids


def gather(out: Path, extra_problems: list[dict] | None = None) -> ClassResult:
    """Reads class.json and every finished record; writes roster.csv, grades.csv, problems.csv and
    class-report.html."""
    data = read_class(out)
    names = labinfo.lab_names(ROOT)
    labs_asked = data["labs"]
    result = ClassResult(labs=[])
    result.problems = [{"student": c["student"], "submission": "; ".join(c["submissions"]), "problem": c["problem"]}
                       for c in data.get("conflicts", [])]
    result.problems += data.get("stale", [])
    result.students = len(data["submissions"]) + sum(len(c["submissions"]) for c in data.get("conflicts", []))
    result.conflicts = len(data.get("conflicts", []))
    seen_labs = set(named_labs(labs_asked))
    for s in data["submissions"]:
        record = load_record(out, s["student"])
        if record is None:
            result.missing += 1
            continue
        result.records[s["student"]] = record
        seen_labs |= set(record["labs"])
        if record["status"] != "graded":
            result.problems.append({"student": s["student"], "submission": s["path"],
                                    "problem": "not graded: " + record["reason"]})
    known = {p["student"] for p in extra_problems or []}
    result.problems += extra_problems or []
    for s in data["submissions"]:
        if s["student"] not in result.records and s["student"] not in known:
            result.problems.append({"student": s["student"], "submission": s["path"],
                                    "problem": "not graded yet (still running, or stopped: run again to grade it)"})
    result.labs = sorted(seen_labs, key=lambda n: names.index(n) if n in names else len(names))
    for student in sorted(result.records, key=str.casefold):
        for lab in result.labs:
            v = result.records[student]["labs"].get(lab)
            if v is not None:
                result.rows.append((student, lab, v["points"], v["max"]))
    write_outputs(out, result)
    return result


def number(x: float) -> str:
    return f"{x:g}"


def write_outputs(out: Path, result: ClassResult) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["student", "lab", "points", "max"])
    for student, lab, points, top in result.rows:
        w.writerow([student, lab, number(points), number(top)])
    write_atomic(out / "roster.csv", buf.getvalue())

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["student", *result.labs, "total", "max"])
    for student in sorted(result.records, key=str.casefold):
        labs = result.records[student]["labs"]
        cells = [number(labs[lab]["points"]) if lab in labs else "" for lab in result.labs]
        w.writerow([student, *cells, number(sum(v["points"] for v in labs.values())),
                    number(sum(v["max"] for v in labs.values()))])
    write_atomic(out / "grades.csv", buf.getvalue())

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["student", "submission", "problem"])
    for p in result.problems:
        w.writerow([p["student"], p["submission"], p["problem"]])
    write_atomic(out / "problems.csv", buf.getvalue())
    write_atomic(out / "class-report.html", report_html(result))


NUMBER = re.compile(r"0x[0-9a-fA-F]+|[-+]?\d+(\.\d+)?([eE][-+]?\d+)?")


def message_kind(reason: str) -> str:
    """A failure reason with its numbers (indices, values, seeds, times) replaced by '#': the same
    mistake of two students is one kind."""
    return NUMBER.sub("#", reason.strip().splitlines()[0] if reason.strip() else "(no reason)")[:300]


def lab_stats(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {"n": len(values), "mean": round(statistics.fmean(values), 2), "median": statistics.median(values),
            "min": min(values), "max": max(values)}


def report_data(result: ClassResult) -> dict:
    """What the class report shows, computed here (the page only draws it)."""
    labs = []
    for lab in result.labs:
        rows = [(s, p, m) for s, l, p, m in result.rows if l == lab]
        top = max((m for _, _, m in rows), default=0)
        bins = [0] * 10
        for _, p, m in rows:
            frac = p / m if m else 0.0
            bins[min(9, int(frac * 10))] += 1
        tests: dict[str, dict] = {}
        for student, record in result.records.items():
            for t in record.get("tests", []):
                if t.get("lab") != lab:
                    continue
                entry = tests.setdefault(t["name"], {"name": t["name"], "points": t.get("max_points") or 0,
                                                     "graded": 0, "failed": 0, "skipped": 0, "kinds": {}})
                entry["points"] = max(entry["points"], t.get("max_points") or 0)
                if t["status"] in ("skipped", "not applicable"):
                    entry["skipped"] += 1
                    continue
                entry["graded"] += 1
                if t["status"] != "passed":
                    entry["failed"] += 1
                    kind = message_kind(t.get("reason") or t["status"])
                    k = entry["kinds"].setdefault(kind, {"count": 0, "example": (t.get("reason") or t["status"])[:300]})
                    k["count"] += 1
        test_rows = []
        for t in tests.values():
            common = max(t["kinds"].values(), key=lambda k: k["count"], default=None)
            test_rows.append({"name": t["name"], "points": t["points"], "graded": t["graded"], "failed": t["failed"],
                              "skipped": t["skipped"], "message": common["example"] if common else "",
                              "message_count": common["count"] if common else 0})
        test_rows.sort(key=lambda t: (-t["failed"], t["name"]))
        points = [p for _, p, _ in rows]
        labs.append({"lab": lab, "max": top, "bins": bins, "stats": lab_stats(points),
                     "full": sum(1 for _, p, m in rows if m and p >= m), "tests": test_rows})
    students = []
    for student in sorted(result.records, key=str.casefold):
        r = result.records[student]
        students.append({"student": student, "status": r["status"],
                         "labs": {lab: [v["points"], v["max"]] for lab, v in r["labs"].items()},
                         "total": sum(v["points"] for v in r["labs"].values()),
                         "max": sum(v["max"] for v in r["labs"].values())})
    return {"generated": now(), "students": result.students, "graded": sum(
        r["status"] == "graded" for r in result.records.values()),
        "not_graded": sum(r["status"] != "graded" for r in result.records.values()),
        "missing": result.missing, "labs": labs, "rows": students, "problems": result.problems,
        "lab_names": result.labs}


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cuda-labs class report</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 1200px; }
h1 { font-size: 1.4em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; } td, th { border: 1px solid #ddd; padding: 2px 6px; }
th { background: #f3f3f3; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.lab { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
.msg { font-family: ui-monospace, monospace; font-size: 12px; max-width: 600px; overflow-wrap: anywhere; }
svg text { font: 11px system-ui, sans-serif; } .bar { fill: #4a78b5; } .bar.full { fill: #3a9a5b; }
.muted { color: #777; } .problem { color: #a33; }
</style></head>
<body>
<h1>cuda-labs class report</h1>
<div id="overview">The report is drawn by the script in this page: allow scripts for this file to see it.</div>
<div id="labs"></div>
<h2>Problems</h2><div id="problems"></div>
<h2>Students</h2><div id="students"></div>
<script type="application/json" id="class-data">__DATA__</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("class-data").textContent);
const NS = "http://www.w3.org/2000/svg";
function el(tag, attrs, text) {
  const e = tag.startsWith("svg:") ? document.createElementNS(NS, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function fmt(x) { return (Math.round(x * 100) / 100).toString(); }
function table(head, rows, attrs) {
  const t = el("table", attrs || {}), tr = el("tr");
  head.forEach(h => tr.appendChild(el("th", {}, h)));
  t.appendChild(tr);
  rows.forEach(r => t.appendChild(r));
  return t;
}
function histogram(lab) {
  const W = 360, H = 180, L = 34, B = 34, top = Math.max(1, ...lab.bins);
  const svg = el("svg:svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: "hist", "data-lab": lab.lab,
                             role: "img", "aria-label": `score distribution of ${lab.lab}`});
  const bw = (W - L - 6) / lab.bins.length;
  lab.bins.forEach((n, i) => {
    const h = (H - B - 10) * n / top, x = L + i * bw, y = H - B - h;
    const r = el("svg:rect", {x: x + 1, y: y, width: bw - 2, height: h, class: "bar" + (i === 9 ? " full" : ""),
                             "data-count": n, "data-bin": i});
    r.appendChild(el("svg:title", {}, `${i * 10}-${i === 9 ? 100 : i * 10 + 10} %: ${n} students`));
    svg.appendChild(r);
    if (n) svg.appendChild(el("svg:text", {x: x + bw / 2, y: y - 2, "text-anchor": "middle"}, n));
    if (i % 2 === 0) svg.appendChild(el("svg:text", {x: x, y: H - B + 14}, `${i * 10}%`));
  });
  svg.appendChild(el("svg:text", {x: W - 40, y: H - B + 14}, "100%"));
  svg.appendChild(el("svg:line", {x1: L, y1: H - B, x2: W - 6, y2: H - B, stroke: "#444"}));
  svg.appendChild(el("svg:text", {x: L, y: H - 4}, `points of ${fmt(lab.max)} (students per 10 %)`));
  return svg;
}
const ov = document.getElementById("overview");
ov.textContent = "";
ov.appendChild(el("p", {id: "counts"},
  `${data.students} submissions: ${data.graded} graded, ${data.not_graded} not graded, ` +
  `${data.missing} without a grade yet, ${data.problems.length} problems. Generated ${data.generated}.`));
const labsDiv = document.getElementById("labs");
data.labs.forEach(lab => {
  labsDiv.appendChild(el("h2", {id: "lab-" + lab.lab}, lab.lab));
  const box = el("div", {class: "lab"});
  box.appendChild(histogram(lab));
  const s = lab.stats;
  const stats = [["students", s.n], ["mean", s.n ? fmt(s.mean) : "-"], ["median", s.n ? fmt(s.median) : "-"],
                 ["min", s.n ? fmt(s.min) : "-"], ["max", s.n ? fmt(s.max) : "-"], ["full marks", lab.full],
                 ["points", fmt(lab.max)]];
  box.appendChild(table(["", lab.lab], stats.map(([k, v]) => {
    const tr = el("tr"); tr.appendChild(el("th", {}, k));
    tr.appendChild(el("td", {class: "num", "data-lab": lab.lab, "data-stat": k}, v)); return tr; }),
    {class: "stats"}));
  labsDiv.appendChild(box);
  const failing = lab.tests.filter(t => t.failed > 0);
  labsDiv.appendChild(el("p", {class: "muted"}, `${lab.tests.length} tests; ${failing.length} failed by at least one ` +
    "student (most failed first; passed by everyone: not listed)"));
  if (failing.length) {
    labsDiv.appendChild(table(["test", "points", "failed", "of graded", "skipped", "most common failure (students)"],
      failing.map(t => {
        const tr = el("tr", {"data-test": t.name});
        tr.appendChild(el("td", {}, t.name)); tr.appendChild(el("td", {class: "num"}, fmt(t.points)));
        tr.appendChild(el("td", {class: "num failed"}, t.failed)); tr.appendChild(el("td", {class: "num"}, t.graded));
        tr.appendChild(el("td", {class: "num"}, t.skipped));
        tr.appendChild(el("td", {class: "msg"}, `${t.message} (${t.message_count})`));
        return tr; }), {class: "tests", "data-lab": lab.lab}));
  }
});
const pr = document.getElementById("problems");
pr.appendChild(data.problems.length ? table(["student", "submission", "problem"], data.problems.map(p => {
  const tr = el("tr", {class: "problem"});
  [p.student, p.submission, p.problem].forEach(x => tr.appendChild(el("td", {}, x))); return tr; }), {id: "problem-table"})
  : el("p", {}, "none"));
const st = document.getElementById("students");
st.appendChild(table(["student", ...data.lab_names, "total", "status"], data.rows.map(r => {
  const tr = el("tr", {"data-student": r.student});
  tr.appendChild(el("td", {}, r.student));
  data.lab_names.forEach(lab => {
    const v = r.labs[lab];
    tr.appendChild(el("td", v ? {class: "num", "data-lab": lab, "data-points": v[0], "data-max": v[1]} : {class: "num"},
                      v ? `${fmt(v[0])} / ${fmt(v[1])}` : ""));
  });
  tr.appendChild(el("td", {class: "num"}, `${fmt(r.total)} / ${fmt(r.max)}`));
  tr.appendChild(el("td", {}, r.status));
  return tr; }), {id: "student-table"}));
document.body.setAttribute("data-rendered", "yes");
</script>
</body></html>
"""


def report_html(result: ClassResult) -> str:
    """The class report: one page, no network (inline data, script and SVG)."""
    payload = json.dumps(report_data(result), sort_keys=True).replace("<", "\\u003c")
    return PAGE.replace("__DATA__", payload)


def check_report_dom(dom: str, roster: Path) -> list[str]:
    """What is wrong with the class report as a browser drew it (@p dom: the page after its scripts
    ran, e.g. `chromium --headless --dump-dom`) against @p roster (roster.csv): [] if nothing."""
    from html.parser import HTMLParser

    class Scan(HTMLParser):
        def __init__(self):
            super().__init__()
            self.hists: dict[str, list[int]] = {}
            self.cells: dict[tuple[str, str], tuple[float, float]] = {}
            self.rendered = False
            self.current_hist = None
            self.student = None

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "body" and a.get("data-rendered") == "yes":
                self.rendered = True
            if tag == "svg" and "hist" in (a.get("class") or ""):
                self.current_hist = a.get("data-lab")
                self.hists[self.current_hist] = []
            if tag == "rect" and self.current_hist is not None and "data-count" in a:
                self.hists[self.current_hist].append(int(a["data-count"]))
            if tag == "tr" and "data-student" in a:
                self.student = a["data-student"]
            if tag == "td" and self.student and "data-points" in a:
                self.cells[(self.student, a["data-lab"])] = (float(a["data-points"]), float(a["data-max"]))

        def handle_endtag(self, tag):
            if tag == "svg":
                self.current_hist = None
            if tag == "tr":
                self.student = None

    scan = Scan()
    scan.feed(dom)
    problems = []
    if not scan.rendered:
        problems.append("the page's script did not run to its end (no data-rendered on <body>)")
    with roster.open(newline="") as f:
        rows = [(r["student"], r["lab"], float(r["points"]), float(r["max"])) for r in csv.DictReader(f)]
    labs = sorted({lab for _, lab, _, _ in rows})
    for lab in labs:
        bars = scan.hists.get(lab)
        n = sum(1 for _, l, _, _ in rows if l == lab)
        if bars is None:
            problems.append(f"no histogram (SVG) for {lab}")
        elif len(bars) != 10 or sum(bars) != n:
            problems.append(f"the histogram of {lab} has {len(bars)} bars counting {sum(bars)} students; the roster has {n}")
    want = {(s, lab): (p, m) for s, lab, p, m in rows}
    if scan.cells != want:
        diff = sorted(set(scan.cells.items()) ^ set(want.items()))[:5]
        problems.append(f"the students table differs from the roster: {len(set(scan.cells.items()) ^ set(want.items()))} "
                        f"cells, e.g. {diff}")
    return problems


# ---------------------------------------------------------------------------------------------
# Slurm.

@dataclass
class SlurmOptions:
    partition: str = ""
    gres: str = "gpu:1"
    chunk: int = 1
    time: str = "2:00:00"
    cpus: int = 8
    mem: str = "16G"
    setup: list[str] = field(default_factory=list)
    launcher: str = ""
    max_parallel: int = 0
    scratch: str = ""
    sbatch_options: list[str] = field(default_factory=list)
    submit: bool = True
    wait: bool = False


def slurm_scripts(out: Path, tasks: int, s: SlurmOptions, python: str = "python3") -> tuple[str, str]:
    """The job array (one task per chunk) and the gather job."""
    def header(name: str, log_name: str) -> list[str]:
        lines = ["#!/bin/bash", f"#SBATCH --job-name={name}", f"#SBATCH --output={out / 'slurm' / 'logs' / log_name}"]
        if s.partition:
            lines.append(f"#SBATCH --partition={s.partition}")
        lines += [f"#SBATCH {o}" for o in s.sbatch_options]
        return lines

    tool = shlex.quote(str(TOOL))
    launch = (s.launcher + " ") if s.launcher else ""
    array = header("cudalab-grade", "task-%a.out")
    array += [f"#SBATCH --array=0-{tasks - 1}" + (f"%{s.max_parallel}" if s.max_parallel else ""),
              f"#SBATCH --cpus-per-task={s.cpus}", f"#SBATCH --time={s.time}"]
    if s.mem:
        array.append(f"#SBATCH --mem={s.mem}")
    if s.gres and s.gres != "none":
        array.append(f"#SBATCH --gres={s.gres}")
    array += ["# Written by tools/staff/grade_class.py --slurm: one task grades one chunk of the class.",
              "set -eo pipefail", *s.setup,
              f"exec {launch}{python} {tool} --task \"$SLURM_ARRAY_TASK_ID\" --out {shlex.quote(str(out))}", ""]
    gather = header("cudalab-gather", "gather.out")
    gather += ["#SBATCH --cpus-per-task=1", "#SBATCH --time=0:30:00",
               "# Written by tools/staff/grade_class.py --slurm: the roster and report, after every task.",
               "set -eo pipefail", *s.setup,
               f"exec {launch}{python} {tool} --gather --out {shlex.quote(str(out))}", ""]
    return "\n".join(array), "\n".join(gather)


def submit_slurm(out: Path, todo: list[Entry], opts: Options, s: SlurmOptions) -> int:
    """Writes the task list and both job scripts; submits them unless --no-submit."""
    chunks = [todo[i:i + max(1, s.chunk)] for i in range(0, len(todo), max(1, s.chunk))]
    slurm = out / "slurm"
    (slurm / "logs").mkdir(parents=True, exist_ok=True)
    tasks = {"format": FORMAT, "labs": opts.labs, "gpu_jobs": opts.gpu_jobs, "gpu_share": opts.gpu_share,
             "build_jobs": s.cpus, "ccache_dir": opts.ccache_dir, "build_timeout": opts.build_timeout,
             "scratch": s.scratch,
             "tasks": [[{"student": e.student, "path": str(e.path), "fingerprint": e.fingerprint} for e in c]
                       for c in chunks]}
    write_atomic(slurm / "tasks.json", json.dumps(tasks, indent=1) + "\n")
    array, gather_job = slurm_scripts(out, max(1, len(chunks)), s)
    write_atomic(slurm / "grade.sbatch", array)
    write_atomic(slurm / "gather.sbatch", gather_job)
    if not chunks:
        log("grade_class: every submission already has a grade: nothing to submit")
        return 0
    started = time.time() - 1
    submit = ["sbatch", "--parsable", str(slurm / "grade.sbatch")]
    then = ["sbatch", "--parsable", "--dependency=afterany:JOBID", *(["--wait"] if s.wait else []),
            str(slurm / "gather.sbatch")]
    if not s.submit:
        log(f"grade_class: {len(todo)} submissions in {len(chunks)} tasks; submit with:\n  {' '.join(submit)}\n"
            f"  {' '.join(then)}   (JOBID: the first command's output)")
        return 0
    try:
        proc = subprocess.run(submit, capture_output=True, text=True)
    except OSError as e:
        log(f"grade_class: cannot run sbatch ({e}): is this a Slurm login node? The scripts are in {slurm}")
        return 1
    if proc.returncode != 0:
        log(f"grade_class: sbatch refused the job array: {proc.stderr.strip()}")
        return 1
    job = proc.stdout.strip().split(";")[0]
    then[2] = f"--dependency=afterany:{job}"
    log(f"grade_class: job array {job}: {len(todo)} submissions in {len(chunks)} tasks (squeue -j {job}); "
        f"logs in {slurm / 'logs'}")
    proc = subprocess.run(then, capture_output=True, text=True)
    if s.wait and (out / "roster.csv").is_file() and (out / "roster.csv").stat().st_mtime >= started:
        log(f"grade_class: the gather job ended (exit {proc.returncode}: "
            f"{'every submission has a grade or a reason' if proc.returncode == 0 else 'see problems.csv'}); "
            f"{out / 'class-report.html'}")
        return proc.returncode
    if proc.returncode != 0:
        log(f"grade_class: the gather job failed or was refused (exit {proc.returncode}); "
            f"run `{sys.argv[0]} --gather --out {out}` when the array is done")
        return 1
    else:
        log(f"grade_class: gather job {proc.stdout.strip().split(';')[0]} writes {out / 'roster.csv'} when every "
            "task has ended")
    return 0


def run_task(out: Path, index: int) -> int:
    """One array task: grades its chunk in a worker tree under the scratch directory."""
    try:
        tasks = json.loads((out / "slurm" / "tasks.json").read_text())
        chunk = tasks["tasks"][index]
    except (OSError, ValueError, KeyError, IndexError) as e:
        log(f"grade_class: task {index}: no such task in {out / 'slurm' / 'tasks.json'} ({e})")
        return 2
    scratch = Path(tasks.get("scratch") or os.environ.get("TMPDIR") or "/tmp")
    work = scratch / f"cudalab-class-{os.environ.get('SLURM_ARRAY_JOB_ID', os.getpid())}-{index}"
    opts = Options(labs=tasks["labs"], out=out, workers=1, build_jobs=int(os.environ.get("SLURM_CPUS_PER_TASK")
                   or tasks.get("build_jobs") or 2), gpu_jobs=tasks["gpu_jobs"], gpu_share=tasks["gpu_share"],
                   ccache_dir=tasks.get("ccache_dir") or "", build_timeout=tasks["build_timeout"], work=work)
    entries = [Entry(e["student"], Path(e["path"]), e["fingerprint"]) for e in chunk]
    todo = [e for e in entries if load_record(out, e.student) is None]
    log(f"grade_class: task {index}: {len(todo)} of {len(entries)} submissions to grade, worker tree in {work}")
    try:
        problems = grade_entries(todo, opts, len(entries), len(entries) - len(todo))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if STOP.is_set():
        log(f"grade_class: task {index} stopped; its finished grades are kept")
        return 1
    if problems:
        write_atomic(out / "slurm" / f"problems-{index}.json", json.dumps(problems, indent=1) + "\n")
    return 1 if problems else 0


# ---------------------------------------------------------------------------------------------

def summary_line(result: ClassResult, seconds: float | None, graded_now: int, out: Path,
                 now: set[str] | None = None, gpu: dict | None = None) -> str:
    """The closing line; @p now: the students graded in this run, whose mean build, GPU wait and
    test seconds (grade.json's "seconds") say where the time went; @p gpu: the seconds the GPU was
    idle, shared and alone (GpuLock.seconds())."""
    totals = [sum(v["points"] for v in r["labs"].values()) for r in result.records.values()]
    tops = [sum(v["max"] for v in r["labs"].values()) for r in result.records.values()]
    graded = sum(r["status"] == "graded" for r in result.records.values())
    line = (f"grade_class: {result.students} submissions: {graded} graded, {len(result.records) - graded} not graded "
            f"(the reason in problems.csv)")
    if result.conflicts:
        line += f", {result.conflicts} duplicate ids"
    if result.missing:
        line += f", {result.missing} without a grade yet"
    if totals:
        line += f"; mean {statistics.fmean(totals):.1f} of {max(tops):g} points"
    if seconds is not None and graded_now:
        line += f"; {graded_now} graded now in {duration(seconds)} ({seconds / graded_now:.1f} s each)"
    spent = [r.get("seconds") or {} for student, r in result.records.items()
             if student in (now or set()) and r.get("status") == "graded"]
    if spent:
        mean = {k: statistics.fmean(float(x.get(k, 0)) for x in spent)
                for k in ("build", "wait", "wait_alone", "tests")}
        line += (f" (mean per submission: build {mean['build']:.1f} s, waiting for the GPU {mean['wait']:.1f} s "
                 f"shared and {mean['wait_alone']:.1f} s alone, tests {mean['tests']:.1f} s)")
    if gpu and sum(gpu.values()) > 0:
        whole = sum(gpu.values())
        line += (f"; the GPU was idle {gpu['idle']:.0f} s, shared by correctness tests {gpu['shared']:.0f} s, "
                 f"held by timed tests {gpu['alone']:.0f} s ({100 * gpu['idle'] / whole:.0f} % idle)")
    return line + f"; {out / 'class-report.html'}"


def default_ccache(out: Path, choice: str | None) -> str:
    if choice == "none":
        return ""
    if not shutil.which("ccache"):
        if choice:
            raise UsageError("--ccache-dir: ccache is not installed (apt-get install ccache)")
        log("grade_class: ccache is not installed: every worker compiles every source (apt-get install ccache)")
        return ""
    return str(Path(choice).absolute() if choice else out / "ccache")


def check_out(out: Path) -> None:
    """@p out: new, empty or this tool's (it holds class.json or students/)."""
    out, root = out.resolve(), ROOT.resolve()
    if root == out or root in out.parents and (root / "build") not in out.parents:
        raise UsageError(f"--out {out} is inside the repository {root}: choose a directory outside it or under "
                         f"{root / 'build'}/")
    if out in root.parents:
        raise UsageError(f"--out {out} contains the repository {root}")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not ((out / "class.json").exists() or (out / "students").is_dir()):
        raise UsageError(f"--out {out} is not empty and was not made by grade_class.py (no class.json): choose a "
                         "new or empty directory")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", nargs="*", type=Path, help="submissions, or folders of submissions")
    parser.add_argument("--labs", nargs="+", help="the assignment's labs ('submitted': each submission's own)")
    parser.add_argument("--out", type=Path, required=True, help="the class directory (new, or an earlier run's)")
    parser.add_argument("-j", "--workers", type=int, default=2, help="worker trees grading at once (default 2)")
    parser.add_argument("--build-jobs", type=int, default=0,
                        help="compile jobs per worker (default: the cores shared among the workers)")
    parser.add_argument("--gpu-jobs", type=int, default=4,
                        help="GPU correctness tests of one submission at once (default 4, as grade_submission.py)")
    parser.add_argument("--gpu-share", type=int, default=2,
                        help="submissions whose GPU correctness tests share the GPU at once (default 2); timed "
                             "tests always run alone")
    parser.add_argument("--serial-batch", type=int, default=1, metavar="N",
                        help="the timed tests of up to N submissions run one after another once N wait or the GPU "
                             "has nothing else to do, so the GPU empties once per N submissions (default 1: each as "
                             "soon as the correctness tests running finish)")
    parser.add_argument("--ccache-dir", help="the compiler cache (default OUT/ccache; 'none': no cache)")
    parser.add_argument("--build-timeout", type=float, default=1800, help="seconds per build (default 1800)")
    parser.add_argument("--regrade", nargs="+", default=[], metavar="ID",
                        help="grade these students again ('all': everyone); earlier grades go to OUT/previous/")
    parser.add_argument("--gather", action="store_true", help="only write the roster and report from the grades")
    parser.add_argument("--task", type=int, help=argparse.SUPPRESS)  # one Slurm array task
    group = parser.add_argument_group("Slurm (--slurm)")
    group.add_argument("--slurm", action="store_true", help="submit a job array instead of grading here")
    group.add_argument("--partition", default="", help="the partition of the GPU nodes")
    group.add_argument("--gres", default="gpu:1", help="generic resources per task (default gpu:1; 'none')")
    group.add_argument("--chunk", type=int, default=1, help="submissions per array task (default 1)")
    group.add_argument("--time", default="2:00:00", help="time limit per task (default 2:00:00)")
    group.add_argument("--cpus-per-task", type=int, default=8, help="cores per task (default 8)")
    group.add_argument("--mem", default="16G", help="memory per task (default 16G; '' : the partition's)")
    group.add_argument("--setup", action="append", default=[], metavar="LINE",
                       help="a shell line every task runs first, e.g. 'module load cuda/12.6' (repeatable)")
    group.add_argument("--launcher", default="", help="a command prefix, e.g. 'apptainer exec --nv cuda-labs.sif'")
    group.add_argument("--max-parallel", type=int, default=0, help="tasks running at once (the array's %%N)")
    group.add_argument("--scratch", default="", help="node-local directory for the worker trees (default $TMPDIR)")
    group.add_argument("--sbatch-option", action="append", default=[], metavar="OPT",
                       help="one more #SBATCH option, e.g. --account=cs101 (repeatable)")
    group.add_argument("--no-submit", action="store_true", help="write the job scripts, do not submit them")
    group.add_argument("--wait", action="store_true", help="wait until the gather job has ended")
    args = parser.parse_args(argv)
    out = args.out.absolute()
    lock = None
    # Ctrl-C, kill, scancel: the commands of the submissions being graded are stopped and those
    # submissions get no grade (the next run grades them); finished grades stay.
    previous = {sig: signal.signal(sig, stop_everything) for sig in (signal.SIGINT, signal.SIGTERM)}
    STOP.clear()
    try:
        if args.task is not None:
            return run_task(out, args.task)
        if args.gather:
            extra = []
            for f in sorted((out / "slurm").glob("problems-*.json")):
                try:
                    extra += [p for p in json.loads(f.read_text()) if load_record(out, p["student"]) is None]
                except (OSError, ValueError):
                    pass
            result = gather(out, extra)
            log(summary_line(result, None, 0, out))
            return 1 if result.missing or result.conflicts else 0
        labs = gs.parse_labs(args.labs)
        if not labs:
            raise UsageError("--labs: name the assignment's labs (or 'submitted')")
        unknown = labinfo.check_names(named_labs(labs), ROOT)
        if unknown:
            raise UsageError("--labs: " + "; ".join(unknown))
        if not args.submissions:
            raise UsageError("no submissions named")
        check_out(out)
        for p in args.submissions:
            if p.is_dir() and (out.resolve() == p.resolve() or p.resolve() in out.resolve().parents):
                raise UsageError(f"--out {out} is inside the submissions {p}: choose a directory outside them")
        out.mkdir(parents=True, exist_ok=True)
        lock = (out / ".grade_class.lock").open("w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UsageError(f"another grade_class.py is grading into {out}: wait for it, or stop it") from None
        entries, conflicts = discover(args.submissions, labinfo.lab_names(ROOT))
        for e in entries:
            e.fingerprint = fingerprint(e.path)
        todo, stale = plan(out, entries, labs, args.regrade)
        write_class(out, entries, conflicts, labs, stale)
        opts = Options(labs=labs, out=out, workers=max(1, args.workers), gpu_jobs=max(1, args.gpu_jobs),
                       gpu_share=max(1, args.gpu_share), build_timeout=args.build_timeout,
                       serial_batch=max(1, args.serial_batch),
                       ccache_dir=default_ccache(out, args.ccache_dir))
        opts.build_jobs = args.build_jobs or max(1, cores() // opts.workers)
        twins = sum(len(c["submissions"]) for c in conflicts)
        log(f"grade_class: {len(entries) + twins} submissions, {len(entries) - len(todo)} already graded, "
            f"{len(todo)} to grade" + (f", {twins} sharing {len(conflicts)} student ids (not graded)" if conflicts else "")
            + f"; labs {', '.join(labs)}")
        if args.slurm:
            s = SlurmOptions(partition=args.partition, gres=args.gres, chunk=args.chunk, time=args.time,
                             cpus=args.cpus_per_task, mem=args.mem, setup=args.setup, launcher=args.launcher,
                             max_parallel=args.max_parallel, scratch=args.scratch,
                             sbatch_options=args.sbatch_option, submit=not args.no_submit, wait=args.wait)
            return submit_slurm(out, todo, opts, s)
        start = time.monotonic()
        gpu_seconds: dict = {}
        try:
            problems = grade_entries(todo, opts, len(entries), len(entries) - len(todo), gpu_seconds)
        finally:
            shutil.rmtree(out / "work", ignore_errors=True)  # the worker trees (the compiler cache stays)
        if STOP.is_set():
            raise KeyboardInterrupt
        result = gather(out, problems)
        log(summary_line(result, time.monotonic() - start, len(todo) - len(problems), out,
                         {e.student for e in todo}, gpu_seconds))
        return 1 if result.missing or result.conflicts else 0
    except UsageError as e:
        print(f"grade_class: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("grade_class: stopped; finished grades are kept, run again to grade the rest", file=sys.stderr)
        return 130
    finally:
        if lock is not None:
            lock.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


if __name__ == "__main__":
    sys.exit(main())
