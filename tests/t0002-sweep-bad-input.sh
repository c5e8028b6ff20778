#!/bin/sh
# SPDX-License-Identifier: MIT
# Every malformed or impossible input: exit 64 and one message that names
# the bad value.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"

# bad_input VALUE-IN-MESSAGE ARGS...: run on 1 rank (or $RANKS). One rank
# is the program started alone (MPI's singleton start): the options are
# refused the same way, without a launcher's two seconds each; the cases
# below with RANKS and the first one go through mpirun, end to end.
bad_input() {
	want=$1
	shift
	if [ "${RANKS:-1}" -eq 1 ] && [ -z "${LAUNCH:-}" ]; then
		expect_code 64 "rejects $* (exit 64)" "$NP_BIN" --backend mpi "$@"
	else
		expect_code 64 "rejects $* (exit 64)" np_host "${RANKS:-1}" "$@"
	fi
	grep -F -q -- "$want" "$TEST_ERR"
	ok $? "message for $* names '$want'"
	n=$(grep -c '^error:' "$TEST_ERR")
	[ "$n" -eq 1 ]
	ok $? "one error line for $* (got $n)"
}

LAUNCH=1 bad_input abc --sweep abc
bad_input 8G:1K --sweep 8G:1K
bad_input 0:1M --sweep 0:1M
bad_input 1Q --sweep 1Q
bad_input 99999999T --sweep 99999999T
bad_input :x1 --sweep :x1
bad_input 1K:1M:x1 --sweep 1K:1M:x1
bad_input 1K:1M:+0 --sweep 1K:1M:+0
bad_input bogus --coll bogus
bad_input bogus --dtype bogus
bad_input bogus --op bogus
bad_input -3 --iters -3
bad_input /nonexistent/x --output /nonexistent/x
bad_input --bogus --bogus
bad_input -Z -Z
bad_input xyz --backend xyz
bad_input xml --format xml
bad_input abc --timeout abc
bad_input 1:2T:+1 --sweep 1:2T:+1
# a sweep whose JSON compare could not read (9 x 10000 rows wrote 73 MB): refused up front
bad_input "has 90000 rows (9 collectives x 10000 sizes), more than the 20000 that compare reads; use a larger step or fewer --coll" --sweep 4:40000:+4 --coll all
bad_input "has 20001 rows (3 collectives x 6667 sizes)" --sweep 4:26668:+4 --coll allreduce,allgather,alltoall
expect_code 64 "a sweep of 20000 rows passes the option checks (stops at its --output)" \
	np_host 1 --sweep 4:40000:+4 --coll allreduce,allgather --output "$TEST_TMP/no/such/dir/x.json"
! grep -q rows "$TEST_ERR" && grep -q "no/such/dir" "$TEST_ERR"; ok $? "  refused for its --output alone: $(head -c 200 "$TEST_ERR")"
bad_input --sweep --sweep
bad_input stray stray
bad_input 1,x --gpu-map 1,x
bad_input "$TEST_TMP" --output "$TEST_TMP"
RANKS=4 bad_input "nothing to run" --sweep 8 --coll alltoall
bad_input 0 --budget 0
bad_input -1 --warmup -1
RANKS=4 bad_input 99 --root 99 --coll broadcast
RANKS=4 bad_input 4 --root 4
RANKS=4 bad_input 3 --ranks-per-node 3
bad_input '-c' -c 2
bad_input "'2'" --check=2
bad_input "8:1K:x 2" --sweep "8:1K:x 2"
bad_input x0x2 --sweep 8:1K:x0x2
bad_input 0x10 --timeout 0x10
bad_input 1e19 --timeout 1e19
bad_input "the largest is 8388607T" --maxbytes 9223372036854775807
bad_input "allreduce," --coll allreduce,
bad_input "allreduce,,alltoall" --coll allreduce,,alltoall
bad_input "drop -i" -f 2 -i 1K
bad_input "drop -b/--minbytes" -b 8 --sweep 1K:1M
bad_input "did you mean 80?" --min-eff 0.8
bad_input "allreduce is given twice" --min-eff allreduce=1,allreduce=2
bad_input 0x1p3 --max-regression 0x1p3
bad_input "-f/--stepfactor '1'" -f 1
! grep -q x1 "$TEST_ERR"
ok $? "-f 1: the message does not speak of x1"

expect_code 64 "unknown command" "$NP_BIN" frobnicate
grep -q "frobnicate" "$TEST_ERR"
ok $? "unknown command is named"

# nothing half-written: a rejected run leaves no output file
expect_code 64 "bad --dtype with --output" np_host 1 --dtype bogus --output "$TEST_TMP/x.json"
[ ! -e "$TEST_TMP/x.json" ] && [ -z "$(ls "$TEST_TMP" | grep 'x.json')" ]
ok $? "no output file written on a usage error"

# what people write: --format in capitals, a percentage with '%'
expect_success "--format JSON is taken" \
	np_host 1 --sweep 1K --coll allreduce --iters 1 --samples 1 -q --format JSON
expect_grep '"schema": "nccl-probe/sweep"' "$TEST_OUT" "  the report is JSON"
# (--help after them: exit 0 only when every option before it was taken)
expect_success "--min-eff 80% and --max-regression 5% are taken" \
	"$NP_BIN" --min-eff 80% --max-regression 5% --min-change 2% --help

expect_success "--help exits 0" np_host 1 --help
expect_grep '^usage: ' "$TEST_OUT" "--help prints usage"
expect_success "--version exits 0" "$NP_BIN" --version
expect_grep '^nccl-probe [0-9]' "$TEST_OUT" "--version prints the version"
done_testing
