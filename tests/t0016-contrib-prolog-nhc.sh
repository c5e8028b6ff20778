#!/bin/sh
# SPDX-License-Identifier: MIT
# The Slurm prolog and the NHC check run directly (t0014 runs them
# through Slurm): a healthy node passes; a GPU with uncorrectable ECC
# errors (fake sysfs and NVML) and an all-reduce below its floor are
# each one line naming the GPU or the figure; nothing drains unless
# configured; a missing nccl-probe checks nothing and blames no node;
# bad settings exit 64. Only nccl-probe's own verdict is a problem: a
# launch that produced no report of nccl-probe (a launcher's usage
# error, too few slots) is "could not run", logged with what failed,
# and passes. A stand-in nvidia-smi first on PATH that hangs or fails
# makes the node fail (a GPU node whose GPUs cannot be seen), never a
# node without GPUs; the prolog logs a SIGTERM and stops at once. LBNL
# NHC is not packaged in Debian: the check file is sourced with die and
# log defined as NHC defines them.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
command -v bash >/dev/null || skip_all "bash not found"
LIB=$top_builddir/tests/fakenvml/libfakenvml.so
[ -f "$LIB" ] || skip_all "fake NVML not built ($LIB); run make check"
. "$srcdir/tests/fakesys.sh"
node "$TEST_TMP/root"
printf 'count=1\ngpu0.busid=0000:19:00.0\ngpu0.name=NVIDIA H100 80GB HBM3\ngpu0.ecc=1\ngpu0.ecc_uncorrected=3\n' >"$TEST_TMP/nvml.conf"
fault() { NCCL_PROBE_FSROOT=$TEST_TMP/root NCCL_PROBE_NVML_LIB=$LIB NP_FAKE_NVML=$TEST_TMP/nvml.conf "$@"; }

P=$srcdir/contrib/slurm/prolog-nccl-probe
# the node's Slurm name, as slurmd gives it (without it the prolog asks
# 'scontrol show node', which t0042 checks)
SLURMD_NODENAME=n1
export SLURMD_NODENAME
C=$TEST_TMP/prolog.conf
conf() {
	{
		echo "NP_BIN=$NP_BIN"
		echo 'NP_MPIRUN_ARGS="--oversubscribe --bind-to none"'
		echo "NP_FLOORS=$TEST_TMP/floors"
		echo "NP_TIMEOUT=60"
		# no Slurm here: whether a job shares the node cannot be asked
		echo "NP_SHARED=measure"
		printf '%s\n' "$@"
	} >"$C"
}
prolog() { NCCL_PROBE_PROLOG_CONF=$C "$P"; }
# again_inconclusive CMD...: CMD, run again (at most twice more) while it
# passes saying its all-reduce was inconclusive, as an operator would
# measure again: beside the other tests' ranks the batch-length search can
# end unsteady, and the sweep never judges such a row below a floor, even
# one 100,000 times above it (src/sweep_verdict.c); the output is the last
# run's
again_inconclusive() {
	_n=0
	while :; do
		"$@" >"$TEST_TMP/again.out" 2>"$TEST_TMP/again.err"
		_rc=$?
		[ "$_rc" -eq 0 ] && [ "$_n" -lt 2 ] &&
			grep -q 'inconclusive' "$TEST_TMP/again.out" "$TEST_TMP/again.err" || break
		_n=$((_n + 1))
	done
	[ "$_n" -eq 0 ] || echo "# the all-reduce was inconclusive; measured $_n more time(s)"
	cat "$TEST_TMP/again.out"
	cat "$TEST_TMP/again.err" >&2
	return "$_rc"
}
# the node type as the prolog names it: its GPUs where nvidia-smi lists
# some (the all-reduce then runs on them, one rank each), else host memory
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${ngpu:-0}" -gt 0 ]; then
	ranks=$ngpu type="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) x$ngpu"
	# the healthy node is healthy apart from GDR, which needs an RDMA NIC
	nogdr=NP_GDR=no
else
	ranks=2 type="host memory x2" nogdr=""
fi
tre=$(printf '%s' "$type" | sed 's/[][().*+?^$|\\]/\\&/g')
echo "$type = 0.0001" >"$TEST_TMP/floors"

conf $nogdr
expect_success "prolog, a healthy node: exit 0" prolog
expect_grep "^nccl-probe prolog: .*: all-reduce on $ranks ranks \($tre\): [0-9.]+ GB/s busbw, floor 0.0001" "$TEST_ERR" \
	"  the all-reduce against the floor of its type"
expect_grep "^nccl-probe prolog: .*: ok$" "$TEST_ERR" "  ok"
expect_success "a GPU with ECC errors, not set to drain: exit 0" fault prolog
expect_grep "^nccl-probe prolog: .*: problem: topo: health-gpu-ecc-uncorrected \[GPU0\]: GPU0: 3 uncorrectable ECC errors" \
	"$TEST_ERR" "  one line naming GPU0 and the figure"
