#!/bin/sh
# SPDX-License-Identifier: MIT
# Nodes whose Slurm NodeName differs from their host name, under a real
# Slurm (tests/slurm-local.sh): three slurmd on this host, NodeNames
# npn-a, npn-b, npn-c, each with a NodeHostname of its own, while every
# rank's host name is this host's. validate in salloc with the real topo
# and isolate:
# - a topo failure planted on npn-b (a stand-in nccl-probe that fails
#   'topo' where SLURMD_NODENAME is npn-b and runs the real one
#   otherwise): topo's step, isolate's report and validate's JSON name
#   npn-a, npn-b, npn-c once each, never the host name as a node of its
#   own; the drain line and --drain act on the NodeName npn-b, which sinfo
#   shows drained, and on no other node;
# - rank 1 fails at start (test-only NCCL_PROBE_TEST_FAIL): its message
#   names the host, which runs all three nodes, so no node is named or
#   drained (exit 3, every node unknown), and the error says why.
# The launcher is mpirun inside the allocation (Open MPI starts its
# daemons with srun, one per node): srun --mpi=pmix cannot start a step on
# several slurmd of one host, whose PMIx plugins share one directory in
# /tmp per step.
# Skips without slurm-wlm unless NP_REQUIRE_SLURM=1.
. "$(dirname "$0")/lib.sh"
. "$srcdir/tests/slurm-local.sh"

slurm_require
command -v python3 >/dev/null || skip_all "python3 not found"

V="$srcdir/contrib/nccl-probe-validate"
host=$(hostname)
nodes="npn-a npn-b npn-c"

expect_success "Slurm starts: slurmd for $nodes on $host" slurm_start_nodes "$T/slurm" "$nodes" || {
	echo "1..$_np_n"
	exit 1
}
wait_state() {
	i=0
	while [ "$i" -lt 90 ]; do
		case $(slurm_state "$1") in $2) return 0 ;; esac
		sleep 1
		i=$((i + 1))
	done
	diag "$1: state '$(slurm_state "$1")', wanted '$2'"
	return 1
}
reason() { timeout 10 sinfo -h -N -n "$1" -o %E | head -n 1; }

# srun sets SLURMD_NODENAME; the host name is this host's on every node
timeout 60 srun -N3 -n3 sh -c 'echo "$SLURMD_NODENAME $(hostname)"' 2>"$TEST_ERR" | sort >"$T/names"
printf 'npn-a %s\nnpn-b %s\nnpn-c %s\n' "$host" "$host" "$host" >"$T/names.want"
cmp -s "$T/names" "$T/names.want"
ok $? "srun: each node's SLURMD_NODENAME its NodeName, its host name '$host'" || sed 's/^/#   /' "$T/names"

# the stand-in: topo fails on npn-b alone
cat >"$T/probe" <<EOF
#!/bin/sh
if [ "\$1" = topo ] && [ "\$SLURMD_NODENAME" = npn-b ]; then
	echo "error: GPU 3 is missing (planted on npn-b)"
	exit 1
fi
exec "$NP_BIN" "\$@"
EOF
chmod +x "$T/probe"
# val PROBE: validate in salloc on the three nodes with --drain
val() {
	timeout 300 salloc -N3 -n3 "$V" --nccl-probe "$1" --launcher mpirun --ppn 1 --backend mpi --size 16K \
		--min-effect 50 --timeout 60 --budget 240 --drain --out "$T/out" --json "$T/v.json" -- --budget 0.6
}
expect_code 1 "validate in salloc -N3, topo fails on npn-b, --drain: exit 1" val "$T/probe"
expect_grep "^bad: node npn-b: topo-error: topo: GPU 3 is missing" "$TEST_OUT" "  npn-b named bad"
[ "$(grep -c '^bad: node ' "$TEST_OUT")" -eq 1 ]
ok $? "  and no other node"
expect_grep "^drain: scontrol update NodeName=npn-b State=DRAIN Reason='nccl-probe: topo: GPU 3 is missing" \
	"$TEST_OUT" "  the drain line names the NodeName npn-b"
