#!/bin/sh
# SPDX-License-Identifier: MIT
# The cost of MPI_THREAD_FUNNELED against MPI_THREAD_SINGLE: the plain
# all-reduce loop (tests/bench/mpi_allreduce_loop.c) at both levels
# (LOOP_THREAD), interleaved in one run, ROUNDS times each, for 8 B and
# 1 MiB on 2 and 8 host ranks. Prints the median time per call at each
# level and their ratio (funneled / single).
# usage (from the build directory): ../tests/bench/thread-level.sh [ROUNDS]
set -eu
rounds=${1:-7}
loop=${LOOP_BIN:-./tests/bench/mpi_allreduce_loop}
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

printf '%-6s %-8s %12s %12s %8s\n' ranks size "single us" "funneled us" ratio
for n in 2 8; do
	for size in 8 1048576; do
		# about 0.2 s per sample at the single level
		t=$(LOOP_THREAD=single mpirun -np "$n" --oversubscribe --bind-to none "$loop" "$size" 1000 3)
		iters=$(echo "$t" | awk '{ n = int(0.2e6 / $1); print n < 1 ? 1 : n }')
		: >"$tmp/single"
		: >"$tmp/funneled"
		for r in $(seq "$rounds"); do
			for level in single funneled; do
				LOOP_THREAD=$level mpirun -np "$n" --oversubscribe --bind-to none "$loop" "$size" \
					"$iters" 5 >>"$tmp/$level"
			done
		done
		s=$(median <"$tmp/single")
		f=$(median <"$tmp/funneled")
		printf '%-6s %-8s %12.3f %12.3f %8.3f\n' "$n" "$size" "$s" "$f" \
			"$(echo "$s $f" | awk '{ print $2 / $1 }')"
	done
done
