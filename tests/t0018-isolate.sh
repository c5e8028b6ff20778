#!/bin/sh
# SPDX-License-Identifier: MIT
# nccl-probe isolate on virtual nodes with planted faults (test-only
# NCCL_PROBE_TEST_SLOW, _CORRUPT, _STALL, _FAIL): the bad node, network,
# link, two bad nodes, a slow fleet, slowness only at full scale, wrong
# data and a hang (in a round, or at start-up before the first
# collective) are named, nothing else is, and the rounds stay within the
# promise (2 when healthy unless noise asks for confirmation, at most 4
# more). The faults are large and --min-effect 50 keeps this host's noise
# out. A slow node, inside (every group of its rank) or seen only with
# others (:net, :link), sleeps 10 times each collective's own time
# (1000%), so that it stays 10 times its group's time when other jobs on
# this host's two cores make every collective slower: a fixed 20 ms was
# not: pairs of four ranks that took 16 ms each under one busy loop were
# only 2.5 times slower, and beside two busy loops 2 ranks alone took 10
# to 20 ms, so that a node slow inside by 20 ms was named 4 times in 12
# (and once, in a loaded test run, for its network); at 1000%, 9 in 10
# (the tenth inconclusive, which iso_again measures again). How small
# a fault is found, and how often a healthy node is accused, is
# tests/bench/isolate-accuracy.sh. A failure on every node is one error
# about the launch (exit 3; 2 for wrong data everywhere) that names no
# node.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"

# iso N L [ARGS...]: N virtual nodes of L ranks, unbound: the groups of
# virtual nodes take turns and the waiting ranks sleep, so the group that
# measures gets the host's cores (bound to a core in turn, two nodes of a
# pair could share one core: a "link" unlike the others)
iso() {
	n=$1 l=$2
	shift 2
	mpirun -np $((n * l)) --oversubscribe --bind-to none \
		"$NP_BIN" isolate --backend mpi --ranks-per-node "$l" --size 16K --budget "${ISO_BUDGET:-0.6}" \
		--min-effect 50 --timeout 60 --format json --output "$TEST_TMP/i.json" "$@"
}
# what the report names, one line each: node NAME STATE | link A-B | fleet | scale
# iso_again N L ARGS (a fault planted): iso, measured again, at most
# twice more, when its verdict is inconclusive (exit 6: other tests' load
# held an interval too wide to name the fault) or names nothing (exit 0);
# with ISO_WANT (the planted names, ';'-separated) a verdict naming some
# of them and nothing else is such a miss too. A slow link needs two
# confirmation rounds after its ends' own, within the four a run allows:
# under load the ends once took three. An operator would measure again;
# a name outside the planted ones is never measured again.
iso_again() {
	n_again=0
	while :; do
		iso "$@"
		rc=$?
		miss=0
		{ [ "$rc" -eq 6 ] || [ "$rc" -eq 0 ]; } && miss=1
		if [ "$rc" -eq 1 ] && [ -n "${ISO_WANT:-}" ]; then
			got=$(named | paste -sd';' -)
			miss=1
			[ "$got" != "$ISO_WANT" ] || miss=0
			old_ifs=$IFS
			IFS=';'
			for g in $got; do
				case ";$ISO_WANT;" in *";$g;"*) ;; *) miss=0 ;; esac
			done
			IFS=$old_ifs
		fi
		[ "$miss" -eq 1 ] && [ "$n_again" -lt 2 ] || return "$rc"
		n_again=$((n_again + 1))
		echo "isolate: a fault planted but not named (exit $rc), on this host's noise; measured again" >&2
	done
}
named() {
	python3 - "$TEST_TMP/i.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for n in r["nodes"]:
    if n["state"] != "ok":
        print("node %s %s" % (n["name"], n["state"]))
for l in r["links"]:
    print("link %s-%s" % (l["a"], l["b"]))
for k in ("fleet", "scale"):
    if r[k]:
        print(k)
PY
}
rounds() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rounds"])' "$TEST_TMP/i.json"; }
# check WANT DESC ROUNDS_MAX: the named set is exactly WANT (";"-separated)
# In a sanitized build (NP_SANITIZED, the memory-safety run of the same
# tests) every collective is several times slower and its timing is not
# the product's: the verdict and its rounds are reported, not judged.
check() {
	got=$(named | paste -sd';' -)
	r=$(rounds)
	if [ -n "${NP_SANITIZED:-}" ]; then
		ok 0 "  names exactly '$1' (got '$got') # SKIP sanitized build: timing not judged"
		ok 0 "  in $r rounds, at most $2 # SKIP sanitized build: timing not judged"
		return
	fi
	[ "$got" = "$1" ]
	ok $? "  names exactly '$1' (got '$got')"
	[ "$r" -le "$2" ]
	ok $? "  in $r rounds, at most $2"
}

