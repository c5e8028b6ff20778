#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark: nccl-probe's default sweep against nccl-tests on N virtual
# nodes of one GPU machine, each rank a node of its own: its own NCCL_HOSTID
# (NCCL then moves data between the ranks with its network transport) and,
# for nccl-tests, which picks its GPU by host name, its own host name
# (tests/bench/vnode_host.c, preloaded). With N = 1 it is one rank.
#
# Per collective, ROUNDS times, alternating: nccl-tests (-b MIN -e MAX -f 2
# -g 1, with NT_ARGS: default "-n 20 -w 5" on virtual nodes, "-n 200 -w 20"
# on one rank) and nccl-probe's default sweep of the same sizes (--iters
# auto) as CSV. Prints per size the busbw (algbw on one rank) of each (median over rounds),
# nccl-probe's over nccl-tests' (median and range over rounds), and the
# batch length nccl-probe chose (iters, steady) in the first round; then
# the wall time of each run, median over rounds, and nccl-probe's own
# "wall time" (after start-up) over nccl-tests'. Exit 0 when every size's
# median ratio lies within +-TOL% (default 5), 1 otherwise, 3 when a run
# failed.
#
#   usage (in the build directory of a CUDA build, on a GPU machine):
#     ../tests/bench/vnodes-vs-nccl-tests.sh [OUTDIR [N [MIN:MAX [ROUNDS [COLLS]]]]]
#   defaults: vnodes-out 2 1M:256M 3 allreduce,alltoall,allgather
#   environment: NT_TARBALL, NT_DIR, MPI_HOME, CUDA_HOME, NCCL_HOME,
#     NVCC_GENCODE (see nt-build.sh); NP_BIN (default ./nccl-probe); NT_ARGS;
#     NP_ARGS (more nccl-probe options, e.g. --budget 2);
#     TOL (percent, default 5)
set -u
out=${1:-vnodes-out}
n=${2:-2}
sweep=${3:-1M:256M}
rounds=${4:-3}
colls=${5:-allreduce,alltoall,allgather}
NP=${NP_BIN:-./nccl-probe}
tol=${TOL:-5}
lo=${sweep%%:*}
hi=${sweep#*:}
export OMPI_ALLOW_RUN_AS_ROOT="${OMPI_ALLOW_RUN_AS_ROOT:-1}"
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}"
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

die() { echo "vnodes-vs-nccl-tests: $*" >&2; exit 3; }

mkdir -p "$out" || exit 3
out=$(cd "$out" && pwd)
[ -x "$NP" ] || die "no nccl-probe at '$NP'; run in the build directory or set NP_BIN"
"$NP" --version | grep -q 'nccl backend: yes' ||
	die "$NP was built without the NCCL backend; configure with --with-cuda"
. "$here/nt-build.sh"
nt_build "$out" "$src"
if [ "$n" -gt 1 ]; then
	nt_args=${NT_ARGS:--n 20 -w 5}
	cc -shared -fPIC -O2 -o "$out/vnode_host.so" "$here/vnode_host.c" -ldl ||
		die "cannot build the host-name shim"
	# each rank its node: NCCL_HOSTID and the host name from its rank
	cat >"$out/vnode.sh" <<SH
#!/bin/sh
r=\${OMPI_COMM_WORLD_RANK:-\${PMIX_RANK:-0}}
NCCL_HOSTID=vnode\$r NP_VNODE_HOST=vnode\$r LD_PRELOAD=$out/vnode_host.so exec "\$@"
SH
	chmod +x "$out/vnode.sh"
	vn=$out/vnode.sh
	np_vn="--ranks-per-node 1"
else
	nt_args=${NT_ARGS:--n 200 -w 20}
	vn=
	np_vn=
fi
launch="mpirun -np $n --oversubscribe --bind-to none"

now() { date +%s.%N; }
timed() {
	name=$1
	shift
	t0=$(now)
	"$@" >"$out/$name.out" 2>"$out/$name.err" || die "$name failed: see $out/$name.err"
	t1=$(now)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >"$out/$name.wall"
}

