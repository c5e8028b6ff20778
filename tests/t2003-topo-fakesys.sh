#!/bin/sh
# SPDX-License-Identifier: MIT
# topo on fake sysfs trees (NCCL_PROBE_FSROOT) built here: peer memory
# present and absent, ports down and polling, mixed NIC rates, downtrained
# PCIe, RoCE GID tables, a flattened VM; and snapshots of them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"

NCCL_PROBE_PCI_IDS=$srcdir/tests/topo/pci.ids
export NCCL_PROBE_PCI_IDS
# --wide: each finding on one line, for the greps below (t2002 tests the default layout)
topo() { NCCL_PROBE_FSROOT=$R np topo --quiet --wide "$@"; }

# 1. peer memory absent, then present. A fake tree has no CUDA to ask for
# the GPU's GDR attribute, nor verbs for dma-buf: what they would say is
# unknown (exit 5) until a snapshot records it.
R=$TEST_TMP/a
node "$R"
expect_code 5 "no peer memory, dma-buf unknown: --check-gdr exits 5 (unknown)" topo --check-gdr
expect_grep 'gdr-peermem-missing' "$TEST_OUT" "  the missing peer-memory module is the finding"
expect_grep "GPU0 0000:19:00.0: GDR unknown: the GPU's GDR support; peer memory or dma-buf; this node does not tell" "$TEST_OUT" "  GPU0's GDR is unknown, with what is missing"
! grep -q 'ibv_reg_dmabuf_mr' "$TEST_OUT"
ok $? "  no evidence names a call that was not made"
expect_success "snapshot of the node without peer memory" topo --export "$TEST_TMP/a0.xml"
sed 's/;gdr=-1;dmabuf=-1/;gdr=1;dmabuf=1/; s/dmabufnic=-1/dmabufnic=0/' "$TEST_TMP/a0.xml" >"$TEST_TMP/a0-facts.xml"
expect_code 1 "  with the GPU attribute and dma-buf refused recorded: --check-gdr exits 1" np topo --quiet --input "$TEST_TMP/a0-facts.xml" --check-gdr
expect_grep 'GPU0 0000:19:00.0: GDR no: no peer-memory module is loaded and the RDMA stack refuses dma-buf' "$TEST_OUT" "  with the reason"
expect_grep 'evidence: the snapshot records that ibv_reg_dmabuf_mr answered EOPNOTSUPP' "$TEST_OUT" "  evidence names the snapshot as its source"
mkdir -p "$R/sys/module/nvidia_peermem" && echo 1.0 >"$R/sys/module/nvidia_peermem/version"
expect_code 5 "peer memory loaded, the GPU attribute unknown: --check-gdr exits 5" topo --check-gdr
expect_grep "GPU0 0000:19:00.0: GDR unknown: the GPU's GDR support; this node does not tell" "$TEST_OUT" "  only the GPU attribute is missing"
expect_success "the full report" topo
expect_grep '^GPU0 +X +PIX +PHB ' "$TEST_OUT" "  matrix: PIX to the NIC on its switch, PHB to the other"
NCCL_PROBE_FSROOT=$R np topo --quiet >"$TEST_TMP/narrow.txt" 2>/dev/null
grep -Eq '^GPU0  X     PIX   PHB$' "$TEST_TMP/narrow.txt" && grep -Eq '^GPU0: NUMA 0, CPUs ' "$TEST_TMP/narrow.txt" &&
	grep -Eq '^  0   0000:19:00.0 .* unknown +unknown +NIC0 \(PIX\)$' "$TEST_TMP/narrow.txt" &&
	awk 'length($0) > 100 { bad = 1 } END { exit bad }' "$TEST_TMP/narrow.txt"
ok $? "  the default table: the same matrix in 6-column cells, affinity per NUMA node, 100 columns" ||
	awk 'length($0) > 100 { print "#   " $0 }' "$TEST_TMP/narrow.txt"
