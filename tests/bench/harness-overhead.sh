#!/bin/sh
# SPDX-License-Identifier: MIT
# Harness overhead: nccl-probe's reported all-reduce time against a plain
# MPI_Allreduce loop (tests/bench/mpi_allreduce_loop.c), interleaved in one
# run, for 8 B and 1 MiB on 2 and 8 host ranks. Prints the median of each
# over ROUNDS runs and the ratio (target <= 1.05).
# usage (from the build directory): ../tests/bench/harness-overhead.sh [ROUNDS]
set -eu
rounds=${1:-5}
np=${NP_BIN:-./nccl-probe}
loop=${LOOP_BIN:-./tests/bench/mpi_allreduce_loop}
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { mpirun -np "$1" --oversubscribe --bind-to none "$@"; }

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

printf '%-6s %-8s %14s %14s %8s %10s\n' ranks size "probe us" "loop us" ratio "probe iters"
for n in ${NP_BENCH_RANKS:-2 8}; do
	for size in 8 1048576; do
		: >"/tmp/np-bench-p.$$"
		: >"/tmp/np-bench-l.$$"
		for r in $(seq "$rounds"); do
			line=$(mpirun -np "$n" --oversubscribe --bind-to none "$np" --backend mpi \
				--sweep "$size" --coll allreduce --format csv --no-check | tail -n 1)
			t=$(echo "$line" | awk -F, '{ print $8 * 1e6 }')
			iters=$(echo "$line" | awk -F, '{ print $18 }')
			samples=$(echo "$line" | awk -F, '{ print $17 }')
			echo "$t" >>"/tmp/np-bench-p.$$"
			# the plain loop: batches of about 0.2 s, 5 samples
			liters=$(echo "$t" | awk '{ n = int(0.2e6 / $1); print n < 1 ? 1 : n }')
			mpirun -np "$n" --oversubscribe --bind-to none "$loop" "$size" "$liters" 5 \
				>>"/tmp/np-bench-l.$$"
		done
		p=$(median <"/tmp/np-bench-p.$$")
		l=$(median <"/tmp/np-bench-l.$$")
		printf '%-6s %-8s %14.3f %14.3f %8.3f %10s\n' "$n" "$size" "$p" "$l" \
			"$(echo "$p $l" | awk '{ print $1 / $2 }')" "$iters"
	done
done
rm -f "/tmp/np-bench-p.$$" "/tmp/np-bench-l.$$"
