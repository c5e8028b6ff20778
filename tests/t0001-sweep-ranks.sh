#!/bin/sh
# SPDX-License-Identifier: MIT
# The sweep on 1, 2, 3, 4 and 8 host ranks: JSON parses, busbw = algbw x
# factor for every row and collective, no wrong elements.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort
command -v python3 >/dev/null || skip_all "python3 not found"

for n in 1 2 3 4 8; do
	expect_success "$n ranks: every collective runs" \
		np_host "$n" --coll all --sweep 1K:256K:x16 --iters 3 --samples 3 --warmup 1 \
		--backend mpi --format json --output "$TEST_TMP/r$n.json"
	expect_success "$n ranks: JSON parses" python3 -m json.tool "$TEST_TMP/r$n.json"
	expect_success "$n ranks: busbw = algbw x factor, no wrong data" \
		python3 "$srcdir/tests/check_report.py" "$TEST_TMP/r$n.json" "$n" \
		allreduce,allgather,reducescatter,alltoall,broadcast,reduce,gather,scatter,sendrecv
done

# --iters auto: samples until the median is known or the budget is spent
expect_success "auto sampling runs" \
	np_host 2 --sweep 8:64K:x8 --budget 0.2 --format json --output "$TEST_TMP/auto.json"
expect_success "auto sampling: report checks" \
	python3 "$srcdir/tests/check_report.py" "$TEST_TMP/auto.json" 2 allreduce,alltoall
python3 - "$TEST_TMP/auto.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
bad = [r for r in rep["results"] if not (r["converged"] or r["samples"] >= 3)]
sys.exit(1 if bad or rep["options"]["iters"] != "auto" else 0)
PY
ok $? "auto sampling: every row converged or took at least 3 samples"
# why each row stopped agrees with its own figures
python3 - "$TEST_TMP/auto.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
bad = []
for r in rep["results"]:
    ci, n, why = r["time_ci"], r["samples"], r["stop"]
    good = {"converged": ci is not None and ci <= 0.01 and n >= 6 and r["converged"],
            "noise-bound": ci is not None and ci > 0.01 and n >= 6 and not r["converged"],
            "budget": n >= 3 and not r["converged"],
            # the budget ended the search for the steady state's batch
            # length first (a busy host), whatever ended the sampling
            "unsteady": r["steady"] is False and n >= 3}.get(why, False)
    if why != "unsteady" and r["steady"] is not True:
        good = False
    if not good:
        bad.append((r["size"], why, ci, n))
print("# rows whose stop disagrees with their figures:", bad)
sys.exit(1 if bad or not rep["results"] else 0)
PY
ok $? "auto sampling: each row's stop (converged, noise-bound, budget, unsteady) matches its interval, samples and steady"
expect_success "fixed iterations" np_host 1 --sweep 1K --iters 2 --samples 2 --format csv
expect_grep ',fixed,[0-9a-f]{32},mpi,1,1$' "$TEST_OUT" "fixed iterations: stop is 'fixed'"

# the default range on host memory: 8 B x4 up to 128 MiB, said in a note
expect_success "default range" np_host 1 --coll allreduce --budget 0.01 --format json --output "$TEST_TMP/d.json"
python3 - "$TEST_TMP/d.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
sizes = [r["size"] for r in rep["results"]]
note = [n for n in rep["notes"] if n.startswith("default sizes up to 128 MiB on host memory")]
print("# sizes", sizes, "notes", rep["notes"])
sys.exit(0 if sizes == [8 * 4 ** k for k in range(13)] and rep["options"]["max_bytes"] == 128 << 20
         and note and rep["options"]["judge_from"] == 2 << 20 else 1)
