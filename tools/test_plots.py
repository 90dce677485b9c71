"""Self-test of tools/plots.py (run by ctest as tools.plots_selftest): the demos' CSV output is read
(including a kernel name with a comma and text after the table), and every plot is a well-formed
SVG with one bar or point per measured value and tooltips naming them."""
import contextlib
import io
import json
import stat
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

import plots

NS = {"svg": "http://www.w3.org/2000/svg"}
# As the ch03_14 demo prints it with --csv: an unquoted comma in one kernel name, text after the table.
MODERN = """kernel,lab,ms,gbs,pct_copy,step_speedup,cumulative_speedup,book_ms,book_cumulative
reduceNeighbored,ch03_10,0.2000,313.0,10.8,1.000,1.000,11.722,1.00x
reduceInterleaved,ch03_10,0.1000,645.0,22.2,2.000,2.000,6.967,1.68x
grid-stride, 4-byte loads,ch03_14,0.0500,1450.0,50.0,2.000,4.000,-,-
cub::DeviceReduce::Sum,CUB,0.0400,1848.0,63.7,1.250,5.000,-,-

n = 2^28 ints (1 GiB), median of 21 runs
                                       ms    GB/s   % copy
cub::DeviceReduce::Sum             0.3610    2974    99.5%
"""
NEIGHBORED = """kernel,ms,gbs,pct_copy,step_speedup,cumulative_speedup,book_ms,book_cumulative
reduceNeighbored,0.2000,313.0,10.8,1.000,1.000,11.722,1.000
reduceInterleaved,0.1000,645.0,22.2,2.000,2.000,6.967,1.683
"""
UNROLLING = """kernel,grid,ms,gbs,pct_copy,step_speedup,cumulative_speedup,book_ms,book_cumulative
reduceInterleaved,32768,0.1000,645.0,22.2,1.000,1.000,6.967,1.683
reduceUnrolling8,4096,0.0250,1988.0,68.5,4.000,4.000,1.422,8.243
"""
TEMPLATES = """block,template_ms,template_gbs,template_pct_copy,runtime_ms,runtime_gbs,runtime_over_template
256,0.0330,2030.0,70.0,0.0331,2027.0,1.003
512,0.0200,2050.0,70.7,0.0201,2048.0,1.005
"""
SHAPES = """# a comment line without commas is ignored
block_x,block_y,grid_x,grid_y,ms,gbs,pct_copy,book_ms,copy_gbs,result
32,32,512,512,1.3620,2366.0,81.9,60.000,2887.0,ok
256,8,64,2048,,,,,2887.0,not launched
256,1,64,16384,1.1660,2763.0,95.7,30.959,2887.0,ok
"""
LATENCY = """kernel,loads_in_flight,warps_per_sm,block,blocks_per_sm,ms,gbs,pct_copy,predicted_gbs,copy_gbs
copyInt4,1,1,32,1,1.7318,310.0,10.6,390.0,2925.0
copyInt4,1,2,64,1,0.9305,577.0,19.7,780.0,2925.0
copyInt4,1,64,256,8,0.1976,2717.0,92.9,2925.0,2925.0
copyInt4Ilp4,4,1,32,1,0.6468,830.0,28.4,1560.0,2925.0
copyInt4Ilp4,4,2,64,1,0.3802,1412.0,48.3,2925.0,2925.0
copyInt4Ilp4,4,64,256,8,,,,2925.0,2925.0
"""


def svg(path):
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    return root


def titles(root, cls):
    tag = "rect" if cls == "bar" else "circle"
    return [e.find("svg:title", NS).text for e in root.iter(f"{{{NS['svg']}}}{tag}") if e.get("class") == cls]


def texts(root):
    return [e.text for e in root.iter(f"{{{NS['svg']}}}text")]


class PlotsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.data = Path(self.tmp.name) / "data"
        self.out = Path(self.tmp.name) / "img"
        self.data.mkdir()

    def tearDown(self):
        self.tmp.cleanup()

    def run_plots(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = plots.main(list(args))
        return rc, out.getvalue()

    def test_parse_csv_joins_commas_in_names_and_stops_after_the_table(self):
        rows = plots.parse_csv(MODERN)
        self.assertEqual([r["kernel"] for r in rows], ["reduceNeighbored", "reduceInterleaved",
                                                       "grid-stride, 4-byte loads", "cub::DeviceReduce::Sum"])
        self.assertEqual(rows[2]["lab"], "ch03_14")
        self.assertEqual(plots.num(rows[0]["book_cumulative"]), 1.0)
        self.assertIsNone(plots.num(rows[2]["book_ms"]))
        self.assertEqual(len(plots.parse_csv(SHAPES)), 3)

    def test_from_csv_writes_three_plots(self):
        for lab, text in (("ch03_14_modern_reduction", MODERN), ("ch03_09_exposing_parallelism", SHAPES),
                          ("ch03_04_latency_hiding", LATENCY)):
            (self.data / f"{lab}.csv").write_text(text)
        (self.data / "device.txt").write_text("NVIDIA H100 80GB HBM3 (sm_90, 132 SMs), CUDA runtime 13.0\n")
        rc, out = self.run_plots("--from-csv", str(self.data), "--out", str(self.out))
        self.assertEqual(rc, 0, out)

        ladder = svg(self.out / "reduction_ladder.svg")
        bars = titles(ladder, "bar")
        self.assertEqual(len(bars), 2 + 4)   # book bars only where the book has the kernel
        self.assertIn("reduceInterleaved, book (Tesla M2070): 1.68x", bars)
        self.assertIn("reduceInterleaved, H100: 2.00x", bars)
        self.assertIn("grid-stride, 4-byte loads, H100: 4.00x", bars)
        self.assertIn("cub::DeviceReduce::Sum, H100: 5.00x", bars)
        self.assertIn("book (Tesla M2070)", texts(ladder))

        shapes = svg(self.out / "block_shapes.svg")
        bars = titles(shapes, "bar")
        self.assertEqual(len(bars), 4)       # (256,8) was not launched: no bars
        self.assertIn("(256,1), H100: % of the measured copy bandwidth: 96", bars)
        self.assertIn("(32,32), book (Tesla M2070): % of 144 GB/s: 37", bars)   # 3.2 GB / 60 ms / 144 GB/s
        self.assertIn("(256,8)", texts(shapes))

        latency = svg(self.out / "latency_hiding.svg")
        points = titles(latency, "point")
        self.assertEqual(len(points), 3 + 3 + 2 + 3)   # measured and predicted; 64 warps of Ilp4 did not fit
        self.assertIn("copyInt4 (1 x 16 B in flight), resident warps per SM 64: 2717", points)
        self.assertIn("Little's law, 4 x 16 B, resident warps per SM 1: 1560", points)
        self.assertEqual(len([e for e in latency.iter(f"{{{NS['svg']}}}line") if e.get("class") == "ref"]), 1)
        self.assertTrue(any("H100" in (t or "") for t in texts(latency)))

    def test_ladder_from_the_three_reduction_labs(self):
        (self.data / "ch03_10_reduction_divergence.csv").write_text(NEIGHBORED)
        (self.data / "ch03_11_unrolling.csv").write_text(UNROLLING)
        (self.data / "ch03_12_templates.csv").write_text(TEMPLATES)
        rc, out = self.run_plots("--from-csv", str(self.data), "--out", str(self.out), "--gpu", "T4")
        self.assertEqual(rc, 0)
        self.assertIn("block shapes: no CSV", out)
        bars = titles(svg(self.out / "reduction_ladder.svg"), "bar")
        self.assertEqual(len(bars), 8)
        self.assertIn("reduceUnrolling8, T4: 8.00x", bars)               # 0.2 ms / 0.025 ms
        self.assertIn("reduceCompleteUnroll<512>, T4: 10.00x", bars)     # block 512 row of ch03_12
        self.assertIn("reduceCompleteUnroll<512>, book (Tesla M2070): 9.36x", bars)
        self.assertEqual(sum(b.startswith("reduceInterleaved") for b in bars), 2)   # not twice from ch03_11

    def test_build_runs_the_demos_and_saves_normalised_csvs(self):
        build = Path(self.tmp.name) / "build"
        outputs = {"ch03_14_modern_reduction": MODERN, "ch03_09_exposing_parallelism": SHAPES,
                   "ch03_04_latency_hiding": LATENCY}
        for lab, text in outputs.items():
            exe = build / "tests" / lab / f"{lab}_demo"
            exe.parent.mkdir(parents=True)
            exe.write_text(f"#!/bin/sh\n[ \"$1\" = --csv ] || exit 3\ncat <<'EOF'\n{text}EOF\n")
            exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
        broken = build / "tests" / "ch03_10_reduction_divergence" / "ch03_10_reduction_divergence_demo"
        broken.parent.mkdir(parents=True)
        broken.write_text("#!/bin/sh\necho 'no usable NVIDIA GPU' >&2\nexit 1\n")
        broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
        info = build / "info.sh"
        info.write_text("#!/bin/sh\necho 'NVIDIA L4 (sm_89, 58 SMs), CUDA runtime 12.4, driver 12.4'\n")
        info.chmod(info.stat().st_mode | stat.S_IXUSR)
        (build / "grade").mkdir()
        (build / "grade" / "manifest.json").write_text(json.dumps({"info_exe": str(info)}))
        rc, out = self.run_plots("--build", str(build), "--data", str(self.data), "--out", str(self.out))
        self.assertEqual(rc, 1)                                          # one demo failed
        self.assertIn("no usable NVIDIA GPU", out)
        saved = plots.parse_csv((self.data / "ch03_14_modern_reduction.csv").read_text())
        self.assertEqual(saved[2]["kernel"], "grid-stride, 4-byte loads")
        self.assertIn('"grid-stride, 4-byte loads"', (self.data / "ch03_14_modern_reduction.csv").read_text())
        self.assertEqual(plots.gpu_name(self.data), "L4")
        for name in ("reduction_ladder", "block_shapes", "latency_hiding"):
            self.assertTrue(titles(svg(self.out / f"{name}.svg"), "bar" if name != "latency_hiding" else "point"))

    def test_nice_ticks(self):
        self.assertEqual(plots.nice_ticks(10.5), [0, 2, 4, 6, 8, 10, 12])
        self.assertEqual(plots.nice_ticks(3100), [0, 500, 1000, 1500, 2000, 2500, 3000, 3500])
        self.assertEqual(plots.nice_ticks(0.9)[-1], 1.0)


if __name__ == "__main__":
    unittest.main()