for coll in $(echo "$colls" | tr , ' '); do
	case $coll in
	allreduce) nt=$ntdir/build/all_reduce_perf ;;
	alltoall) nt=$ntdir/build/alltoall_perf ;;
	allgather) nt=$ntdir/build/all_gather_perf ;;
	*) die "no nccl-tests binary for '$coll'" ;;
	esac
	r=1
	while [ "$r" -le "$rounds" ]; do
		# shellcheck disable=SC2086
		timed "nt-$coll-$r" $launch $vn "$nt" -b "$lo" -e "$hi" -f 2 -g 1 $nt_args
		# shellcheck disable=SC2086
		timed "np-$coll-$r" $launch "$NP" $np_vn ${NP_ARGS:-} --sweep "$sweep" --coll "$coll" \
			--csv "$out/np-$coll-$r.csv" --json "$out/np-$coll-$r.json"
		r=$((r + 1))
	done
done

python3 - "$out" "$rounds" "$colls" "$tol" "$n" "$nt_args" <<'PY'
import csv, re, statistics, sys
out, rounds, colls, tol, n, nt_args = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), float(sys.argv[4]), sys.argv[5], sys.argv[6]
ok = True

# on one rank busbw is 0 by its definition: compare algbw there
col = "busbw" if int(n) > 1 else "algbw"

def nt_bw(path):
    bw = {}
    for line in open(path):
        f = line.split()
        if line.startswith("#") or len(f) < 9 or not f[0].isdigit():
            continue
        bw[int(f[0])] = float(f[7 if col == "busbw" else 6])  # out of place, GB/s
    return bw

def np_rows(path):
    return {int(r["size"]): r for r in csv.DictReader(open(path))}

def own_wall(path):
    m = re.search(r"^# wall time ([0-9.]+) s", open(path).read(), re.M)
    return float(m.group(1)) if m else float("nan")

def size_str(b):
    for u, s in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= s and b % s == 0:
            return "%d%s" % (b // s, u)
    return str(b)

print("# %s rank(s)%s; nccl-tests %s; nccl-probe default; %d rounds alternated; %s GB/s"
      % (n, " on virtual nodes" if int(n) > 1 else "", nt_args, rounds, col))
for coll in colls:
    nts = [nt_bw("%s/nt-%s-%d.out" % (out, coll, r)) for r in range(1, rounds + 1)]
    nps = [np_rows("%s/np-%s-%d.csv" % (out, coll, r)) for r in range(1, rounds + 1)]
    print("%-10s %8s %10s %10s %8s %15s %7s %7s" % (coll, "size", "nccl-tests", "nccl-probe", "ratio",
                                                    "ratio range", "iters", "steady"))
    for size in sorted(nps[0]):
        if not all(size in x for x in nts) or not all(size in x for x in nps):
            continue
        a = [x[size] for x in nts]
        b = [float(x[size][col]) for x in nps]
        ratios = [q / p for p, q in zip(a, b) if p > 0]
        if not ratios:
            continue
        med = statistics.median(ratios)
        bad = abs(med - 1) * 100 > tol
        ok = ok and not bad
        print("%-10s %8s %10.3f %10.3f %8.3f  [%5.3f, %5.3f] %7s %7s%s" % (
            "", size_str(size), statistics.median(a), statistics.median(b), med, min(ratios), max(ratios),
            nps[0][size]["iters"], nps[0][size].get("steady", "-"), "  <- off" if bad else ""))
    wt = statistics.median(float(open("%s/nt-%s-%d.wall" % (out, coll, r)).read()) for r in range(1, rounds + 1))
    wp = statistics.median(float(open("%s/np-%s-%d.wall" % (out, coll, r)).read()) for r in range(1, rounds + 1))
    ow = statistics.median(own_wall("%s/np-%s-%d.out" % (out, coll, r)) for r in range(1, rounds + 1))
    print("%-10s wall, median: nccl-tests %.2f s, nccl-probe %.2f s (ratio %.2f); nccl-probe after start-up %.2f s (%.2f of nccl-tests' whole)"
          % ("", wt, wp, wp / wt, ow, ow / wt))
print("# every size within +-%g%%: %s" % (tol, "yes" if ok else "no"))
sys.exit(0 if ok else 1)
PY
