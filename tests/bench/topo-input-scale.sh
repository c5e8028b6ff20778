#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark: 'topo --input' on files with N sibling PCI devices (default
# 100000), an NCCL topology file and an hwloc XML, to see that reading
# stays O(n log n). Prints seconds and peak memory of each; run it by hand:
#   tests/bench/topo-input-scale.sh [N] [path/to/nccl-probe]
set -eu
n=${1:-100000}
bin=${2:-./nccl-probe}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

awk -v n="$n" 'BEGIN {
	print "<system version=\"1\">"
	print "  <cpu numaid=\"0\" affinity=\"0000ffff\">"
	print "    <pci busid=\"0000:00:01.0\" class=\"0x030200\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\"><gpu dev=\"0\" gdr=\"1\"/></pci>"
	for (i = 0; i < n; i++)
		printf "    <pci busid=\"%04x:%02x:%02x.%x\" class=\"0x010802\" link_speed=\"8.0 GT/s PCIe\" link_width=\"4\"/>\n", 1 + int(i / 8192), int(i / 256) % 32 + 1, int(i / 8) % 32, i % 8
	print "  </cpu>"
	print "</system>"
}' >"$tmp/nccl.xml"

awk -v n="$n" 'BEGIN {
	set = "cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\""
	print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
	print "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">"
	print "<topology version=\"2.0\">"
	printf "  <object type=\"Machine\" os_index=\"0\" %s gp_index=\"1\">\n", set
	printf "    <object type=\"NUMANode\" os_index=\"0\" %s gp_index=\"2\"/>\n", set
	printf "    <object type=\"PU\" os_index=\"0\" %s gp_index=\"3\"/>\n", set
	print "    <object type=\"Bridge\" gp_index=\"4\" bridge_type=\"0-1\" depth=\"0\" bridge_pci=\"0000:[00-ff]\">"
	print "      <object type=\"PCIDev\" gp_index=\"5\" pci_busid=\"0000:00:01.0\" pci_type=\"0302 [10de:2335] [10de:18be] a1\" pci_link_speed=\"31.5\"/>"
	for (i = 0; i < n; i++)
		printf "      <object type=\"PCIDev\" gp_index=\"%d\" pci_busid=\"%04x:%02x:%02x.%x\" pci_type=\"0108 [144d:a80a] [144d:a801] 00\" pci_link_speed=\"7.9\"/>\n", 6 + i, 0, int(i / 256) % 256, int(i / 8) % 32, i % 8
	print "    </object>"
	print "  </object>"
	print "</topology>"
}' >"$tmp/hwloc.xml"

for f in nccl hwloc; do
	printf '%s: %s sibling PCI devices, %s bytes: ' "$f" "$n" "$(wc -c <"$tmp/$f.xml")"
	/usr/bin/time -f '%e s, %M KB peak' "$bin" topo --input "$tmp/$f.xml" --quiet >/dev/null 2>"$tmp/err" ||
		{ tail -n 3 "$tmp/err"; continue; }
	tail -n 1 "$tmp/err"
done
