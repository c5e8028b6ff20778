#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/nccl-probe-validate drives 'nccl-probe isolate' (virtual nodes on
# this host, faults planted with isolate's test-only switches): a healthy
# run passes with a JSON verdict; a slow node is named once with a ready
# drain line, a slow link without one; a hang names the stalled node; a
# launch failure that hits every node is one error, exit 3, nobody
# accused; --budget stops everything; launcher syntax for srun, Open MPI
# and MPICH (--dry-run); bad input exits 64. The real Slurm runs are
# tests/t0014-slurm.sh.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"
command -v timeout >/dev/null || skip_all "timeout (coreutils) not found"

V="$srcdir/contrib/nccl-probe-validate"
# the same settings as tests/t0018-isolate.sh: large planted faults, a
# --min-effect above this host's noise
val() { "$V" --nccl-probe "$NP_BIN" --backend mpi --json "$TEST_TMP/v.json" "$@"; }
virt() { val --virtual 4 --ppn "${PPN:-1}" "$@" -- --size 16K --budget "${BUDGET:-0.6}" --min-effect 50; }
# what the verdict names, one line each: node NAME STATE | link A-B | fleet
# | scale | error (a node not judged, "unknown", is not named)
named() {
	python3 - "$TEST_TMP/v.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "nccl-probe/validate"
for n in r["nodes"]:
    if n["state"] not in ("ok", "unknown"):
        print("node %s %s" % (n["name"], n["state"]))
for l in r["links"]:
    print("link %s-%s" % (l["a"], l["b"]))
for k in ("fleet", "scale", "error"):
    if r[k]:
        print(k)
PY
}
# a sanitized build's timing is not the product's (see t0018): there the
# verdict is reported, not judged
check() {
	got=$(named | paste -sd';' -)
	if [ -n "${NP_SANITIZED:-}" ]; then
		ok 0 "  the verdict names exactly '$1' (got '$got') # SKIP sanitized build: timing not judged"
		return
	fi
	[ "$got" = "$1" ]
	ok $? "  the verdict names exactly '$1' (got '$got')"
}
# every node's state in the JSON verdict: NAME STATE;...
states() {
	python3 -c 'import json,sys; print(";".join("%s %s" % (n["name"], n["state"]) for n in json.load(open(sys.argv[1]))["nodes"]))' \
		"$TEST_TMP/v.json"
}
jget() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$TEST_TMP/v.json" "$1"; }
count() { grep -c "$1" "$TEST_OUT"; }

# again CMD...: a planted fault's run, measured again (at most twice more)
# when it names nothing (exit 0) or is inconclusive (exit 6) on this
# host's noise, as an operator would (a slow link needs two confirmation
# rounds after its ends' own, within the four a run allows); a name is
# never measured again
again() {
	n_again=0
	while :; do
		"$@"
		rc=$?
		{ [ "$rc" -eq 0 ] || [ "$rc" -eq 6 ]; } && [ "$n_again" -lt 2 ] || return "$rc"
		n_again=$((n_again + 1))
		echo "validate: exit $rc with a fault planted, on this host's noise; measured again" >&2
	done
}

# first what judges no timing: launch failures, the whole-run deadline,
# the launchers' syntax and bad input (beside any other test)
# launch failures that hit every node: one error, exit 3, nobody accused
expect_code 3 "a launcher option it refuses: exit 3" virt --launcher-args --no-such-option
expect_grep "^error: the launcher failed on every node before topo ran \(exit 1\): mpirun: Error: unknown option" \
	"$TEST_ERR" "  one error about the launch, at the first step"
[ "$(grep -c '^error:' "$TEST_ERR")" -eq 1 ]
ok $? "  and only one"
expect_code 3 "the same without topo: exit 3" virt --no-topo --launcher-args --no-such-option
expect_grep "^error: isolate failed on every node .*so the launch, not a node" "$TEST_ERR" "  one error about the launch"
[ "$(count '^bad:')" -eq 0 ] && [ "$(count '^drain:')" -eq 0 ]
ok $? "  nobody accused, nothing to drain"
check "error"
[ "$(jget exit_code)" = 3 ]
ok $? "  JSON: exit_code 3"
[ "$(states)" = "vnode0 unknown;vnode1 unknown;vnode2 unknown;vnode3 unknown" ]
ok $? "  JSON: every node unknown, none ok (got '$(states)')"
expect_code 3 "a program that fails on every rank: exit 3" "$V" --nccl-probe /bin/false --virtual 4 --ppn 1
[ "$(count '^drain:')" -eq 0 ]
ok $? "  nothing to drain"