! grep -q -e "NodeName=$host" -e "node $host" "$TEST_OUT"
ok $? "  no line names the host name '$host' as a node"
expect_grep "^validate: drained npn-b\$" "$TEST_ERR" "  --drain drained npn-b"
wait_state npn-b 'drain*'
ok $? "  sinfo: npn-b $(slurm_state npn-b) ($(reason npn-b))"
s="$(slurm_state npn-a) $(slurm_state npn-c)"
case $s in
*drain* | *drng*) false ;;
*) true ;;
esac
ok $? "  npn-a and npn-c not drained ($s)"
# topo's step tagged its lines by NodeName
python3 - "$T/out/topo.out" <<'PY' >"$T/topo.check"
import sys
seen = sorted({l.split("\t")[1] for l in open(sys.argv[1]) if l.startswith("NPV-TOPO\t")})
print("ok" if seen == ["npn-a", "npn-b", "npn-c"] else "topo reported %r" % seen)
PY
[ "$(cat "$T/topo.check")" = ok ]
ok $? "  topo's step: one status per NodeName ($(cat "$T/topo.check"))"
python3 - "$T/out/isolate.json" "$T/v.json" "$host" <<'PY' >"$T/json.check"
import json, sys
iso, v, host = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
msgs = []
names = [n["name"] for n in iso["nodes"]]
if sorted(names) != ["npn-a", "npn-b", "npn-c"]:
    msgs.append("isolate names %r" % names)
if any(n.get("host") != host for n in iso["nodes"]):
    msgs.append("isolate hosts %r" % [n.get("host") for n in iso["nodes"]])
vn = [n["name"] for n in v["nodes"]]
if sorted(vn) != ["npn-a", "npn-b", "npn-c"] or v["nodes_total"] != 3:
    msgs.append("validate lists %r (nodes_total %r)" % (vn, v["nodes_total"]))
st = {n["name"]: n["state"] for n in v["nodes"]}
if st != {"npn-a": "ok", "npn-b": "topo-error", "npn-c": "ok"}:
    msgs.append("states %r" % st)
d = [n["drain"] for n in v["nodes"] if n["drain"]]
if len(d) != 1 or not d[0].startswith("scontrol update NodeName=npn-b "):
    msgs.append("drain %r" % d)
if v["exit_code"] != 1:
    msgs.append("exit_code %r" % v["exit_code"])
print("; ".join(msgs) or "ok")
PY
[ "$(cat "$T/json.check")" = ok ]
ok $? "  isolate's report and the JSON: npn-a, npn-b, npn-c once each, host '$host' beside ($(cat "$T/json.check"))"
timeout 10 scontrol update NodeName=npn-b State=RESUME
wait_state npn-b idle
ok $? "  npn-b resumed"

# rank 1 fails at start: its message names host '$host', which is no one node
NCCL_PROBE_TEST_FAIL=1 expect_code 3 "rank 1 fails at start: exit 3" val "$NP_BIN"
expect_grep "^error: isolate exit [0-9]*: .*host '$host' runs nodes npn-a, npn-b, npn-c, so no node is named" \
	"$TEST_ERR" "  the error says the host runs all three nodes"
! grep -q -e '^bad:' -e '^drain:' "$TEST_OUT"
ok $? "  no node named bad, no drain line"
! grep -q "^validate: drained" "$TEST_ERR"
ok $? "  nothing drained"
s="$(slurm_state npn-a) $(slurm_state npn-b) $(slurm_state npn-c)"
case $s in
*drain* | *drng*) false ;;
*) true ;;
esac
ok $? "  sinfo: no node drained ($s)"
python3 - "$T/v.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(not (r["exit_code"] == 3 and sorted((n["name"], n["state"]) for n in r["nodes"]) ==
              [("npn-a", "unknown"), ("npn-b", "unknown"), ("npn-c", "unknown")]))
PY
ok $? "  JSON: exit 3, each node once and unknown" || sed 's/^/#   /' "$T/v.json"
done_testing
