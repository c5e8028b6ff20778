#!/bin/sh
# SPDX-License-Identifier: MIT
# Virtual nodes on the NCCL build: each virtual node's NCCL host id
# (NCCL_HOSTID) is in the environment before the first CUDA or NCCL call,
# whose threads read it (setenv beside their getenv is a race); a witness
# preloaded in front of CUDA and NCCL (tests/unit/env_witness.c) records
# what the first call saw. Runs
# with or without a GPU (without one, the sweep and isolate fall back to
# host memory after that first call). The host id is nccl-probe's, not
# listed among the user's NCCL variables; a user's NCCL_HOSTID is.
. "$(dirname "$0")/lib.sh"
have_nccl_build || skip_all "built without the NCCL backend"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"
WIT=$top_builddir/tests/unit/libenvwitness.so
[ -f "$WIT" ] || skip_all "$WIT not built"
host=$(hostname | cut -c1-40)

# every rank's line names its virtual node: rank r of L per node is on r/L
check_log() { # log, ranks, ranks per node
	python3 - "$@" "$host" <<'PY'
import re, sys
log, n, l, host = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
seen = {}
for line in open(log):
    if "MPI_Init" in line:
        continue
    m = re.match(r"rank (\d+): (\w+) NCCL_HOSTID=(.*)$", line.rstrip("\n"))
    if not m:
        sys.exit("bad line: " + line)
    seen[int(m.group(1))] = (m.group(2), m.group(3))
for r in range(n):
    want = "%s-vnode%d" % (host, r // l)
    if seen.get(r, (None, None))[1] != want:
        sys.exit("rank %d: first call %s saw NCCL_HOSTID=%s, wanted %s" % ((r,) + seen.get(r, ("none", "nothing")) + (want,)))
print("# " + "; ".join("rank %d: %s %s" % (r, f, v) for r, (f, v) in sorted(seen.items())))
PY
}

run_wit() { # log, ranks, nccl-probe args...
	log=$1 n=$2
	shift 2
	rm -f "$log"
	mpirun -np "$n" --oversubscribe --bind-to none -x LD_PRELOAD="$WIT" -x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" -x NP_TEST_ENV_LOG="$log" \
		"$NP_BIN" "$@"
}

# two ranks of a virtual node need two GPUs on a GPU machine
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
for l in 1 2; do
	if [ "$l" -eq 2 ] && [ "${gpus:-0}" -eq 1 ]; then
		ok 0 "sweep, 4 ranks, --ranks-per-node 2 # SKIP one GPU"
		continue
	fi
	expect_success "sweep, 4 ranks, --ranks-per-node $l: runs" run_wit "$TEST_TMP/sweep$l.log" 4 \
		--ranks-per-node "$l" --sweep 1K:4K --iters 2 --samples 2 --format json --output "$TEST_TMP/sweep$l.json"
	expect_success "  the first CUDA/NCCL call of every rank saw its virtual node's NCCL_HOSTID" \
		check_log "$TEST_TMP/sweep$l.log" 4 "$l"
	head -n 1 "$TEST_OUT"
done
python3 - "$TEST_TMP/sweep1.json" <<'PY'
import json, sys
env = json.load(open(sys.argv[1])).get("nccl_env", {})
sys.exit(1 if "NCCL_HOSTID" in env else 0)
PY
ok $? "the virtual nodes' NCCL_HOSTID is not listed among the user's NCCL variables"
# one rank a GPU without virtual nodes: as many ranks as GPUs (at most 2)
nu=2
[ "${gpus:-0}" -eq 1 ] && nu=1
expect_success "sweep with the user's NCCL_HOSTID, no virtual nodes, $nu ranks" env NCCL_HOSTID=mine \
	mpirun -np "$nu" --oversubscribe --bind-to none "$NP_BIN" --sweep 1K --iters 2 --samples 2 \
	--format json --output "$TEST_TMP/user.json"
python3 - "$TEST_TMP/user.json" <<'PY'
import json, sys
env = json.load(open(sys.argv[1])).get("nccl_env", {})
sys.exit(0 if env.get("NCCL_HOSTID") == "mine" else 1)
PY
ok $? "  the user's NCCL_HOSTID is listed"

# isolate's verdict (0; 1 when the noise of a loaded machine looks like a
# bad node; 6, inconclusive, when it is wider than --min-effect, as under
# the sanitizers) is not what is tested here
run_wit "$TEST_TMP/isolate.log" 4 isolate --ranks-per-node 1 --size 16K --budget 0.3 --min-effect 50 \
	>"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
[ "$rc" -le 1 ] || [ "$rc" -eq 6 ]
ok $? "isolate, 4 ranks, --ranks-per-node 1: runs (exit $rc: a verdict, 0, 1 or 6)"
expect_success "  the first CUDA/NCCL call of every rank saw its virtual node's NCCL_HOSTID" \
	check_log "$TEST_TMP/isolate.log" 4 1

done_testing
