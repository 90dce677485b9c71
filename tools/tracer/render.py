#!/usr/bin/env python3
"""Pictures of what each warp of a traced kernel did: reads a trace written by the kernel tracer
(libkernel_tracer.so, see README.md) and writes SVG pictures and a compact text form.

    python3 render.py trace.jsonl --out pictures/ [--kernel reduceNeighbored] [--block 0]

The trace is JSON lines (trace_writer.hpp): launch lines, each followed by its records, one record
per thread per event. This module groups them the way the hardware sees them:

* warp and lane: from the thread's linear index in its block (x fastest, then y, then z), as in
  lab ch03_01: warp = linear // 32, lane = linear % 32;
* step: how many barriers (__syncthreads) the thread has passed, so "step 2" is everything a
  thread did between its second and third barrier;
* request: one warp-wide execution of one memory instruction: the records of the warp's lanes with
  the same pc, the same kind, in the same step, and the same count of earlier executions of that pc
  by the lane (the k-th time round a loop pairs with the k-th time of the other lanes).

Analyses (all pure functions of a Launch, tested in test_render.py without a GPU):
  active_lanes_per_step  lanes per warp per step that made a matching access (ch03_02, ch03_10)
  reduction_pairs        which element each active lane added into which, step by step (ch03_10)
  sectors                distinct 32-byte sectors a warp request touches (ch03_08, ch04_02)
  bank_conflict_degree   the worst bank's number of distinct 4-byte words in a shared request (ch05_01)
  warp_layout            threadIdx, warp and lane of every thread of a block (ch03_01)

Only the Python standard library is used; the SVG is built with xml.etree (which escapes text).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

WARP_SIZE = 32
SECTOR_BYTES = 32
NUM_BANKS = 32
BANK_WIDTH = 4

READ, WRITE, ATOMSYS = 0x1, 0x2, 0x4  # Sanitizer_DeviceMemoryFlags bits
MEMORY_KINDS = ("g", "s")
KIND_NAMES = {"g": "global", "s": "shared", "bar": "barrier", "sw": "__syncwarp", "be": "block enter",
              "bx": "block exit"}

# Colours: one per warp (cycled), and the states of a lane.
WARP_COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7"]
ACTIVE, INACTIVE, CONFLICT, NO_THREAD = "#59a14f", "#e8e8e8", "#e15759", "#ffffff"


@dataclass
class Event:
    """One record: what one thread did once, with the grouping fields derived from it."""

    block: int
    thread: int
    kind: str
    pc: int
    address: int
    size: int
    flags: int
    mask: int
    warp: int = 0
    lane: int = 0
    step: int = 0  # barriers this thread passed before the event
    occurrence: int = 0  # earlier executions of this pc (and kind) by this thread in this step

    @property
    def access(self) -> str:
        """'r', 'w' or 'a' (atomic: read and write), '' for a non-memory event."""
        if self.kind not in MEMORY_KINDS:
            return ""
        if self.flags & READ and self.flags & WRITE:
            return "a"
        return "w" if self.flags & WRITE else "r"


@dataclass
class Launch:
    """One traced kernel launch and its events, in the order the device recorded them."""

    id: int
    kernel: str
    grid: Tuple[int, int, int]
    block: Tuple[int, int, int]
    traced_blocks: int
    records: int
    dropped: int
    mangled: str = ""
    events: List[Event] = field(default_factory=list)

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def warps_per_block(self) -> int:
        return (self.threads_per_block + WARP_SIZE - 1) // WARP_SIZE


@dataclass
class Trace:
    """A whole trace file: its launches, and why tracing was skipped if it was."""

    launches: List[Launch] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)


@dataclass
class Request:
    """One warp-wide execution of one instruction: the lanes that took part and their accesses."""

    block: int
    warp: int
    step: int
    pc: int
    kind: str
    occurrence: int
    access: str
    lanes: Dict[int, Tuple[int, int]] = field(default_factory=dict)  # lane -> (address, size)

    @property
    def mask(self) -> int:
        m = 0
        for lane in self.lanes:
            m |= 1 << lane
        return m


# ----------------------------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------------------------


def parse_lines(lines: Iterable[str]) -> Trace:
    """Parses trace lines (see trace_writer.hpp) and derives warp, lane, step and occurrence."""
    trace = Trace()
    by_id: Dict[int, Launch] = {}
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"trace line {number}: not JSON: {e}") from None
        kind = obj.get("type")
        if kind == "skipped":
            trace.skipped.append(str(obj.get("reason", "")))
        elif kind == "launch":
            launch = Launch(id=int(obj["id"]), kernel=str(obj["kernel"]), grid=tuple(obj["grid"]),
                            block=tuple(obj["block"]), traced_blocks=int(obj["traced_blocks"]),
                            records=int(obj["records"]), dropped=int(obj["dropped"]),
                            mangled=str(obj.get("mangled", "")))
            trace.launches.append(launch)
            by_id[launch.id] = launch
        elif "l" in obj:
            launch = by_id.get(int(obj["l"]))
            if launch is None:
                raise ValueError(f"trace line {number}: record of launch {obj['l']} before its launch line")
            launch.events.append(Event(block=int(obj["b"]), thread=int(obj["t"]), kind=str(obj["k"]),
                                       pc=int(obj["pc"]), address=int(obj["a"]), size=int(obj["n"]),
                                       flags=int(obj["f"]), mask=int(obj["m"])))
        else:
            raise ValueError(f"trace line {number}: unknown line {line[:80]!r}")
    for launch in trace.launches:
        annotate(launch)
    return trace


def load(path: str) -> Trace:
    """Reads a trace file, plain or gzip-compressed (.gz, as the test fixtures are); a missing file
    gives a Trace that says why it is empty."""
    if not os.path.exists(path):
        return Trace(skipped=[f"no trace file {path}: run a program under the tracer on a machine with an "
                              "NVIDIA GPU and the Compute Sanitizer API (see README.md)"])
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return parse_lines(f)


def annotate(launch: Launch) -> None:
    """Fills warp, lane, step and occurrence of every event, in record order (which is each
    thread's program order: a thread claims its record slots one after the other)."""
    steps: Dict[Tuple[int, int], int] = defaultdict(int)
    seen: Dict[Tuple[int, int, int, str, int], int] = defaultdict(int)
    for e in launch.events:
        e.warp, e.lane = divmod(e.thread, WARP_SIZE)
        key = (e.block, e.thread)
        e.step = steps[key]
        okey = (e.block, e.thread, e.pc, e.kind, e.step)
        e.occurrence = seen[okey]
        seen[okey] += 1
        if e.kind == "bar":
            steps[key] += 1


# ----------------------------------------------------------------------------------------------
# Analyses
# ----------------------------------------------------------------------------------------------


def requests(launch: Launch, kinds: Sequence[str] = MEMORY_KINDS, block: Optional[int] = None) -> List[Request]:
    """Warp requests of the given event kinds, in the order of their first record."""
    out: Dict[Tuple, Request] = {}
    for e in launch.events:
        if e.kind not in kinds or (block is not None and e.block != block):
            continue
        key = (e.block, e.warp, e.step, e.pc, e.kind, e.occurrence)
        r = out.get(key)
        if r is None:
            r = out[key] = Request(block=e.block, warp=e.warp, step=e.step, pc=e.pc, kind=e.kind,
                                   occurrence=e.occurrence, access=e.access)
        r.lanes[e.lane] = (e.address, e.size)
    return list(out.values())


def steps_of(launch: Launch, block: int) -> int:
    """Number of steps of a block: its largest barrier count plus one (0 without events)."""
    evs = [e.step for e in launch.events if e.block == block]
    return max(evs) + 1 if evs else 0


def active_lanes_per_step(launch: Launch, block: int = 0, kind: str = "g", access: str = "w",
                          pc: Optional[int] = None,
                          address_range: Optional[Tuple[int, int]] = None) -> Dict[int, List[int]]:
    """For each warp of @p block, the number of lanes per step that made an access of @p kind
    ('g' or 's') and @p access ('r', 'w', 'a', or '' for any), optionally only at @p pc and only
    to addresses in [lo, hi). Warps with no such access in a step count 0 there."""
    n_steps = steps_of(launch, block)
    lanes: Dict[int, List[set]] = {w: [set() for _ in range(n_steps)] for w in range(launch.warps_per_block)}
    for e in launch.events:
        if e.block != block or e.kind != kind or (access and e.access != access):
            continue
        if pc is not None and e.pc != pc:
            continue
        if address_range is not None and not address_range[0] <= e.address < address_range[1]:
            continue
        lanes[e.warp][e.step].add(e.lane)
    return {w: [len(s) for s in per_step] for w, per_step in lanes.items()}


def reduction_pairs(launch: Launch, block: int = 0, base: int = 0,
                    elem: int = 4) -> List[List[Tuple[int, int]]]:
    """Per step, the (destination, source) element pairs of an in-place tree reduction: a lane
    that writes element d in a step and also reads d and one other element s in that step added s
    into d. Elements are (address - base) // elem. Steps without such a lane give []."""
    n_steps = steps_of(launch, block)
    reads: Dict[Tuple[int, int], set] = defaultdict(set)
    writes: Dict[Tuple[int, int], set] = defaultdict(set)
    for e in launch.events:
        if e.block != block or e.kind not in MEMORY_KINDS:
            continue
        index = (e.address - base) // elem
        if e.access == "r":
            reads[(e.thread, e.step)].add(index)
        elif e.access == "w":
            writes[(e.thread, e.step)].add(index)
    pairs: List[List[Tuple[int, int]]] = [[] for _ in range(n_steps)]
    for (thread, step), written in writes.items():
        for d in written:
            others = reads[(thread, step)] - {d}
            if d in reads[(thread, step)] and len(others) == 1:
                pairs[step].append((d, next(iter(others))))
    for p in pairs:
        p.sort()
    return pairs


def sectors(request: Request, sector_bytes: int = SECTOR_BYTES) -> List[int]:
    """The distinct aligned sectors (address // sector_bytes) the bytes of a request touch."""
    touched = set()
    for address, size in request.lanes.values():
        for s in range(address // sector_bytes, (address + max(size, 1) - 1) // sector_bytes + 1):
            touched.add(s)
    return sorted(touched)


def bank(address: int, banks: int = NUM_BANKS, width: int = BANK_WIDTH) -> int:
    """The shared-memory bank of a byte offset: successive 4-byte words go to successive banks."""
    return (address // width) % banks


def bank_conflict_degree(request: Request, banks: int = NUM_BANKS, width: int = BANK_WIDTH) -> int:
    """Model of the shared-memory wavefronts of one request: the lanes are served in phases of
    banks * width bytes (all 32 lanes for 4-byte accesses, 16 for 8-byte, 8 for 16-byte); in each
    phase the cost is the largest number of *distinct* words any bank must deliver (lanes reading
    the same word share it: a broadcast). Returns the worst phase's count: 1 = conflict-free,
    32 = every lane in its own word of one bank. 0 for an empty request."""
    if not request.lanes:
        return 0
    size = max(max(s for _, s in request.lanes.values()), width)
    per_phase = max(1, (banks * width) // size)
    worst = 0
    for first in range(0, WARP_SIZE, per_phase):
        words: Dict[int, set] = defaultdict(set)
        for lane, (address, sz) in request.lanes.items():
            if first <= lane < first + per_phase:
                for word in range(address // width, (address + max(sz, 1) - 1) // width + 1):
                    words[word % banks].add(word)
        if words:
            worst = max(worst, max(len(w) for w in words.values()))
    return worst


def warp_layout(block_dim: Tuple[int, int, int]) -> List[Tuple[int, int, int, int, int]]:
    """(x, y, z, warp, lane) of every thread of a block, in linear order (x fastest)."""
    bx, by, bz = block_dim
    out = []
    for z in range(bz):
        for y in range(by):
            for x in range(bx):
                linear = x + bx * (y + by * z)
                out.append((x, y, z, linear // WARP_SIZE, linear % WARP_SIZE))
    return out


def entered_lanes(launch: Launch, block: int = 0) -> Dict[int, int]:
    """Per warp, the mask of lanes that recorded a block-enter event (threads that exist)."""
    masks: Dict[int, int] = defaultdict(int)
    for e in launch.events:
        if e.block == block and e.kind == "be":
            masks[e.warp] |= 1 << e.lane
    return dict(masks)


# ----------------------------------------------------------------------------------------------
# Text form
# ----------------------------------------------------------------------------------------------


def lane_string(mask: int) -> str:
    """32 characters, lane 0 first: '#' active, '.' inactive."""
    return "".join("#" if mask >> lane & 1 else "." for lane in range(WARP_SIZE))


def text_summary(trace: Trace, block: int = 0) -> str:
    """The compact text form: per launch, per warp request, step, pc, lanes, and the sectors or
    bank-conflict degree of memory requests."""
    lines = []
    for reason in trace.skipped:
        lines.append(f"skipped: {reason}")
    for launch in trace.launches:
        g, b = launch.grid, launch.block
        lines.append(f"launch {launch.id}: {launch.kernel} grid ({g[0]},{g[1]},{g[2]}) block ({b[0]},{b[1]},{b[2]}) "
                     f"records {launch.records} dropped {launch.dropped} (block {block} below)")
        if launch.dropped:
            lines.append(f"  WARNING: {launch.dropped} records dropped (raise TRACER_MAX_RECORDS)")
        for r in requests(launch, kinds=("g", "s", "bar", "sw"), block=block):
            head = f"  w{r.warp:<2} step {r.step:<2} pc {r.pc:#8x} {KIND_NAMES[r.kind]:<10} {r.access or '-'} " \
                   f"{lane_string(r.mask)} {len(r.lanes):2} lanes"
            if r.kind == "g":
                head += f"  {len(sectors(r))} sectors"
            elif r.kind == "s":
                head += f"  {bank_conflict_degree(r)}-way"
            lines.append(head)
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------
# SVG
# ----------------------------------------------------------------------------------------------


class Svg:
    """A minimal SVG document: rectangles, lines and text, serialised with xml.etree."""

    def __init__(self, width: int, height: int, title: str):
        self.root = ET.Element("svg", xmlns="http://www.w3.org/2000/svg", width=str(width), height=str(height),
                               viewBox=f"0 0 {width} {height}", **{"font-family": "monospace", "font-size": "11"})
        ET.SubElement(self.root, "title").text = title
        ET.SubElement(self.root, "rect", x="0", y="0", width=str(width), height=str(height), fill="#ffffff")

    def rect(self, x: float, y: float, w: float, h: float, fill: str, tip: str = "", stroke: str = "#999999") -> None:
        el = ET.SubElement(self.root, "rect", x=f"{x:g}", y=f"{y:g}", width=f"{w:g}", height=f"{h:g}", fill=fill,
                           stroke=stroke)
        if tip:
            ET.SubElement(el, "title").text = tip

    def text(self, x: float, y: float, s: str, anchor: str = "start", size: int = 11, fill: str = "#000000") -> None:
        ET.SubElement(self.root, "text", x=f"{x:g}", y=f"{y:g}", fill=fill,
                      **{"text-anchor": anchor, "font-size": str(size)}).text = s

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = "#333333", width: float = 1.5) -> None:
        ET.SubElement(self.root, "line", x1=f"{x1:g}", y1=f"{y1:g}", x2=f"{x2:g}", y2=f"{y2:g}", stroke=stroke,
                      **{"stroke-width": f"{width:g}"})

    def tostring(self) -> str:
        return ET.tostring(self.root, encoding="unicode")


CELL = 14
MAX_PER_STEP = 16  # rows drawn per warp and step in the lanes and banks views (summary.txt has all)


def capped(reqs: List[Request], max_per_step: int = MAX_PER_STEP, warps: Optional[Sequence[int]] = None
           ) -> Tuple[List[Request], int]:
    """The requests to draw: of the given warps (all when None), at most @p max_per_step per warp and
    step (0: no limit), in the given order; and how many were left out."""
    seen: Dict[Tuple[int, int], int] = defaultdict(int)
    out = []
    for r in reqs:
        if warps is not None and r.warp not in warps:
            continue
        seen[(r.warp, r.step)] += 1
        if max_per_step and seen[(r.warp, r.step)] > max_per_step:
            continue
        out.append(r)
    return out, sum(1 for r in reqs if warps is None or r.warp in warps) - len(out)


def left_out_note(svg: "Svg", y: float, n: int, cap: int) -> None:
    if n:
        svg.text(10, y, f"... and {n} more requests (at most {cap} per warp and step drawn; "
                        "all are in summary.txt)")


def svg_warp_layout(launch: Launch, block: int = 0) -> str:
    """ch03_01: the threads of one block drawn at (threadIdx.x, threadIdx.y), one panel per z,
    coloured by warp and labelled with the lane; lanes of the last warp that hold no thread
    are listed under the panels."""
    bx, by, bz = launch.block
    cell = 26
    width = max(360, 20 + bz * (bx * cell + 20))
    height = 70 + by * cell + 40
    svg = Svg(width, height, f"{launch.kernel}: warps of a ({bx},{by},{bz}) block")
    svg.text(10, 16, f"{launch.kernel}: block ({bx},{by},{bz}) = {launch.threads_per_block} threads, "
                     f"{launch.warps_per_block} warps", size=12)
    entered = entered_lanes(launch, block)
    for x, y, z, warp, lane in warp_layout(launch.block):
        ox = 10 + z * (bx * cell + 20)
        fill = WARP_COLOURS[warp % len(WARP_COLOURS)]
        if entered and not entered.get(warp, 0) >> lane & 1:
            fill = INACTIVE  # the trace shows no such thread
        svg.rect(ox + x * cell, 40 + y * cell, cell, cell, fill,
                 tip=f"threadIdx ({x},{y},{z}) linear {x + bx * (y + by * z)} warp {warp} lane {lane}")
        svg.text(ox + x * cell + cell / 2, 40 + y * cell + cell * 0.65, str(lane), anchor="middle", size=9)
    for z in range(bz):
        svg.text(10 + z * (bx * cell + 20), 34, f"z = {z}")
    empty = launch.warps_per_block * WARP_SIZE - launch.threads_per_block
    svg.text(10, height - 12, f"last warp: {WARP_SIZE - empty} lanes hold threads, {empty} inactive lanes")
    return svg.tostring()


def svg_active_lanes(launch: Launch, block: int = 0, max_per_step: int = MAX_PER_STEP,
                     warps: Optional[Sequence[int]] = None) -> str:
    """ch03_02 / ch03_10: one row per warp request (memory, barrier, __syncwarp), 32 lane cells,
    green where the lane took part; rows grouped by warp and step (see capped())."""
    reqs = requests(launch, kinds=("g", "s", "bar", "sw"), block=block)
    reqs.sort(key=lambda r: (r.warp, r.step))
    reqs, left_out = capped(reqs, max_per_step, warps)
    width, top = 40 + 260 + WARP_SIZE * CELL + 20, 40
    svg = Svg(width, top + len(reqs) * (CELL + 2) + 40, f"{launch.kernel}: active lanes per warp request")
    svg.text(10, 16, f"{launch.kernel}, block {block}: active lanes of every warp request", size=12)
    for lane in range(0, WARP_SIZE, 8):
        svg.text(300 + lane * CELL, top - 6, str(lane))
    for i, r in enumerate(reqs):
        y = top + i * (CELL + 2)
        svg.text(10, y + CELL - 3, f"w{r.warp} step {r.step} pc {r.pc:#x} {KIND_NAMES[r.kind]} {r.access}")
        for lane in range(WARP_SIZE):
            on = lane in r.lanes
            tip = f"lane {lane}" + (f" address {r.lanes[lane][0]:#x}" if on and r.kind in MEMORY_KINDS else "")
            svg.rect(300 + lane * CELL, y, CELL, CELL, ACTIVE if on else INACTIVE, tip=tip)
        svg.text(300 + WARP_SIZE * CELL + 6, y + CELL - 3, str(len(r.lanes)))
    left_out_note(svg, top + len(reqs) * (CELL + 2) + 20, left_out, max_per_step)
    return svg.tostring()


def svg_reduction(launch: Launch, block: int = 0, base: Optional[int] = None, elem: int = 4) -> str:
    """ch03_10: the reduction tree step by step: one row of elements per step, a line from every
    source element to the element it was added into, destinations highlighted. @p base defaults
    to the lowest global address the block wrote."""
    if base is None:
        written = [e.address for e in launch.events if e.block == block and e.kind == "g" and e.access == "w"]
        base = min(written) if written else 0
    pairs = reduction_pairs(launch, block, base, elem)
    n = launch.threads_per_block
    cell = max(8, min(18, 900 // max(n, 1)))
    row = 46
    width, height = 80 + n * cell + 20, 40 + (len(pairs) + 1) * row
    svg = Svg(width, height, f"{launch.kernel}: reduction tree")
    svg.text(10, 16, f"{launch.kernel}, block {block}: element d += element s, per step (lanes active)", size=12)
    for step, ps in enumerate(pairs + [[]]):
        y = 30 + step * row
        dests = {d for d, _ in ps}
        srcs = {s for _, s in ps}
        svg.text(10, y + cell - 2, f"step {step}" if step < len(pairs) else "result")
        for i in range(n):
            fill = ACTIVE if i in dests else ("#9ecae1" if i in srcs else INACTIVE)
            svg.rect(70 + i * cell, y, cell, cell, fill, tip=f"element {i}")
        for d, s in ps:
            svg.line(70 + s * cell + cell / 2, y + cell, 70 + d * cell + cell / 2, y + row)
        if step < len(pairs):
            svg.text(70 + n * cell + 6, y + cell - 2, f"{len(ps)} adds")
    return svg.tostring()


def svg_sectors(launch: Launch, block: int = 0, sector_bytes: int = SECTOR_BYTES) -> str:
    """ch03_08 / ch04_02: per global request, the sectors it touches as boxes along the address
    axis (relative to the request's lowest sector), and the count: 4 for 32 consecutive floats."""
    reqs = [r for r in requests(launch, kinds=("g",), block=block)]
    width = 40 + 260 + 40 * 12 + 80
    svg = Svg(width, 40 + len(reqs) * 20 + 20, f"{launch.kernel}: 32-byte sectors per warp request")
    svg.text(10, 16, f"{launch.kernel}, block {block}: {sector_bytes}-byte sectors touched by each warp request "
                     "(ideal for 32 floats: 4)", size=12)
    for i, r in enumerate(reqs):
        y = 30 + i * 20
        secs = sectors(r, sector_bytes)
        svg.text(10, y + 12, f"w{r.warp} step {r.step} pc {r.pc:#x} {r.access} {len(r.lanes)} lanes")
        first = secs[0] if secs else 0
        span = (secs[-1] - first + 1) if secs else 1
        scale = min(12.0, 480.0 / span)
        for s in secs:
            svg.rect(300 + (s - first) * scale, y, max(scale - 1, 1), 14, ACTIVE if len(secs) <= 4 else CONFLICT,
                     tip=f"sector {s:#x} (address {s * sector_bytes:#x})")
        svg.text(300 + 480 + 10, y + 12, f"{len(secs)} sectors")
    return svg.tostring()


def svg_banks(launch: Launch, block: int = 0, max_per_step: int = MAX_PER_STEP,
              warps: Optional[Sequence[int]] = None) -> str:
    """ch05_01 / bank conflicts: per shared request, the 32 banks as columns and the lanes stacked
    in the bank of their address; a bank asked for more than one distinct word is red (see capped())."""
    reqs, left_out = capped(requests(launch, kinds=("s",), block=block), max_per_step, warps)
    rows = []
    for r in reqs:
        per_bank: Dict[int, Dict[int, List[int]]] = defaultdict(lambda: defaultdict(list))
        for lane, (address, _) in r.lanes.items():
            per_bank[bank(address)][address // BANK_WIDTH].append(lane)
        rows.append((r, per_bank, max((len(words) for words in per_bank.values()), default=0)))
    heights = [max(depth, 1) * CELL + 26 for _, _, depth in rows]
    width = 20 + NUM_BANKS * (CELL + 12) + 120
    svg = Svg(width, 40 + sum(heights) + 30, f"{launch.kernel}: shared-memory banks per lane")
    svg.text(10, 16, f"{launch.kernel}, block {block}: lanes in the bank of their address; red: >1 word in a bank",
             size=12)
    y = 34
    for (r, per_bank, depth), h in zip(rows, heights):
        svg.text(10, y + 10, f"w{r.warp} step {r.step} pc {r.pc:#x} {r.access}: {bank_conflict_degree(r)}-way")
        for b in range(NUM_BANKS):
            x = 10 + b * (CELL + 12)
            words = per_bank.get(b, {})
            conflicted = len(words) > 1
            for level, (word, lanes) in enumerate(sorted(words.items())):
                label = ",".join(str(lane) for lane in sorted(lanes)[:2]) + ("+" if len(lanes) > 2 else "")
                svg.rect(x, y + 16 + level * CELL, CELL + 10, CELL, CONFLICT if conflicted else ACTIVE,
                         tip=f"bank {b}, word {word:#x}: lanes {sorted(lanes)}")
                svg.text(x + 1, y + 16 + level * CELL + 10, label, size=8)
        y += h
    left_out_note(svg, y + 16, left_out, max_per_step)
    return svg.tostring()


VIEWS = {
    "layout": svg_warp_layout,
    "lanes": svg_active_lanes,
    "reduction": svg_reduction,
    "sectors": svg_sectors,
    "banks": svg_banks,
}


def render(trace: Trace, out_dir: str, kernel: str = "", block: int = 0,
           views: Sequence[str] = tuple(VIEWS), max_per_step: int = MAX_PER_STEP,
           warps: Optional[Sequence[int]] = None) -> List[str]:
    """Writes summary.txt and, per matching launch, one SVG per view into @p out_dir; returns the
    lines it printed. A trace that was skipped (or is missing) gives 'skipped: <reason>' lines."""
    os.makedirs(out_dir, exist_ok=True)
    printed = []
    with open(os.path.join(out_dir, "summary.txt"), "w", encoding="utf-8") as f:
        f.write(text_summary(trace, block))
    if not trace.launches:
        reasons = trace.skipped or ["the trace has no launches (is TRACER_KERNELS too narrow?)"]
        for view in views:
            printed.append(f"{view}: skipped: {'; '.join(reasons)}")
        return printed
    for launch in trace.launches:
        if kernel and kernel not in launch.kernel and kernel not in launch.mangled:
            continue
        stem = re.sub(r"[^A-Za-z0-9_]+", "_", launch.kernel.split("(")[0])[:60]
        for view in views:
            path = os.path.join(out_dir, f"launch{launch.id}_{stem}_{view}.svg")
            with open(path, "w", encoding="utf-8") as f:
                if view in ("lanes", "banks"):
                    f.write(VIEWS[view](launch, block, max_per_step, warps))
                else:
                    f.write(VIEWS[view](launch, block))
            printed.append(f"{view}: {path}")
    return printed


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace", help="trace file written by the tracer (TRACER_OUT, default trace.jsonl)")
    parser.add_argument("--out", default="trace_pictures", help="directory for the SVGs and summary.txt")
    parser.add_argument("--kernel", default="", help="only launches whose kernel name contains this")
    parser.add_argument("--block", type=int, default=0, help="linear index of the block to draw (default 0)")
    parser.add_argument("--views", default=",".join(VIEWS), help=f"comma-separated subset of {','.join(VIEWS)}")
    parser.add_argument("--max-per-step", type=int, default=MAX_PER_STEP,
                        help=f"lanes and banks views: rows per warp and step (default {MAX_PER_STEP}, 0: all)")
    parser.add_argument("--warps", default="", help="lanes and banks views: comma-separated warps (default all)")
    args = parser.parse_args(argv)
    try:
        warps = [int(w) for w in args.warps.split(",") if w] or None
    except ValueError:
        parser.error(f"--warps takes comma-separated warp numbers, not {args.warps!r}")
    views = [v for v in args.views.split(",") if v]
    unknown = [v for v in views if v not in VIEWS]
    if unknown:
        parser.error(f"unknown view(s): {', '.join(unknown)}")
    try:
        trace = load(args.trace)
    except (OSError, ValueError) as e:  # unreadable, not UTF-8, or a line that is not a trace record
        print(f"render: {args.trace}: {e}", file=sys.stderr)
        return 1
    for line in render(trace, args.out, args.kernel, args.block, views, args.max_per_step, warps):
        print(line)
    print(f"text form: {os.path.join(args.out, 'summary.txt')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
