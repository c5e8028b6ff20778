#!/bin/sh
# SPDX-License-Identifier: MIT
# --check: every collective, data type and reduction gives exact results
# on 3 ranks (odd, so rings wrap unevenly), in and out of place; a wrong
# element is counted in #wrong, named per rank, and makes exit 2.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort

run() { np_mpi 3 --backend mpi --sweep 1K:64K:x64 --iters 1 --samples 1 --warmup 0 --format csv "$@"; }

# wrong_col FILE: the #wrong column of every row is 0, and there are rows
no_wrong() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wrong") c = i; next }
		 { rows++; if ($c != "0") bad++ } END { exit !(c && rows && !bad) }' "$TEST_OUT"
}

# the exact runs (one launch each, 0.8 s, mostly waiting on mpirun's
# start) go 3 at a time, each into its own files and with its own Open MPI
# session directory (two mpiruns that create one at once: one fails in
# orte_init, "mkdir .../ompi.HOST.UID: File exists"); then each is judged
# in order: it ran (exit 0) and has no wrong element
# cases: NAME|WHAT|ARGS, one a line
for t in int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 fp8e4m3 fp8e5m2; do
	echo "$t|$t: every collective, sum|--coll all --dtype $t --op sum"
done >"$TEST_TMP/cases"
for op in prod max min avg; do
	for t in int8 uint8 half bfloat16 float fp8e4m3; do
		echo "$t-$op|$t $op: reductions|--coll allreduce,reducescatter,reduce --dtype $t --op $op"
	done
done >>"$TEST_TMP/cases"
mkdir "$TEST_TMP/runs"
# shellcheck disable=SC2016 # expanded by the inner shell
cut -d'|' -f1,3 "$TEST_TMP/cases" | tr '|' '\n' | xargs -d '\n' -n 2 -P 3 sh -c '
	d=$1/$2
	mkdir "$d.ompi" && OMPI_MCA_orte_tmpdir_base=$d.ompi && export OMPI_MCA_orte_tmpdir_base
	# shellcheck disable=SC2086 # ARGS: several words
	mpirun -np 3 --oversubscribe --bind-to none "$0" --backend mpi --sweep 1K:64K:x64 --iters 1 --samples 1 \
		--warmup 0 --format csv $3 >"$d.out" 2>"$d.err"
	echo $? >"$d.rc"' "$NP_BIN" "$TEST_TMP/runs"
while IFS='|' read -r name what args; do
	d=$TEST_TMP/runs/$name
	rc=$(cat "$d.rc" 2>/dev/null || echo none)
	cp "$d.out" "$TEST_OUT" && cp "$d.err" "$TEST_ERR"
	[ "$rc" = 0 ]
	ok $? "$what" || { diag "exit $rc: $args"; _np_show; }
	no_wrong
	ok $? "${what%%:*}: no wrong element"
done <"$TEST_TMP/cases"
expect_success "in place: every collective that has the form" run --coll all --inplace --dtype int32 --root 2
no_wrong
ok $? "in place: no wrong element"
grep -q 'alltoall' "$TEST_ERR"
ok $? "in place: alltoall is skipped with a note"

# a corrupted input on rank 1 is caught, counted and named
NCCL_PROBE_TEST_CORRUPT=1 expect_code 2 "a wrong element makes exit 2" run --coll allreduce
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wrong") c = i; next } $c + 0 > 0 { n++ } END { exit !n }' "$TEST_OUT"
ok $? "#wrong counts the wrong elements"
grep -q "rank 1 on .*wrong" "$TEST_ERR"
ok $? "the wrong rank is named"
expect_code 0 "--no-check skips the check" env NCCL_PROBE_TEST_CORRUPT=1 \
	mpirun -np 3 --oversubscribe --bind-to none "$NP_BIN" --backend mpi --sweep 1K --iters 1 --samples 1 --no-check --coll allreduce --format csv
# every reason of a failed verdict is kept: nine collectives below the
# floor give nine verdict lines (the list held 8 and dropped the ninth)
expect_code 1 "every collective below --min-busbw: exit 1" np_host 2 --coll all --sweep 1K:2K --iters 1 \
	--samples 1 --min-busbw 1000 --format json --output "$TEST_TMP/all.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); v = d["verdict"]["reasons"]; \
assert len(v) == 9 and all("below --min-busbw" in x for x in v), v' "$TEST_TMP/all.json"
ok $? "  a reason per collective in the JSON, none dropped"
done_testing
