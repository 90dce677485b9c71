"""Facts read off a trace, for tests: what the warps and lanes of a traced kernel did, in numbers.

    import facts
    trace = facts.load("trace.jsonl")            # or a .jsonl.gz fixture
    launch = facts.launch(trace, "reduceNeighbored")
    facts.store_lanes(launch)                    # {warp: [lanes that stored, per step]}

Each function is a thin, named question on top of render.py's grouping (warp = linear thread // 32,
step = barriers passed, request = one warp-wide execution of one instruction). tests/test_facts.py
asks them of real traces recorded on an H100 (tests/fixtures/h100-*.jsonl.gz); trace_lab.py asks
some of them of a live trace of the reference kernels (--expect).
"""
from __future__ import annotations

import os
import sys
from collections import Counter
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402
from render import Launch, Trace  # noqa: E402


load = render.load  # a trace file, plain or gzip-compressed (.gz)


def launches(trace: Trace, kernel: str) -> List[Launch]:
    """The launches whose demangled name starts with @p kernel followed by '(' (exact kernel name)."""
    return [l for l in trace.launches if l.kernel.split("(")[0] == kernel]


def launch(trace: Trace, kernel: str, index: int = 0) -> Launch:
    """The @p index-th launch of @p kernel; LookupError naming the kernels there are."""
    found = launches(trace, kernel)
    if len(found) <= index:
        names = sorted({l.kernel.split("(")[0] for l in trace.launches})
        raise LookupError(f"no launch {index} of {kernel} in the trace (kernels: {', '.join(names) or 'none'})")
    return found[index]


def store_lanes(launch: Launch, block: int = 0, kind: str = "g", access: str = "w") -> Dict[int, List[int]]:
    """Per warp, the number of lanes per step that stored (or made another @p access)."""
    return render.active_lanes_per_step(launch, block, kind, access)


def reduction_adds(launch: Launch, block: int = 0) -> List[List[Tuple[int, int]]]:
    """Per step, the (destination, source) element pairs of an in-place tree reduction over the
    block's global data: elements counted from the lowest address the block wrote."""
    written = [e.address for e in launch.events if e.block == block and e.kind == "g" and e.access == "w"]
    base = min(written) if written else 0
    return render.reduction_pairs(launch, block, base)


def request_lanes(launch: Launch, block: int = 0, kind: str = "g", access: str = "w") -> List[Tuple[int, int, int]]:
    """(warp, step, lane mask) of every warp request of @p kind and @p access, in trace order."""
    return [(r.warp, r.step, r.mask) for r in render.requests(launch, kinds=(kind,), block=block)
            if not access or r.access == access]


def sectors_per_request(launch: Launch, block: int = 0, access: str = "r") -> Counter:
    """How many global warp requests of @p access touched how many 32-byte sectors: {sectors: n}."""
    return Counter(len(render.sectors(r)) for r in render.requests(launch, kinds=("g",), block=block)
                   if not access or r.access == access)


def sectors_by_pc(launch: Launch, block: int = 0, access: str = "r") -> List[List[int]]:
    """Per global instruction (pc, in the order first seen), the sector counts of its warp requests."""
    by_pc: Dict[int, List[int]] = {}
    for r in render.requests(launch, kinds=("g",), block=block):
        if not access or r.access == access:
            by_pc.setdefault(r.pc, []).append(len(render.sectors(r)))
    return list(by_pc.values())


def bank_conflicts(launch: Launch, block: int = 0, access: str = "") -> Counter:
    """How many shared warp requests of @p access ('r', 'w', 'a' or '' for all) had which conflict
    degree (render.bank_conflict_degree: 1 = conflict-free): {(access, degree): n}."""
    return Counter((r.access, render.bank_conflict_degree(r)) for r in render.requests(launch, kinds=("s",), block=block)
                   if not access or r.access == access)


