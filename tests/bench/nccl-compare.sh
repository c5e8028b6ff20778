#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark: nccl-probe's all-reduce times against the plain loop of
# tests/bench/nccl_allreduce_loop, in the same run, with and without CUDA
# graphs. nccl-probe chooses its iterations (--iters auto); the loop then
# runs the same iterations per size, twice (the second pass shows the
# noise floor). Prints a ratio table; exit 1 when a ratio is off by more
# than 3%.
#   usage (in the build directory): tests/bench/nccl-compare.sh [OUTDIR [MIN:MAX:xF]]
set -u
out=${1:-.}
sweep=${2:-8:8G:x4}
NP=${NP_BIN:-./nccl-probe}
LOOP=${LOOP_BIN:-./tests/bench/nccl_allreduce_loop}
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
lo=${sweep%%:*}
rest=${sweep#*:}
hi=${rest%%:*}
f=${rest#*:x}

for mode in eager graph; do
	g=
	[ "$mode" = graph ] && g=--graph
	"$NP" --backend nccl --sweep "$sweep" --coll allreduce $g --format csv \
		--output "$out/probe-$mode.csv" || exit 3
	iters=$(python3 -c 'import csv,sys; print(",".join(r["iters"] for r in csv.DictReader(open(sys.argv[1]))))' \
		"$out/probe-$mode.csv")
	for pass in 1 2; do
		"$LOOP" -b "$lo" -e "$hi" -f "$f" -N "$iters" -s 20 -w 5 ${g:+-g} \
			>"$out/loop-$mode-$pass.txt" || exit 3
	done
done

python3 - "$out" <<'PY'
import csv, sys
out = sys.argv[1]
worst = 0.0
for mode in ("eager", "graph"):
    probe = {int(r["size"]): r for r in csv.DictReader(open("%s/probe-%s.csv" % (out, mode)))}
    loops = []
    for p in (1, 2):
        rows = {}
        for line in open("%s/loop-%s-%d.txt" % (out, mode, p)):
            if line.startswith("#") or not line.strip():
                continue
            size, count, iters, med, mn = line.split()
            rows[int(size)] = float(med)
        loops.append(rows)
    print("# %s: time per all-reduce in us (nccl-probe median; loop median of 20 samples, same iterations)" % mode)
    print("# %12s %8s %8s %12s %12s %12s %8s %8s" % ("size", "iters", "samples", "nccl-probe", "loop", "loop again", "ratio", "noise"))
    for size in sorted(probe):
        r = probe[size]
        t = float(r["time"]) * 1e6
        l1, l2 = loops[0].get(size), loops[1].get(size)
        if l1 is None:
            continue
        ratio = t / l1
        noise = l2 / l1 if l2 else float("nan")
        worst = max(worst, abs(ratio - 1))
        print("  %12d %8s %8s %12.3f %12.3f %12.3f %8.4f %8.4f%s" % (size, r["iters"], r["samples"], t, l1, l2, ratio, noise,
              "" if abs(ratio - 1) <= 0.03 else "  > 3%"))
print("# largest deviation: %.2f%%" % (worst * 100))
sys.exit(0 if worst <= 0.03 else 1)
PY
