#!/bin/sh
# SPDX-License-Identifier: MIT
# topo on fake sysfs trees (NCCL_PROBE_FSROOT) built here: peer memory
# present and absent, ports down and polling, mixed NIC rates, downtrained
# PCIe, RoCE GID tables, a flattened VM; and snapshots of them.
. "$(dirname "$0")/lib.sh"

# pci ROOT CHAIN VENDOR CLASS: a PCI device at the end of CHAIN
# ("pci0000:17/0000:17:01.0/0000:19:00.0") with its sysfs link.
pci() {
	root=$1 chain=$2 bdf=${2##*/}
	mkdir -p "$root/sys/devices/$chain" "$root/sys/bus/pci/devices"
	echo "$3" >"$root/sys/devices/$chain/vendor"
	echo "$4" >"$root/sys/devices/$chain/class"
	echo 0 >"$root/sys/devices/$chain/numa_node"
	ln -s "../../../devices/$chain" "$root/sys/bus/pci/devices/$bdf"
}

# link ROOT BDF CUR_GTS CUR_W MAX_GTS MAX_W
link() {
	d=$1/sys/bus/pci/devices/$2
	echo "$3 GT/s PCIe" >"$d/current_link_speed"
	echo "$4" >"$d/current_link_width"
	echo "$5 GT/s PCIe" >"$d/max_link_speed"
	echo "$6" >"$d/max_link_width"
}

# hca ROOT DEV BDF STATE PHYS RATE LINKLAYER
hca() {
	p=$1/sys/class/infiniband/$2
	mkdir -p "$p/ports/1"
	ln -s "../../../bus/pci/devices/$3" "$p/device"
	echo "$4" >"$p/ports/1/state"
	echo "$5" >"$p/ports/1/phys_state"
	echo "$6" >"$p/ports/1/rate"
	echo "$7" >"$p/ports/1/link_layer"
}

# node ROOT: one GPU and mlx5_0 under one switch, mlx5_1 on another root port
node() {
	pci "$1" pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0 0x10de 0x030200
	pci "$1" pci0000:17/0000:17:01.0/0000:18:01.0/0000:1a:00.0 0x15b3 0x020700
	pci "$1" pci0000:17/0000:17:02.0/0000:20:00.0 0x15b3 0x020700
	link "$1" 0000:19:00.0 32.0 16 32.0 16
	link "$1" 0000:1a:00.0 32.0 16 32.0 16
	link "$1" 0000:20:00.0 32.0 16 32.0 16
	hca "$1" mlx5_0 0000:1a:00.0 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" InfiniBand
	hca "$1" mlx5_1 0000:20:00.0 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" InfiniBand
}

topo() { NCCL_PROBE_FSROOT=$R np topo --quiet "$@"; }

# 1. peer memory absent, then present
R=$TEST_TMP/a
node "$R"
expect_code 1 "no peer memory: --check-gdr exits 1" topo --check-gdr
expect_grep 'gdr-peermem-missing' "$TEST_OUT" "  the missing peer-memory module is the finding"
expect_grep 'GPU0 0000:19:00.0: no GDR' "$TEST_OUT" "  GPU0 has no GDR, with the reason"
mkdir -p "$R/sys/module/nvidia_peermem" && echo 1.0 >"$R/sys/module/nvidia_peermem/version"
expect_code 0 "peer memory loaded: --check-gdr exits 0" topo --check-gdr
expect_grep 'GPU0 0000:19:00.0: GDR: PIX to mlx5_0 via peer memory' "$TEST_OUT" "  GPU0 reaches mlx5_0 at PIX"
expect_success "the full report" topo
expect_grep '^GPU0 +X +PIX +PHB ' "$TEST_OUT" "  matrix: PIX to the NIC on its switch, PHB to the other"
expect_grep 'Findings: none' "$TEST_OUT" "  a healthy node has no finding"
expect_grep '^  none' "$TEST_OUT" "  and nothing to recommend"
expect_success "snapshot of the fake node" topo --export "$TEST_TMP/a.xml"
expect_success "topo --input on the snapshot" np topo --quiet --input "$TEST_TMP/a.xml" --check-gdr
expect_grep 'GDR: PIX to mlx5_0 via peer memory' "$TEST_OUT" "  the snapshot keeps the GDR facts"

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
expect_grep '^export NCCL_IB_HCA==mlx5_0:1  # ' "$TEST_OUT" "  NCCL_IB_HCA with '=' names only the active top-rate port"
! grep -q 'mlx5_1[0:,]' "$TEST_OUT"
ok $? "  neither mlx5_10 nor the slower mlx5_1 is selected"
expect_success "snapshot" topo --export "$TEST_TMP/b.xml" --format json --output "$TEST_TMP/b-live.json"
expect_success "--input of the snapshot" np topo --quiet --input "$TEST_TMP/b.xml" --format json --output "$TEST_TMP/b-snap.json"
if PY=$(command -v python3); then
	"$PY" - "$TEST_TMP/b-live.json" "$TEST_TMP/b-snap.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda d: [(f["id"], f["subject"], f["message"], f["evidence"]) for f in d["findings"]]
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
expect_grep '^export NCCL_IB_GID_INDEX=1  # roce-no-v2-gid' "$TEST_OUT" "  NCCL_IB_GID_INDEX points at the IPv6 RoCE v2 GID"
expect_grep '^export NCCL_IB_ADDR_FAMILY=AF_INET6  # roce-no-v2-gid' "$TEST_OUT" "  with NCCL_IB_ADDR_FAMILY=AF_INET6"

# 5. a flattened virtual machine
R=$TEST_TMP/e
pci "$R" pci0000:00/0000:00:05.0 0x10de 0x030200
pci "$R" pci0000:00/0000:00:06.0 0x10de 0x030200
pci "$R" pci0000:00/0000:00:07.0 0x15b3 0x020700
hca "$R" mlx5_0 0000:00:07.0 "4: ACTIVE" "5: LinkUp" "200 Gb/sec (4X HDR)" InfiniBand
for b in 0000:00:05.0 0000:00:06.0 0000:00:07.0; do echo -1 >"$R/sys/bus/pci/devices/$b/numa_node"; done
mkdir -p "$R/sys/hypervisor" && echo kvm >"$R/sys/hypervisor/type"
expect_success "a flattened VM" topo
expect_grep 'vm-flattened' "$TEST_OUT" "  the flattened tree is a finding"
expect_grep 'export NCCL_TOPO_FILE=' "$TEST_OUT" "  NCCL_TOPO_FILE is recommended"
expect_grep 'numa-unknown' "$TEST_OUT" "  the unknown NUMA node is said"
expect_grep '^  0 +0000:00:05.0 +NVIDIA \[10de:' "$TEST_OUT" "  GPUs are found in sysfs without NVML"

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
expect_grep "^export NCCL_SOCKET_IFNAME==eth0  # net-socket-iface: NCCL would bootstrap over 'virbr0'" "$TEST_OUT" "  NCCL_SOCKET_IFNAME names the PCI interface exactly"

# 8. an H200 virtual machine: one GPU straight under the host bridge,
# PCIe Gen5 x16, NUMA -1, no NIC, no peer memory
R=$TEST_TMP/i
pci "$R" pci0000:00/0000:00:06.0 0x10de 0x030200
echo 0x2335 >"$R/sys/bus/pci/devices/0000:00:06.0/device"
echo -1 >"$R/sys/bus/pci/devices/0000:00:06.0/numa_node"
link "$R" 0000:00:06.0 32.0 16 32.0 16
mkdir -p "$R/sys/hypervisor" && echo kvm >"$R/sys/hypervisor/type"
expect_success "an H200 VM" topo
expect_grep '^  0 +0000:00:06.0 +NVIDIA \[10de:2335\] +N/A +Gen5 x16/Gen5 x16 ' "$TEST_OUT" "  the GPU with its PCIe Gen5 x16 link and no NUMA node"
expect_grep '^NICs: none' "$TEST_OUT" "  no NIC"
expect_grep '^Host: peer memory no,' "$TEST_OUT" "  no peer memory"
expect_grep 'numa-unknown' "$TEST_OUT" "  the unknown NUMA node is a note"
! grep -q vm-flattened "$TEST_OUT"
ok $? "  one GPU alone has no path to distrust"
expect_code 1 "  --check-gdr exits 1" topo --check-gdr
expect_grep 'no RDMA NIC' "$TEST_OUT" "  and says there is no NIC"

# 9. nothing at all
R=$TEST_TMP/f
mkdir -p "$R"
expect_code 1 "an empty tree: --check-gdr exits 1" topo --check-gdr
expect_grep 'no NVIDIA GPU' "$TEST_OUT" "  and says there is no GPU"
expect_code 64 "a missing NCCL_PROBE_FSROOT" env NCCL_PROBE_FSROOT="$TEST_TMP/missing" "$NP_BIN" topo
expect_grep 'NCCL_PROBE_FSROOT' "$TEST_ERR" "  names the variable"

done_testing
