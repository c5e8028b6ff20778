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

check() { # MODE COLL: the parser's reading of $TEST_OUT against the run's CSV in $TEST_TMP/j.json
	$parse table "$TEST_OUT" >"$TEST_TMP/p.json" && python3 - "$TEST_TMP/p.json" "$TEST_TMP/j.json" "$1" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["tests"]
j = json.load(open(sys.argv[2]))
inplace_only, coll = sys.argv[3] == "inplace", sys.argv[4]
names = {"allreduce": "all_reduce_perf", "alltoall": "alltoall_perf", "reducescatter": "reduce_scatter_perf"}
assert [t["name"] for t in p] == [names[coll]], p
# nccl-tests measures both forms; here the in-place form runs where the
# collective has one, and only it with --inplace
has_ip = coll != "alltoall"
want = {}
for r in j["results"]:
    assert r["coll"] == coll
    want.setdefault(r["size"], {})["ip" if r["inplace"] else "oop"] = r
t = p[0]
assert [x["size"] for x in t["rows"]] == sorted(want), (t["rows"], sorted(want))
used = []
none = {"time": None, "algbw": None, "busbw": None, "wrong": None}
for got in t["rows"]:
    forms = want[got["size"]]
    assert sorted(forms) == (["ip"] if inplace_only else ["ip", "oop"] if has_ip else ["oop"]), forms
    for part in ("oop", "ip"):
        r = forms.get(part)
        if r is None:
            assert got[part] == none, got
            continue
        run = got[part]
        assert got["count"] == r["count"] and got["type"] == r["type"]
        assert got["root"] == (r["root"] if r["root"] is not None else -1)
        assert got["redop"] == (r["redop"] or "none")
        assert abs(run["time"] - r["time"] * 1e6) <= max(0.006, r["time"] * 1e6 * 1e-3), (run, r["time"])
        assert abs(run["busbw"] - r["busbw"]) <= max(0.006, r["busbw"] * 1e-3), (run, r["busbw"])
        assert run["wrong"] == r["wrong"] == 0
        used.append(r)
assert len(used) == len(j["results"])
assert t["oob"] == 0
# nccl-tests' average: every form measured, at every size
avg = sum(r["busbw"] for r in used) / len(used)
assert abs(t["avg_busbw"] - avg) <= avg * 1e-5 + 1e-9, (t["avg_busbw"], avg)
PY
}
for mode in default inplace; do
for coll in allreduce reducescatter alltoall; do
	flag=""
	[ "$mode" = inplace ] && flag=--inplace
	if [ "$mode$coll" = inplacealltoall ]; then
		expect_code 64 "--inplace alltoall: no in-place form, nothing to run" np_host 2 --sweep 1K:4K \
			--coll alltoall --iters 2 --samples 3 --inplace --format nccl-tests
		continue
	fi
	expect_success "$mode $coll: --format nccl-tests" np_host 2 --sweep 1K:1M --coll $coll \
		--iters 2 --samples 3 $flag --format nccl-tests --json "$TEST_TMP/ntj.json" --csv "$TEST_TMP/c.csv"
	# the run's own figures, from its CSV
	python3 - "$TEST_TMP/c.csv" "$TEST_TMP/j.json" <<'PY'
import csv, json, sys
rows = []
for r in csv.DictReader(open(sys.argv[1])):
    rows.append({"coll": r["coll"], "size": int(r["size"]), "count": int(r["count"]), "type": r["type"],
                 "redop": r["redop"] or None, "root": int(r["root"]) if r["root"] else None,
                 "inplace": r["inplace"] == "true",
                 "time": float(r["time"]), "busbw": float(r["busbw"]), "wrong": int(r["wrong"])})
json.dump({"results": rows}, open(sys.argv[2], "w"))
PY
	check "$mode" "$coll"
	ok $? "$mode $coll: nccl-tests' parser reads the table; every row, both forms, and the footer are the run's"
	case $mode$coll in
	inplace*) expect_grep '^# in place only \(--inplace\): the out-of-place columns are N/A$' "$TEST_OUT" \
		"... the header says that in place alone ran" ;;
	*alltoall) expect_grep '^# alltoall has no in-place form here: the in-place columns are N/A$' "$TEST_OUT" \
		"... the header says that alltoall has no in-place form" ;;
	*) ! grep -q 'N/A' "$TEST_OUT"
		ok $? "... no N/A: both forms measured, every element checked" ;;
	esac
	$parse json "$TEST_TMP/ntj.json" >"$TEST_TMP/pj.json" && python3 - "$TEST_TMP/pj.json" "$TEST_TMP/p.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
