"""The tracer's records against what the reference kernels must do: real traces recorded on an
NVIDIA H100 (CUDA 13.0, driver 580) by the drivers in ../drivers/ on the kernels of solutions/,
trimmed to block 0 (tests/make_fixture.py; ch05_01: its second launch only, to stay small).

    python3 -m unittest discover -s tools/tracer/tests -v     (ctest: tools.tracer_selftest)

Every expected number is derived in a comment from the kernel's source in solutions/, not read
off the trace.
"""
import os
import sys
import unittest
from collections import Counter

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/tracer
sys.path.insert(0, HERE)
import facts  # noqa: E402

FIXTURES = os.path.join(HERE, "tests", "fixtures")


def fixture(lab):
    return facts.load(os.path.join(FIXTURES, f"h100-{lab}.jsonl.gz"))


class FixtureFormatTest(unittest.TestCase):
    def test_launch_lines_agree_with_the_records(self):
        for lab in ("ch03_01", "ch03_02", "ch03_10", "ch04_02", "ch05_01"):
            with self.subTest(lab=lab):
                trace = fixture(lab)
                self.assertTrue(trace.launches)
                self.assertEqual(trace.skipped, [])
                for launch in trace.launches:
                    self.assertEqual(launch.records, len(launch.events))
                    self.assertEqual(launch.traced_blocks, 1)
                    self.assertEqual(launch.dropped, 0)
                    self.assertEqual({e.block for e in launch.events}, {0})
                    # every thread of the block entered and left once
                    enter = Counter(e.thread for e in launch.events if e.kind == "be")
                    leave = Counter(e.thread for e in launch.events if e.kind == "bx")
                    self.assertEqual(enter, Counter(range(launch.threads_per_block)))
                    self.assertEqual(leave, enter)


class ReductionTest(unittest.TestCase):
    """ch03_10, n = 192 ints, blocks of 64 threads (2 warps). Steps 0-5 are the loop's strides
    1, 2, 4, 8, 16, 32 (one __syncthreads each); step 6 is thread 0 writing the block's sum."""

    @classmethod
    def setUpClass(cls):
        cls.trace = fixture("ch03_10")

    def test_neighbored_stores_per_warp_and_step(self):
        # `if (tid % (2 * stride) == 0) idata[tid] += idata[tid + stride]`: warp 0 (tid 0-31) has
        # 16, 8, 4, 2, 1 such tids for strides 1-16 and tid 0 for stride 32; warp 1 (tid 32-63)
        # 16, 8, 4, 2, 1 (tid 32 at stride 16) and none at stride 32. Both warps stay busy while
        # their lanes thin out: the divergence the lab is about.
        lanes = facts.store_lanes(facts.launch(self.trace, "reduceNeighbored"))
        self.assertEqual(lanes[0][:6], [16, 8, 4, 2, 1, 1])
        self.assertEqual(lanes[1][:6], [16, 8, 4, 2, 1, 0])
        self.assertEqual((lanes[0][6], lanes[1][6]), (1, 0))  # g_odata[blockIdx.x] = idata[0]

    def test_neighbored_lanes_are_every_second_then_every_fourth(self):
        masks = [m for w, s, m in facts.request_lanes(facts.launch(self.trace, "reduceNeighbored")) if w == 0]
        self.assertEqual(masks[:3], [0x55555555, 0x11111111, 0x01010101])

    def test_interleaved_stores_per_warp_and_step(self):
        # `for (stride = blockDim.x / 2; ...) if (tid < stride)`: strides 32, 16, 8, 4, 2, 1 keep
        # the first 32, 16, ... threads, all in warp 0; warp 1 never stores.
        lanes = facts.store_lanes(facts.launch(self.trace, "reduceInterleaved"))
        self.assertEqual(lanes, {0: [32, 16, 8, 4, 2, 1, 1], 1: [0] * 7})

    def test_neighbored_less_has_the_interleaved_lane_counts(self):
        # `index = 2 * stride * tid; if (index < blockDim.x)`: threads 0..(32/stride - 1) work.
        lanes = facts.store_lanes(facts.launch(self.trace, "reduceNeighboredLess"))
        self.assertEqual(lanes, {0: [32, 16, 8, 4, 2, 1, 1], 1: [0] * 7})

    def test_reduction_trees(self):
        neighbored = facts.reduction_adds(facts.launch(self.trace, "reduceNeighbored"))
        interleaved = facts.reduction_adds(facts.launch(self.trace, "reduceInterleaved"))
        less = facts.reduction_adds(facts.launch(self.trace, "reduceNeighboredLess"))
        self.assertEqual([len(p) for p in neighbored[:6]], [32, 16, 8, 4, 2, 1])
        self.assertEqual(neighbored[0][:3], [(0, 1), (2, 3), (4, 5)])  # neighbours
        self.assertEqual(neighbored[5], [(0, 32)])
        self.assertEqual(less, neighbored)  # the same additions, done by the first threads
        self.assertEqual([len(p) for p in interleaved[:6]], [32, 16, 8, 4, 2, 1])
        self.assertEqual(interleaved[0][:3], [(0, 32), (1, 33), (2, 34)])  # half a block apart
        self.assertEqual(interleaved[5], [(0, 1)])

    def test_expect_accepts_the_reference(self):
        self.assertEqual(facts.expect("ch03_10_reduction_divergence", self.trace), [])


