#!/bin/sh
# SPDX-License-Identifier: MIT
# topo --input on hostile and damaged files: each one of tests/fuzz/regress/
# topo (crashes and slow inputs that fuzzing and audits found) is one line
# on stderr, nothing on stdout, exit 64; the files hwloc and NCCL really
# write keep working.
. "$(dirname "$0")/lib.sh"

R=$srcdir/tests/fuzz/regress/topo
S=$srcdir/tests/fuzz/seed

# one line on stderr containing $1, nothing on stdout
one_line() { [ "$(wc -l <"$TEST_ERR")" -eq 1 ] && grep -qF -- "$1" "$TEST_ERR" && [ ! -s "$TEST_OUT" ]; }

while IFS='	' read -r file want; do
	case $file in '#'*|'') continue ;; esac
	expect_code 64 "$file: exit 64" np topo --input "$R/$file"
	one_line "$want"; ok $? "  one line: $(head -c 300 "$TEST_ERR")"
done <"$R/EXPECT"

# every regression file has its expected line
for f in "$R"/*.xml; do
	grep -q "^$(basename "$f")	" "$R/EXPECT"
	ok $? "$(basename "$f") is listed in EXPECT"
done

# hwloc drops the CPUs and NUMA nodes outside the root's allowed sets; a
# file left with none failed with hwloc's own message as a second line,
# or crashed hwloc 2.9 (SIGSEGV, the fuzz file above)
for c in 'allowed_cpuset="0x00000003"|allowed_cpuset="0x00000004"|allowed_cpuset="0x00000004" allows none of the file'"'"'s CPUs' \
	'allowed_nodeset="0x00000001"|allowed_nodeset="0x0"|allowed_nodeset="0x0" allows none of the file'"'"'s NUMA nodes' \
	'<object type="NUMANode".*/>||has no NUMANode object with a node in its nodeset' \
	'nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="4"|nodeset="0x0" complete_nodeset="0x0" gp_index="4"|has no NUMANode object'; do
	from=${c%%|*}; rest=${c#*|}; to=${rest%%|*}; want=${rest#*|}
	sed "s@$from@$to@" "$S/hwloc/small.xml" >"$TEST_TMP/allowed.xml"
	expect_code 64 "hwloc XML with $from -> '$to'" np topo --input "$TEST_TMP/allowed.xml"
	one_line "$want"; ok $? "  one line: $(head -c 300 "$TEST_ERR")"
done
sed 's@allowed_cpuset="0x00000003"@allowed_cpuset="0x00000002"@; s@allowed_nodeset="0x00000001"@allowed_nodeset="0xf...f"@' \
	"$S/hwloc/small.xml" >"$TEST_TMP/allowed.xml"
expect_success "hwloc XML that allows one of its two CPUs" np topo --input "$TEST_TMP/allowed.xml" --quiet

# a file hwloc imports with a complaint (children out of order, which it
# reorders; fuzzing found one): hwloc's banner of asterisks was printed
# beside the report. Now one note tells what hwloc said, and the report
# is of the file as hwloc reads it.
sed '/type="PU" os_index="0"/{h;d}; /type="PU" os_index="1"/G' "$S/hwloc/small.xml" >"$TEST_TMP/order.xml"
grep -n 'type="PU"' "$TEST_TMP/order.xml" | head -1 | grep -q 'os_index="1"'
ok $? "the two PUs of small.xml swapped"
expect_success "hwloc XML with its PUs out of order" np topo --input "$TEST_TMP/order.xml"
! grep -q '\*\*\*' "$TEST_ERR" && [ "$(grep -c 'out-of-order' "$TEST_ERR")" -eq 1 ] &&
	grep -q "^note: hwloc read --input '.*order.xml' but said \"hwloc has encountered an out-of-order XML topology load\"; what follows is the file as hwloc repaired it" "$TEST_ERR"
ok $? "  no banner of hwloc's on stderr, one note of what it said: $(head -c 300 "$TEST_ERR")"
grep -Eq '^  0 +0000:01:00.0 +NVIDIA H200' "$TEST_OUT"
ok $? "  the GPU is read"
expect_success "  with HWLOC_HIDE_ERRORS=1 set (hwloc's default, shows what it calls critical)" \
	env HWLOC_HIDE_ERRORS=1 "$NP_BIN" topo --input "$TEST_TMP/order.xml" --quiet
[ "$(grep -c 'out-of-order' "$TEST_ERR")" -eq 1 ]
ok $? "  hwloc's banner once, from the import that the report is made of: $(grep -c 'out-of-order' "$TEST_ERR")"

# a crash inside hwloc's importer on a file that passes every check (as
# hwloc 2.9 had, found by fuzzing) is still one line and exit 64: outside
# MPI the file is imported in a child process first
CRASH=$top_builddir/tests/fuzz/libcrashhwloc.so
if [ -f "$CRASH" ]; then
	expect_code 64 "hwloc's importer crashing" env LD_PRELOAD="$CRASH" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$NP_BIN" topo --input "$S/hwloc/small.xml"
	one_line "--input '$S/hwloc/small.xml'"; ok $? "  one line: $(head -c 300 "$TEST_ERR")"
else
	ok 0 "hwloc's importer crashing # SKIP $CRASH not built"
fi

# the slow case as reported: a 100 KB entity used 4000 times in one
# attribute (112 KB); it took 71 s and 400 MB, and is now refused unread
big=$(head -c 100000 /dev/zero | tr '\0' A)
uses=$(yes '&e;' | head -n 4000 | tr -d '\n')
printf '<?xml version="1.0"?>\n<!DOCTYPE system [<!ENTITY e "%s">]>\n<system version="1"><cpu numaid="0" affinity="%s"/></system>\n' \
	"$big" "$uses" >"$TEST_TMP/entity.xml"
expect_code 64 "NCCL file with a 100 KB entity used 4000 times" np topo --input "$TEST_TMP/entity.xml"
one_line "declares an entity in its DOCTYPE"; ok $? "  one line: $(head -c 300 "$TEST_ERR")"
# (each & escaped for sed, which put the matched text there: 4000 attributes)
sed "s|<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">|<!DOCTYPE topology SYSTEM \"hwloc2.dtd\" [<!ENTITY e \"$big\">]>|; s|value=\"small\"|value=\"$(echo "$uses" | sed 's/&/\\&/g')\"|" \
	"$S/hwloc/small.xml" >"$TEST_TMP/entity-hwloc.xml"
expect_code 64 "hwloc file with the same entity" np topo --input "$TEST_TMP/entity-hwloc.xml"
one_line "declares an entity in its DOCTYPE"; ok $? "  one line: $(head -c 300 "$TEST_ERR")"

# many sibling PCI devices: hwloc's importer is quadratic in them, so an
# hwloc XML gets a bound; the NCCL source reads 100k (speed is measured by
# tests/bench/topo-input-scale.sh, not here)
awk 'BEGIN { s = "cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\""
	print "<topology version=\"2.0\"><object type=\"Machine\" os_index=\"0\" " s ">"
	print "<object type=\"Bridge\" bridge_type=\"0-1\" bridge_pci=\"0000:[00-ff]\">"
	for (i = 0; i < 4097; i++)
		printf "<object type=\"PCIDev\" pci_busid=\"0000:%02x:%02x.%x\" pci_type=\"0108 [144d:a80a] [144d:a801] 00\"/>\n", int(i / 256), int(i / 8) % 32, i % 8
	print "</object></object></topology>" }' >"$TEST_TMP/siblings.xml"
