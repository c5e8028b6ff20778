#!/bin/sh
# SPDX-License-Identifier: MIT
# --timeout: a rank that stalls on purpose (test-only switch
# NCCL_PROBE_TEST_STALL) before a collective, or before its first one
# (start-up), makes the whole job exit 4 within timeout + 10 s; one line,
# from one rank, names the rank that did not arrive, its host (once it has
# reported, or by elimination at start-up) and the step, and no rank
# prints the generic "did not finish"; no temporary file is left.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
# the ranks' scratch files (NCCL's log) go here, to be counted
mkdir "$TEST_TMP/scratch" && export TMPDIR="$TEST_TMP/scratch"

# stalled SWITCH RANK WANT-RE: run 3 ranks with the switch, check the line
stalled() {
	sw=$1 r=$2 want=$3
	start=$(date +%s)
	NCCL_PROBE_TEST_STALL=$sw expect_code 4 "stall $sw: exit 4" \
		np_mpi 3 --backend mpi --sweep 1K --coll allreduce --timeout 2 --output "$TEST_TMP/out.txt"
	took=$(($(date +%s) - start))
	[ "$took" -le 12 ]
	ok $? "stall $sw: the job ended within timeout + 10 s (took $took s)"
	expect_grep "^error: rank $r $want within 2 s \(--timeout\)" "$TEST_ERR" \
		"stall $sw: the line names rank $r and the step"
	n=$(grep -c 'did not reach\|did not finish' "$TEST_ERR")
	[ "$n" -eq 1 ]
	ok $? "stall $sw: one line about it, not one per rank (got $n)"
	left=$(ls -A "$TEST_TMP" | grep -c 'out\.txt\.tmp\.')
	[ "$left" -eq 0 ]
	ok $? "stall $sw: no temporary left ($left)"
	# once measuring began, rank 0 writes the report of the rows that
	# finished, marked interrupted, before it aborts the job (when rank 0
	# is the one stalled, mpirun's SIGTERM has it write them); a stall at
	# start-up, before anything was measured, leaves no report
	case $sw in
	*:start) [ ! -e "$TEST_TMP/out.txt" ] ;;
	*) [ -s "$TEST_TMP/out.txt" ] && grep -q '^# interrupted' "$TEST_TMP/out.txt" ;;
	esac
	ok $? "stall $sw: rank 0's whole report marked interrupted (none at start-up)"
	rm -f "$TEST_TMP/out.txt"
}

stalled 1 1 "on '[^']+' did not reach allreduce of 1024 B \(batch of 1\)"
stalled 0 0 "on '[^']+' did not reach allreduce of 1024 B \(batch of 1\)"
# at start-up the stalled rank never reported: its host is the one short
# of the ranks its launcher started there
stalled 2:start 2 "on '[^']+' \(it never reported: the one host short of the ranks its launcher started\) did not reach start-up \(MPI_Init to the first collective\)"
stalled 0:start 0 "on '[^']+' \(it never reported: the one host short of the ranks its launcher started\) did not reach start-up \(MPI_Init to the first collective\)"

n=$(ls -A "$TEST_TMP/scratch" | grep -c '^nccl-probe')
[ "$n" -eq 0 ]
ok $? "no scratch file of nccl-probe left in TMPDIR ($n)"
expect_code 0 "no stall: the same run passes" np_mpi 3 --backend mpi --sweep 1K --coll allreduce --timeout 20 --iters 2 --samples 2
expect_code 64 "--timeout beyond a week is a usage error" np_host 1 --timeout 1e19
expect_grep "invalid --timeout '1e19'" "$TEST_ERR" "the message names the value"
# rows that finished before a hang are kept in the report, -J and --csv,
# marked interrupted, with exit 4 in the JSON's verdict
NCCL_PROBE_TEST_STALL=1@7 expect_code 4 "a stall after rows finished: exit 4" \
	np_mpi 3 --backend mpi --sweep 1K:64K --coll allreduce --iters 1 --samples 3 --timeout 2 \
	-J "$TEST_TMP/h.json" --csv "$TEST_TMP/h.csv" --output "$TEST_TMP/h.txt"
python3 - "$TEST_TMP/h.json" "$TEST_TMP/h.csv" "$TEST_TMP/h.txt" <<'PY'
import csv, json, sys
j = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
table = open(sys.argv[3]).read()
n = len(j["results"])
assert n >= 1 and len(rows) == n, (n, len(rows))
assert j["interrupted"] is True and j["complete"] is False
assert j["verdict"]["exit_code"] == 4 and any("timed out" in r for r in j["verdict"]["reasons"])
assert "# interrupted" in table
PY
ok $? "  the JSON, the CSV and the table hold the finished rows, marked interrupted, exit 4"
# rank 0 itself stalled after rows finished: another rank ends the job
# with exit 4 and mpirun's SIGTERM has rank 0 write its report, which
# says exit 4 (the job's), not 130 ("interrupted"), in the verdict and
# in --metrics
NCCL_PROBE_TEST_STALL=0@7 expect_code 4 "rank 0 stalled after rows finished: exit 4" \
	np_mpi 3 --backend mpi --sweep 1K:64K --coll allreduce --iters 1 --samples 3 --timeout 2 \
	-J "$TEST_TMP/h0.json" --metrics "$TEST_TMP/h0.prom"
python3 - "$TEST_TMP/h0.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["interrupted"] is True and len(j["results"]) >= 1
assert j["verdict"]["exit_code"] == 4 and any("timed out" in r for r in j["verdict"]["reasons"]), j["verdict"]
PY
ok $? "  rank 0's JSON says exit 4 and timed out"
grep -qx 'nccl_probe_exit_code{command="sweep"} 4' "$TEST_TMP/h0.prom" && ! grep -q 'interrupted by signal' "$TEST_ERR"
ok $? "  nccl_probe_exit_code is 4, and no line says interrupted"

done_testing
