#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/bench/isolate-sim at a small scale: isolate's own planning and
# judging over simulated fleets of 64 nodes, 20 runs each (seconds). Its
# last line's format; a healthy fleet accuses nobody; a node 30% slow is
# found in every run, and nothing else is named; a bad link and two bad
# nodes likewise; the scenarios of real fleets (leaf switches, a busy
# leaf, congestion by round, communicator modes, bimodal batches, an
# intermittent link) name nobody healthy; bad options are exit 64.
. "$(dirname "$0")/lib.sh"
SIM=$top_builddir/tests/bench/isolate-sim
[ -x "$SIM" ] || skip_all "tests/bench/isolate-sim not built (make isolate-sim)"

LINE='^nodes=([0-9]+) runs=([0-9]+) false_accusations=([0-9]+) detected=([0-9]+) rounds_max=([0-9]+) inconclusive=([0-9]+) segments=([0-9]+)$'
# sim ARGS...: the last line's fields in $nodes $runs $fa $det $rmax $inc $seg
sim() {
	"$SIM" --nodes 64 --runs 20 --seed 7 "$@" >"$TEST_OUT" 2>"$TEST_ERR" || return $?
	tail -n 1 "$TEST_OUT" | grep -Eq "$LINE" || return 1
	set -- $(tail -n 1 "$TEST_OUT" | sed -E "s/$LINE/\\1 \\2 \\3 \\4 \\5 \\6 \\7/")
	nodes=$1 runs=$2 fa=$3 det=$4 rmax=$5 inc=$6 seg=$7
}

sim
ok $? "healthy fleet: the last line is nodes=N runs=R false_accusations=F detected=D rounds_max=M inconclusive=I segments=S"
[ "$nodes" = 64 ] && [ "$runs" = 20 ]
ok $? "  64 nodes, 20 runs (got $nodes, $runs)"
[ "$fa" = 0 ] && [ "$det" = 0 ]
ok $? "  nobody accused, nothing to find (got $fa, $det)"
[ "$rmax" -le 6 ]
ok $? "  at most 6 rounds (got $rmax)"

for l in 8 1; do
	sim --slow 30 --ranks-per-node "$l"
	ok $? "a node 30% slow, $l ranks per node: the last line"
	[ "$fa" = 0 ] && [ "$det" = 20 ] && [ "$rmax" -le 6 ]
	ok $? "  named alone in 20 of 20, nobody else, at most 6 rounds (got $det, $fa, $rmax)"
done
sim --slow 30 --fault link --ranks-per-node 1
[ "$fa" = 0 ] && [ "$det" = 20 ] && [ "$rmax" -le 6 ]
ok $? "a link 30% slow: named alone in 20 of 20 (got $det, $fa accusations, $rmax rounds)"
sim --slow 30 --fault two
[ "$fa" = 0 ] && [ "$det" -ge 19 ] && [ "$rmax" -le 6 ]
ok $? "two nodes 30% slow: both named in at least 19 of 20 (got $det, $fa accusations, $rmax rounds)"

# the scenarios of real fleets, 256 nodes (8 leaves of 32), 10 runs each,
# each with its own planted fault
scen() { sim --scenario "$@"; }
for sc in leaf leaf-shuffled leaf-rounds; do
	scen "$sc" --nodes 256 --runs 10
	[ "$fa" = 0 ] && [ "$det" = 10 ] && [ "$rmax" -le 6 ]
	ok $? "$sc: a node 10% slow named in 10 of 10, nobody else (got $det, $fa accusations, $rmax rounds)"
done
scen leaf-busy --nodes 256 --runs 10
[ "$fa" = 0 ] && [ "$det" = 10 ] && [ "$seg" = 10 ] && [ "$rmax" -le 6 ]
ok $? "leaf-busy: its leaf one segment finding in 10 of 10, none of its nodes named, the slow node named (got $seg, $fa, $det)"
# without --topology node order stands for the leaves: the busy leaf's
# 32 consecutive nodes are one segment, none of them named
scen leaf-busy --nodes 256 --runs 10 --no-topology
[ "$fa" = 0 ] && [ "$seg" = 10 ] && [ "$det" -ge 9 ] && [ "$rmax" -le 6 ]
ok $? "leaf-busy, leaves not given: one segment by node order in 10 of 10, nobody healthy named (got $seg, $fa, $det)"
for sc in modes bimodal; do
	scen "$sc" --nodes 256 --runs 10
	[ "$fa" = 0 ] && [ $((det + inc)) = 10 ] && [ "$rmax" -le 6 ]
	ok $? "$sc: nobody healthy named, each run names the planted or is inconclusive (got $det + $inc, $fa)"
done
scen intermittent --nodes 256 --runs 10
[ "$fa" = 0 ] && [ "$det" = 10 ]
ok $? "intermittent: the link named or noted in 10 of 10 (got $det, $fa accusations)"
"$SIM" --table --nodes 64 --runs 1 >"$TEST_OUT" 2>"$TEST_ERR"
[ $? -eq 0 ] && [ "$(grep -c '^| [a-z-]* | .* | 64 | 1 | ' "$TEST_OUT")" = 8 ]
ok $? "--table: a row for each of the 8 scenarios"
"$SIM" --table --fault node --runs 1 >"$TEST_OUT" 2>"$TEST_ERR"
[ $? -eq 64 ] && grep -q "^error: --table runs every scenario" "$TEST_ERR"
ok $? "--table with --fault: exit 64, one line"
"$SIM" --scenario leafy >"$TEST_OUT" 2>"$TEST_ERR"
[ $? -eq 64 ] && grep -q "^error: --scenario takes" "$TEST_ERR"
ok $? "an unknown --scenario: exit 64, one line"

"$SIM" --nodes 64 --runs 2 --fault slowish >"$TEST_OUT" 2>"$TEST_ERR"
[ $? -eq 64 ] && grep -q "^error: --fault takes" "$TEST_ERR"
ok $? "an unknown --fault: exit 64 and one line saying what it takes"
"$SIM" --nodes 1 >"$TEST_OUT" 2>"$TEST_ERR"
ok $(($? != 64)) "--nodes 1: exit 64"
done_testing
