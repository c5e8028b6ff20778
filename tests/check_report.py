#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a sweep JSON report: schema, busbw = algbw x factor for every row,
no wrong elements, expected collectives and rank count. Exits 1 with the
reasons on stderr when a check fails."""
import json
import sys

FACTOR = {
    "allreduce": lambda n: 2.0 * (n - 1) / n,
    "allgather": lambda n: (n - 1) / n,
    "reducescatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "gather": lambda n: (n - 1) / n,
    "scatter": lambda n: (n - 1) / n,
    "sendrecv": lambda n: 1.0,
}


def main():
    path, ranks = sys.argv[1], int(sys.argv[2])
    colls = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else None
    with open(path) as f:
        rep = json.load(f)
    bad = []
    if rep.get("schema") != "nccl-probe/sweep" or rep.get("schema_version") != 1:
        bad.append("schema is %r v%r" % (rep.get("schema"), rep.get("schema_version")))
    if rep["world"]["ranks"] != ranks or len(rep["ranks"]) != ranks:
        bad.append("ranks %r, want %d" % (rep["world"]["ranks"], ranks))
    if not rep["complete"]:
        bad.append("report not complete")
    if not rep["results"]:
        bad.append("no results")
    seen = set()
    for r in rep["results"]:
        seen.add(r["coll"])
        want = r["algbw"] * FACTOR[r["coll"]](ranks)
        if abs(r["busbw"] - want) > 1e-6 * max(1.0, want):
            bad.append("%s %d: busbw %r != algbw %r x factor" % (r["coll"], r["size"], r["busbw"], r["algbw"]))
        if abs(r["algbw"] - r["size"] / r["time"] / 1e9) > 1e-6 * max(1.0, r["algbw"]):
            bad.append("%s %d: algbw is not size/time" % (r["coll"], r["size"]))
        if r["wrong"] != 0:
            bad.append("%s %d: %r wrong elements" % (r["coll"], r["size"], r["wrong"]))
        if not (r["time_min"] <= r["time"] <= r["time_max"]):
            bad.append("%s %d: median outside [min, max]" % (r["coll"], r["size"]))
        if r["samples"] < 1 or r["iters"] < 1:
            bad.append("%s %d: no samples" % (r["coll"], r["size"]))
        for k in ("size", "count", "samples", "iters"):
            if not isinstance(r[k], int) or isinstance(r[k], bool):
                bad.append("%s is not an integer" % k)
    if colls is not None and seen != colls:
        bad.append("collectives %s, want %s" % (sorted(seen), sorted(colls)))
    if rep["verdict"]["exit_code"] != 0:
        bad.append("verdict %r" % rep["verdict"])
    for b in bad:
        print("check_report: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
