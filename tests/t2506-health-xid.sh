#!/bin/sh
# SPDX-License-Identifier: MIT
# XID errors since boot from the kernel log: a kmsg file planted as
# dev/kmsg in a fake tree. Node faults (79, 48) are an error naming the
# GPU, the numbers and counts and what they mean; application XIDs are
# info; a log whose oldest record is not the first says so; a log that
# cannot be read leaves XIDs unknown (a note, JSON null), never "none".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"

R=$TEST_TMP/root
node "$R"
mkdir -p "$R/dev"
# --wide: each finding on one line, for the greps below
topo() { NCCL_PROBE_FSROOT=$R np topo --quiet --wide "$@"; }
# notes go to stderr without --quiet
noted() { NCCL_PROBE_FSROOT=$R np topo --wide >"$TEST_TMP/full.out" 2>"$TEST_ERR"; }
PY=$(command -v python3 || true)
# jget EXPR: evaluate EXPR on the JSON report as d (python)
jget() {
	NCCL_PROBE_FSROOT=$R np topo --quiet --format json >"$TEST_TMP/out.json" 2>/dev/null
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$TEST_TMP/out.json" "$1"
}

# 1. no kernel log: unknown
expect_success "no dev/kmsg" topo
! grep -q 'health-xid' "$TEST_OUT"
ok $? "  no XID finding"
noted
expect_grep 'kernel log \(/dev/kmsg\) cannot be read: .*XID errors since boot are unknown' "$TEST_ERR" "  a note says XIDs are unknown"
if [ -n "$PY" ]; then
	[ "$(jget 'd["health"]["xid"]')" = None ]
	ok $? "  JSON health.xid is null"
fi
mkdir "$R/dev/kmsg"
expect_success "dev/kmsg that cannot be read (a directory)" topo
noted
expect_grep 'kernel log \(/dev/kmsg\) cannot be read: Is a directory' "$TEST_ERR" "  unknown, with the reason"

# 2. XID 79 twice and 48 once on the GPU, since boot
rmdir "$R/dev/kmsg"
cat >"$R/dev/kmsg" <<'LOG'
6,0,0,-;Linux version 6.8.0 (build@host) #1 SMP
 SUBSYSTEM=cpu
