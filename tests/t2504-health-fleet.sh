#!/bin/sh
# SPDX-License-Identifier: MIT
# Fleet health under mpirun: 8 virtual nodes (--ranks-per-node 1) on a fake
# tree, the fake NVML planting one GPU throttled by heat on one node (a
# "rankR:" line applies to MPI rank R only). Rank 0 names it with the fleet
# median; a fleet of equal GPUs, or of idle ones, has no outlier.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"

have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort
LIB=$top_builddir/tests/fakenvml/libfakenvml.so
[ -f "$LIB" ] || skip_all "fake NVML not built ($LIB); run make check"
R=$TEST_TMP/root
node "$R"
pci "$R" pci0000:3a/0000:3a:01.0/0000:3b:00.0 0x10de 0x030200
CFG=$TEST_TMP/nvml.conf
export NCCL_PROBE_FSROOT="$R" NCCL_PROBE_NVML_LIB="$LIB" NP_FAKE_NVML="$CFG"

# two busy A100s per node at 1410 MHz, no clock event reason
busy() {
	echo count=2
	for i in 0 1; do
		[ $i -eq 0 ] && b=0000:19:00.0 || b=0000:3b:00.0
		printf 'gpu%d.busid=%s\ngpu%d.name=NVIDIA A100-SXM4-80GB\ngpu%d.sm=1410\ngpu%d.sm_max=1410\n' $i $b $i $i $i
		printf 'gpu%d.sm_app=1410\ngpu%d.sm_app_default=1410\ngpu%d.reasons=0\ngpu%d.temp=60\ngpu%d.power=300000\n' $i $i $i $i $i
	done
}
# --wide: each finding on one line, for the greps below (t2002 tests the default layout)
fleet() { np_mpi 8 topo --quiet --wide --ranks-per-node 1 "$@"; }

{ busy; printf 'rank5:gpu1.sm=1200\nrank5:gpu1.reasons=0x40\nrank5:gpu1.temp=88\n'; } >"$CFG"
expect_code 1 "8 virtual nodes, GPU1 of node 5 throttled by heat" fleet
expect_grep '^Fleet: 8 nodes' "$TEST_OUT" "  the fleet has 8 nodes"
expect_grep 'error +health-fleet-outlier \[[^]]*:node5 GPU1\]: [^ ]*:node5 GPU1: SM 1200 MHz \(fleet 1410\), thermal slowdown active$' \
	"$TEST_OUT" "  node 5's GPU1 is named with the fleet median and the reason"
expect_grep 'evidence: NVML: SM 1200 MHz, fleet median 1410 MHz over 16 working GPUs; reasons: HW thermal slowdown; 88 C' \
	"$TEST_OUT" "  the evidence has the figures"
[ "$(grep -c 'health-fleet-outlier' "$TEST_OUT")" -eq 1 ]
ok $? "  no other GPU is accused"

{ busy; printf 'rank2:gpu0.sm=1290\n'; } >"$CFG"
expect_success "a GPU 9% slower with no reason" fleet --format json --output "$TEST_TMP/f.json"
if PY=$(command -v python3); then
	"$PY" - "$TEST_TMP/f.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["id"] == "health-fleet-outlier"]
print("# ", [(x["severity"], x["message"]) for x in f])
sys.exit(0 if len(f) == 1 and f[0]["severity"] == "warning" and f[0]["message"].endswith(":node2 GPU0: SM 1290 MHz (fleet 1410)")
         and d["fleet"]["nodes"] == 8 else 1)
PY
	ok $? "  it is a warning, named as one JSON finding"
fi

busy >"$CFG"
expect_success "a fleet of equal GPUs" fleet
! grep -q 'health-' "$TEST_OUT"
ok $? "  no outlier and no health finding"

# idle GPUs lower their clocks by design: no comparison
{ busy; printf 'gpu0.reasons=1\ngpu1.reasons=1\ngpu0.sm=345\ngpu1.sm=345\nrank3:gpu0.sm=210\n'; } >"$CFG"
expect_success "an idle fleet, one GPU idling lower" fleet
! grep -q 'health-fleet-outlier' "$TEST_OUT"
ok $? "  idle clocks are not compared"

expect_code 64 "--ranks-per-node that does not divide the ranks" np_mpi 3 topo --ranks-per-node 2
expect_grep 'ranks do not divide into nodes of 2' "$TEST_ERR" "  says so"
done_testing
