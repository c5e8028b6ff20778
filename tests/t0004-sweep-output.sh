#!/bin/sh
# SPDX-License-Identifier: MIT
# --output writes a whole file (temporary name, then rename); SIGINT
# mid-sweep keeps the finished rows, marks the JSON incomplete and exits
# non-zero; thresholds give the verdict exit code.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort
command -v python3 >/dev/null || skip_all "python3 not found"

expect_success "json to a file" np_host 2 --sweep 1K:16K --iters 2 --samples 2 --format json --output "$TEST_TMP/a.json"
[ ! -s "$TEST_OUT" ]
ok $? "nothing on stdout with --output"
expect_success "the file is JSON" python3 -m json.tool "$TEST_TMP/a.json"
# sample_times: each row's per-sample times, as many as its samples, whose
# median is its time (%.10g on both sides: equal to 1e-9 relative)
expect_success "json with sample times" np_host 2 --sweep 1K:16K --coll allreduce,alltoall --iters 2 --samples 5 \
	--format json --output "$TEST_TMP/st.json"
expect_success "json with auto sampling" np_host 2 --sweep 1K:4K --budget 0.05 --format json --output "$TEST_TMP/sa.json"
python3 - "$TEST_TMP/a.json" "$TEST_TMP/st.json" "$TEST_TMP/sa.json" <<'PY'
import json, statistics, sys
bad = []
for path in sys.argv[1:]:
    rep = json.load(open(path))
    for r in rep["results"]:
        t = r["sample_times"]
        if (len(t) != r["samples"] or not all(type(x) in (int, float) and x > 0 for x in t)
                or abs(statistics.median(t) - r["time"]) > 1e-9 * r["time"]
                or min(t) != r["time_min"] or max(t) != r["time_max"]):
            bad.append((path, r["coll"], r["size"], r["samples"], r["time"], t))
    bad += [(path, s) for s in rep["skipped"] if s["sample_times"] != []]