6,1,1000,-;Command line: BOOT_IMAGE=/vmlinuz
4,812,51200311,-;NVRM: Xid (PCI:0000:19:00): 48, pid=4242, name=python, Ch 00000008, DBE error
4,813,51200412,-;NVRM: Xid (PCI:0000:19:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
 SUBSYSTEM=pci
 DEVICE=+pci:0000:19:00.0
4,814,51200500,-;NVRM: Xid (PCI:0000:19:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
LOG
expect_code 1 "XID 48 and 79 on the GPU: an error, exit 1" topo
expect_grep 'error +health-xid \[GPU0\]: GPU0 \(0000:19:00.0\) logged XID 48 \(x1\), 79 \(x2\) since boot: 48: double-bit ECC error; 79: GPU has fallen off the bus' \
	"$TEST_OUT" "  an error naming the GPU, the XIDs, their counts and meanings"
expect_grep "evidence: kernel log \(/dev/kmsg\), the last: NVRM: Xid \(PCI:0000:19:00\): 79, pid='<unknown>'" "$TEST_OUT" "  evidence quotes the last line"
expect_grep 'remedy: drain the node; reset the GPU' "$TEST_OUT" "  the remedy is the node's"
if [ -n "$PY" ]; then
	[ "$(jget '[(g["bus_id"], g["gpu"], [(x["xid"], x["count"]) for x in g["xids"]]) for g in d["health"]["xid"]["gpus"]]')" = \
		"[('0000:19:00.0', 0, [(48, 1), (79, 2)])]" ] && [ "$(jget 'd["health"]["xid"]["since_boot"]')" = True ]
	ok $? "  JSON: the GPU, each XID and its count, since boot"
	schema_ok topo "$TEST_TMP/out.json" "  the JSON with XID records holds to the topo schema"
fi

# 3. an application's XID in a log whose oldest records were dropped, and
# one of a GPU the model lacks
cat >"$R/dev/kmsg" <<'LOG'
6,5000,900000000,-;eth0: link up
4,5001,900000100,-;NVRM: Xid (PCI:0000:19:00): 13, pid=77, name=a.out, Graphics Exception
4,5002,900000200,-;NVRM: Xid (0000:3b:00): 31, pid=78, name=b.out, Ch 0000000a, MMU Fault
LOG
expect_success "XID 13 of an application; the log's start dropped" topo
expect_grep 'info +health-xid \[GPU0\]: GPU0 \(0000:19:00.0\) logged XID 13 \(x1\) in the kernel log.s oldest records on \(older ones were dropped\)' \
	"$TEST_OUT" "  info, and says the log does not reach boot"
expect_grep 'remedy: XIDs of this kind usually come from the application' "$TEST_OUT" "  the remedy points at the job"
expect_grep 'info +health-xid \[0000:3b:00.0\]: 0000:3b:00.0 \(0000:3b:00.0\) logged XID 31' "$TEST_OUT" \
	"  a GPU the model lacks is named by its bus id (a driver without 'PCI:')"

# 4. a log with no XID: none, and no note
printf '6,0,0,-;Linux version 6.8.0\n6,1,10,-;pci 0000:19:00.0: [10de:2330] type 00\n' >"$R/dev/kmsg"
expect_success "a kernel log from boot without XIDs" topo
noted
! grep -q 'health-xid' "$TEST_OUT" && ! grep -q 'XID' "$TEST_ERR"
ok $? "  no finding and no note"
printf '6,900,0,-;Linux version 6.8.0\n' >"$R/dev/kmsg"
expect_success "a kernel log without XIDs whose start was dropped" topo
noted
expect_grep 'no XID in the kernel log, whose oldest records were dropped; XIDs before them are unknown' "$TEST_ERR" \
	"  a note says what is unknown"

# 5. lines that only look like an XID's or a record's header are not
# counted: a blank or 0x in the address, a sign or trailing junk on the
# number, a number beyond the range; a header whose SEQ has a sign says
# nothing of where the log starts
cat >"$R/dev/kmsg" <<'LOG'
6,+0,0,-;Linux version 6.8.0 (build@host) #1 SMP
4,812,51200311,-;NVRM: Xid (PCI: 0000:19:00): 79, pid=1, name=a, GPU has fallen off the bus.
4,813,51200312,-;NVRM: Xid (PCI:0x0:19:00): 79, pid=1, name=a, GPU has fallen off the bus.
4,814,51200313,-;NVRM: Xid (PCI:0000:19:00): +79, pid=1, name=a, GPU has fallen off the bus.
4,815,51200314,-;NVRM: Xid (PCI:0000:19:00): 79x, pid=1, name=a, GPU has fallen off the bus.
4,816,51200315,-;NVRM: Xid (PCI:0000:19:00): 18446744073709551695, pid=1, name=a
4,817,51200316,-;NVRM: Xid (PCI:0000:0119:00): 79, pid=1, name=a, GPU has fallen off the bus.
4,818,51200317,-;NVRM: Xid (PCI:0000:19:00): 13, pid=77, name=a.out, Graphics Exception
LOG
expect_success "malformed XID lines beside one XID 13" topo
expect_grep 'info +health-xid \[GPU0\]: GPU0 \(0000:19:00.0\) logged XID 13 \(x1\) in the kernel log[;:,. ]' "$TEST_OUT" \
	"  only the well-formed line is counted; the log's start unknown"
! grep -q 'XID 79\|79 (x' "$TEST_OUT"
ok $? "  no XID 79 from the malformed lines"
if [ -n "$PY" ]; then
	[ "$(jget '([(g["bus_id"], [(x["xid"], x["count"]) for x in g["xids"]]) for g in d["health"]["xid"]["gpus"]], d["health"]["xid"]["since_boot"])')" = \
		"([('0000:19:00.0', [(13, 1)])], None)" ]
	ok $? "  JSON: XID 13 once, since_boot null"
fi

done_testing
