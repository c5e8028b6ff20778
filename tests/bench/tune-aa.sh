#!/bin/sh
# SPDX-License-Identifier: MIT
# How often 'nccl-probe tune' calls a candidate that changes nothing (an
# A/A test) no different from the baseline at every size, on the MPI host
# backend: the candidate forces Open MPI's allreduce algorithm 0, which is
# its own decision, as the baseline makes it. Run by hand from the build
# directory:
#
#   tests/bench/tune-aa.sh [TRIES] [TUNE OPTIONS...]
#   (default: 20 tries of --sweep 1K:1M on 2 ranks; RANKS=N for others)
#
# One line per try: rows with no significant difference, rows, and the
# range of the candidate's speed ratios; then how many tries were all
# "no significant difference".
set -u
: "${top_builddir:=$(pwd)}"
NP=$top_builddir/nccl-probe
tries=${1:-20}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- --sweep 1K:1M
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_coll_tuned_use_dynamic_rules=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-aa.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

all=0
for i in $(seq 1 "$tries"); do
	mpirun -np "${RANKS:-2}" --bind-to none "$NP" tune --backend mpi --quiet "$@" \
		--try OMPI_MCA_coll_tuned_allreduce_algorithm=0 --format json --output "$tmp/t.json" \
		>/dev/null 2>&1 || { echo "try $i: tune failed"; exit 1; }
	line=$(python3 - "$tmp/t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cells = [r["arms"][1] for r in d["rows"]]
nd = sum(c["verdict"] == "no significant difference" for c in cells)
rat = [c["speed_ratio"] for c in cells]
print("%d %d %.2f %.2f %s" % (nd, len(cells), min(rat), max(rat),
      ",".join("%d:%s" % (r["size"], r["arms"][1]["verdict"]) for r in d["rows"]
               if r["arms"][1]["verdict"] != "no significant difference") or "-"))
PY
)
	set -- "$@" # keep the options for the next try
	echo "$line" | awk -v i="$i" '{ printf "try %d: %d/%d rows no significant difference (ratios %s to %s; other: %s)\n", i, $1, $2, $3, $4, $5 }'
	echo "$line" | awk '{ exit !($1 == $2) }' && all=$((all + 1))
done
echo "$all of $tries tries: no significant difference at every size"
