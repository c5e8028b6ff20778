#!/bin/sh
# SPDX-License-Identifier: MIT
# compare A.json B.json: a planted 10% slowdown is "slower" and exit 1 (the
# regression gate), equal runs are "no significant difference" and exit 0,
# runs that cannot be compared are refused (exit 64) with the reason, bad
# files are one error with the byte offset; then two real host runs.
. "$(dirname "$0")/lib.sh"
# its failing runs under mpirun end on every rank by themselves
quick_abort

# mkrun FILE SEED FACTOR [KEY=VALUE...]: a sweep report shaped like the
# real one, allreduce and alltoall at 1K..1M (x4, six sizes each), 20
# sample times per row: a base time per size times uniform noise of
# +/- 5% (Park and Miller's generator seeded from SEED), times FACTOR at 256K and 1M (the
# largest quarter, "judged"). KEY=VALUE: ranks, backend, dtype, samples
# (of every row), env (one NCCL_* variable as NAME=VALUE), library.
mkrun() {
	awk -v seed="$2" -v factor="$3" -v kv="${4:-} ${5:-} ${6:-}" 'BEGIN {
		ranks = 2; backend = "mpi"; dtype = "float"; samples = 20; env = ""; lib = "Open MPI v4.1.4"
		n = split(kv, a, " ")
		for (i = 1; i <= n; i++) {
			k = substr(a[i], 1, index(a[i], "=") - 1); v = substr(a[i], index(a[i], "=") + 1)
			if (k == "ranks") ranks = v; else if (k == "backend") backend = v; else if (k == "dtype") dtype = v
			else if (k == "samples") samples = v; else if (k == "env") env = v; else if (k == "library") lib = v
		}
		x = seed * 100003 % 2147483647
		for (s = 0; s < 10; s++) # a small seed starts with small draws
			x = (x * 16807) % 2147483647
		printf "{\"schema\": \"nccl-probe/sweep\", \"schema_version\": 1, \"tool\": {\"name\": \"nccl-probe\", \"version\": \"0.1.0\"},\n"
		printf " \"backend\": {\"name\": \"%s\", \"library\": \"%s\", \"runtime\": null, \"mpi\": \"Open MPI v4.1.4\"},\n", backend, lib
		printf " \"world\": {\"ranks\": %d, \"nodes\": 1}, \"options\": {\"dtype\": \"%s\", \"judge_from\": 262144},\n", ranks, dtype
		if (env != "") { split(env, e, "="); printf " \"nccl_env\": {\"%s\": \"%s\"},\n", e[1], e[2] }
		else printf " \"nccl_env\": {},\n"
		printf " \"results\": ["
		split("allreduce alltoall", colls, " ")
		first = 1
		for (c = 1; c <= 2; c++)
			for (size = 1024; size <= 1048576; size *= 4) {
				base = 2e-6 + size / 2e9
				f = size >= 262144 ? factor : 1
				printf "%s\n  {\"coll\": \"%s\", \"size\": %d, \"type\": \"%s\", \"redop\": %s, \"root\": null, \"inplace\": false,", \
					(first ? "" : ","), colls[c], size, dtype, (c == 1 ? "\"sum\"" : "null")
				printf " \"time\": %.10g, \"busbw\": %.10g, \"samples\": %d, \"judged\": %s, \"sample_times\": [", \
					base * f, size / (base * f) / 1e9, samples, (size >= 262144 ? "true" : "false")
				for (s = 0; s < samples; s++) {
					x = (x * 16807) % 2147483647
					printf "%s%.10g", s ? ", " : "", base * f * (0.95 + 0.1 * x / 2147483647)
				}
				printf "]}"
				first = 0
			}
		printf "\n ]}\n"
	}' >"$1"
}

