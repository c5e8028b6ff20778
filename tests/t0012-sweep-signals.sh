#!/bin/sh
# SPDX-License-Identifier: MIT
# Signals while a collective is stalled (test-only switch
# NCCL_PROBE_TEST_STALL=R: rank R never enters its first batch): SIGINT to
# a single process, SIGINT to mpirun (which sends its ranks SIGTERM), and
# a rank killed with SIGKILL. Each time the run ends within seconds, rank
# 0 writes the same whole, marked-incomplete report as an interrupt
# between batches, one line says so, and no temporary file is left.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"
# the ranks' scratch files (NCCL's log) go here, to be counted
mkdir "$TEST_TMP/scratch" && export TMPDIR="$TEST_TMP/scratch"

# wait_gone PID SECONDS: whether PID ended within SECONDS
wait_gone() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

# started: wait (at most 60 s) until rank 0 has begun its first row (its
# progress line, every row with NCCL_PROBE_PROGRESS=0), then 1 s more.
# Every rank installs its signal handlers before the job's first
# collective, which comes before that line; a fixed sleep was too short
# where start-up is slow (an AddressSanitizer build on a slow VM takes
# over 2 s), and a signal before the handlers is lost: a job started in
# the background by a shell without job control ignores SIGINT until
# then. (The report's temporary is made only at the end.)
NCCL_PROBE_PROGRESS=0
export NCCL_PROBE_PROGRESS
started() {
	i=0
	until grep -q '^progress: row 1/' "$TEST_ERR" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -gt 600 ] && break
		sleep 0.1
	done
	sleep 1
}

incomplete_json() { # FILE DESC
	python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["complete"] is False and r["interrupted"] is True and r["verdict"]["ok"] is False else 1)
PY
	ok $? "$2: the JSON report is whole and marked incomplete and interrupted"
}

no_tmp() { # DESC
	left=$(ls -A "$TEST_TMP" | grep -c '\.tmp\.')
	[ "$left" -eq 0 ]
	ok $? "$1: no temporary file left ($left)"
}

# 1. SIGINT to one process stalled before its collective
NCCL_PROBE_TEST_STALL=0 "$NP_BIN" --backend mpi --sweep 1K --format json --output "$TEST_TMP/a.json" \
	>"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
started "$TEST_TMP/a.json"
kill -INT "$pid"
wait_gone "$pid" 10
ok $? "SIGINT, one process: it ends within 10 s"
kill -KILL "$pid" 2>/dev/null
wait "$pid"
rc=$?
[ "$rc" -eq 130 ]
ok $? "SIGINT, one process: exit 130 (got $rc)"
incomplete_json "$TEST_TMP/a.json" "SIGINT, one process"
n=$(grep -c '^error: interrupted by signal 2 while a collective had not finished' "$TEST_ERR")
[ "$n" -eq 1 ]
ok $? "SIGINT, one process: one line says so (got $n)"
no_tmp "SIGINT, one process"

# 2. SIGINT to mpirun, rank 1 stalled: the ranks get SIGTERM
NCCL_PROBE_TEST_STALL=1 mpirun -np 3 --oversubscribe --bind-to none "$NP_BIN" --backend mpi \
	--sweep 1K --format json --output "$TEST_TMP/b.json" >"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
started "$TEST_TMP/b.json"
kill -INT "$pid"
wait_gone "$pid" 15
ok $? "SIGINT to mpirun: the job ends within 15 s"
kill -KILL "$pid" 2>/dev/null
wait "$pid"
incomplete_json "$TEST_TMP/b.json" "SIGINT to mpirun"
n=$(grep -c '^error: interrupted by signal 15 while a collective had not finished' "$TEST_ERR")
[ "$n" -eq 1 ]
ok $? "SIGINT to mpirun: one line from rank 0 says so (got $n)"
no_tmp "SIGINT to mpirun"

n=$(ls -A "$TEST_TMP/scratch" | grep -c '^nccl-probe')
[ "$n" -eq 0 ]
ok $? "no scratch file of nccl-probe left in TMPDIR ($n)"

# 3. a rank killed (SIGKILL) while the others wait for it
# (the ranks carry a mark of this test: other tests may run ranks too)
NP_T0012_MARK=$TEST_TMP NCCL_PROBE_TEST_STALL=1 mpirun -np 3 --oversubscribe --bind-to none \
	"$NP_BIN" --backend mpi --sweep 1K --format json --output "$TEST_TMP/c.json" \
	>"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
started "$TEST_TMP/c.json"
victim=
for p in $(pgrep -f "$NP_BIN"); do
	env=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null)
	if printf '%s\n' "$env" | grep -qx 'OMPI_COMM_WORLD_RANK=1' &&
		printf '%s\n' "$env" | grep -qxF "NP_T0012_MARK=$TEST_TMP"; then
		victim=$p
	fi
done
[ -n "$victim" ] && kill -KILL "$victim"
ok $? "killed rank 1 (pid ${victim:-none})"
wait_gone "$pid" 15
ok $? "a killed rank: the job ends within 15 s"
kill -KILL "$pid" 2>/dev/null
wait "$pid"
rc=$?
[ "$rc" -ne 0 ]
ok $? "a killed rank: mpirun exits non-zero ($rc)"
if [ -e "$TEST_TMP/c.json" ]; then
	incomplete_json "$TEST_TMP/c.json" "a killed rank"
	python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["verdict"]["exit_code"] != 3)' "$TEST_TMP/c.json"
	ok $? "a killed rank: the report says exit 3, as the message does, not 130"
else
	ok 0 "a killed rank: no report (rank 0 ended before it could write one)"
fi
no_tmp "a killed rank"
done_testing
