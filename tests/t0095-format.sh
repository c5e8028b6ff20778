#!/bin/sh
# SPDX-License-Identifier: MIT
# Every C source is formatted as .clang-format says, by the clang-format
# major version that the file names (contrib/np-format --check); another
# version formats some lines otherwise, so without that version the test
# is skipped, saying which one it needs.
. "$(dirname "$0")/lib.sh"
fmt="$srcdir/contrib/np-format"

"$fmt" --check "$srcdir/common/status.c" >"$TEST_OUT" 2>"$TEST_ERR"
[ $? -eq 3 ] && skip_all "$(head -n 1 "$TEST_ERR")"

expect_success "every C source is formatted (contrib/np-format --check)" "$fmt" --check

# the check fails on a source whose layout was changed, and formatting it
# gives back the source as it is in the tree
sed -e 's/^\t/    /' "$srcdir/common/status.c" >"$TEST_TMP/status.c"
expect_code 1 "a source indented by spaces is not formatted" \
	"$fmt" --check "$TEST_TMP/status.c"
expect_grep "status.c: not formatted" "$TEST_OUT" "the check names that source"
expect_success "contrib/np-format formats it" "$fmt" "$TEST_TMP/status.c"
expect_success "into the source as it is in the tree" cmp "$srcdir/common/status.c" "$TEST_TMP/status.c"
done_testing
