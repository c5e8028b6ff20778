#!/bin/sh
# SPDX-License-Identifier: MIT
# The prolog's all-reduce on a loaded host: N healthy runs beside two busy
# loops must drain nothing (exit 6, inconclusive, allowed), while a node
# planted with wrong data and one 300% slow (4x the time) are drained every
# time. The floor is half of a quiet baseline's median busbw, as the man
# page says to set it from a baseline run. Prints the counts per case.
#   [NP_NICE=-10] tests/bench/prolog-noise.sh BUILD_DIR [N]
# A drain is the prolog's exit 1 with NP_FAIL_EXIT=1 (no Slurm here: the
# node is named by SLURMD_NODENAME, as slurmd names it). A run that ends
# "not checked" (a check could not run) is counted apart.
set -u
B=$(cd "${1:?usage: prolog-noise.sh BUILD_DIR [N]}" && pwd)
N=${2:-20}
top=$(cd "$(dirname "$0")/../.." && pwd)
P=$top/contrib/slurm/prolog-nccl-probe
T=$(mktemp -d)
trap 'kill $l1 $l2 2>/dev/null; rm -rf "$T"' EXIT INT TERM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the baseline: the median busbw of 5 quiet runs of the prolog's all-reduce,
# run as the prolog runs it (NP_NICE, default -10; ranks that keep their
# CPU while they wait, no more of them than CPUs)
for i in 1 2 3 4 5; do
	OMPI_MCA_mpi_yield_when_idle=0 nice -n "${NP_NICE:--10}" mpirun -np 2 --oversubscribe --bind-to none "$B/nccl-probe" --backend mpi --coll allreduce \
		--sweep 1M:1M --quiet | awk '$1 ~ /^[0-9]+$/ { print $8 }'
done | sort -g | sed -n 3p >"$T/base"
base=$(cat "$T/base")
floor=$(awk -v b="$base" 'BEGIN { printf "%.3f", b / 2 }')
echo "# baseline median busbw $base GB/s, floor $floor GB/s (half)"
echo "host memory x2 = $floor" >"$T/floors"
{
	echo "NP_BIN=$B/nccl-probe"
	echo 'NP_MPIRUN_ARGS="--oversubscribe --bind-to none"'
	echo "NP_FLOORS=$T/floors"
	echo "NP_TIMEOUT=60"
	echo "NP_SHARED=measure"
	echo "NP_FAIL_EXIT=1"
	echo "NP_GDR=no"
	echo "NP_STATE_DIR=$T/state"
	echo "NP_NICE=${NP_NICE:--10}"
} >"$T/conf"
sh -c 'while :; do :; done' &
l1=$!
sh -c 'while :; do :; done' &
l2=$!
run() {
	name=$1
	shift
	d=0 inc=0 ok=0 nc=0 other=0
	i=0
	while [ "$i" -lt "$N" ]; do
		i=$((i + 1))
		env "$@" SLURMD_NODENAME=bench NCCL_PROBE_PROLOG_CONF="$T/conf" "$P" 2>"$T/err"
		rc=$?
		if [ "$rc" -eq 1 ]; then
			d=$((d + 1))
			[ "$name" = healthy ] && grep 'problem:' "$T/err"
		elif grep -q ': not checked: ' "$T/err"; then
			nc=$((nc + 1))
			grep 'not checked, ' "$T/err"
		elif grep -q 'inconclusive' "$T/err"; then
			inc=$((inc + 1))
		elif [ "$rc" -eq 0 ]; then
			ok=$((ok + 1))
		else
			other=$((other + 1))
			cat "$T/err"
		fi
	done
	echo "$name: $N runs: drained $d, inconclusive $inc, ok $ok, not checked $nc, other $other"
}
run healthy NP_X=1
run wrong-data NCCL_PROBE_TEST_CORRUPT=1
run slow-300% NCCL_PROBE_TEST_SLOW=0:300%
