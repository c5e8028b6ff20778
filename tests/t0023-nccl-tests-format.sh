#!/bin/sh
# SPDX-License-Identifier: MIT
# --format nccl-tests: one parser written for nccl-tests' output
# (tests/nccl_tests_parse.py) reads nccl-tests' own output (a real
# all_reduce_perf run, tests/nccl-tests/) and nccl-probe's alike; what it
# reads from nccl-probe's equals nccl-probe's JSON of the same run, out of
# place and in place, and -J writes nccl-tests' JSON layout.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"

parse="python3 $srcdir/tests/nccl_tests_parse.py"
$parse table "$srcdir/tests/nccl-tests/all_reduce_perf-h200.txt" >"$TEST_TMP/nt.json"
python3 - "$TEST_TMP/nt.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["tests"]
assert len(t) == 1 and t[0]["name"] == "all_reduce_perf", t
r = t[0]["rows"]
# the file's rows, read by hand: 1 MiB to 1 GiB by 2, float sum, root -1
assert [x["size"] for x in r] == [1 << k for k in range(20, 31)], r
assert r[4]["oop"]["time"] == 11.13 and r[4]["oop"]["algbw"] == 1508.0 and r[4]["ip"]["algbw"] == 66620
assert all(x["type"] == "float" and x["redop"] == "sum" and x["root"] == -1 for x in r)
assert t[0]["oob"] == 0 and t[0]["avg_busbw"] == 0
PY
ok $? "the parser reads nccl-tests' own output (all_reduce_perf on an H200)"

check() { # NAME: the parser's reading of $TEST_OUT against the JSON in $TEST_TMP/j.json
	$parse table "$TEST_OUT" >"$TEST_TMP/p.json" && python3 - "$TEST_TMP/p.json" "$TEST_TMP/j.json" "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["tests"]
j = json.load(open(sys.argv[2]))
inplace = sys.argv[3] == "inplace"
names = {"allreduce": "all_reduce_perf", "broadcast": "broadcast_perf", "alltoall": "alltoall_perf",
         "reducescatter": "reduce_scatter_perf", "allgather": "all_gather_perf"}
want = {}
for r in j["results"]:
    want.setdefault(names[r["coll"]], []).append(r)
assert sorted(t["name"] for t in p) == sorted(want), (p, want.keys())
for t in p:
    rows = want[t["name"]]
    assert len(t["rows"]) == len(rows), (t["name"], len(t["rows"]), len(rows))
    for got, r in zip(t["rows"], rows):
        run, other = (got["ip"], got["oop"]) if inplace else (got["oop"], got["ip"])
        assert got["size"] == r["size"] and got["count"] == r["count"] and got["type"] == r["type"]
        assert got["root"] == (r["root"] if r["root"] is not None else -1)
        assert got["redop"] == (r["redop"] or "none")
        assert abs(run["time"] - r["time"] * 1e6) <= max(0.006, r["time"] * 1e6 * 1e-3), (run, r["time"])
        assert abs(run["busbw"] - r["busbw"]) <= max(0.006, r["busbw"] * 1e-3), (run, r["busbw"])
        assert run["wrong"] == r["wrong"] == 0
        assert other == {"time": None, "algbw": None, "busbw": None, "wrong": None}, other
    assert t["oob"] == 0
    avg = sum(r["busbw"] for r in rows) / len(rows)
    assert abs(t["avg_busbw"] - avg) <= avg * 1e-5 + 1e-9, (t["avg_busbw"], avg)
PY
}
for mode in outofplace inplace; do
for coll in allreduce reducescatter; do
	flag=""
	[ "$mode" = inplace ] && flag=--inplace
	expect_success "$mode $coll: --format nccl-tests" np_host 2 --sweep 1K:1M --coll $coll \
		--iters 2 --samples 3 $flag --format nccl-tests --json "$TEST_TMP/ntj.json" --csv "$TEST_TMP/c.csv"
	# the run's own figures, from its CSV
	python3 - "$TEST_TMP/c.csv" "$TEST_TMP/j.json" <<'PY'
