#!/bin/sh
# SPDX-License-Identifier: MIT
# Sizes that do not fit the GPU are skipped with one clear line, never an
# out-of-memory crash; the sizes that fit still run.
. "$(dirname "$0")/lib.sh"
have_nccl_build || skip_all "built without the NCCL backend"
have_gpu || skip_all "no GPU"

expect_success "1 TiB all-reduce on a GPU: skipped, 1 GiB runs" \
	np --backend nccl --sweep 1G:1T:x1024 --coll allreduce --iters 1 --samples 1 --warmup 1
unwrap "$TEST_OUT" >"$TEST_TMP/unwrapped"
expect_grep '^# skipped allreduce 1 ?T(i)?B?:? .*needs .* of buffers per rank, .* available on the tightest rank' \
	"$TEST_TMP/unwrapped" "the skip line says what it needs and what is there"
expect_grep '^ +1073741824 +268435456 ' "$TEST_OUT" "the 1 GiB row ran"
expect_code 64 "4 TiB all-to-all and 64 TiB all-reduce: nothing fits, nothing runs (exit 64)" \
	np --backend nccl --sweep 4T:64T:x16 --coll allreduce,alltoall --iters 1 --samples 1 --format json
n=$(grep -c '^note: skipped .*needs .* of buffers per rank' "$TEST_ERR")
[ "$n" -eq 4 ]
ok $? "every size is skipped with the reason (got $n lines)"
expect_grep '^error: nothing to run' "$TEST_ERR" "and the run says there is nothing to run"

# the default range reaches the saturated sizes: up to 8 GiB as the GPU's
# free memory allows, with a note that says where it stopped and why
expect_success "default range on a GPU" \
	np --backend nccl --coll allreduce --iters 1 --samples 1 --warmup 1 --format json --output "$TEST_TMP/d.json"
python3 - "$TEST_TMP/d.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
top = max(r["size"] for r in rep["results"])
note = [n for n in rep["notes"] if n.startswith("default sizes up to") and "free memory" in n]
print("# largest size", top, "notes", note)
sys.exit(0 if rep["options"]["max_bytes"] == top and top > 128 << 20 and top <= 8 << 30 and note else 1)
PY
ok $? "default range: beyond 128 MiB, at most 8 GiB, the note says why"
done_testing
