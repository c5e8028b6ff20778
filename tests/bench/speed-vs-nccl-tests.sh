#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark: how fast nccl-probe reaches its numbers against nccl-tests on
# the same sweep, and how close its medians come to a long run.
#
# For all-reduce and all-to-all over MIN:MAX:xF (default 8:8G:x2), ROUNDS
# times, alternating: nccl-tests' all_reduce_perf / alltoall_perf as the
# anchors' README runs them (-b MIN -e MAX -f F -g 1, its defaults) and
# nccl-probe's default sweep of those sizes (--iters auto, check on; the
# table on standard output, JSON to a file with --json, as nccl-tests' -J),
# both through the same launcher; the wall time of each, start to exit. Then
# the "truth" per collective: nccl-probe with fixed, long batches (sizes
# below 16 MiB: -n 2000, 16 MiB and up: -n 100; 15 samples each), whose
# median per size the fast runs' medians are compared with.
#
# Prints per collective the wall times (median over rounds) and their
# ratio, and per size the truth's time, the fast runs' worst deviation
# from it over rounds, how the rows stopped (converged, noise-bound,
# budget) and nccl-tests' own time for reference. Exit 0 when every
# collective took at most half of nccl-tests' wall time and every size of
# 16 MiB and up lay within 1% of the truth in every round; 1 otherwise;
# 3 when a run failed.
#
#   usage (in the build directory of a CUDA build, on a GPU machine):
#     ../tests/bench/speed-vs-nccl-tests.sh [OUTDIR [MIN:MAX:xF [ROUNDS]]]
#   environment:
#     NT_TARBALL   nccl-tests-2.19.6.tar.gz (default: shared/anchors/ next
#                  to or above the source tree)
#     NT_DIR       where to build nccl-tests (default OUTDIR/nccl-tests-2.19.6;
#                  an existing build there is reused)
#     MPI_HOME     (default /usr/lib/x86_64-linux-gnu/openmpi), CUDA_HOME
#                  (default /usr/local/cuda), NCCL_HOME (default: system),
#                  NVCC_GENCODE (default sm_90): passed to nccl-tests' make
#     LAUNCH       launcher of every run (default "mpirun -np 1")
#     NP_BIN       nccl-probe (default ./nccl-probe)
set -u
out=${1:-speed-out}
sweep=${2:-8:8G:x2}
rounds=${3:-3}
NP=${NP_BIN:-./nccl-probe}
LAUNCH=${LAUNCH:-mpirun -np 1}
export OMPI_ALLOW_RUN_AS_ROOT="${OMPI_ALLOW_RUN_AS_ROOT:-1}"
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}"
lo=${sweep%%:*}
rest=${sweep#*:}
hi=${rest%%:*}
f=${rest#*:x}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

mkdir -p "$out" || exit 3
out=$(cd "$out" && pwd)

die() { echo "speed-vs-nccl-tests: $*" >&2; exit 3; }

[ -x "$NP" ] || die "no nccl-probe at '$NP'; run in the build directory or set NP_BIN"
"$NP" --version | grep -q 'nccl backend: yes' ||
	die "$NP was built without the NCCL backend; configure with --with-cuda (and --with-cuda-arch=90)"

# nccl-tests, built once
. "$here/nt-build.sh"
nt_build "$out" "$src"

now() { date +%s.%N; }

# one timed run: wall seconds to $out/$1.wall
timed() {
	name=$1
	shift
	t0=$(now)
	# shellcheck disable=SC2086
	$LAUNCH "$@" >"$out/$name.out" 2>"$out/$name.err" || die "$name failed: see $out/$name.err"
	t1=$(now)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >"$out/$name.wall"
}

for coll in allreduce alltoall; do
	case $coll in
	allreduce) nt=$ntdir/build/all_reduce_perf ;;
	alltoall) nt=$ntdir/build/alltoall_perf ;;
	esac
	r=1
	while [ "$r" -le "$rounds" ]; do
		timed "nt-$coll-$r" "$nt" -b "$lo" -e "$hi" -f "$f" -g 1
		timed "np-$coll-$r" "$NP" --sweep "$sweep" --coll "$coll" --json "$out/np-$coll-$r.json"
		r=$((r + 1))
	done
	# the truth: fixed, long batches
	timed "truth-small-$coll" "$NP" --sweep "$lo:8M:x$f" --coll "$coll" --iters 2000 --samples 15 \
		--format json --output "$out/truth-small-$coll.json" --quiet
	timed "truth-large-$coll" "$NP" --sweep "16M:$hi:x$f" --coll "$coll" --iters 100 --samples 15 \
		--format json --output "$out/truth-large-$coll.json" --quiet
done

python3 - "$out" "$rounds" <<'PY'
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
ok = True

def rows(path):
    if not os.path.exists(path):
        return {}
    return {r["size"]: r for r in json.load(open(path))["results"]}

def nt_times(path):
    t = {}
    for line in open(path):
        f = line.split()
        if line.startswith("#") or len(f) < 8 or not f[0].isdigit():
            continue
        t[int(f[0])] = float(f[5]) * 1e-6  # out-of-place time, us
    return t

for coll in ("allreduce", "alltoall"):
    walls_np = [float(open("%s/np-%s-%d.wall" % (out, coll, r)).read()) for r in range(1, rounds + 1)]
    walls_nt = [float(open("%s/nt-%s-%d.wall" % (out, coll, r)).read()) for r in range(1, rounds + 1)]
    wn, wt = statistics.median(walls_np), statistics.median(walls_nt)
    fast = [rows("%s/np-%s-%d.json" % (out, coll, r)) for r in range(1, rounds + 1)]
    nt = nt_times("%s/nt-%s-1.out" % (out, coll))
    truth = rows("%s/truth-small-%s.json" % (out, coll))
    truth.update(rows("%s/truth-large-%s.json" % (out, coll)))
    print("# %s, 1 rank: wall time, median of %d rounds: nccl-probe %.2f s, nccl-tests %.2f s, ratio %.3f (goal <= 0.5)"
          % (coll, rounds, wn, wt, wn / wt))
    print("#   walls nccl-probe %s; nccl-tests %s" % (walls_np, walls_nt))
    ok &= wn <= 0.5 * wt
    print("# %12s %12s %12s %9s %-28s %12s %9s" % ("size(B)", "truth(us)", "probe(us)", "worst(%)",
                                                   "stop per round", "nt(us)", "nt-truth(%)"))
    worst_big = 0.0
    for s in sorted(truth):
        t = truth[s]["time"]
        devs = [(f[s]["time"] / t - 1) * 100 for f in fast if s in f]
        if not devs:
            continue
        w = max(devs, key=abs)
        if s >= 16 << 20:
            worst_big = max(worst_big, abs(w))
        stops = ",".join(f[s]["stop"] for f in fast if s in f)
        ntc = ("%12.2f %9.2f" % (nt[s] * 1e6, (nt[s] / t - 1) * 100)) if s in nt else "%12s %9s" % ("-", "-")
        print("  %12d %12.2f %12.2f %9.2f %-28s %s" % (s, t * 1e6, statistics.median(
            f[s]["time"] for f in fast if s in f) * 1e6, w, stops, ntc))
    print("# %s: worst deviation from the truth at 16 MiB and up: %.2f%% (goal <= 1%%)" % (coll, worst_big))
    ok &= worst_big <= 1.0
print("# verdict: %s" % ("ok" if ok else "goal not met"))
sys.exit(0 if ok else 1)
PY
