#!/bin/sh
# SPDX-License-Identifier: MIT
# --timeout on a GPU whose stream never completes (test-only switch
# NCCL_PROBE_TEST_STALL=R:device): the watchdog aborts the communicator and
# the job exits 4 within timeout + 10 s, naming the collective, size, rank
# and host.
. "$(dirname "$0")/lib.sh"
have_nccl_build || skip_all "built without the NCCL backend"
have_gpu || skip_all "no GPU"

stalled() { # name, launcher...
	name=$1
	shift
	t0=$(date +%s)
	expect_code 4 "$name: exit 4" env NCCL_PROBE_TEST_STALL=0:device "$@" --backend nccl \
		--timeout 3 --sweep 1M --coll allreduce
	t=$(($(date +%s) - t0))
	[ "$t" -le 13 ]
	ok $? "$name: ended after $t s (timeout 3 s + 10 s at most)"
	expect_grep "allreduce of 1048576 B .*did not finish within 3 s" "$TEST_ERR" \
		"$name: the message names the collective, size and timeout"
	expect_grep "rank 0 on '[^']+'" "$TEST_ERR" "$name: the message names rank and host"
}

# the first CUDA and NCCL start of a machine that just booted can take
# longer than the 3 s timeout, which would then end the start-up, not the
# stalled collective: one short run first
"$NP_BIN" --backend nccl --sweep 8 --coll allreduce >/dev/null 2>&1
stalled "singleton" "$NP_BIN"
stalled "graph" "$NP_BIN" --graph
if have_mpirun; then
	stalled "mpirun" mpirun -np 1 --oversubscribe --bind-to none "$NP_BIN"
fi
done_testing