for seed in 1 2 3 4 5; do
	mkrun "$TEST_TMP/a$seed.json" "$seed" 1
	mkrun "$TEST_TMP/b$seed.json" "$((seed + 100))" 1.10
	expect_code 1 "planted 10% slowdown (seed $seed): exit 1" np compare "$TEST_TMP/a$seed.json" "$TEST_TMP/b$seed.json"
	cp "$TEST_OUT" "$TEST_TMP/out$seed.txt"
	n=$(grep -Ec '^(allreduce|alltoall) +(262144|1048576) .* slower$' "$TEST_TMP/out$seed.txt")
	[ "$n" -eq 4 ]
	ok $? "seed $seed: the four rows at 256K and 1M are slower ($n)"
	n=$(grep -Ec '^(allreduce|alltoall) +(1024|4096|16384|65536) .* not significant( \*)?$' "$TEST_TMP/out$seed.txt")
	[ "$n" -eq 8 ]
	ok $? "seed $seed: the eight smaller rows show no significant difference ($n)"
	n=$(grep -c '^error: regression: ' "$TEST_ERR")
	[ "$n" -eq 4 ]
	ok $? "seed $seed: the gate names the four slower rows ($n)"
done
expect_grep '^  allreduce: B is [0-9.]+% to [0-9.]+% slower from 256 KiB up \(B/A [0-9.]+, 95% CI [0-9.]+ to [0-9.]+\)$' "$TEST_TMP/out1.txt" \
	"summary: allreduce slower from 256 KiB up, the interval as it is"
grep -A1 '^  allreduce: B is' "$TEST_TMP/out1.txt" | grep -q '^    no difference below$'
ok $? "  and no difference below, on the next line"
python3 - "$TEST_TMP/out1.txt" <<'PY'
import re, sys
# the interval in words is the CI's: slower by 1 - hi to 1 - lo
m = re.search(r"allreduce: B is ([0-9.]+)% to ([0-9.]+)% slower .*95% CI ([0-9.]+) to ([0-9.]+)\)", open(sys.argv[1]).read())
lo, hi, clo, chi = map(float, m.groups())
sys.exit(0 if abs(lo - (1 - chi) * 100) < 0.06 and abs(hi - (1 - clo) * 100) < 0.06 and lo < hi else 1)
PY
ok $? "  the words give the CI's bounds"
# the estimate: B/A = 1/1.10 = 0.909, to within the noise
awk '/^allreduce +1048576 / { exit !($5 > 0.88 && $5 < 0.94) }' "$TEST_TMP/out1.txt"
ok $? "the estimated B/A speed at 1M is near 1/1.10 = 0.909"
expect_code 0 "--max-regression 20: a 10% slowdown passes the gate" \
	np compare --max-regression 20 "$TEST_TMP/a1.json" "$TEST_TMP/b1.json"
expect_grep ' slower$' "$TEST_OUT" "... and is still reported slower"
expect_code 1 "--max-regression 2: a 10% slowdown fails it" np compare --max-regression 2 "$TEST_TMP/a1.json" "$TEST_TMP/b1.json"
# a margin is passed only where the interval shows the row within it: B
# as fast as A but its sample times spread 0.4x to 1.6x is not
# significantly slower, yet it may be 20% slower: inconclusive (exit 6),
# one line a row, never a pass; with no margin the significance test alone
python3 - "$TEST_TMP/a1.json" "$TEST_TMP/wide.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for row in r["results"]:
    t = sorted(row["sample_times"])
    n = len(t)
    row["sample_times"] = [x * (0.4 + 1.2 * k / (n - 1)) for k, x in enumerate(t)]
json.dump(r, open(sys.argv[2], "w"))
PY
expect_code 6 "--max-regression 20, B's times spread 0.4x to 1.6x A's: inconclusive, exit 6" \
	np compare --max-regression 20 "$TEST_TMP/a1.json" "$TEST_TMP/wide.json"
expect_grep '^warning: inconclusive: allreduce at 1 MiB: B/A speed [0-9.]+ \(95% CI 0\.[0-9]+ to [0-9.]+\) may be slower than A by more than 20%' \
	"$TEST_ERR" "  one line names the row and its interval"
expect_code 6 "  the same as JSON: exit 6" \
	np compare --max-regression 20 --format json "$TEST_TMP/a1.json" "$TEST_TMP/wide.json"
python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(not (r["exit_code"] == 6 and any(x["undecided"] for x in r["rows"]) and not any(x["regression"] for x in r["rows"])))' <"$TEST_OUT"
ok $? "  its rows say undecided, none a regression, exit_code 6"
expect_code 0 "  with no margin (--max-regression 0): no significant difference, exit 0" \
	np compare "$TEST_TMP/a1.json" "$TEST_TMP/wide.json"