# first what judges no timing: hangs, failures to start, wrong data on
# every node and usage errors (exit codes and their lines, beside any
# other test)
# a hang ends the job within the timeout and names the rank and the group
start=$(date +%s)
NCCL_PROBE_TEST_STALL=3 expect_code 4 "a hung node: exit 4" iso 4 1 --timeout 3
expect_grep "rank 3 on .*round 1, pair group" "$TEST_ERR" "  the stalled rank's step is named"
[ $(($(date +%s) - start)) -lt 30 ]
ok $? "  and the job ended soon after --timeout"
# a rank that stops before its first collective (start-up) ends the job
# too, within --timeout, named in one line with its host (the host short
# of a rank: every rank is on this one); rank 0 as well (rank 1 names it)
for r in 2 0; do
	start=$(date +%s)
	NCCL_PROBE_TEST_STALL=$r:start expect_code 4 "rank $r hung at start-up: exit 4" iso 4 1 --timeout 3
	took=$(($(date +%s) - start))
	# a sanitized build starts 4 ranks several times slower (once 14 s
	# in all): there the bound is 30 s past the timeout, still no hang
	slack=10
	[ -z "${NP_SANITIZED:-}" ] || slack=30
	[ "$took" -le $((3 + slack)) ]
	ok $? "  the job ended within timeout + $slack s (took $took s)"
	expect_grep "^error: rank $r on '[^']+' \\(it never reported: the one host short of the ranks its launcher started\\) did not reach start-up \\(MPI_Init to the first collective\\) within 3 s" \
		"$TEST_ERR" "  the line names rank $r, its host and the step"
	n=$(grep -c 'did not reach\|did not finish' "$TEST_ERR")
	[ "$n" -eq 1 ]
	ok $? "  one line about it, not one per rank (got $n)"
done

# a failure on every node is the launch's: one error, exit 3, nobody named
# (test-only NCCL_PROBE_TEST_FAIL: the MPI backend does not start)
rm -f "$TEST_TMP/i.json"
NCCL_PROBE_TEST_FAIL=all expect_code 3 "every rank fails to start: exit 3" iso 4 1 --timeout 20
expect_grep "^error: the mpi backend failed to start on every node \\(4 of 4\\), so the launch .*nobody is accused" \
	"$TEST_ERR" "  one error says the launch"
n=$(grep -c '^error: ' "$TEST_ERR")
[ "$n" -eq 1 ]
ok $? "  and it is the only one: no rank is named (got $n)"
[ ! -e "$TEST_TMP/i.json" ]
ok $? "  no report naming nodes"
NCCL_PROBE_TEST_FAIL=all:groups expect_code 3 "every group fails to start: exit 3" iso 5 1 --timeout 20
expect_grep "^error: no group could run in round 1 \\(all 3 failed, every node in one\\), so the launch .*nobody is accused" \
	"$TEST_ERR" "  one error says the launch"
n=$(grep -c '^error: ' "$TEST_ERR")
[ "$n" -eq 1 ]
ok $? "  and it is the only one: no group or node is named (got $n)"
[ ! -e "$TEST_TMP/i.json" ]
ok $? "  no report naming nodes"
NCCL_PROBE_TEST_CORRUPT=all expect_code 2 "every rank computes wrong data: exit 2" iso 4 1 --timeout 20
expect_grep "^error: every group of round 1 computed wrong data .*common to every node.*nobody is accused" \
	"$TEST_ERR" "  one error says the cause is common to every node"
