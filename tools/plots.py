#!/usr/bin/env python3
"""Plots for docs/then-and-now.md from the demos' CSV output (SVG, no third-party packages).

    tools/plots.py --build build/check --out docs/img [--data docs/data]
        runs the demos of that build tree with --csv (needs the GPU), saves their CSV output as
        <data>/<lab>.csv (default docs/data) and writes the plots to --out;
    tools/plots.py --from-csv docs/data --out docs/img
        writes the plots from saved CSVs (no GPU, no build tree).

Input: one CSV per lab, a header line then one row per measurement, as the demos print them with
--csv (saved normalised: RFC 4180 quoting). An empty cell (or "-") means "not measured"; a
trailing "x" or "%" on a number is ignored. Columns (extra columns are ignored):

  ch03_10_reduction_divergence.csv  kernel,ms,gbs,pct_copy,step_speedup,cumulative_speedup,book_ms,book_cumulative
  ch03_11_unrolling.csv             kernel,grid,ms,gbs,pct_copy,step_speedup,cumulative_speedup,book_ms,book_cumulative
                                    (cumulative_speedup from reduceInterleaved; book_cumulative from the book's reduceNeighbored)
  ch03_12_templates.csv             block,template_ms,template_gbs,template_pct_copy,runtime_ms,runtime_gbs,runtime_over_template
  ch03_14_modern_reduction.csv      kernel,lab,ms,gbs,pct_copy,step_speedup,cumulative_speedup,book_ms,book_cumulative
                                    (the whole ladder in one process; cumulative from reduceNeighbored)
  ch03_09_exposing_parallelism.csv  block_x,block_y,grid_x,grid_y,ms,gbs,pct_copy,book_ms,copy_gbs,result
  ch03_04_latency_hiding.csv        kernel,loads_in_flight,warps_per_sm,block,blocks_per_sm,ms,gbs,pct_copy,predicted_gbs,copy_gbs
  device.txt (optional)             one line naming the GPU (written by --build), used in the legends

Output (a plot whose CSVs are missing is skipped, with a note):
  reduction_ladder.svg  speed-up over reduceNeighbored per kernel, the book's Tesla M2070 beside this
                        GPU: from ch03_14 (one process, one baseline) if present, else ch03_10 + 11 + 12
                        (speed-ups = ch03_10's reduceNeighbored ms / the kernel's ms)
  block_shapes.svg      sumMatrixOnGPU2D, 16384 x 16384 floats, per block shape: % of the measured copy
                        bandwidth, beside the book's GB/s as % of Fermi's 144 GB/s
  latency_hiding.svg    copy GB/s against resident warps per SM, one and four 16-byte loads in flight
                        per thread, Little's law predictions (dashed) and the copy bandwidth
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
LADDER_LABS = ["ch03_10_reduction_divergence", "ch03_11_unrolling", "ch03_12_templates", "ch03_14_modern_reduction"]
SHAPES_LAB = "ch03_09_exposing_parallelism"
LATENCY_LAB = "ch03_04_latency_hiding"
BOOK = "book (Tesla M2070)"
BOOK_NEIGHBORED_MS = 11.722   # the book's reduceNeighbored (Fermi M2070)
BOOK_TEMPLATE_MS = 1.253      # the book's reduceCompleteUnroll<512>
BOOK_FERMI_GBS = 144.0        # the book's Fermi memory bandwidth (section 3.4)
MATRIX_BYTES = 3.0 * 16384 * 16384 * 4

# ---------------------------------------------------------------------------------------------
# A small SVG plotting module: grouped bar charts and line charts with axes, ticks, labels, a
# legend and dotted reference lines. Each bar is <rect class="bar">, each point
# <circle class="point">, each with a <title> (its tooltip: category, series, value).
GREY, COLOURS = "#9c9c9c", ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2"]
H, LEFT, RIGHT, CHAR = 500, 78, 24, 6.6   # height, margins, average character width at 12 px


def nice_ticks(hi: float, n: int = 7) -> list[float]:
    """0 and round steps (1, 2, 2.5, 5 x 10^k) up to at least hi."""
    hi = hi if hi > 0 else 1.0
    mag = 10 ** math.floor(math.log10(hi / n))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= hi / n)
    return [round(i * step, 10) for i in range(int(math.ceil(hi / step - 1e-9)) + 1)]


def text(x: float, y: float, s: str, size: int = 12, anchor: str = "start", cls: str = "", weight: str = "normal",
         rotate: float | None = None, fill: str = "#222") -> str:
    rot = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate is not None else ""
    return (f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}"{rot}>{escape(s)}</text>')


class Svg:
    """One chart: title, legend rows (wrapped to the width), plot area, axes."""

    def __init__(self, title: str, width: float, bottom: float, legend: list[tuple[str, str, bool]]):
        self.w, self.bottom, self.parts = width, bottom, []
        rows, x = [[]], LEFT
        for name, colour, dashed in legend:  # (name, colour, dashed line instead of a swatch)
            need = 26 + CHAR * len(name) + 18
            if x + need > width - RIGHT and rows[-1]:
                rows, x = rows + [[]], LEFT
            rows[-1].append((x, name, colour, dashed))
            x += need
        self.top = 50 + 18 * len(rows)
        self.parts += [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{H}" '
                       f'viewBox="0 0 {width:.0f} {H}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
                       f'<rect width="{width:.0f}" height="{H}" fill="white"/>',
                       text(width / 2, 24, title, size=16, anchor="middle", cls="title", weight="bold")]
        for r, row in enumerate(rows):
            y = 48 + 18 * r
            for x, name, colour, dashed in row:
                self.parts.append(f'<line x1="{x}" y1="{y - 4}" x2="{x + 20}" y2="{y - 4}" stroke="{colour}" '
                                  f'stroke-width="2" stroke-dasharray="5,3"/>' if dashed else
                                  f'<rect x="{x}" y="{y - 10}" width="20" height="11" fill="{colour}"/>')
                self.parts.append(text(x + 26, y, name, cls="legend"))

    def axes(self, hi: float, ylabel: str, xlabel: str) -> None:
        """Horizontal grid lines with y tick labels, the two axes, the axis labels."""
        ticks = nice_ticks(hi * 1.08)
        self.ymax, x1, y0 = ticks[-1], self.w - RIGHT, H - self.bottom
        for t in ticks:
            self.parts.append(f'<line x1="{LEFT}" y1="{self.y(t):.1f}" x2="{x1}" y2="{self.y(t):.1f}" stroke="#e4e4e4"/>')
            self.parts.append(text(LEFT - 6, self.y(t) + 4, f"{t:g}", anchor="end", cls="ytick"))
        self.parts.append(f'<path d="M{LEFT},{self.top} V{y0} H{x1}" fill="none" stroke="#222"/>')
        self.parts.append(text(18, (self.top + y0) / 2, ylabel, anchor="middle", cls="ylabel", rotate=-90))
        self.parts.append(text((LEFT + x1) / 2, H - 10, xlabel, anchor="middle", cls="xlabel"))

    def y(self, v: float) -> float:
        return H - self.bottom - (H - self.bottom - self.top) * min(v, self.ymax) / self.ymax

    def refs(self, refs) -> None:
        for v, label in refs:  # dotted horizontal reference lines, e.g. the copy bandwidth
            self.parts.append(f'<line class="ref" x1="{LEFT}" y1="{self.y(v):.1f}" x2="{self.w - RIGHT}" '
                              f'y2="{self.y(v):.1f}" stroke="#444" stroke-dasharray="2,3"/>')
            self.parts.append(text(self.w - RIGHT - 4, self.y(v) - 4, label, size=11, anchor="end", fill="#444"))

    def xticks(self, xs: list[float], labels: list[str], rotate: bool) -> None:
        for x, s in zip(xs, labels):
            y0 = H - self.bottom
            self.parts.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + 4}" stroke="#222"/>')
            self.parts.append(text(x + 4, y0 + 14, s, anchor="end", cls="xtick", rotate=-35) if rotate else
                              text(x, y0 + 17, s, anchor="middle", cls="xtick"))

    def save(self, path: Path) -> None:
        path.write_text("\n".join(self.parts + ["</svg>"]) + "\n")


def bar_chart(path: Path, title: str, categories: list[str], series: list[tuple[str, list]], ylabel: str,
              xlabel: str = "", value_fmt: str = "{:.2f}", refs=()) -> None:
    """Grouped bars: one group per category, one bar per series (None: no bar). The first series
    is grey (the book), the others in colour."""
    bar = max(12.0, min(34.0, ((1100 - LEFT - RIGHT) / len(categories) - 14) / len(series)))  # px per bar
    width = max(900, LEFT + RIGHT + len(categories) * (len(series) * bar + 14))
    group = (width - LEFT - RIGHT) / len(categories)
    rotate = CHAR * max(len(c) for c in categories) > group - 4
    colours = [GREY] + COLOURS if len(series) > 1 else COLOURS
    svg = Svg(title, width, 42 + 5.4 * max(len(c) for c in categories) if rotate else 50,
              [(name, colours[s], False) for s, (name, _) in enumerate(series)])
    svg.axes(max([v for _, vs in series for v in vs if v is not None] + [v for v, _ in refs] + [0]), ylabel, xlabel)
    centres = [LEFT + group * (i + 0.5) for i in range(len(categories))]
    bar = min(bar, group * 0.85 / len(series))
    for s, (name, values) in enumerate(series):
        for i, v in enumerate(values):
            if v is None:
                continue
            x, y = centres[i] - bar * len(series) / 2 + s * bar, svg.y(v)
            svg.parts.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar - 3:.1f}" '
                             f'height="{H - svg.bottom - y:.1f}" fill="{colours[s]}"><title>{escape(categories[i])}, '
                             f'{escape(name)}: {escape(value_fmt.format(v))}</title></rect>')
            if 5.2 * len(value_fmt.format(v)) <= bar:  # the value above the bar, where it fits
                svg.parts.append(text(x + (bar - 3) / 2, y - 3, value_fmt.format(v), size=9, anchor="middle",
                                      cls="value"))
    svg.refs(refs)
    svg.xticks(centres, categories, rotate)
    svg.save(path)


def line_chart(path: Path, title: str, xlabels: list[str], series: list[tuple[str, list, str, bool]], xlabel: str,
               ylabel: str, value_fmt: str = "{:.0f}", refs=()) -> None:
    """Lines over evenly spaced x categories; series: (name, values (None: a gap), colour, dashed)."""
    svg = Svg(title, 900, 56, [(name, colour, dashed) for name, _, colour, dashed in series])
    svg.axes(max([v for _, vs, _, _ in series for v in vs if v is not None] + [v for v, _ in refs] + [0]),
             ylabel, xlabel)
    step = (svg.w - LEFT - RIGHT) / len(xlabels)
    xs = [LEFT + step * (i + 0.5) for i in range(len(xlabels))]
    svg.refs(refs)
    for name, values, colour, dashed in series:
        dash, runs = ' stroke-dasharray="6,4"' if dashed else "", [[]]
        for x, v in zip(xs, values):
            runs = runs + [[]] if v is None else runs[:-1] + [runs[-1] + [(x, svg.y(v))]]
        for run in (r for r in runs if len(r) > 1):
            svg.parts.append(f'<polyline class="line" points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in run)}" '
                             f'fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for x, v, label in zip(xs, values, xlabels):
            if v is not None:
                svg.parts.append(f'<circle class="point" cx="{x:.1f}" cy="{svg.y(v):.1f}" r="{2.5 if dashed else 4}" '
                                 f'fill="{colour}"><title>{escape(name)}, {escape(xlabel)} {escape(label)}: '
                                 f'{escape(value_fmt.format(v))}</title></circle>')
    svg.xticks(xs, xlabels, rotate=False)
    svg.save(path)


# ---------------------------------------------------------------------------------------------
# CSV input.

def parse_csv(text: str) -> list[dict[str, str]]:
    """Rows of the first CSV block in a demo's output: the first line with a comma is the header;
    rows follow until a blank line. A row with more cells than the header has commas in its first
    cell (a kernel name such as "grid-stride, 4-byte loads"): they are joined back."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "," in line), None)
    if start is None:
        return []
    block = []
    for line in lines[start:]:
        if not line.strip():
            break
        block.append(line)
    rows = list(csv.reader(io.StringIO("\n".join(block))))
    header, out = rows[0], []
    for cells in rows[1:]:
        if len(cells) > len(header):
            extra = len(cells) - len(header)
            cells = [",".join(cells[:extra + 1])] + cells[extra + 1:]
        if len(cells) < len(header):
            break  # not part of the table
        out.append(dict(zip(header, (c.strip() for c in cells))))
    return out


