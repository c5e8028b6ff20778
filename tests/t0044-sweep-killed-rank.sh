#!/bin/sh
# SPDX-License-Identifier: MIT
# A rank killed by SIGKILL (as the kernel's OOM killer does) during a
# host sweep on 3 ranks is named with its rank, host, pid and signal by
# the lowest rank alive on its host, not reported as a timeout or as an
# interrupt; a healthy run names no one.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
host=$(hostname)
# start ARGS...: a sweep on 3 host ranks in the background (its pid in
# $pid), its output files emptied first: the waits for a pid or a row
# below must not find the last run's (the background shell may open them
# after the wait has begun). The sweeps end at 256 MiB, not 1 GiB: each
# rank's buffers for the largest size are filled before the first row
# (2.7 s more for 1 GiB here), and the rows after the kill last seconds
# either way; the runs that wait for a row measure each size for 0.1 s
# (--budget), not the default 0.5.
start() {
	: >"$TEST_OUT"
	: >"$TEST_ERR"
	mpirun -np 3 --oversubscribe "$NP_BIN" --backend mpi "$@" >"$TEST_OUT" 2>"$TEST_ERR" &
	pid=$!
}
start --sweep 1M:256M --timeout 60
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
else
	expect_grep "rank 1 on '$host' \(pid $victim\) was killed by signal 9 \(SIGKILL, as the kernel's OOM killer sends" \
		"$TEST_ERR" "rank 1 killed: named with its host, pid and signal"
fi
# by one rank, the lowest alive on its host (rank 0's report closes with
# its own line about it, "rank 1 (pid N) ... exit 3")
n=$(grep -c "^error: rank [0-9]* on '[^']*': rank 1 on '$host' (pid $victim)" "$TEST_ERR")
[ "$n" -eq 1 ]
ok $? "  by one rank (got $n lines)" || sed 's/^/#   /' "$TEST_ERR" | head -8
! grep -q -e 'did not finish within' -e 'interrupted by signal' "$TEST_ERR"
ok $? "  not as a timeout or an interrupt"
[ "$rc" -ne 0 ]
ok $? "  the run fails (exit $rc)"
# wait_row SIZE: until the table in $TEST_OUT has the row of SIZE bytes
# (at most 60 s)
wait_row() {
	i=0
	while [ "$i" -lt 600 ] && ! grep -q "^ *$1 " "$TEST_OUT" 2>/dev/null; do
		i=$((i + 1))
		sleep 0.1
	done
}
# without --timeout: the message names the step the ranks were in (not
# "start-up": the step is named without a deadline too), and rank 0's
# report says exit 3, as the message does, not 130 ("interrupted")
start --sweep 64K:256M --budget 0.1 -J "$TEST_TMP/k.json"
wait_row 262144
victim=$(rank_pid 1 10)
[ -n "$victim" ] && kill -KILL "$victim"
ok $? "no --timeout: rank 1 killed after rows finished (pid $victim)"
wait "$pid"
rc=$?
diag "mpirun exit $rc"
grep -Eq "rank 1 on '$host' \(pid $victim\) (was killed by signal 9 \(SIGKILL|ended during)" "$TEST_ERR" &&
	! grep -q 'during start-up' "$TEST_ERR" && grep -Eq 'during (the end of )?(preparing |checking )?[a-z]+ of [0-9]+ B' "$TEST_ERR"
ok $? "  named during the step it was in, not start-up: $(grep -o 'during [^;]*' "$TEST_ERR" | head -1)"
python3 - "$TEST_TMP/k.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["verdict"]
sys.exit(0 if v["exit_code"] == 3 and any("rank 1" in r and "exit 3" in r for r in v["reasons"]) else 1)
PY
ok $? "  rank 0's report says exit 3 and names rank 1, not 130"
! grep -q 'interrupted by signal' "$TEST_ERR"
ok $? "  not said to be an interrupt"
# SIGTERM to one rank (not through mpirun): the ranks agree to stop, and
# rank 0 names the signal the other rank got, not "signal 0". Rank 1 has
# 0.6 s to reach the next agreement before its watchdog ends it alone (as
# when it is stuck in a collective); a loaded host can hold it longer, so
# this part runs apart from the tests that judge timing, and a run whose
# rank 1 ended alone (rank 0 then names it: "rank 1 (pid N) was
# interrupted (exit 130)", or "ended") is run again, at most twice
timing_alone
sigterm_try=0
while :; do
	start --sweep 64K:256M --budget 0.1
	wait_row 262144
	victim=$(rank_pid 1 10)
	[ -n "$victim" ] && kill -TERM "$victim"
	wait "$pid"
	diag "mpirun exit $?"
	grep -q '^error: interrupted by signal 15 on another rank after' "$TEST_ERR" ||
		! grep -q "rank 1 " "$TEST_ERR" || [ "$sigterm_try" -ge 2 ] && break
	sigterm_try=$((sigterm_try + 1))
	diag "rank 1 ended alone before the ranks agreed (a loaded host); run again"
	sed 's/^/#   /' "$TEST_ERR" | head -5
done
timing_done
grep -q '^error: interrupted by signal 15 on another rank after [0-9]* of [0-9]* rows' "$TEST_ERR" &&
	! grep -q 'signal 0' "$TEST_ERR"
ok $? "SIGTERM to rank 1: rank 0 says signal 15 on another rank, not signal 0" ||
	sed 's/^/#   /' "$TEST_ERR" | head -5
# rank 1 interrupted while rank 2 is stopped: rank 1 cannot reach the
# ranks' agreement and ends alone (exit 130); the launcher's SIGTERM to
# rank 0 follows, and rank 0 says the interrupt was rank 1's, not its
# own: in its collective, or, on a host so loaded that rank 0 had not
# begun to measure, before the first measurement (unless Open MPI reaped
# rank 1 before its status could be read: then rank 1 is named as ended,
# its status unknown)
start --sweep 64K:256M --budget 0.1
wait_row 262144
victim=$(rank_pid 1 10)
stopped=$(rank_pid 2 10)
if [ -n "$victim" ] && [ -n "$stopped" ]; then
	kill -STOP "$stopped"
	sleep 0.3
	kill -TERM "$victim"
	sleep 3
	kill -CONT "$stopped"
fi
wait "$pid"
rc=$?
diag "mpirun exit $rc"
grep -Eq "^error: interrupted by a signal on another rank.*rank 1 \(pid $victim\) was interrupted \(exit 130\) during |rank 1 on '$host' \(pid $victim\) ended during .*reaped before" "$TEST_ERR" &&
	! grep -q '^error: interrupted by signal 15' "$TEST_ERR" && [ "$rc" -ne 0 ]
ok $? "rank 1 interrupted alone (rank 2 stopped): rank 0 names rank 1's interrupt, not a signal of its own" ||
	sed 's/^/#   /' "$TEST_ERR" | head -8
expect_success "a healthy run on 3 ranks" mpirun -np 3 --oversubscribe "$NP_BIN" --backend mpi --sweep 1K:64K --quiet
! grep -q -e 'was killed' -e 'ended during' "$TEST_ERR"
ok $? "  names no one"
done_testing
