#!/bin/sh
# SPDX-License-Identifier: MIT
# The operator's cases under a real Slurm (tests/slurm-local.sh): no
# healthy node is drained, no planted fault passes, nothing outside the
# run is written or executed.
# - validate with a reused --out holding a previous verdict that names
#   this node, and a launcher argument srun refuses: exit 3, no old
#   verdict printed, the node not drained (--drain);
# - hostile node names in isolate's report (a stand-in nccl-probe writes
#   it, a stand-in mpirun runs it here): the drain lines are shell-safe
#   (pasted into sh they run nothing planted and pass each name as one
#   word), --drain drains exactly this node and refuses the others;
# - the prolog run by slurmd for an --exclusive job: a launcher argument mpirun refuses does
#   not drain; a stand-in nvidia-smi that fails or hangs drains the node.
# Skips without slurm-wlm unless NP_REQUIRE_SLURM=1.
. "$(dirname "$0")/lib.sh"
. "$srcdir/tests/slurm-local.sh"

slurm_require
command -v python3 >/dev/null || skip_all "python3 not found"

V="$srcdir/contrib/nccl-probe-validate"
node=$(slurm_node)

# the prolog as a site installs it; it runs when $T/prolog.on exists
cat >"$T/prolog.conf" <<EOF
NP_BIN=$NP_BIN
NP_DRAIN=1
NP_GDR=no
NP_FLOORS=$T/floors
NP_TIMEOUT=5
EOF
echo 'host memory x2 = 100000' >"$T/floors"
cat >"$T/prolog" <<EOF
#!/bin/sh
ASAN_OPTIONS='$ASAN_OPTIONS'; export ASAN_OPTIONS
[ -f "$T/prolog.on" ] || exit 0
NCCL_PROBE_PROLOG_CONF=$T/prolog.conf exec "$srcdir/contrib/slurm/prolog-nccl-probe" >>"$T/prolog.log" 2>&1
EOF
chmod +x "$T/prolog"

expect_success "Slurm starts: munged, slurmctld, slurmd on $node" slurm_start "$T/slurm" \
	"Prolog=$T/prolog" "PrologFlags=Alloc" || {
	echo "1..$_np_n"
	exit 1
}
# wait_state PATTERN [PATTERN2]: sinfo shows the node in either, within 90 s
wait_state() {
	i=0
	while [ "$i" -lt 90 ]; do
		st=$(slurm_state)
		# shellcheck disable=SC2254
		case $st in $1 | ${2:-$1}) return 0 ;; esac
		sleep 1
		i=$((i + 1))
	done
	diag "state '$(slurm_state)', wanted '$1'; jobs: $(timeout 5 squeue -h -a -o "%i %T %j %N %R" 2>&1 | tr "\n" ";")"
	return 1
}
reason() { timeout 10 sinfo -h -N -n "$node" -o %E | head -n 1; }
# resumed: out of drain, free for jobs. Right after a drained job ends,
# slurmctld may still count its CPUs for a while and show the node "mixed"
# with no job on it; that is resumed too (the next case sees it idle).
resume() {
	timeout 10 scontrol update NodeName="$node" State=RESUME
	wait_state idle mixed
}

# ---- a reused --out: the previous verdict is never read again -------------
mkdir "$T/out"
cat >"$T/out/isolate.json" <<EOF
{"schema": "nccl-probe/isolate", "schema_version": 1, "rounds": 2, "wall_time": 1.0,
 "nodes": [{"name": "$node", "host": "$node", "state": "bad-inside", "evidence": "round 1 alone: old"}],
 "links": [], "fleet": null, "scale": null, "exit_code": 1}
EOF
expect_code 3 "a reused --out, srun refuses a launcher argument, --drain: exit 3" \
	timeout 120 salloc -N1 -n2 -O "$V" --nccl-probe "$NP_BIN" --hosts "$node,ghost1" --no-topo --drain \
	--out "$T/out" --json "$T/v.json" --launcher-args --no-such-srun-option
! grep -q -e '^bad:' -e '^drain:' -e '^verdict:' "$TEST_OUT"
ok $? "  the previous run's verdict is not printed"
expect_grep "^error: isolate failed on every node .*the launch, not a node" "$TEST_ERR" "  one error about the launch"
# not drained: idle, or still completing the job just ended
case $(slurm_state) in
drain* | drng*) false ;;
*) true ;;
esac
ok $? "  $node is not drained (sinfo: $(slurm_state))"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r["exit_code"] == 3 and [n["state"] for n in r["nodes"]] == ["unknown", "unknown"]))' "$T/v.json"
ok $? "  JSON: exit 3, both nodes unknown"