# --min-change: a change smaller than it is no difference, and no regression
expect_code 0 "--min-change 15: a 10% slowdown is no difference, exit 0" \
	np compare --min-change 15 "$TEST_TMP/a1.json" "$TEST_TMP/b1.json"
n=$(grep -Ec ' not significant( \*)?$' "$TEST_OUT")
[ "$n" -eq 12 ]
ok $? "  all 12 rows read no significant difference ($n)"
expect_code 1 "--min-change 8: the 10% slowdown is slower again" \
	np compare --min-change 8 "$TEST_TMP/a1.json" "$TEST_TMP/b1.json"
expect_code 64 "--min-change 100: usage" np compare --min-change 100 "$TEST_TMP/a1.json" "$TEST_TMP/b1.json"
expect_grep "^error: invalid --min-change '100'" "$TEST_ERR" "  one line that says what to give"

# B faster: A and B swapped
expect_code 0 "B 10% faster: exit 0" np compare "$TEST_TMP/b1.json" "$TEST_TMP/a1.json"
n=$(grep -Ec ' faster$' "$TEST_OUT")
[ "$n" -eq 4 ]
ok $? "the four large rows are faster ($n)"
expect_grep '^  alltoall: B is [0-9.]+% to [0-9.]+% faster from 256 KiB up' "$TEST_OUT" "summary: faster"

# same settings, other noise: no significant difference anywhere
for seed in 1 2 3; do
	mkrun "$TEST_TMP/c$seed.json" "$((seed + 200))" 1
	expect_code 0 "equal runs (seed $seed): exit 0" np compare "$TEST_TMP/a$seed.json" "$TEST_TMP/c$seed.json"
	n=$(grep -Ec ' not significant( \*)?$' "$TEST_OUT")
	[ "$n" -eq 12 ]
	ok $? "equal runs (seed $seed): no significant difference in all 12 rows ($n)"
done

# JSON output
expect_code 1 "--format json" np compare --format json "$TEST_TMP/a1.json" "$TEST_TMP/b1.json"
if command -v python3 >/dev/null; then
	python3 - "$TEST_OUT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rows = r["rows"]
ok = (r["schema"] == "nccl-probe/compare" and len(rows) == 12 and r["exit_code"] == 1
      and sum(x["result"] == "slower" and x["regression"] for x in rows) == 4
      and all(x["speed_lo"] <= x["speed"] <= x["speed_hi"] for x in rows)
      and [s["result"] for s in r["summary"]] == ["slower", "slower"])
sys.exit(0 if ok else 1)
PY
	ok $? "the JSON has 12 rows, 4 slower regressions, estimates inside their intervals, 2 slower summaries"
fi

# too few samples
mkrun "$TEST_TMP/few.json" 9 1 samples=2
expect_code 0 "2 samples a row: exit 0" np compare "$TEST_TMP/a1.json" "$TEST_TMP/few.json"
n=$(grep -c ' too few samples$' "$TEST_OUT")
[ "$n" -eq 12 ]
ok $? "2 samples a row: every row says too few samples ($n)"

# no samples at all ("sample_times": []): too few samples, nothing sorted
# (a sanitized build catches qsort(NULL, 0, ...))
sed 's/"sample_times": \[[^]]*\]/"sample_times": []/g' "$TEST_TMP/few.json" >"$TEST_TMP/nosamples.json"
grep -q '"sample_times": \[\]' "$TEST_TMP/nosamples.json" && ! grep -q '"sample_times": \[[0-9]' "$TEST_TMP/nosamples.json"
ok $? "a report whose rows have \"sample_times\": []"
expect_code 0 "no samples a row: exit 0" np compare "$TEST_TMP/a1.json" "$TEST_TMP/nosamples.json"
n=$(grep -c ' too few samples$' "$TEST_OUT")
[ "$n" -eq 12 ] && ! grep -q 'runtime error' "$TEST_ERR"
ok $? "no samples a row: every row says too few samples, no undefined behaviour ($n)"

# differences that do not prevent comparing are listed
mkrun "$TEST_TMP/env.json" 7 1 env=NCCL_ALGO=Ring library=NCCL-2.23.4
expect_code 0 "other NCCL_* variables and library: compared" np compare "$TEST_TMP/a1.json" "$TEST_TMP/env.json"
expect_grep "^# differs: NCCL_ALGO: A unset, B 'Ring'" "$TEST_OUT" "the NCCL variable is listed"
expect_grep "^# differs: library: A 'Open MPI v4.1.4', B 'NCCL-2.23.4'" "$TEST_OUT" "the library version is listed"
expect_grep "^note: A and B differ: NCCL_ALGO" "$TEST_ERR" "... and noted on stderr"

