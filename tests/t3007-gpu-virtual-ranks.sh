#!/bin/sh
# SPDX-License-Identifier: MIT
# The NCCL backend on several ranks of one GPU: every rank is its own
# virtual node (--ranks-per-node 1, its own NCCL host id), so NCCL takes the
# ranks for different hosts and moves data between them with its network
# transport. On 2, 3, 4 and 8 ranks (NP_GPU_RANKS): every collective, data
# type and reduction through the backend's ops (in place, CUDA graphs,
# roots other than 0, native calls and grouped send/recv); the sweep with
# 0 wrong elements and busbw = algbw x factor; a wrong element on rank 1 or
# on the last rank and a misrouted block counted and named, exit 2; a rank
# that stalls ends the job within the timeout + 10 s, exit 4, and no rank
# is left running. Correctness, not speed.
. "$(dirname "$0")/lib.sh"
have_nccl_build || skip_all "built without the NCCL backend"
have_gpu || skip_all "no GPU"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"

ALL=allreduce,allgather,reducescatter,alltoall,broadcast,reduce,gather,scatter,sendrecv
INPLACE=allreduce,allgather,reducescatter,broadcast,reduce,gather,scatter
RED=allreduce,reducescatter,reduce
vmpi() { n=$1; shift; mpirun -np "$n" --oversubscribe --bind-to none "$@"; }
vrun() { n=$1; shift; vmpi "$n" "$NP_BIN" --backend nccl --ranks-per-node 1 "$@"; }
sweep() { # n, name, expected collectives, options...
	n=$1 name=$2 colls=$3
	shift 3
	expect_success "$n ranks, $name: runs" vrun "$n" --sweep 4K:256K:x8 --iters 2 --samples 2 \
		--warmup 1 --format json --output "$TEST_TMP/$n-$name.json" "$@"
	expect_success "$n ranks, $name: no wrong element, busbw = algbw x factor" \
		python3 "$srcdir/tests/check_report.py" "$TEST_TMP/$n-$name.json" "$n" "$colls"
}

for n in ${NP_GPU_RANKS:-2 3 4 8}; do
	last=$((n - 1))
	export NP_TEST_RANKS_PER_NODE=1
	expect_success "$n ranks: the backend's ops, every collective, type and op" \
		vmpi "$n" "$top_builddir/tests/unit/test_nccl"
	unset NP_TEST_RANKS_PER_NODE
	diag "$(grep -c '^ok' "$TEST_OUT") ops checks passed on $n ranks"
	grep '^not ok' "$TEST_OUT" | head -n 5 | sed 's/^/# /'

	sweep "$n" all "$ALL" --coll all --root "$last"
	python3 - "$TEST_TMP/$n-all.json" "$n" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
notes = " ".join(rep.get("notes", []))
b = rep["backend"]
ok = (b["name"] == "nccl" and "virtual" in notes and "NCCL host id" in notes
      and "alltoall, gather, scatter" in notes and b["transport"]
      and len(rep["ranks"]) == n and len({r["node"] for r in rep["ranks"]}) == n)
print("# transport: %s; notes: %s" % (b["transport"], notes))
sys.exit(0 if ok else 1)
PY
	ok $? "$n ranks: JSON says virtual nodes, their NCCL host ids, the transport and the calls"
	python3 - "$TEST_TMP/$n-all.json" <<'PY'
