#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark: nccl-probe's all-to-all against nccl-tests' alltoall_perf on
# the same GPU, in the same run, alternating ROUNDS times; the table gives
# each side's algbw (median over rounds) and the ratio. nccl-tests 2.19.6
# calls ncclAlltoAll when NCCL has it, as nccl-probe does (its header's
# notes say which call it used). Exit 1 when nccl-probe is more than 2%
# slower at 1 GiB or more.
#   usage (in the build directory):
#     tests/bench/alltoall-compare.sh ALLTOALL_PERF [OUTDIR [MIN:MAX:xF [ROUNDS]]]
set -u
nt=$1
out=${2:-.}
sweep=${3:-1G:8G:x2}
rounds=${4:-3}
NP=${NP_BIN:-./nccl-probe}
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
lo=${sweep%%:*}
rest=${sweep#*:}
hi=${rest%%:*}
f=${rest#*:x}

r=1
while [ "$r" -le "$rounds" ]; do
	"$NP" --backend nccl --sweep "$sweep" --coll alltoall --format csv \
		--output "$out/a2a-probe-$r.csv" 2>"$out/a2a-probe-$r.err" || exit 3
	"$nt" -b "$lo" -e "$hi" -f "$f" -g 1 -w 5 -n 20 -c 1 >"$out/a2a-nt-$r.txt" || exit 3
	r=$((r + 1))
done

python3 - "$out" "$rounds" <<'PY'
import csv, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
probe, nt, wrong = {}, {}, {}
for r in range(1, rounds + 1):
    for row in csv.DictReader(open("%s/a2a-probe-%d.csv" % (out, r))):
        s = int(row["size"])
        probe.setdefault(s, []).append(float(row["algbw"]))
        wrong[s] = wrong.get(s, 0) + int(row["wrong"] or 0)
    for line in open("%s/a2a-nt-%d.txt" % (out, r)):
        f = line.split()
        if line.startswith("#") or len(f) < 8 or not f[0].isdigit():
            continue
        # size count type redop root time algbw busbw #wrong (out of place) ...
        nt.setdefault(int(f[0]), []).append(float(f[6]))
print("# all-to-all, 1 rank: algbw GB/s, median over %d rounds" % rounds)
print("# %12s %12s %12s %8s %6s" % ("size", "nccl-probe", "nccl-tests", "ratio", "wrong"))
worst = 1e9
for s in sorted(probe):
    if s not in nt:
        continue
    p, t = statistics.median(probe[s]), statistics.median(nt[s])
    ratio = p / t
    if s >= 1 << 30:
        worst = min(worst, ratio)
    print("  %12d %12.1f %12.1f %8.4f %6d" % (s, p, t, ratio, wrong[s]))
print("# worst ratio at 1 GiB and above: %.4f (%s)" % (worst, "ok" if worst >= 0.98 else "more than 2% slower"))
sys.exit(0 if worst >= 0.98 and not any(wrong.values()) else 1)
PY