n=$(grep -c '^error: ' "$TEST_ERR")
[ "$n" -eq 1 ]
ok $? "  and it is the only one (got $n)"
[ ! -e "$TEST_TMP/i.json" ]
ok $? "  no report naming nodes"
# some ranks, not every node: those ranks are named
NCCL_PROBE_TEST_FAIL=0,2 expect_code 3 "two of four ranks fail to start: exit 3" iso 4 1 --timeout 20
n=$(grep -Ec "^error: rank (0|2) on '[^']+': cannot start" "$TEST_ERR")
[ "$n" -eq 2 ]
ok $? "  each is named (got $n lines)"
# usage errors end on every rank by themselves: mpirun ends their jobs
# at once (quick_abort in lib.sh), not 2 s later
np_usage() { OMPI_MCA_odls_base_sigkill_timeout=0 np_mpi "$@"; }
printf 'SwitchName=leaf0 Nodes=other[1-4]\n' >"$TEST_TMP/elsewhere.conf"
expect_code 64 "--topology without this job's nodes: exit 64" np_usage 2 isolate --backend mpi --ranks-per-node 1 \
	--topology "$TEST_TMP/elsewhere.conf"
expect_grep "^error: --topology '.*' puts none of this job's nodes \(such as 'vnode0'\)" "$TEST_ERR" "  one line says so"
expect_code 64 "--topology missing: exit 64" np_usage 2 isolate --backend mpi --topology /nonexistent
expect_grep "cannot read --topology '/nonexistent'" "$TEST_ERR" "  names it"
expect_code 64 "one node: exit 64" np_usage 2 isolate --backend mpi --ranks-per-node 2
expect_grep "at least 2 nodes" "$TEST_ERR" "  says why"
expect_code 64 "bad --min-effect: exit 64" np_usage 2 isolate --backend mpi --min-effect 100
expect_code 64 "bad --size: exit 64" np_usage 2 isolate --backend mpi --size 0
expect_code 64 "bad --seed: exit 64" np_usage 2 isolate --backend mpi --seed -1
expect_grep "seed" "$TEST_ERR" "  the message names --seed"
expect_code 64 "missing --baseline: exit 64" np_usage 2 isolate --backend mpi --baseline /nonexistent

# a node computing wrong data is named for it (exit 2), and one whose
# groups cannot start for that (exit 1): neither is a verdict on timing
ISO_BUDGET=0.3
NCCL_PROBE_TEST_CORRUPT=6 expect_code 2 "a node computing wrong data: exit 2" iso 8 1
check "node vnode6 wrong-data" 6
ISO_BUDGET=
start=$(date +%s)
NCCL_PROBE_TEST_FAIL=2:groups expect_code 1 "one rank fails in its groups: the run ends, its node named" iso 4 1 --timeout 20
took=$(($(date +%s) - start))
[ "$took" -lt 20 ]
ok $? "  before --timeout (took $took s)"
check "node vnode2 could-not-run" 6

# from here on planted slow nodes and links are named and healthy ones
# are not: timing is judged, apart from the other tests that judge it
timing_alone

# healthy: nothing named, in 2 rounds or, when noise puts a figure below
# the fleet, up to 4 confirmation rounds more (they clear it); where the
# noise of many virtual nodes on two cores is wider than --min-effect,
# inconclusive (exit 6), never a name
TEST_REPORT=$TEST_TMP/i.json
for n in 2 8 16 32; do
	expect_unnamed "$n healthy virtual nodes: nobody named" iso "$n" 1
	check "" 6
	[ "$n" -eq 8 ] && cp "$TEST_TMP/i.json" "$TEST_TMP/healthy8.json"