expect_code 64 "hwloc XML with 4097 children of one object" np topo --input "$TEST_TMP/siblings.xml"
one_line "is one child object too many"; ok $? "  one line: $(head -c 300 "$TEST_ERR")"
awk 'BEGIN { print "<system version=\"1\"><cpu numaid=\"0\">"
	print "<pci busid=\"0000:00:01.0\" class=\"0x030200\"><gpu dev=\"0\"/></pci>"
	for (i = 0; i < 100000; i++)
		printf "<pci busid=\"%04x:%02x:%02x.%x\" class=\"0x010802\"/>\n", 1 + int(i / 8192), int(i / 256) % 32, int(i / 8) % 32, i % 8
	print "</cpu></system>" }' >"$TEST_TMP/pci100k.xml"
expect_success "NCCL file with 100k sibling <pci> elements" np topo --input "$TEST_TMP/pci100k.xml" --quiet
grep -Eq '^  0 +0000:00:01.0 ' "$TEST_OUT"
ok $? "  its GPU is read"

# what hwloc and NCCL write still reads
expect_success "hwloc XML with <!DOCTYPE topology SYSTEM \"hwloc2.dtd\">" np topo --input "$S/hwloc/small.xml" --quiet
grep -q '^  0 +0000:01:00.0 +NVIDIA H200' "$TEST_OUT" || grep -Eq '^  0 +0000:01:00.0 +NVIDIA H200' "$TEST_OUT"
ok $? "  the GPU is read"
sed 's|hwloc2.dtd|hwloc.dtd|' "$S/hwloc/small.xml" >"$TEST_TMP/v1dtd.xml"
expect_success "hwloc XML with hwloc 1.x's DTD name" np topo --input "$TEST_TMP/v1dtd.xml" --quiet
grep -v DOCTYPE "$S/hwloc/small.xml" >"$TEST_TMP/nodtd.xml"
expect_success "hwloc XML without a DOCTYPE" np topo --input "$TEST_TMP/nodtd.xml" --quiet
expect_success "NCCL topology file" np topo --input "$S/nccl/small.xml" --quiet
grep -Eq '^  1 +0000:21:00.0 ' "$TEST_OUT"
ok $? "  both GPUs are read"
expect_success "NCCL file with 32-bit PCI domains" np topo --input "$S/nccl/domain32.xml" --quiet
grep -Eq '^  0 +10000000:11:00.0 ' "$TEST_OUT" && grep -Eq '^  1 +10000001:11:00.0 ' "$TEST_OUT"
ok $? "  two GPUs, their bus ids whole (a 16-byte buffer cut both to 10000000:11:00.)"
expect_success "snapshot" np topo --input "$S/hwloc/snapshot-small.xml" --quiet
grep -Eq '^GPU0 +X +PIX' "$TEST_OUT"
ok $? "  the GPU and its NIC are read"