expect_grep '^  0 +0000:19:00.0 .* unknown +unknown +unknown +NIC0 \(PIX\)' "$TEST_OUT" "  NVLinks, BAR1 and the GDR attribute unknown without NVML and CUDA"
expect_grep 'info +gdr-unknown \[GPU0\]' "$TEST_OUT" "  the unknown GDR answer is an info finding"
! grep -Eq '^  (warning|error)' "$TEST_OUT"
ok $? "  a healthy node has no warning"
expect_grep '^  none' "$TEST_OUT" "  and nothing to recommend"
expect_success "snapshot of the fake node" topo --export "$TEST_TMP/a.xml"
sed 's/;gdr=-1;dmabuf=-1/;gdr=1;dmabuf=-1/' "$TEST_TMP/a.xml" >"$TEST_TMP/a-gdr.xml"
expect_success "topo --input on the snapshot with the GPU attribute recorded" np topo --quiet --input "$TEST_TMP/a-gdr.xml" --check-gdr
expect_grep 'GPU0 0000:19:00.0: GDR yes: PIX to mlx5_0 via peer memory' "$TEST_OUT" "  GPU0 reaches mlx5_0 at PIX"

# 2. a port down and one polling; mixed rates
R=$TEST_TMP/b
node "$R"
pci "$R" pci0000:40/0000:40:01.0/0000:41:00.0 0x15b3 0x020700
pci "$R" pci0000:40/0000:40:02.0/0000:42:00.0 0x15b3 0x020700
hca "$R" mlx5_10 0000:41:00.0 "1: DOWN" "3: Disabled" "10 Gb/sec (4X SDR)" InfiniBand
hca "$R" mlx5_2 0000:42:00.0 "1: DOWN" "2: Polling" "10 Gb/sec (4X SDR)" InfiniBand
echo "200 Gb/sec (2X NDR)" >"$R/sys/class/infiniband/mlx5_1/ports/1/rate"
expect_success "ports down, polling and mixed rates" topo
expect_grep 'nic-port-down \[mlx5_10:1\]' "$TEST_OUT" "  mlx5_10 is down"
expect_grep 'nic-port-polling \[mlx5_2:1\]' "$TEST_OUT" "  mlx5_2 is polling"
expect_grep 'nic-rate-mixed' "$TEST_OUT" "  400 and 200 Gb/s ports are told"
expect_success "--recommend" topo --recommend
expect_grep "^export NCCL_IB_HCA='=mlx5_0:1'  # " "$TEST_OUT" "  NCCL_IB_HCA with '=' names only the active top-rate port, quoted"
! grep -q 'mlx5_1[0:,]' "$TEST_OUT"
ok $? "  neither mlx5_10 nor the slower mlx5_1 is selected"
expect_success "snapshot" topo --export "$TEST_TMP/b.xml" --format json --output "$TEST_TMP/b-live.json"
expect_success "--input of the snapshot" np topo --quiet --input "$TEST_TMP/b.xml" --format json --output "$TEST_TMP/b-snap.json"
if PY=$(command -v python3); then
	"$PY" - "$TEST_TMP/b-live.json" "$TEST_TMP/b-snap.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# evidence names its source ("the snapshot records ..."): compare the rest
key = lambda d: [(f["id"], f["severity"], f["subject"], f["remedy"] if f["id"] != "gdr-unknown" else "") for f in d["findings"]]
sys.exit(0 if key(a) == key(b) and a["recommendations"] == b["recommendations"] and a["paths"] == b["paths"] else 1)
PY
	ok $? "  the snapshot gives the same findings, recommendations and paths"
fi

# 3. downtrained PCIe: a NIC at x8 of x16, an idle GPU at Gen1
R=$TEST_TMP/c
node "$R"
link "$R" 0000:1a:00.0 32.0 8 32.0 16
link "$R" 0000:19:00.0 2.5 16 32.0 16
expect_success "downtrained links" topo
expect_grep 'warning +pcie-downtrained \[mlx5_0:1\]: .*Gen5 x8, below its maximum Gen5 x16' "$TEST_OUT" "  the NIC at x8 is a warning"
expect_grep 'info +pcie-downtrained \[GPU0\]: .*idle GPU' "$TEST_OUT" "  an idle GPU at Gen1 is only a note"

