#!/bin/sh
# SPDX-License-Identifier: MIT
# How often 'nccl-probe compare' says "no significant difference" for two
# runs of the same settings, and how often it finds a planted 10%
# slowdown. Run by hand from the build directory:
#
#   tests/bench/compare-rates.sh [TRIES] [SWEEP OPTIONS...]
#   (default: 10 tries of --sweep 1K:1M --iters 50 --samples 30;
#   MIN_CHANGE=PCT passes compare --min-change PCT, else its default;
#   BIND=core binds each rank to a core (mpirun --bind-to; default none);
#   RANKS=N and BACKEND=B run the sweeps on N ranks (default 2) of
#   backend B (default mpi), e.g. RANKS=1 BACKEND=nccl on a GPU)
#
# Three figures per try (by default on the MPI host backend with 2 ranks):
#   same:    run A, then run B of the same settings, compared: rows with no
#            significant difference (the runs may truly differ: a machine
#            whose load changes between them makes them differ), with
#            compare's --min-change and with --min-change 0;
#   split:   each row's samples of run A split at random into two halves,
#            compared (no difference by construction: the test's false
#            positives on real samples);
#   planted: the second half's samples x 1.10 at the judged sizes: judged
#            rows found slower, and the summaries found slower.
set -u
: "${top_builddir:=$(pwd)}"
NP=$top_builddir/nccl-probe
tries=${1:-10}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- --sweep 1K:1M --iters 50 --samples 30
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/np-cmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for i in $(seq 1 "$tries"); do
	for r in a b; do
		mpirun -np "${RANKS:-2}" --bind-to "${BIND:-none}" "$NP" --backend "${BACKEND:-mpi}" --quiet "$@" --format json --output "$tmp/$r.json" \
			>/dev/null 2>&1 || { echo "try $i: the sweep failed"; exit 1; }
	done
	python3 - "$NP" "$tmp" "$i" <<'PY'
import json, os, random, subprocess, sys
np, tmp, i = sys.argv[1], sys.argv[2], int(sys.argv[3])
random.seed(i)

def compare(a, b, mc=os.environ.get("MIN_CHANGE")):
    o = subprocess.run([np, "compare", "--quiet", "--format", "json"] + (["--min-change", mc] if mc else []) + [a, b],
                       capture_output=True, text=True)
    return o.returncode, json.loads(o.stdout)

rc, same = compare(tmp + "/a.json", tmp + "/b.json")
rows = same["rows"]
nd = sum(r["result"] == "no significant difference" for r in rows)
_, same0 = compare(tmp + "/a.json", tmp + "/b.json", "0")
spd = [r["speed"] for r in rows if r.get("speed")]
spread = "B/A %.2f to %.2f" % (min(spd), max(spd)) if spd else "no B/A"

nd0 = sum(r["result"] == "no significant difference" for r in same0["rows"])
run = json.load(open(tmp + "/a.json"))
halves = [json.loads(json.dumps(run)) for _ in range(3)]
for ra, rb, rp in zip(*(h["results"] for h in halves)):
    t = ra["sample_times"][:]
    random.shuffle(t)
    ra["sample_times"], rb["sample_times"] = t[:len(t) // 2], t[len(t) // 2:]
    rp["sample_times"] = [x * (1.10 if rp["judged"] else 1) for x in t[len(t) // 2:]]
for name, h in zip("ABP", halves):
    json.dump(h, open("%s/half%s.json" % (tmp, name), "w"))
_, split = compare(tmp + "/halfA.json", tmp + "/halfB.json")
sd = sum(r["result"] in ("faster", "slower") for r in split["rows"])
prc, planted = compare(tmp + "/halfA.json", tmp + "/halfP.json")
judged = [r for r in planted["rows"] if r["bw_bound"]]
print("try %d: same %d/%d rows no significant difference (exit %d; %d/%d with --min-change 0; %s); "
      "split %d/%d rows differ; planted %d/%d judged rows slower, %d/%d summaries slower (exit %d)"
      % (i, nd, len(rows), rc, nd0, len(rows), spread, sd, len(split["rows"]),
         sum(r["result"] == "slower" for r in judged), len(judged),
         sum(s["result"] == "slower" for s in planted["summary"]), len(planted["summary"]), prc))
PY
done
