#!/bin/sh
# SPDX-License-Identifier: MIT
# --output writes a whole file (temporary name, then rename); SIGINT
# mid-sweep keeps the finished rows, marks the JSON incomplete and exits
# non-zero; thresholds give the verdict exit code.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"

expect_success "json to a file" np_host 2 --sweep 1K:16K --iters 2 --samples 2 --format json --output "$TEST_TMP/a.json"
[ ! -s "$TEST_OUT" ]
ok $? "nothing on stdout with --output"
expect_success "the file is JSON" python3 -m json.tool "$TEST_TMP/a.json"
leftover=$(ls "$TEST_TMP" | grep -c '\.tmp\.')
[ "$leftover" -eq 0 ]
ok $? "no temporary file left behind"

expect_success "table to a file" np_host 2 --sweep 1K --iters 2 --samples 2 --output "$TEST_TMP/t.txt"
expect_grep '^# verdict: ok' "$TEST_TMP/t.txt" "table file is whole"

# SIGINT: run one process directly (MPI singleton) so the signal reaches it
"$NP_BIN" --backend mpi --sweep 8:256M:x2 --budget 1 --format json --output "$TEST_TMP/int.json" \
	>"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
sleep 3
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -ne 0 ]
ok $? "SIGINT mid-sweep exits non-zero (got $rc)"
python3 - "$TEST_TMP/int.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["complete"] is False and r["interrupted"] is True and len(r["results"]) >= 1
         and r["verdict"]["ok"] is False else 1)
PY
ok $? "the JSON file is whole, holds the finished rows and is marked incomplete"
grep -q 'interrupted' "$TEST_ERR"
ok $? "the interruption is reported"

# verdict thresholds
expect_code 1 "--min-busbw not met: exit 1" np_host 2 --sweep 1K --iters 1 --samples 1 --min-busbw 100000
expect_grep 'below --min-busbw' "$TEST_ERR" "the verdict says why"
expect_code 0 "--min-busbw met" np_host 2 --sweep 64K --iters 1 --samples 1 --min-busbw 0.000001
expect_code 1 "--min-eff with no known limit: exit 1" np_host 2 --sweep 1K --iters 1 --samples 1 --min-eff 50
expect_grep 'unknown' "$TEST_ERR" "the verdict says the limit is unknown"
done_testing