! grep -q 'drained' "$TEST_ERR"
ok $? "  nothing drained"
conf NP_GDR=yes
expect_success "the same with --check-gdr (NP_GDR=yes): exit 0" fault prolog
expect_grep "^nccl-probe prolog: .*: problem: topo: health-gpu-ecc-uncorrected \[GPU0\]" "$TEST_ERR" \
	"  the GPU's ECC errors are still named beside the GDR answer"
conf NP_FAIL_EXIT=1
expect_code 1 "the same with NP_FAIL_EXIT=1: exit 1" fault prolog
echo "$type = 100000" >"$TEST_TMP/floors"
conf NP_FAIL_EXIT=1 $nogdr
if [ "$ranks" -gt 1 ]; then
	expect_code 1 "an all-reduce below its floor: exit 1" again_inconclusive prolog
	expect_grep "problem: all-reduce \($tre\): allreduce busbw .*below --min-busbw 100000.* [0-9.]+ GB/s" \
		"$TEST_ERR" "  names the figure and the floor"
else
	ok 0 "an all-reduce below its floor # SKIP one GPU: busbw of one rank is 0 by definition, no floor applies"
	ok 0 "  names the figure and the floor # SKIP one GPU"
fi
# a baseline instead of a floor: a known-good run of the prolog's own
# all-reduce (its -J report), failed only when significantly slower than
# it by more than PCT. Its times are scaled so that the verdict does not
# depend on this host's load: a baseline a million times slower passes, a
# million times faster drains, and one whose sample times spread 1e-4x to
# 1e4x around 0.75x of the known-good run's (the margin of a 25%
# slowdown) cannot exclude a slowdown beyond PCT: inconclusive, not
# drained. Centred on the margin and this wide, the interval still holds
# 0.75 when this host's load makes the prolog's run a few times faster or
# slower than the known-good run (0.01x to 100x around 1x did not: in a
# sanitized build a faster run excluded the slowdown, rightly, once).
if [ "$ranks" -gt 1 ]; then
	if [ "${ngpu:-0}" -gt 0 ]; then bsz=256M bbe=auto; else bsz=1M bbe=mpi; fi
	# run as the prolog runs it: host ranks keep their CPU while they wait
	OMPI_MCA_mpi_yield_when_idle=0 mpirun -np "$ranks" --oversubscribe --bind-to none "$NP_BIN" --backend "$bbe" \
		--coll allreduce --sweep "$bsz:$bsz" --quiet -J "$TEST_TMP/known-good.json" >/dev/null 2>&1
	ok $? "a known-good run of the prolog's all-reduce for its baseline"
	for f in 1e6:slow 1e-6:fast wide:wide; do
		python3 - "$TEST_TMP/known-good.json" "${f%%:*}" "$TEST_TMP/base-${f#*:}.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for row in r["results"]:
    t = sorted(row["sample_times"])
    if sys.argv[2] == "wide":
        row["sample_times"] = [0.75 * x * 10 ** (-4 + 8 * k / (len(t) - 1)) for k, x in enumerate(t)]
        continue
    k = float(sys.argv[2])
    for key in ("time", "time_min", "time_max", "slow_time"):
        if row.get(key) is not None:
            row[key] *= k
    for key in ("algbw", "busbw"):
        if row.get(key) is not None:
            row[key] /= k
    row["sample_times"] = [x * k for x in t]