# 4. RoCE GID tables
R=$TEST_TMP/d
node "$R"
for d in mlx5_0 mlx5_1; do
	p=$R/sys/class/infiniband/$d/ports/1
	echo Ethernet >"$p/link_layer"
	mkdir -p "$p/gids" "$p/gid_attrs/types" "$p/gid_attrs/ndevs"
	echo fe80:0000:0000:0000:0000:0000:0000:0001 >"$p/gids/0"
	echo "IB/RoCE v1" >"$p/gid_attrs/types/0"
	echo fe80:0000:0000:0000:0000:0000:0000:0001 >"$p/gids/1"
	echo "RoCE v2" >"$p/gid_attrs/types/1"
done
p=$R/sys/class/infiniband/mlx5_0/ports/1
echo 0000:0000:0000:0000:0000:ffff:c0a8:0102 >"$p/gids/2"
echo "RoCE v1" >"$p/gid_attrs/types/2"
echo 0000:0000:0000:0000:0000:ffff:c0a8:0102 >"$p/gids/3"
echo "RoCE v2" >"$p/gid_attrs/types/3"
echo eth2 >"$p/gid_attrs/ndevs/0"
expect_success "RoCE ports" topo --format json
if [ -n "${PY:-}" ]; then
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); n=d["nics"]; sys.exit(0 if n[0]["link_layer"]=="RoCE" and n[0]["gid_index"]==3 and n[0]["netdev"]=="eth2" and n[1]["gid_index"] is None else 1)' "$TEST_OUT"
	ok $? "  mlx5_0's RoCE v2 IPv4 GID is index 3; mlx5_1 has none"
fi
expect_success "RoCE report" topo
expect_grep 'roce-no-v2-gid \[mlx5_1:1\]' "$TEST_OUT" "  mlx5_1 cannot be auto-selected"
! grep -q NCCL_IB_GID_INDEX "$TEST_OUT"
ok $? "  no NCCL_IB_GID_INDEX without an NCCL older than 2.21"
# NCCL's version, which a live run reads from libnccl.so.2 (never under a
# fake root: that is another machine's) and a snapshot keeps: this
# machine's export, its NCCL set to 2.18.5 and 2.21.0. Before 2.21 NCCL
# does not pick the RoCE v2 IPv4 GID itself; from 2.21 it does
expect_success "RoCE ports exported" topo --export "$TEST_TMP/roce.xml"
for v in 21805 22100; do
	sed "s/;nccl=0;/;nccl=$v;/" "$TEST_TMP/roce.xml" >"$TEST_TMP/roce-$v.xml"
	grep -q ";nccl=$v;" "$TEST_TMP/roce-$v.xml"
	ok $? "  the snapshot with NCCL $v"
	expect_success "  read back with --recommend" np topo --input "$TEST_TMP/roce-$v.xml" --recommend
	cp "$TEST_OUT" "$TEST_TMP/rec-$v"
done
grep -q "^export NCCL_IB_GID_INDEX='3'  # roce-gid-old-nccl" "$TEST_TMP/rec-21805"
ok $? "NCCL 2.18.5: NCCL_IB_GID_INDEX=3, mlx5_0's RoCE v2 IPv4 GID, which NCCL before 2.21 does not find"
! grep -q "roce-gid-old-nccl" "$TEST_TMP/rec-22100"
ok $? "NCCL 2.21.0: no NCCL_IB_GID_INDEX for it (NCCL picks that GID itself)"

# 4b. RoCE with IPv6 RoCE v2 GIDs only: auto-selection cannot work
R=$TEST_TMP/d6
node "$R"
for d in mlx5_0 mlx5_1; do
	p=$R/sys/class/infiniband/$d/ports/1
	echo Ethernet >"$p/link_layer"
	mkdir -p "$p/gids" "$p/gid_attrs/types"
	echo fe80:0000:0000:0000:0000:0000:0000:0001 >"$p/gids/0"
	echo "RoCE v2" >"$p/gid_attrs/types/0"
	echo 2001:0db8:0000:0000:0000:0000:0000:0001 >"$p/gids/1"
	echo "RoCE v2" >"$p/gid_attrs/types/1"
