#!/bin/sh
# SPDX-License-Identifier: MIT
# Write the expected outputs of 'nccl-probe topo --input' for every machine
# file in $NP_FIXTURES/topology/{hwloc,nccl}: NAME.txt (the table) and
# NAME.json (the JSON, compared structurally without source.file).
# Usage: NP_FIXTURES=../shared/fixtures tests/topo/golden.sh [NAME.xml...]
# Review the diff before committing: the goldens are the expected facts.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${NP_BIN:-$here/../../nccl-probe}
: "${NP_FIXTURES:?set NP_FIXTURES to the fixtures directory (../shared/fixtures)}"
for f in "$NP_FIXTURES"/topology/hwloc/*.xml "$NP_FIXTURES"/topology/nccl/*.xml; do
	name=$(basename "$f" .xml)
	if [ $# -gt 0 ]; then
		case " $* " in *" $name.xml "*) ;; *) continue ;; esac
	fi
	"$bin" topo --input "$f" --quiet >"$here/$name.txt" || true
	"$bin" topo --input "$f" --quiet --format json >"$here/$name.json" || true
	echo "wrote $here/$name.txt and $name.json"
done
