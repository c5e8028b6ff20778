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

# a FIFO where a sysfs file is expected (no writer: an open without
# O_NONBLOCK waits for ever, a read to EOF too) is not waited on and not
# taken for a file: the fact it would give is unknown
F=$TEST_TMP/fifo-root
node "$F"
rm "$F/sys/class/infiniband/mlx5_0/ports/1/rate"
mkfifo "$F/sys/class/infiniband/mlx5_0/ports/1/rate"
n=0
for c in $(find "$F/sys/devices" -name class | head -n 3); do
	rm "$c" && mkfifo "$c" && n=$((n + 1))
done
mkdir -p "$F/dev" && mkfifo "$F/dev/kmsg" "$F/dev/shm" "$TEST_TMP/pci.ids"
start=$(date +%s)
NCCL_PROBE_PCI_IDS=$TEST_TMP/pci.ids NCCL_PROBE_FSROOT=$F timeout 60 "$NP_BIN" topo --quiet --format json >"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
took=$(($(date +%s) - start))
[ "$rc" -ne 124 ] && [ "$took" -le 20 ]
ok $? "topo with FIFOs for a NIC's rate, $n PCI class files, dev/kmsg, dev/shm and pci.ids ends (exit $rc, $took s)"
python3 - "$TEST_OUT" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
nics = {n["name"]: n for n in t["nics"]}
# the rate behind the FIFO is unknown, never a number read from it
assert nics["mlx5_0"]["rate_gbit"] is None and nics["mlx5_1"]["rate_gbit"] == 400, nics
PY
ok $? "  the NIC behind the FIFO has no rate (unknown), the other NIC is found"
np_sysfs_fifo_read=$(NCCL_PROBE_FSROOT=$F timeout 60 "$NP_BIN" topo --quiet 2>&1 >/dev/null; echo "rc=$?")
case $np_sysfs_fifo_read in
*"rc=124"*) false ;;
*) true ;;
esac
ok $? "  and the table form ends too ($(echo "$np_sysfs_fifo_read" | tail -n 1))"

done_testing
