#!/bin/sh
# SPDX-License-Identifier: MIT
# Golden outputs of 'topo --input' on every real machine's file in
# $NP_FIXTURES/topology (tests/topo/NAME.txt compared whole, NAME.json
# compared structurally), and the facts each machine is known for.
. "$(dirname "$0")/lib.sh"

case ${NP_FIXTURES:-} in
"") ;;
/*) ;;
*) NP_FIXTURES=$srcdir/$NP_FIXTURES ;;
esac
need_fixtures
G=$srcdir/tests/topo
H=$NP_FIXTURES/topology/hwloc
N=$NP_FIXTURES/topology/nccl
# names from the test's PCI ID database, not this machine's
NCCL_PROBE_PCI_IDS=$srcdir/tests/topo/pci.ids
export NCCL_PROBE_PCI_IDS

# Compare two JSON documents as data, without the input's path and the
# run's own envelope.
json_same() {
	"$PYTHON" - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.get("source", {}).pop("file", None)
    for k in ("tool", "run_id", "start_time", "cmdline"):  # the envelope: this run's
        d.pop(k, None)
sys.exit(0 if a == b else 1)
PY
}
PYTHON=$(command -v python3 || true)

for f in "$H"/*.xml "$N"/*.xml; do
	name=$(basename "$f" .xml)
	if [ ! -f "$G/$name.txt" ]; then
		ok 1 "$name: a golden tests/topo/$name.txt exists (see tests/topo/README)"
		continue
	fi
	expect_success "$name: topo --input exits 0" np topo --input "$f" --quiet
	diff -u "$G/$name.txt" "$TEST_OUT" >"$TEST_TMP/diff"
	rc=$?
	ok $rc "$name: table matches tests/topo/$name.txt"
	[ $rc -eq 0 ] || sed 's/^/#   /' "$TEST_TMP/diff" | head -n 40
	awk 'length($0) > 100 { bad = 1; print "# too wide: " $0 } END { exit bad }' "$TEST_OUT"
	ok $? "$name: every line of the table fits 100 columns"
	np topo --input "$f" --quiet --wide >"$TEST_TMP/wide.txt" 2>"$TEST_ERR"
	if grep -q '^GPU0 ' "$TEST_OUT"; then
		grep -Eq 'CPU Affinity +NUMA Affinity +GPU NUMA ID' "$TEST_TMP/wide.txt" &&
			grep -q 'BAR1' "$TEST_TMP/wide.txt" && grep -q '^GPU0,*[A-Z0-9,]*: NUMA' "$TEST_OUT"
		ok $? "$name: --wide has the affinity columns and BAR1; the default has the affinity per NUMA node"
	fi
	if [ -n "$PYTHON" ]; then
		np topo --input "$f" --quiet --format json >"$TEST_TMP/out.json" 2>"$TEST_ERR"
		json_same "$G/$name.json" "$TEST_TMP/out.json"
		ok $? "$name: JSON matches tests/topo/$name.json"
	fi
done

# The facts behind the goldens, asserted on their own.
np topo --input "$H/hwloc-nvidiaDGX2.xml" --quiet >"$TEST_OUT" 2>&1
[ "$(grep -Eo '^GPU[0-9]+ ' "$TEST_OUT" | sort -u | wc -l)" -eq 16 ]
ok $? "DGX-2: 16 GPUs in the matrix"
! grep '^GPU[0-9]' "$TEST_OUT" | grep -Eq ' (PIX|PXB|PHB|NODE|SYS) '
ok $? "DGX-2: every GPU pair goes through the NVSwitches"
expect_grep '^GPU15 +NV6 ' "$TEST_OUT" "DGX-2: GPU15 reaches GPU0 over 6 NVLinks"

np topo --input "$H/hwloc-24em64t-2n6c2t-pci.xml" --quiet >"$TEST_OUT" 2>&1
expect_grep '^NIC0 +PHB +SYS +SYS +X' "$TEST_OUT" "SL390s: mlx4_0 is PHB to the GPU of its socket, SYS to the two others"
expect_grep 'numa-gpu-no-nic \[GPU1,GPU2\]' "$TEST_OUT" "SL390s: GPU1 and GPU2 have no NIC on their NUMA node"

np topo --input "$H/hwloc-32em64t-2n8c2t-pci-wholeio.xml" --quiet >"$TEST_OUT" 2>&1
expect_grep '^NIC0 +SYS +PHB +PIX +X' "$TEST_OUT" "K40m machine: mlx5_0 is SYS, PHB and PIX to its three GPUs"
expect_grep '^  2 +0000:84:00.0 +Tesla K40m' "$TEST_OUT" "K40m machine: the GPU with an NVML device is named"

np topo --input "$N/azure-ndv2-topo.xml" --quiet >"$TEST_OUT" 2>&1
expect_grep 'numa-gpu-no-nic \[GPU4,GPU5,GPU6,GPU7\]' "$TEST_OUT" "NDv2: the four GPUs of NUMA 1 have no NIC there"
expect_grep 'numa-nics-one-node' "$TEST_OUT" "NDv2: the one NIC is on NUMA 0 while GPUs span two nodes"

np topo --input "$H/aws-p4d.xml" --quiet >"$TEST_OUT" 2>&1
expect_grep 'vm-flattened' "$TEST_OUT" "p4d hwloc file: a flattened virtual machine tree"
expect_grep '^  # needs your value: export NCCL_TOPO_FILE=\.\.\.$' "$TEST_OUT" "p4d hwloc file: NCCL_TOPO_FILE is recommended, as a comment for the operator's file"
! grep -q 'gdr-path' "$TEST_OUT"
ok $? "p4d hwloc file: no path-based GDR warning from the flattened tree"
np topo --input "$N/aws-p4d-24xl-topo.xml" --quiet >"$TEST_OUT" 2>&1
expect_grep '^GPU0 +X +PIX\? ' "$TEST_OUT" "p4d NCCL file: GPU0 and GPU1 share a switch (their NVLinks not in the file)"
[ "$(grep '^NIC[0-9]' "$TEST_OUT" | grep -o PIX | wc -l)" -eq 8 ]
ok $? "p4d NCCL file: each of the 4 NICs is PIX to exactly 2 GPUs"
! grep -q vm-flattened "$TEST_OUT"
ok $? "p4d NCCL file: no flattened-tree finding"

np topo --input "$H/h200-vm-1gpu.xml" --quiet >"$TEST_OUT" 2>&1
expect_grep '^  0 +0000:00:06.0 +NVIDIA H200 +N/A +63.0 GB/s' "$TEST_OUT" "H200 VM file: the GPU, its 63 GB/s link and an unknown NUMA node"
expect_grep 'gdr-no-nic' "$TEST_OUT" "H200 VM file: no NIC is reported"

np topo --input "$H/hwloc-96em64t-4n4d3ca2co-pci.xml" --quiet >"$TEST_OUT" 2>&1
expect_grep 'GPUs: none' "$TEST_OUT" "4-socket node: says there is no GPU"
expect_code 1 "4-socket node: --check-gdr exits 1 without a GPU" np topo --input "$H/hwloc-96em64t-4n4d3ca2co-pci.xml" --check-gdr --quiet
expect_grep 'no NVIDIA GPU' "$TEST_OUT" "4-socket node: --check-gdr says why"

# A snapshot of a file reproduces the file's findings.
expect_success "p4d hwloc file: --export a snapshot" np topo --quiet --input "$H/aws-p4d.xml" --export "$TEST_TMP/p4d.xml" --format json --output "$TEST_TMP/p4d-file.json"
expect_success "  --input the snapshot" np topo --quiet --input "$TEST_TMP/p4d.xml" --format json --output "$TEST_TMP/p4d-snap.json"
if [ -n "$PYTHON" ]; then
	"$PYTHON" - "$TEST_TMP/p4d-file.json" "$TEST_TMP/p4d-snap.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# evidence names its source ("the snapshot ..."): compare the rest
key = lambda d: [(f["id"], f["severity"], f["subject"]) for f in d["findings"]]
same = key(a) == key(b) and a["recommendations"] == b["recommendations"] and a["paths"] == b["paths"]
sys.exit(0 if same and b["source"]["kind"] == "snapshot" and b["source"]["origin"] == "hwloc-xml" else 1)
PY
	ok $? "  same findings, recommendations and paths"
fi

done_testing
