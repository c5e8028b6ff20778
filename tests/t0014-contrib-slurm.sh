#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/ under a real Slurm (Debian's slurm-wlm and munge, one node on
# localhost, started by tests/slurm-local.sh): nccl-probe-validate inside
# sbatch and salloc (srun --mpi=pmix -O, virtual nodes), the prolog and
# the NHC check run by slurmd, each drain seen in sinfo with its reason.
# Faults are planted as in t0008: isolate's test switches, a fake node
# whose GPU has uncorrectable ECC errors (fake sysfs and NVML), a floor
# the node cannot reach. Skips without slurm-wlm unless NP_REQUIRE_SLURM=1
# (CI), which makes a missing or failing Slurm a failure.
. "$(dirname "$0")/lib.sh"
. "$srcdir/tests/slurm-local.sh"

slurm_require
command -v python3 >/dev/null || skip_all "python3 not found"
LIB=$top_builddir/tests/fakenvml/libfakenvml.so
[ -f "$LIB" ] || skip_all "fake NVML not built ($LIB); run make check"

V="$srcdir/contrib/nccl-probe-validate"
node=$(slurm_node)

# a fake node whose GPU has 3 uncorrectable ECC errors, for the planted
# topo faults (the prolog and NHC see it through NCCL_PROBE_FSROOT)
. "$srcdir/tests/fakesys.sh"
node "$T/root"
printf 'count=1\ngpu0.busid=0000:19:00.0\ngpu0.name=NVIDIA H100 80GB HBM3\ngpu0.ecc=1\ngpu0.ecc_uncorrected=3\n' >"$T/nvml.conf"
cat >"$T/fault.env" <<EOF
NCCL_PROBE_FSROOT=$T/root NCCL_PROBE_NVML_LIB=$LIB NP_FAKE_NVML=$T/nvml.conf
export NCCL_PROBE_FSROOT NCCL_PROBE_NVML_LIB NP_FAKE_NVML
EOF

# the prolog as a site installs it: its settings in a file; the test's
# switch: $T/prolog.fault planted makes the node look broken
cat >"$T/prolog.conf" <<EOF
NP_BIN=$NP_BIN
NP_DRAIN=1
NP_MPIRUN_ARGS="--oversubscribe --bind-to none"
NP_FLOORS=$T/floors
NP_TIMEOUT=30
EOF
echo 'host memory x2 = 0.0001' >"$T/floors"
# slurmd gives its prolog and health check a fresh environment: the
# sanitizer settings of the tests (lib.sh) go in by hand, or a sanitized
# build spends half a minute reporting MPI's leaks at exit and the prolog
# takes that for a hang
san="ASAN_OPTIONS='$ASAN_OPTIONS' UBSAN_OPTIONS='${UBSAN_OPTIONS:-}'; export ASAN_OPTIONS UBSAN_OPTIONS"
cat >"$T/prolog" <<EOF
#!/bin/sh
$san
[ -f "$T/prolog.fault" ] && . "$T/fault.env"
NCCL_PROBE_PROLOG_CONF=$T/prolog.conf exec "$srcdir/contrib/slurm/prolog-nccl-probe" >>"$T/prolog.log" 2>&1
EOF
# LBNL NHC is not packaged in Debian: this stand-in for its driver sources
# the check file and, as NHC does, drains the node with 'NHC: <message>'
# when a check calls die; the check runs when $T/nhc.args exists
cat >"$T/nhc" <<EOF
#!/bin/bash
$san
[ -f "$T/nhc.args" ] || exit 0
exec >>"$T/nhc.log" 2>&1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# this private cluster's configuration (a site's is in /etc/slurm)
export SLURM_CONF=$T/slurm/slurm.conf
HOSTNAME=\$(hostname -s)
log() { echo "nhc: \$*" >>"$T/nhc.log"; }
die() {
	shift
	echo "ERROR: nhc: Health check failed: \$*" >>"$T/nhc.log"
	timeout 15 scontrol update NodeName="\$HOSTNAME" State=DRAIN Reason="NHC: \$*"
}
. "$srcdir/contrib/nhc/nccl-probe.nhc"
read -r -a args <"$T/nhc.args"
check_nccl_probe -b "$NP_BIN" "\${args[@]}"
EOF
chmod +x "$T/prolog" "$T/nhc"

expect_success "Slurm starts: munged, slurmctld, slurmd on $node" slurm_start "$T/slurm" \
	"Prolog=$T/prolog" "PrologFlags=Alloc" "HealthCheckProgram=$T/nhc" "HealthCheckInterval=5" \
	"HealthCheckNodeState=ANY" || {
	echo "1..$_np_n"
	exit 1
}
timeout 10 sinfo | sed 's/^/# /'

# wait_state WANT: the node's state matches WANT within 90 s
wait_state() {
	i=0
	while [ "$i" -lt 90 ]; do
		case $(slurm_state) in $1) return 0 ;; esac
		sleep 1
		i=$((i + 1))
	done
	diag "state '$(slurm_state)', wanted '$1'"
	return 1
}
reason() { timeout 10 sinfo -h -N -n "$node" -o %E | head -n 1; }