json.dump(r, open(sys.argv[3], "w"))
PY
	done
	chmod 0644 "$TEST_TMP"/base-*.json
	echo "$type = baseline $TEST_TMP/base-slow.json max-regression 25" >"$TEST_TMP/floors"
	conf NP_FAIL_EXIT=1 $nogdr
	expect_code 0 "--check-conf takes a baseline line" "$P" --conf "$C" --check-conf
	expect_success "against a baseline a million times slower: exit 0" prolog
	expect_grep "all-reduce on $ranks ranks \($tre\): [0-9.]+ GB/s busbw, baseline $TEST_TMP/base-slow.json within 25%" \
		"$TEST_ERR" "  the all-reduce against the baseline of its type"
	expect_grep ": ok$" "$TEST_ERR" "  ok"
	echo "$type = baseline $TEST_TMP/base-fast.json max-regression 25" >"$TEST_TMP/floors"
	expect_code 1 "against a baseline a million times faster: exit 1" prolog
	expect_grep "problem: all-reduce \($tre\): regression: allreduce at [0-9]+ [KMG]iB: B/A speed [0-9.e-]+ .* slower than A by more than 25%" \
		"$TEST_ERR" "  names the figure and the margin"
	echo "$type = baseline $TEST_TMP/base-wide.json max-regression 25" >"$TEST_TMP/floors"
	expect_success "against a baseline whose times spread 1e-4x to 1e4x around 0.75x: exit 0" prolog
	expect_grep "all-reduce \($tre\): inconclusive, not drained: .*slower than --baseline|inconclusive, not drained: inconclusive" \
		"$TEST_ERR" "  inconclusive, not drained"
	! grep -q -e 'problem:' -e ': ok$' "$TEST_ERR"
	ok $? "  no problem, no ok"
	# the baseline file is checked as the floors file is: writable by others
	chmod 0666 "$TEST_TMP/base-wide.json"
	expect_code 64 "a baseline others may write: --check-conf exit 64" "$P" --conf "$C" --check-conf
	expect_grep "configuration error: the baseline in NP_FLOORS '.*base-wide.json' is writable by others" "$TEST_ERR" "  says so"
	chmod 0644 "$TEST_TMP/base-wide.json"
	echo '{"schema": "nccl-probe/topo"}' >"$TEST_TMP/not-a-sweep.json"
	chmod 0644 "$TEST_TMP/not-a-sweep.json"
	echo "$type = baseline $TEST_TMP/not-a-sweep.json max-regression 25" >"$TEST_TMP/floors"
	expect_code 64 "a baseline that is not a sweep report: --check-conf exit 64" "$P" --conf "$C" --check-conf
	expect_grep "configuration error: the baseline '.*not-a-sweep.json' in NP_FLOORS cannot be read as a sweep report: " \
		"$TEST_ERR" "  says so, with the reader's reason"
	echo "$type = baseline relative.json max-regression 25" >"$TEST_TMP/floors"
	expect_code 64 "a baseline path that is not absolute: exit 64" "$P" --conf "$C" --check-conf
	expect_grep "NODE TYPE = baseline /ABSOLUTE/FILE.json max-regression PCT" "$TEST_ERR" "  says what to write"
else
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do
		ok 0 "a baseline instead of a floor # SKIP one GPU: busbw of one rank is 0 by definition"
	done
fi
conf NP_BIN=/nonexistent/nccl-probe NP_FAIL_EXIT=1
expect_code 64 "nccl-probe missing, by hand: exit 64" prolog
expect_grep "configuration error: NP_BIN='/nonexistent/nccl-probe' .* is not an executable file" "$TEST_ERR" "  says so"
expect_success "the same under slurmd: exit 0, no node blamed" env SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=7 \
	NCCL_PROBE_PROLOG_CONF="$C" "$P"
expect_grep "NP_BIN=.* is not an executable file.*; nothing checked: configuration errors fail open" "$TEST_ERR" \
	"  nothing checked, said in one line"
# launches that produce no report of nccl-probe: could not run, passed
echo "$type = 100000" >"$TEST_TMP/floors"
conf NP_FAIL_EXIT=1 $nogdr 'NP_MPIRUN_ARGS="--no-such-option"'
expect_success "a launcher option mpirun refuses (NP_MPIRUN_ARGS), a floor no node reaches: exit 0" prolog
expect_grep "not checked, could not run: the all-reduce: 'mpirun' exited 1 without nccl-probe's report: 'mpirun: Error: unknown option" \
	"$TEST_ERR" "  logged as not checked, saying what failed"
! grep -q -e 'problem:' -e 'below' "$TEST_ERR"
ok $? "  no problem, no floor named"
! grep -q ': ok$' "$TEST_ERR" && grep -q ': not checked: 1 check(s) could not run (above); no problem in the others' "$TEST_ERR"
ok $? "  the run ends 'not checked', never 'ok'"
# not checked is counted: NP_METRICS, this node's runs by result
mkdir -m 0755 "$TEST_TMP/prom"
M=$TEST_TMP/prom/nccl-probe-prolog.prom
conf NP_FAIL_EXIT=1 $nogdr 'NP_MPIRUN_ARGS="--no-such-option"' "NP_METRICS=$M"
rc=0
for i in 1 2; do SLURMD_NODENAME=n1 NCCL_PROBE_PROLOG_CONF=$C "$P" >"$TEST_OUT" 2>"$TEST_ERR" || rc=1; done
ok $rc "the same twice with NP_METRICS: exit 0"
grep -q '^nccl_probe_prolog_runs_total{node="n1",result="not_checked"} 2$' "$M" &&
	grep -q '^nccl_probe_prolog_runs_total{node="n1",result="ok"} 0$' "$M" &&
	grep -q '^nccl_probe_prolog_last_result{node="n1",result="not_checked"} 1$' "$M"