import csv, json, sys
rows = []
for r in csv.DictReader(open(sys.argv[1])):
    rows.append({"coll": r["coll"], "size": int(r["size"]), "count": int(r["count"]), "type": r["type"],
                 "redop": r["redop"] or None, "root": int(r["root"]) if r["root"] else None,
                 "time": float(r["time"]), "busbw": float(r["busbw"]), "wrong": int(r["wrong"])})
json.dump({"results": rows}, open(sys.argv[2], "w"))
PY
	check "$mode"
	ok $? "$mode $coll: nccl-tests' parser reads the table; every row and the footer are the run's"
	$parse json "$TEST_TMP/ntj.json" >"$TEST_TMP/pj.json" && python3 - "$TEST_TMP/pj.json" "$TEST_TMP/p.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
assert a["version"] == 3
ta = {t["name"]: t["rows"] for t in a["tests"]}
for t in b["tests"]:
    for x, y in zip(ta[t["name"]], t["rows"]):
        for part in ("oop", "ip"):
            for k in ("time", "busbw"):
                if y[part][k] is None:
                    assert x[part][k] is None
                else:
                    assert abs(x[part][k] - y[part][k]) <= max(0.006, y[part][k] * 1e-3), (x, y)
PY
	ok $? "$mode $coll: -J is nccl-tests' JSON layout, with the table's figures"
done
done
expect_code 64 "--format nccl-tests is the sweep's alone" np topo --format nccl-tests

# one run, one collective, as nccl-tests is one binary per collective
expect_code 64 "--format nccl-tests with several collectives (the default two) is refused" \
	np --format nccl-tests --backend mpi
expect_grep '^error: --format nccl-tests is one collective per run.*run once per collective with --coll' \
	"$TEST_ERR" "... in one line that says to run one per collective"
expect_code 64 "--format nccl-tests --coll allreduce,alltoall is refused" \
	np --format nccl-tests --coll allreduce,alltoall --backend mpi
mkdir -p "$TEST_TMP/bin"
for p in all_reduce_perf all_gather_perf alltoall_perf broadcast_perf reduce_perf reduce_scatter_perf sendrecv_perf; do
	ln -s "$NP_BIN" "$TEST_TMP/bin/$p"
done
expect_success "a link named all_reduce_perf runs allreduce in nccl-tests' format" \
	mpirun -np 2 --oversubscribe --bind-to none "$TEST_TMP/bin/all_reduce_perf" -b 1K -e 4K -f 2 \
	--backend mpi --iters 2 --samples 3
[ "$(grep -c '^# Collective test starting: all_reduce_perf$' "$TEST_OUT")" = 1 ] &&
	[ "$(grep -c '^# Collective test starting' "$TEST_OUT")" = 1 ] &&
	[ "$(grep -vc '^#' "$TEST_OUT")" = 3 ] &&
	awk '!/^#/ && ($3 != "float" || $4 != "sum") { exit 1 }' "$TEST_OUT"
ok $? "... one block of allreduce, one line per size (1K, 2K, 4K)"
for p in all_gather_perf alltoall_perf reduce_scatter_perf sendrecv_perf broadcast_perf reduce_perf; do
	expect_success "a link named $p runs its collective alone" \
		mpirun -np 2 --oversubscribe --bind-to none "$TEST_TMP/bin/$p" -b 4K -e 4K --backend mpi --iters 2 \
		--samples 3
	[ "$(grep -c "^# Collective test starting: $p\$" "$TEST_OUT")" = 1 ] &&
		[ "$(grep -c '^# Collective test starting' "$TEST_OUT")" = 1 ]
	ok $? "... in one block named $p"
done
expect_code 64 "all_reduce_perf --coll alltoall is refused: the name chose the collective" \
	"$TEST_TMP/bin/all_reduce_perf" --coll alltoall --backend mpi
expect_grep "^error: called as all_reduce_perf, the run measures allreduce alone; drop --coll" "$TEST_ERR" \
	"... saying so"
expect_success "all_reduce_perf --format table prints nccl-probe's table of allreduce" \
	"$TEST_TMP/bin/all_reduce_perf" -b 4K -e 4K --backend mpi --iters 2 --samples 3 --format table
! grep -q 'Collective test starting' "$TEST_OUT" && grep -q allreduce "$TEST_OUT"
ok $? "... not nccl-tests' layout"
done_testing