done
expect_success "RoCE with IPv6 GIDs only" topo --recommend
expect_grep "^export NCCL_IB_GID_INDEX='1'  # roce-no-v2-gid" "$TEST_OUT" "  NCCL_IB_GID_INDEX points at the IPv6 RoCE v2 GID"
expect_grep "^export NCCL_IB_ADDR_FAMILY='AF_INET6'  # roce-no-v2-gid" "$TEST_OUT" "  with NCCL_IB_ADDR_FAMILY=AF_INET6"

# 5. a flattened virtual machine
R=$TEST_TMP/e
pci "$R" pci0000:00/0000:00:05.0 0x10de 0x030200
pci "$R" pci0000:00/0000:00:06.0 0x10de 0x030200
pci "$R" pci0000:00/0000:00:07.0 0x15b3 0x020700
echo 0x20b0 >"$R/sys/bus/pci/devices/0000:00:05.0/device"
echo 0x20b0 >"$R/sys/bus/pci/devices/0000:00:06.0/device"
hca "$R" mlx5_0 0000:00:07.0 "4: ACTIVE" "5: LinkUp" "200 Gb/sec (4X HDR)" InfiniBand
for b in 0000:00:05.0 0000:00:06.0 0000:00:07.0; do echo -1 >"$R/sys/bus/pci/devices/$b/numa_node"; done
mkdir -p "$R/sys/hypervisor" && echo kvm >"$R/sys/hypervisor/type"
expect_success "a flattened VM" topo
expect_grep 'vm-flattened' "$TEST_OUT" "  the flattened tree is a finding"
expect_grep '# needs your value: export NCCL_TOPO_FILE=\.\.\.  # vm-flattened' "$TEST_OUT" "  NCCL_TOPO_FILE is a comment for the operator's value"
expect_grep 'numa-unknown' "$TEST_OUT" "  the unknown NUMA node is said"
expect_grep '^  0 +0000:00:05.0 +NVIDIA GA100 \[A100 SXM4 40GB\] ' "$TEST_OUT" "  GPUs are found in sysfs without NVML, named from the PCI ID database"
expect_code 5 "  --check-gdr: unknown (exit 5), not no" topo --check-gdr
expect_grep 'GPU0 0000:00:05.0: GDR unknown: the real PCIe path' "$TEST_OUT" "  because the flattened path is not the machine's"
! grep -q 'gdr-path' "$TEST_OUT"
ok $? "  no path-based GDR warning on a flattened tree"
expect_success "  --recommend" topo --recommend
if (eval "$(cat "$TEST_OUT")") >"$TEST_TMP/eval.out" 2>&1; then ok 0 "  its output evals"; else ok 1 "  its output evals: $(cat "$TEST_TMP/eval.out")"; fi

# 6. ACS redirect on the switch between GPU0 and mlx5_0
R=$TEST_TMP/g
node "$R"
mkdir -p "$R/sys/module/nvidia_peermem" && echo 1.0 >"$R/sys/module/nvidia_peermem/version"
for b in 0000:17:01.0 0000:18:00.0 0000:18:01.0; do
	case $b in
	0000:17:01.0) c=$R/sys/devices/pci0000:17/0000:17:01.0 ;;
	*) c=$R/sys/devices/pci0000:17/0000:17:01.0/$b ;;
	esac
	ln -s "../../../devices/${c#$R/sys/devices/}" "$R/sys/bus/pci/devices/$b"
	dd if=/dev/zero of="$c/config" bs=4096 count=1 2>/dev/null
done
# extended capability 0x000d (ACS) at 0x100; control: P2P request and completion redirect
printf '\015\000\001\000\000\000\014\000' |
	dd of="$R/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/config" bs=1 seek=256 conv=notrunc 2>/dev/null
expect_code 1 "ACS redirect on the switch: --check-gdr exits 1" topo --check-gdr
expect_grep 'gdr-acs \[GPU0\]: ACS redirect is enabled on bridge 0000:18:00.0' "$TEST_OUT" "  the bridge is named"
expect_code 1 "  and the full report exits 1 (an error finding)" topo
expect_code 1 "  --fail-on error: exit 1 too" topo --fail-on error
expect_code 0 "  --fail-on never: exit 0, the report written" topo --fail-on never
expect_grep 'gdr-acs' "$TEST_OUT" "    with the finding in it"
for b in 0000:17:01.0 0000:18:00.0 0000:18:01.0; do
	f=$(readlink -f "$R/sys/bus/pci/devices/$b")/config
	dd if=/dev/zero of="$f" bs=64 count=1 2>/dev/null