done
# partners come from the run's seed, not from node numbers: its round-1
# pairs, which the same seed plans again (a link is seen where a pair
# crosses it: the slow link below is planted on one of them)
set -- $(python3 - "$TEST_TMP/healthy8.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
pairs = [f["group"] for f in r["figures"] if f["kind"] == "pair" and f["round"] == 1]
# two nodes that rounds 1 and 2 never pair (opposite each other)
met = {tuple(sorted(int(n[5:]) for n in f["group"])) for f in r["figures"]
       if f["kind"] == "pair" and f["round"] <= 2}
b = next(u for u in range(1, 8) if (0, u) not in met)
print(r["seed"], len(pairs), b)
PY
)
seed8=$1 opp=$3
[ -n "$seed8" ] && [ "$2" -eq 4 ] && [ -n "$opp" ]
ok $? "  8 nodes: 4 pairs in round 1, seed $seed8 reported in the JSON"
# 3 nodes: one pair per round, nothing measured beside it: only a floor
# judges (none here), and nothing is named
expect_unnamed "3 healthy virtual nodes: nobody named" iso 3 1
check "" 6
expect_unnamed "4 healthy nodes of 2 ranks: nobody named" iso 4 2
check "" 6
expect_grep '"kind": "alone"' "$TEST_TMP/i.json" "  each node is measured alone too"
# the slow link below is planted on a round-1 pair of 4 nodes: the same
# seed pairs 4 nodes of one rank as it paired these. Of 8 nodes, a link's
# two ends must each come out clearly fine with two new partners before
# the link is measured again (rounds 2 and 3), then below twice (4 and
# 5): one healthy figure whose interval reached below --min-effect (8
# ranks time-sliced on two cores: 14 figures in 56; of 4 nodes, 1 in 20)
# left the link unnamed in 6 rounds in 6 of 11 runs on a quiet host; of
# 4 nodes, in 2 of 32 (then iso_again measures again)
set -- $(python3 - "$TEST_TMP/i.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
pairs = [f["group"] for f in r["figures"] if f["kind"] == "pair" and f["round"] == 1]
print(r["seed"], pairs[0][0][5:], pairs[0][1][5:], len(pairs))
PY
)
seed4=$1 link_a=$2 link_b=$3
[ -n "$seed4" ] && [ "$4" -eq 2 ]
ok $? "  4 nodes: 2 pairs in round 1, seed $seed4 reported in the JSON"

# the planted faults are 10 times their group's time: 0.3 s of samples
# per figure shows them (a healthy figure's noise needs the 0.6 above)
ISO_BUDGET=0.3
NCCL_PROBE_TEST_SLOW=4:1000% expect_verdict 1 "a slow node (inside): exit 1" iso_again 4 2
check "node vnode2 bad-inside" 6
NCCL_PROBE_TEST_SLOW=2:1000%:net expect_verdict 1 "a node slow only with others (its network): exit 1" iso_again 8 1
check "node vnode2 bad-network" 6
NCCL_PROBE_TEST_SLOW=$link_a:1000%:link=$link_b expect_verdict 1 "a slow link: exit 1" iso_again 4 1 --seed "$seed4"
lo=$link_a hi=$link_b
[ "$lo" -lt "$hi" ] || { lo=$link_b; hi=$link_a; }
check "link vnode$lo-vnode$hi" 6
ISO_WANT="node vnode0 bad-network;node vnode$opp bad-network" NCCL_PROBE_TEST_SLOW=0:1000%:net,$opp:1000%:net \
	expect_verdict 1 "two bad nodes opposite each other: exit 1" iso_again 8 1 --seed "$seed8"
check "node vnode0 bad-network;node vnode$opp bad-network" 6
unset ISO_WANT
NCCL_PROBE_TEST_SLOW=2:1000% expect_verdict 1 "odd count, 5 nodes, a slow node: exit 1" iso_again 5 2
check "node vnode1 bad-inside" 6
NCCL_PROBE_TEST_SLOW=2:1000%:net expect_verdict 1 "odd count, 5 nodes, a bad network: exit 1" iso_again 5 2
check "node vnode1 bad-network" 6

ISO_BUDGET=

