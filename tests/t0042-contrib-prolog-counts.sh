#!/bin/sh
# SPDX-License-Identifier: MIT
# The prolog run directly (t0043 runs it through Slurm): the GPU and NIC
# counts expected of a node type ('expect' lines of the floors file) are
# checked first. A stand-in nvidia-smi that lists 7 GPUs of a type with
# 8 is a problem naming both counts, and no all-reduce runs; a fake
# sysfs with 2 data NICs against 3 expected, and a stand-in nccl-probe
# whose topo reads a DGX-2's hwloc file (6 NVLinks per GPU) against 8
# expected, likewise; the right counts pass. The drain reason leads with
# the figures and stays within 200 characters. Configuration errors (a
# bad value, a syntax error, a relative --conf, a file others may write,
# a bad expect line) are one line: exit 64 by hand, exit 0 (fails open)
# under slurmd. NP_DRAIN=1 with NP_FAIL_EXIT=0 says the job still runs.
. "$(dirname "$0")/lib.sh"
. "$srcdir/tests/fakesys.sh"
FIX=$NP_FIXTURES/topology/hwloc
P=$srcdir/contrib/slurm/prolog-nccl-probe
T=$TEST_TMP
C=$T/prolog.conf
conf() {
	{
		echo "NP_BIN=$NP_BIN"
		echo "NP_FLOORS=$T/floors"
		echo "NP_TIMEOUT=30 NP_GDR=no NP_SHARED=measure NP_DRAIN=1 NP_FAIL_EXIT=1"
		echo "NP_PATH=$T/bin:/usr/local/bin:/usr/bin:/bin"
		printf '%s\n' "$@"
	} >"$C"
	chmod 644 "$C"
}
prolog() { NCCL_PROBE_PROLOG_CONF=$C "$P"; }
# stand-ins: nvidia-smi listing $T/gpus, scontrol recording its arguments
mkdir -p "$T/bin" "$T/nobin"
printf '#!/bin/sh\ncat "%s/gpus"\n' "$T" >"$T/bin/nvidia-smi"
printf '#!/bin/sh\nfor a in "$@"; do printf "%%s\\n" "$a"; done >"%s/scontrol.args"\n' "$T" >"$T/bin/scontrol"
chmod +x "$T/bin/nvidia-smi" "$T/bin/scontrol"
cp "$T/bin/scontrol" "$T/nobin/scontrol"
gpus() {
	i=0
	: >"$T/gpus"
	while [ "$i" -lt "$1" ]; do
		echo "$2" >>"$T/gpus"
		i=$((i + 1))
	done
}
reason() { sed -n 's/^Reason=//p' "$T/scontrol.args" 2>/dev/null; }

# ---- GPUs -------------------------------------------------------------------------
gpus 7 "NVIDIA H100 80GB HBM3"
printf '# H100 nodes\nexpect NVIDIA H100 80GB HBM3 = gpus 8\nNVIDIA H100 80GB HBM3 x8 = 350\n' >"$T/floors"
conf
expect_code 1 "7 of the 8 GPUs of its type: a problem (exit 1)" prolog
expect_grep "problem: GPUs: nvidia-smi lists 7, 8 expected of 'NVIDIA H100 80GB HBM3'" "$TEST_ERR" "  names both counts"
expect_grep "no all-reduce: the node does not have the GPUs or NICs of its type" "$TEST_ERR" "  and runs no all-reduce"
[ "$(reason)" = "nccl-probe: 7 of 8 GPUs (NVIDIA H100 80GB HBM3)" ]
ok $? "  drained with the counts as the reason ($(reason))"
gpus 8 "NVIDIA H100 80GB HBM3"
rm -f "$T/scontrol.args"
conf NP_ALLREDUCE=0
expect_success "8 of 8: passes" prolog
! grep -q -e 'problem:' -e 'GPUs:' "$TEST_ERR" && [ ! -e "$T/scontrol.args" ]
ok $? "  no problem, nothing drained"

# ---- data NICs (fake sysfs: mlx5_0 and mlx5_1, both data) ------------------------------
root=$T/root
node "$root"
echo 'expect host memory = nics 3' >"$T/floors"
conf NP_ALLREDUCE=0 "NP_PATH=$T/nobin:/usr/local/bin:/usr/bin:/bin"
expect_code 1 "a node without GPUs, 2 data NICs of 3 expected: a problem" \
	env NCCL_PROBE_FSROOT="$root" NCCL_PROBE_PROLOG_CONF="$C" "$P"
expect_grep "problem: NICs: topo lists 2 RDMA NICs of role data, 3 expected of 'host memory'" "$TEST_ERR" \
	"  names both counts"
[ "$(reason)" = "nccl-probe: 2 of 3 data NICs (host memory)" ]
ok $? "  the reason ($(reason))"
echo 'expect host memory = nics 2' >"$T/floors"
expect_success "2 of 2 data NICs: passes" env NCCL_PROBE_FSROOT="$root" NCCL_PROBE_PROLOG_CONF="$C" "$P"
! grep -q 'problem:' "$TEST_ERR"
ok $? "  no problem"