def num(cell: str | None) -> float | None:
    """A number, or None for an empty cell, "-" or anything that is not a number."""
    try:
        return float((cell or "").strip().rstrip("x%"))
    except ValueError:
        return None


def write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def load(data: Path, lab: str) -> list[dict[str, str]] | None:
    path = data / f"{lab}.csv"
    return parse_csv(path.read_text()) if path.exists() else None


# ---------------------------------------------------------------------------------------------
# The three plots.

def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def ladder_rows(data: Path) -> list[tuple[str, float | None, float | None]] | None:
    """(kernel, book speed-up, this GPU's speed-up) over reduceNeighbored, in ladder order."""
    modern = load(data, "ch03_14_modern_reduction")
    if modern:
        base = num(modern[0]["ms"])
        return [(r["kernel"], ratio(BOOK_NEIGHBORED_MS, num(r["book_ms"])), ratio(base, num(r["ms"]))) for r in modern]
    first = load(data, "ch03_10_reduction_divergence")
    if not first:
        return None
    base = num(first[0]["ms"])
    rows = [(r["kernel"], ratio(BOOK_NEIGHBORED_MS, num(r["book_ms"])), ratio(base, num(r["ms"]))) for r in first]
    seen = {r[0] for r in rows}
    for r in load(data, "ch03_11_unrolling") or []:
        if r["kernel"] not in seen:
            rows.append((r["kernel"], ratio(BOOK_NEIGHBORED_MS, num(r["book_ms"])), ratio(base, num(r["ms"]))))
    for r in load(data, "ch03_12_templates") or []:
        if r["block"] == "512":
            rows.append(("reduceCompleteUnroll<512>", ratio(BOOK_NEIGHBORED_MS, BOOK_TEMPLATE_MS),
                         ratio(base, num(r["template_ms"]))))
    return rows


