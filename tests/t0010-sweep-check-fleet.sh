#!/bin/sh
# SPDX-License-Identifier: MIT
# The check at fleet scale, on 64 host-backend ranks: every collective is
# exact; a block misrouted between ranks 0 and 61 (rank 61 sends rank 0's
# data: NCCL_PROBE_TEST_MISROUTE=0:61) is counted in every collective and
# in reductions of several types, exit 2. With a pattern that repeats every
# 61 ranks, ranks 0 and 61 would send the same data and the fault would
# pass unseen.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort
# each AddressSanitizer rank holds about 450 MB: 64 of them (29 GB) exceed
# a 24 GB machine and the kernel's OOM killer takes ranks of other tests
# too; the plain build runs this test in full
grep -aq __asan_init "$NP_BIN" 2>/dev/null &&
	skip_all "64 AddressSanitizer ranks need about 29 GB of memory; the test runs in the build without sanitizers"

N=64
run() { np_mpi "$N" --backend mpi --sweep 64K --iters 1 --samples 1 --warmup 0 --format csv "$@"; }

# rows: every row's wrong column, "coll=wrong" per line
rows() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "wrong") w = i; if ($i == "coll") c = i }; next }
		 { print $c "=" $w }' "$TEST_OUT"
}

expect_success "$N ranks, every collective, root 61: exact" run --coll all --root 61 --dtype int32
rows >"$TEST_TMP/clean"
[ "$(wc -l <"$TEST_TMP/clean")" -eq 9 ] && ! grep -qv '=0$' "$TEST_TMP/clean"
ok $? "9 collectives, 0 wrong elements ($(tr '\n' ' ' <"$TEST_TMP/clean"))"

NCCL_PROBE_TEST_MISROUTE=0:61 expect_code 2 "rank 0's block from rank 61: exit 2" \
	run --coll all --root 61 --dtype int32
rows >"$TEST_TMP/bad"
[ "$(wc -l <"$TEST_TMP/bad")" -eq 9 ] && ! grep -q '=0$' "$TEST_TMP/bad"
ok $? "every collective counts wrong elements ($(tr '\n' ' ' <"$TEST_TMP/bad"))"
grep -q "rank 61 on .*wrong\|rank 62 on .*wrong" "$TEST_ERR"
ok $? "the ranks that got wrong data are named"

for t in "int8 sum" "uint8 avg" "half max" "bfloat16 prod" "fp8e4m3 min" "double sum"; do
	set -- $t
	NCCL_PROBE_TEST_MISROUTE=0:61 expect_code 2 "$1 $2: the misrouted block makes exit 2" \
		run --coll allreduce,reducescatter --dtype "$1" --op "$2"
	rows >"$TEST_TMP/bad"
	! grep -q '=0$' "$TEST_TMP/bad"
	ok $? "$1 $2: both reductions count it ($(tr '\n' ' ' <"$TEST_TMP/bad"))"
done
done_testing
