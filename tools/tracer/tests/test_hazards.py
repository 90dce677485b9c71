"""The global-memory hazard check (hazards.hpp, used by the tracer with TRACER_HAZARDS and graded as
SanitizeAll.globalrace): synthetic warps whose answer follows from the CUDA memory model, and the
real H100 traces of the reference kernels (tests/fixtures/), which must show no hazard.

    python3 -m unittest discover -s tools/tracer/tests -v     (ctest: tools.tracer_selftest)
"""
import gzip
import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/tracer
FIXTURES = os.path.join(HERE, "tests", "fixtures")
KIND = {"g": 0, "s": 1, "bar": 2, "sw": 3, "be": 4, "bx": 5}
READ, WRITE = 1, 2
BASE = 0x7F0000000000  # a cudaMalloc-like address


def pack(records):
    """records: (block, thread, kind, address, size, flags, pc) tuples, in slot order -> bytes of
    tracer::Record (trace_format.h: address, pc, block, active_mask, thread, kind, size, flags, 3 zero)."""
    return b"".join(struct.pack("<QQIIHBBB3x", a, pc, b, 0xFFFFFFFF, t, KIND[k], n, f)
                    for b, t, k, a, n, f, pc in records)


class Warp:
    """Per-lane program order of a few lanes; interleaves them as a lock-step warp would (which
    is the interleaving under which the racy code still gives the right answer)."""

    def __init__(self, threads, block=0):
        self.threads, self.block, self.steps = list(threads), block, []

    def step(self, op):
        """op(t) -> list of (kind, address, size, flags) for thread t."""
        self.steps.append(op)
        return self

    def records(self):
        out = []
        for pc, op in enumerate(self.steps):
            for t in self.threads:
                for k, a, n, f in op(t):
                    out.append((self.block, t, k, a, n, f, 0x100 + 16 * pc))
        return out


def read(i, size=4):
    return [("g", BASE + 4 * i, size, READ)]


def write(i, size=4):
    return [("g", BASE + 4 * i, size, WRITE)]


def syncwarp(_t=None):
    return [("sw", 0xFFFFFFFF, 0, 0)]


def barrier(_t=None):
    return [("bar", 0, 0, 0)]