# the whole-run deadline: a launcher that never returns is stopped, with
# everything it started, when --budget ends
printf '#!/bin/sh\ncase $1 in --version) echo "mpirun (Open MPI) 4.1.4" ;; *) exec sleep 347 ;; esac\n' \
	>"$TEST_TMP/stuck-mpirun"
chmod +x "$TEST_TMP/stuck-mpirun"
start=$(date +%s)
expect_code 3 "--budget 8, a launcher that never returns: exit 3" "$V" --nccl-probe "$NP_BIN" --backend mpi \
	--virtual 4 --ppn 1 --budget 8 --mpirun "$TEST_TMP/stuck-mpirun"
expect_grep "did not finish within --budget 8 s" "$TEST_ERR" "  says so"
[ $(($(date +%s) - start)) -lt 30 ]
ok $? "  and everything ended (loose bound: 30 s)"
sleep 1
! pgrep -f "sleep 347" >/dev/null 2>&1
ok $? "  nothing it started is left"

# launcher syntax
expect_success "Open MPI syntax (--dry-run)" "$V" --nccl-probe "$NP_BIN" --hosts a,b,c --ppn 8 --dry-run --no-topo
expect_grep '^mpirun -np 24 --host a:8,b:8,c:8 --map-by ppr:8:node .*nccl-probe isolate ' "$TEST_OUT" \
	"  mpirun -np 24 --host a:8,b:8,c:8 --map-by ppr:8:node"
mkdir -p "$TEST_TMP/mpich"
printf '#!/bin/sh\necho "HYDRA build details:"\n' >"$TEST_TMP/mpich/mpiexec"
chmod +x "$TEST_TMP/mpich/mpiexec"
printf 'a slots=8\n# spare\nb\n\n' >"$TEST_TMP/hosts"
expect_success "MPICH syntax, a hostfile (--dry-run)" "$V" --nccl-probe "$NP_BIN" --hostfile "$TEST_TMP/hosts" \
	--ppn 4 --mpirun "$TEST_TMP/mpich/mpiexec" --dry-run --no-topo
expect_grep '/mpiexec -n 8 -ppn 4 -hosts a,b .*nccl-probe isolate ' "$TEST_OUT" "  mpiexec -n 8 -ppn 4 -hosts a,b"
if command -v srun >/dev/null 2>&1; then
	SLURM_JOB_ID=1 SLURM_JOB_NODELIST=x,y SLURM_NTASKS_PER_NODE=2 \
		expect_success "inside an allocation: srun (--dry-run)" "$V" --nccl-probe "$NP_BIN" --dry-run --no-topo
	expect_grep '^srun --nodes=2 --nodelist=x,y --ntasks=4 --ntasks-per-node=2 --kill-on-bad-exit=1 .*nccl-probe isolate ' \
		"$TEST_OUT" "  srun over the allocation's nodes, SLURM_NTASKS_PER_NODE ranks each"
else
	echo "ok $((_np_n + 1)) # SKIP srun not installed"
	echo "ok $((_np_n + 2)) # SKIP srun not installed"
	_np_n=$((_np_n + 2))
fi

# bad input: one line, exit 64
expect_code 64 "no nodes: exit 64" env -u SLURM_JOB_ID "$V" --nccl-probe "$NP_BIN"
expect_grep "^error: no nodes to validate" "$TEST_ERR" "  says what to give"
expect_code 64 "a node name with ESC, BEL and CR: exit 64" "$V" --nccl-probe "$NP_BIN" \
	--hosts "a,$(printf 'b\033]0;x\007\rerror: forged')" --dry-run --no-topo
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && grep -qF "invalid node name 'b\x1b]0;x\x07\x0derror: forged'" "$TEST_ERR" &&
	! grep -q "$(printf '[\033\007\r]')" "$TEST_ERR"