def warp_masks(launch: Launch, block: int = 0, kind: str = "be") -> Dict[int, set]:
    """Per warp, the distinct __activemask() values its records of @p kind carried (the hardware's
    own account of which lanes the warp holds; 'be' = block entry)."""
    out: Dict[int, set] = {}
    for e in launch.events:
        if e.block == block and e.kind == kind:
            out.setdefault(e.warp, set()).add(e.mask)
    return out


def slot_of_thread(launch: Launch, block: int = 0, slot_bytes: int = 4) -> Dict[int, int]:
    """Per linear thread, the slot it wrote: (lowest address it stored to - lowest address any
    thread of the block stored to) // slot_bytes. For a kernel that writes out[linear] this is the
    kernel's own linear index, to compare with the tracer's (x fastest, as in ch03_01)."""
    lowest: Dict[int, int] = {}
    for e in launch.events:
        if e.block == block and e.kind == "g" and e.access == "w":
            lowest[e.thread] = min(lowest.get(e.thread, e.address), e.address)
    if not lowest:
        return {}
    base = min(lowest.values())
    return {t: (a - base) // slot_bytes for t, a in lowest.items()}


# ---- what the reference kernels must show (trace_lab.py --expect, tests/test_facts.py) ------------


def _expect_ch03_10(trace: Trace, check) -> None:
    # block of 64 = 2 warps; steps 0-5 are the strides 1..32, step 6 the block's result
    n = launch(trace, "reduceNeighbored")
    check("reduceNeighbored lanes storing per step", store_lanes(n), {0: [16, 8, 4, 2, 1, 1, 1],
                                                                   1: [16, 8, 4, 2, 1, 0, 0]})
    i = launch(trace, "reduceInterleaved")
    check("reduceInterleaved lanes storing per step", store_lanes(i), {0: [32, 16, 8, 4, 2, 1, 1],
                                                                    1: [0, 0, 0, 0, 0, 0, 0]})
    # its stores are contiguous: 32, 16, 8, 4, 2, 1 ints = 4, 2, 1, 1, 1, 1 sectors (then the
    # block's result); pairs of neighbours (index 2 * stride * tid) would spread them over 8
    check("reduceInterleaved sectors per store", sectors_by_pc(i, access="w"), [[4, 2, 1, 1, 1, 1], [1]])


def _expect_ch04_02(trace: Trace, check) -> None:
    o0, o1 = launch(trace, "readOffset", 0), launch(trace, "readOffset", 1)
    check("readOffset offset 0: sectors per load", sectors_by_pc(o0)[:2], [[4, 4], [4, 4]])
    check("readOffset offset 1: sectors per load", sectors_by_pc(o1)[:2], [[5, 5], [5, 5]])
    s1, s32 = launch(trace, "readStride", 0), launch(trace, "readStride", 1)
    check("readStride stride 1: sectors per load", sectors_per_request(s1), Counter({4: 2}))
    check("readStride stride 32: sectors per load", sectors_per_request(s32), Counter({32: 2}))


# lab (its first 7 characters) -> the facts its reference kernels must show; only labs whose facts
# do not depend on the GPU
_EXPECTATIONS = {"ch03_10": _expect_ch03_10, "ch04_02": _expect_ch04_02}
EXPECTED_LABS = tuple(_EXPECTATIONS)


def has_expectations(lab: str) -> bool:
    """Does @p lab (a full lab name) have facts its reference kernels must show?"""
    return lab[:7] in _EXPECTATIONS


def expect(lab: str, trace: Trace) -> List[str]:
    """Problems with a trace of @p lab's reference kernels run by its driver (an empty list: all as
    expected). Labs outside EXPECTED_LABS give []."""
    problems: List[str] = []

    def check(what: str, got, want) -> None:
        if got != want:
            problems.append(f"{what}: {got}, expected {want}")

    if has_expectations(lab):
        try:
            _EXPECTATIONS[lab[:7]](trace, check)
        except LookupError as e:
            problems.append(str(e))
    return problems