# refusals: exit 64 with the reason
mkrun "$TEST_TMP/r4.json" 1 1 ranks=4
expect_code 64 "different rank counts: refused" np compare "$TEST_TMP/a1.json" "$TEST_TMP/r4.json"
expect_grep "^error: cannot compare .*: A ran on 2 ranks and B on 4" "$TEST_ERR" "the reason names the rank counts"
mkrun "$TEST_TMP/nccl.json" 1 1 backend=nccl
expect_code 64 "different backends: refused" np compare "$TEST_TMP/a1.json" "$TEST_TMP/nccl.json"
expect_grep "^error: cannot compare .*: A ran on the mpi backend and B on the nccl backend" "$TEST_ERR" \
	"the reason names the backends"
mkrun "$TEST_TMP/half.json" 1 1 dtype=half
expect_code 64 "different data types: refused" np compare "$TEST_TMP/a1.json" "$TEST_TMP/half.json"
expect_grep "A's data type is float and B's half" "$TEST_ERR" "the reason names the data types"
# strings of a report reach the terminal escaped: ESC, CR and LF as \xNN,
# so that a report cannot clear the screen or forge a second error line
# (a backend name, a data type, a library version)
esc=$(printf '\033')
cr=$(printf '\r')
one_line_safe() { # FILE: every line of FILE free of ESC and CR, and no forged error line
	! grep -q "[$esc$cr]" "$1" && ! grep -q '^error: forged' "$1"
}
sed 's/"name": "mpi"/"name": "mpi\\u001b[2J\\u001b]0;pwned\\u0007\\r\\nerror: forged"/' "$TEST_TMP/a2.json" >"$TEST_TMP/hb.json"
expect_code 64 "a backend name with ESC, CR and LF: refused" np compare "$TEST_TMP/a1.json" "$TEST_TMP/hb.json"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && one_line_safe "$TEST_ERR" &&
	grep -qF 'B on the mpi\x1b[2J\x1b]0;pwned\x07\x0d\x0aerror: forged backend' "$TEST_ERR"
ok $? "  one error line, the name's controls as \\xNN: $(od -c "$TEST_ERR" | head -2 | tr -s ' ' | tr '\n' ' ')"
sed 's/"dtype": "float"/"dtype": "half\\r\\nerror: forged\\u001b[2J"/' "$TEST_TMP/a2.json" >"$TEST_TMP/hd.json"
expect_code 64 "a data type with CR, LF and ESC: refused" np compare "$TEST_TMP/a1.json" "$TEST_TMP/hd.json"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && one_line_safe "$TEST_ERR" && grep -qF "B's half\x0d\x0aerror: forged" "$TEST_ERR"
ok $? "  one error line, escaped"
sed 's/"library": "Open MPI v4.1.4"/"library": "v9\\r\\nerror: forged\\u009b2J\\u001b[31m"/' "$TEST_TMP/a2.json" >"$TEST_TMP/hl.json"
expect_code 0 "a library version with CR, LF, CSI and ESC: compared" np compare "$TEST_TMP/a1.json" "$TEST_TMP/hl.json"
one_line_safe "$TEST_OUT" && one_line_safe "$TEST_ERR" &&
	grep -qF "# differs: library: A 'Open MPI v4.1.4', B 'v9\x0d\x0aerror: forged\xc2\x9b2J\x1b[31m'" "$TEST_OUT" &&
	grep -qF "note: A and B differ: library: A 'Open MPI v4.1.4', B 'v9\x0d\x0aerror: forged\xc2\x9b2J" "$TEST_ERR" &&
	! grep -q "$(printf '\302\233')" "$TEST_OUT" "$TEST_ERR"
ok $? "  the difference is one line on stdout and on stderr, its controls (C1 CSI too) escaped"
sed 's/"alltoall"/"gather"/; s/"allreduce"/"broadcast"/' "$TEST_TMP/a2.json" >"$TEST_TMP/other.json"
expect_code 64 "no rows in common: refused" np compare "$TEST_TMP/a1.json" "$TEST_TMP/other.json"
expect_grep "no collective and size in common" "$TEST_ERR" "the reason says so"