ok $? "  counted: nccl_probe_prolog_runs_total{result=\"not_checked\"} 2, the last result not_checked"
echo "$type = 0.0001" >"$TEST_TMP/floors"
conf $nogdr "NP_METRICS=$M"
expect_success "then a healthy run" env SLURMD_NODENAME=n1 NCCL_PROBE_PROLOG_CONF="$C" "$P"
grep -q '^nccl_probe_prolog_runs_total{node="n1",result="ok"} 1$' "$M" &&
	grep -q '^nccl_probe_prolog_runs_total{node="n1",result="not_checked"} 2$' "$M" &&
	grep -q '^nccl_probe_prolog_last_result{node="n1",result="ok"} 1$' "$M" &&
	grep -q '^nccl_probe_prolog_last_result{node="n1",result="not_checked"} 0$' "$M"
ok $? "  ok counted beside the 2 not checked, the last result ok"
# a node name with an invalid UTF-8 byte, a quote and a backslash: escaped,
# the file stays UTF-8 (node_exporter refuses a file that is not)
rm -f "$M"
expect_success "a node name with bytes 0xff, '\"' and '\\'" \
	env SLURMD_NODENAME="$(printf 'n\377"\\x')" NCCL_PROBE_PROLOG_CONF="$C" "$P"
iconv -f UTF-8 -t UTF-8 "$M" >/dev/null 2>&1 &&
	grep -q '^nccl_probe_prolog_runs_total{node="n\\\\xff\\"\\\\x",result="ok"} 1$' "$M"
ok $? "  the file is UTF-8, the name escaped ($(grep -m1 runs_total "$M"))"
PY=
for p in python3 /usr/bin/python3; do
	command -v "$p" >/dev/null 2>&1 && "$p" -c 'import prometheus_client.parser' 2>/dev/null && { PY=$p; break; }
done
if [ -n "$PY" ]; then
	# shellcheck disable=SC2016 # python
	expect_success "  prometheus_client parses it" "$PY" -c 'import sys
from prometheus_client.parser import text_string_to_metric_families as p
f = {x.name: x for x in p(open(sys.argv[1], encoding="utf-8").read())}
s = [x for x in f["nccl_probe_prolog_runs"].samples if x.labels["result"] == "ok"]
assert s[0].labels["node"] == "n\\xff\"\\x" and s[0].value == 1, s' "$M"
else
	ok 0 "  prometheus_client parses it # SKIP prometheus_client not installed"
fi
echo "$type = 100000" >"$TEST_TMP/floors"
conf NP_FAIL_EXIT=1 NP_GDR=no NP_HOST_RANKS=64 'NP_MPIRUN_ARGS="--bind-to none"'
if [ "${ngpu:-0}" -eq 0 ]; then
	expect_success "more ranks than slots: exit 0" env -u OMPI_MCA_rmaps_base_oversubscribe \
		NCCL_PROBE_PROLOG_CONF="$C" "$P"
	expect_grep "could not run: the all-reduce: 'mpirun' exited [0-9]+ without nccl-probe's report: .*not enough slots" \
		"$TEST_ERR" "  logged as could not run: not enough slots"
	! grep -q 'problem:' "$TEST_ERR"
	ok $? "  no problem"
else
	for i in 1 2 3; do ok 0 "more ranks than slots # SKIP GPUs here: the ranks are the GPUs"; done
fi
conf NP_FAIL_EXIT=1 NP_CANNOT_RUN=problem $nogdr 'NP_MPIRUN_ARGS="--no-such-option"'
expect_code 1 "the same with NP_CANNOT_RUN=problem: exit 1 (fails closed)" prolog
expect_grep "problem: could not run: the all-reduce" "$TEST_ERR" "  a problem"

# a stand-in nvidia-smi: hangs, or fails as a driver mismatch does
mkdir -p "$TEST_TMP/hang" "$TEST_TMP/fail"
# (each one's pid, which exec keeps, in hang.pids: other tests on this
# host may run a 'sleep 313' of their own)
printf '#!/bin/sh
echo $$ >>"%s/hang.pids"
exec sleep 313
' "$TEST_TMP" >"$TEST_TMP/hang/nvidia-smi"
printf '#!/bin/sh
echo "Failed to initialize NVML: Driver/library version mismatch"
exit 18
' >"$TEST_TMP/fail/nvidia-smi"
chmod +x "$TEST_TMP/hang/nvidia-smi" "$TEST_TMP/fail/nvidia-smi"
: >"$TEST_TMP/hang.pids"
echo "host memory x2 = 0.0001" >"$TEST_TMP/floors"
conf NP_FAIL_EXIT=1 NP_TIMEOUT=3 "NP_PATH=$TEST_TMP/fail:/usr/local/bin:/usr/bin:/bin"
expect_code 1 "prolog, nvidia-smi fails: the node fails (exit 1)" prolog
expect_grep "problem: nvidia-smi failed \(exit 18\): 'Failed to initialize NVML: Driver/library version mismatch'" \
	"$TEST_ERR" "  names nvidia-smi's error"