# ---- hostile names ----------------------------------------------------------------
# a stand-in nccl-probe whose isolate report names this node and hostile
# names, and a stand-in mpirun that runs its command here
M=$T/marker
cat >"$T/fake-probe" <<EOF
#!/bin/sh
case \$1 in isolate) ;; *) exit 0 ;; esac
while [ \$# -gt 0 ] && [ "\$1" != --output ]; do shift; done
python3 - "\$2" <<'PY'
import json, sys
m = "$M"
names = ["$node", "\$(touch %s.1)" % m, "\`touch %s.2\`" % m, "gpu[001-512]", "x';touch %s.3;'" % m, "y\\"; touch %s.4" % m]
nodes = [{"name": n, "host": n, "state": "bad-inside", "evidence": "round 1 alone: \$(touch %s.5) \`touch %s.6\`" % (m, m)}
         for n in names]
json.dump({"schema": "nccl-probe/isolate", "schema_version": 1, "rounds": 2, "wall_time": 1.0, "nodes": nodes,
           "links": [], "fleet": None, "scale": None, "exit_code": 1}, open(sys.argv[1], "w"))
PY
exit 1
EOF
printf '#!/bin/sh\ncase $1 in --version) echo "mpirun (Open MPI) 4.1.4"; exit 0 ;; esac\nshift 6\nexec "$@"\n' >"$T/local-mpirun"
chmod +x "$T/fake-probe" "$T/local-mpirun"
expect_code 1 "hostile names in isolate's report, --drain inside salloc: exit 1" \
	timeout 120 salloc -N1 -n1 "$V" --nccl-probe "$T/fake-probe" --hosts "$node,ghost1" --no-topo \
	--launcher mpirun --mpirun "$T/local-mpirun" --drain --json "$T/h.json"
[ "$(grep -c '^drain: ' "$TEST_OUT")" -eq 6 ]
ok $? "  six drain lines"
# pasted into sh, with a scontrol that records its arguments
mkdir -p "$T/bin"
printf '#!/bin/sh\nfor a in "$@"; do printf "%%s\\n" "$a"; done >>"%s/args"\n' "$T" >"$T/bin/scontrol"
chmod +x "$T/bin/scontrol"
sed -n 's/^drain: //p' "$TEST_OUT" >"$T/lines"
(cd "$T" && PATH=$T/bin:$PATH sh "$T/lines") >/dev/null 2>&1
[ -z "$(ls "$T" | grep '^marker')" ]
ok $? "  pasted, they execute nothing planted (no marker file)"
python3 - "$T/args" "$node" "$M" <<'PY' >"$T/args.check"
import sys
got = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("NodeName=")]
node, m = sys.argv[2], sys.argv[3]
want = ["NodeName=" + n for n in [node, "$(touch %s.1)" % m, "`touch %s.2`" % m, "gpu[001-512]",
        "x';touch %s.3;'" % m, 'y"; touch %s.4' % m]]
print("ok" if got == want else "got %r" % got)
PY
[ "$(cat "$T/args.check")" = ok ]
ok $? "  and pass each name as one word, exactly ($(cat "$T/args.check"))"
expect_grep "^validate: drained $node\$" "$TEST_ERR" "  --drain drained $node"
[ "$(grep -c "^error: will not drain" "$TEST_ERR")" -eq 5 ]
ok $? "  and refused the five other names"
wait_state 'drain*'
ok $? "  sinfo: $node drained ($(slurm_state))"
case $(reason) in "nccl-probe: slow inside the node"*) true ;; *) false ;; esac
ok $? "  with its reason ($(reason))"
[ -z "$(ls "$T" | grep '^marker')" ]
ok $? "  nothing planted ran"
resume
ok $? "  resumed"

# ---- the prolog, run by slurmd ----------------------------------------------------
touch "$T/prolog.on"
printf 'NP_MPIRUN_ARGS="--no-such-option"\n' >>"$T/prolog.conf"
slurm_batch 120 --exclusive -N1 -n1 -o /dev/null --wrap true >/dev/null
grep -q "could not run: the all-reduce: 'mpirun' exited 1 without nccl-probe's report" "$T/prolog.log"
ok $? "the prolog with a launcher argument mpirun refuses: could not run, logged" || sed 's/^/#   /' "$T/prolog.log"
sleep 2
[ "$(slurm_state)" = idle ]
ok $? "  the node is not drained (sinfo: $(slurm_state))"
for kind in fail hang; do
	mkdir -p "$T/$kind"
	case $kind in
	fail) printf '#!/bin/sh\necho "Failed to initialize NVML: Driver/library version mismatch"\nexit 18\n' ;;
	hang) printf '#!/bin/sh\nexec sleep 317\n' ;;
	esac >"$T/$kind/nvidia-smi"
	chmod +x "$T/$kind/nvidia-smi"
	printf 'NP_PATH=%s/%s:/usr/local/bin:/usr/bin:/bin\n' "$T" "$kind" >>"$T/prolog.conf"
	slurm_batch 120 --exclusive -N1 -n1 -o /dev/null --wrap true >/dev/null 2>&1
	wait_state 'drain*'
	ok $? "the prolog, a stand-in nvidia-smi that ${kind}s: the node is drained ($(slurm_state))" ||
		sed 's/^/#   /' "$T/prolog.log"
	r=$(reason)
	case $kind:$r in
	"fail:nccl-probe: nvidia-smi failed (exit 18): 'Failed to initialize NVML"*) true ;;
	"hang:nccl-probe: nvidia-smi hung: no answer within 5 s"*) true ;;
	*) false ;;
	esac
	ok $? "  the reason says so ($r)"
	resume
done
rm -f "$T/prolog.on"
done_testing