# bad files: one line naming the file and the byte offset
head -c 700 "$TEST_TMP/a1.json" >"$TEST_TMP/trunc.json"
expect_code 64 "a truncated report: exit 64" np compare "$TEST_TMP/a1.json" "$TEST_TMP/trunc.json"
expect_grep "^error: '.*trunc.json' is not a valid JSON report: .* at byte [0-9]+; " "$TEST_ERR" "the message names the file and offset"
n=$(wc -l <"$TEST_ERR")
[ "$n" -eq 1 ]
ok $? "one line ($n)"
printf '{"schema": "nccl-probe/topo", "results": []}' >"$TEST_TMP/topo.json"
expect_code 64 "not a sweep report: exit 64" np compare "$TEST_TMP/topo.json" "$TEST_TMP/a1.json"
expect_grep "is not a sweep report" "$TEST_ERR" "the message says what the file is not"
sed 's/"size": 4096/"size": -4096/' "$TEST_TMP/a1.json" >"$TEST_TMP/neg.json"
expect_code 64 "a negative size: exit 64" np compare "$TEST_TMP/neg.json" "$TEST_TMP/a1.json"
expect_grep "results\[1\]: 'size' is not a positive whole number of bytes at byte [0-9]+" "$TEST_ERR" "the row and field are named"
sed 's/"coll": "alltoall"/"coll": "\\u001b[31mred"/' "$TEST_TMP/a1.json" >"$TEST_TMP/esc.json"
expect_code 64 "a collective name with a terminal escape: exit 64" np compare "$TEST_TMP/esc.json" "$TEST_TMP/a1.json"
expect_code 64 "a missing file: exit 64" np compare "$TEST_TMP/a1.json" "$TEST_TMP/none.json"
expect_code 64 "one file: usage" np compare "$TEST_TMP/a1.json"
expect_code 64 "three files: usage" np compare "$TEST_TMP/a1.json" "$TEST_TMP/a1.json" "$TEST_TMP/a1.json"
expect_code 64 "--max-regression 100: usage" np compare --max-regression 100 "$TEST_TMP/a1.json" "$TEST_TMP/a1.json"
expect_code 64 "--format csv: usage" np compare --format csv "$TEST_TMP/a1.json" "$TEST_TMP/a1.json"

# two real runs of the same settings on host memory. Their times differ
# from run to run on a shared machine (and may truly differ: the test
# of shift is exact about the samples, which do not see the machine's
# load from one run to the next), so this checks what cannot flake: every
# row is compared with one of the four words, exit 0 or 1, and a run
# compared with itself shows no difference at all.
if have_mpirun; then
	expect_success "real run A" np_host 2 --sweep 1K:1M --iters auto --quiet --format json --output "$TEST_TMP/ra.json"
	expect_success "real run B" np_host 2 --sweep 1K:1M --iters auto --quiet --format json --output "$TEST_TMP/rb.json"
	np compare "$TEST_TMP/ra.json" "$TEST_TMP/rb.json" >"$TEST_OUT" 2>"$TEST_ERR"
	rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
	ok $? "two real runs compare (exit $rc)"
	n=$(grep -Ec '^(allreduce|alltoall) +[0-9]+ .*(not significant|faster|slower|too few samples)' "$TEST_OUT")
	[ "$n" -eq 12 ]
	ok $? "all 12 rows (2 collectives x 6 sizes) are compared ($n)"
	diag "$(grep -Ec 'not significant( \*)?$' "$TEST_OUT") of 12 rows show no significant difference"
	# (a row whose samples are too few for the corrected level says so)
	expect_code 0 "a real run against itself: exit 0" np compare "$TEST_TMP/ra.json" "$TEST_TMP/ra.json"
	n=$(grep -Ec ' (not significant|too few samples)( \*)?$' "$TEST_OUT")
	[ "$n" -eq 12 ]
	ok $? "... no significant difference in all 12 rows ($n)"

	# the sweep's own regression gate: --baseline of a saved run, with
	# its times scaled so that the verdict does not depend on this host's
	# load (which moved a 1 KiB all-reduce from 10 us to 20 ms in one
	# run beside two busy loops): a baseline a billion times slower than
	# any run here passes every gate; one a billion times faster fails
	# --max-regression 99 in every row. (A million was once not enough: in
	# a loaded suite 7 of 8 rows were named. The gate names a row only when
	# even B's fastest batch is beyond the margin against A's median, and
	# load moves either run's times by thousands of times.)
	S="--sweep 1K:64K:x4 --iters 5 --samples 6"
	# shellcheck disable=SC2086
	expect_success "a saved run for the gate" np_host 2 $S --quiet -J "$TEST_TMP/gate.json"
	for f in 1e9:slowbase 1e-9:fastbase; do
		python3 - "$TEST_TMP/gate.json" "${f%%:*}" "$TEST_TMP/${f#*:}.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