done
expect_code 0 "config space cut to 64 bytes (not root)" topo
expect_grep 'gdr-acs-unknown' "$TEST_OUT" "  ACS is unknown and needs root"

# 7. NCCL's socket default would take a virtual interface
R=$TEST_TMP/h
node "$R"
mkdir -p "$R/sys/class/net/virbr0" "$R/sys/class/net/eth0" "$R/sys/class/net/lo"
echo up >"$R/sys/class/net/virbr0/operstate"; echo 3 >"$R/sys/class/net/virbr0/ifindex"
echo up >"$R/sys/class/net/eth0/operstate"; echo 5 >"$R/sys/class/net/eth0/ifindex"
echo unknown >"$R/sys/class/net/lo/operstate"; echo 1 >"$R/sys/class/net/lo/ifindex"
ln -s ../../../bus/pci/devices/0000:20:00.0 "$R/sys/class/net/eth0/device"
expect_success "a virtual interface first" topo --recommend
expect_grep "^export NCCL_SOCKET_IFNAME='=eth0'  # net-socket-iface: NCCL would bootstrap over 'virbr0'" "$TEST_OUT" "  NCCL_SOCKET_IFNAME names the PCI interface exactly"
R2=$TEST_TMP/h2
node "$R2"
mkdir -p "$R2/sys/class/net/eth0" "$R2/sys/class/net/docker0"
echo up >"$R2/sys/class/net/eth0/operstate"; echo 2 >"$R2/sys/class/net/eth0/ifindex"
echo up >"$R2/sys/class/net/docker0/operstate"; echo 3 >"$R2/sys/class/net/docker0/ifindex"
ln -s ../../../bus/pci/devices/0000:20:00.0 "$R2/sys/class/net/eth0/device"
NCCL_PROBE_FSROOT=$R2 np topo --quiet --recommend >"$TEST_OUT" 2>"$TEST_ERR"
! grep -q NCCL_SOCKET_IFNAME "$TEST_OUT"
ok $? "  no NCCL_SOCKET_IFNAME where NCCL's default is the PCI interface already"
# a snapshot whose interface and NIC names carry shell syntax: nothing of
# it may reach an export line that a shell evaluates
expect_success "  its snapshot" topo --export "$TEST_TMP/h.xml"
expect_success "  --recommend from the snapshot" np topo --quiet --input "$TEST_TMP/h.xml" --recommend
expect_grep "^export NCCL_SOCKET_IFNAME='=eth0'" "$TEST_OUT" "  keeps NCCL_SOCKET_IFNAME"
sed -e 's/ifnccl=virbr0/ifnccl=v\&#10;echo pwned2 \&gt;pwned2;x=/' -e 's/ifpci=eth0/ifpci=e$(echo pwned \&gt;pwned)\&apos;;echo pwned3 \&gt;pwned3/' \
	-e 's/name=mlx5_1;/name=mlx5_1$(echo pwned4 \&gt;pwned4);/' "$TEST_TMP/h.xml" >"$TEST_TMP/h-evil.xml"
grep -q 'pwned3' "$TEST_TMP/h-evil.xml"
ok $? "  a snapshot with shell syntax in its interface and NIC names"
expect_success "  --recommend from it" np topo --input "$TEST_TMP/h-evil.xml" --recommend
grep -q 'kernel allows' "$TEST_ERR"
ok $? "  the names are left out, with a note: $(head -n 1 "$TEST_ERR")"
grep -q 'NIC record with a name no kernel allows' "$TEST_ERR"
ok $? "  the NIC with such a name is left out too"
rec=$(cat "$TEST_OUT")
mkdir "$TEST_TMP/evil" && (cd "$TEST_TMP/evil" && PATH=$TEST_TMP/evil/nopath && eval "$rec") >"$TEST_TMP/evil.out" 2>&1
ok $? "  its output evals"
[ -z "$(ls -A "$TEST_TMP/evil")" ] && [ ! -s "$TEST_TMP/evil.out" ]
ok $? "  and runs nothing: $(ls "$TEST_TMP/evil") $(cat "$TEST_TMP/evil.out")"
! grep -q pwned "$TEST_OUT"
ok $? "  no export line carries the names"