PY
ok $? "default range: 8 B to 128 MiB by 4 on host memory, a note says so, the top quarter judged"
# the largest size asked for always runs, the last step shorter; the
# header lists the sizes that run
expect_success "--sweep 1K:9K (x4)" np_host 2 --sweep 1K:9K --iters 1 --samples 1 --coll allreduce --format csv
[ "$(cut -d, -f2 "$TEST_OUT" | sed 1d | tr '\n' ' ')" = "1024 4096 9216 " ]
ok $? "  runs 1K, 4K and 9K, the maximum given"
expect_success "--sweep 1K:10K:+4K" np_host 2 --sweep 1K:10K:+4K --iters 1 --samples 1 --coll allreduce --format csv
[ "$(cut -d, -f2 "$TEST_OUT" | sed 1d | tr '\n' ' ')" = "1024 5120 9216 10240 " ]
ok $? "  runs 1K, 5K, 9K and 10K"
expect_success "--sweep 1K:9K, the table" np_host 2 --sweep 1K:9K --iters 1 --samples 1 --coll allreduce
expect_grep '^# sizes: 1 KiB, 4 KiB, 9 KiB \(3 sizes, x4, the last step shorter\)$' "$TEST_OUT" "  the header lists the sizes"

expect_success "one rank: no slowest rank" np_host 1 --sweep 1K --iters 1 --samples 1 --format csv
expect_grep ',0,[0-9.e+-]+,,' "$TEST_OUT" "one rank: slow_rank 0, slow_excess empty"

# the human table: nccl-tests' columns and the summary
expect_success "table output" np_host 2 --sweep 1K:4K --iters 2 --samples 2
expect_grep '^# +size +count +type +redop +root +time +algbw +busbw +#wrong +eff% +pass$' "$TEST_OUT" "table has nccl-tests columns in nccl-tests' order"
expect_grep '^# +\(B\) +\(elements\) +\(us\) +\(GB/s\) +\(GB/s\)$' "$TEST_OUT" "  and their units below"
expect_grep '^# allreduce, float, sum, out of place$' "$TEST_OUT" "  a heading per collective"
expect_grep '^#   allreduce: [0-9.]+ GB/s at 4 KiB, limit unknown' "$TEST_OUT" "  a summary line per collective: busbw at the largest size"
awk 'length($0) > 100 { bad = 1; print "# too wide: " $0 } END { exit bad }' "$TEST_OUT"
ok $? "  every line fits 100 columns"
# the summary names a peak only 1% or more above the largest size's busbw
# and above it as printed (tests/unit/test_report has the edges): a named
# peak is the rows' maximum as its row prints it, at its size, above the
# last row's; with none named, no row is above the last by more than 1%
# plus the rounding to 0.01 (2% + 0.01). Both rows of 2 sizes are read.
awk '/^# allreduce,/ { on = 1; next } /^#$/ { on = 0 } on && /^ +[0-9]/ { b[$1] = $8; last = $1; n++ }
	/^#   allreduce: / { line = $0 }
	END { max = 0; for (k in b) if (k != last && b[k] + 0 > max) { max = b[k] + 0; at = k }
		l = b[last] + 0
		if (match(line, /; peak [0-9.]+ at [0-9]+ [KMG]?i?B$/)) {
			split(substr(line, RSTART), p, " "); v = p[3] + 0; sz = p[5]
			u = (p[6] == "KiB") ? 1024 : (p[6] == "MiB") ? 1048576 : (p[6] == "GiB") ? 1073741824 : 1
			print "# peak " v " at " sz * u "; rows: max " max " at " at ", last " l
			exit !(n == 2 && v == max && sz * u == at && max > l) }
		print "# no peak; rows: max " max " at " at ", last " l
		exit n != 2 || max > 1.02 * l + 0.01 }' "$TEST_OUT"
ok $? "  a peak in the summary is the rows' maximum, at its size; none when no row is well above the last"
# one rank: busbw is 0 by its definition; the summary says so and gives algbw
expect_success "table output on one rank" np_host 1 --sweep 1K:4K --iters 2 --samples 2
expect_grep '^# summary: one rank, so busbw is 0 \(nothing crosses a link\): run 2 or more ranks$' "$TEST_OUT" \
	"  the summary says why busbw is 0"
