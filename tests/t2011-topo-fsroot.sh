#!/bin/sh
# SPDX-License-Identifier: MIT
# NCCL_PROBE_FSROOT is a root: every path read under it resolves inside it,
# symbolic links included (an absolute link means the fake root's /, a
# run of '..' stops at it), while the links a real sysfs is made of work.
. "$(dirname "$0")/lib.sh"
. "$srcdir/tests/fakesys.sh"

R=$TEST_TMP/root
O=$TEST_TMP/outside
mkdir -p "$O"
node "$R"
echo "800 Gb/sec (4X XDR)" >"$O/rate"
# mlx5_0's rate: an absolute link out of the tree; mlx5_1's: a relative one
rm "$R/sys/class/infiniband/mlx5_0/ports/1/rate" "$R/sys/class/infiniband/mlx5_1/ports/1/rate"
ln -s "$O/rate" "$R/sys/class/infiniband/mlx5_0/ports/1/rate"
ln -s "../../../../../../../../../../../../../../../..$O/rate" "$R/sys/class/infiniband/mlx5_1/ports/1/rate"

NCCL_PROBE_FSROOT=$R np topo --quiet --format json >"$TEST_OUT" 2>"$TEST_ERR"
ok $? "topo on a tree with links out of it"
! grep -q '"rate_gbit": *800' "$TEST_OUT" && ! grep -q '800' "$TEST_OUT"
ok $? "  no rate is read through a link that leaves the root"
grep -q '"mlx5_0"' "$TEST_OUT" && grep -q '"mlx5_1"' "$TEST_OUT"
ok $? "  both NICs are still found (their device links stay inside)"

# an absolute link means the root's own /: it lands inside the tree
mkdir -p "$R$O"
echo "200 Gb/sec (4X HDR)" >"$R$O/rate"
NCCL_PROBE_FSROOT=$R np topo --quiet >"$TEST_OUT" 2>"$TEST_ERR"
ok $? "topo once the links' targets exist inside the root"
expect_grep 'mlx5_0 +1 +ACTIVE +IB .*200 Gb/s' "$TEST_OUT" "  the absolute link is read inside the root"
grep -q '800' "$TEST_OUT"
[ $? -ne 0 ]
ok $? "  and never outside it"

done_testing
