#!/bin/sh
# SPDX-License-Identifier: MIT
# A rank killed by SIGKILL (as the OOM killer does) inside a real Slurm job
# step (tests/slurm-local.sh, one slurmd; srun with pmix where Slurm has
# it, else mpirun inside salloc): the rank is named with its rank, host,
# pid and signal, never as a timeout or an interrupt; the step fails; the
# node is not drained (a killed rank is the job's end, not a verdict on
# the node); a healthy step in the same allocation names no one.
# Skips without slurm-wlm unless NP_REQUIRE_SLURM=1.
. "$(dirname "$0")/lib.sh"
. "$srcdir/tests/slurm-local.sh"

slurm_require

node=$(slurm_node)

expect_success "Slurm starts: munged, slurmctld, slurmd on $node" slurm_start "$T/slurm" || {
	echo "1..$_np_n"
	exit 1
}
# the launcher: srun's pmix plugin where Slurm has one, else mpirun in the
# allocation
launch="mpirun -np 3 --oversubscribe"
if timeout 20 srun --mpi=list 2>&1 | grep -q pmix; then
	launch="srun --mpi=pmix -n 3 -O"
fi
diag "launcher: $launch"
# shellcheck disable=SC2086
timeout 240 salloc -N1 -n3 -O $launch "$NP_BIN" --backend mpi --sweep 1M:1G --timeout 60 \
	>"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
# rank 1's pid, from the table's rank lines
victim=$(rank_pid 1 600)
[ -n "$victim" ]
ok $? "the sweep in the job step names rank 1's pid ($victim)"
sleep 1
[ -n "$victim" ] && kill -KILL "$victim" 2>/dev/null
wait "$pid"
rc=$?
diag "salloc exit $rc"
# the signal is read from the dead rank's /proc entry before its parent
# (slurmstepd or orted) reaps it; where the parent wins, the rank is still
# named and its signal said to be unknown (t0044)
if grep -q "rank 1 on '[^']*' (pid $victim) ended during .*(its exit status was reaped before it could be read)" "$TEST_ERR"; then
	diag "rank 1 was reaped before its signal was read: named without it"
	ok 0 "rank 1 killed: named with its host and pid (signal unknown: reaped first)"
else
	expect_grep "rank 1 on '[^']*' \(pid $victim\) was killed by signal 9 \(SIGKILL, as the kernel's OOM killer sends" \
		"$TEST_ERR" "rank 1 killed: named with its host, pid and signal"
fi
! grep -q -e 'did not finish within' -e 'interrupted by signal' "$TEST_ERR"
ok $? "  not as a timeout or an interrupt"
[ "$rc" -ne 0 ]
ok $? "  the step fails (exit $rc)"
case $(slurm_state) in
drain* | drng*) false ;;
*) true ;;
esac
ok $? "  $node is not drained (sinfo: $(slurm_state))"
# shellcheck disable=SC2086
expect_success "a healthy step on 3 ranks" timeout 120 salloc -N1 -n3 -O $launch "$NP_BIN" --backend mpi \
	--sweep 1K:64K --quiet
! grep -q -e 'was killed' -e 'ended during' "$TEST_ERR"
ok $? "  names no one"
done_testing
