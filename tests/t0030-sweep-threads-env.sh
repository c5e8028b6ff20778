#!/bin/sh
# SPDX-License-Identifier: MIT
# Threads and the environment, seen by a witness preloaded in front of MPI
# (tests/unit/env_witness.c): the sweep and isolate ask MPI for
# MPI_THREAD_FUNNELED (the watchdog's, CUDA's and NCCL's threads run beside
# the main thread, which alone calls MPI; MPI_THREAD_SINGLE does not allow
# that), and NCCL's log settings are in the environment before MPI_Init,
# while the process has one thread; a user's NCCL_DEBUG is left as it is.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
WIT=$top_builddir/tests/unit/libenvwitness.so
[ -f "$WIT" ] || skip_all "$WIT not built"
command -v python3 >/dev/null || skip_all "python3 not found"

witnessed() { # log, nccl-probe args...
	log=$1
	shift
	rm -f "$log"
	mpirun -np 2 --oversubscribe --bind-to none -x LD_PRELOAD="$WIT" -x NP_TEST_ENV_LOG="$log" \
		-x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$NP_BIN" "$@"
}

# every rank's MPI_Init line: at least FUNNELED, NCCL_DEBUG as wanted
check() { # log, NCCL_DEBUG wanted
	python3 - "$@" <<'PY'
import re, sys
log, want = sys.argv[1], sys.argv[2]
ranks = {}
for line in open(log):
    m = re.match(r"rank (\d+): MPI_Init(?:_thread)? required=(\d+) NCCL_DEBUG=(.*)$", line.rstrip("\n"))
    if m:
        ranks[int(m.group(1))] = (int(m.group(2)), m.group(3))
print("# " + "; ".join("rank %d: level %d, NCCL_DEBUG=%s" % (r, l, d) for r, (l, d) in sorted(ranks.items())))
# MPI_THREAD_SINGLE is 0 and FUNNELED 1 in Open MPI and MPICH
bad = [r for r, (l, d) in ranks.items() if l < 1 or d != want]
sys.exit(1 if bad or sorted(ranks) != [0, 1] else 0)
PY
}

expect_success "sweep: runs" witnessed "$TEST_TMP/sweep.log" --backend mpi --sweep 1K --iters 2 --samples 2
expect_success "  MPI_Init_thread at FUNNELED, NCCL's log set before it" check "$TEST_TMP/sweep.log" INFO
head -n 1 "$TEST_OUT"
expect_success "sweep with the user's NCCL_DEBUG=WARN: runs" env NCCL_DEBUG=WARN \
	sh -c 'log=$1; shift; rm -f "$log"; mpirun -np 2 --oversubscribe --bind-to none -x LD_PRELOAD="$0" -x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" -x NP_TEST_ENV_LOG="$log" -x NCCL_DEBUG "$@"' \
	"$WIT" "$TEST_TMP/user.log" "$NP_BIN" --backend mpi --sweep 1K --iters 2 --samples 2
expect_success "  the user's NCCL_DEBUG is left as it is" check "$TEST_TMP/user.log" WARN
# isolate's verdict (0, 1 when the noise of a loaded machine looks like a
# bad node, or 6 when it cannot clear one) is not what is tested here
witnessed "$TEST_TMP/isolate.log" isolate --backend mpi --ranks-per-node 1 --size 16K --budget 0.2 \
	--min-effect 50 >"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
[ "$rc" -le 1 ] || [ "$rc" -eq 6 ]
ok $? "isolate: runs (exit $rc)"
expect_success "  MPI_Init_thread at FUNNELED, NCCL's log set before it" check "$TEST_TMP/isolate.log" INFO

done_testing
