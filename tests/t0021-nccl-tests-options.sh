#!/bin/sh
# SPDX-License-Identifier: MIT
# nccl-tests' options: the ones that fit are taken with their nccl-probe
# meaning, the others are usage errors that name what to do; one run gives
# the table on standard output and JSON and CSV files (-J, --csv); progress
# shows under mpirun as plain lines.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort
command -v python3 >/dev/null || skip_all "python3 not found"

run1() { np_host 1 --sweep 8 --iters 1 --samples 1 -q "$@"; }
# the same run of the program alone (MPI's singleton start: a world of
# one rank, without a launcher's second each)
alone1() { "$NP_BIN" --backend mpi --sweep 8 --iters 1 --samples 1 -q "$@"; }

# accepted values: the run goes on
for a in "-g 1" "-t 1" "--ngpus 1" "-a 3" "--average=3" "-z 0" "-R 0" "--local-register 0" "-G 0"; do
	# shellcheck disable=SC2086
	expect_success "$a is accepted" alone1 $a
done
# nccl-tests' options nccl-probe has no row for: taken at nccl-tests' default
for a in "-m 1" "-N 1" "-p 0" "-y 0" "-C 0" "-S 0" "-x 0" "-x -1" "-D 0" "-V 16" "-M 0" \
	"-u 0" "-I 0" "-K 0" "-m1" "-u0x0" "--agg_iters 1" "--memory=0" "--device_cta_count 16"; do
	# shellcheck disable=SC2086
	expect_success "nccl-tests' default $a is taken" alone1 $a
done
expect_success "--version shows the version" np --version
expect_grep '^nccl-probe [0-9]' "$TEST_OUT" "--version prints it"

# bad_value VALUE-IN-MESSAGE ARGS...: exit 64, one error line naming it
bad_value() {
	want=$1
	shift
	expect_code 64 "$* is a usage error" run1 "$@"
	grep -F -q -- "$want" "$TEST_ERR"
	ok $? "the message for $* says '$want'"
	n=$(grep -c '^error:' "$TEST_ERR")
	[ "$n" -eq 1 ]
	ok $? "one error line for $* (got $n)"
}
# each refused option, its exit 64 and its message, is checked without a
# launcher in tests/unit/test_parse; two here end to end, under mpirun
bad_value "one GPU per rank: use mpirun -np N" -g 2
# -V is nccl-tests' --device_cta_count, not --version
bad_value "drop -V (--version shows the version)" -V 8
# collectives as nccl-tests spells them
expect_success "--coll all_reduce,reduce_scatter_perf runs" \
	np_host 2 --sweep 1K --iters 1 --samples 1 -q --coll all_reduce,reduce_scatter_perf
n=$(grep -c -E '^# (allreduce|reducescatter), ' "$TEST_OUT")
rows=$(grep -c -E '^ +1024 ' "$TEST_OUT")
[ "$n" -eq 2 ] && [ "$rows" -eq 2 ]
ok $? "both collectives have a heading and a row ($n, $rows)"
expect_success "-d f8e4m3 is fp8e4m3" run1 -d f8e4m3
expect_grep ' fp8e4m3 ' "$TEST_OUT" "the row's type is fp8e4m3"

# one run, three forms: the table on stdout, JSON and CSV files
expect_success "-J FILE and --csv FILE with the table" \
	np_host 2 --sweep 1K:64K --iters 3 --samples 2 -J "$TEST_TMP/r.json" --csv "$TEST_TMP/r.csv"
expect_grep '^# +size +count +type +redop +root +time +algbw +busbw +#wrong +eff% +pass$' "$TEST_OUT" \
	"the table is on standard output"
python3 - "$TEST_OUT" "$TEST_TMP/r.json" "$TEST_TMP/r.csv" <<'PY'
import csv, json, sys
# the default table: a heading per collective ("# allreduce, float, sum,
# out of place"), then rows in nccl-tests' order: size count type redop
# root time algbw busbw #wrong, then eff% and the verdict mark
table, coll = [], None
for l in open(sys.argv[1]):
    if l.startswith("# ") and "," in l and l[2:].split(",")[0].isalpha():
        coll = l[2:].split(",")[0]
    elif l.startswith(" "):
        table.append([coll] + l.split())
