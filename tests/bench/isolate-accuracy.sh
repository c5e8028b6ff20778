#!/bin/sh
# SPDX-License-Identifier: MIT
# How often nccl-probe isolate accuses a healthy node, and how often it
# finds a planted slowdown, on virtual nodes of this host. Not a test: run
# by hand from the build directory and report the counts.
#
#   ../tests/bench/isolate-accuracy.sh [RUNS] [NODES] [PCT]
#
# RUNS healthy runs, then RUNS runs with job rank 2 made PCT% slower
# (NCCL_PROBE_TEST_SLOW=2:PCT%: it sleeps PCT% of each collective's time),
# each with NODES virtual nodes of one rank, unbound (the groups take
# turns and the waiting ranks sleep, so the pair that measures gets the
# cores; bound to a core in turn, two nodes could share one core and their
# pair would be a link unlike the others).
# Prints one line per run and the totals: false accusations (healthy runs
# naming anything), planted runs naming vnode2 and nothing else, naming
# one of its links instead, naming anything else, and the rounds.
set -u
runs=${1:-20} nodes=${2:-4} pct=${3:-20}
bin=${NP_BIN:-./nccl-probe}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

one() {
	mpirun -np "$nodes" --oversubscribe --bind-to none \
		"$bin" isolate --backend mpi --ranks-per-node 1 --size 1M --budget 1 --timeout 120 \
		--format json --output "$tmp/r.json" >/dev/null 2>"$tmp/err"
	python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
named = ["node:%s:%s" % (n["name"], n["state"]) for n in r["nodes"] if n["state"] != "ok"]
named += ["link:%s-%s" % (l["a"], l["b"]) for l in r["links"]]
named += [k for k in ("fleet", "scale") if r[k]]
print("%d %s" % (r["rounds"], ",".join(named) or "-"))
PY
}

fa=0 found=0 aslink=0 mis=0 rh="" rp=""
i=1
while [ "$i" -le "$runs" ]; do
	set -- $(one)
	echo "healthy $i: rounds $1 named $2"
	[ "$2" = "-" ] || fa=$((fa + 1))
	rh="$rh $1"
	i=$((i + 1))
done
i=1
while [ "$i" -le "$runs" ]; do
	set -- $(NCCL_PROBE_TEST_SLOW=2:$pct% one)
	echo "planted $i: rounds $1 named $2"
	case $2 in
	node:vnode2:*,*) mis=$((mis + 1)) ;;
	node:vnode2:*) found=$((found + 1)) ;;
	*vnode2*) aslink=$((aslink + 1)) ;;
	-) ;;
	*) mis=$((mis + 1)) ;;
	esac
	rp="$rp $1"
	i=$((i + 1))
done
echo "healthy: $fa false accusations in $runs runs; rounds:$rh"
echo "planted $pct% on vnode2: named alone in $found of $runs, as one of its links in $aslink, something else in $mis; rounds:$rp"
