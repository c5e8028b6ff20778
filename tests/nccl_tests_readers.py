#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads one run's --format nccl-tests output the ways that programs
written for nccl-tests read it, and requires every figure they take to be
the run's own, from its CSV (--csv) of the same run.

The readers, from their documented behaviour (none of their code):
  last-block  the result lines after the last column header ("out-of-place
              ... in-place"), split on blanks and read by field position:
              1 size, 6 time, 7 algbw, 8 busbw, 9 #wrong out of place,
              10-13 the same in place (microsoft/superbench's nccl-tests
              benchmark, which keeps the last block's figures; DCGM's
              NcclTestsPlugin; awk '{print $8}' in scripts);
  in-place    fields 10-13 as numbers: a reader of in-place figures finds
              no data, or reads N/A as 0, where they are missing (AWS's
              nccl_to_csv.py and GPU health check);
  avg-line    the "# Avg bus bandwidth" line: grep, then awk '{print $NF}'
              (FlagPerf's run script) or the number after the colon
              (Azure's HPC health check), one line per run;
  json        -J by nccl-tests 2.19's keys: results[].size, out_of_place
              and in_place {time, alg_bw, bus_bw, nwrong},
              average_bus_bandwidth.bandwidth, out_of_bounds.count/okay.

usage: nccl_tests_readers.py TABLE JSON CSV default|inplace COLL
exits 0, or 1 with what differs"""
import csv
import json
import sys

FORMS = ("oop", "ip")


def tol(token):
    """Half a unit of the last digit nccl-tests' getFloatStr printed."""
    if "e" in token.lower():  # 2e+06, 1.5e+07: half a unit of the mantissa's last digit
        mant, exp = token.lower().split("e")
        digits = len(mant.split(".")[1]) if "." in mant else 0
        return 0.5 * 10 ** (int(exp) - digits) + 1e-12
    digits = len(token.split(".")[1]) if "." in token else 0
    return 0.5 * 10 ** -digits + 1e-9


def near(token, want, what):
    got = float(token)
    if abs(got - want) > tol(token):
        raise AssertionError("%s: read %s, the CSV says %.6g" % (what, token, want))


def csv_rows(path):
    """{size: {"oop"|"ip": row}} and the rows in order"""
    by, rows = {}, []
    for r in csv.DictReader(open(path)):
        x = {"size": int(r["size"]), "count": int(r["count"]), "time_us": float(r["time"]) * 1e6,
             "algbw": float(r["algbw"]), "busbw": float(r["busbw"]), "wrong": int(r["wrong"]),
             "coll": r["coll"]}
        form = "ip" if r["inplace"] == "true" else "oop"
        assert form not in by.setdefault(x["size"], {}), ("two rows of one size and form", x)
        by[x["size"]][form] = x
        rows.append(x)
    return by, rows


def last_block(lines):
    """The result lines after the last column header, split on blanks."""
    head = max(i for i, l in enumerate(lines) if l.startswith("#") and "out-of-place" in l and "in-place" in l)
    out = []
    for l in lines[head + 1:]:
        if l.startswith("#") or not l.strip():
            continue
        out.append(l.split())
    return out


def main():
    table, jpath, cpath, mode, coll = sys.argv[1:6]
    lines = open(table).read().splitlines()
    by, rows = csv_rows(cpath)
    assert rows and all(r["coll"] == coll for r in rows), "the CSV is not of %s alone" % coll
    has_ip = coll not in ("alltoall", "sendrecv")
    want_forms = {"ip"} if mode == "inplace" else {"oop", "ip"} if has_ip else {"oop"}
    for size, forms in by.items():
        assert set(forms) == want_forms, (size, sorted(forms), sorted(want_forms))

    # one block: a reader of the last block reads the run's only collective
    starts = [l for l in lines if l.startswith("# Collective test starting:")]
    assert len(starts) == 1, starts

    # last-block and in-place readers
    block = last_block(lines)
    assert [int(f[0]) for f in block] == sorted(by), ([f[0] for f in block], sorted(by))
    for f in block:
        assert len(f) == 13, f
        size = int(f[0])
        for k, form in enumerate(FORMS):
            base = 5 + 4 * k
            r = by[size].get(form)
            if r is None:
                assert f[base:base + 4] == ["N/A"] * 4, ("a form not run holds N/A", f)
                continue
            assert int(f[1]) == r["count"], (f, r)
            near(f[base], r["time_us"], "%d %s time" % (size, form))
            near(f[base + 1], r["algbw"], "%d %s algbw" % (size, form))
            near(f[base + 2], r["busbw"], "%d %s busbw (field %d)" % (size, form, base + 3))
            assert f[base + 3] == "0" and r["wrong"] == 0, f
    # what the header says of a form with N/A
    if mode == "inplace":
        assert "# in place only (--inplace): the out-of-place columns are N/A" in lines
    elif not has_ip:
        assert "# %s has no in-place form here: the in-place columns are N/A" % coll in lines

    # avg-line readers: one line, the number last (no threshold: no mark)
    avg = [l for l in lines if "# Avg bus bandwidth" in l]
    assert len(avg) == 1, avg
    mean = sum(r["busbw"] for r in rows) / len(rows)
    last = avg[0].split()[-1]
    after_colon = avg[0].split(":", 1)[1].split()[0]
    assert last == after_colon, avg
    assert abs(float(last) - mean) <= mean * 1e-5 + 1e-9, (last, mean)
    assert "# Out of bounds values : 0 OK" in lines
    assert lines[-1] == "# Collective test concluded: %s" % starts[0].split(": ", 1)[1]

    # json reader
    d = json.load(open(jpath))
    res = d["results"]
    assert [r["size"] for r in res] == sorted(by)
    for r in res:
        for key, form in (("out_of_place", "oop"), ("in_place", "ip")):
            c = by[r["size"]].get(form)
            p = r[key]
            if c is None:
                assert p is None, (key, r)
                continue
            for jk, ck in (("time", "time_us"), ("alg_bw", "algbw"), ("bus_bw", "busbw")):
                assert abs(p[jk] - c[ck]) <= abs(c[ck]) * 1e-8 + 1e-12, (key, jk, p[jk], c[ck])
            assert p["nwrong"] == 0
    assert abs(d["average_bus_bandwidth"]["bandwidth"] - mean) <= mean * 1e-8 + 1e-12
    assert d["out_of_bounds"] == {"count": 0, "okay": "true"}
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 6 or sys.argv[4] not in ("default", "inplace"):
        sys.exit("usage: nccl_tests_readers.py TABLE JSON CSV default|inplace COLL")
    try:
        sys.exit(main())
    except AssertionError as e:
        print("readers: %s" % (e,), file=sys.stderr)
        sys.exit(1)
