#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A parser of nccl-tests' output as scripts written for nccl-tests read
it: each result line split on blanks into size, count, type, redop, root,
then time, algbw, busbw and #wrong out of place and in place (N/A where a
figure is missing); the "# Collective test starting" name; the footer's
out-of-bounds count and average bus bandwidth. nccl-tests' -J JSON is read
by its keys (results[].out_of_place.bus_bw ...).

usage: nccl_tests_parse.py table FILE | json FILE
prints one JSON document: {"tests": [{"name", "rows": [...], "oob", "avg_busbw"}]}"""
import json
import re
import sys


def num(s):
    return None if s == "N/A" else float(s)


def parse_table(path):
    tests, cur = [], None
    for line in open(path):
        m = re.match(r"# Collective test starting: (\S+)", line)
        if m:
            cur = {"name": m.group(1), "rows": [], "oob": None, "avg_busbw": None}
            tests.append(cur)
            continue
        m = re.match(r"# Out of bounds values\s*:\s*(\d+)\s+(OK|FAILED)", line)
        if m:
            cur["oob"] = int(m.group(1))
            continue
        m = re.match(r"# Avg bus bandwidth\s*:\s*(\S+)", line)
        if m:
            cur["avg_busbw"] = float(m.group(1))
            continue
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        if len(f) != 13:
            raise SystemExit("not an nccl-tests result line: %r" % line)
        cur["rows"].append({
            "size": int(f[0]), "count": int(f[1]), "type": f[2], "redop": f[3], "root": int(f[4]),
            "oop": {"time": num(f[5]), "algbw": num(f[6]), "busbw": num(f[7]), "wrong": num(f[8])},
            "ip": {"time": num(f[9]), "algbw": num(f[10]), "busbw": num(f[11]), "wrong": num(f[12])},
        })
    return {"tests": tests}


def parse_json(path):
    """One file is one collective's run (nccl-tests writes one per binary);
    its name is the binary's, from args[0], where that is one."""
    doc = json.load(open(path))
    prog = (doc.get("args") or [""])[0].rsplit("/", 1)[-1]
    t = {"name": prog if prog.endswith("_perf") else None, "rows": []}

    def part(p):
        if p is None:
            return {"time": None, "algbw": None, "busbw": None, "wrong": None}
        return {"time": p["time"], "algbw": p["alg_bw"], "busbw": p["bus_bw"], "wrong": p["nwrong"]}
    for r in doc["results"]:
        t["rows"].append({"size": r["size"], "count": r["count"], "type": r["type"], "redop": r["redop"],
                          "root": int(r["root"]), "oop": part(r["out_of_place"]), "ip": part(r["in_place"])})
    t["oob"] = doc["out_of_bounds"]["count"]
    t["avg_busbw"] = doc["average_bus_bandwidth"]["bandwidth"]
    return {"tests": [t], "version": doc["version"]}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("table", "json"):
        sys.exit("usage: nccl_tests_parse.py table|json FILE")
    out = parse_table(sys.argv[2]) if sys.argv[1] == "table" else parse_json(sys.argv[2])
    json.dump(out, sys.stdout)
