#!/bin/sh
# SPDX-License-Identifier: MIT
# A launch that does not line up is one error, not N one-rank reports: the
# launcher's variables say N processes while MPI gives each a world of 1
# (an mpirun of another MPI, srun without this MPI's PMI). Usage errors
# are printed once under mpirun, whatever the command.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"

# three processes started as an MPICH launcher would (PMI_SIZE, PMI_RANK):
# this build's MPI does not read those variables, so each is a singleton
for r in 0 1 2; do
	PMI_SIZE=3 PMI_RANK=$r "$NP_BIN" --backend mpi --sweep 8 --iters 1 --samples 1 \
		>"$TEST_TMP/out.$r" 2>"$TEST_TMP/err.$r" &
	eval "pid$r=\$!"
done
for r in 0 1 2; do
	eval "wait \$pid$r"
	echo $? >"$TEST_TMP/rc.$r"
done
for r in 0 1 2; do
	[ "$(cat "$TEST_TMP/rc.$r")" -eq 3 ]
	ok $? "process $r of a mismatched launch exits 3"
	[ ! -s "$TEST_TMP/out.$r" ]
	ok $? "process $r prints no report"
done
cat "$TEST_TMP"/err.* >"$TEST_ERR"
n=$(grep -c '^error:' "$TEST_ERR")
[ "$n" -eq 1 ]
ok $? "one error line for the three processes (got $n)"
expect_grep "3 processes \(PMI_SIZE=3\).*world of 1 rank.*mpirun" "$TEST_ERR" \
	"the error names the launcher's count and what to do"

# srun without this MPI's PMI plugin: Slurm's step variables
expect_code 3 "srun step of 4 tasks seen by a singleton MPI exits 3" \
	env SLURM_STEP_ID=7 SLURM_STEP_NUM_TASKS=4 SLURM_PROCID=0 "$NP_BIN" --backend mpi --sweep 8
expect_grep "srun started 4 processes.*--mpi" "$TEST_ERR" "the error says to give srun --mpi"
expect_code 3 "srun's other tasks exit 3 too" \
	env SLURM_STEP_ID=7 SLURM_STEP_NUM_TASKS=4 SLURM_PROCID=2 "$NP_BIN" --backend mpi --sweep 8
[ ! -s "$TEST_ERR" ]
ok $? "and print nothing"

# a launcher of one process, and mpirun itself, are not mismatches
expect_success "PMI_SIZE=1 runs" env PMI_SIZE=1 PMI_RANK=0 "$NP_BIN" --backend mpi --sweep 8 \
	--iters 1 --samples 1 -q
expect_success "mpirun -np 2 under a Slurm step of 1 task runs" \
	env SLURM_STEP_ID=7 SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0 \
	mpirun -np 2 --oversubscribe "$NP_BIN" --backend mpi --sweep 8 --iters 1 --samples 1 -q

# usage errors once, whatever the command
for c in "bogus" "isolate --bogus" "topo --bogus" "--bogus"; do
	# shellcheck disable=SC2086
	expect_code 64 "mpirun -np 3 nccl-probe $c exits 64" np_mpi 3 $c
	n=$(grep -c '^error:' "$TEST_ERR")
	[ "$n" -eq 1 ]
	ok $? "one error line for '$c' on 3 ranks (got $n)"
done
done_testing