print("# rows whose sample_times disagree:", bad)
sys.exit(0 if not bad else 1)
PY
ok $? "each row's sample_times: its samples count, median = time, min and max = time_min and time_max"
# the run record: a random id, the start in UTC and the command line
python3 - "$NP_BIN" "$TEST_TMP/st.json" "$TEST_TMP/sa.json" <<'PY'
import datetime, json, re, sys
a, b = (json.load(open(p)) for p in sys.argv[2:])
start = datetime.datetime.strptime(a["start_time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
age = (datetime.datetime.now(datetime.timezone.utc) - start).total_seconds()
want = [sys.argv[1], "--backend", "mpi", "--sweep", "1K:16K", "--coll", "allreduce,alltoall", "--iters", "2",
        "--samples", "5", "--format", "json", "--output", sys.argv[2]]
print("# run_id", a["run_id"], b["run_id"], "start_time", a["start_time"], "age", age, "cmdline", a["cmdline"])
sys.exit(0 if all(re.fullmatch("[0-9a-f]{32}", x["run_id"]) for x in (a, b)) and a["run_id"] != b["run_id"]
         and -5 <= age <= 600 and a["cmdline"] == want and b["cmdline"][-2:] == ["--output", sys.argv[3]] else 1)
PY
ok $? "run_id (32 hex digits, one per run), start_time (ISO 8601 UTC) and cmdline (argv)"
leftover=$(ls "$TEST_TMP" | grep -c '\.tmp\.')
[ "$leftover" -eq 0 ]
ok $? "no temporary file left behind"

expect_success "table to a file" np_host 2 --sweep 1K --iters 2 --samples 2 --output "$TEST_TMP/t.txt"
expect_grep '^# verdict: not judged: no threshold \(--min-eff PCT or --min-busbw GBPS\); 0 wrong elements$' "$TEST_TMP/t.txt" \
	"table file is whole; with no threshold the verdict says it judged nothing"

# SIGINT: run one process directly (MPI singleton) so the signal reaches it,
# once its progress lines say that two rows are done (however slow the
# start on a loaded machine; at most 60 s)
NCCL_PROBE_PROGRESS=0 "$NP_BIN" --backend mpi --sweep 8:256M:x2 --budget 1 --format json --output "$TEST_TMP/int.json" \
	>"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q '^progress: row 3/' "$TEST_ERR" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -ne 0 ]
ok $? "SIGINT mid-sweep exits non-zero (got $rc)"
python3 - "$TEST_TMP/int.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["complete"] is False and r["interrupted"] is True and len(r["results"]) >= 1
         and r["verdict"]["ok"] is False
         and r["verdict"]["details"] == [{"code": "interrupted", "coll": None, "size": None,
                                          "value": None, "threshold": None}] else 1)
PY
ok $? "the JSON file is whole, holds the finished rows and is marked incomplete"
grep -q 'interrupted' "$TEST_ERR"
ok $? "the interruption is reported"

# verdict thresholds
expect_code 1 "--min-busbw not met: exit 1" np_host 2 --sweep 1K --iters 1 --samples 1 --min-busbw 100000
expect_grep 'below --min-busbw' "$TEST_ERR" "the verdict says why"
expect_code 0 "--min-busbw met" np_host 2 --sweep 64K --iters 1 --samples 1 --min-busbw 0.000001
expect_code 1 "--min-eff with no known limit: exit 1" np_host 2 --sweep 1K --iters 1 --samples 1 --min-eff 50
expect_grep 'unknown' "$TEST_ERR" "the verdict says the limit is unknown"

# per collective, on the judged rows: the largest quarter of 9 sizes is 3
expect_code 1 "per-collective --min-busbw: alltoall fails, allreduce passes" \
	np_host 2 --sweep 1K:256K:x2 --iters 1 --samples 1 --warmup 0 \
	--min-busbw allreduce=0.000001,alltoall=100000 --format json --output "$TEST_TMP/v.json"
python3 - "$TEST_TMP/v.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
rows = rep["results"]
judged = sorted({r["size"] for r in rows if r["judged"]})
want = {"allreduce": "pass", "alltoall": "fail"}
bad = [r for r in rows if r["verdict"] != (want[r["coll"]] if r["judged"] else None)]
reasons = rep["verdict"]["reasons"]
details = rep["verdict"]["details"]
want_details = [{"code": "min_busbw", "coll": "alltoall", "size": r["size"], "value": r["busbw"],
                 "threshold": 100000} for r in rows if r["coll"] == "alltoall" and r["judged"]]
print("# judged", judged, "bad rows", bad, "reasons", reasons, "details", details)
sys.exit(0 if judged == [65536, 131072, 262144] and not bad
         and rep["options"]["judge_from"] == 65536
         and len(reasons) == 1 and "alltoall" in reasons[0] and "3 of 3" in reasons[0]
         and len(want_details) == 3 and details == want_details else 1)
PY
ok $? "the largest quarter is judged, each row marked, one reason for alltoall, one detail per failing row"
# details of the other reasons: eff below --min-eff, eff unknown, wrong data,
# a collective with no judged row
NCCL_PROBE_TEST_CORRUPT=1 expect_code 2 "wrong data and --min-eff unknown: exit 2" \
	np_host 2 --sweep 1K:4K --coll allreduce,alltoall --iters 1 --samples 1 --warmup 0 --check \
	--min-eff 50 --format json --output "$TEST_TMP/w.json"
# 4097 bytes is measured as 4096 (whole elements for every rank), so no row
# reaches --judge-from 4097 although the largest size asked for does
expect_code 1 "thresholds but no judged row: exit 1" \
	np_host 2 --sweep 1K:4097:+1K --coll allreduce,alltoall --iters 1 --samples 1 --warmup 0 \
	--min-eff allreduce=100 --min-busbw alltoall=1 --judge-from 4097 --format json --output "$TEST_TMP/e.json"
python3 - "$TEST_TMP/w.json" "$TEST_TMP/e.json" <<'PY'
import json, sys
w, e = (json.load(open(p)) for p in sys.argv[1:])
def codes(rep):
    return sorted((d["code"], d["coll"], d["size"]) for d in rep["verdict"]["details"])
wrong = [r for r in w["results"] if r["wrong"]]
print("# w:", w["verdict"], "\n# e:", e["verdict"])
ok = (wrong and [d for d in w["verdict"]["details"] if d["code"] == "data_errors"]
      == [{"code": "data_errors", "coll": r["coll"], "size": r["size"], "value": r["wrong"], "threshold": 0}
          for r in wrong]
      and sorted(d["coll"] for d in w["verdict"]["details"]
                 if d["code"] == "eff_unknown" and d["value"] is None and d["threshold"] == 0.5)
      == ["allreduce", "alltoall"])
ok = ok and codes(e) == [("not_judged", "allreduce", None), ("not_judged", "alltoall", None)] and all(
    d["threshold"] == 4097 and d["value"] is None for d in e["verdict"]["details"])
sys.exit(0 if ok else 1)
PY
ok $? "verdict.details: data_errors per wrong row, eff_unknown per judged row, not_judged per collective"
expect_code 1 "--judge-from moves the judged rows" \
	np_host 2 --sweep 1K:256K:x2 --iters 1 --samples 1 --warmup 0 --coll alltoall \
	--judge-from 4K --min-busbw 100000
expect_grep 'at 7 of 7 judged sizes' "$TEST_ERR" "--judge-from 4K judges 7 sizes"
expect_grep '^ +1024 +128 +float +none +-1 .* -$' "$TEST_OUT" "an unjudged row shows - in the pass column"
expect_grep '^ +262144 +32768 +float +none +-1 .* NO$' "$TEST_OUT" "a failing row is marked NO"
expect_code 1 "the same with --wide" \
	np_host 2 --sweep 1K:256K:x2 --iters 1 --samples 1 --warmup 0 --coll alltoall \
	--judge-from 4K --min-busbw 100000 --wide
expect_grep '^ +alltoall +1024 .* - +(converged|noise-bound|budget|fixed) *$' "$TEST_OUT" "--wide: an unjudged row shows - in the verdict column"
expect_grep '^ +alltoall +262144 .* fail +fixed *$' "$TEST_OUT" "--wide: a failing row is marked fail"
expect_code 0 "one rank: --min-busbw is not judged (busbw is 0 by definition)" \
	np_host 1 --sweep 1K:4K --iters 1 --samples 1 --min-busbw 100
expect_grep 'busbw is 0 by definition' "$TEST_OUT" "one rank: a note says why"
expect_code 64 "--min-eff with an unknown collective" np --min-eff allreduce=80,bogus=70
expect_grep "unknown collective 'bogus'" "$TEST_ERR" "the message names it"
expect_code 64 "--min-eff with a pair lacking '='" np --min-eff allreduce=80,70
expect_code 64 "--min-busbw out of range" np --min-busbw alltoall=-1
expect_code 64 "--judge-from not a size" np --judge-from lots
# gates that gate: refused before anything runs (no rank is started: plain np)
expect_code 64 "a --min-busbw for a collective not run" np --coll allreduce --min-busbw alltoall=90
expect_grep "^error: --min-busbw names alltoall, which this run does not measure" "$TEST_ERR" \
	"the message names the collective and the option"
[ ! -s "$TEST_OUT" ]
ok $? "nothing ran (no output)"
expect_code 64 "a --min-eff for a collective not run" np --coll allgather --min-eff allgather=50,alltoall=80
expect_grep "^error: --min-eff names alltoall" "$TEST_ERR" "the message names --min-eff"
expect_code 64 "--judge-from above the largest size" np --sweep 1K:64K --judge-from 1M
expect_grep "^error: --judge-from 1048576 is above the largest size, 65536 bytes" "$TEST_ERR" \
	"the message names both sizes"
expect_code 64 "--judge-from above the largest of -b/-e/-f" np -b 1K -e 8K -i 1K --judge-from 9K
expect_code 0 "a threshold for each collective run is taken" \
	np_host 2 --sweep 1K:4K --iters 1 --samples 1 --warmup 0 --coll allreduce --min-busbw allreduce=0 \
	--judge-from 4K
# -b/-e without -f step as nccl-tests does: add -i, 1 MiB by default
expect_success "-b 1M -e 3M steps by 1 MiB" np_host 1 -b 1M -e 3M --coll allreduce --iters 1 --samples 1 -q
n=$(grep -c -E '^ +(1048576|2097152|3145728) ' "$TEST_OUT")
[ "$n" -eq 3 ] && [ "$(grep -c -E '^ +[0-9]+ +[0-9]+ ' "$TEST_OUT")" -eq 3 ]
ok $? "-b 1M -e 3M: rows 1, 2 and 3 MiB ($n)"
expect_success "-b 1K -e 3K -i 1K steps by -i" np_host 1 -b 1K -e 3K -i 1K --coll allreduce --iters 1 --samples 1 -q
n=$(grep -c -E '^ +(1024|2048|3072) +' "$TEST_OUT")
[ "$n" -eq 3 ]
ok $? "-b 1K -e 3K -i 1K: rows 1, 2 and 3 KiB ($n)"
expect_success "-b 1K -e 8K -f 2 multiplies" np_host 1 -b 1K -e 8K -f 2 --coll allreduce --iters 1 --samples 1 -q
n=$(grep -c -E '^ +(1024|2048|4096|8192) +' "$TEST_OUT")
[ "$n" -eq 4 ]
ok $? "-b 1K -e 8K -f 2: rows 1, 2, 4 and 8 KiB ($n)"
done_testing
