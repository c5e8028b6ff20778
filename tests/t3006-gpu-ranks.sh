#!/bin/sh
# SPDX-License-Identifier: MIT
# Guards of the NCCL backend's GPU choice: more ranks than GPUs, two ranks
# on one GPU, a bad GPU map, and --backend nccl without a GPU: exit 3 with
# a message that says what to do.
. "$(dirname "$0")/lib.sh"
have_nccl_build || skip_all "built without the NCCL backend"
have_mpirun || skip_all "mpirun not found"

if ! have_gpu; then
	expect_code 3 "--backend nccl without a GPU: exit 3" \
		env CUDA_VISIBLE_DEVICES= "$NP_BIN" --backend nccl --sweep 1M
	expect_grep "no CUDA device visible .*use --backend mpi" "$TEST_ERR" \
		"the message says there is no GPU and what to do"
	done_testing
fi

g=$(nvidia-smi -L | grep -c '^GPU')
n=$((g + 1))
expect_code 3 "$n ranks on $g GPU(s): exit 3" np_mpi "$n" --backend nccl --sweep 1M --coll allreduce
expect_grep "rank $g on '[^']+': local rank $g has no GPU \($g visible\); launch at most $g rank" \
	"$TEST_ERR" "the message names rank, host and GPU count"
expect_code 3 "two ranks on GPU 0 (--gpu-map 0,0): exit 3" \
	np_mpi 2 --backend nccl --gpu-map 0,0 --sweep 1M --coll allreduce
expect_grep "ranks 0 and 1 both use the GPU at [0-9a-fA-F:.]+" "$TEST_ERR" \
	"the message names both ranks and the bus id"
expect_code 3 "--gpu-map $g: exit 3" np --backend nccl --gpu-map "$g" --sweep 1M
expect_grep "gives local rank 0 GPU $g, but $g (is|are) visible" "$TEST_ERR" "the message names the GPU map"
expect_code 3 "NCCL_PROBE_GPU_MAP=$g: exit 3" env NCCL_PROBE_GPU_MAP="$g" "$NP_BIN" --backend nccl --sweep 1M
expect_grep "NCCL_PROBE_GPU_MAP '$g' gives local rank 0" "$TEST_ERR" "the message names the variable"
expect_code 64 "NCCL_PROBE_GPU_MAP=x: usage error" env NCCL_PROBE_GPU_MAP=x "$NP_BIN" --backend nccl --sweep 1M
expect_success "NCCL_PROBE_GPU_MAP=0 picks GPU 0" env NCCL_PROBE_GPU_MAP=0 "$NP_BIN" --backend nccl \
	--sweep 1M --coll allreduce --iters 1 --samples 1
done_testing