assert a["version"] == 3
assert len(a["tests"]) == len(b["tests"]) == 1
for ta, t in zip(a["tests"], b["tests"]):
    assert len(ta["rows"]) == len(t["rows"])
    assert abs(ta["avg_busbw"] - t["avg_busbw"]) <= t["avg_busbw"] * 1e-5 + 1e-9
    for x, y in zip(ta["rows"], t["rows"]):
        for part in ("oop", "ip"):
            for k in ("time", "busbw"):
                if y[part][k] is None:
                    assert x[part][k] is None
                else:
                    assert abs(x[part][k] - y[part][k]) <= max(0.006, y[part][k] * 1e-3), (x, y)
PY
	ok $? "$mode $coll: -J is nccl-tests' JSON layout, with the table's figures"
	python3 - "$TEST_TMP/ntj.json" "$mode" "$coll" <<'PY'
import json, re, sys
raw = open(sys.argv[1]).read()
d = json.loads(raw)
mode, coll = sys.argv[2], sys.argv[3]
# nccl-tests 2.19's writer (src/util.cu, src/common.cu): these keys, in
# this order, and no other at the top level
assert list(d) == ["version", "start_time", "args", "env", "nccl_version", "config", "results",
                   "out_of_bounds", "average_bus_bandwidth", "errors", "end_time"], list(d)
stamp = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
assert stamp.match(d["start_time"]) and stamp.match(d["end_time"]), (d["start_time"], d["end_time"])
assert d["start_time"] <= d["end_time"]
assert d["version"] == 3 and isinstance(d["nccl_version"], int) and d["errors"] == []
assert all(e.startswith("NCCL_") for e in d["env"])
c = d["config"]
assert list(c) == ["nthreads", "ngpus", "minimum_bytes", "maximum_bytes", "step_factor", "warmup_iters",
                   "iterations", "aggregated_iterations", "validation", "graph", "blocking_collectives",
                   "per_iter_timing", "per_iter_skip", "parallel_init", "devices"], list(c)
# its booleans are the strings "true" and "false"
assert c["blocking_collectives"] == c["per_iter_timing"] == c["parallel_init"] == "false"
assert c["step_factor"] == 4 and type(c["step_factor"]) is int
assert len(c["devices"]) == 2
assert all(list(x) == ["rank", "group", "pid", "hostname", "device", "device_hex", "device_info"]
           and re.match(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}$", x["device_hex"]) for x in c["devices"])
assert d["out_of_bounds"] == {"count": 0, "okay": "true"}
assert list(d["average_bus_bandwidth"]) == ["bandwidth", "okay"] and d["average_bus_bandwidth"]["okay"] == "unchecked"
assert "true" not in re.findall(r":\s*(true|false)\b", raw) and not re.findall(r":\s*(true|false)\b", raw)
for r in d["results"]:
    assert list(r) == ["size", "count", "type", "redop", "root", "out_of_place", "in_place",
                       "actual_iterations", "experiment_name"], list(r)
    assert re.match(r"^ {4}-1$", r["root"]) and r["experiment_name"] == ""
    # an object for each form measured; null (nccl-tests' own null body)
    # only for the form that did not run
    oop_null, ip_null = r["out_of_place"] is None, r["in_place"] is None
    assert (oop_null, ip_null) == ((True, False) if mode == "inplace" else (False, coll == "alltoall")), r
    for p in (r["out_of_place"], r["in_place"]):
        if p is not None:
            assert list(p) == ["time", "alg_bw", "bus_bw", "nwrong"] and p["nwrong"] == 0
PY
	ok $? "$mode $coll: -J has nccl-tests 2.19's keys in its order, its string booleans and time stamps"
done
done
expect_code 64 "--format nccl-tests is the sweep's alone" np topo --format nccl-tests
expect_success "both forms with --metrics" np_host 2 --sweep 1K:4K --coll allreduce --iters 2 --samples 3 \
	--format nccl-tests --metrics "$TEST_TMP/m.prom"
python3 - "$TEST_TMP/m.prom" <<'PY'
import re, sys
seen, ip = set(), 0
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    series = line.rsplit(" ", 1)[0]
    assert series not in seen, series
    seen.add(series)
    if re.search(r'_busbw_bytes_per_second\{.*size_bytes="\d+".*inplace="true"', series):
        ip += 1
assert ip == 2, ip  # 1K and 4K
PY
ok $? "... OpenMetrics labels the in-place samples inplace=\"true\": every series once"

# nccl-tests' check of its average: NCCL_TESTS_MIN_BW marks the "Avg bus
# bandwidth" line FAILED below 0.9 x it and the run fails; --min-busbw
# marks the same line with its verdict
avg_line() { # FILE: the Avg line's value and mark
	sed -n 's/^# Avg bus bandwidth *: \([^ ]*\) *\(.*\)$/\1 \2/p' "$1"
}
okay_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["average_bus_bandwidth"]["okay"])' "$1"; }
nt_run() { np_host 2 --sweep 1K:4K --coll allreduce --iters 2 --samples 3 --format nccl-tests -J "$TEST_TMP/g.json" "$@"; }
NCCL_TESTS_MIN_BW=1000 expect_code 1 "NCCL_TESTS_MIN_BW=1000 (GB/s), far above a host's busbw: exit 1" nt_run
set -- $(avg_line "$TEST_OUT")
python3 -c 'import sys; sys.exit(not (float(sys.argv[1]) < 900 and sys.argv[2] == "FAILED"))' "$1" "${2:-}" &&
	[ "$(okay_of "$TEST_TMP/g.json")" = false ]
