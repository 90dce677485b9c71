#!/usr/bin/env python3
"""A class of submissions made from this repository, to try tools/staff/grade_class.py on.

    tools/staff/class_fixtures.py DEST --labs LAB... [--mixed N] [--seed S] [--no-bad]

Writes into DEST (new or empty): reference/ (every lab's reference solution, as a student would
write it: solution markers removed), skeleton/ (the untouched stubs), N mixed students mixed-01.zip,
... (each lab at random the reference, a correct variant or a wrong mutant of tests/mutants/, or the
skeleton; .expected.json says which), and unless --no-bad the bad inputs of a class: broken/ (does
not compile), crash/ (every test of the first lab
crashes), empty/ (no file), junk.zip (no lab source), strange.tar (a source plus a path escaping
the archive, a link, a 3 MiB file, a device file), twin/ and twin.zip (one student id twice); --hang adds hang/ (every test of the first
lab hangs until its time limit: minutes).
"""
from __future__ import annotations

import argparse
import io
import json
import random
import sys
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import labinfo  # noqa: E402
import mutants  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def reference_files(lab: str) -> dict[PurePosixPath, bytes]:
    return {PurePosixPath(lab, s): mutants.strip_markers(ROOT / "solutions" / lab / s).encode()
            for s in labinfo.read_lab(lab).sources}


def skeleton_files(lab: str) -> dict[PurePosixPath, bytes]:
    return {PurePosixPath(lab, s): (ROOT / "labs" / lab / s).read_bytes() for s in labinfo.read_lab(lab).sources}


def write_tree(dest: Path, files: dict[PurePosixPath, bytes]) -> None:
    for rel, data in files.items():
        path = dest / "labs" / Path(*rel.parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def write_zip(dest: Path, files: dict[PurePosixPath, bytes]) -> None:
    with zipfile.ZipFile(dest, "w") as z:
        for rel, data in sorted(files.items()):
            z.writestr(f"labs/{rel}", data)


def choices(lab: str) -> list[tuple[str, str]]:
    """(kind, mutant folder or '') a mixed student may hand in for @p lab."""
    out = [("reference", ""), ("skeleton", "")]
    for _, m in mutants.lab_mutants([lab]):
        try:
            expect = mutants.load_spec(m)["expect"]
        except mutants.MutantError:
            continue
        out.append(("correct variant" if expect == "full" else "wrong mutant", m.name))
    return out


def make(dest: Path, labs: list[str], mixed: int, seed: int, bad: bool, hang: bool = False) -> dict:
    """Writes the class; returns what each student handed in (also DEST/.expected.json)."""
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise SystemExit(f"class_fixtures: {dest} is not empty")
    expected: dict[str, dict] = {}
    ref = {k: v for lab in labs for k, v in reference_files(lab).items()}
    write_tree(dest / "reference", ref)
    expected["reference"] = {lab: "reference" for lab in labs}
    write_tree(dest / "skeleton", {k: v for lab in labs for k, v in skeleton_files(lab).items()})
    expected["skeleton"] = {lab: "skeleton" for lab in labs}
    rng = random.Random(seed)
    for i in range(1, mixed + 1):
        files, what = {}, {}
        for lab in labs:
            kind, name = rng.choice(choices(lab))
            if kind == "reference":
                files.update(reference_files(lab))
            elif kind == "skeleton":
                files.update(skeleton_files(lab))
            else:
                folder = ROOT / "tests" / "mutants" / lab / name
                files.update(mutants.mutant_files(lab, folder, mutants.load_spec(folder)))
            what[lab] = kind + (f" {name}" if name else "")
        write_zip(dest / f"mixed-{i:02d}.zip", files)
        expected[f"mixed-{i:02d}"] = what
    if bad:
        first = labs[0]
        broken = dict(ref)
        rel = next(iter(reference_files(first)))
        broken[rel] = ref[rel] + b"\nthis line does not compile;\n"
        write_tree(dest / "broken", broken)
        expected["broken"] = {first: "does not compile", **{lab: "reference" for lab in labs[1:]}}
        for name, body in (("crash", "std::abort()"), ("hang", "[] { for (volatile int i = 0;; i = i + 1) {} }()")
                           )[:2 if hang else 1]:
            # Only in a test (GTEST_OUTPUT is set for each test, not for listing them): every test of
            # the lab crashes or hangs until its time limit.
            wrong = dict(ref)
            wrong[rel] = ref[rel] + (f"\n#include <cstdlib>\nstatic const int cudalab_fixture_{name} = "
                                     f"std::getenv(\"GTEST_OUTPUT\") ? ({body}, 0) : 0;\n").encode()
            write_tree(dest / name, wrong)
            expected[name] = {first: f"every test {'crashes' if name == 'crash' else 'hangs'}",
                              **{lab: "reference" for lab in labs[1:]}}
        (dest / "empty").mkdir()
        expected["empty"] = {"": "not graded: empty"}
        with zipfile.ZipFile(dest / "junk.zip", "w") as z:
            z.writestr("notes.txt", "my answers are in my head\n")
        expected["junk"] = {"": "not graded: no lab source"}
        with tarfile.open(dest / "strange.tar", "w") as t:
            def add(name: str, data: bytes = b"", **kw) -> None:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                for k, v in kw.items():
                    setattr(info, k, v)
                t.addfile(info, io.BytesIO(data) if data else None)
            add(f"labs/{rel}", ref[rel])
            add("../../escape.cu", b"int x;\n")
            add("/etc/cron.d/evil", b"* * * * * root true\n")
            add(f"labs/{first}/link.cu", type=tarfile.SYMTYPE, linkname="/etc/passwd")
            add(f"labs/{first}/huge.bin", b"\0" * (3 << 20))
            add("dev", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
        expected["strange"] = {first: "reference (the rest refused)"}
        write_tree(dest / "twin", ref)
        write_zip(dest / "twin.zip", ref)
        expected["twin"] = {"": "duplicate id"}
    (dest / ".expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    return expected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", type=Path)
    parser.add_argument("--labs", nargs="+", required=True)
    parser.add_argument("--mixed", type=int, default=2, help="students handing in a mix (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-bad", action="store_true", help="no bad submissions")
    parser.add_argument("--hang", action="store_true",
                        help="also hang/: every test of the first lab hangs until its time limit (slow)")
    args = parser.parse_args(argv)
    unknown = labinfo.check_names(args.labs)
    if unknown:
        print("class_fixtures: " + "; ".join(unknown), file=sys.stderr)
        return 2
    expected = make(args.dest, args.labs, args.mixed, args.seed, not args.no_bad, args.hang)
    print(f"class_fixtures: {len(expected) + (1 if not args.no_bad else 0)} submissions in {args.dest} "
          "(what each holds: .expected.json)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
