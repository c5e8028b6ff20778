#!/bin/sh
# SPDX-License-Identifier: MIT
# The prolog and epilog as slurmd runs them (tests/slurm-local.sh):
# - a job that is not --exclusive gets counts and topo only, and the log
#   says why; an --exclusive job gets the all-reduce;
# - the same script as Epilog measures after the job and remembers the
#   pass in NP_STATE_DIR (a file of root's, replaced by rename, never
#   written through a link planted there); the next prolog within
#   NP_PASSED_MIN minutes does not measure again;
# - a stand-in nvidia-smi listing 7 of 8 GPUs drains the node with the
#   counts as the reason;
# - a configuration error fails open: the job runs, the node stays idle.
# Skips without slurm-wlm unless NP_REQUIRE_SLURM=1.
. "$(dirname "$0")/lib.sh"
. "$srcdir/tests/slurm-local.sh"

slurm_require

node=$(slurm_node)
S=$T/state
base() {
	cat <<EOF
NP_BIN=$NP_BIN
NP_DRAIN=1
NP_GDR=no
NP_FLOORS=$T/floors
NP_TIMEOUT=30
NP_MPIRUN_ARGS="--oversubscribe --bind-to none"
NP_PASSED_MIN=30
NP_STATE_DIR=$S
EOF
}
base >"$T/prolog.conf"
chmod 644 "$T/prolog.conf"
echo 'host memory x2 = 0.0001' >"$T/floors"
# Prolog and Epilog: the same script; logs apart
for kind in prolog epilog; do
	cat >"$T/$kind" <<EOF
#!/bin/sh
ASAN_OPTIONS='$ASAN_OPTIONS'; export ASAN_OPTIONS
NCCL_PROBE_PROLOG_CONF=$T/prolog.conf exec "$srcdir/contrib/slurm/prolog-nccl-probe" >>"$T/$kind.log" 2>&1
EOF
	chmod +x "$T/$kind"
done
expect_success "Slurm starts: munged, slurmctld, slurmd on $node" slurm_start "$T/slurm" \
	"Prolog=$T/prolog" "Epilog=$T/epilog" "PrologFlags=Alloc" || {
	echo "1..$_np_n"
	exit 1
}
# (polled 5 times a second: each step below waits on one)
wait_state() {
	i=0
	while [ "$i" -lt 450 ]; do
		case $(slurm_state) in $1) return 0 ;; esac
		sleep 0.2
		i=$((i + 1))
	done
	diag "state '$(slurm_state)', wanted '$1'"
	return 1
}
reason() { timeout 10 sinfo -h -N -n "$node" -o %E | head -n 1; }
# job ARGS: a job of 'true', until it has ended or is held (at most 120
# s). A prolog that fails drains the node and requeues the job held: it
# never ends, and sbatch --wait waited for its timeout; and sbatch --wait
# polls at 2 s, then 3, 4 ... 10 s
job() {
	id=$(timeout 20 sbatch --parsable -N1 -n1 -o /dev/null "$@" --wrap true 2>/dev/null)
	i=0
	while [ -n "$id" ] && [ "$i" -lt 600 ]; do
		case $(timeout 10 squeue -h -j "$id" -t all -o '%T %r' 2>/dev/null) in
		PENDING*[Hh]eld*) return 0 ;;
		PENDING* | CONFIGURING* | RUNNING* | COMPLETING* | SUSPENDED* | REQUEUE* | RESIZING* | "") ;;
		*) return 0 ;;
		esac
		sleep 0.2
		i=$((i + 1))
	done
}
show() { sed 's/^/#   /' "$1"; }
# the epilog runs after sbatch --wait returns: wait for its last line
epilog_done() {
	i=0
	while [ "$i" -lt 450 ] && ! grep -q -E ": (ok|drained: .*|nothing checked: .*)$" "$T/epilog.log"; do
		sleep 0.2
		i=$((i + 1))
	done
}

# ---- a shared job: no all-reduce; the epilog measures after it ------------------
job
j=$(timeout 10 squeue -h -t all -o %i 2>/dev/null | tail -n 1)
grep -q "no all-reduce: job [0-9]* is not exclusive (OverSubscribe=OK): another job may start beside it; counts and topo only" \
	"$T/prolog.log"
