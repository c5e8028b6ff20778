#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark: nccl-probe's default sweep against nccl-tests run long, at the
# sizes that fit in a GPU's L2 and above, on one GPU (one rank).
#
# nccl-tests moves its buffers' offset at every iteration (startColl), so
# that a size that fits in the L2 is not served from it again and again;
# nccl-probe does the same (see "Data placement" in the man page). This
# runs all_reduce_perf -n 200 -w 20 (nccl-tests run long: its default
# -n 20 lies low at mid sizes) and nccl-probe's default sweep (--iters
# auto) over MIN:MAX by 2, and prints per size both times and their ratio.
# Exit 0 when every size from 16 MiB up agrees within 3%; 1 otherwise; 3
# when a run failed.
#
#   usage (in the build directory of a CUDA build, on a GPU machine):
#     ../tests/bench/cache-vs-nccl-tests.sh [OUTDIR [MIN:MAX]]
#   environment:
#     NT_TARBALL   nccl-tests-2.19.6.tar.gz (default: shared/anchors/ next
#                  to or above the source tree)
#     NT_DIR       where to build nccl-tests (default OUTDIR/nccl-tests-2.19.6;
#                  an existing build there is reused)
#     CUDA_HOME    (default /usr/local/cuda), NCCL_HOME (default: system),
#                  NVCC_GENCODE (default sm_90): passed to nccl-tests' make
#     NP_BIN       nccl-probe (default ./nccl-probe)
set -u
out=${1:-cache-out}
range=${2:-1M:1G}
min=${range%%:*}
max=${range#*:}
NP=${NP_BIN:-./nccl-probe}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" || exit 3

tarball=${NT_TARBALL:-}
if [ -z "$tarball" ]; then
	for d in "$here/../../shared/anchors" "$here/../../../shared/anchors"; do
		[ -f "$d/nccl-tests-2.19.6.tar.gz" ] && tarball="$d/nccl-tests-2.19.6.tar.gz" && break
	done
fi
nt=${NT_DIR:-$out/nccl-tests-2.19.6}
if [ ! -x "$nt/build/all_reduce_perf" ]; then
	[ -n "$tarball" ] && [ -f "$tarball" ] || { echo "error: nccl-tests-2.19.6.tar.gz not found; set NT_TARBALL" >&2; exit 3; }
	mkdir -p "$(dirname "$nt")" && tar -xzf "$tarball" -C "$(dirname "$nt")" || exit 3
	make -C "$nt" -j"$(nproc)" MPI=0 CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" ${NCCL_HOME:+NCCL_HOME="$NCCL_HOME"} \
		NVCC_GENCODE="${NVCC_GENCODE:--gencode=arch=compute_90,code=sm_90}" >"$out/nt-build.log" 2>&1 ||
		{ echo "error: nccl-tests did not build; see $out/nt-build.log" >&2; exit 3; }
fi

"$nt/build/all_reduce_perf" -b "$min" -e "$max" -f 2 -g 1 -n 200 -w 20 >"$out/nt.txt" 2>&1 ||
	{ echo "error: all_reduce_perf failed; see $out/nt.txt" >&2; exit 3; }
"$NP" --backend nccl --coll allreduce --sweep "$min:$max:x2" --format csv --output "$out/np.csv" 2>"$out/np.err" ||
	{ echo "error: nccl-probe failed; see $out/np.err" >&2; exit 3; }

python3 - "$out/nt.txt" "$out/np.csv" <<'PY'
import csv, sys
nt = {}
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) >= 8 and f[0].isdigit() and f[2] == "float":
        nt[int(f[0])] = float(f[5])          # out-of-place time (us)
rows = list(csv.DictReader(open(sys.argv[2])))
bad = 0
print("%12s %12s %12s %7s %s" % ("size", "nccl-tests", "nccl-probe", "ratio", "stop"))
for r in rows:
    s = int(r["size"]); t = float(r["time"]) * 1e6
    if s not in nt:
        continue
    ratio = t / nt[s]
    judged = s >= 16 << 20
    off = judged and abs(ratio - 1) > 0.03
    bad += off
    print("%12d %10.2fus %10.2fus %7.3f %s%s" % (s, nt[s], t, ratio, r["stop"], "  <- beyond 3%" if off else ""))
print("sizes from 16 MiB up beyond 3%%: %d" % bad)
sys.exit(1 if bad else 0)
PY