# floors from a known-good run (--baseline)
# (--min-effect 90: floors a tenth of what this run saw, above the noise of
# a shared host between runs)
expect_verdict 0 "a known-good run for the baseline" iso 4 1 --min-effect 90
cp "$TEST_TMP/i.json" "$TEST_TMP/base.json"
expect_grep '"floor_busbw"' "$TEST_TMP/base.json" "  it carries a floor for its node type"
# The planted faults below bring busbw to 0.0012 GB/s at most (20 ms per
# 16 KiB all-reduce); a quiet host measures about 0.4 here, and the
# baseline's floors come out at a tenth of that (--min-effect 90). But
# this host's speed moves with its load: a baseline taken while other jobs
# spun on its two cores came out under the faults themselves, and healthy
# pairs measured under such load fell below a quiet baseline's floor (the
# full-scale case was named 'fleet'). The floors the faulted runs are
# judged against are set to 0.003 GB/s, 2.5x above the faults and 100x
# below a quiet host, so that the test judges isolate and not the host's
# load while the baseline or the faulted run ran.
python3 - "$TEST_TMP/base.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for b in r["baseline"]:
    print("# baseline measured: floor %.3g, world floor %.3g GB/s" % (b["floor_busbw"], b["world_floor_busbw"]))
    b["floor_busbw"] = 0.003
    b["world_floor_busbw"] = 0.003
json.dump(r, open(sys.argv[1], "w"))
PY
ok $? "  its floors set to 0.003 GB/s (written back on one line, as other programs write JSON)"
NCCL_PROBE_TEST_SLOW=0:20000,1:20000,2:20000,3:20000 \
	expect_verdict 1 "the whole fleet slow, against the baseline: exit 1" iso 4 1 --baseline "$TEST_TMP/base.json"
check "fleet" 6
NCCL_PROBE_TEST_SLOW=0:20000:scale expect_verdict 1 "slow only at full scale: exit 1" \
	iso 4 1 --baseline "$TEST_TMP/base.json"
check "scale" 2

# the table
TEST_REPORT=
expect_unnamed "table output" mpirun -np 4 --oversubscribe --bind-to none \
	"$NP_BIN" isolate --backend mpi --ranks-per-node 1 --size 16K --budget 0.2 --min-effect 50
expect_grep '^verdict: (ok|inconclusive), 4 nodes, [0-9]+ rounds' "$TEST_OUT" "  the verdict line"
expect_grep '^# partners: a random order, seed [0-9]+ ' "$TEST_OUT" "  the header gives the seed"
# --topology: Slurm's topology.conf gives each node's leaf switch
printf '# two leaves and a spine\nSwitchName=leaf0 Nodes=vnode[0-1]\nSwitchName=leaf1 Nodes=vnode[2-3]\nSwitchName=spine Switches=leaf[0-1]\n' \
	>"$TEST_TMP/topology.conf"
expect_unnamed "--topology: table output" mpirun -np 4 --oversubscribe --bind-to none \
	"$NP_BIN" isolate --backend mpi --ranks-per-node 1 --size 16K --budget 0.2 --min-effect 50 \
	--topology "$TEST_TMP/topology.conf"
expect_grep '^# leaves: 2 switches from --topology, 4 of 4 nodes on them' "$TEST_OUT" "  the header says the leaves"
expect_grep '^verdict: (ok|inconclusive), 4 nodes' "$TEST_OUT" "  a healthy fleet: no segment, nobody named"
expect_unnamed "--topology: JSON" iso 4 1 --topology "$TEST_TMP/topology.conf"
python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); sys.exit(not ("segment" in r and r["segment"] is None))' \
	"$TEST_TMP/i.json"
ok $? "  the JSON's segment is null"
python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))
sys.exit(not all(f["segment"] is False for f in r["figures"]))' "$TEST_TMP/i.json"
ok $? "  no figure counts against a segment, each says so"
# timing is judged no more: the next test that judges it may start
timing_done

# --baseline's usage errors
head -c 40 "$TEST_TMP/base.json" >"$TEST_TMP/cut.json"
expect_code 64 "a truncated baseline: exit 64" iso 4 1 --baseline "$TEST_TMP/cut.json"
expect_grep "^error: --baseline: .*cut.json" "$TEST_ERR" "  one line naming the file"
expect_code 64 "a baseline of another node type: exit 64" iso 2 2 --baseline "$TEST_TMP/base.json"
expect_grep "no floor for nodes of type 'host memory x2'" "$TEST_ERR" "  the message names the type"
done_testing