! grep -q -e 'host memory' -e 'mismatch x' "$TEST_ERR"
ok $? "  no host-memory all-reduce, and the error is no node type"
conf NP_FAIL_EXIT=1 NP_TIMEOUT=3 "NP_PATH=$TEST_TMP/hang:/usr/local/bin:/usr/bin:/bin"
expect_code 1 "prolog, nvidia-smi hangs: the node fails (exit 1)" prolog
expect_grep "problem: nvidia-smi hung: no answer within 3 s" "$TEST_ERR" "  says so"
! grep -q 'host memory' "$TEST_ERR"
ok $? "  no host-memory all-reduce"
conf NP_TIMEOUT=60 "NP_PATH=$TEST_TMP/hang:/usr/local/bin:/usr/bin:/bin"
n0=$(wc -l <"$TEST_TMP/hang.pids")
NCCL_PROBE_PROLOG_CONF=$C "$P" >"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
# the signal once the stand-in hangs (at most 30 s)
i=0
while [ "$(wc -l <"$TEST_TMP/hang.pids")" -le "$n0" ] && [ "$i" -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
start=$(date +%s)
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] && [ $(($(date +%s) - start)) -lt 10 ]
ok $? "SIGTERM to the prolog during a hang: exit 0 at once (exit $rc)"
expect_grep "stopped by SIGTERM during nvidia-smi; nothing drained" "$TEST_ERR" "  logged"
# hangs() whether a stand-in of this test still hangs (a zombie has no
# command line); gone within 1 s
hangs() {
	while read -r p; do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q '^sleep 313' && return 0
	done <"$TEST_TMP/hang.pids"
	return 1
}
i=0
while hangs && [ "$i" -lt 10 ]; do
	sleep 0.1
	i=$((i + 1))