ok $? "a job that is not --exclusive: the prolog runs no all-reduce, and says why" || show "$T/prolog.log"
! grep -q "all-reduce on" "$T/prolog.log"
ok $? "  nothing measured"
epilog_done
grep -q "^nccl-probe prolog: $node: all-reduce on 2 ranks (host memory x2): [0-9.]* GB/s busbw, floor 0.0001" "$T/epilog.log"
ok $? "the epilog, after the job: the all-reduce" || show "$T/epilog.log"
[ -f "$S/passed" ] && [ ! -L "$S/passed" ] && [ "$(stat -c '%a %u' "$S")" = "700 0" ]
ok $? "  the pass remembered in $S (0700, root's): $(stat -c '%a %u' "$S" 2>/dev/null)"

# ---- an exclusive job within NP_PASSED_MIN: not measured again ------------------
: >"$T/prolog.log"
: >"$T/epilog.log"
job --exclusive
epilog_done
grep -q "no all-reduce: it passed 0 min ago ('$S/passed'; NP_PASSED_MIN=30)" "$T/prolog.log"
ok $? "an --exclusive job after a pass: the prolog does not measure again" || show "$T/prolog.log"
grep -q "^nccl-probe prolog: $node: ok" "$T/prolog.log"
ok $? "  ok"

# ---- an exclusive job without a recent pass: measured ---------------------------
rm -f "$S/passed"
# a link planted in the state directory is replaced, never written through
ln -s "$T/victim" "$S/passed"
echo untouched >"$T/victim"
: >"$T/prolog.log"
touch -d '2 hours ago' "$S/passed" 2>/dev/null
: >"$T/epilog.log"
job --exclusive
epilog_done
grep -q "^nccl-probe prolog: $node: all-reduce on 2 ranks (host memory x2): [0-9.]* GB/s busbw" "$T/prolog.log"
ok $? "an --exclusive job, no pass remembered: the prolog measures" || show "$T/prolog.log"
[ "$(cat "$T/victim")" = untouched ] && [ -f "$S/passed" ] && [ ! -L "$S/passed" ]
ok $? "  the link planted at $S/passed is replaced, its target untouched"
[ -z "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'nccl-probe-prolog.*' 2>/dev/null)" ]
ok $? "  no temporary directory left"

# ---- 7 of 8 GPUs: drained with the counts --------------------------------------
mkdir -p "$T/bin"
printf '#!/bin/sh\ni=0\nwhile [ $i -lt 7 ]; do echo "NVIDIA H100 80GB HBM3"; i=$((i + 1)); done\n' >"$T/bin/nvidia-smi"
chmod +x "$T/bin/nvidia-smi"
{
	base
	echo "NP_PATH=$T/bin:/usr/local/bin:/usr/bin:/bin"
	echo "NP_FAIL_EXIT=1"
} >"$T/prolog.conf"
echo 'expect NVIDIA H100 80GB HBM3 = gpus 8' >>"$T/floors"
: >"$T/prolog.log"
: >"$T/epilog.log"
job --exclusive
wait_state 'drain*'
ok $? "a stand-in nvidia-smi with 7 of 8 GPUs: the node is drained ($(slurm_state))" || show "$T/prolog.log"
r=$(reason)
[ "$r" = "nccl-probe: 7 of 8 GPUs (NVIDIA H100 80GB HBM3)" ]
ok $? "  the reason names the counts ($r)"
timeout 10 scontrol update NodeName="$node" State=RESUME
wait_state idle
ok $? "  resumed"

# ---- a configuration error fails open -------------------------------------------
{
	base
	echo "NP_DRAIN=yes"
} >"$T/prolog.conf"
: >"$T/prolog.log"
job --exclusive
grep -q "configuration error: NP_DRAIN='yes' in '$T/prolog.conf' is not a whole number" "$T/prolog.log" &&
	grep -q "nothing checked: configuration errors fail open" "$T/prolog.log"
ok $? "NP_DRAIN=yes: one line, nothing checked" || show "$T/prolog.log"
sleep 2
[ "$(slurm_state)" = idle ]
ok $? "  the job ran, the node is not drained ($(slurm_state))"
done_testing
