#!/bin/sh
# SPDX-License-Identifier: MIT
# The sweep on 1, 2, 3, 4 and 8 host ranks: JSON parses, busbw = algbw x
# factor for every row and collective, no wrong elements.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"

for n in 1 2 3 4 8; do
	expect_success "$n ranks: every collective runs" \
		np_host "$n" --coll all --sweep 1K:256K:x16 --iters 3 --samples 3 --warmup 1 \
		--backend mpi --format json --output "$TEST_TMP/r$n.json"
	expect_success "$n ranks: JSON parses" python3 -m json.tool "$TEST_TMP/r$n.json"
	expect_success "$n ranks: busbw = algbw x factor, no wrong data" \
		python3 "$srcdir/tests/check_report.py" "$TEST_TMP/r$n.json" "$n" \
		allreduce,allgather,reducescatter,alltoall,broadcast,reduce,sendrecv
done

# --iters auto: samples until the median is known or the budget is spent
expect_success "auto sampling runs" \
	np_host 2 --sweep 8:64K:x8 --budget 0.2 --format json --output "$TEST_TMP/auto.json"
expect_success "auto sampling: report checks" \
	python3 "$srcdir/tests/check_report.py" "$TEST_TMP/auto.json" 2 allreduce,alltoall
python3 - "$TEST_TMP/auto.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
bad = [r for r in rep["results"] if not (r["converged"] or r["samples"] >= 3)]
sys.exit(1 if bad or rep["options"]["iters"] != "auto" else 0)
PY
ok $? "auto sampling: every row converged or took at least 3 samples"

# the human table: nccl-tests' columns and the summary
expect_success "table output" np_host 2 --sweep 1K:4K --iters 2 --samples 2
expect_grep '^# coll +size +count +type +redop +root +time\(us\)' "$TEST_OUT" "table has nccl-tests columns"
expect_grep '^# summary' "$TEST_OUT" "table has a summary"
expect_grep '^# +0 +' "$TEST_OUT" "header has a line per rank"
expect_grep 'backend mpi' "$TEST_OUT" "header names the backend"

# CSV: one header and one line per row
expect_success "csv output" np_host 2 --sweep 1K:4K --iters 2 --samples 2 --format csv --coll allreduce
lines=$(wc -l <"$TEST_OUT")
[ "$lines" -eq 3 ]
ok $? "csv has a header and 2 rows, 1K and 4K (got $lines lines)"
expect_grep '^coll,size,count,type,redop,root,inplace,time,' "$TEST_OUT" "csv header names metrics"

# sizes that round to 0 elements are skipped with a note, not run
expect_success "tiny alltoall on 8 ranks" np_host 8 --sweep 8:64 --coll alltoall --iters 1 --samples 1 --format json
expect_grep '"reason": "rounds to 0 float elements per rank on 8 ranks' "$TEST_OUT" "size rounding to 0 elements is skipped with the reason"

# virtual nodes
expect_success "virtual nodes" np_host 4 --ranks-per-node 2 --sweep 1K --iters 1 --samples 1 --format json --output "$TEST_TMP/v.json"
python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["world"]; sys.exit(0 if w["nodes"]==2 and w["virtual_nodes"] and w["ranks_per_node"]==2 else 1)' "$TEST_TMP/v.json"
ok $? "4 ranks with --ranks-per-node 2 form 2 virtual nodes"
done_testing