k = float(sys.argv[2])
for row in r["results"]:
    for t in ("time", "time_min", "time_max", "slow_time"):
        if row.get(t) is not None:
            row[t] *= k
    for b in ("algbw", "busbw"):
        if row.get(b) is not None:
            row[b] /= k
    row["sample_times"] = [t * k for t in row["sample_times"]]
json.dump(r, open(sys.argv[3], "w"))
PY
	done
	# shellcheck disable=SC2086
	expect_success "--baseline a billion times slower: exit 0" \
		np_host 2 $S --baseline "$TEST_TMP/slowbase.json" --max-regression 99 -J "$TEST_TMP/g0.json"
	n=$(grep -Ec '^(allreduce|alltoall) +[0-9]+ .* faster$' "$TEST_OUT")
	[ "$n" -eq 8 ] && grep -q "^# compare A '$TEST_TMP/slowbase.json' and B 'this run'" "$TEST_OUT"
	ok $? "  the comparison follows the table: A the baseline, B this run, 8 rows faster ($n)"
	python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verdict"]; sys.exit(not (v["exit_code"] == 0 and v["ok"]))' \
		"$TEST_TMP/g0.json"
	ok $? "  its report says ok"
	# shellcheck disable=SC2086
	expect_code 1 "--baseline a billion times faster: exit 1" \
		np_host 2 $S --baseline "$TEST_TMP/fastbase.json" --max-regression 99 -J "$TEST_TMP/g1.json"
	n=$(grep -Ec '^error: regression: (allreduce|alltoall) at [0-9]+ KiB: B/A speed' "$TEST_ERR")
	[ "$n" -eq 8 ]
	ok $? "  every row is named on stderr ($n of 8)" || sed 's/^/#   /' "$TEST_ERR"
	python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verdict"]; sys.exit(not (v["exit_code"] == 1 and any("--baseline" in r for r in v["reasons"])))' \
		"$TEST_TMP/g1.json"
	ok $? "  its report carries the verdict: exit_code 1, the reason names --baseline"
	[ "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'nccl-probe-run.*' -newer "$TEST_TMP/gate.json" | wc -l)" -eq 0 ]
	ok $? "  no temporary report left behind"
	# the gate compares this run's rows in memory, read as its JSON report
	# gives them back: its table is compare's on the run's own -J report,
	# byte for byte (B named 'this run'), the NCCL_* variables included
	NCCL_ALGO=Ring
	export NCCL_ALGO
	# shellcheck disable=SC2086
	# (against the slowed copy of the saved run: against the run itself a
	# loaded host can make a row a hundred times slower and fail the gate)
	expect_success "--baseline of a run of this host, NCCL_ALGO set: exit 0" \
		np_host 2 $S --baseline "$TEST_TMP/slowbase.json" --max-regression 99 -J "$TEST_TMP/g2.json"
	unset NCCL_ALGO
	cp "$TEST_OUT" "$TEST_TMP/g2.out"
	cp "$TEST_ERR" "$TEST_TMP/g2.err"
	np compare "$TEST_TMP/slowbase.json" "$TEST_TMP/g2.json" 2>"$TEST_TMP/c2.err" |
		sed "s|B '$TEST_TMP/g2.json'|B 'this run'|" >"$TEST_TMP/c2.out"
	tail -n "$(wc -l <"$TEST_TMP/c2.out")" "$TEST_TMP/g2.out" | cmp -s - "$TEST_TMP/c2.out" &&
		grep -q "^# differs: NCCL_ALGO: A unset, B 'Ring'$" "$TEST_TMP/c2.out"
	ok $? "  its table is compare's on the run's own report, with NCCL_ALGO among the differences"
	[ "$(grep '^note: A and B differ: ' "$TEST_TMP/g2.err")" = "$(grep '^note: A and B differ: ' "$TEST_TMP/c2.err")" ]
	ok $? "  and so are its notes on stderr"
	# nothing is written for it: with TMPDIR a directory that does not
	# exist (where a temporary copy of the report could not be made) the
	# gate still runs
	# shellcheck disable=SC2086
	expect_success "--baseline with TMPDIR a directory that does not exist: exit 0" \
		mpirun -np 2 --oversubscribe --bind-to none env TMPDIR="$TEST_TMP/no-such-dir" "$NP_BIN" --backend mpi \
		$S --baseline "$TEST_TMP/slowbase.json" --max-regression 99
	n=$(grep -Ec '^(allreduce|alltoall) +[0-9]+ .* faster$' "$TEST_OUT")
	[ "$n" -eq 8 ] && [ ! -e "$TEST_TMP/no-such-dir" ] && ! grep -q '^error:' "$TEST_ERR"
	ok $? "  compared (8 rows faster), no error, no file"
	# shellcheck disable=SC2086
	expect_code 64 "--baseline of 3 ranks against 2: exit 64" \
		np_host 3 $S --baseline "$TEST_TMP/gate.json" --quiet
	expect_grep "^error: cannot compare '.*gate.json' and 'this run': A ran on 2 ranks and B on 3" "$TEST_ERR" \
		"  says why, after the sweep"
	# a baseline's strings reach the terminal escaped
	sed 's/"name": "mpi"/"name": "mpi\\r\\nerror: forged\\u001b[2J"/' "$TEST_TMP/gate.json" >"$TEST_TMP/hgate.json"
	grep -q 'forged' "$TEST_TMP/hgate.json"
	ok $? "  a baseline whose backend name has CR, LF and ESC"
	# shellcheck disable=SC2086
	expect_code 64 "--baseline with a hostile backend name: exit 64" \
		np_host 2 $S --baseline "$TEST_TMP/hgate.json" --quiet
	[ "$(grep -c '^error: cannot compare' "$TEST_ERR")" -eq 1 ] && one_line_safe "$TEST_ERR" && one_line_safe "$TEST_OUT" &&
		grep -qF 'A ran on the mpi\x0d\x0aerror: forged\x1b[2J backend' "$TEST_ERR"
	ok $? "  one line says why, the name escaped, no forged line"
	expect_code 64 "--baseline that is not a sweep report: exit 64 before the sweep" \
		np_host 2 --sweep 1K --baseline "$TEST_TMP/topo.json"
	expect_grep "^error: --baseline: '.*topo.json' is not a sweep report" "$TEST_ERR" "  one line naming it"
	[ "$(grep -c '^error:' "$TEST_ERR")" -eq 1 ] && ! grep -q '^ *allreduce' "$TEST_OUT"
	ok $? "  once, and no row ran"
	expect_code 64 "--baseline that does not exist: exit 64" np_host 2 --sweep 1K --baseline "$TEST_TMP/none.json"
	expect_grep "cannot read --baseline '.*none.json'" "$TEST_ERR" "  names it"
	expect_code 64 "--max-regression 100 on a sweep: exit 64" np_host 2 --sweep 1K --baseline "$TEST_TMP/gate.json" --max-regression 100
fi
# the table fits 100 columns; rows all noise-bound say so and point to tune
awk '!/^# compare A / && length($0) > 100 { bad = 1; print "# too wide: " $0 } END { exit bad }' "$TEST_TMP/out1.txt"
ok $? "the compare table fits 100 columns (all but the line naming the files)"
! grep -q 'noise-bound in A or B' "$TEST_TMP/out1.txt"
ok $? "  rows that converged: no noise note"
for x in a b; do
	sed 's/"judged": /"stop": "noise-bound", "judged": /g' "$TEST_TMP/${x}1.json" >"$TEST_TMP/${x}1n.json"
done
expect_code 1 "every row noise-bound" np compare "$TEST_TMP/a1n.json" "$TEST_TMP/b1n.json"
expect_grep "^# every row compared was noise-bound in A or B" "$TEST_OUT" "  says so"
expect_grep "use 'nccl-probe tune', which interleaves them" "$TEST_OUT" "  and points to tune's interleaved A/B"

done_testing