ok $? "  one line, the name's controls as \\xNN"
expect_code 64 "a node twice: exit 64" "$V" --nccl-probe "$NP_BIN" --hosts a,b,a
expect_grep "node 'a' is listed twice" "$TEST_ERR" "  names the node"
expect_code 64 "one node: exit 64" "$V" --nccl-probe "$NP_BIN" --hosts a
expect_code 64 "bad --ppn: exit 64" "$V" --nccl-probe "$NP_BIN" --virtual 2 --ppn 0
expect_grep "invalid --ppn '0'" "$TEST_ERR" "  the message names the value"
expect_code 64 "bad --budget: exit 64" "$V" --nccl-probe "$NP_BIN" --virtual 2 --budget 1x
expect_code 64 "bad --timeout: exit 64" "$V" --nccl-probe "$NP_BIN" --virtual 2 --timeout 0
# --hostfile: a regular file or a pipe of at most 1 MiB; /dev/zero grew to
# 3 GB and died with a traceback and exit 1 (a node failed), a FIFO with
# no writer hung
expect_code 64 "--hostfile /dev/zero: exit 64" "$V" --nccl-probe "$NP_BIN" --hostfile /dev/zero --dry-run
grep -q "^error: --hostfile '/dev/zero' is not a regular file or a pipe; give a file with one node per line" "$TEST_ERR"
ok $? "  one line: $(head -c 200 "$TEST_ERR")"
head -c 1100000 /dev/zero | tr '\0' 'n' >"$TEST_TMP/bighosts"
expect_code 64 "a --hostfile over 1 MiB: exit 64" "$V" --nccl-probe "$NP_BIN" --hostfile "$TEST_TMP/bighosts" --dry-run
grep -q "is larger than 1 MiB; give a file" "$TEST_ERR"; ok $? "  says the bound: $(head -c 200 "$TEST_ERR")"
mkfifo "$TEST_TMP/fifo"
expect_code 64 "a FIFO with no writer as --hostfile: exit 64 at once" timeout 20 "$V" --nccl-probe "$NP_BIN" --hostfile "$TEST_TMP/fifo" --dry-run
grep -q "no nodes to validate" "$TEST_ERR"; ok $? "  read as empty: $(head -c 200 "$TEST_ERR")"
printf 'n1\nn2\n' | "$V" --nccl-probe "$NP_BIN" --hostfile /dev/stdin --dry-run >"$TEST_OUT" 2>"$TEST_ERR"
ok $? "a pipe as --hostfile is read: $(head -c 200 "$TEST_ERR")"
# a fault of the script is exit 3 (runtime), never 1 (a node failed)
expect_code 3 "a fault inside the script: exit 3" python3 -c "import os, runpy, sys; sys.argv = ['nccl-probe-validate', '--hostfile', '$TEST_TMP/bighosts', '--dry-run']; os.open = None; runpy.run_path('$V', run_name='__main__')"
grep -q "^error: internal error (TypeError: .*); nobody is accused" "$TEST_ERR"; ok $? "  one line, no one accused: $(head -c 200 "$TEST_ERR")"
expect_code 64 "missing hostfile: exit 64" "$V" --nccl-probe "$NP_BIN" --hostfile /nonexistent/h
expect_code 64 "--drain with --virtual: exit 64" "$V" --nccl-probe "$NP_BIN" --virtual 2 --drain
expect_code 64 "unknown option: exit 64" "$V" --frobnicate
expect_code 64 "--hosts and --virtual: exit 64" "$V" --hosts a,b --virtual 2
expect_success "--help" "$V" --help
expect_grep '^      --budget SEC' "$TEST_OUT" "  lists --budget"

# a hung node is named whatever this host's load (isolate's exit 4)
TEST_REPORT=$TEST_TMP/v.json
NCCL_PROBE_TEST_STALL=3 expect_code 1 "a hung node: exit 1" virt --timeout 3
check "node vnode3 hung"
[ "$(states)" = "vnode0 unknown;vnode1 unknown;vnode2 unknown;vnode3 hung" ]
ok $? "  JSON: the nodes isolate did not report on are unknown, not ok (got '$(states)')"
expect_grep "^bad: node vnode3: hung: isolate exit 4: rank 3 on " "$TEST_OUT" "  named with isolate's message"

# from here on planted slow nodes and links are named and healthy ones
# are not: timing is judged, apart from the other tests that judge it
timing_alone
TEST_REPORT=$TEST_TMP/v.json
PPN=2 expect_unnamed "4 healthy virtual nodes of 2 ranks: nobody named" virt
# healthy: 2 rounds, or up to 4 confirmation rounds more when noise puts
# a figure below the fleet (they clear it); nothing is named either way,
# and where this host's noise cannot clear a node the verdict is
# inconclusive (exit 6), nothing drained
rr=$(jget rounds)
diag "healthy: $rr rounds"
judged_grep "^verdict: (ok|inconclusive), 4 nodes, [2-6] rounds" "$TEST_OUT" "  the verdict line"
check ""
[ "$rr" -ge 2 ] && [ "$rr" -le 6 ] && [ "$(jget nodes_total)" = 4 ] &&
	{ [ "$(jget exit_code)" = 0 ] || [ "$(jget exit_code)" = 6 ]; }
judged_ok $? "  JSON: $rr rounds (2 to 6), 4 nodes, exit_code 0 or 6"
[ "$(count '^drain:')" -eq 0 ]
ok $? "  no drain line"
expect_grep '^validate: \[1/2\] topo on this host' "$TEST_ERR" "  progress lines on stderr: topo"
expect_grep '^validate: \[2/2\] isolate' "$TEST_ERR" "  and isolate"
expect_grep '^isolate: round 2: ' "$TEST_ERR" "  with isolate's own rounds as they come"