expect_grep '^#   allreduce: algbw [0-9.]+ GB/s at 4 KiB$' "$TEST_OUT" "  and gives algbw, no peak or limit"
# busbw is field 8 of a row, as in nccl-tests' output
awk '/^ +[0-9]/ { n++; if ($8 + 0 != $8 || $3 != "float") bad = 1 } END { exit bad || n != 4 }' "$TEST_OUT"
ok $? "  busbw is the 8th field of each of the 4 rows"
expect_success "table output, --wide" np_host 2 --sweep 1K:4K --iters 2 --samples 2 --wide
expect_grep '^# coll +size\(B\) +count +type +redop +root +time\(us\) +min\(us\) +max\(us\) +ci% +algbw\(GB/s\) +busbw\(GB/s\) +#wrong +limit\(GB/s\) +eff%' "$TEST_OUT" "--wide: every column, headings with units"
expect_grep '^# summary' "$TEST_OUT" "table has a summary"
expect_grep '^# +0 +' "$TEST_OUT" "header has a line per rank"
expect_grep 'backend mpi' "$TEST_OUT" "header names the backend"

# CSV: one header and one line per row
expect_success "csv output" np_host 2 --sweep 1K:4K --iters 2 --samples 2 --format csv --coll allreduce
lines=$(wc -l <"$TEST_OUT")
[ "$lines" -eq 3 ]
ok $? "csv has a header and 2 rows, 1K and 4K (got $lines lines)"
expect_grep '^coll,size,count,type,redop,root,inplace,time,' "$TEST_OUT" "csv header names metrics"
expect_grep '^coll,size,count,type,redop,root,inplace,time,.*,stop,run_id,backend,ranks,nodes$' "$TEST_OUT" \
	"csv header: the run's columns after the metrics"
expect_grep '^allreduce,4096,.*,[0-9a-f]{32},mpi,2,1$' "$TEST_OUT" "csv row: run id, backend, ranks and nodes"

# a linear step below a collective's granularity (allgather of float on
# 4 ranks: 16 B) measured one size twice, and compare refused the report
# as having two rows of one size: the repeated size is skipped with the
# step to use, and compare reads the report
expect_success "a step of 8 B of allgather on 4 ranks" np_host 4 --sweep 1024:1056:+8 --coll allgather --iters 1 --samples 1 \
	-J "$TEST_TMP/step.json" --output "$TEST_TMP/step.txt"
[ "$(grep -Ec '^ +10(24|40|56) ' "$TEST_TMP/step.txt")" -eq 3 ] && ! grep -Eq '^ +1032 ' "$TEST_TMP/step.txt"
ok $? "  each size measured once: 1024, 1040, 1056"
unwrap "$TEST_TMP/step.txt" | grep -q "^# skipped allgather 1.01 KiB: rounds to 1024 B, as the size before it, on 4 ranks (measured once); use a step of 16 B or more"
ok $? "  the repeated size is said in the table, with the step to use: $(grep skipped "$TEST_TMP/step.txt" | head -c 300)"
expect_success "  compare reads the report" np compare "$TEST_TMP/step.json" "$TEST_TMP/step.json"

# sizes that round to 0 elements are skipped with a note, not run
expect_success "tiny alltoall on 8 ranks" np_host 8 --sweep 8:64 --coll alltoall --iters 1 --samples 1 --format json
expect_grep '"reason": "rounds to 0 float elements per rank on 8 ranks' "$TEST_OUT" "size rounding to 0 elements is skipped with the reason"

# a size past the backend's largest count (MPI's int) is skipped with
# its reason, and a sweep of nothing else has nothing to run: exit 64
expect_code 64 "int8 all-reduce of 4 GiB on MPI: more elements than an int, exit 64" \
	np_host 2 --sweep 4G:4G --coll allreduce --dtype int8 --iters 1 --samples 1 --format json
expect_grep "^note: skipped allreduce 4 GiB: 4294967296 elements exceed the mpi backend's largest count \\(2147483647\\)" "$TEST_ERR" \
	"  skipped, with the count and the limit"
