#!/bin/sh
# SPDX-License-Identifier: MIT
# Malformed or impossible input end to end: exit 64 and one error line
# that names the bad value.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort

# Each malformed or impossible option, its exit 64 and its message, is
# checked without a launcher in tests/unit/test_parse (a parse, the files
# named, the checks on the world's size). Here a few end to end: the
# program prints one error line and exits 64, started alone (MPI's
# singleton start) and under mpirun on 1 and 4 ranks.

# bad_input VALUE-IN-MESSAGE ARGS...: through mpirun on $RANKS ranks
# (default 1), or the program alone with ALONE=1
bad_input() {
	want=$1
	shift
	if [ -n "${ALONE:-}" ]; then
		expect_code 64 "rejects $* (exit 64, the program alone)" "$NP_BIN" --backend mpi "$@"
	else
		expect_code 64 "rejects $* (exit 64, ${RANKS:-1} ranks under mpirun)" np_host "${RANKS:-1}" "$@"
	fi
	grep -F -q -- "$want" "$TEST_ERR"
	ok $? "message for $* names '$want'"
	n=$(grep -c '^error:' "$TEST_ERR")
	[ "$n" -eq 1 ]
	ok $? "one error line for $* (got $n)"
}

bad_input abc --sweep abc
ALONE=1 bad_input bogus --coll bogus
# found while running, on every rank alike: said once
RANKS=4 bad_input "nothing to run" --sweep 8 --coll alltoall
# a check on the world's size, made on every rank: said once
RANKS=4 bad_input 4 --root 4
# nothing half-written: a rejected run leaves no output file
bad_input bogus --dtype bogus --output "$TEST_TMP/x.json"
[ ! -e "$TEST_TMP/x.json" ] && [ -z "$(ls "$TEST_TMP" | grep 'x.json')" ]
ok $? "no output file written on a usage error"

expect_code 64 "unknown command" "$NP_BIN" frobnicate
grep -q "frobnicate" "$TEST_ERR"
ok $? "unknown command is named"

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