class CoalescingTest(unittest.TestCase):
    """ch04_02, n = 128 floats, blocks of 64: readOffset (c[i] = a[i + offset] + b[i + offset])
    with offsets 0 and 1, readStride (c[i] = a[i * stride]) with strides 1 and 32."""

    @classmethod
    def setUpClass(cls):
        cls.trace = fixture("ch04_02")

    def test_offset_loads(self):
        # 32 consecutive floats = 128 bytes: 4 sectors from a 128-byte aligned start, 5 one float off.
        self.assertEqual(facts.sectors_by_pc(facts.launch(self.trace, "readOffset", 0)), [[4, 4], [4, 4]])
        self.assertEqual(facts.sectors_by_pc(facts.launch(self.trace, "readOffset", 1)), [[5, 5], [5, 5]])
        # the store c[i] is aligned either way
        for k in (0, 1):
            self.assertEqual(facts.sectors_by_pc(facts.launch(self.trace, "readOffset", k), access="w"), [[4, 4]])

    def test_stride_loads(self):
        # stride 32 floats = 128 bytes between lanes: every lane in its own sector.
        self.assertEqual(facts.sectors_per_request(facts.launch(self.trace, "readStride", 0)), Counter({4: 2}))
        self.assertEqual(facts.sectors_per_request(facts.launch(self.trace, "readStride", 1)), Counter({32: 2}))

    def test_expect_accepts_the_reference(self):
        self.assertEqual(facts.expect("ch04_02_coalescing", self.trace), [])


class LayoutTest(unittest.TestCase):
    """ch03_01: recordWarpLayout on one 16x3 block and one 4x4x3 block (48 threads each)."""

    def test_two_warps_the_second_half_empty(self):
        trace = fixture("ch03_01")
        self.assertEqual([l.block for l in trace.launches], [(16, 3, 1), (4, 4, 3)])
        for launch in trace.launches:
            with self.subTest(block=launch.block):
                # the hardware's own mask at block entry: warp 0 full, warp 1 lanes 0-15 only
                self.assertEqual(facts.warp_masks(launch), {0: {0xFFFFFFFF}, 1: {0x0000FFFF}})

    def test_slot_written_is_the_x_fastest_linear_index(self):
        # Each thread stores its 24-byte WarpSlot at slots[linear], linear = (z * by + y) * bx + x;
        # the tracer numbers threads the same way, so thread t writes slot t.
        for launch in fixture("ch03_01").launches:
            with self.subTest(block=launch.block):
                slots = facts.slot_of_thread(launch, slot_bytes=24)
                self.assertEqual(slots, {t: t for t in range(48)})
                stores = Counter(e.thread for e in launch.events if e.kind == "g" and e.access == "w")
                self.assertEqual(set(stores.values()), {6})  # x, y, z, linear, warp, lane


class DivergenceTest(unittest.TestCase):
    """ch03_02, n = 128, blocks of 64, heavy kernels with 4 iterations per arm."""

    @classmethod
    def setUpClass(cls):
        cls.trace = fixture("ch03_02")

    def test_heavy_kernel1_splits_every_warp_into_odd_and_even_lanes(self):
        # `if (i % 2 == 0) out[i] = evenArm(...) else out[i] = oddArm(...)`: two stores per warp,
        # one by the 16 even lanes, one by the 16 odd lanes (which arm ran first is the GPU's choice).
        launch = facts.launch(self.trace, "heavyKernel1")
        stores = facts.request_lanes(launch)
        for warp in (0, 1):
            self.assertEqual(sorted(m for w, _, m in stores if w == warp), [0x55555555, 0xAAAAAAAA])
        # and the hardware's __activemask() at each store says the warp was split there
        masks = {e.mask for e in launch.events if e.kind == "g" and e.access == "w"}
        self.assertEqual(masks, {0x55555555, 0xAAAAAAAA})

    def test_heavy_kernel2_keeps_warps_whole(self):
        # even warps take evenArm, odd warps oddArm: one store per warp by all 32 lanes.
        stores = facts.request_lanes(facts.launch(self.trace, "heavyKernel2"))
        self.assertEqual(sorted((w, m) for w, _, m in stores), [(0, 0xFFFFFFFF), (1, 0xFFFFFFFF)])

    def test_arms_that_only_compute_leave_one_store(self):
        # mathKernel1-4 branch on values but store once after the branch: the trace sees full warps.
        for k in ("mathKernel1", "mathKernel2", "mathKernel3", "mathKernel4"):
            stores = facts.request_lanes(facts.launch(self.trace, k))
            self.assertEqual([m for _, _, m in stores], [0xFFFFFFFF, 0xFFFFFFFF], k)


