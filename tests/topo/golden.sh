#!/bin/sh
# SPDX-License-Identifier: MIT
# Write the expected outputs of 'nccl-probe topo --input' for every machine
# file in $NP_FIXTURES/topology/{hwloc,nccl}: NAME.txt (the table) and
# NAME.json (the JSON, compared structurally without source.file).
# Usage: tests/topo/golden.sh [NAME.xml...] (NP_FIXTURES: default tests/fixtures)
# Stops, writing nothing for that file, when the program fails (an exit
# status other than 0 or 1, or nothing written). The goldens are expected
# output, not truth (tests/topo/truth/ holds that): review every changed
# line before committing, as code.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${NP_BIN:-$here/../../nccl-probe}
: "${NP_FIXTURES:=$(cd "$(dirname "$0")/../fixtures" && pwd)}"
NCCL_PROBE_PCI_IDS=$here/pci.ids
export NCCL_PROBE_PCI_IDS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # OUT ARGS...: the program's output into OUT, or stop
	out=$1
	shift
	rc=0
	"$bin" "$@" >"$out" 2>"$tmp/err" || rc=$?
	if { [ $rc -ne 0 ] && [ $rc -ne 1 ]; } || [ ! -s "$out" ]; then
		echo "error: '$bin $*' failed (exit $rc): $(cat "$tmp/err")" >&2
		echo "error: no golden written; fix the program or the fixture first" >&2
		exit 1
	fi
}

for f in "$NP_FIXTURES"/topology/hwloc/*.xml "$NP_FIXTURES"/topology/nccl/*.xml; do
	[ -f "$f" ] || { echo "error: no fixtures in $NP_FIXTURES/topology" >&2; exit 1; }
	name=$(basename "$f" .xml)
	if [ $# -gt 0 ]; then
		case " $* " in *" $name.xml "*) ;; *) continue ;; esac
	fi
	run "$tmp/$name.txt" topo --input "$f" --quiet
	run "$tmp/$name.json" topo --input "$f" --quiet --format json
	mv "$tmp/$name.txt" "$here/$name.txt"
	mv "$tmp/$name.json" "$here/$name.json"
	echo "wrote $here/$name.txt and $name.json"
done