# 8. an H200 virtual machine: one GPU straight under the host bridge,
# PCIe Gen5 x16, NUMA -1, no NIC, no peer memory
R=$TEST_TMP/i
pci "$R" pci0000:00/0000:00:06.0 0x10de 0x030200
echo 0x2335 >"$R/sys/bus/pci/devices/0000:00:06.0/device"
echo -1 >"$R/sys/bus/pci/devices/0000:00:06.0/numa_node"
link "$R" 0000:00:06.0 32.0 16 32.0 16
mkdir -p "$R/sys/hypervisor" && echo kvm >"$R/sys/hypervisor/type"
expect_success "an H200 VM" topo
expect_grep '^  0 +0000:00:06.0 +unknown +N/A +Gen5 x16/Gen5 x16 ' "$TEST_OUT" "  the GPU with its PCIe Gen5 x16 link and no NUMA node; a device the PCI ID database lacks has an unknown name"
expect_grep '^NICs: none' "$TEST_OUT" "  no NIC"
expect_grep '^Host: peer memory no,' "$TEST_OUT" "  no peer memory"
NCCL_PROBE_PCI_IDS=$TEST_TMP/none topo --format json >"$TEST_TMP/i.json"
grep -q '"name": null' "$TEST_TMP/i.json"
ok $? "  without a PCI ID database the name is null in JSON"
expect_grep 'numa-unknown' "$TEST_OUT" "  the unknown NUMA node is a note"
! grep -q vm-flattened "$TEST_OUT"
ok $? "  one GPU alone has no path to distrust"
expect_code 1 "  --check-gdr exits 1" topo --check-gdr
expect_grep 'no RDMA NIC' "$TEST_OUT" "  and says there is no NIC"

# 10. a management port: mlx5_9, 25 Gb/s on a Gen3 x4 link beside Gen5 x16 NICs
R=$TEST_TMP/m
node "$R"
pci "$R" pci0000:50/0000:50:01.0/0000:51:00.0 0x15b3 0x020000
link "$R" 0000:51:00.0 8.0 4 8.0 4
hca "$R" mlx5_9 0000:51:00.0 "4: ACTIVE" "5: LinkUp" "25 Gb/sec (1X EDR)" Ethernet
expect_success "a management port beside the data NICs" topo
expect_grep '^  NIC2 +mlx5_9 +1 +ACTIVE +RoCE +mgmt ' "$TEST_OUT" "  it is listed, marked mgmt"
expect_grep 'info +nic-mgmt \[mlx5_9:1\]' "$TEST_OUT" "  with a finding that says why"
! grep -q 'nic-rate-mixed' "$TEST_OUT"
ok $? "  its lower rate is not a mixed-rate warning"
expect_grep '^  0 +0000:19:00.0 .* NIC0 \(PIX\)$' "$TEST_OUT" "  and it is nobody's nearest NIC"
expect_success "  --recommend" topo --recommend
expect_grep "^export NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1'  # nic-mgmt" "$TEST_OUT" "  NCCL_IB_HCA keeps NCCL off the management port"

# 9. nothing at all
R=$TEST_TMP/f
mkdir -p "$R"
expect_code 1 "an empty tree: --check-gdr exits 1" topo --check-gdr
expect_grep 'no NVIDIA GPU' "$TEST_OUT" "  and says there is no GPU"
expect_code 64 "a missing NCCL_PROBE_FSROOT" env NCCL_PROBE_FSROOT="$TEST_TMP/missing" "$NP_BIN" topo
expect_grep 'NCCL_PROBE_FSROOT' "$TEST_ERR" "  names the variable"

