#!/bin/sh
# SPDX-License-Identifier: MIT
# The Slurm prolog and the NHC check run directly (t0014 runs them
# through Slurm): a healthy node passes; a GPU with uncorrectable ECC
# errors (fake sysfs and NVML) and an all-reduce below its floor are
# each one line naming the GPU or the figure; nothing drains unless
# configured; a missing nccl-probe checks nothing and blames no node;
# bad settings exit 64. LBNL NHC is not packaged in Debian: the check
# file is sourced with die and log defined as NHC defines them.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
command -v bash >/dev/null || skip_all "bash not found"
LIB=$top_builddir/tests/fakenvml/libfakenvml.so
[ -f "$LIB" ] || skip_all "fake NVML not built ($LIB); run make check"
. "$srcdir/tests/fakesys.sh"
node "$TEST_TMP/root"
printf 'count=1\ngpu0.busid=0000:19:00.0\ngpu0.name=NVIDIA H100 80GB HBM3\ngpu0.ecc=1\ngpu0.ecc_uncorrected=3\n' >"$TEST_TMP/nvml.conf"
fault() { NCCL_PROBE_FSROOT=$TEST_TMP/root NCCL_PROBE_NVML_LIB=$LIB NP_FAKE_NVML=$TEST_TMP/nvml.conf "$@"; }

P=$srcdir/contrib/slurm/prolog-nccl-probe
C=$TEST_TMP/prolog.conf
conf() {
	{
		echo "NP_BIN=$NP_BIN"
		echo 'NP_MPIRUN_ARGS="--oversubscribe --bind-to none"'
		echo "NP_FLOORS=$TEST_TMP/floors"
		echo "NP_TIMEOUT=60"
		printf '%s\n' "$@"
	} >"$C"
}
prolog() { NCCL_PROBE_PROLOG_CONF=$C "$P"; }
# the node type as the prolog names it: its GPUs where nvidia-smi lists
# some (the all-reduce then runs on them, one rank each), else host memory
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${ngpu:-0}" -gt 0 ]; then
	ranks=$ngpu type="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) x$ngpu"
	# the healthy node is healthy apart from GDR, which needs an RDMA NIC
	nogdr=NP_GDR=no
else
	ranks=2 type="host memory x2" nogdr=""
fi
tre=$(printf '%s' "$type" | sed 's/[][().*+?^$|\\]/\\&/g')
echo "$type = 0.0001" >"$TEST_TMP/floors"

conf $nogdr
expect_success "prolog, a healthy node: exit 0" prolog
expect_grep "^nccl-probe prolog: .*: all-reduce on $ranks ranks \($tre\): [0-9.]+ GB/s busbw, floor 0.0001" "$TEST_ERR" \
	"  the all-reduce against the floor of its type"
expect_grep "^nccl-probe prolog: .*: ok$" "$TEST_ERR" "  ok"
expect_success "a GPU with ECC errors, not set to drain: exit 0" fault prolog
expect_grep "^nccl-probe prolog: .*: problem: topo: health-gpu-ecc-uncorrected \[GPU0\]: GPU0: 3 uncorrectable ECC errors" \
	"$TEST_ERR" "  one line naming GPU0 and the figure"
! grep -q 'drained' "$TEST_ERR"
ok $? "  nothing drained"
conf NP_GDR=yes
expect_success "the same with --check-gdr (NP_GDR=yes): exit 0" fault prolog
expect_grep "^nccl-probe prolog: .*: problem: topo: health-gpu-ecc-uncorrected \[GPU0\]" "$TEST_ERR" \
	"  the GPU's ECC errors are still named beside the GDR answer"
conf NP_FAIL_EXIT=1
expect_code 1 "the same with NP_FAIL_EXIT=1: exit 1" fault prolog
echo "$type = 100000" >"$TEST_TMP/floors"
conf NP_FAIL_EXIT=1 $nogdr
if [ "$ranks" -gt 1 ]; then
	expect_code 1 "an all-reduce below its floor: exit 1" prolog
	expect_grep "problem: all-reduce \($tre\): allreduce busbw .*below --min-busbw 100000.* [0-9.]+ GB/s" \
		"$TEST_ERR" "  names the figure and the floor"
else
	ok 0 "an all-reduce below its floor # SKIP one GPU: busbw of one rank is 0 by definition, no floor applies"
	ok 0 "  names the figure and the floor # SKIP one GPU"
fi
conf NP_BIN=/nonexistent/nccl-probe NP_FAIL_EXIT=1
expect_success "nccl-probe missing: exit 0, no node blamed" prolog
expect_grep "is not executable; check NP_BIN; nothing checked" "$TEST_ERR" "  says so"
conf NP_DRAIN=yes
expect_code 64 "a bad setting: exit 64" prolog
expect_grep "NP_DRAIN='yes' .* is not a whole number" "$TEST_ERR" "  names it"
expect_code 64 "an unknown argument: exit 64" "$P" --frobnicate

N=$srcdir/contrib/nhc/nccl-probe.nhc
# nhc ARGS: the check as NHC runs it; prints 'die: MESSAGE' / 'log: MESSAGE'
nhc() {
	# shellcheck disable=SC2016 # expanded by bash -c
	bash -c '. "$1"; shift; die() { shift; echo "die: $*"; return 1; }; log() { echo "log: $*"; }; check_nccl_probe "$@"' _ "$N" "$@"
}
expect_success "NHC check, a healthy node: passes" nhc -b "$NP_BIN"
[ ! -s "$TEST_OUT" ]
ok $? "  and says nothing"
expect_code 1 "NHC check, a GPU with ECC errors: fails" fault nhc -b "$NP_BIN"
expect_grep '^die: check_nccl_probe: health-gpu-ecc-uncorrected \[GPU0\]: GPU0: 3 uncorrectable ECC errors' "$TEST_OUT" \
	"  the message names GPU0 and the figure"
expect_code 1 "NHC check with -g, a GPU with ECC errors: fails" fault nhc -b "$NP_BIN" -g
expect_grep '^die: check_nccl_probe: health-gpu-ecc-uncorrected \[GPU0\]' "$TEST_OUT" \
	"  the ECC errors, not only the GDR answer"
if [ "$ranks" -gt 1 ]; then
	expect_code 1 "NHC check, an all-reduce below -a 100000: fails" nhc -b "$NP_BIN" -a 100000
	expect_grep "^die: check_nccl_probe: all-reduce on $ranks ranks: allreduce busbw .*below --min-busbw 100000.* [0-9.]+ GB/s" \
		"$TEST_OUT" "  the message names the figure"
else
	ok 0 "NHC check, an all-reduce below -a 100000 # SKIP one GPU: busbw of one rank is 0 by definition"
	ok 0 "  the message names the figure # SKIP one GPU"
fi
expect_success "NHC check, nccl-probe missing: passes, logged" nhc -b /nonexistent/nccl-probe
expect_grep '^log: check_nccl_probe: nccl-probe not found' "$TEST_OUT" "  logged"
expect_code 1 "NHC check, an unknown option: fails with a message" nhc -x
expect_grep "^die: check_nccl_probe: unknown option '-x'" "$TEST_OUT" "  names it"
done_testing
