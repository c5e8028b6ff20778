#!/bin/sh
# SPDX-License-Identifier: MIT
# Host and container health: locked memory, the process's CPUs and memory
# nodes against the GPU's NUMA node (a CPU set taken with taskset), the
# IOMMU mode of the GPU's group and a container's marker, on fake trees;
# /dev/shm in a mount namespace with a small tmpfs (root and unshare).
# Each fault is planted and seen; the healthy setting gives no finding.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"

R=$TEST_TMP/root
node "$R"
mkdir -p "$R/proc/self"
# --wide: each finding on one line, for the greps below (t2002 tests the default layout)
topo() { NCCL_PROBE_FSROOT=$R np topo --quiet --wide "$@"; }
no_finding() {
	! grep -q "$1" "$TEST_OUT"
	ok $? "  $2"
}

# locked memory (the NICs are InfiniBand)
printf 'Limit                     Soft Limit           Hard Limit           Units\nMax locked memory         65536                65536                bytes\n' \
	>"$R/proc/self/limits"
expect_success "memlock limited to 64 KiB with RDMA NICs" topo
expect_grep 'warning +health-memlock \[ulimit -l\]: locked memory is limited to 64 KiB; RDMA registration needs it unlimited$' \
	"$TEST_OUT" "  the limit is the finding"
expect_grep "remedy: set 'memlock unlimited'" "$TEST_OUT" "  with the host's remedy"
touch "$R/.dockerenv"
expect_success "the same inside a docker container" topo
expect_grep 'health-memlock .*\(inside a docker container\)' "$TEST_OUT" "  the finding says it is inside a container"
expect_grep 'remedy: start the container with --ulimit memlock=-1' "$TEST_OUT" "  and gives the container's remedy"
expect_grep 'info +health-container \[docker\]: running inside a docker container, whose settings explain: health-memlock' \
	"$TEST_OUT" "  the container is named as what explains it"
printf 'Limit                     Soft Limit           Hard Limit           Units\nMax locked memory         unlimited            unlimited            bytes\n' \
	>"$R/proc/self/limits"
expect_success "memlock unlimited, still in the container" topo
no_finding 'health-' "no health finding: a container that starves nothing is none"
rm "$R/.dockerenv"
# a soft limit that is not a number is unknown: no finding, no wrong figure
for v in 65536x +65536 99999999999999999999 -1; do
	printf 'Limit                     Soft Limit           Hard Limit           Units\nMax locked memory         %s    65536    bytes\n' \
		"$v" >"$R/proc/self/limits"
	expect_success "memlock soft limit '$v'" topo
	no_finding 'health-memlock' "not read as a limit"
done
printf 'Limit                     Soft Limit           Hard Limit           Units\nMax locked memory         unlimited            unlimited            bytes\n' \
	>"$R/proc/self/limits"

# CPU set and memory nodes: the GPU on NUMA node 1 (CPU 1), node 0 has CPU 0
mkdir -p "$R/sys/devices/system/node/node0" "$R/sys/devices/system/node/node1"
echo 0 >"$R/sys/devices/system/node/node0/cpulist"
echo 1 >"$R/sys/devices/system/node/node1/cpulist"
echo 1 >"$R/sys/bus/pci/devices/0000:19:00.0/numa_node"
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
	# the status this process has when taskset binds it to CPU 0
	taskset -c 0 cat /proc/self/status | sed 's/^Mems_allowed_list:.*/Mems_allowed_list:\t0/' >"$R/proc/self/status"
	expect_grep '^Cpus_allowed_list:[[:space:]]+0$' "$R/proc/self/status" "taskset -c 0 leaves CPU 0 alone"
	expect_success "the process on CPU 0, memory on node 0, the GPU on node 1" topo
	expect_grep 'warning +health-cpuset-numa \[cpuset\]: this process may run on none of the CPUs near GPU0 \(node 1\)' \
		"$TEST_OUT" "  the CPU set is the finding"
	expect_grep 'evidence: /proc/self/status Cpus_allowed_list 0$' "$TEST_OUT" "  with the CPU list"
	expect_grep 'warning +health-mems-numa \[cpuset\]: .*GPU0 \(node 1\)' "$TEST_OUT" "  and so are the memory nodes"
	taskset -c 1 cat /proc/self/status | sed 's/^Mems_allowed_list:.*/Mems_allowed_list:\t0-1/' >"$R/proc/self/status"
	expect_success "the process on CPU 1, memory on nodes 0-1" topo
	no_finding 'health-' "no health finding"
else
	ok 0 "# SKIP taskset or a second CPU missing"
fi

