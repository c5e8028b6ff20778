#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark: nccl-probe's all-reduce times against the plain loop of
# tests/bench/nccl_allreduce_loop, in the same run, with and without CUDA
# graphs. nccl-probe chooses its iterations (--iters auto); the loop runs
# the same iterations per size. nccl-probe and the loop alternate, ROUNDS
# times each, pinned to one CPU (launch-bound small sizes depend on the
# core), after a warm-up that brings the GPU's clocks up; the table compares
# the medians over rounds and shows each side's spread over rounds.
# Exit 1 when a ratio is off by more than 3%.
#   usage (in the build directory):
#     tests/bench/nccl-compare.sh [OUTDIR [MIN:MAX:xF [ROUNDS]]]
#   environment: BENCH_CPU (default 2; empty: no pinning), NP_BIN, LOOP_BIN
set -u
out=${1:-.}
sweep=${2:-8:8G:x4}
rounds=${3:-3}
NP=${NP_BIN:-./nccl-probe}
LOOP=${LOOP_BIN:-./tests/bench/nccl_allreduce_loop}
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
lo=${sweep%%:*}
rest=${sweep#*:}
hi=${rest%%:*}
f=${rest#*:x}
pin=
cpu=${BENCH_CPU-2}
if [ -n "$cpu" ] && command -v taskset >/dev/null 2>&1; then
	pin="taskset -c $cpu"
fi

# GPU warm-up: one second of 256 MiB all-reduces
$pin "$LOOP" -b 256M -e 256M -n 100 -s 10 -w 5 >/dev/null || exit 3

for mode in eager graph; do
	g=
	[ "$mode" = graph ] && g=--graph
	r=1
	while [ "$r" -le "$rounds" ]; do
		$pin "$NP" --backend nccl --sweep "$sweep" --coll allreduce $g --format csv \
			--output "$out/probe-$mode-$r.csv" || exit 3
		[ "$r" -eq 1 ] && iters=$(python3 -c 'import csv,sys; print(",".join(r["iters"] for r in csv.DictReader(open(sys.argv[1]))))' \
			"$out/probe-$mode-1.csv")
		$pin "$LOOP" -b "$lo" -e "$hi" -f "$f" -N "$iters" -s 20 -w 5 ${g:+-g} \
			>"$out/loop-$mode-$r.txt" || exit 3
		r=$((r + 1))
	done
done

python3 - "$out" "$rounds" "$pin" <<'PY'
import csv, statistics, sys
out, rounds, pin = sys.argv[1], int(sys.argv[2]), sys.argv[3]
worst = 0.0
def spread(v):
    return (max(v) - min(v)) / statistics.median(v) * 100
print("# nccl-probe vs the plain loop: time per all-reduce in us, median over %d rounds%s" %
      (rounds, " (" + pin + ")" if pin else ""))
for mode in ("eager", "graph"):
    probe, loop, iters, samples = {}, {}, {}, {}
    for r in range(1, rounds + 1):
        for row in csv.DictReader(open("%s/probe-%s-%d.csv" % (out, mode, r))):
            s = int(row["size"])
            probe.setdefault(s, []).append(float(row["time"]) * 1e6)
            samples.setdefault(s, []).append(row["samples"])
            if r == 1:
                iters[s] = row["iters"]
        for line in open("%s/loop-%s-%d.txt" % (out, mode, r)):
            if line.startswith("#") or not line.strip():
                continue
            s, count, it, med, mn = line.split()
            loop.setdefault(int(s), []).append(float(med))
    print("# %s" % mode)
    print("# %11s %6s %12s %12s %12s %8s %9s %9s" % ("size", "iters", "samples", "nccl-probe", "loop",
          "ratio", "spread-p%", "spread-l%"))
    for s in sorted(probe):
        if s not in loop:
            continue
        p, l = statistics.median(probe[s]), statistics.median(loop[s])
        ratio = p / l
        worst = max(worst, abs(ratio - 1))
        print("  %11d %6s %12s %12.3f %12.3f %8.4f %9.1f %9.1f%s" % (s, iters[s], "/".join(samples[s]), p, l,
              ratio, spread(probe[s]), spread(loop[s]), "" if abs(ratio - 1) <= 0.03 else "  > 3%"))
print("# largest deviation: %.2f%%" % (worst * 100))
sys.exit(0 if worst <= 0.03 else 1)
PY
