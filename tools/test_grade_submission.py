"""Self-test of tools/grade_submission.py's intake (run by ctest as tools.submission_selftest):
only files inside labs/<lab>/ are taken, paths escaping labs/ and links are refused."""
import io
import tarfile
import tempfile
import unittest
import zipfile
from pathlib import Path, PurePosixPath

import grade_submission as gs

LABS = {"ch03_10_reduction_divergence", "ch03_05_occupancy"}


class IntakeTest(unittest.TestCase):
    def test_directory_with_labs_folder(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "repo" / "labs" / "ch03_05_occupancy").mkdir(parents=True)
            (root / "repo" / "labs" / "ch03_05_occupancy" / "occupancy.cu").write_text("int x;")
            (root / "repo" / "tests").mkdir()
            (root / "repo" / "tests" / "grading.json").write_text("{}")
            (root / "repo" / "labs" / "ch03_05_occupancy" / "link.cu").symlink_to("/etc/passwd")
            notes = []
            files = gs.collect(root, LABS, notes)
            self.assertEqual(list(files), [PurePosixPath("ch03_05_occupancy/occupancy.cu")])
            self.assertTrue(any("ignored: repo/tests/grading.json" in n for n in notes))
            self.assertTrue(any("refused: repo/labs/ch03_05_occupancy/link.cu" in n for n in notes))

    def test_zip_with_escaping_paths(self):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("labs/ch03_10_reduction_divergence/reduction.cu", "ok")
            z.writestr("../../etc/evil.cu", "no")
            z.writestr("/abs/labs/ch03_10_reduction_divergence/reduction.cu", "no")
            z.writestr("labs/ch99_unknown/x.cu", "no")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.zip"
            path.write_bytes(buf.getvalue())
            notes = []
            files = gs.collect(path, LABS, notes)
            self.assertEqual(files, {PurePosixPath("ch03_10_reduction_divergence/reduction.cu"): b"ok"})
            self.assertEqual(sum(n.startswith("refused") for n in notes), 2)
            self.assertTrue(any("ch99_unknown" in n and n.startswith("ignored") for n in notes))

    def test_tarball_of_lab_folders_without_labs_prefix(self):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as t:
            data = b"int y;"
            info = tarfile.TarInfo("ch03_05_occupancy/occupancy.cu")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
            link = tarfile.TarInfo("ch03_05_occupancy/evil.cu")
            link.type = tarfile.SYMTYPE
            link.linkname = "/etc/shadow"
            t.addfile(link)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.tar.gz"
            path.write_bytes(buf.getvalue())
            notes = []
            files = gs.collect(path, LABS, notes)
            self.assertEqual(files, {PurePosixPath("ch03_05_occupancy/occupancy.cu"): b"int y;"})
            self.assertTrue(any("evil.cu (not a regular file)" in n for n in notes))


if __name__ == "__main__":
    unittest.main()