pmix=""
timeout 20 srun --mpi=list 2>&1 | grep -q pmix && pmix=--mpi=pmix
diag "srun MPI plugins: $(timeout 20 srun --mpi=list 2>&1 | tr -s ' \n\t' ' ')"

# the validate script inside sbatch: 4 virtual nodes, srun -O
cat >"$T/job.sh" <<EOF
#!/bin/sh
exec "$V" --nccl-probe "$NP_BIN" --virtual 4 --ppn 1 --backend mpi --json "$T/v.json" -- \
	--size 16K --budget 0.6 --min-effect 50
EOF
chmod +x "$T/job.sh"
sb() { slurm_batch 300 -N1 -n4 -O -o "$T/job.out" "$@" "$T/job.sh" >/dev/null; }
# a healthy fleet and a planted slow node: timing is judged, apart from
# the other tests that judge it (Slurm's start above and its drains below
# judge none)
timing_alone
TEST_REPORT=$T/v.json
expect_unnamed "validate inside sbatch: 4 healthy virtual nodes, nobody named" sb
cp "$T/job.out" "$TEST_OUT"
expect_grep "launcher srun${pmix:+ --mpi=pmix}," "$TEST_OUT" "  launched with srun${pmix:+ --mpi=pmix}"
expect_grep '^validate: \[1/2\] topo on this host' "$TEST_OUT" "  topo ran through srun"
# 2 rounds, or up to 4 more when noise puts a healthy figure below the
# fleet and confirmation rounds clear it (inconclusive, exit 6, where this
# host's noise cannot clear a node)
judged_grep '^verdict: (ok|inconclusive), 4 nodes, [2-6] rounds' "$TEST_OUT" "  the verdict"
grep -q "^nccl-probe prolog: $node: ok" "$T/prolog.log"
ok $? "  the prolog ran before the job and passed" || sed 's/^/#   /' "$T/prolog.log"

NCCL_PROBE_TEST_SLOW=1:1000% expect_verdict 1 "validate inside sbatch: a slow virtual node, exit 1" sb
cp "$T/job.out" "$TEST_OUT"
# one rank per node: no node is measured alone, so its slowness shows
# with its partners
judged_grep '^bad: node vnode1: bad-(inside|network)' "$TEST_OUT" "  names vnode1"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r["exit_code"] == 1 and [n["name"] for n in r["nodes"] if n["state"] != "ok"] == ["vnode1"]))' "$T/v.json"
judged_ok $? "  the JSON verdict names vnode1 alone"
timing_done

expect_code 3 "validate inside salloc: a launch that fails everywhere, exit 3" \
	timeout 300 salloc -N1 -n4 -O "$V" --nccl-probe "$NP_BIN" --virtual 4 --ppn 1 --backend mpi --no-topo \
	--launcher-args --no-such-srun-option
expect_grep '^error: isolate failed on every node .*the launch, not a node' "$TEST_ERR" "  one error about the launch"
! grep -q '^drain:' "$TEST_OUT"
ok $? "  nobody accused"
wait_state idle
ok $? "  the node is idle again, not drained"

# the prolog drains the node: its GPU0 has uncorrectable ECC errors
touch "$T/prolog.fault"
slurm_batch 300 -N1 -n1 -o /dev/null --wrap true >/dev/null
wait_state 'drain*'
ok $? "the prolog drained the node (sinfo: $(slurm_state))"
r=$(reason)
diag "sinfo reason: $r"
case $r in "nccl-probe: topo: health-gpu-ecc-uncorrected [GPU0]: GPU0: 3 uncorrectable ECC errors"*) true ;; *) false ;; esac
ok $? "  with the reason naming GPU0 and the figure"
timeout 10 sinfo -N -o '%N %T %E' | sed 's/^/#   sinfo: /'
rm -f "$T/prolog.fault"
timeout 10 scontrol update NodeName="$node" State=RESUME
wait_state idle
ok $? "  resumed"

# the NHC check drains the node: an all-reduce below its floor
echo "-a 1000 -t 60" >"$T/nhc.args"
wait_state 'drain*'
ok $? "the NHC check, run by slurmd as HealthCheckProgram, drained the node (sinfo: $(slurm_state))" ||
	sed 's/^/#   nhc: /' "$T/nhc.log"
r=$(reason)
diag "sinfo reason: $r"
case $r in "NHC: check_nccl_probe: all-reduce on 2 ranks: allreduce busbw "*"below --min-busbw 1000"*" GB/s"*) true ;; *) false ;; esac
ok $? "  with the reason naming the figure"
timeout 10 sinfo -N -o '%N %T %E' | sed 's/^/#   sinfo: /'
echo "" >"$T/nhc.args"
rm -f "$T/nhc.args"
. "$T/fault.env"
bash -c '. "$1"; die() { shift; echo "$*"; }; log() { :; }; check_nccl_probe -b "$2"' _ \
	"$srcdir/contrib/nhc/nccl-probe.nhc" "$NP_BIN" >"$TEST_OUT" 2>&1
expect_grep '^check_nccl_probe: health-gpu-ecc-uncorrected \[GPU0\]: GPU0: 3 uncorrectable ECC errors' "$TEST_OUT" \
	"the NHC check's message for a GPU fault names the GPU"
unset NCCL_PROBE_FSROOT NCCL_PROBE_NVML_LIB NP_FAKE_NVML
done_testing