# The NIC on the GPU's switch is DOWN: GPU0 (19:00.0) and mlx5_0 (1a:00.0)
# share switch 18:00.0/18:01.0 (PIX); mlx5_1 (20:00.0) hangs from another
# root port (PHB). NCCL takes mlx5_1, beyond its GDR level: the cause is
# mlx5_0's link, not the layout.
R=$TEST_TMP/down
node "$R"
mkdir -p "$R/sys/module/nvidia_peermem" && echo 1.0 >"$R/sys/module/nvidia_peermem/version"
echo "1: DOWN" >"$R/sys/class/infiniband/mlx5_0/ports/1/state"
echo "3: Disabled" >"$R/sys/class/infiniband/mlx5_0/ports/1/phys_state"
expect_success "a node whose NIC beside the GPU is down" topo
expect_grep '^  warning  gdr-path-nic-down \[GPU0\]: mlx5_0 port 1, PIX from GPU0, is DOWN, so NCCL uses mlx5_1, PHB away' "$TEST_OUT" "  the finding says the port is down and which NIC NCCL uses instead"
expect_grep 'remedy: bring the link of mlx5_0 port 1 up' "$TEST_OUT" "  the remedy is the link"
! grep -q 'gdr-path \[' "$TEST_OUT" && ! grep -q 'put a NIC under' "$TEST_OUT"
ok $? "  no 'put a NIC under the GPUs' switch'"
expect_code 1 "  --check-gdr exits 1" topo --check-gdr
expect_grep 'GPU0 0000:19:00.0: GDR no: mlx5_0 port 1, PIX from the GPU, is DOWN; NCCL uses mlx5_1 instead, PHB away' "$TEST_OUT" "  and says why"

# NCCL_IB_HCA never mixes InfiniBand and RoCE ports the GPUs do not both
# use: mlx5_0 (IB, beside GPU0) and mlx5_1 (RoCE, another root port) are
# active, mlx5_2 (IB) is down, so the recommendation lists the active ports
R=$TEST_TMP/mix
node "$R"
echo Ethernet >"$R/sys/class/infiniband/mlx5_1/ports/1/link_layer"
pci "$R" pci0000:17/0000:17:03.0/0000:30:00.0 0x15b3 0x020700
link "$R" 0000:30:00.0 32.0 16 32.0 16
hca "$R" mlx5_2 0000:30:00.0 "1: DOWN" "3: Disabled" "400 Gb/sec (4X NDR)" InfiniBand
expect_success "IB beside the GPU, RoCE elsewhere, an IB port down: --recommend" topo --recommend
expect_grep "^export NCCL_IB_HCA='=mlx5_0:1' " "$TEST_OUT" "  NCCL_IB_HCA lists the InfiniBand port only"
expect_grep 'InfiniBand only: the GPUs.* nearest ports are InfiniBand' "$TEST_OUT" "  and says which kind and why"
# the same node with the GPU's nearest port RoCE: RoCE only
echo Ethernet >"$R/sys/class/infiniband/mlx5_0/ports/1/link_layer"
echo InfiniBand >"$R/sys/class/infiniband/mlx5_1/ports/1/link_layer"
expect_success "RoCE beside the GPU, IB elsewhere: --recommend" topo --recommend
expect_grep "^export NCCL_IB_HCA='=mlx5_0:1' " "$TEST_OUT" "  NCCL_IB_HCA lists the RoCE port only"

# a port down beside active ones of one rate and fabric: NCCL's IB
# transport skips ports that are not ACTIVE (ncclIbInitDevices), so
# NCCL_IB_HCA would change nothing and is not recommended
R=$TEST_TMP/down1
node "$R"
pci "$R" pci0000:17/0000:17:03.0/0000:30:00.0 0x15b3 0x020700
link "$R" 0000:30:00.0 32.0 16 32.0 16
hca "$R" mlx5_2 0000:30:00.0 "1: DOWN" "3: Disabled" "400 Gb/sec (4X NDR)" InfiniBand
expect_success "one port down, the others active at one rate: --recommend" topo --recommend
! grep -q 'NCCL_IB_HCA' "$TEST_OUT"
ok $? "  no NCCL_IB_HCA: NCCL already leaves the port that is not ACTIVE out"
expect_success "  the report" topo
expect_grep 'nic-port-down \[mlx5_2:1\]' "$TEST_OUT" "  the port down is still a finding"