def plot_ladder(data: Path, out: Path, gpu: str) -> Path | None:
    rows = ladder_rows(data)
    if not rows:
        return None
    path = out / "reduction_ladder.svg"
    bar_chart(path, "The reduction sequence: speed-up over reduceNeighbored, 2^24 ints, block 512",
              [k.replace(" (yours)", "") for k, _, _ in rows],
              [(BOOK, [b for _, b, _ in rows]), (gpu, [g for _, _, g in rows])],
              "speed-up over reduceNeighbored (x)", "kernel (no grey bar: not in the book)", value_fmt="{:.2f}x")
    return path


def plot_shapes(data: Path, out: Path, gpu: str) -> Path | None:
    rows = load(data, SHAPES_LAB)
    if not rows:
        return None
    path = out / "block_shapes.svg"
    bar_chart(path, "sumMatrixOnGPU2D, 16384 x 16384 floats: bandwidth per block shape",
              [f"({r['block_x']},{r['block_y']})" for r in rows],
              [(f"{BOOK}: % of {BOOK_FERMI_GBS:.0f} GB/s",
                [ratio(MATRIX_BYTES / 1e6 / BOOK_FERMI_GBS * 100, num(r["book_ms"])) for r in rows]),
               (f"{gpu}: % of the measured copy bandwidth", [num(r["pct_copy"]) for r in rows])],
              "% of copy bandwidth", "block (x,y); no bar: not launched", value_fmt="{:.0f}",
              refs=[(100.0, "copy bandwidth")])
    return path