done
! hangs
ok $? "  the hanging nvidia-smi is stopped"
# SIGTERM during the all-reduce: a launcher that writes in its TMPDIR
# after the signal (as mpirun's shutdown does) leaves nothing behind
mkdir -p "$TEST_TMP/slowmpi" "$TEST_TMP/tmpd"
printf '#!/bin/sh
: >"%s/mpirun.started"
trap '"'"'sleep 1; mkdir "$TMPDIR/late.$$"; exit 1'"'"' TERM
while :; do sleep 1; done
' "$TEST_TMP" >"$TEST_TMP/slowmpi/mpirun"
chmod +x "$TEST_TMP/slowmpi/mpirun"
echo "$type = 0.0001" >"$TEST_TMP/floors"
conf $nogdr "NP_MPIRUN=$TEST_TMP/slowmpi/mpirun"
TMPDIR=$TEST_TMP/tmpd NCCL_PROBE_PROLOG_CONF=$C "$P" >"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
i=0
while [ ! -e "$TEST_TMP/mpirun.started" ] && [ "$i" -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -TERM "$pid"
wait "$pid"
rc=$?
# the launcher writes 1 s after the signal: look once it has ended, or
# after 2 s where it still runs
i=0
while pgrep -f "$TEST_TMP/slowmpi/mpirun" >/dev/null 2>&1 && [ "$i" -lt 20 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$rc" -eq 0 ] && [ -z "$(ls -A "$TEST_TMP/tmpd")" ]
ok $? "SIGTERM during the all-reduce: exit 0 ($rc), no temporary directory left ($(ls -A "$TEST_TMP/tmpd" | tr '\n' ' '))"
expect_grep "stopped by SIGTERM during the all-reduce; nothing drained" "$TEST_ERR" "  logged"
# the all-reduce runs at NP_NICE (-10 by default): a launcher that says
# its niceness
printf '#!/bin/sh\nnice >"%s/niceness"\nexit 1\n' "$TEST_TMP" >"$TEST_TMP/slowmpi/nicempi"
chmod +x "$TEST_TMP/slowmpi/nicempi"
conf $nogdr "NP_MPIRUN=$TEST_TMP/slowmpi/nicempi"
NCCL_PROBE_PROLOG_CONF=$C "$P" >"$TEST_OUT" 2>"$TEST_ERR"
if [ "$(id -u)" -eq 0 ]; then
	[ "$(cat "$TEST_TMP/niceness" 2>/dev/null)" = "$(($(nice) - 10))" ]
	ok $? "the launch runs at NP_NICE=-10 below the prolog's own niceness ($(cat "$TEST_TMP/niceness" 2>/dev/null))"
else
	ok 0 "the launch runs at NP_NICE=-10 # SKIP not root: only root may lower a niceness"
fi
# host ranks keep their CPU while they wait, where there are no more of
# them than CPUs: a busy host's other tasks would otherwise take a time
# slice at every wait (Open MPI's mpi_yield_when_idle), and the figure
# would be theirs; a launcher that says what it was given
printf '#!/bin/sh\necho "${OMPI_MCA_mpi_yield_when_idle-unset}" >"%s/yield"\nexit 1\n' "$TEST_TMP" \
	>"$TEST_TMP/slowmpi/yieldmpi"
chmod +x "$TEST_TMP/slowmpi/yieldmpi"
ncpu=$(getconf _NPROCESSORS_ONLN)
yielded() { cat "$TEST_TMP/yield" 2>/dev/null; rm -f "$TEST_TMP/yield"; }
if [ "${ngpu:-0}" -eq 0 ] && [ "$ncpu" -ge 2 ]; then
	conf "NP_MPIRUN=$TEST_TMP/slowmpi/yieldmpi"
	OMPI_MCA_mpi_yield_when_idle=1 NCCL_PROBE_PROLOG_CONF=$C "$P" >"$TEST_OUT" 2>"$TEST_ERR"
	y=$(yielded)
	[ "$y" = 0 ]
	ok $? "2 host ranks on $ncpu CPUs: the launch has OMPI_MCA_mpi_yield_when_idle=0 (got $y)"
	conf "NP_MPIRUN=$TEST_TMP/slowmpi/yieldmpi" "NP_HOST_RANKS=$((ncpu + 1))"
	OMPI_MCA_mpi_yield_when_idle=1 NCCL_PROBE_PROLOG_CONF=$C "$P" >"$TEST_OUT" 2>"$TEST_ERR"
	y=$(yielded)
	[ "$y" = 1 ]
	ok $? "  $((ncpu + 1)) host ranks: they yield as the environment says (got $y)"
else
	ok 0 "2 host ranks: the launch has OMPI_MCA_mpi_yield_when_idle=0 # SKIP GPUs here, or one CPU"
	ok 0 "  more host ranks than CPUs: they yield as the environment says # SKIP GPUs here, or one CPU"
fi
# one deadline for the whole run: a hanging nvidia-smi with NP_TIMEOUT=60
# is cut at NP_DEADLINE=15, not checked, and the run ends within it
conf NP_TIMEOUT=60 NP_DEADLINE=15 "NP_PATH=$TEST_TMP/hang:/usr/local/bin:/usr/bin:/bin"
start=$(date +%s)
expect_success "NP_DEADLINE=15, nvidia-smi hangs, NP_TIMEOUT=60: exit 0" prolog
took=$(($(date +%s) - start))
[ "$took" -le 16 ]
ok $? "  the whole run ends within NP_DEADLINE (${took} s)"
expect_grep "not checked, could not run: nvidia-smi: ended by NP_DEADLINE=15 s before its own NP_TIMEOUT" "$TEST_ERR" \
	"  nvidia-smi cut short is not checked, never a hang"
expect_grep "not checked, could not run: topo: ended by NP_DEADLINE=15 s" "$TEST_ERR" "  nor is topo, with no time left"
! grep -q -e 'problem:' -e ': ok$' "$TEST_ERR"
ok $? "  no problem, no ok"
conf NP_DEADLINE=9
expect_code 64 "NP_DEADLINE=9: exit 64" "$P" --conf "$C" --check-conf
expect_grep "configuration error: NP_DEADLINE in '$C' must be at least 10 s" "$TEST_ERR" "  says so"

conf NP_DRAIN=yes
expect_code 64 "a bad setting: exit 64" prolog
expect_grep "configuration error: NP_DRAIN='yes' .* is not a whole number" "$TEST_ERR" "  names it"
expect_code 64 "an unknown argument: exit 64" "$P" --frobnicate

# a pass dated in the future is ignored, and said
echo "$type = 0.0001" >"$TEST_TMP/floors"
mkdir -m 0700 "$TEST_TMP/state"
conf $nogdr NP_PASSED_MIN=30 "NP_STATE_DIR=$TEST_TMP/state"
echo "1 $type" >"$TEST_TMP/state/passed"
touch -d '1 year' "$TEST_TMP/state/passed"
expect_success "a pass stamp dated a year ahead: exit 0" prolog
expect_grep "note: the pass in '$TEST_TMP/state/passed' is dated [0-9]+ s in the future; ignored, measured" "$TEST_ERR" \
	"  the stamp is ignored, and said"
expect_grep "all-reduce on $ranks ranks \($tre\): " "$TEST_ERR" "  the all-reduce ran"
touch -d '1 minute ago' "$TEST_TMP/state/passed"
expect_success "a pass a minute ago: exit 0" prolog
expect_grep "no all-reduce: it passed 1 min ago" "$TEST_ERR" "  not measured again"
N=$srcdir/contrib/nhc/nccl-probe.nhc
# nhc ARGS: the check as NHC runs it; prints 'die: MESSAGE' / 'log: MESSAGE'
nhc() {
	# shellcheck disable=SC2016 # expanded by bash -c
	bash -c '. "$1"; shift; die() { shift; echo "die: $*"; return 1; }; log() { echo "log: $*"; }; check_nccl_probe "$@"' _ "$N" "$@"
}
expect_success "NHC check, a healthy node: passes" nhc -b "$NP_BIN"
[ ! -s "$TEST_OUT" ]
ok $? "  and says nothing"
expect_code 1 "NHC check, a GPU with ECC errors: fails" fault nhc -b "$NP_BIN"
expect_grep '^die: check_nccl_probe: health-gpu-ecc-uncorrected \[GPU0\]: GPU0: 3 uncorrectable ECC errors' "$TEST_OUT" \
	"  the message names GPU0 and the figure"
expect_code 1 "NHC check with -g, a GPU with ECC errors: fails" fault nhc -b "$NP_BIN" -g
expect_grep '^die: check_nccl_probe: health-gpu-ecc-uncorrected \[GPU0\]' "$TEST_OUT" \
	"  the ECC errors, not only the GDR answer"
if [ "$ranks" -gt 1 ]; then
	# -t 90: the check's default 25 s holds the all-reduce on a quiet node;
	# a sanitized build on a host busy with the other tests took longer, and
	# a run cut short is rightly logged as not checked, which is not this check
	expect_code 1 "NHC check, an all-reduce below -a 100000: fails" again_inconclusive nhc -b "$NP_BIN" -a 100000 -t 90
	expect_grep "^die: check_nccl_probe: all-reduce on $ranks ranks: allreduce busbw .*below --min-busbw 100000.* [0-9.]+ GB/s" \
		"$TEST_OUT" "  the message names the figure"
else
	ok 0 "NHC check, an all-reduce below -a 100000 # SKIP one GPU: busbw of one rank is 0 by definition"
	ok 0 "  the message names the figure # SKIP one GPU"
fi
expect_success "NHC check, nccl-probe missing: passes, logged" nhc -b /nonexistent/nccl-probe
expect_grep '^log: check_nccl_probe: nccl-probe not found' "$TEST_OUT" "  logged"
expect_success "NHC check, more ranks than slots: passes" env -u OMPI_MCA_rmaps_base_oversubscribe \
	bash -c '. "$1"; shift; die() { shift; echo "die: $*"; return 1; }; log() { echo "log: $*"; }; check_nccl_probe "$@"' \
	_ "$N" -b "$NP_BIN" -a 100000 -n 64
expect_grep "^log: check_nccl_probe: the all-reduce could not run: 'mpirun' exited [0-9]+ without nccl-probe's report: .*not enough slots" \
	"$TEST_OUT" "  logged as could not run, saying what failed"
if [ "${ngpu:-0}" -eq 0 ] && [ "$ncpu" -ge 2 ]; then
	OMPI_MCA_mpi_yield_when_idle=1 nhc -b "$NP_BIN" -a 0.0001 -m "$TEST_TMP/slowmpi/yieldmpi" >/dev/null 2>&1
	y=$(yielded)
	[ "$y" = 0 ]
	ok $? "NHC check, 2 host ranks on $ncpu CPUs: the launch has OMPI_MCA_mpi_yield_when_idle=0 (got $y)"
	OMPI_MCA_mpi_yield_when_idle=1 nhc -b "$NP_BIN" -a 0.0001 -n $((ncpu + 1)) -m "$TEST_TMP/slowmpi/yieldmpi" \
		>/dev/null 2>&1
	y=$(yielded)
	[ "$y" = 1 ]
	ok $? "  $((ncpu + 1)) host ranks: they yield as the environment says (got $y)"
else
	ok 0 "NHC check, 2 host ranks: OMPI_MCA_mpi_yield_when_idle=0 # SKIP GPUs here, or one CPU"
	ok 0 "  more host ranks than CPUs: as the environment says # SKIP GPUs here, or one CPU"
fi
PATH=$TEST_TMP/fail:$PATH expect_code 1 "NHC check, nvidia-smi fails: fails" nhc -b "$NP_BIN"
expect_grep "^die: check_nccl_probe: nvidia-smi failed \(exit 18\):  Failed to initialize NVML" "$TEST_OUT" "  names its error"
start=$(date +%s)
PATH=$TEST_TMP/hang:$PATH expect_code 1 "NHC check, nvidia-smi hangs: fails" nhc -b "$NP_BIN" -a 1
expect_grep "^die: check_nccl_probe: nvidia-smi hung: no answer within 10 s" "$TEST_OUT" "  with its own message"
[ $(($(date +%s) - start)) -lt 25 ]
ok $? "  before NHC's own 30 s TIMEOUT"
expect_code 1 "NHC check, an unknown option: fails with a message" nhc -x
expect_grep "^die: check_nccl_probe: unknown option .-x.;" "$TEST_OUT" "  names it"
# the die of NHC itself: the message is evaluated by a shell
mkdir -p "$TEST_TMP/quote"
# shellcheck disable=SC2016 # the planted text is nvidia-smi's, not ours
printf '#!/bin/sh\necho "Unable to determine the device'"'"'s handle: '"'"'\$(touch %s/pwned)'"'"' \`touch %s/pwned2\`"\nexit 18\n' \
	"$TEST_TMP" "$TEST_TMP" >"$TEST_TMP/quote/nvidia-smi"
chmod +x "$TEST_TMP/quote/nvidia-smi"
nhc_eval() {
	# shellcheck disable=SC2016 # expanded by bash -c
	bash -c '. "$1"; shift; OFFLINE_NODE=offline; HOSTNAME=n1
		offline() { echo "offlined: $1: $2"; }
		die() { shift; eval $OFFLINE_NODE "'"'"'$HOSTNAME'"'"'" "'"'"'$*'"'"'"; return 1; }
		log() { echo "log: $*"; }; check_nccl_probe "$@"' _ "$N" "$@"
}
PATH=$TEST_TMP/quote:$PATH expect_code 1 "NHC check under an eval-ing die, nvidia-smi's message with quotes: fails" \
	nhc_eval -b "$NP_BIN"
expect_grep "^offlined: n1: check_nccl_probe: nvidia-smi failed \(exit 18\): .*device s handle" "$TEST_OUT" \
	"  the node is offlined with the message, its quotes made spaces"
[ ! -e "$TEST_TMP/pwned" ] && [ ! -e "$TEST_TMP/pwned2" ]
ok $? "  nothing of the message ran"

# -M FILE.prom: this node's runs by result, counted on from the file's own
# counts, so that a node where the check never runs is seen
mkdir -m 0755 "$TEST_TMP/prom"
M=$TEST_TMP/prom/nhc.prom
# mcount RESULT: the count of runs with that result in $M
mcount() { sed -n "s/^nccl_probe_nhc_runs_total{node=\"[^\"]*\",result=\"$1\"} //p" "$M"; }
expect_success "NHC check -M, nccl-probe missing: passes" nhc -b /nonexistent/nccl-probe -M "$M"
[ "$(mcount not_checked)" = 1 ] && [ "$(mcount ok)" = 0 ]
ok $? "  counted as not_checked (1), not ok ($(mcount ok))"
grep -q '^nccl_probe_nhc_last_result{node="[^"]*",result="not_checked"} 1$' "$M"
ok $? "  its last result is not_checked"
expect_success "NHC check -M, again: passes" nhc -b /nonexistent/nccl-probe -M "$M"
[ "$(mcount not_checked)" = 2 ]
ok $? "  counted on from the file: not_checked 2 ($(mcount not_checked))"
expect_success "NHC check -M, a healthy node: passes" nhc -b "$NP_BIN" -M "$M"
[ "$(mcount ok)" = 1 ] && [ "$(mcount not_checked)" = 2 ]
ok $? "  ok 1, not_checked still 2"
expect_code 1 "NHC check -M, a GPU with ECC errors: fails" fault nhc -b "$NP_BIN" -M "$M"
[ "$(mcount problem)" = 1 ]
ok $? "  problem 1"
if command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
	/usr/bin/python3 - "$M" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from prometheus_client.parser import text_string_to_metric_families as prom
n = sum(1 for f in prom(open(sys.argv[1]).read()) for s in f.samples)
sys.exit(0 if n == 9 else 1)
PY
	ok $? "  the file parses as Prometheus text: 9 samples"
else
	ok 1 "  the file parses as Prometheus text (python3-prometheus-client missing: contrib/np-setup check installs it)"
fi
chmod 0777 "$TEST_TMP/prom"
expect_success "NHC check -M in a directory others may write: passes" nhc -b "$NP_BIN" -M "$M"
expect_grep "^log: check_nccl_probe: -M '.*nhc.prom': '.*prom' may be written by others than its owner; chmod go-w it; not counted" \
	"$TEST_OUT" "  not counted, said"
[ "$(mcount ok)" = 1 ]
ok $? "  the file is left as it was"
chmod 0755 "$TEST_TMP/prom"
expect_success "NHC check -M relative.prom: passes" nhc -b "$NP_BIN" -M relative.prom
expect_grep "^log: check_nccl_probe: -M 'relative.prom': not an absolute path ending in .prom" "$TEST_OUT" "  said, not counted"
done_testing
