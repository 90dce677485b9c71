#!/usr/bin/env python3
"""Trace one lab's kernels and draw them: runs the lab's small-input driver (drivers/) under the
kernel tracer (libkernel_tracer.so in LD_PRELOAD) and renders the trace (render.py) into SVG
pictures and summary.txt. CTest runs it as trace.<lab> (label "trace", left out of the grade and
check presets):

    ctest --test-dir build/grade -L trace -V              # every lab that has a driver
    ctest --test-dir build/grade -R trace.ch03_10 -V      # one lab

Exit status: 0 traced and drawn; 77 skipped (no Compute Sanitizer API at configure time, no usable
GPU, or the tracer could not subscribe), with a "skipped: <reason>" line; 1 otherwise (the driver
failed, which is usually a wrong result of your kernel: the pictures are still drawn from what
was recorded; or, with --expect, the reference kernels' trace is not what they must show).
"""
from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import facts  # noqa: E402
import render  # noqa: E402

SKIP = 77

# lab -> the views worth drawing for it (render.VIEWS); the driver is trace_<first 7 characters>
VIEWS = {
    "ch03_01_warps": ("layout", "lanes"),
    "ch03_02_warp_divergence": ("lanes",),
    "ch03_10_reduction_divergence": ("lanes", "reduction"),
    "ch04_02_coalescing": ("sectors", "lanes"),
    "ch05_01_shared_histogram": ("banks", "lanes"),
}
# Messages of a CUDA program that found no usable GPU (the drivers check first; these are for an
# error that comes before or despite that check).
NO_GPU = ("no CUDA-capable device", "CUDA driver version is insufficient", "cudaErrorNoDevice",
          "cudaErrorInsufficientDriver", "no usable NVIDIA GPU")


def skip(why: str) -> int:
    print(f"skipped: {why}")
    return SKIP


def build(args) -> bool:
    """Builds the tracer and this lab's driver (left out of the graded build, so that a tracer that
    does not compile here costs only this test); prints the compiler's last lines if it fails."""
    if not args.build_dir:
        return True
    cmd = ["cmake", "--build", args.build_dir, "--target", *args.targets]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout * 5)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"trace: building the tracer failed ({' '.join(cmd)}): {e}")
        return False
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
        print(f"trace: building the tracer failed ({' '.join(cmd)}); your labs' build is not affected:\n{tail}")
        return False
    return True


def run(args) -> int:
    if args.skip:
        return skip(args.skip)
    if not build(args):
        return 1
    for what, path in (("driver", args.driver), ("tracer library", args.library), ("patch fatbin", args.patches)):
        if not path or not os.path.exists(path):
            print(f"trace: the {what} {path or '(none)'} is missing: build first (cmake --build <build dir>)")
            return 1
    os.makedirs(args.out, exist_ok=True)
    trace_file = os.path.join(args.out, "trace.jsonl")
    for old in glob.glob(os.path.join(args.out, "*.svg")) + [trace_file, os.path.join(args.out, "summary.txt")]:
        if os.path.exists(old):
            os.remove(old)
    env = dict(os.environ, TRACER_OUT=trace_file, TRACER_PATCHES=args.patches)
    env["LD_PRELOAD"] = ":".join(p for p in (args.library, os.environ.get("LD_PRELOAD", "")) if p)
    try:
        proc = subprocess.run([args.driver], env=env, capture_output=True, text=True, timeout=args.timeout)
        output, status = (proc.stdout + proc.stderr).strip(), proc.returncode
    except subprocess.TimeoutExpired:
        output, status = f"the driver did not finish in {args.timeout} s (a kernel that never ends?)", 1
    if status == SKIP or (status != 0 and any(m in output for m in NO_GPU)):
        lines = [l for l in output.splitlines() if l.startswith("skipped:")]
        return skip(lines[0][len("skipped:"):].strip() if lines else f"no usable NVIDIA GPU ({output[-300:]})")
    if not os.path.exists(trace_file):
        print(f"no trace was written (the driver exited with status {status}): was {args.library} loaded? "
              f"{output[-600:]}")
        return 1
    try:
        trace = render.load(trace_file)
    except (OSError, ValueError) as e:  # e.g. a trace cut short by a driver that crashed mid-write
        print(f"trace: {trace_file} cannot be read ({e}); the driver exited with status {status}: {output[-600:]}")
        return 1
    if not trace.launches and trace.skipped:
        return skip("the tracer did not run: " + "; ".join(trace.skipped))
    lab = args.lab
    print(f"trace.{lab}: {len(trace.launches)} kernel launches traced from {args.variant}/ "
          f"(block {args.block} drawn), {sum(len(l.events) for l in trace.launches)} records")
    for launch in trace.launches:
        if launch.dropped:
            print(f"  WARNING: launch {launch.id} ({launch.kernel}): {launch.dropped} records dropped "
                  "(raise TRACER_MAX_RECORDS)")
    views = VIEWS.get(lab, tuple(render.VIEWS))
    for line in render.render(trace, args.out, block=args.block, views=views):
        print(f"  {line}")
    print(f"  text form: {os.path.join(args.out, 'summary.txt')}")
    print(f"  trace: {trace_file}")
    failed = False
    if status != 0:
        print(f"the driver exited with status {status}: {output[-600:] or '(no output)'}")
        print("(the pictures show what was recorded up to then)")
        failed = True
    elif not trace.launches:
        print("nothing was recorded: no kernel launch reached the tracer (try CUDA_MODULE_LOADING=EAGER)")
        failed = True
    if facts.has_expectations(lab):
        problems = facts.expect(lab, trace)
        if args.expect:
            for p in problems:
                print(f"  NOT AS EXPECTED for the reference kernels: {p}")
            if not problems:
                print("  the trace shows what the reference kernels must do (facts.expect)")
            failed = failed or bool(problems)
        elif trace.launches:  # your kernels against the reference's facts: advice only, never a failure
            if problems:
                print("  where your kernels' trace differs from the reference kernels' (not graded; a different "
                      "correct kernel can differ too):")
                for p in problems:
                    print(f"    {p}")
            else:
                print("  your kernels' trace shows what the reference kernels' does (lanes and sectors per step)")
    return 1 if failed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lab", required=True)
    parser.add_argument("--out", required=True, help="directory for the trace, the pictures and summary.txt")
    parser.add_argument("--driver", default="")
    parser.add_argument("--library", default="", help="libkernel_tracer.so")
    parser.add_argument("--patches", default="", help="tracer_patches.fatbin")
    parser.add_argument("--variant", default="labs", help="where the kernels come from: labs or solutions")
    parser.add_argument("--block", type=int, default=0, help="the block to draw")
    parser.add_argument("--expect", action="store_true",
                        help="fail unless the trace shows what the reference kernels must show "
                             "(the labs of facts.EXPECTED_LABS; the others have nothing to check)")
    parser.add_argument("--skip", default="", help="only print 'skipped: <this>' and exit 77")
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--build-dir", default="", help="build these --targets there first (cmake --build)")
    parser.add_argument("--targets", nargs="*", default=[], help="the tracer's targets for this lab")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