rep = json.load(open(sys.argv[2]))
rows = rep["results"]
crow = list(csv.DictReader(open(sys.argv[3])))
assert len(table) == len(rows) == len(crow) == 8, (len(table), len(rows), len(crow))
for t, j, c in zip(table, rows, crow):
    assert len(t) == 12, t
    # coll, size and the median time (table in us, 2 decimals below 100 us) of one measurement
    assert t[0] == j["coll"] == c["coll"], (t, j["coll"], c["coll"])
    assert int(t[1]) == j["size"] == int(c["size"])
    assert int(t[2]) == j["count"]
    us = j["time"] * 1e6
    assert abs(float(t[6]) - us) <= (0.006 if us < 100 else 0.06 if us < 10000 else 0.6), (t[6], j["time"])
    assert abs(float(t[8]) - j["busbw"]) <= 0.006, (t[8], j["busbw"])
    assert float(c["time"]) == j["time"]
    # the run's columns: the JSON's run record and world
    assert (c["run_id"], c["backend"], int(c["ranks"]), int(c["nodes"])) == (
        rep["run_id"], rep["backend"]["name"], rep["world"]["ranks"], rep["world"]["nodes"]), c
PY
ok $? "table, JSON and CSV hold the same rows and times; CSV's run_id, backend, ranks and nodes are the JSON's"
expect_code 64 "--json and --csv naming one file" run1 -J "$TEST_TMP/same" --csv "$TEST_TMP/same"
expect_grep "both name" "$TEST_ERR" "the message says both name it"
[ ! -e "$TEST_TMP/same" ]
ok $? "and nothing is written"
expect_code 64 "-J - (the table is on stdout)" run1 -J -
expect_code 64 "-J into a missing directory" run1 -J /nonexistent/r.json
expect_success "--format json --output and --csv together" \
	run1 --format json --output "$TEST_TMP/o.json" --csv "$TEST_TMP/o.csv"
[ -s "$TEST_TMP/o.json" ] && [ -s "$TEST_TMP/o.csv" ] && [ ! -s "$TEST_OUT" ]
ok $? "--format json --output as before, and the CSV beside it"

# progress under mpirun: stderr is a pipe, so plain lines
NCCL_PROBE_PROGRESS=0 expect_success "progress lines under mpirun" \
	np_host 2 --sweep 1K:4K --iters 1 --samples 1
n=$(grep -c '^progress: row [0-9]*/4: \(allreduce\|alltoall\) [0-9]* KiB, [0-3] more, [0-9.]* s elapsed$' "$TEST_ERR")
[ "$n" -eq 4 ]
ok $? "one progress line per row with NCCL_PROBE_PROGRESS=0 ($n)"
if grep -q "$(printf '\r')" "$TEST_ERR"; then false; else true; fi
ok $? "no carriage return in a log"
NCCL_PROBE_PROGRESS=0 expect_success "--quiet" np_host 2 --sweep 1K:4K --iters 1 --samples 1 -q
if grep -q '^progress:' "$TEST_ERR"; then false; else true; fi
ok $? "--quiet shows no progress"
expect_grep '^# summary: ' "$TEST_OUT" "--quiet keeps the summary"
expect_grep '^# verdict: ' "$TEST_OUT" "--quiet keeps the verdict"
if grep -q '^# nccl-probe ' "$TEST_OUT"; then false; else true; fi
ok $? "--quiet drops the header"
expect_code 1 "--quiet with a failing gate" np_host 2 --sweep 1K:4K --iters 1 --samples 1 -q --min-busbw 100000
expect_grep '^# verdict: .*below' "$TEST_OUT" "--quiet keeps the failed verdict"
expect_success "the default interval" np_host 2 --sweep 1K:4K --iters 1 --samples 1
n=$(grep -c '^progress:' "$TEST_ERR")
[ "$n" -le 1 ]
ok $? "a short run under the default interval shows at most one line ($n)"
done_testing