# a CPU list that is not one (a sign, a blank) is not read: no finding
# drawn from it; the same process written plainly has one
for l in "0" "+0" "0- 0" "0,1x"; do
	printf 'Cpus_allowed_list:\t%s\nMems_allowed_list:\t0-1\n' "$l" >"$R/proc/self/status"
	expect_success "Cpus_allowed_list '$l', the GPU near CPU 1" topo
	if [ "$l" = 0 ]; then
		expect_grep 'warning +health-cpuset-numa \[cpuset\]: .*GPU0 \(node 1\)' "$TEST_OUT" "  CPU 0 alone: the finding"
	else
		no_finding 'health-cpuset-numa' "not a CPU list: nothing concluded"
	fi
done
rm "$R/proc/self/status"

# IOMMU: the GPU's group translates DMA, then passes it through
mkdir -p "$R/sys/kernel/iommu_groups/7"
ln -s ../../../../../kernel/iommu_groups/7 "$R/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0/iommu_group"
echo DMA-FQ >"$R/sys/kernel/iommu_groups/7/type"
expect_success "the GPU's IOMMU group in DMA-FQ mode" topo
expect_grep 'warning +health-iommu-dma \[iommu\]: the IOMMU translates the GPUs. DMA \(group type DMA-FQ\)' "$TEST_OUT" \
	"  translation is the finding"
echo identity >"$R/sys/kernel/iommu_groups/7/type"
expect_success "in identity (pass-through) mode" topo --format json --output "$TEST_TMP/i.json"
schema_ok topo "$TEST_TMP/i.json" "  the JSON with the host's figures holds to the topo schema"
if PY=$(command -v python3); then
	"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1])); h = d["health"]["host"]
sys.exit(0 if h["iommu_dma_translation"] is False and h["iommu_group_type"] == "identity"
         and not [f for f in d["findings"] if f["id"].startswith("health-")] else 1)' "$TEST_TMP/i.json"
	ok $? "  translation false, no health finding"
fi

# /dev/shm: a mount namespace with a small tmpfs, two GPUs from the fake NVML
LIB=$top_builddir/tests/fakenvml/libfakenvml.so
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null && [ -f "$LIB" ]; then
	printf 'count=2\ngpu0.busid=0000:19:00.0\ngpu0.name=NVIDIA H100\ngpu1.busid=0000:3b:00.0\ngpu1.name=NVIDIA H100\n' \
		>"$TEST_TMP/nvml.conf"
	# the tmpfs is the fake tree's dev/shm, so that the host's own GPUs
	# and findings stay out of it
	mkdir -p "$R/dev/shm"
	pci "$R" pci0000:17/0000:17:03.0/0000:3b:00.0 0x10de 0x030200
	shm() {
		NCCL_PROBE_FSROOT=$R NCCL_PROBE_NVML_LIB=$LIB NP_FAKE_NVML=$TEST_TMP/nvml.conf unshare -m sh -c \
			"mount -t tmpfs -o size=$1 tmpfs \"$R/dev/shm\" && ${2:-:} && exec \"\$0\" topo --quiet --wide" "$NP_BIN"
	}
	touch "$R/.dockerenv"
	expect_code 1 "/dev/shm of 16 MiB, 2 GPUs (2 local ranks), in a docker container" shm 16m
	expect_grep 'error +health-shm-small \[/dev/shm\]: /dev/shm has 16 MiB in all, NCCL.s shared-memory transport needs about 36 MiB for 2 local ranks' \
		"$TEST_OUT" "  the size is the finding: 2 x 1 x 2 x 9 MiB"
	expect_grep 'remedy: start the container with a larger /dev/shm \(docker run --shm-size=1g' "$TEST_OUT" \
		"  inside a docker container, the container's remedy"
	expect_grep 'health-container \[docker\]: .*explain: health-shm-small' "$TEST_OUT" "  and the container explains it"
	rm "$R/.dockerenv"
	expect_success "/dev/shm of 64 MiB with 40 MiB used" shm 64m "head -c 41943040 /dev/zero >\"$R/dev/shm/fill\""
	expect_grep 'warning +health-shm-small \[/dev/shm\]: /dev/shm has 24 MiB free' "$TEST_OUT" "  the free space is a warning"
	expect_success "/dev/shm of 64 MiB, empty" shm 64m
	no_finding 'health-shm' "no /dev/shm finding"
	expect_grep '/dev/shm 64 MiB \(64 free, need 36 for 2 ranks\)' "$TEST_OUT" "  the figures are shown"
else
	ok 0 "# SKIP /dev/shm: needs root and unshare -m (a mount namespace)"
fi
done_testing