# the planted faults sleep 10 times their group's own time (1000%), so
# that they stay large when other jobs slow this host's collectives (a
# fixed 20 ms was not: 2 ranks alone took 10 to 20 ms beside two busy loops)
# (0.3 s of samples per figure shows a fault that large)
NCCL_PROBE_TEST_SLOW=2:1000% PPN=2 BUDGET=0.3 expect_verdict 1 "a slow node (inside): exit 1" again virt
check "node vnode1 bad-inside"
judged_grep '^bad: node vnode1: bad-inside: round 1 alone ' "$TEST_OUT" "  named with its figures"
judged_grep "^drain: scontrol update NodeName=vnode1 State=DRAIN Reason='nccl-probe: slow inside the node" \
	"$TEST_OUT" "  and a ready drain line"
[ "$(count '^bad:')" -eq 1 ] && [ "$(count '^drain:')" -eq 1 ]
judged_ok $? "  one bad line, one drain line"
python3 -c 'import json,sys; n=[x for x in json.load(open(sys.argv[1]))["nodes"] if x["name"]=="vnode1"][0]; sys.exit(not (n["evidence"].startswith("round 1 alone") and n["drain"].startswith("scontrol update NodeName=vnode1 ")))' \
	"$TEST_TMP/v.json"
judged_ok $? "  JSON: the node's evidence and drain line"

# partners come from isolate's seed: a healthy run's round-1 pair, which
# the same seed plans again, carries the slow link
expect_unnamed "8 healthy virtual nodes: nobody named" val --virtual 8 --ppn 1 -- \
	--size 16K --budget 0.6 --min-effect 50
set -- $(python3 - "$TEST_TMP/v.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
pairs = sorted(sorted(int(n[5:]) for n in f["group"]) for f in r["figures"] if f["kind"] == "pair" and f["round"] == 1)
print(pairs[0][0], pairs[0][1])
PY
)
la=$1 lb=$2
seed=$(jget seed)
[ -n "$seed" ] && [ -n "$lb" ]
ok $? "  isolate's seed ($seed) and a round-1 pair (vnode$la-vnode$lb)"
NCCL_PROBE_TEST_SLOW=$la:1000%:link=$lb expect_verdict 1 "a slow link: exit 1" again val --virtual 8 --ppn 1 -- \
	--size 16K --budget 0.3 --min-effect 50 --seed "$seed"
check "link vnode$la-vnode$lb"
judged_grep "^bad: link vnode$la-vnode$lb: " "$TEST_OUT" "  the link is named"
[ "$(count '^drain:')" -eq 0 ]
judged_ok $? "  no drain line: a link is no node"

# a topo finding of severity error names the node (this host) with the
# finding: a fake node whose GPU has uncorrectable ECC errors (fake NVML)
LIB=$top_builddir/tests/fakenvml/libfakenvml.so
if [ -f "$LIB" ]; then
	. "$srcdir/tests/fakesys.sh"
	node "$TEST_TMP/root"
	printf 'count=1\ngpu0.busid=0000:19:00.0\ngpu0.name=NVIDIA H100 80GB HBM3\ngpu0.ecc=1\ngpu0.ecc_uncorrected=3\n' \
		>"$TEST_TMP/nvml.conf"
	NCCL_PROBE_FSROOT=$TEST_TMP/root NCCL_PROBE_NVML_LIB=$LIB NP_FAKE_NVML=$TEST_TMP/nvml.conf \
		expect_code 1 "a topo error on the host: exit 1" virt
	h=$(hostname)
	check "node $h topo-error"
	expect_grep "^bad: node $h: topo-error: topo: health-gpu-ecc-uncorrected \[GPU0\]: GPU0: 3 uncorrectable ECC errors" \
		"$TEST_OUT" "  names the GPU and the figure"
	expect_grep "^drain: scontrol update NodeName=$h State=DRAIN Reason='nccl-probe: topo: health-gpu-ecc-uncorrected \[GPU0\]" \
		"$TEST_OUT" "  with a drain line for the host"
else
	echo "ok $((_np_n + 1)) # SKIP fake NVML not built"
	_np_n=$((_np_n + 1))
fi
# (healthy nodes: 0, or 6 where this host's noise cannot clear one)
expect_unnamed "--no-topo skips it" virt --no-topo
expect_grep '^validate: \[1/1\] isolate' "$TEST_ERR" "  one step"

done_testing
