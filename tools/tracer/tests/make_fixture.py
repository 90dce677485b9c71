#!/usr/bin/env python3
"""Trims a real trace into a test fixture: the records of one block, optionally of some launches
only, gzip-compressed with a fixed timestamp (the same input gives the same bytes).

    python3 make_fixture.py trace.jsonl fixtures/h100-ch03_10.jsonl.gz [--block 0] [--launches 1,2]

Each kept launch line is rewritten to agree with what is kept: "traced_blocks" 1, "records" the
number of records kept, and "fixture" says what was left out ({"block": b, "traced_blocks": ...,
"records": ...} of the original). Record lines are copied unchanged.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys


def trim(lines, block: int = 0, launches=None):
    """The trimmed trace as a list of lines (no newlines)."""
    kept = []  # [launch object, [record lines]]
    current = None
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        obj = json.loads(line)
        if obj.get("type") == "launch":
            current = None
            if launches is None or int(obj["id"]) in launches:
                current = [obj, []]
                kept.append(current)
        elif obj.get("type") == "skipped":
            kept.append([obj, []])
        elif "l" in obj:
            if current is not None and int(obj["l"]) == int(current[0]["id"]) and int(obj["b"]) == block:
                current[1].append(line)
        else:
            raise ValueError(f"line {number}: unknown line {line[:80]!r}")
    out = []
    for obj, records in kept:
        if obj.get("type") == "launch":
            obj["fixture"] = {"block": block, "traced_blocks": obj["traced_blocks"], "records": obj["records"]}
            obj["traced_blocks"] = 1
            obj["records"] = len(records)
        out.append(json.dumps(obj, separators=(",", ":")))
        out.extend(records)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("out", help="the fixture (.jsonl.gz)")
    parser.add_argument("--block", type=int, default=0)
    parser.add_argument("--launches", default="", help="comma-separated launch ids to keep (default: all)")
    args = parser.parse_args(argv)
    launches = {int(x) for x in args.launches.split(",") if x} or None
    with open(args.trace, encoding="utf-8") as f:
        lines = trim(f, args.block, launches)
    with open(args.out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as g:
        g.write(("\n".join(lines) + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