class HistogramBanksTest(unittest.TestCase):
    """ch05_01: histogramShared on 2048 bytes all 0 (every lane counts into bin 0), 2 blocks of 64."""

    @classmethod
    def setUpClass(cls):
        cls.launch = facts.launch(fixture("ch05_01"), "histogramShared")

    def test_every_shared_request_is_conflict_free(self):
        # s_hist[bin * 32 + lane]: lane l counts into bank l whatever the bin, so even 32 lanes
        # counting the same byte hit 32 banks (1-way); zeroing s_hist[tid + k * 64] is 32
        # consecutive words; the merge reads s_hist[bin * 32 + (r + bin) % 32], bank (r + bin) % 32,
        # different for the 32 consecutive bins of a warp.
        # Per warp: zeroing 256 x 32 words in blocks of 64 = 128 requests; counting one uint4 per
        # thread = 16 atomics; merging 256 bins / 64 threads = 4 rounds of 32 reads = 128 requests.
        self.assertEqual(facts.bank_conflicts(self.launch),
                         Counter({("w", 1): 256, ("a", 1): 32, ("r", 1): 256}))

    def test_steps(self):
        # zero (step 0), __syncthreads, count (step 1), __syncthreads, merge (step 2)
        steps = {(r.access, r.step) for r in facts.render.requests(self.launch, kinds=("s",))}
        self.assertEqual(steps, {("w", 0), ("a", 1), ("r", 2)})

    def test_global_traffic(self):
        # each lane loads one uint4 (16 bytes): 512 bytes per warp = 16 sectors; only bin 0 is
        # non-zero, so thread 0 alone makes one global atomicAdd.
        self.assertEqual(facts.sectors_per_request(self.launch, access="r"), Counter({16: 2}))
        self.assertEqual(facts.request_lanes(self.launch, access="a"), [(0, 2, 0x1)])


class ExpectTest(unittest.TestCase):
    def test_expect_reports_a_wrong_trace(self):
        trace = fixture("ch03_10")
        # the neighbored reduction without its warp 1 fails the check
        wrong = fixture("ch03_10")
        for launch in wrong.launches:
            if launch.kernel.startswith("reduceNeighbored("):
                launch.events = [e for e in launch.events if e.warp == 0]
        problems = facts.expect("ch03_10_reduction_divergence", wrong)
        self.assertEqual(len(problems), 1)
        self.assertIn("reduceNeighbored lanes storing per step", problems[0])
        self.assertEqual(facts.expect("ch03_10_reduction_divergence", facts.render.Trace()),
                         ["no launch 0 of reduceNeighbored in the trace (kernels: none)"])
        self.assertEqual(facts.expect("ch05_01_shared_histogram", trace), [])  # not checked live

    def test_a_wrong_kernel_with_the_right_lanes_shows_in_its_sectors(self):
        # tests/mutants/ch03_10_reduction_divergence/neighboredless_as_interleaved traced on an H100:
        # reduceNeighboredLess's body (index = 2 * stride * tid) as reduceInterleaved. The sums are
        # right and the lanes are the reference's; only the addresses differ.
        wrong = facts.load(os.path.join(FIXTURES, "h100-ch03_10-neighboredless_as_interleaved.jsonl.gz"))
        launch = facts.launch(wrong, "reduceInterleaved")
        reference = facts.launch(fixture("ch03_10"), "reduceInterleaved")
        self.assertEqual(facts.store_lanes(launch), facts.store_lanes(reference))
        # step k: lanes 0..(32 >> k)-1 store idata[2^(k+1) * tid]: 32 lanes over 64 ints = 256 B = 8
        # sectors, 16 lanes 64 B apart over 256 B = 8, 8 lanes 128 B apart = 8, then 4, 2, 1
        self.assertEqual(facts.sectors_by_pc(launch, access="w"), [[8, 8, 8, 4, 2, 1], [1]])
        self.assertEqual(facts.sectors_by_pc(reference, access="w"), [[4, 2, 1, 1, 1, 1], [1]])
        self.assertEqual(facts.reduction_adds(launch)[0][:2], [(0, 1), (2, 3)])      # neighbours
        self.assertEqual(facts.reduction_adds(reference)[0][:2], [(0, 32), (1, 33)])  # half a block apart
        problems = facts.expect("ch03_10_reduction_divergence",
                                facts.render.Trace(launches=fixture("ch03_10").launches[:2] + wrong.launches))
        self.assertEqual(problems, ["reduceInterleaved sectors per store: [[8, 8, 8, 4, 2, 1], [1]], "
                                    "expected [[4, 2, 1, 1, 1, 1], [1]]"])


if __name__ == "__main__":
    unittest.main()