# 12. NCCL flattens a Broadcom PEX Gen5 switch: a GPU and a NIC below two
# level-1 sub-switches (subsystem device 0x1xxx) of one level-0 switch
# (0x0xxx) are PXB to nvidia-smi and PIX to NCCL; sub-switches that are not
# level-1 parts stay PXB; without the subsystem ids NCCL's class is the
# tree's, and a note says so
R=$TEST_TMP/bcm
bcm "$R" 0x0100 0x1100
NCCL_PROBE_FSROOT=$R np topo --quiet >"$TEST_OUT" 2>"$TEST_ERR"
grep -Eq '^GPU0  X     PXB$' "$TEST_OUT" && grep -Eq '^  0 .* NIC0 \(PXB\*\)$' "$TEST_OUT" &&
	grep -Eq '^    GPU0: PXB \(NCCL: PIX\)$' "$TEST_OUT"
ok $? "Broadcom Gen5 sub-switches: PXB in the matrix, PIX to NCCL beside it"
expect_success "  --wide" topo
expect_grep ' NIC0 \(PXB, NCCL: PIX\)$' "$TEST_OUT" "  --wide shows both in the cell"
if [ -n "$(command -v python3)" ]; then
	NCCL_PROBE_FSROOT=$R np topo --quiet --format json >"$TEST_TMP/bcm.json" 2>"$TEST_ERR"
	python3 -c 'import json, sys; g = json.load(open(sys.argv[1]))["gpus"][0]
sys.exit(not (g["nearest_path"] == "PXB" and g["nearest_path_nccl"] == "PIX"))' "$TEST_TMP/bcm.json"
	ok $? "  JSON: nearest_path PXB, nearest_path_nccl PIX"
fi
R=$TEST_TMP/bcm-plain
bcm "$R" 0x0100 0x0100
NCCL_PROBE_FSROOT=$R np topo --quiet >"$TEST_OUT" 2>"$TEST_ERR"
grep -Eq '^  0 .* NIC0 \(PXB\)$' "$TEST_OUT" && ! grep -q 'NCCL: PIX' "$TEST_OUT"
ok $? "level-0 ids below a level-0 switch: not folded, PXB both ways"
R=$TEST_TMP/bcm-noids
bcm "$R" "" ""
NCCL_PROBE_FSROOT=$R np topo >"$TEST_OUT" 2>"$TEST_ERR"
grep -Eq '^  0 .* NIC0 \(PXB\)$' "$TEST_OUT" && grep -q '^note: .*Broadcom PEX switch' "$TEST_ERR"
ok $? "no subsystem ids: the tree's class, and a note that the ids would tell"

# a rate's width and a port's directory name are numbers or are not read:
# a sign, a width beyond 32 lanes or one that overflows gives the rate
# alone; a port directory "+2" or "2x" is no port
R=$TEST_TMP/junk
node "$R"
p=$R/sys/class/infiniband/mlx5_1/ports
for d in +2 2x " 3"; do
	mkdir -p "$p/$d"
	cp "$p/1/state" "$p/1/phys_state" "$p/1/rate" "$p/1/link_layer" "$p/$d/"
done
for w in "+4" "64" "99999999999999999999"; do
	echo "400 Gb/sec (${w}X NDR)" >"$R/sys/class/infiniband/mlx5_0/ports/1/rate"
	expect_success "rate width '${w}X'" topo
	grep -Eq '^  NIC0 +mlx5_0 +1 +ACTIVE +IB +data +400 Gb/s +- ' "$TEST_OUT"
	ok $? "  the rate alone, no width made of '${w}X'"
done
grep -Eq '^  NIC1 +mlx5_1 +1 +ACTIVE +IB +data +400 Gb/s \(4X NDR\) ' "$TEST_OUT" && ! grep -q 'NIC2' "$TEST_OUT"
ok $? "  mlx5_1 keeps its port 1 and its width; '+2', '2x' and ' 3' are no ports"

done_testing
