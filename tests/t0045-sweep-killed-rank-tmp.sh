#!/bin/sh
# SPDX-License-Identifier: MIT
# NCCL's log file (NCCL_DEBUG_FILE, probes/nccl_log.c) leaves nothing in
# TMPDIR, however a rank ends: while a rank runs, its log is a file with
# no name (made in TMPDIR, unlinked at once) that NCCL_DEBUG_FILE reaches
# through /proc/self/fd/N; a rank killed by SIGKILL during a host sweep on
# 3 ranks, and a healthy run, leave TMPDIR empty. TMPDIR is given to the
# ranks alone (env), not to mpirun, whose session files are its own.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
[ -d /proc/self/fd ] || skip_all "no /proc/self/fd here"
D=$TEST_TMP/tmp
mkdir "$D"
empty() { [ -z "$(ls -A "$D")" ]; }

mpirun -np 3 --oversubscribe env TMPDIR="$D" "$NP_BIN" --backend mpi --sweep 1M:1G --timeout 60 \
	>"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
victim=$(rank_pid 1 300)
[ -n "$victim" ]
ok $? "the sweep's table names rank 1's pid ($victim)"
# rank 1 holds its NCCL log open: a file made in TMPDIR, already unlinked
l=$(for f in /proc/"$victim"/fd/*; do readlink "$f"; done 2>/dev/null | grep "^$D/nccl-probe-nccl\." | head -n 1)
case $l in
"$D/nccl-probe-nccl."*" (deleted)") true ;;
*) false ;;
esac
ok $? "  it holds NCCL's log open, a file made in TMPDIR and unlinked ('$l')"
empty
ok $? "  TMPDIR holds nothing while the ranks run ($(ls -A "$D" | head -n 3 | tr '\n' ' '))"
sleep 1
kill -KILL "$victim" 2>/dev/null
wait "$pid"
rc=$?
[ "$rc" -ne 0 ]
ok $? "rank 1 killed by SIGKILL: the run fails (exit $rc)"
empty
ok $? "  TMPDIR is empty after it ($(ls -A "$D" | head -n 3 | tr '\n' ' '))"

expect_success "a healthy run on 3 ranks" mpirun -np 3 --oversubscribe env TMPDIR="$D" "$NP_BIN" --backend mpi \
	--sweep 1K:64K --quiet
empty
ok $? "  leaves TMPDIR empty"
done_testing