expect_grep '^error: nothing to run: every size of the sweep was skipped' "$TEST_ERR" "  and nothing to run"
# buffers larger than what each rank can have are skipped, never
# allocated: 15 GiB of doubles (a count within an int) on 8 ranks needs
# 30 GiB per rank, more than MemAvailable / 8 below 240 GiB free
avail=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB$/\1/p' /proc/meminfo 2>/dev/null)
if [ -n "$avail" ] && [ "$avail" -lt $((240 * 1024 * 1024)) ]; then
	expect_code 64 "double all-reduce of 15 GiB on 8 ranks: more than memory, exit 64" \
		np_host 8 --sweep 15G:15G --coll allreduce --dtype double --iters 1 --samples 1 --format json
	expect_grep '^note: skipped allreduce 15 GiB: needs 30 GiB of buffers per rank, [0-9.]+ [KMG]iB available on the tightest rank' \
		"$TEST_ERR" "  skipped, with what it needs and what there is"
else
	ok 0 "double all-reduce of 15 GiB on 8 ranks # SKIP ${avail:-unknown} kB available: too much to plant a shortage"
	ok 0 "  skipped, with what it needs and what there is # SKIP as above"
fi

# virtual nodes
expect_success "virtual nodes" np_host 4 --ranks-per-node 2 --sweep 1K --iters 1 --samples 1 --format json --output "$TEST_TMP/v.json"
python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["world"]; sys.exit(0 if w["nodes"]==2 and w["virtual_nodes"] and w["ranks_per_node"]==2 else 1)' "$TEST_TMP/v.json"
ok $? "4 ranks with --ranks-per-node 2 form 2 virtual nodes"
# from here on a planted slow rank is timed: apart from the other tests
# that judge timing
timing_alone
# per-rank times: rank 2 sleeps 10x each collective's time after it (a
# planted straggler of milliseconds), so its own time is the longest
NCCL_PROBE_TEST_SLOW=2:1000% NCCL_ALGO=Ring expect_success "per-rank times: a run with a slow rank 2" \
	np_host 4 --backend mpi --sweep 1M:4M:x2 --coll allreduce --iters 1 --samples 5 --warmup 1 \
	--format json --output "$TEST_TMP/slow.json"
python3 - "$TEST_TMP/slow.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
bad = [(r["size"], r["slow_rank"], r["slow_excess"]) for r in rows
       if r["slow_rank"] != 2 or not r["slow_excess"] > 1 or not r["slow_time"] > r["time"] / 2]
print("# rows that miss the slow rank:", bad)
sys.exit(1 if bad or len(rows) != 3 else 0)
PY
ok $? "per-rank times: every row names rank 2 as slowest, by more than 100%"
NCCL_PROBE_TEST_SLOW=2:1000% expect_success "per-rank times in the table" \
	np_host 4 --backend mpi --sweep 1M:4M:x2 --coll allreduce --iters 1 --samples 5 --warmup 1
expect_grep '^# slowest rank: 2 \(.*node 0\) in 3 of 3 rows' "$TEST_OUT" "the footer names rank 2 in 3 of 3 rows"
! grep -q '^#   its GPU' "$TEST_OUT"
ok $? "  the host backend uses no GPU: no clocks beside it"
python3 -c 'import json,sys; sys.exit(0 if all(r["gpu_clocks"] is None for r in json.load(open(sys.argv[1]))["ranks"]) else 1)' \
	"$TEST_TMP/slow.json"
ok $? "the host backend's ranks: gpu_clocks null in JSON"
python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))["nccl_env"]; print("# nccl_env:", e); sys.exit(0 if e.get("NCCL_ALGO") == "Ring" and not any(k.startswith("NCCL_PROBE_") for k in e) else 1)' \
	"$TEST_TMP/slow.json"
ok $? "nccl_env lists NCCL's variables (NCCL_ALGO), not nccl-probe's own (NCCL_PROBE_TEST_SLOW)"
done_testing
