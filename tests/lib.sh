# SPDX-License-Identifier: MIT
# Shell test library: TAP output, MPI launch helpers, prerequisites.
# Source it from tests/tNNNN-area-what.sh:  . "$(dirname "$0")/lib.sh"
#
#   plan N | done_testing          TAP plan (up front, or at the end)
#   ok COND-RC "desc"              one TAP line from a status (returns it)
#   expect_success "desc" CMD...   CMD exits 0
#   expect_code CODE "desc" CMD... CMD exits CODE; its stderr is in $TEST_ERR
#   expect_grep RE FILE "desc"     FILE has a line matching RE
#   expect_verdict CODE "desc" CMD... CMD's timing verdict is CODE (loose
#                                  in a sanitized build); judged_grep the
#                                  same for a verdict's line
#   skip_all "why"                 skip the whole test (TAP 1..0 # SKIP)
#   rank_pid R TENTHS              rank R's pid from a sweep's table in $TEST_OUT
#   timing_alone                   run apart from the other tests that judge
#                                  timing (a lock, until this test ends or
#                                  calls timing_done)
#   quick_abort                    mpirun ends a job that exited non-zero at
#                                  once, not 2 s later (see below)
#   np ARGS...                     run the built nccl-probe directly
#   np_mpi N ARGS...               run it on N local MPI ranks
#   np_host N ARGS...              the same with the MPI host backend
set -u

: "${srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
# the real machines' topology files the project carries (tests/fixtures)
: "${NP_FIXTURES:=$(cd "$srcdir/tests/fixtures" 2>/dev/null && pwd)}"
export NP_FIXTURES
: "${top_builddir:=$(pwd)}"
NP_BIN=${NP_BIN:-$top_builddir/nccl-probe}
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/np-test.XXXXXX")
TEST_ERR=$TEST_TMP/stderr
TEST_OUT=$TEST_TMP/stdout
trap 'rm -rf "$TEST_TMP"' EXIT
_np_n=0
_np_failed=0

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# each test's mpiruns keep their session directory in the test's own
# directory: in /tmp (or TMPDIR) every mpirun of a user shares one top
# directory, and of two mpiruns of tests beside each other that created
# it at once, one failed in orte_init ("mkdir /tmp/ompi.HOST.UID: File
# exists"). Open MPI 4's name (5 ignores it); a test that starts mpiruns
# side by side gives each its own (t0003)
export OMPI_MCA_orte_tmpdir_base="$TEST_TMP"
# ranks outnumber cores here: waiting ranks yield the CPU instead of spinning
export OMPI_MCA_mpi_yield_when_idle=1
export NCCL_NVLS_ENABLE=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# In a sanitized build (NP_SANITIZED) a sanitizer report exits 86, a code
# nccl-probe never uses, so that it never reads as a verdict (exit 1)
if [ -n "${NP_SANITIZED:-}" ]; then
	ASAN_OPTIONS="$ASAN_OPTIONS:exitcode=86"
	UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}:exitcode=86"
	export UBSAN_OPTIONS
fi

