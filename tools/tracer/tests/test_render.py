"""Host tests of the tracer's renderer (render.py) on synthetic traces: no GPU, no Compute Sanitizer.

    python3 -m unittest discover -s tools/tracer/tests -v     (ctest: tools.tracer_selftest)

The synthetic traces are what the tracer would record for the kernels of the labs if it works as
designed: one record per thread per access, in each thread's program order, barriers included.
The expected numbers are derived in the comments from the kernels' source, not read off the code.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/tracer
sys.path.insert(0, HERE)
import render  # noqa: E402

READ, WRITE = render.READ, render.WRITE
BASE = 0x7F0000000000  # 256-byte aligned, as cudaMalloc returns


class TraceBuilder:
    """Writes trace lines in the format of trace_writer.hpp, one launch at a time."""

    def __init__(self):
        self.lines = []
        self.launches = 0

    def launch(self, kernel, block, grid=(1, 1, 1)):
        self.current = self.launches
        self.launches += 1
        self.lines.append(json.dumps({"type": "launch", "id": self.current, "kernel": kernel, "mangled": "",
                                      "grid": list(grid), "block": list(block), "traced_blocks": grid[0],
                                      "records": 0, "dropped": 0}))

    def rec(self, t, kind, pc, address=0, size=4, flags=0, b=0, mask=0xFFFFFFFF):
        self.lines.append(json.dumps({"l": self.current, "b": b, "t": t, "k": kind, "pc": pc, "a": address,
                                      "n": size, "f": flags, "m": mask}))

    def trace(self):
        return render.parse_lines(self.lines)


def neighbored(builder, threads, b=0):
    """The reference reduceNeighbored on one block of `threads` ints (n = threads): in round
    `stride` the threads with tid % (2 stride) == 0 load idata[tid] and idata[tid + stride] and
    store idata[tid]; every thread then passes __syncthreads(); finally thread 0 loads idata[0] and
    stores g_odata[b]. Records are emitted warp by warp, lane by lane, as a warp would."""
    idata, odata = BASE, BASE + 0x10000
    stride = 1
    while stride < threads:
        active = [t for t in range(threads) if t % (2 * stride) == 0 and t + stride < threads]
        for pc, addr, flags in ((0x100, lambda t: idata + 4 * t, READ),
                                (0x110, lambda t: idata + 4 * (t + stride), READ),
                                (0x120, lambda t: idata + 4 * t, WRITE)):
            for t in active:
                builder.rec(t, "g", pc, addr(t), 4, flags, b)
        for t in range(threads):
            builder.rec(t, "bar", 0x130, 0, 0, 0, b)
        stride *= 2
    builder.rec(0, "g", 0x140, idata, 4, READ, b)
    builder.rec(0, "g", 0x150, odata + 4 * b, 4, WRITE, b)


def interleaved(builder, threads, b=0):
    """The reference reduceInterleaved: stride = threads / 2, halving; tid < stride adds."""
    idata = BASE
    stride = threads // 2
    while stride > 0:
        active = [t for t in range(threads) if t < stride]
        for pc, addr, flags in ((0x200, lambda t: idata + 4 * t, READ),
                                (0x210, lambda t: idata + 4 * (t + stride), READ),
                                (0x220, lambda t: idata + 4 * t, WRITE)):
            for t in active:
                builder.rec(t, "g", pc, addr(t), 4, flags, b)
        for t in range(threads):
            builder.rec(t, "bar", 0x230, 0, 0, 0, b)
        stride //= 2
    builder.rec(0, "g", 0x240, idata, 4, READ, b)


class ReductionTest(unittest.TestCase):
    def test_neighbored_one_warp_block(self):
        # 32 threads: rounds stride 1, 2, 4, 8, 16 have tid % 2, 4, 8, 16, 32 == 0 -> 16, 8, 4, 2, 1
        # adding lanes (all in warp 0); step 5 (after the 5th barrier) is thread 0's final store.
        b = TraceBuilder()
        b.launch("reduceNeighbored(int*, int*, unsigned int)", (32, 1, 1))
        neighbored(b, 32)
        launch = b.trace().launches[0]
        self.assertEqual(render.active_lanes_per_step(launch, pc=0x120), {0: [16, 8, 4, 2, 1, 0]})
        self.assertEqual(render.active_lanes_per_step(launch, pc=0x150), {0: [0, 0, 0, 0, 0, 1]})
        pairs = render.reduction_pairs(launch, base=BASE)
        self.assertEqual([len(p) for p in pairs], [16, 8, 4, 2, 1, 0])
        self.assertEqual(pairs[0][:3], [(0, 1), (2, 3), (4, 5)])
        self.assertEqual(pairs[4], [(0, 16)])

    def test_neighbored_two_warp_block(self):
        # 64 threads (the lab's smallest block): strides 1..16 give each warp 16, 8, 4, 2, 1 lanes;
        # stride 32 (tid % 64 == 0) leaves only lane 0 of warp 0: every warp stays busy at every
        # step while most of its lanes idle -- the divergence the lab removes.
        b = TraceBuilder()
        b.launch("reduceNeighbored(int*, int*, unsigned int)", (64, 1, 1))
        neighbored(b, 64)
        launch = b.trace().launches[0]
        self.assertEqual(render.active_lanes_per_step(launch, pc=0x120),
                         {0: [16, 8, 4, 2, 1, 1, 0], 1: [16, 8, 4, 2, 1, 0, 0]})

    def test_interleaved_two_warp_block(self):
        # stride 32: tid < 32 is all of warp 0 and none of warp 1; then 16, 8, 4, 2, 1 lanes of
        # warp 0: whole warps retire instead of half-empty warps staying busy.
        b = TraceBuilder()
        b.launch("reduceInterleaved(int*, int*, unsigned int)", (64, 1, 1))
        interleaved(b, 64)
        launch = b.trace().launches[0]
        self.assertEqual(render.active_lanes_per_step(launch, pc=0x220),
                         {0: [32, 16, 8, 4, 2, 1, 0], 1: [0, 0, 0, 0, 0, 0, 0]})
        self.assertEqual(render.reduction_pairs(launch, base=BASE)[0][:2], [(0, 32), (1, 33)])

    def test_steps_are_per_thread_barrier_counts(self):
        b = TraceBuilder()
        b.launch("k", (32, 1, 1))
        b.rec(0, "g", 0x10, BASE, 4, READ)
        b.rec(0, "bar", 0x20)
        b.rec(1, "g", 0x10, BASE + 4, 4, READ)  # thread 1 records later, before its own barrier
        b.rec(1, "bar", 0x20)
        b.rec(0, "g", 0x30, BASE, 4, WRITE)
        launch = b.trace().launches[0]
        self.assertEqual([(e.thread, e.step) for e in launch.events if e.kind == "g"], [(0, 0), (1, 0), (0, 1)])
        reqs = render.requests(launch, kinds=("g",))
        self.assertEqual([(r.pc, r.step, sorted(r.lanes)) for r in reqs], [(0x10, 0, [0, 1]), (0x30, 1, [0])])


class SectorTest(unittest.TestCase):
    def one_request(self, stride_floats):
        b = TraceBuilder()
        b.launch("readStride(float const*, float*, int, int)", (32, 1, 1))
        for t in range(32):
            b.rec(t, "g", 0x100, BASE + 4 * stride_floats * t, 4, READ)
        reqs = render.requests(b.trace().launches[0], kinds=("g",))
        self.assertEqual(len(reqs), 1)
        self.assertEqual(len(reqs[0].lanes), 32)
        return reqs[0]

    def test_coalesced_float_load_is_4_sectors(self):
        # 32 lanes x 4 bytes = 128 consecutive bytes from an aligned base = 4 sectors of 32 bytes.
        self.assertEqual(len(render.sectors(self.one_request(1))), 4)

    def test_stride_32_float_load_is_32_sectors(self):
        # lanes 128 bytes apart: each lane's 4 bytes lie in a sector of their own.
        self.assertEqual(len(render.sectors(self.one_request(32))), 32)

    def test_misaligned_by_one_float_is_5_sectors(self):
        b = TraceBuilder()
        b.launch("readOffset", (32, 1, 1))
        for t in range(32):
            b.rec(t, "g", 0x100, BASE + 4 * (t + 1), 4, READ)
        self.assertEqual(len(render.sectors(render.requests(b.trace().launches[0])[0])), 5)

    def test_access_straddling_sectors_counts_both(self):
        r = render.Request(0, 0, 0, 0, "g", 0, "r", lanes={0: (BASE + 28, 8)})
        self.assertEqual(len(render.sectors(r)), 2)


class BankTest(unittest.TestCase):
    def column_read(self, row_floats):
        # float tile[32][row_floats]; lane i reads tile[i][5]: offset (i * row_floats + 5) * 4.
        b = TraceBuilder()
        b.launch("transpose", (32, 1, 1))
        for t in range(32):
            b.rec(t, "s", 0x300, (t * row_floats + 5) * 4, 4, READ)
        return render.requests(b.trace().launches[0], kinds=("s",))[0]

    def test_unpadded_column_is_32_way(self):
        # row of 32 floats = 128 bytes: every lane's word is in bank 5, 32 distinct words.
        r = self.column_read(32)
        self.assertEqual({render.bank(a) for a, _ in r.lanes.values()}, {5})
        self.assertEqual(render.bank_conflict_degree(r), 32)

    def test_padded_column_is_conflict_free(self):
        # row of 33 floats: lane i is in bank (i * 33 + 5) % 32 = (i + 5) % 32: all 32 banks once.
        r = self.column_read(33)
        self.assertEqual(sorted(render.bank(a) for a, _ in r.lanes.values()), list(range(32)))
        self.assertEqual(render.bank_conflict_degree(r), 1)

    def test_same_word_is_a_broadcast(self):
        r = render.Request(0, 0, 0, 0, "s", 0, "r", lanes={lane: (64, 4) for lane in range(32)})
        self.assertEqual(render.bank_conflict_degree(r), 1)

    def test_two_way_with_stride_two(self):
        r = render.Request(0, 0, 0, 0, "s", 0, "r", lanes={lane: (8 * lane, 4) for lane in range(32)})
        self.assertEqual(render.bank_conflict_degree(r), 2)

    def test_8_byte_accesses_are_served_per_half_warp(self):
        # double a[64]: lane i reads a[i]: each half-warp covers 128 bytes, no conflict.
        r = render.Request(0, 0, 0, 0, "s", 0, "r", lanes={lane: (8 * lane, 8) for lane in range(32)})
        self.assertEqual(render.bank_conflict_degree(r), 1)


class LayoutAndTextTest(unittest.TestCase):
    def test_warp_layout_2d_block(self):
        # (16, 3): linear = x + 16 y; thread (0, 2) is linear 32 = warp 1 lane 0.
        layout = render.warp_layout((16, 3, 1))
        self.assertEqual(len(layout), 48)
        self.assertEqual(layout[32], (0, 2, 0, 1, 0))
        self.assertEqual(layout[47], (15, 2, 0, 1, 15))

    def test_warp_layout_3d_block(self):
        layout = render.warp_layout((4, 4, 3))
        self.assertEqual(layout[31], (3, 3, 1, 0, 31))
        self.assertEqual(layout[32], (0, 0, 2, 1, 0))

    def test_divergent_arms_show_as_lane_sets(self):
        # if (i % 2 == 0) store A else store B: two requests with complementary lanes.
        b = TraceBuilder()
        b.launch("mathKernel1(float*, int)", (32, 1, 1))
        for t in range(0, 32, 2):
            b.rec(t, "g", 0x100, BASE + 4 * t, 4, WRITE, mask=0x55555555)
        for t in range(1, 32, 2):
            b.rec(t, "g", 0x180, BASE + 4 * t, 4, WRITE, mask=0xAAAAAAAA)
        reqs = render.requests(b.trace().launches[0])
        self.assertEqual([render.lane_string(r.mask)[:4] for r in reqs], ["#.#.", ".#.#"])
        self.assertEqual(render.active_lanes_per_step(b.trace().launches[0], access="w"), {0: [32]})

    def test_text_summary_and_svgs(self):
        b = TraceBuilder()
        b.launch("reduceNeighbored(int*, int*, unsigned int)", (64, 1, 1))
        neighbored(b, 64)
        b.rec(0, "s", 0x400, 0, 4, READ)
        trace = b.trace()
        text = render.text_summary(trace)
        self.assertIn("launch 0: reduceNeighbored", text)
        self.assertIn("w0  step 0  pc    0x120 global     w " + "#." * 16 + " 16 lanes  4 sectors", text)
        with tempfile.TemporaryDirectory() as out:
            printed = render.render(trace, out)
            self.assertEqual(len(printed), len(render.VIEWS))
            for name in os.listdir(out):
                if name.endswith(".svg"):
                    root = ET.parse(os.path.join(out, name)).getroot()  # well-formed XML
                    self.assertTrue(root.tag.endswith("svg"), name)

    def test_long_traces_draw_at_most_max_per_step_rows(self):
        b = TraceBuilder()
        b.launch("zero(float*)", (64, 1, 1))
        for k in range(20):  # 20 shared stores per thread in one step
            for t in range(64):
                b.rec(t, "s", 0x100, 4 * (t + 64 * k), 4, WRITE)
        launch = b.trace().launches[0]
        reqs = render.requests(launch, kinds=("s",))
        self.assertEqual(len(reqs), 40)
        drawn, left = render.capped(reqs, 16)
        self.assertEqual((len(drawn), left), (32, 8))
        drawn, left = render.capped(reqs, 3, warps=[0])
        self.assertEqual(([r.warp for r in drawn], left), ([0, 0, 0], 17))
        svg = render.svg_banks(launch, max_per_step=3, warps=[0])
        self.assertIn("... and 17 more requests (at most 3 per warp and step drawn", svg)
        ET.fromstring(svg)

    def test_svg_escapes_kernel_names(self):
        b = TraceBuilder()
        b.launch("k<float, &x>(a \"b\")", (32, 1, 1))
        b.rec(0, "g", 0x100, BASE, 4, READ)
        svg = render.svg_active_lanes(b.trace().launches[0])
        self.assertIn("k&lt;float, &amp;x&gt;", svg)
        ET.fromstring(svg)

    def test_missing_or_skipped_trace_reports_skipped(self):
        with tempfile.TemporaryDirectory() as out:
            printed = render.render(render.load(os.path.join(out, "none.jsonl")), out)
            self.assertTrue(all(": skipped: no trace file" in line for line in printed), printed)
            trace = render.parse_lines(['{"type":"skipped","reason":"sanitizerSubscribe failed"}'])
            printed = render.render(trace, out)
            self.assertEqual(printed[0], "layout: skipped: sanitizerSubscribe failed")

    def test_bad_lines_are_rejected(self):
        with self.assertRaises(ValueError):
            render.parse_lines(['{"l":3,"b":0,"t":0,"k":"g","pc":0,"a":0,"n":4,"f":1,"m":1}'])
        with self.assertRaises(ValueError):
            render.parse_lines(["not json"])

    def test_command_line_reports_a_bad_trace_or_option_in_one_line(self):
        with tempfile.TemporaryDirectory() as out:
            bad = os.path.join(out, "cut.jsonl")
            with open(bad, "w") as f:
                f.write('{"type":"launch"\n')
            for argv, message in (([bad], "trace line 1: not JSON"),
                                  ([bad, "--warps", "0,x"], "--warps takes comma-separated warp numbers")):
                proc = subprocess.run([sys.executable, os.path.join(HERE, "render.py"), *argv, "--out", out],
                                      capture_output=True, text=True)
                self.assertNotEqual(proc.returncode, 0)
                self.assertIn(message, proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)


@unittest.skipUnless(shutil.which("g++"), "needs g++ to build host_check/write_sample_trace.cpp")
class CppWriterTest(unittest.TestCase):
    """The C++ writer (trace_writer.hpp, used by tracer.cpp) and the Python reader agree."""

    def test_roundtrip(self):
        with tempfile.TemporaryDirectory() as tmp:
            exe, out = os.path.join(tmp, "write_sample_trace"), os.path.join(tmp, "trace.jsonl")
            subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-o", exe,
                            os.path.join(HERE, "host_check", "write_sample_trace.cpp")], check=True)
            subprocess.run([exe, out], check=True)
            trace = render.load(out)
        self.assertEqual(trace.skipped, ["sample line: not a real skip"])
        launch = trace.launches[0]
        self.assertEqual(launch.kernel, 'sample(float const*, "quoted")')
        self.assertEqual((launch.block, launch.records), ((32, 1, 1), 96))
        reqs = render.requests(launch, kinds=("g",))
        self.assertEqual([(r.step, len(r.lanes), len(render.sectors(r))) for r in reqs], [(0, 32, 4), (1, 32, 32)])


if __name__ == "__main__":
    unittest.main()
