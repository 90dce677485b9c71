#!/usr/bin/env python3
"""Profiler feedback: run one lab's demo under Nsight Compute and show, per kernel, the book's
nvprof metric names beside today's ncu metrics and their values.

    tools/profile.py --ncu /usr/local/cuda/bin/ncu --exe build/.../<lab>_demo [--metrics KEY ...]

Run through CTest: `ctest --test-dir build/grade -L profile` (the grade and check presets leave
these tests out: profiling replays every kernel several times). Uses `--clock-control none`, so
the GPU runs at its normal clocks. A missing ncu, or no permission to read the GPU's performance
counters (ERR_NVGPUCTRPERM), prints a "[ CUDALAB  ] skipped:" line with the fix; the test then
shows as skipped.
"""
from __future__ import annotations

import argparse
import csv
import io
import shutil
import subprocess
import sys
from collections import OrderedDict

# book (nvprof) name -> (ncu metric, how to show it)
METRICS = OrderedDict([
    ("branch_efficiency", ("smsp__sass_average_branch_targets_threads_uniform.pct", "%")),
    ("warp_execution_efficiency", ("smsp__thread_inst_executed_per_inst_executed.ratio", "/32 lanes")),
    ("achieved_occupancy", ("sm__warps_active.avg.pct_of_peak_sustained_active", "%")),
    ("gld_efficiency", ("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "%")),
    ("gld_throughput", ("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second", "bytes/s")),
    ("dram_read_throughput", ("dram__bytes_read.sum.per_second", "bytes/s")),
    ("inst_executed (inst_per_warp = / warps)", ("smsp__inst_executed.sum", "instructions")),
    ("warps launched", ("smsp__warps_launched.sum", "warps")),
    ("stall_sync (barrier stalls per issue)", ("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "")),
])


def skip(why: str) -> int:
    print(f"[ CUDALAB  ] skipped: {why}")
    return 0


def parse(csv_text: str) -> "OrderedDict[str, dict[str, list[float]]]":
    """Kernel name -> metric -> values (one per profiled launch), from ncu --csv output."""
    lines = [l for l in csv_text.splitlines() if l.startswith('"')]
    kernels: "OrderedDict[str, dict[str, list[float]]]" = OrderedDict()
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        name = row.get("Kernel Name", "?").split("(")[0]
        try:
            value = float(row.get("Metric Value", "").replace(",", ""))
        except ValueError:
            continue
        kernels.setdefault(name, {}).setdefault(row.get("Metric Name", "?"), []).append(value)
    return kernels


def human(value: float, unit: str) -> str:
    if unit == "bytes/s":
        return f"{value / 1e9:10.1f} GB/s"
    return f"{value:12.2f} {unit}".rstrip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ncu", default=shutil.which("ncu") or "")
    parser.add_argument("--exe", required=True)
    parser.add_argument("--launch-count", type=int, default=60)
    args = parser.parse_args(argv)
    if not args.ncu or not shutil.which(args.ncu):
        return skip("Nsight Compute (ncu) not found: install it with the CUDA Toolkit and put it on PATH")
    metrics = ",".join(m for m, _ in METRICS.values())
    cmd = [args.ncu, "--clock-control", "none", "--csv", "--launch-count", str(args.launch_count),
           "--metrics", metrics, args.exe]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1500)
    text = proc.stdout + proc.stderr
    if "ERR_NVGPUCTRPERM" in text:
        return skip("no permission to read the GPU performance counters (ERR_NVGPUCTRPERM): run as root, or "
                    "load the driver with NVreg_RestrictProfilingToAdminUsers=0 "
                    "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)")
    if "no CUDA-capable device" in text or "cudaErrorNoDevice" in text or "cudaErrorInsufficientDriver" in text:
        return skip("no usable CUDA GPU on this machine")
    kernels = parse(proc.stdout)
    if not kernels and proc.returncode == 0 and "No kernels were profiled" in text:
        # A demo that only queries the device and computes (ch03_05's occupancy tables) has nothing to profile.
        return skip("the demo ran and launched no kernel, so there is nothing to profile")
    if not kernels:
        print(text[-4000:])
        print("[ CUDALAB  ] reason: ncu produced no metrics for " + args.exe)
        return 1
    print(f"Nsight Compute: {' '.join(cmd[:-1])} <demo>\n")
    for kernel, values in kernels.items():
        print(f"{kernel}  ({len(next(iter(values.values())))} launches profiled, mean)")
        for book, (metric, unit) in METRICS.items():
            if metric in values:
                v = sum(values[metric]) / len(values[metric])
                note = ""
                if book == "branch_efficiency" and v == 0.0:
                    # ncu reports 0 when no branch instruction ran: the compiler predicated the ifs.
                    note = "  (no branch instructions: predicated code, nothing diverges)"
                print(f"  {book:<42} {metric:<66} {human(v, unit)}{note}")
        if "smsp__inst_executed.sum" in values and "smsp__warps_launched.sum" in values:
            per_warp = sum(values["smsp__inst_executed.sum"]) / max(1.0, sum(values["smsp__warps_launched.sum"]))
            print(f"  {'inst_per_warp':<42} {'inst_executed / warps_launched':<66} {per_warp:12.1f}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