ok $? "... its Avg bus bandwidth line says FAILED ($*), -J's average_bus_bandwidth.okay \"false\""
expect_grep '^error: allreduce average busbw .* below 0.9 x NCCL_TESTS_MIN_BW 1000 GB/s' "$TEST_ERR" "... and the verdict says why"
NCCL_TESTS_MIN_BW=0.000001 expect_code 0 "NCCL_TESTS_MIN_BW=0.000001 (1 kB/s, below any run even under sanitizers and load): exit 0" nt_run
set -- $(avg_line "$TEST_OUT")
[ "${2:-}" = OK ] && [ "$(okay_of "$TEST_TMP/g.json")" = true ]
ok $? "... the line says OK ($*), okay \"true\""
expect_code 0 "without a threshold" nt_run
set -- $(avg_line "$TEST_OUT")
[ $# -eq 1 ] && [ "$(okay_of "$TEST_TMP/g.json")" = unchecked ]
ok $? "... the line has no mark ($*), okay \"unchecked\", as nccl-tests"
expect_code 1 "--min-busbw 1000: exit 1" nt_run --min-busbw 1000
set -- $(avg_line "$TEST_OUT")
[ "${2:-}" = FAILED ] && [ "$(okay_of "$TEST_TMP/g.json")" = false ]
ok $? "... --min-busbw marks the Avg line FAILED ($*)"
expect_code 0 "--min-busbw 0.000001: exit 0" nt_run --min-busbw 0.000001
set -- $(avg_line "$TEST_OUT")
[ "${2:-}" = OK ]
ok $? "... --min-busbw marks the Avg line OK ($*)"
NCCL_TESTS_MIN_BW=fast expect_code 64 "NCCL_TESTS_MIN_BW=fast is a usage error" nt_run
expect_grep "^error: NCCL_TESTS_MIN_BW 'fast' is not a bandwidth in GB/s" "$TEST_ERR" "... naming it"
NCCL_TESTS_MIN_BW=1000 expect_code 0 "the table format does not judge NCCL_TESTS_MIN_BW" \
	np_host 2 --sweep 1K:4K --coll allreduce --iters 2 --samples 3
expect_grep 'NCCL_TESTS_MIN_BW is not judged' "$TEST_OUT" "... and says so"

# an interrupted run ends its block without nccl-tests' clean end
NCCL_PROBE_TEST_STALL=1@7 expect_code 4 "a stall after rows finished, --timeout 2: exit 4" \
	np_host 2 --sweep 1K:64K --coll allreduce --iters 1 --samples 3 --timeout 2 --format nccl-tests \
	-J "$TEST_TMP/int.json"
grep -q '^# interrupted: the rows above are complete, the rest did not run (exit 4)$' "$TEST_OUT" &&
	! grep -q 'Collective test concluded' "$TEST_OUT" && ! grep -Eq '(OK|FAILED) *$' "$TEST_OUT" &&
	! grep -q 'Avg bus bandwidth' "$TEST_OUT" && [ "$(grep -vc '^#' "$TEST_OUT")" -ge 1 ]
ok $? "... its block has the finished rows and '# interrupted', no 'concluded', no OK"
python3 - "$TEST_TMP/int.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["errors"]) == 1 and d["errors"][0].startswith("interrupted: ") and "exit 4" in d["errors"][0], d["errors"]
assert len(d["results"]) >= 1 and "end_time" in d
PY
ok $? "... its -J says so in nccl-tests' errors list"

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