import json, sys
ranks = json.load(open(sys.argv[1]))["ranks"]
c = [r["gpu_clocks"] for r in ranks]
print("# gpu_clocks:", c[0])
sys.exit(0 if all(x and x["sm_max_mhz"] and x["sm_max_mhz"] > 0 for x in c) else 1)
PY
	ok $? "$n ranks: every rank's GPU clocks over the sweep, from NVML"
	if [ "$n" = 2 ]; then
		# the planted slow rank is the host backend's switch (t0001); in an
		# NCCL collective every rank waits for the last, so which rank's
		# events read longest is not planted here: the footer names one
		expect_success "2 ranks: the table" \
			vrun 2 --sweep 1M:4M:x2 --coll allreduce --iters 1 --samples 5 --warmup 1
		expect_grep '^# slowest rank: [01] ' "$TEST_OUT" "  the footer names the slowest rank"
		expect_grep '^#   its GPU [0-9a-fA-F:.]+: SM [0-9]+ MHz after the sweep \(max [0-9]+, the other ranks. median [0-9]+\); below application clocks during it: ' \
			"$TEST_OUT" "  and its GPU's clocks beside it"
	fi
	for dt in int8 half bfloat16 fp8e4m3 double; do
		sweep "$n" "$dt" "$ALL" --coll all --dtype "$dt" --root "$last"
	done
	for op in prod max min avg; do
		sweep "$n" "$op" "$RED" --coll "$RED" --op "$op" --root "$last"
	done
	sweep "$n" graph "$ALL" --coll all --graph --root "$last"
	sweep "$n" inplace "$INPLACE" --coll all --inplace --root "$last"

	for bad in 1 "$last"; do
		NCCL_PROBE_TEST_CORRUPT=$bad expect_code 2 "$n ranks: a wrong element on rank $bad: exit 2" \
			vrun "$n" --sweep 64K --coll allreduce,alltoall --iters 1 --samples 1
		expect_grep "rank [0-9]+ on .*wrong" "$TEST_ERR" "  ranks with wrong results are named"
	done
	NCCL_PROBE_TEST_MISROUTE=0:$last expect_code 2 \
		"$n ranks: rank $last sends rank 0's data: exit 2" \
		vrun "$n" --sweep 64K --coll all --root "$last" --iters 1 --samples 1 --format csv
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wrong") w = i; next }
		 { rows++; if ($w + 0 > 0) hit++ } END { exit !(rows == 9 && hit == rows) }' "$TEST_OUT"
	ok $? "  every collective counts it"

	# a stream that never completes on the last rank: every rank is inside
	# the collective, so the job ends as a hang; a rank that stops before
	# the collective is named with its host
	for how in device host; do
		spec=$last:device
		[ "$how" = host ] && spec=$last
		t0=$(date +%s)
		NCCL_PROBE_TEST_STALL=$spec expect_code 4 "$n ranks: rank $last stalls ($how): exit 4" \
			vrun "$n" --sweep 64K --coll allreduce --iters 1 --samples 1 --timeout 5 \
			--output "$TEST_TMP/stall-$n-$how.json" --format json
		el=$(($(date +%s) - t0))
		[ "$el" -le 25 ]
		ok $? "  the job ended ${el} s after it began (timeout 5 s, start-up included)"
		if [ "$how" = host ]; then
			expect_grep "rank $last on '[^']+'" "$TEST_ERR" "  the stalled rank and its host are named"
		else
			expect_grep "did not finish within 5 s.* on '[^']+'|on '[^']+'.* did not finish within 5 s" \
				"$TEST_ERR" "  the hang is reported with its host"
		fi
		sleep 1
		! pgrep -f "$TEST_TMP/stall-$n-$how.json" >/dev/null
		ok $? "  no rank is left running"
	done
done

# two ranks of one virtual node on one GPU stay an error
g=$(nvidia-smi -L | grep -c '^GPU')
if [ "$g" -eq 1 ]; then
	expect_code 3 "2 ranks of one virtual node on 1 GPU: exit 3" \
		vmpi 2 "$NP_BIN" --backend nccl --ranks-per-node 2 --sweep 1M --coll allreduce
	expect_grep "both use the GPU at .* in one virtual node|local rank 1 has no GPU" "$TEST_ERR" \
		"  the message says why"
fi

# topo fleet mode and the validation script on virtual nodes with NCCL
expect_success "topo under mpirun (fleet mode), 2 ranks" vmpi 2 "$NP_BIN" topo
V="$srcdir/contrib/nccl-probe-validate"
expect_success "validation end to end on 2 virtual nodes with the NCCL backend" \
	"$V" --nccl-probe "$NP_BIN" --backend nccl --virtual 2 --ppn 1 --json "$TEST_TMP/val.json" -- \
	--size 1M --budget 0.6 --min-effect 50
expect_grep '^verdict: ok, 2 nodes' "$TEST_OUT" "  the verdict says ok"
done_testing
