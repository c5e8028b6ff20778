#!/bin/sh
# SPDX-License-Identifier: MIT
# Harness overhead: nccl-probe's reported all-reduce time against a plain
# MPI_Allreduce loop (tests/bench/mpi_allreduce_loop.c), interleaved in one
# run, for 8 B and 1 MiB on 2 and 8 host ranks. Prints the median of each
# over ROUNDS runs and the ratio (target <= 1.05), against the loop at
# MPI_THREAD_SINGLE and at MPI_THREAD_FUNNELED, the level nccl-probe asks
# for (its watchdog thread runs beside the one that calls MPI; Open MPI
# charges every call for it: tests/bench/thread-level.sh).
# NP_BENCH_RANKS: the rank counts (default "2 8").
# usage (from the build directory): ../tests/bench/harness-overhead.sh [ROUNDS]
set -eu
rounds=${1:-5}
np=${NP_BIN:-./nccl-probe}
loop=${LOOP_BIN:-./tests/bench/mpi_allreduce_loop}
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { mpirun -np "$1" --oversubscribe --bind-to none "$@"; }

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

printf '%-6s %-8s %10s %10s %7s %12s %7s %7s\n' ranks size "probe us" "loop us" ratio "funneled us" ratio iters
for n in ${NP_BENCH_RANKS:-2 8}; do
	for size in 8 1048576; do
		: >"/tmp/np-bench-p.$$"
		: >"/tmp/np-bench-l.$$"
		: >"/tmp/np-bench-f.$$"
		for r in $(seq "$rounds"); do
			line=$(mpirun -np "$n" --oversubscribe --bind-to none "$np" --backend mpi \
				--sweep "$size" --coll allreduce --format csv --no-check | tail -n 1)
			t=$(echo "$line" | awk -F, '{ print $8 * 1e6 }')
			iters=$(echo "$line" | awk -F, '{ print $18 }')
			samples=$(echo "$line" | awk -F, '{ print $17 }')
			echo "$t" >>"/tmp/np-bench-p.$$"
			# the plain loop: batches of about 0.2 s, 5 samples
			liters=$(echo "$t" | awk '{ n = int(0.2e6 / $1); print n < 1 ? 1 : n }')
			LOOP_THREAD=single mpirun -np "$n" --oversubscribe --bind-to none -x LOOP_THREAD \
				"$loop" "$size" "$liters" 5 >>"/tmp/np-bench-l.$$"
			LOOP_THREAD=funneled mpirun -np "$n" --oversubscribe --bind-to none -x LOOP_THREAD \
				"$loop" "$size" "$liters" 5 >>"/tmp/np-bench-f.$$"
		done
		p=$(median <"/tmp/np-bench-p.$$")
		l=$(median <"/tmp/np-bench-l.$$")
		fl=$(median <"/tmp/np-bench-f.$$")
		printf '%-6s %-8s %10.3f %10.3f %7.3f %12.3f %7.3f %7s\n' "$n" "$size" "$p" "$l" \
			"$(echo "$p $l" | awk '{ print $1 / $2 }')" "$fl" "$(echo "$p $fl" | awk '{ print $1 / $2 }')" "$iters"
	done
done
rm -f "/tmp/np-bench-p.$$" "/tmp/np-bench-l.$$" "/tmp/np-bench-f.$$"