# bounds checked before libxml2 reads the file (its attribute check is
# quadratic: 40,000 attributes took seconds; 66 MB of empty elements grew
# to 2 GB): each refusal names its bound; the files below them still parse
bound() { # $1 what, $2 line the error must name, $3 the expected words; file in $TEST_TMP/b.xml
	expect_code 64 "$1: exit 64" np topo --input "$TEST_TMP/b.xml"
	one_line "line $2: $3, past nccl-probe's bound for a topology file; give an hwloc XML"
	ok $? "  one line naming the bound: $(head -c 300 "$TEST_ERR")"
}
attrs() { awk -v n="$1" 'BEGIN { printf "<topology version=\"2.0\">\n<object type=\"Machine\""
	for (i = 0; i < n; i++) printf " a%d=\"1\"", i; print "/>\n</topology>" }' >"$TEST_TMP/b.xml"; }
attrs 39999; bound "one element with 40,000 attributes" 2 "an element with more than 64 attributes"
attrs 64; bound "one element with 65 attributes" 2 "an element with more than 64 attributes"
attrs 63
expect_code 64 "one element with 64 attributes: read, and refused by what follows" np topo --input "$TEST_TMP/b.xml"
grep -q 'has no cpuset attribute' "$TEST_ERR"; ok $? "  by the hwloc checks: $(head -c 300 "$TEST_ERR")"
awk 'BEGIN { print "<topology version=\"2.0\">"; for (i = 0; i < 262145; i++) printf "<a/>"; print "\n</topology>" }' \
	>"$TEST_TMP/b.xml"
bound "262,145 empty elements" 2 "more than 262144 elements"
awk 'BEGIN { print "<topology>"; for (i = 0; i < 200000; i++) printf "<a b=\"1\" c=\"2\" d=\"3\"/>\n"; print "</topology>" }' \
	>"$TEST_TMP/b.xml"
bound "600,000 attributes in all" 174764 "more than 524288 attributes"
awk 'BEGIN { print "<topology>"; for (i = 0; i < 129; i++) printf "<a>"; for (i = 0; i < 129; i++) printf "</a>"; print "\n</topology>" }' \
	>"$TEST_TMP/b.xml"
bound "elements 130 deep" 2 "elements nested more than 128 deep"
awk 'BEGIN { printf "<topology>\n<object type=\"Machine\" "; for (i = 0; i < 129; i++) printf "x"; print "=\"1\"/>\n</topology>" }' \
	>"$TEST_TMP/b.xml"
bound "an attribute name of 129 characters" 2 "a name longer than 128 characters"
printf '<topology>\n<!-- <a b="1" c="2"> -->\n<![CDATA[<x>]]>\n<object type="Machine" name="a>b/c"\n cpuset="0x1" b=">"/>\n</topology>\n' \
	>"$TEST_TMP/b.xml"
expect_code 64 "comments, CDATA and '>' in values are not markup to the bounds" np topo --input "$TEST_TMP/b.xml"
! grep -q "bound for a topology" "$TEST_ERR"; ok $? "  refused by later checks: $(head -c 300 "$TEST_ERR")"

done_testing
