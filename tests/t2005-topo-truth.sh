#!/bin/sh
# SPDX-License-Identifier: MIT
# topo against hand-written truth: every real machine's file in
# $NP_FIXTURES/topology has tests/topo/truth/NAME.truth, every hand-made
# edge case tests/topo/edge/NAME.xml and every public file
# tests/topo/{hwloc,nccl}/NAME.xml has NAME.truth beside it (counts,
# nearest NIC and path class per GPU, NVLinks, GDR answers, findings that
# must and must not appear, --check-gdr's exit status), written from
# reading the XML. And 'eval "$(nccl-probe topo --recommend)"' is safe on
# every one of them.
. "$(dirname "$0")/lib.sh"

PY=$(command -v python3 || true)
SH=$(command -v sh)
[ -n "$PY" ] || skip_all "python3 is needed to read the JSON"
NCCL_PROBE_PCI_IDS=$srcdir/tests/topo/pci.ids
export NCCL_PROBE_PCI_IDS
T=$srcdir/tests/topo

# eval_safe FILE: the lines eval in a shell that has no PATH (no command
# can run), print nothing, create no file and set only NCCL_* variables.
eval_safe() {
	d=$TEST_TMP/evaldir
	rm -rf "$d" && mkdir "$d"
	(cd "$d" && env -i PATH="$d/nopath" "$SH" -c '
		export -p >"$2/before"
		eval "$1" || exit 1
		export -p >"$2/after"' sh "$(cat "$1")" "$TEST_TMP") >"$TEST_TMP/eval.out" 2>&1 || return 1
	[ ! -s "$TEST_TMP/eval.out" ] && [ -z "$(ls -A "$d")" ] || return 1
	vars() { sed -n 's/^export \([A-Za-z_0-9]*\).*/\1/p' "$1" | sort; }
	vars "$TEST_TMP/before" >"$TEST_TMP/before.s"
	vars "$TEST_TMP/after" >"$TEST_TMP/after.s"
	[ -z "$(comm -13 "$TEST_TMP/before.s" "$TEST_TMP/after.s" | grep -v '^NCCL_')" ]
}

# check NAME XML TRUTH
check() {
	name=$1 xml=$2 truth=$3
	if [ ! -f "$truth" ]; then
		ok 1 "$name: a truth file ${truth#$srcdir/} exists"
		return
	fi
	np topo --input "$xml" --quiet --format json >"$TEST_TMP/out.json" 2>"$TEST_ERR"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
		ok 1 "$name: topo --input runs (exit $rc: $(cat "$TEST_ERR"))"
		return
	fi
	"$PY" "$T/truth.py" "$truth" "$TEST_TMP/out.json" >"$TEST_TMP/diff" 2>&1
	rc=$?
	ok $rc "$name: the program agrees with ${truth#$srcdir/}"
	[ $rc -eq 0 ] || sed 's/^/#   /' "$TEST_TMP/diff"
	want=$(sed -n 's/^check-gdr-exit //p' "$truth")
	if [ -n "$want" ]; then
		expect_code "$want" "$name: --check-gdr exits $want" np topo --input "$xml" --quiet --check-gdr
		if [ "$want" -eq 1 ]; then
			! grep -q '^GPU[0-9]* .*: GDR no: *$' "$TEST_OUT"
			ok $? "$name: every 'no' has a reason"
		fi
	fi
	np topo --input "$xml" --quiet --recommend >"$TEST_TMP/rec" 2>"$TEST_ERR"
	ok $? "$name: --recommend runs"
	! grep -Eq '/path/to|<[a-z]+>|=\.\.\.$' "$TEST_TMP/rec" || ! grep -v '^#' "$TEST_TMP/rec" | grep -q .
	ok $? "$name: no placeholder value outside a comment"
	eval_safe "$TEST_TMP/rec"
	ok $? "$name: eval \"\$(nccl-probe topo --recommend)\" is safe$( [ -s "$TEST_TMP/eval.out" ] && echo ": $(cat "$TEST_TMP/eval.out")")"
	if grep -q "defaults fit" "$TEST_TMP/rec"; then
		np topo --input "$xml" --quiet >"$TEST_TMP/full" 2>&1
		! grep -Eq '^  (warning|error) ' "$TEST_TMP/full"
		ok $? "$name: 'NCCL's defaults fit' only without warnings"
	fi
}

for f in "$T"/edge/*.xml; do
	check "edge/$(basename "$f")" "$f" "${f%.xml}.truth"
done
for f in "$T"/hwloc/*.xml "$T"/nccl/*.xml; do
	check "$(basename "$(dirname "$f")")/$(basename "$f")" "$f" "${f%.xml}.truth"
done

# the truth checker fails on a wrong fact
sed 's/nvlinks=18/nvlinks=17/' "$T/edge/nccl-gdr-nvlink.truth" >"$TEST_TMP/wrong.truth"
np topo --input "$T/edge/nccl-gdr-nvlink.xml" --quiet --format json >"$TEST_TMP/out.json"
! "$PY" "$T/truth.py" "$TEST_TMP/wrong.truth" "$TEST_TMP/out.json" >/dev/null
ok $? "the truth checker fails on a wrong NVLink count"
# the same Grace tray without its <c2c> links: PHB to NCCL, beyond its GDR level
grep -v '<c2c' "$T/edge/nccl-grace-c2c.xml" >"$TEST_TMP/noc2c.xml"
np topo --input "$TEST_TMP/noc2c.xml" --quiet --format json >"$TEST_TMP/out.json"
printf 'gpu 0008:01:00.0 path=PHB nccl=PHB gdr=no\nexpect gdr-path\n' >"$TEST_TMP/noc2c.truth"
"$PY" "$T/truth.py" "$TEST_TMP/noc2c.truth" "$TEST_TMP/out.json" >"$TEST_TMP/diff" 2>&1
rc=$?
ok $rc "a GPU without C2C links is PHB to a NIC on its CPU, beyond the GDR level"
[ $rc -eq 0 ] || sed 's/^/#   /' "$TEST_TMP/diff"
# the PXN node without NVLinks: GDR no beyond the level; with its NVLinks
# not in the file (no <gpu>): unknown, never yes or no
grep -v '<nvlink' "$T/edge/nccl-pxn.xml" >"$TEST_TMP/nonv.xml"
np topo --input "$TEST_TMP/nonv.xml" --quiet --format json >"$TEST_TMP/out.json"
printf 'gpu 0000:38:00.0 nccl=PHB gdr=no pxn=-\nexpect gdr-path\nrec NCCL_NET_GDR_LEVEL diagnostic\n' >"$TEST_TMP/nonv.truth"
"$PY" "$T/truth.py" "$TEST_TMP/nonv.truth" "$TEST_TMP/out.json" >"$TEST_TMP/diff" 2>&1
rc=$?
ok $rc "a GPU without NVLinks and with its NIC far is not sent through a peer (no PXN)"
[ $rc -eq 0 ] || sed 's/^/#   /' "$TEST_TMP/diff"
grep -v '<nvlink\|<gpu\|</gpu' "$T/edge/nccl-pxn.xml" >"$TEST_TMP/nvunk.xml"
np topo --input "$TEST_TMP/nvunk.xml" --quiet --format json >"$TEST_TMP/out.json"
printf 'gpu 0000:38:00.0 gdr=unknown pxn=-\ngpu 0000:18:00.0 gdr=unknown\nexpect gdr-unknown\nforbid gdr-path\nnorec NCCL_NET_GDR_LEVEL\n' >"$TEST_TMP/nvunk.truth"
"$PY" "$T/truth.py" "$TEST_TMP/nvunk.truth" "$TEST_TMP/out.json" >"$TEST_TMP/diff" 2>&1
rc=$?
ok $rc "with NVLinks the file cannot tell, PXN and so GDR of a GPU far from its NIC are unknown"
[ $rc -eq 0 ] || sed 's/^/#   /' "$TEST_TMP/diff"
np topo --input "$TEST_TMP/nvunk.xml" --quiet --check-gdr >"$TEST_TMP/gdr" 2>&1
grep -q '^GPU1 0000:38:00.0: GDR unknown: .*NVLink.*(PXN)' "$TEST_TMP/gdr"
ok $? "  and --check-gdr says the NVLinks to a GPU near a NIC (PXN) are what is missing"
# --host-hash reports another tray of a multi-node NVLink dump; a hash
# the file lacks, a file without trays and no --input are refused
np topo --input "$T/edge/nccl-mnnvl.xml" --host-hash 0x2222 --quiet --format json >"$TEST_TMP/out.json"
printf 'nic 0008:03:00.0 port=1\ngpu 0008:02:00.0 gdr=no\ntray 0x2222 reported=yes\ntray 0x1111 reported=no gdr=yes\nexpect gdr-gpu-unsupported\n' >"$TEST_TMP/t2.truth"
"$PY" "$T/truth.py" "$TEST_TMP/t2.truth" "$TEST_TMP/out.json" >"$TEST_TMP/diff" 2>&1
rc=$?
ok $rc "--host-hash 0x2222 reports the second tray, its GPU with gdr=\"0\""
[ $rc -eq 0 ] || sed 's/^/#   /' "$TEST_TMP/diff"
grep -q '"name": "mlx5_4"' "$TEST_TMP/out.json"
ok $? "  and its own NIC, mlx5_4"
expect_code 1 "a dump whose second tray has an error finding exits 1, whichever tray is reported" np topo --input "$T/edge/nccl-mnnvl.xml" --host-hash 0x1111
expect_code 0 "  and 0 with --fail-on never" np topo --input "$T/edge/nccl-mnnvl.xml" --fail-on never
# a real GB300 dump whose second tray lost one GPU's NVLinks (NCCL dropped
# them silently): that tray reported, its GPU is named with the NVLinks it
# lacks, an error; reported from the first tray, the Trays table says it
G=$T/nccl/gb300-nvl72-2tray-gpu-nvlinks-lost-topo.xml
np topo --input "$G" --host-hash 0xHOSTHASH_A --quiet --format json >"$TEST_TMP/out.json"
printf '%s\n' 'gpu 0009:06:00.0 nearest=0016:01:00.0 path=SYS nvlinks=0 gdr=no pxn=-' \
	'gpu 0008:06:00.0 nvlinks=18 gdr=yes' 'gpu 0019:06:00.0 nvlinks=18 gdr=yes' \
	'expect nvlink-none' 'forbid nvlink-fewer' \
	'says nvlink-none GPU1_has_no_NVLink_while_3_of_the_3_other_GPUs_like_it_have_18' \
	'says nvlink-none GPU0,_GPU2,_GPU3:_18_each' \
	'tray 0xHOSTHASH_A reported=yes gdr=no' >"$TEST_TMP/lost.truth"
"$PY" "$T/truth.py" "$TEST_TMP/lost.truth" "$TEST_TMP/out.json" >"$TEST_TMP/diff" 2>&1
rc=$?
ok $rc "GB300, a GPU whose NVLinks NCCL's dump lost: nvlink-none (error) names it beside its 18-link peers"
[ $rc -eq 0 ] || sed 's/^/#   /' "$TEST_TMP/diff"
expect_code 1 "  the dump exits 1, reported from the healthy tray" np topo --input "$G"
expect_grep '^  2     0xHOSTHASH_A +4 +1 +1 +no +[0-9]+ +1$' "$TEST_OUT" "  the Trays table counts the second tray's error"
expect_grep '^  tray 2: error nvlink-none \[GPU1\]: GPU1 has no NVLink .*\(--host-hash 0xHOSTHASH_A reports it\)$' "$TEST_OUT" \
	"  and a line says it, with how to report that tray"
np topo --input "$G" --quiet --format json >"$TEST_TMP/out.json"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["trays"]; sys.exit(not (t[1]["errors"] == 1 and t[1]["first_error"].startswith("nvlink-none [GPU1]") and t[0]["errors"] == 0 and t[0]["first_error"] is None))' \
	"$TEST_TMP/out.json"
ok $? "  and the JSON's trays: errors 1 and first_error for the second, 0 and null for the first"
expect_code 0 "the healthy dump of the same trays: exit 0" np topo --input "$T/nccl/gb300-nvl72-2tray-topo.xml"
# links straight between GPUs (a bridged pair) beside a GPU of the same
# kind without any: a warning, since a box may be built so; never an error
cat >"$TEST_TMP/bridged.xml" <<'EOF2'
<system version="1">
  <cpu numaid="0" affinity="ff" arch="x86_64">
    <pci busid="0000:18:00.0" class="0x030000" vendor="0x10de" device="0x2230"><gpu dev="0" sm="86" rank="0" gdr="0"><nvlink target="0000:19:00.0" count="4" tclass="0x030000"/></gpu></pci>
    <pci busid="0000:19:00.0" class="0x030000" vendor="0x10de" device="0x2230"><gpu dev="1" sm="86" rank="1" gdr="0"><nvlink target="0000:18:00.0" count="4" tclass="0x030000"/></gpu></pci>
    <pci busid="0000:1a:00.0" class="0x030000" vendor="0x10de" device="0x2230"><gpu dev="2" sm="86" rank="2" gdr="0"/></pci>
  </cpu>
</system>
EOF2
np topo --input "$TEST_TMP/bridged.xml" --quiet --format json >"$TEST_TMP/out.json"
printf '%s\n' 'gpu 0000:1a:00.0 nvlinks=0' 'expect nvlink-none' \
	'says nvlink-none straight_to_GPUs:_a_bridge_or_link_is_missing,_or_the_box_is_built_so' >"$TEST_TMP/br.truth"
"$PY" "$T/truth.py" "$TEST_TMP/br.truth" "$TEST_TMP/out.json" >"$TEST_TMP/diff" 2>&1 &&
	python3 -c 'import json,sys; f=[x for x in json.load(open(sys.argv[1]))["findings"] if x["id"] == "nvlink-none"]; sys.exit(not (len(f) == 1 and f[0]["severity"] == "warning"))' "$TEST_TMP/out.json"
ok $? "a bridged pair beside an unbridged GPU of its kind: nvlink-none, a warning, not an error"
# the same dump with every GPU of the second tray without its NVLinks:
# each tray alone reads even, the domain does not
python3 - "$T/nccl/gb300-nvl72-2tray-topo.xml" "$TEST_TMP/traylost.xml" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index('host_hash="0xHOSTHASH_A"')
open(sys.argv[2], "w").write(s[:i] + "".join(l for l in s[i:].splitlines(True) if "<nvlink" not in l))
PY
expect_code 1 "GB300, a tray whose every GPU lost its NVLinks: exit 1" np topo --input "$TEST_TMP/traylost.xml"
expect_grep "^  tray 2: error nvlink-tray \\[tray 2\\]: the GPUs of tray 2 \\(host_hash 0xHOSTHASH_A\\) have at most 0 NVLinks, the same GPUs of tray 1 have 18" \
	"$TEST_OUT" "  the Trays table names the tray against the domain's other tray"
np topo --input "$TEST_TMP/traylost.xml" --host-hash 0xHOSTHASH_A --quiet --format json >"$TEST_TMP/out.json"
printf '%s\n' 'expect nvlink-tray' 'forbid nvlink-none' 'says nvlink-tray the_same_GPUs_of_tray_1_have_18' >"$TEST_TMP/tl.truth"
"$PY" "$T/truth.py" "$TEST_TMP/tl.truth" "$TEST_TMP/out.json" >"$TEST_TMP/diff" 2>&1
ok $? "  reported, that tray has the finding (nvlink-tray, error), not nvlink-none (its GPUs are even)"
expect_code 64 "--host-hash of no tray is refused" np topo --input "$T/edge/nccl-mnnvl.xml" --host-hash 0x4444
expect_grep "its trays' host_hash: 0x1111, 0x2222, 0x3333" "$TEST_ERR" "  naming the trays there are"
expect_code 64 "--host-hash with a file of no trays is refused" np topo --input "$T/edge/nccl-pxn.xml" --host-hash 0x1111
expect_code 64 "--host-hash with an hwloc file is refused" np topo --input "$T/edge/hwloc-vm-flat.xml" --host-hash 0x1111
expect_code 64 "--host-hash without --input is refused" np topo --host-hash 0x1111
# two GPUs on one bus id are refused (no dump has them); a switch on the
# bus id of an earlier one is read, as NCCL makes a node of each element
cat >"$TEST_TMP/dupgpu.xml" <<'EOF2'
<system version="1">
  <cpu numaid="0" affinity="ff" arch="x86_64">
    <pci busid="0000:18:00.0" class="0x030200" vendor="0x10de" device="0x2330"><gpu dev="0" sm="90" rank="0" gdr="1"/></pci>
    <pci busid="0000:18:00.0" class="0x030200" vendor="0x10de" device="0x2330"><gpu dev="1" sm="90" rank="1" gdr="1"/></pci>
  </cpu>
</system>
EOF2
expect_code 64 "two GPUs on one bus id are refused" np topo --input "$TEST_TMP/dupgpu.xml"
expect_grep 'line 4: <pci> busid="0000:18:00.0" is the bus id of an earlier <pci> element' "$TEST_ERR" "  naming the line and the bus id"
sed 's/class="0x030200" vendor="0x10de" device="0x2330"><gpu dev="1".*/class="0x060400"><pci busid="0000:19:00.0" class="0x030200" vendor="0x10de" device="0x2330"><gpu dev="1" sm="90" rank="1" gdr="1"\/><\/pci><\/pci>/' \
	"$TEST_TMP/dupgpu.xml" >"$TEST_TMP/dupsw.xml"
expect_success "a switch on a GPU's bus id is read" np topo --input "$TEST_TMP/dupsw.xml" --quiet --format json
grep -q '"bus_id": "0000:19:00.0"' "$TEST_OUT"
ok $? "  with the GPU below it"
# the safety check fails on a line that runs a command
printf 'export NCCL_X=$(echo x >f)\n' >"$TEST_TMP/bad.rec"
! eval_safe "$TEST_TMP/bad.rec"
ok $? "the eval check fails on a line that writes a file"

case ${NP_FIXTURES:-} in
"") ;;
/*) ;;
*) NP_FIXTURES=$srcdir/$NP_FIXTURES ;;
esac
if [ -n "${NP_FIXTURES:-}" ] && [ -d "$NP_FIXTURES/topology" ]; then
	for f in "$NP_FIXTURES"/topology/hwloc/*.xml "$NP_FIXTURES"/topology/nccl/*.xml; do
		name=$(basename "$f" .xml)
		check "$name" "$f" "$T/truth/$name.truth"
	done
else
	diag "NP_FIXTURES unset or missing: the real machines' files are not checked"
fi

done_testing
