#!/bin/sh
# SPDX-License-Identifier: MIT
# --format nccl-tests read as programs written for nccl-tests read it
# (tests/nccl_tests_readers.py: by field position in the last block, by
# the in-place columns, by "# Avg bus bandwidth", and -J by nccl-tests
# 2.19's keys), for allreduce, allgather and alltoall on 2 and 4 ranks,
# both forms and --inplace: every figure they take is the one the same
# run's CSV holds.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort
command -v python3 >/dev/null || skip_all "python3 not found"

readers="python3 $srcdir/tests/nccl_tests_readers.py"
for n in 2 4; do
	for coll in allreduce allgather alltoall; do
		for mode in default inplace; do
			flag=""
			[ "$mode" = inplace ] && flag=--inplace
			if [ "$mode$coll" = inplacealltoall ]; then
				expect_code 64 "$n ranks, alltoall --inplace: it has no in-place form, nothing to run" \
					np_host "$n" --sweep 4K:64K --coll alltoall --iters 2 --samples 3 --inplace \
					--format nccl-tests
				continue
			fi
			expect_success "$n ranks, $coll, $mode: --format nccl-tests, -J and --csv of one run" \
				np_host "$n" --sweep 4K:64K --coll "$coll" --iters 2 --samples 3 $flag \
				--format nccl-tests -J "$TEST_TMP/r.json" --csv "$TEST_TMP/r.csv"
			$readers "$TEST_OUT" "$TEST_TMP/r.json" "$TEST_TMP/r.csv" "$mode" "$coll" 2>"$TEST_TMP/why"
			rc=$?
			ok $rc "... the readers take the CSV's figures from the table and from -J"
			[ $rc -eq 0 ] || sed 's/^/#   /' "$TEST_TMP/why"
		done
	done
done
# the readers are not blind: a table whose busbw is not the CSV's fails
expect_success "a run to alter" np_host 2 --sweep 4K:16K --coll allreduce --iters 2 --samples 3 \
	--format nccl-tests -J "$TEST_TMP/r.json" --csv "$TEST_TMP/r.csv"
awk '!/^#/ && !done { $8 = $8 + 1; done = 1 } { print }' "$TEST_OUT" >"$TEST_TMP/bad.txt"
! $readers "$TEST_TMP/bad.txt" "$TEST_TMP/r.json" "$TEST_TMP/r.csv" default allreduce 2>/dev/null
ok $? "... a busbw 1 GB/s off in field 8 is caught"
sed 's/^\(# Avg bus bandwidth *: [^ ]*\) *$/\1 OK/' "$TEST_OUT" >"$TEST_TMP/bad.txt"
! $readers "$TEST_TMP/bad.txt" "$TEST_TMP/r.json" "$TEST_TMP/r.csv" default allreduce 2>/dev/null
ok $? "... an Avg line whose last field is not the number is caught"
done_testing
