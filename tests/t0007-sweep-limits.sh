#!/bin/sh
# SPDX-License-Identifier: MIT
# limit and eff: a fake node with two NDR ports (B_node = 100 GB/s) and
# virtual nodes of one rank each; alltoall's limit is B_node (n-1)/(L(n-L))
# = 100 GB/s with L = 1, eff = busbw / limit; the all-reduce limit needs
# B_gpu, unknown on host memory, so it stays null.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort
command -v python3 >/dev/null || skip_all "python3 not found"

R=$TEST_TMP/root
node "$R"
NCCL_PROBE_FSROOT=$R expect_success "sweep on virtual nodes over a fake node" \
	np_mpi 4 --backend mpi --ranks-per-node 1 --sweep 64K:256K --coll alltoall,allreduce \
	--iters 2 --samples 2 --format json --output "$TEST_TMP/l.json"
python3 - "$TEST_TMP/l.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
lim = r["limits"]
assert lim["node_gbps"] == 100 and lim["gpu_gbps"] is None, lim
assert "NDR" in lim["node_evidence"], lim
rows = r["results"]
a2a = [x for x in rows if x["coll"] == "alltoall"]
ar = [x for x in rows if x["coll"] == "allreduce"]
assert a2a and ar
for x in a2a:
    assert abs(x["limit"] - 100.0) < 1e-9, x
    assert abs(x["eff"] - x["busbw"] / 100.0) < 1e-12, x
for x in ar:
    assert x["limit"] is None and x["eff"] is None, x
s = {x["coll"]: x for x in r["summary"]}
assert abs(s["alltoall"]["max_size_limit"] - 100.0) < 1e-9
PY
ok $? "alltoall limit is 100 GB/s, eff = busbw / limit; allreduce limit unknown"

NCCL_PROBE_FSROOT=$R expect_success "the table shows the limits line" \
	np_mpi 4 --backend mpi --ranks-per-node 1 --sweep 64K --coll alltoall --iters 1 --samples 1
expect_grep '^# limits: B_gpu unknown .*B_node 100.0 GB/s \(2 x NDR' "$TEST_OUT" "limits line with the evidence"

# eff below --min-eff on a known limit: one detail per failing judged row
NCCL_PROBE_FSROOT=$R expect_code 1 "--min-eff 100 on a 100 GB/s limit fails" \
	np_mpi 4 --backend mpi --ranks-per-node 1 --sweep 64K:128K --coll alltoall --iters 1 --samples 1 \
	--min-eff 100 --format json --output "$TEST_TMP/e.json"
python3 - "$TEST_TMP/e.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = [{"code": "min_eff", "coll": "alltoall", "size": x["size"], "value": x["eff"], "threshold": 1}
        for x in r["results"] if x["judged"]]
print("# details", r["verdict"]["details"])
sys.exit(0 if want and r["verdict"]["details"] == want else 1)
PY
ok $? "verdict.details: min_eff with the row's eff and the floor as fractions"

# a port down leaves the node with one: B_node 50 GB/s
echo "1: DOWN" >"$R/sys/class/infiniband/mlx5_1/ports/1/state"
NCCL_PROBE_FSROOT=$R expect_success "one port down" \
	np_mpi 4 --backend mpi --ranks-per-node 1 --sweep 64K --coll alltoall --iters 1 --samples 1 --format csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "limit") c = i; next } $c == 50 { n++ } END { exit !n }' "$TEST_OUT"
ok $? "a port down halves the limit"

# one rank: no bus traffic, no limit
NCCL_PROBE_FSROOT=$R expect_success "one rank" np_mpi 1 --backend mpi --sweep 64K --coll alltoall --iters 1 --samples 1 --format csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "limit") c = i; next } $c == "" { n++ } END { exit !n }' "$TEST_OUT"
ok $? "one rank has no limit"
done_testing
