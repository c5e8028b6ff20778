#!/bin/sh
# SPDX-License-Identifier: MIT
# A rank killed by SIGKILL (as the kernel's OOM killer does) during a
# host sweep on 3 ranks is named with its rank, host, pid and signal by
# the lowest rank alive on its host, not reported as a timeout or as an
# interrupt; a healthy run names no one.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
host=$(hostname)
run() {
	mpirun -np 3 --oversubscribe "$NP_BIN" --backend mpi --sweep 1M:1G --timeout 60 >"$TEST_OUT" 2>"$TEST_ERR" &
	pid=$!
}
run
# rank 1's pid, from the table's rank lines
victim=$(rank_pid 1 300)
[ -n "$victim" ]
ok $? "the sweep's table names rank 1's pid ($victim)"
sleep 1
kill -KILL "$victim" 2>/dev/null
wait "$pid"
rc=$?
diag "mpirun exit $rc"
# the signal is read from the dead rank's /proc entry before its parent
# (Open MPI's orted) reaps it; on a loaded host the parent may win, and
# then the rank is still named, its signal said to be unknown
if grep -q "rank 1 on '$host' (pid $victim) ended during .*(its exit status was reaped before it could be read)" "$TEST_ERR"; then
	diag "the launcher reaped rank 1 before its signal was read: named without it"
	ok 0 "rank 1 killed: named with its host and pid (signal unknown: reaped first)"
	[ "$(grep -c 'ended during' "$TEST_ERR")" -eq 1 ]
	ok $? "  once"
else
	expect_grep "rank 1 on '$host' \(pid $victim\) was killed by signal 9 \(SIGKILL, as the kernel's OOM killer sends" \
		"$TEST_ERR" "rank 1 killed: named with its host, pid and signal"
	[ "$(grep -c 'was killed by signal' "$TEST_ERR")" -eq 1 ]
	ok $? "  once"
fi
! grep -q -e 'did not finish within' -e 'interrupted by signal' "$TEST_ERR"
ok $? "  not as a timeout or an interrupt"
[ "$rc" -ne 0 ]
ok $? "  the run fails (exit $rc)"
expect_success "a healthy run on 3 ranks" mpirun -np 3 --oversubscribe "$NP_BIN" --backend mpi --sweep 1K:64K --quiet
! grep -q -e 'was killed' -e 'ended during' "$TEST_ERR"
ok $? "  names no one"
done_testing
