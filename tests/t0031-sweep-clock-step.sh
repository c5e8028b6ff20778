#!/bin/sh
# SPDX-License-Identifier: MIT
# --timeout across a step of the wall clock (at boot, when prologs run):
# with the wall clock an hour behind or ahead of the kernel's (a preloaded
# fault, tests/unit/clock_step.c), a healthy run is not timed out at once
# and a stalled rank is still named within timeout + 10 s; the watchdog's
# deadlines are on the monotonic clock.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
STEP=$top_builddir/tests/unit/libclockstep.so
[ -f "$STEP" ] || skip_all "$STEP not built"

stepped() { # seconds, command...
	s=$1
	shift
	env LD_PRELOAD="$STEP" NP_TEST_CLOCK_STEP="$s" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}

for s in -3600 3600; do
	expect_success "wall clock $s s off: a healthy run is not timed out" \
		stepped "$s" mpirun -np 2 --oversubscribe --bind-to none "$NP_BIN" --backend mpi \
		--sweep 1K:64K --iters 2 --samples 2 --timeout 20
	start=$(date +%s)
	expect_code 4 "wall clock $s s off: a stalled rank: exit 4" \
		stepped "$s" env NCCL_PROBE_TEST_STALL=1 mpirun -np 2 --oversubscribe --bind-to none \
		"$NP_BIN" --backend mpi --sweep 1K --coll allreduce --timeout 2
	took=$(($(date +%s) - start))
	[ "$took" -le 12 ]
	ok $? "  within timeout + 10 s (took $took s)"
	expect_grep "^error: rank 1 .*did not reach allreduce" "$TEST_ERR" "  the line names rank 1"
done

done_testing