# ---- NVLinks per GPU: topo of a DGX-2 (16 V100, 6 NVLinks each) -----------------------
if [ -f "$FIX/hwloc-nvidiaDGX2.xml" ]; then
	printf '#!/bin/sh\n[ "$1" = topo ] || exec "%s" "$@"\nshift\nexec "%s" topo --input "%s" "$@"\n' \
		"$NP_BIN" "$NP_BIN" "$FIX/hwloc-nvidiaDGX2.xml" >"$T/probe"
	chmod +x "$T/probe"
	gpus 16 "Tesla V100-SXM3-32GB-H"
	echo 'expect Tesla V100-SXM3-32GB-H = gpus 16, nvlinks 6' >"$T/floors"
	rm -f "$T/scontrol.args"
	conf NP_ALLREDUCE=0 "NP_BIN=$T/probe"
	expect_success "16 GPUs with their 6 NVLinks each: passes" prolog
	! grep -q 'problem:' "$TEST_ERR"
	ok $? "  no problem" || _np_show
	echo 'expect Tesla V100-SXM3-32GB-H = gpus 17, nvlinks 8' >"$T/floors"
	expect_code 1 "6 NVLinks per GPU of 8 expected, 16 GPUs of 17: a problem" prolog
	expect_grep "problem: NVLinks: active per GPU GPU0 6, GPU1 6, GPU2 6, GPU3 6 \(\+12 more GPUs\), 8 expected" \
		"$TEST_ERR" "  names the GPUs and the counts"
	r=$(reason)
	[ "${#r}" -le 200 ] && case $r in "nccl-probe: 16 of 17 GPUs (Tesla V100-SXM3-32GB-H); NVLinks GPU0 6, "*) true ;; *) false ;; esac
	ok $? "  the reason: both, the figures first, ${#r} <= 200 characters ($r)"
else
	for i in 1 2 3 4 5; do ok 0 "NVLinks # SKIP no fixture $FIX/hwloc-nvidiaDGX2.xml"; done
fi

# ---- configuration errors -------------------------------------------------------------
conf NP_DRAIN=yes
expect_code 64 "NP_DRAIN=yes, by hand: exit 64" prolog
expect_grep "^nccl-probe prolog: .*: configuration error: NP_DRAIN='yes' in '$C' is not a whole number" "$TEST_ERR" \
	"  one line naming it"
expect_success "the same under slurmd: exit 0 (fails open)" env SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=7 \
	NCCL_PROBE_PROLOG_CONF="$C" "$P"
expect_grep "configuration error: NP_DRAIN='yes'" "$TEST_ERR" "  the line"
expect_grep "nothing checked: configuration errors fail open" "$TEST_ERR" "  says it fails open"
conf NP_DRAIN=2
expect_code 64 "NP_DRAIN=2: exit 64" prolog
expect_grep "configuration error: NP_DRAIN='2' in .*; use 0 or 1" "$TEST_ERR" "  names it"
conf 'if then'
expect_code 64 "a syntax error in the file: exit 64, not a half-read file" prolog
expect_grep "configuration error: '$C' is not valid sh: " "$TEST_ERR" "  one line"
expect_code 64 "a relative --conf: exit 64" "$P" --conf prolog.conf
expect_grep "configuration error: the settings file 'prolog.conf' is not an absolute path" "$TEST_ERR" "  says so"
conf
chmod 666 "$C"
expect_code 64 "a file others may write: exit 64" prolog
expect_grep "configuration error: '$C' is writable by others" "$TEST_ERR" "  says so"
chmod 644 "$C"
echo 'expect NVIDIA H100 80GB HBM3 = gpus eight' >"$T/floors"
expect_code 64 "a bad expect line: exit 64" prolog
expect_grep "configuration error: NP_FLOORS '$T/floors' line 1: " "$TEST_ERR" "  names the line"
echo 'expect NVIDIA H100 80GB HBM3 = gpus 8, nics 8' >"$T/floors"
conf NP_FAIL_EXIT=0
expect_success "--check-conf: a valid file, exit 0" "$P" --conf "$C" --check-conf
expect_grep "note: NP_DRAIN=1 with NP_FAIL_EXIT=0: a problem drains the node but the job still runs" "$TEST_OUT" \
	"  says what NP_DRAIN=1 NP_FAIL_EXIT=0 does"
gpus 7 "NVIDIA H100 80GB HBM3"
expect_success "a problem with NP_DRAIN=1 NP_FAIL_EXIT=0 in a prolog: exit 0" \
	env SLURM_JOB_ID=42 NCCL_PROBE_PROLOG_CONF="$C" "$P"
expect_grep "note: job 42 still runs on the drained node \(NP_FAIL_EXIT=0\); NP_FAIL_EXIT=1 makes Slurm requeue it" \
	"$TEST_ERR" "  says the job still runs, recommends 1"
done_testing
