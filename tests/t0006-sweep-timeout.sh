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
	# rank 0 aborts the job without a report; when rank 0 is the one
	# stalled, mpirun's SIGTERM has it write the finished rows, marked
	[ ! -e "$TEST_TMP/out.txt" ] || { [ "$r" = 0 ] && grep -q '^# interrupted' "$TEST_TMP/out.txt"; }
	ok $? "stall $sw: no report, or rank 0's whole report marked interrupted"
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
done_testing
