#!/bin/sh
# SPDX-License-Identifier: MIT
# The NHC check's expected counts (-G GPUs, -D data NICs, -L NVLinks per
# GPU), as t0042 checks the prolog's: a stand-in nvidia-smi listing 7
# GPUs against -G 8 fails naming both counts; a fake sysfs with 2 data
# NICs against -D 3 likewise, and -D 2 passes; a stand-in nccl-probe
# whose topo reads a DGX-2's hwloc file (16 V100, 6 NVLinks each) passes
# -G 16 -L 6 and fails -L 8 naming the GPUs and counts; a count that is
# not a whole number is one message. The check is sourced with die and
# log defined as NHC defines them (LBNL NHC is not packaged in Debian).
. "$(dirname "$0")/lib.sh"
command -v bash >/dev/null || skip_all "bash not found"
. "$srcdir/tests/fakesys.sh"
FIX=$NP_FIXTURES/topology/hwloc
N=$srcdir/contrib/nhc/nccl-probe.nhc
T=$TEST_TMP
# nhc ARGS: the check as NHC runs it; prints 'die: MESSAGE' / 'log: MESSAGE'
nhc() {
	# shellcheck disable=SC2016 # expanded by bash -c
	bash -c '. "$1"; shift; die() { shift; echo "die: $*"; return 1; }; log() { echo "log: $*"; }; check_nccl_probe "$@"' _ "$N" "$@"
}
# stand-in nvidia-smi listing $T/gpus
mkdir -p "$T/bin"
printf '#!/bin/sh\ncat "%s/gpus"\n' "$T" >"$T/bin/nvidia-smi"
chmod +x "$T/bin/nvidia-smi"
gpus() {
	i=0
	: >"$T/gpus"
	while [ "$i" -lt "$1" ]; do
		echo "GPU $i: $2 (UUID: GPU-$i)" >>"$T/gpus"
		i=$((i + 1))
	done
}

# ---- GPUs ---------------------------------------------------------------------------
root=$T/root
node "$root"
gpus 7 "NVIDIA H100 80GB HBM3"
PATH=$T/bin:$PATH NCCL_PROBE_FSROOT=$root expect_code 1 "-G 8, nvidia-smi lists 7: fails" nhc -b "$NP_BIN" -G 8
expect_grep "^die: check_nccl_probe: GPUs: nvidia-smi lists 7, 8 expected \(-G 8\)$" "$TEST_OUT" "  names both counts"
gpus 8 "NVIDIA H100 80GB HBM3"
PATH=$T/bin:$PATH NCCL_PROBE_FSROOT=$root expect_success "-G 8, nvidia-smi lists 8: passes" nhc -b "$NP_BIN" -G 8
! grep -q '^die:' "$TEST_OUT"
ok $? "  no message"

# ---- data NICs (fake sysfs: mlx5_0 and mlx5_1, both data; no nvidia-smi) -------------
NCCL_PROBE_FSROOT=$root expect_code 1 "-D 3, topo lists 2 data NICs: fails" nhc -b "$NP_BIN" -D 3
expect_grep "^die: check_nccl_probe: NICs: topo lists 2 RDMA NICs of role data, 3 expected \(-D 3\)$" "$TEST_OUT" \
	"  names both counts"
NCCL_PROBE_FSROOT=$root expect_success "-D 2: passes" nhc -b "$NP_BIN" -D 2
! grep -q '^die:' "$TEST_OUT"
ok $? "  no message"

# ---- NVLinks per GPU: topo of a DGX-2 (16 V100, 6 NVLinks each) -------------------------
if [ -f "$FIX/hwloc-nvidiaDGX2.xml" ]; then
	printf '#!/bin/sh\n[ "$1" = topo ] || exec "%s" "$@"\nshift\nexec "%s" topo --input "%s" "$@"\n' \
		"$NP_BIN" "$NP_BIN" "$FIX/hwloc-nvidiaDGX2.xml" >"$T/probe"
	chmod +x "$T/probe"
	gpus 16 "Tesla V100-SXM3-32GB-H"
	PATH=$T/bin:$PATH expect_success "-G 16 -L 6 on 16 GPUs with 6 NVLinks each: passes" nhc -b "$T/probe" -G 16 -L 6
	! grep -q '^die:' "$TEST_OUT"
	ok $? "  no message" || _np_show
	PATH=$T/bin:$PATH expect_code 1 "-L 8, 6 NVLinks per GPU: fails" nhc -b "$T/probe" -G 16 -L 8
	expect_grep "^die: check_nccl_probe: NVLinks: active per GPU GPU0 6, GPU1 6, GPU2 6, GPU3 6 \(\+12 more GPUs\), 8 expected \(-L 8\)$" \
		"$TEST_OUT" "  names the GPUs and the counts"
else
	for i in 1 2 3 4; do ok 0 "NVLinks # SKIP no fixture $FIX/hwloc-nvidiaDGX2.xml"; done
fi

# ---- bad values ---------------------------------------------------------------------
for o in G D L; do
	expect_code 1 "-$o eight: fails with a message" nhc -b "$NP_BIN" -$o eight
	expect_grep "^die: check_nccl_probe: -$o .eight. is not a whole number" "$TEST_OUT" "  names it"
done
done_testing
