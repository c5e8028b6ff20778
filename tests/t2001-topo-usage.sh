#!/bin/sh
# SPDX-License-Identifier: MIT
# topo: bad input is a one-line usage error (exit 64) naming the value;
# nothing is left half-written.
. "$(dirname "$0")/lib.sh"

one_line() { [ "$(wc -l <"$TEST_ERR")" -eq 1 ] && grep -qF -- "$1" "$TEST_ERR"; }

expect_success "topo --help" np topo --help
for o in input export check-gdr recommend format output quiet; do
	grep -q -- "--$o" "$TEST_OUT"
	ok $? "topo --help lists --$o"
done

expect_code 64 "a missing --input file" np topo --input "$TEST_TMP/nope.xml"
one_line "nope.xml"; ok $? "  one line naming it: $(cat "$TEST_ERR")"
expect_code 64 "a directory as --input" np topo --input "$TEST_TMP"
one_line "is a directory"; ok $? "  one line: $(cat "$TEST_ERR")"
: >"$TEST_TMP/empty.xml"
expect_code 64 "an empty --input" np topo --input "$TEST_TMP/empty.xml"
one_line "is empty"; ok $? "  one line: $(cat "$TEST_ERR")"
printf 'GPU0 X NV4\n' >"$TEST_TMP/text.xml"
expect_code 64 "a text file as --input" np topo --input "$TEST_TMP/text.xml"
one_line "is not XML"; ok $? "  one line: $(cat "$TEST_ERR")"
printf '<?xml version="1.0"?>\n<root><a/></root>\n' >"$TEST_TMP/other.xml"
expect_code 64 "XML of another format as --input" np topo --input "$TEST_TMP/other.xml"
one_line "unknown format (root element <root>)"; ok $? "  one line: $(cat "$TEST_ERR")"
printf '<?xml version="1.0"?>\n<topology version="2.0"><object type="Bogus"/></topology>\n' >"$TEST_TMP/badhw.xml"
expect_code 64 "a broken hwloc XML as --input" np topo --input "$TEST_TMP/badhw.xml"
one_line 'type="Bogus" is not an hwloc object type'; ok $? "  one line: $(cat "$TEST_ERR")"
printf '<system version="1"><cpu numaid="0"><pci busid="zz"/></cpu></system>\n' >"$TEST_TMP/nccl.xml"
expect_success "an NCCL file with a bad bus id still reads" np topo --input "$TEST_TMP/nccl.xml"
expect_code 64 "--format csv" np topo --format csv
one_line "csv"; ok $? "  one line: $(cat "$TEST_ERR")"
expect_code 64 "--format of an unknown kind" np topo --format xml
expect_code 64 "--check-gdr with --recommend" np topo --check-gdr --recommend
expect_code 64 "an option of sweep" np topo --coll allreduce
expect_code 64 "--output in a missing directory" np topo --output "$TEST_TMP/no/such/out.txt"
one_line "no/such"; ok $? "  one line: $(cat "$TEST_ERR")"
printf '<system version="1"><cpu numaid="0"/></system>\n' >"$TEST_TMP/n.xml"
expect_code 64 "--export of an NCCL file" np topo --input "$TEST_TMP/n.xml" --export "$TEST_TMP/snap.xml"
one_line "--export needs"; ok $? "  one line: $(cat "$TEST_ERR")"
[ ! -e "$TEST_TMP/snap.xml" ]
ok $? "  no snapshot file is left"
expect_code 64 "--export into a missing directory" np topo --export "$TEST_TMP/no/such/snap.xml"
one_line "cannot write --export"; ok $? "  one line: $(cat "$TEST_ERR")"
expect_success "--output writes the report" np topo --output "$TEST_TMP/report.txt" --quiet
grep -q '^Findings' "$TEST_TMP/report.txt"
ok $? "  the report is in the file"
[ "$(stat -c %a "$TEST_TMP/report.txt")" != 600 ] || [ "$(umask)" = 0077 ]
ok $? "  the report has the usual mode, not mkstemp's 0600"
[ -z "$(ls "$TEST_TMP" | grep '\.tmp\.')" ]
ok $? "  no temporary file is left"

# --fail-on: the SL390s (hwloc 1.x file) has warnings (gdr-path: GPUs 11:00.0
# and 14:00.0 are across sockets from mlx4_0, the only NIC) and no error
F=$srcdir/tests/topo/hwloc/hwloc1-24em64t-2n6c2t-pci.xml
expect_code 0 "--fail-on: warnings only, the default (error) exits 0" np topo --input "$F" --quiet
expect_code 1 "--fail-on warning: a warning exits 1" np topo --input "$F" --quiet --fail-on warning
expect_grep '^  warning  gdr-path' "$TEST_OUT" "  and the report names it"
expect_code 0 "--fail-on error: warnings do not fail" np topo --input "$F" --quiet --fail-on error
expect_code 0 "--fail-on never: exit 0" np topo --input "$F" --quiet --fail-on never
# a file with no warning: hwloc's 1.x Xeon Phi (no GPU: info findings only)
expect_code 0 "--fail-on warning: info findings do not fail" np topo --input "$srcdir/tests/topo/hwloc/hwloc1-64intel64-fakeKNL-SNC4-hybrid.xml" --quiet --fail-on warning
expect_code 64 "--fail-on bogus is a usage error" np topo --input "$F" --fail-on bogus
expect_grep "unknown --fail-on 'bogus'; use warning, error or never" "$TEST_ERR" "  and says what to use"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ]
ok $? "  in one line"
expect_code 64 "--fail-on with --check-gdr is a usage error" np topo --input "$F" --fail-on warning --check-gdr
expect_code 64 "--fail-on with --recommend is a usage error" np topo --input "$F" --fail-on never --recommend

done_testing
