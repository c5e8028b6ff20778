#!/bin/sh
# SPDX-License-Identifier: MIT
# --timeout: a rank that stalls on purpose (test-only switch) makes the
# whole job exit 4 within timeout + 10 s, naming the collective and size.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"

start=$(date +%s)
NCCL_PROBE_TEST_STALL=1 expect_code 4 "a stalled rank: exit 4" \
	np_mpi 3 --backend mpi --sweep 1K --coll allreduce --timeout 2
took=$(($(date +%s) - start))
[ "$took" -le 12 ]
ok $? "the job ended within timeout + 10 s (took $took s)"
expect_grep 'rank [0-9] on .*allreduce of 1024 B.*did not finish within 2 s' "$TEST_ERR" \
	"the message names rank, host, collective and size"
expect_code 0 "no stall: the same run passes" np_mpi 3 --backend mpi --sweep 1K --coll allreduce --timeout 20 --iters 2 --samples 2
done_testing
