#!/bin/sh
# SPDX-License-Identifier: MIT
# The sweep on one GPU with the NCCL backend: every collective and data type
# checked on the device, every reduction, CUDA graphs, in place, and the
# header's NCCL, CUDA and GPU facts.
. "$(dirname "$0")/lib.sh"
have_nccl_build || skip_all "built without the NCCL backend"
have_gpu || skip_all "no GPU"
command -v python3 >/dev/null || skip_all "python3 not found"

ALL=allreduce,allgather,reducescatter,alltoall,broadcast,reduce,gather,scatter,sendrecv
INPLACE=allreduce,allgather,reducescatter,broadcast,reduce,gather,scatter
run() { # name, expected collectives, options...
	name=$1 colls=$2
	shift 2
	expect_success "$name: runs" np --backend nccl --sweep 1K:4M:x64 --iters 2 --samples 2 \
		--warmup 1 --check --format json --output "$TEST_TMP/$name.json" "$@"
	expect_success "$name: every row checked, no wrong element, busbw = algbw x factor" \
		python3 "$srcdir/tests/check_report.py" "$TEST_TMP/$name.json" 1 "$colls"
}

for dt in int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 fp8e4m3 fp8e5m2; do
	run "$dt" "$ALL" --coll all --dtype "$dt"
done
for op in prod max min avg; do
	run "$op" allreduce,reducescatter,reduce --coll allreduce,reducescatter,reduce --op "$op"
	run "$op-half" allreduce,reducescatter,reduce --coll allreduce,reducescatter,reduce \
		--op "$op" --dtype half
done
expect_code 64 "fp8 avg: NCCL has none, a usage error" np --backend nccl --sweep 1M --coll allreduce \
	--dtype fp8e4m3 --op avg
expect_grep "no such reduction" "$TEST_ERR" "  the message says so"
run graph "$ALL" --coll all --graph
run graph-bf16 "$ALL" --coll all --graph --dtype bfloat16
run inplace "$INPLACE" --coll all --inplace
run inplace-graph "$INPLACE" --coll all --inplace --graph
run inplace-int8 "$INPLACE" --coll all --inplace --dtype int8
expect_grep '"reason": "has no in-place form' "$TEST_TMP/inplace.json" \
	"--inplace skips alltoall and sendrecv with the reason"

python3 - "$TEST_TMP/float.json" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))
b, r = rep["backend"], rep["ranks"][0]
ok = (b["name"] == "nccl" and re.match(r"NCCL \d+\.\d+\.\d+", b["library"])
      and re.match(r"CUDA driver \d+\.\d+, runtime \d+\.\d+", b["runtime"] or "")
      and r["device"] == 0 and re.match(r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d", r["bus_id"] or "")
      and r["device_name"] and "NCCL_NVLS_ENABLE" in rep["nccl_env"]
      and not any(k.startswith("NCCL_DEBUG") for k in rep["nccl_env"]))
print("# library %s; runtime %s; transport %s; GPU %s %s" % (b["library"], b["runtime"],
      b["transport"], r["bus_id"], r["device_name"]))
sys.exit(0 if ok else 1)
PY
ok $? "JSON: NCCL and CUDA versions, device, bus id, name, NCCL_* variables"

expect_success "table output" np --backend nccl --sweep 1M --coll allreduce --iters 2 --samples 2
expect_grep '^# library: NCCL [0-9]+\.[0-9]+\.[0-9]+.*; CUDA driver [0-9.]+, runtime [0-9.]+' \
	"$TEST_OUT" "header: NCCL library and CUDA versions"
expect_grep '^# +0 .* 0 +[0-9a-fA-F]+:[0-9a-fA-F]+:[0-9a-fA-F]+\.[0-9]' "$TEST_OUT" \
	"header: rank 0 on CUDA device 0 with its PCI bus id"
expect_success "--backend auto picks NCCL" np --sweep 1M --coll allreduce --iters 1 --samples 1
expect_grep '^# nccl-probe .*backend nccl' "$TEST_OUT" "header says backend nccl"
expect_success "--backend auto without a visible GPU" \
	env CUDA_VISIBLE_DEVICES= "$NP_BIN" --sweep 1M --coll allreduce --iters 1 --samples 1
expect_grep '^# nccl-probe .*backend mpi \(no GPU visible' "$TEST_OUT" "falls back to MPI and says why"
done_testing
