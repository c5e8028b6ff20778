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

mpirun -np 3 --oversubscribe env TMPDIR="$D" "$NP_BIN" --backend mpi --sweep 1M:256M --timeout 60 \
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

# rank 0 killed by SIGKILL (as the OOM killer does) mid-sweep, with every
# output file named: the outputs' temporaries are made only at the end,
# when the report is written, so none is left beside them (the sweeps
# end at 256 MiB and measure a size for 0.1 s: the rows come sooner, and
# the rows after the kill last seconds)
O=$TEST_TMP/out
mkdir "$O"
NP_T0045_MARK=$TEST_TMP NCCL_PROBE_PROGRESS=0 mpirun -np 3 --oversubscribe "$NP_BIN" --backend mpi \
	--sweep 64K:256M --budget 0.1 --output "$O/table.txt" -J "$O/run.json" --csv "$O/run.csv" --metrics "$O/run.prom" \
	>"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
i=0
while [ "$i" -lt 600 ] && ! grep -q '^progress: row 4/' "$TEST_ERR"; do
	i=$((i + 1))
	sleep 0.1
done
victim=
for p in $(pgrep -f "$NP_BIN"); do
	env=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null)
	if printf '%s\n' "$env" | grep -qx 'OMPI_COMM_WORLD_RANK=0' &&
		printf '%s\n' "$env" | grep -qxF "NP_T0045_MARK=$TEST_TMP"; then
		victim=$p
	fi
done
[ -n "$victim" ] && [ -z "$(ls -A "$O")" ]
ok $? "3 rows measured (pid of rank 0 ${victim:-none}): no file yet beside the outputs"
[ -n "$victim" ] && kill -KILL "$victim"
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] && [ -z "$(ls -A "$O")" ]
ok $? "rank 0 killed by SIGKILL mid-sweep (exit $rc): no temporary left ($(ls -A "$O" | head -n 4 | tr '\n' ' '))"
expect_success "the same outputs of a whole run" mpirun -np 3 --oversubscribe "$NP_BIN" --backend mpi \
	--sweep 64K:256K --quiet --output "$O/table.txt" -J "$O/run.json" --csv "$O/run.csv" --metrics "$O/run.prom"
[ "$(ls "$O" | tr '\n' ' ')" = "run.csv run.json run.prom table.txt " ] && grep -q '^ *262144 ' "$O/table.txt"
ok $? "  are written whole, and nothing else ($(ls -A "$O" | tr '\n' ' '))"

# isolate likewise: its --output's temporary is made when it reports
rm -f "$O"/*
NP_T0045_MARK=$TEST_TMP mpirun -np 4 --oversubscribe --bind-to none "$NP_BIN" isolate --backend mpi \
	--ranks-per-node 1 --size 16K --budget 0.6 --format json --output "$O/iso.json" >"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
i=0
while [ "$i" -lt 600 ] && ! grep -q '^isolate: round 1:' "$TEST_ERR"; do
	i=$((i + 1))
	sleep 0.1
done
victim=
for p in $(pgrep -f "$NP_BIN"); do
	env=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null)
	if printf '%s\n' "$env" | grep -qx 'OMPI_COMM_WORLD_RANK=0' &&
		printf '%s\n' "$env" | grep -qxF "NP_T0045_MARK=$TEST_TMP"; then
		victim=$p
	fi
done
[ -n "$victim" ] && [ -z "$(ls -A "$O")" ] && kill -KILL "$victim"
ok $? "isolate: rank 0 (pid ${victim:-none}) killed by SIGKILL after round 1, no file yet"
wait "$pid"
[ -z "$(ls -A "$O")" ]
ok $? "  no temporary left ($(ls -A "$O" | head -n 4 | tr '\n' ' '))"

expect_success "a healthy run on 3 ranks" mpirun -np 3 --oversubscribe env TMPDIR="$D" "$NP_BIN" --backend mpi \
	--sweep 1K:64K --quiet
empty
ok $? "  leaves TMPDIR empty"
done_testing