def plot_latency(data: Path, out: Path, gpu: str) -> Path | None:
    rows = load(data, LATENCY_LAB)
    if not rows:
        return None
    warps = sorted({int(num(r["warps_per_sm"])) for r in rows})
    series = []
    for colour, kernel in zip(COLOURS, dict.fromkeys(r["kernel"] for r in rows)):
        mine = {int(num(r["warps_per_sm"])): r for r in rows if r["kernel"] == kernel}
        loads = next(iter(mine.values()))["loads_in_flight"]
        series.append((f"{kernel} ({loads} x 16 B in flight)", [num(mine[w]["gbs"]) if w in mine else None
                                                               for w in warps], colour, False))
        series.append((f"Little's law, {loads} x 16 B", [num(mine[w]["predicted_gbs"]) if w in mine else None
                                                         for w in warps], colour, True))
    copy = next((c for r in rows if (c := num(r.get("copy_gbs")))), None)
    path = out / "latency_hiding.svg"
    line_chart(path, f"Latency hiding on {gpu}: copy bandwidth against resident warps per SM",
               [str(w) for w in warps], series, "resident warps per SM", "GB/s (read + written)",
               refs=[(copy, f"measured copy bandwidth {copy:.0f} GB/s")] if copy else [])
    return path


def run_demos(build: Path, data: Path) -> int:
    """Runs every demo with --csv and saves its table; returns the number of failures."""
    if not list((build / "tests").glob("*/*_demo")):
        print(f"plots: no demos in {build}/tests: build it first (cmake --workflow --preset check)")
        return 1
    failures = 0
    for lab in LADDER_LABS + [SHAPES_LAB, LATENCY_LAB]:
        exe = build / "tests" / lab / f"{lab}_demo"
        if not exe.exists():
            print(f"plots: {exe} not built: skipped")
            continue
        print(f"plots: running {exe} --csv")
        proc = subprocess.run([str(exe), "--csv"], capture_output=True, text=True, timeout=900)
        rows = parse_csv(proc.stdout) if proc.returncode == 0 else []
        if not rows:
            print(f"plots: {lab}: demo failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
            failures += 1
            continue
        write_csv(data / f"{lab}.csv", rows)
    try:  # the GPU's name, for the legends: cudalab_info, as the score table uses it
        info = json.loads((build / "grade" / "manifest.json").read_text())["info_exe"]
        line = subprocess.run([info], capture_output=True, text=True, timeout=60).stdout.strip()
        if line and not line.startswith("no GPU"):
            (data / "device.txt").write_text(line.splitlines()[0] + "\n")
    except (OSError, ValueError, KeyError, subprocess.SubprocessError):
        pass
    return failures


def gpu_name(data: Path) -> str:
    """A short GPU name from device.txt ("NVIDIA H100 80GB HBM3 (sm_90, ...)" -> "H100"), else "this GPU"."""
    path = data / "device.txt"
    if not path.exists():
        return "this GPU"
    words = path.read_text().split("(")[0].replace("NVIDIA", "").replace("Tesla", "").split()
    return words[0] if words else "this GPU"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--build", type=Path, help="build tree whose demos to run (GPU)")
    src.add_argument("--from-csv", type=Path, help="folder of saved CSVs")
    parser.add_argument("--data", type=Path, default=ROOT / "docs" / "data",
                        help="where --build saves the CSVs (default docs/data)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the SVG plots")
    parser.add_argument("--gpu", help="the GPU's name in legends (default: from device.txt)")
    args = parser.parse_args(argv)
    failures = 0
    data = args.from_csv
    if args.build:
        data = args.data
        data.mkdir(parents=True, exist_ok=True)
        failures = run_demos(args.build, data)
    args.out.mkdir(parents=True, exist_ok=True)
    gpu = args.gpu or gpu_name(data)
    for name, plot in (("reduction ladder", plot_ladder), ("block shapes", plot_shapes),
                       ("latency hiding", plot_latency)):
        path = plot(data, args.out, gpu)
        print(f"plots: {name}: {path}" if path else f"plots: {name}: no CSV in {data}: skipped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
