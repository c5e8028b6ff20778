# SPDX-License-Identifier: MIT
# Fake sysfs trees for NCCL_PROBE_FSROOT: PCI devices, their links, and
# RDMA ports, built by the tests themselves. Source after lib.sh.

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

# bridge ROOT CHAIN VENDOR DEVICE [SUBVENDOR SUBDEVICE]: the ids of the
# bridge at the end of CHAIN (a directory pci() made), with its sysfs link
bridge() {
	d=$1/sys/devices/$2 bdf=${2##*/}
	mkdir -p "$d" "$1/sys/bus/pci/devices"
	echo "$3" >"$d/vendor"
	echo "$4" >"$d/device"
	echo 0x060400 >"$d/class"
	if [ $# -ge 6 ]; then
		echo "$5" >"$d/subsystem_vendor"
		echo "$6" >"$d/subsystem_device"
	fi
	[ -e "$1/sys/bus/pci/devices/$bdf" ] || ln -s "../../../devices/$2" "$1/sys/bus/pci/devices/$bdf"
}

# bcm ROOT SUB0 SUB1: a GPU and a ConnectX-7 each below a sub-switch
# (subsystem device SUB1) of one Broadcom PEX Gen5 switch (SUB0)
bcm() {
	r=pci0000:00/0000:00:01.0
	up=$r/0000:01:00.0
	pci "$1" $up/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0 0x10de 0x030200
	pci "$1" $up/0000:02:01.0/0000:06:00.0/0000:07:00.0/0000:08:00.0 0x15b3 0x020700
	bridge "$1" $r 0x8086 0x352a 0x8086 0x0000
	for b in $up $up/0000:02:00.0 $up/0000:02:01.0; do
		bridge "$1" $b 0x1000 0xc030 ${2:+0x1000 $2}
	done
	for b in $up/0000:02:00.0/0000:03:00.0 $up/0000:02:00.0/0000:03:00.0/0000:04:00.0 \
		$up/0000:02:01.0/0000:06:00.0 $up/0000:02:01.0/0000:06:00.0/0000:07:00.0; do
		bridge "$1" $b 0x1000 0xc030 ${3:+0x1000 $3}
	done
	link "$1" 0000:05:00.0 32.0 16 32.0 16
	link "$1" 0000:08:00.0 32.0 16 32.0 16
	hca "$1" mlx5_0 0000:08:00.0 "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" InfiniBand
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