# python3, where it is a version manager's shim (a script: pyenv's finds
# the version on every call, about 60 ms, and the suite makes some 500
# calls), is the interpreter it chooses, found once per test: the same
# python, scripts started by '#!/usr/bin/env python3' included
_np_py=$(command -v python3 2>/dev/null) || _np_py=
if [ -n "$_np_py" ] && [ "$(head -c 2 "$_np_py" 2>/dev/null)" = "#!" ]; then
	_np_py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || _np_py=
	case $_np_py in
	/*\'*) ;;
	/*)
		mkdir "$TEST_TMP/.py" && printf '#!/bin/sh\nexec '\''%s'\'' "$@"\n' "$_np_py" >"$TEST_TMP/.py/python3" &&
			chmod +x "$TEST_TMP/.py/python3" && PATH=$TEST_TMP/.py:$PATH
		;;
	esac
fi

plan() { echo "1..$1"; }
done_testing() { echo "1..$_np_n"; [ "$_np_failed" -eq 0 ]; exit $?; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }

ok() {
	_np_n=$((_np_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_np_n - $2"
	else
		echo "not ok $_np_n - $2"
		_np_failed=$((_np_failed + 1))
	fi
	return "$1"
}

diag() { printf '# %s\n' "$@"; }

# Show a failed command's output as TAP diagnostics.
_np_show() {
	[ -s "$TEST_OUT" ] && sed 's/^/#   out: /' "$TEST_OUT" | head -n 20
	[ -s "$TEST_ERR" ] && sed 's/^/#   err: /' "$TEST_ERR" | head -n 20
	return 0
}

expect_success() {
	local desc=$1 rc
	shift
	"$@" >"$TEST_OUT" 2>"$TEST_ERR"
	rc=$?
	ok "$rc" "$desc"
	[ "$rc" -eq 0 ] || { diag "exit $rc: $*"; _np_show; }
	return "$rc"
}

expect_code() {
	local want=$1 desc=$2 rc
	shift 2
	"$@" >"$TEST_OUT" 2>"$TEST_ERR"
	rc=$?
	[ "$rc" -eq "$want" ]
	ok $? "$desc"
	[ "$rc" -eq "$want" ] || { diag "exit $rc, wanted $want: $*"; _np_show; }
	return 0
}

# expect_verdict CODE DESC CMD...: CMD's exit CODE (0 or 1) is a verdict
# on timing (a healthy run: 0; a slow node named: 1). A sanitized build's
# timing is not the product's: there CMD must end with a timing verdict,
# 0 or 1, and without a sanitizer report; which one is reported, not
# judged.
expect_verdict() {
	local want=$1 desc=$2 rc
	shift 2
	if [ -z "${NP_SANITIZED:-}" ]; then
		expect_code "$want" "$desc" "$@"
		return 0
	fi
	"$@" >"$TEST_OUT" 2>"$TEST_ERR"
	rc=$?
	{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 6 ]; } &&
		! grep -Eq 'ERROR: AddressSanitizer|runtime error:' "$TEST_ERR" "$TEST_OUT"
	ok $? "$desc (sanitized build: exit $rc, a verdict of 0, 1 or 6; the timing not judged)"
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 6 ] || { diag "exit $rc: $*"; _np_show; }
	return 0
}

# expect_unnamed DESC CMD...: an isolation of a healthy fleet names
# nobody: exit 0, or 6 (inconclusive: on a host whose noise is wider than
# --min-effect the figures cannot clear every node) with the reason on
# standard error or in the report
expect_unnamed() {
	local desc=$1 rc
	shift
	"$@" >"$TEST_OUT" 2>"$TEST_ERR"
	rc=$?
	if [ "$rc" -eq 6 ]; then
		grep -q 'inconclusive' "$TEST_OUT" "$TEST_ERR" ${TEST_REPORT:+"$TEST_REPORT"}
		ok $? "$desc (exit 6: inconclusive, and it says why)"
	else
		[ "$rc" -eq 0 ]
		ok $? "$desc (exit $rc, 0 or 6 wanted)"
	fi
	[ "$rc" -eq 0 ] || [ "$rc" -eq 6 ] || { diag "exit $rc: $*"; _np_show; }
	return 0
}

# judged_ok RC DESC, judged_grep RE FILE DESC: ok and expect_grep of what
# follows from a timing verdict; TAP skips in a sanitized build (see
# expect_verdict)
judged_ok() {
	if [ -n "${NP_SANITIZED:-}" ]; then
		ok 0 "$2 # SKIP sanitized build: timing not judged"
	else
		ok "$1" "$2"
	fi
}
judged_grep() {
	if [ -n "${NP_SANITIZED:-}" ]; then
		ok 0 "$3 # SKIP sanitized build: timing not judged"
		return 0
	fi
	expect_grep "$@"
}

# rank_pid R TENTHS: rank R's pid, from the rank lines of the sweep's
# table as it is written to $TEST_OUT (a run in the background), waiting
# at most TENTHS tenths of a second; empty if it never appears
rank_pid() {
	_np_i=0 _np_pid=""
	while [ "$_np_i" -lt "$2" ] && [ -z "$_np_pid" ]; do
		_np_pid=$(awk -v r="$1" '$1 == "#" && $2 == r && $4 ~ /^[0-9]+$/ { print $4; exit }' "$TEST_OUT")
		[ -n "$_np_pid" ] || sleep 0.1
		_np_i=$((_np_i + 1))
	done
	echo "$_np_pid"
}

# timing_alone: wait until no other test that judges timing runs, and
# keep them out until this test ends. Under `make -j` two of them side by
# side on a small host (each 8 to 16 ranks on 2 cores) measure each other,
# not the faults they plant. The lock is held by a helper that watches
# this shell, so that nothing this test starts (a rank left hanging, a
# daemon) can keep it; after 20 min of waiting the test runs anyway.
timing_alone() {
	command -v flock >/dev/null 2>&1 || return 0
	local me=$$ held="$TEST_TMP/.timing-held" i=0
	(
		exec 9>>"$top_builddir/.np-timing.lock" || exit 0
		flock -w 1200 9 || :
		: >"$held"
		while kill -0 "$me" 2>/dev/null; do sleep 1 9>&-; done
	) </dev/null >/dev/null 2>&1 &
	_np_timing_pid=$!
	while [ ! -e "$held" ] && [ "$i" -lt 12100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$held" ] || diag "ran beside another timing test: no turn within 20 min"
	return 0
}

# timing_done: timing is judged no more in this test: its lock's holder
# ends, and the next test that waits for the lock has it
timing_done() {
	[ -n "${_np_timing_pid:-}" ] || return 0
	kill "$_np_timing_pid" 2>/dev/null
	wait "$_np_timing_pid" 2>/dev/null
	_np_timing_pid=
	rm -f "$TEST_TMP/.timing-held"
	return 0
}

# quick_abort: from here on, mpirun ends a job whose rank exited non-zero
# at once. By default it first gives the ranks still running 2 s of grace
# (SIGCONT, 1 s, SIGTERM, 1 s, SIGKILL), and it waits so even when every
# rank has ended: each usage error or failed verdict under mpirun cost 2 s
# more than its run. Only for tests whose failing runs end on every rank
# by themselves (each rank passes MPI_Finalize, then exits with the code):
# a test that plants a killed, hung or signalled rank, whose other ranks
# must report or clean up while the job ends, keeps the grace.
quick_abort() { export OMPI_MCA_odls_base_sigkill_timeout=0; }

# schema_ok NAME FILE DESC: FILE holds to contrib/nccl-probe-NAME.schema.json
# (one TAP line; a SKIP where python3-jsonschema is missing)
schema_ok() {
	if ! python3 -c 'import jsonschema' 2>/dev/null; then
		ok 0 "$3 # SKIP python3-jsonschema not installed"
		return
	fi
	python3 - "$srcdir/contrib/nccl-probe-$1.schema.json" "$2" <<'PY'
import json, sys
import jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
errs = list(v.iter_errors(json.load(open(sys.argv[2]))))
for e in errs:
    print("# %s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message[:200]))
sys.exit(1 if errs else 0)
PY
	ok $? "$3"
}

expect_grep() {
	grep -Eq -- "$1" "$2"
	local rc=$?
	ok "$rc" "$3"
	[ "$rc" -eq 0 ] || { diag "no line matches /$1/ in $2:"; sed 's/^/#   /' "$2" | head -n 20; }
	return 0
}

# unwrap FILE: the comment lines the table wraps at 100 columns ("#    "
# and a word begin a continuation) joined back into one line each
unwrap() { sed -e ':a' -e '$!N' -e 's/\n#    \([^ ]\)/ \1/' -e 'ta' -e 'P' -e 'D' "$1"; }

np() { "$NP_BIN" "$@"; }

have_mpirun() { command -v mpirun >/dev/null 2>&1; }

np_mpi() {
	local n=$1
	shift
	mpirun -np "$n" --oversubscribe --bind-to none "$NP_BIN" "$@"
}

# the sweep on host memory, whatever GPUs the machine has (a later
# --backend in ARGS wins)
np_host() {
	local n=$1
	shift
	np_mpi "$n" --backend mpi "$@"
}

have_gpu() {
	command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'
}

have_nccl_build() { "$NP_BIN" --version 2>/dev/null | grep -q 'nccl backend: yes'; }

need_fixtures() {
	[ -n "${NP_FIXTURES:-}" ] && [ -d "$NP_FIXTURES/topology" ] ||
		skip_all "NP_FIXTURES '$NP_FIXTURES' has no topology/ (unset it: tests/fixtures is the default)"
}