@unittest.skipUnless(shutil.which("g++"), "needs g++ to build host_check/check_hazards.cpp")
class HazardTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.exe = os.path.join(cls.tmp, "check_hazards")
        subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-o", cls.exe,
                        os.path.join(HERE, "host_check", "check_hazards.cpp")], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check(self, records):
        path = os.path.join(self.tmp, "records.bin")
        with open(path, "wb") as f:
            f.write(pack(records))
        out = subprocess.run([self.exe, path], check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def warp_steps(self, offsets, *, sync_between, sync_after):
        """The last warp of a reduction in place in global memory: lane t adds element t + o for each
        offset o. sync_between: __syncwarp() between the read of t + o and the write of t (the
        Programming Guide's correct form); sync_after: __syncwarp() after each write."""
        w = Warp(range(32))
        for o in offsets:
            w.step(lambda t: read(t)).step(lambda t, o=o: read(t + o))
            if sync_between:
                w.step(syncwarp)
            w.step(lambda t: write(t))
            if sync_after:
                w.step(syncwarp)
        return w.records()

    def test_the_books_volatile_last_warp_is_a_hazard(self):
        h = self.check(self.warp_steps((16, 8, 4, 2, 1), sync_between=False, sync_after=False))
        self.assertGreater(h["hazards"], 0)
        first = h["first"][0]
        self.assertTrue(first["same_warp"])
        # lane t + o writes element t + o, which lane t reads (the first word in address order: element 1)
        self.assertIn(first["writer"] - first["reader"], (1, 2, 4, 8, 16))
        self.assertEqual(first["offset"], 4 * first["writer"])

    def test_a_syncwarp_only_after_each_write_is_still_a_hazard(self):
        # vmem[tid] += vmem[tid + 16]; __syncwarp();  -- the read and the neighbour's write share a phase
        h = self.check(self.warp_steps((16, 8, 4, 2, 1), sync_between=False, sync_after=True))
        self.assertGreater(h["hazards"], 0)

    def test_the_guides_syncwarp_form_is_clean(self):
        # v += vmem[tid + 16]; __syncwarp(); vmem[tid] = v; __syncwarp();
        h = self.check(self.warp_steps((16, 8, 4, 2, 1), sync_between=True, sync_after=True))
        self.assertEqual(h["hazards"], 0, h)
        self.assertEqual(h["accesses"], 5 * 3 * 32)

    def two_warps(self, *, barrier_between):
        """Thread t of 64 writes element t, then reads element t + 32 (mod 64): the other warp's."""
        w = Warp(range(64)).step(lambda t: write(t))
        if barrier_between:
            w.step(barrier)
        w.step(lambda t: read((t + 32) % 64))
        return w.records()

    def test_lanes_of_different_warps_need_a_block_barrier(self):
        self.assertGreater(self.check(self.two_warps(barrier_between=False))["hazards"], 0)
        self.assertEqual(self.check(self.two_warps(barrier_between=True))["hazards"], 0)

    def test_a_syncwarp_does_not_order_two_warps(self):
        w = Warp(range(64)).step(lambda t: write(t)).step(syncwarp).step(lambda t: read((t + 32) % 64))
        h = self.check(w.records())
        self.assertGreater(h["hazards"], 0)
        self.assertFalse(h["first"][0]["same_warp"])

    def test_neighbored_reduction_in_place_is_clean(self):
        # reduceNeighbored on 64 elements: active threads add element t + stride, a barrier per step
        w = Warp(range(64))
        stride = 1
        while stride < 64:
            w.step(lambda t, s=stride: read(t) + read(t + s) + write(t) if t % (2 * s) == 0 else [])
            w.step(barrier)
            stride *= 2
        self.assertEqual(self.check(w.records())["hazards"], 0)

    def test_atomics_and_write_write_pairs_are_not_reported(self):
        atomic = Warp(range(64)).step(lambda t: [("g", BASE, 4, READ | WRITE)]).step(lambda t: read(1))
        self.assertEqual(self.check(atomic.records())["hazards"], 0)
        same_value = Warp(range(64)).step(lambda t: write(0))
        self.assertEqual(self.check(same_value.records())["hazards"], 0)

    def test_bytes_of_one_word_are_separate_locations(self):
        w = Warp(range(4)).step(lambda t: [("g", BASE + t, 1, WRITE)]).step(lambda t: [("g", BASE + (t + 1) % 4, 1, READ)])
        self.assertGreater(self.check(w.records())["hazards"], 0)  # thread t reads the byte t + 1 writes
        w = Warp(range(4)).step(lambda t: [("g", BASE + t, 1, WRITE)]).step(lambda t: [("g", BASE + t, 1, READ)])
        self.assertEqual(self.check(w.records())["hazards"], 0)  # each its own byte
        # a 16-byte read overlaps a 4-byte write in the second word
        w = Warp(range(2)).step(lambda t: write(5) if t == 1 else read(4, size=16))
        self.assertGreater(self.check(w.records())["hazards"], 0)

    def test_blocks_are_checked_apart(self):
        a = Warp([0], block=0).step(lambda t: write(0)).records()
        b = Warp([0], block=1).step(lambda t: read(0)).records()
        self.assertEqual(self.check(a + b)["hazards"], 0)

    def test_the_reference_kernels_traced_on_an_h100_are_clean(self):
        names = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".jsonl.gz"))
        self.assertTrue(names)
        for name in names:
            launches = {}
            with gzip.open(os.path.join(FIXTURES, name), "rt") as f:
                for line in f:
                    r = json.loads(line)
                    if "l" in r:
                        launches.setdefault(r["l"], []).append(
                            (r["b"], r["t"], r["k"], r["a"], r["n"], r["f"], r["pc"]))
            for launch, records in launches.items():
                with self.subTest(fixture=name, launch=launch):
                    h = self.check(records)
                    self.assertEqual(h["hazards"], 0, h)
                    if any(k == "g" for _, _, k, *_ in records):
                        self.assertGreater(h["accesses"], 0)


if __name__ == "__main__":
    unittest.main()
