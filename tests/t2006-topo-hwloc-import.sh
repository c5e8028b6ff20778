#!/bin/sh
# SPDX-License-Identifier: MIT
# topo --input reads every hwloc XML that hwloc 2.x imports: hwloc's own
# 1.x and 2.x exports (tests/topo/hwloc, the fixtures' real machines) are
# accepted by both 'lstopo-no-graphics -i' and nccl-probe. And what a
# reader of such a file knows after import: a 1.x file without NUMANode
# objects has one NUMA node, CPU-less NUMA nodes are kept, and an export
# without PCI bridges is not a hypervisor's flattened tree.
. "$(dirname "$0")/lib.sh"

T=$srcdir/tests/topo
LSTOPO=$(command -v lstopo-no-graphics || command -v lstopo || true)
NCCL_PROBE_PCI_IDS=$T/pci.ids
export NCCL_PROBE_PCI_IDS

case ${NP_FIXTURES:-} in
"" | /*) ;;
*) NP_FIXTURES=$srcdir/$NP_FIXTURES ;;
esac
files="$T/hwloc/*.xml"
[ -n "${NP_FIXTURES:-}" ] && [ -d "$NP_FIXTURES/topology/hwloc" ] && files="$files $NP_FIXTURES/topology/hwloc/*.xml"

for f in $files; do
	name=$(basename "$f")
	if [ -n "$LSTOPO" ]; then
		"$LSTOPO" -i "$f" --of xml - >/dev/null 2>&1
		ok $? "$name: hwloc imports it ($LSTOPO -i)"
	else
		ok 0 "$name: hwloc imports it # SKIP no lstopo-no-graphics (hwloc-nox) installed"
	fi
	np topo --input "$f" --quiet >"$TEST_OUT" 2>"$TEST_ERR"
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 1 ]
	ok $? "$name: nccl-probe reads it (exit $rc$([ $rc -gt 1 ] && echo ": $(head -n 1 "$TEST_ERR")"))"
done

# the 1.x rules apply to 1.x files only: a 2.x file with a Package below
# a NUMANode is refused, as hwloc refuses it
sed -e 's/<topology>/<topology version="2.0">/' "$T/hwloc/hwloc1-2intel64-1n2c-numaroot.xml" >"$TEST_TMP/v2root.xml"
expect_code 64 "a 2.x file whose root is a NUMANode is refused" np topo --input "$TEST_TMP/v2root.xml"
expect_grep "is not Machine" "$TEST_ERR" "  and the message names the root's type"
if [ -n "$LSTOPO" ]; then
	! "$LSTOPO" -i "$TEST_TMP/v2root.xml" --of xml - >/dev/null 2>&1
	ok $? "  hwloc refuses it too"
fi

# a 1.x object without a cpuset is refused, before hwloc's importer
sed -e '20s/ cpuset="0x00000001" complete_cpuset="0x00000001"//' \
	"$T/hwloc/hwloc1-2intel64-1n2c-numaroot.xml" >"$TEST_TMP/nocpuset.xml"
expect_code 64 "a 1.x Core without its cpusets is refused" np topo --input "$TEST_TMP/nocpuset.xml"
expect_grep "no cpuset" "$TEST_ERR" "  the message says which attribute is missing"

# Port<N>State infos are read; the note names only what the file lacks
np topo --input "$T/hwloc/hwloc1-16intel64-manyVFs.xml" --format json >"$TEST_OUT" 2>"$TEST_ERR"
grep -q 'NIC port rates, PCIe generations' "$TEST_ERR" && ! grep -q 'NIC port states' "$TEST_ERR"
ok $? "a file whose NICs carry Port1State: their states are not called missing, their rates are"
grep -q '"state": *"ACTIVE"' "$TEST_OUT"
ok $? "  and the states are read (Port1State 4: ACTIVE)"
for v in 4x +4 " 4" 4294967300; do
	sed "s/name=\"Port1State\" value=\"4\"/name=\"Port1State\" value=\"$v\"/" \
		"$T/hwloc/hwloc1-16intel64-manyVFs.xml" >"$TEST_TMP/portstate.xml"
	np topo --input "$TEST_TMP/portstate.xml" --format json >"$TEST_OUT" 2>"$TEST_ERR"
	[ "$(grep -c '"state": *"unknown"' "$TEST_OUT")" = 3 ] && ! grep -q '"state": *"ACTIVE"' "$TEST_OUT"
	ok $? "  Port1State '$v' is not a state: unknown"
done
np topo --input "$T/hwloc/hwloc1-24em64t-2n6c2t-pci.xml" >"$TEST_OUT" 2>"$TEST_ERR"
expect_grep 'NIC port states and rates' "$TEST_ERR" "a file whose NIC has no Port1State: its port states are named missing"

# An export without PCI bridges, made by hwloc from the SL390s file
# (--filter bridge:none): each device hangs from its package. The
# machine is bare metal: GPU0 (06:00.0) and mlx4_0 (05:00.0) share NUMA 0,
# but with no bridge in the file their PCIe path cannot be told; GPUs
# 11:00.0 and 14:00.0 are on NUMA 1, across sockets from the NIC: SYS.
if [ -n "$LSTOPO" ] && command -v python3 >/dev/null; then
	"$LSTOPO" -i "$T/hwloc/hwloc1-24em64t-2n6c2t-pci.xml" --filter bridge:none --of xml "$TEST_TMP/nobridge.xml" 2>/dev/null
	! grep -q 'type="Bridge"' "$TEST_TMP/nobridge.xml"
	ok $? "the export made without bridges has none"
	np topo --input "$TEST_TMP/nobridge.xml" --quiet --format json >"$TEST_TMP/nb.json" 2>"$TEST_ERR"
	rc=$?
	[ $rc -le 1 ]
	ok $? "nccl-probe reads the export without bridges"
	cat >"$TEST_TMP/nb.truth" <<'TRUTH'
gpus 3
nics 1
numa 2
gpu 0000:06:00.0 path=- nccl=-
gpu 0000:11:00.0 path=SYS nccl=SYS
gpu 0000:14:00.0 path=SYS nccl=SYS
forbid vm-flattened
TRUTH
	python3 "$T/truth.py" "$TEST_TMP/nb.truth" "$TEST_TMP/nb.json" >"$TEST_TMP/diff" 2>&1
	ok $? "  not a flattened VM; GPU0's path unknown, the other GPUs SYS"
	[ $? -eq 0 ] || sed 's/^/#   /' "$TEST_TMP/diff"
	np topo --input "$TEST_TMP/nobridge.xml" --quiet --recommend >"$TEST_OUT" 2>&1
	! grep -q NCCL_TOPO_FILE "$TEST_OUT"
	ok $? "  and no NCCL_TOPO_FILE placeholder is recommended"
else
	ok 0 "export without bridges # SKIP lstopo-no-graphics (hwloc-nox) or python3 missing"
fi

done_testing
