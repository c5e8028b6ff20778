# SPDX-License-Identifier: MIT
# A real one-node Slurm on localhost for the tests, from Debian's
# slurm-wlm and munge: munged, slurmctld and slurmd started directly (no
# systemd), each with its own socket, ports, state and logs under one
# directory, and stopped by slurm_stop (call it from a trap). Source after
# lib.sh. Every wait is bounded: a daemon that does not come up is a
# failure with its log, never a hang.
#
#   slurm_require            a test's start: skip without Slurm (fail where
#                            NP_REQUIRE_SLURM=1), sets T, stops the cluster at exit
#   slurm_missing            prints why this cannot run here (empty: it can)
#   slurm_start DIR [CONF...]  start with extra slurm.conf lines; exports SLURM_CONF
#   slurm_start_nodes DIR "NAME..." [CONF...]
#                            the same with one slurmd per NAME (slurmd -N), all on
#                            this host: Slurm's NodeName differs from the host name,
#                            as where nodes are named apart from their hosts
#   slurm_stop               stop the daemons started (by their pids only)
#   slurm_stop_slurmd NAME   stop node NAME's slurmd alone (a node whose slurmd is down)
#   slurm_node               the (first) node's name
#   slurm_state [NAME]       a node's state as sinfo shows it (idle, drained, ...)
#   slurm_batch SECS ARGS... sbatch --wait, polled every 0.2 s (see below)

# slurm_require: the start of every real-Slurm test. Without Slurm it
# skips, or fails with one line saying why where NP_REQUIRE_SLURM=1 says
# it must run (CI as root); mpirun is required; T is the test's directory,
# and at exit, or on a signal, the private cluster is stopped and T removed.
slurm_require() {
	_np_why=$(slurm_missing)
	if [ -n "$_np_why" ]; then
		[ "${NP_REQUIRE_SLURM:-0}" = 1 ] || skip_all "$_np_why"
		echo "1..1"
		echo "not ok 1 - Slurm is required here (NP_REQUIRE_SLURM=1): $_np_why"
		exit 1
	fi
	have_mpirun || skip_all "mpirun not found"
	# (T is the sourcing test's)
	# shellcheck disable=SC2034
	T=$TEST_TMP
	trap 'slurm_stop; rm -rf "$TEST_TMP"' EXIT
	trap 'exit 1' INT TERM HUP # (the EXIT trap runs on a signal too)
}

slurm_missing() {
	for p in munged slurmctld slurmd sinfo srun sbatch scontrol; do
		command -v "$p" >/dev/null 2>&1 || { echo "$p not installed (apt-get install slurm-wlm munge)"; return; }
	done
	[ "$(id -u)" -eq 0 ] || { echo "slurmd needs root to start jobs"; return; }
	command -v timeout >/dev/null 2>&1 || echo "timeout (coreutils) not installed"
}

_slurm_pids=""
_slurm_dir=""
_slurm_names=""

slurm_node() {
	if [ -n "$_slurm_names" ]; then
		echo "${_slurm_names%% *}"
	else
		hostname -s 2>/dev/null || hostname
	fi
}

slurm_start_nodes() {
	_d=$1
	_slurm_names=$2
	shift 2
	slurm_start "$_d" "$@"
}

slurm_stop_slurmd() {
	_p=$(cat "$_slurm_dir/slurmd.$1.pid" 2>/dev/null)
	[ -n "$_p" ] || return 1
	kill -TERM "$_p" 2>/dev/null
	i=0
	while [ "$i" -lt 20 ] && kill -0 "$_p" 2>/dev/null; do
		sleep 0.5
		i=$((i + 1))
	done
	kill -KILL "$_p" 2>/dev/null
	_slurm_down="${_slurm_down:-} $1"
	return 0
}

# _slurm_log FILE: show the last lines of a daemon's log as TAP diagnostics
_slurm_log() { [ -f "$1" ] && tail -n 15 "$1" | sed "s|^|#   $(basename "$1"): |"; return 0; }

_slurm_fail() {
	diag "$1"
	for f in "$_slurm_dir"/munged.log "$_slurm_dir"/slurmctld.log "$_slurm_dir"/slurmd*.log; do
		_slurm_log "$f"
	done
	return 1
}

# _slurm_take_ports: sets port to the first of 16 ports for this test's
# Slurm, below the kernel's ephemeral ports (where other programs' client
# ports come from, mpirun's among them) and away from the default
# 6817/6818, that no socket uses and no other test holds: a block is held
# by a directory /tmp/np-slurm-ports.PORT (mkdir: one process wins) that
# holds its holder's pid, and slurm_stop removes it; a block whose holder
# is gone (a test killed) is taken again. The search starts from this
# process's id, so that tests started side by side start apart.
_slurm_take_ports() {
	_lo=20000
	_hi=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
	case $_hi in '' | *[!0-9]*) _hi=32768 ;; esac
	[ "$_hi" -gt $((_lo + 16)) ] || _hi=60000
	_n=$(((_hi - _lo) / 16))
	_b=$(($$ % _n))
	_i=0
	while [ "$_i" -lt "$_n" ]; do
		port=$((_lo + 16 * _b))
		_l=/tmp/np-slurm-ports.$port
		if mkdir "$_l" 2>/dev/null; then
			echo "$$" >"$_l/pid"
			if ! command -v ss >/dev/null 2>&1 ||
				[ -z "$(ss -Htan "( sport >= :$port and sport <= :$((port + 15)) )" 2>/dev/null)" ]; then
				_slurm_ports=$_l
				return 0
			fi
			rm -rf "$_l"
		else
			_o=$(cat "$_l/pid" 2>/dev/null)
			# a holder that is gone: its block is free again (the next
			# round of the loop takes it)
			if [ -n "$_o" ] && ! kill -0 "$_o" 2>/dev/null && mv "$_l" "$_l.gone.$$" 2>/dev/null; then
				rm -rf "$_l.gone.$$"
				continue
			fi
		fi
		_b=$(((_b + 1) % _n))
		_i=$((_i + 1))
	done
	return 1
}
_slurm_ports=""

slurm_start() {
	d=$1
	shift
	_slurm_dir=$d
	mkdir -p "$d/state" "$d/munge"
	chmod 700 "$d/munge"
	# ports: a block of 16 a test (slurmctld, slurmd, one a named node)
	# that no other test holds (a slurmd of one test that reached
	# another's slurmctld had its credential refused by that one's munge,
	# and its nodes never came up)
	_slurm_take_ports || { _slurm_fail "no free block of 16 ports from 20000 for Slurm"; return 1; }
	node=$(slurm_node)
	ctld=$(hostname -s 2>/dev/null || hostname)
	cpus=$(nproc 2>/dev/null || echo 1)

	dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 400 "$d/munge/munge.key"
	timeout 20 munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" \
		--pid-file="$d/munge/munged.pid" --log-file="$d/munged.log" --seed-file="$d/munge/seed" ||
		{ _slurm_fail "munged did not start"; return 1; }
	_slurm_pids="$(cat "$d/munge/munged.pid")"

	cat >"$d/slurm.conf" <<EOF
ClusterName=nptest
SlurmctldHost=$ctld
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool-%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd-%n.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=30
$(printf '%s\n' "$@")
$(_slurm_node_lines "$node" "$port" "$cpus")
EOF
	touch "$d/plugstack.conf"
	echo "PlugStackConfig=$d/plugstack.conf" >>"$d/slurm.conf"
	SLURM_CONF=$d/slurm.conf
	export SLURM_CONF

	slurmctld -D -i >"$d/slurmctld.out" 2>&1 &
	_slurm_pids="$_slurm_pids $!"
	if [ -z "$_slurm_names" ]; then
		mkdir -p "$d/spool-$node"
		slurmd -D >"$d/slurmd.out" 2>&1 &
		_slurm_pids="$_slurm_pids $!"
	else
		for n in $_slurm_names; do
			mkdir -p "$d/spool-$n"
			slurmd -D -N "$n" >"$d/slurmd.$n.out" 2>&1 &
			_slurm_pids="$_slurm_pids $!"
			echo "$!" >"$d/slurmd.$n.pid"
		done
	fi
	# every node idle within 60 s, or a failure with the logs
	want=$(printf '%s\n' "${_slurm_names:-$node}" | wc -w)
	end=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt "$end" ]; do
		[ "$(timeout 10 sinfo -h -N -o %T 2>/dev/null | grep -c '^idle')" -eq "$want" ] && return 0
		sleep 1
	done
	_slurm_fail "the nodes did not become idle within 60 s (sinfo: $(timeout 10 sinfo -h -N -o '%N=%T' 2>/dev/null | tr '\n' ' '))"
	_slurm_log "$d/slurmctld.out"
	for f in "$d"/slurmd*.out; do
		_slurm_log "$f"
	done
	return 1
}

# slurm.conf's node lines: this host under its own name; or each of
# _slurm_names a slurmd of its own on this host, with its own port and a
# NodeHostname of its own (Slurm built without multiple-slurmd wants one
# host per node), every one reached at 127.0.0.1
_slurm_node_lines() {
	if [ -z "$_slurm_names" ]; then
		echo "NodeName=$1 NodeAddr=127.0.0.1 CPUs=$3 RealMemory=512 State=UNKNOWN"
		echo "PartitionName=test Nodes=$1 Default=YES MaxTime=30 State=UP"
		return
	fi
	p=$(($2 + 2))
	all=""
	for n in $_slurm_names; do
		echo "NodeName=$n NodeHostname=$n-host NodeAddr=127.0.0.1 Port=$p CPUs=$3 RealMemory=512 State=UNKNOWN"
		p=$((p + 1))
		all=${all:+$all,}$n
	done
	echo "PartitionName=test Nodes=$all Default=YES MaxTime=30 State=UP"
}

slurm_state() { timeout 10 sinfo -h -N -n "${1:-$(slurm_node)}" -o %T 2>/dev/null | head -n 1; }

# slurm_batch SECS ARGS...: sbatch ARGS, then wait for the job's end, as
# sbatch --wait does, but polled every 0.2 s: sbatch --wait polls at 2 s,
# then 3, 4 ... 10 s, so that each short job cost seconds more than its
# run. The status is sbatch --wait's: the job's exit code, 1 where a
# signal ended it; 124 where it had not ended within SECS (it is
# cancelled), 1 where sbatch failed or the job is held (a prolog that
# failed requeues its job held: it would never end). A job ends when its
# state is a final one, though its epilog may still run (COMPLETING), as
# with --wait.
slurm_batch() {
	_sb_end=$(($(date +%s) + $1))
	shift
	_sb_id=$(timeout 20 sbatch --parsable "$@") || return 1
	_sb_id=${_sb_id%%;*}
	while [ "$(date +%s)" -lt "$_sb_end" ]; do
		_sb_job=$(timeout 10 scontrol -o show job "$_sb_id" 2>/dev/null)
		case $(echo "$_sb_job" | sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p') in
		PENDING)
			case $(echo "$_sb_job" | sed -n 's/.* Reason=\([^ ]*\).*/\1/p') in
			*[Hh]eld*) return 1 ;;
			esac
			sleep 0.2
			;;
		"" | CONFIGURING | RUNNING | SUSPENDED | REQUEUED | REQUEUE_HOLD | REQUEUE_FED | \
			RESIZING | SIGNALING | STAGE_OUT) sleep 0.2 ;;
		*)
			_sb_ec=$(echo "$_sb_job" | sed -n 's/.* ExitCode=\([0-9]*\):0[ ]*.*/\1/p')
			return "${_sb_ec:-1}" # none where a signal ended it (ExitCode=N:SIG)
			;;
		esac
	done
	timeout 10 scancel "$_sb_id" 2>/dev/null
	return 124
}

# _slurm_jobs_live: prints "live" while a job may have steps running: one
# not completing, or one completing while every slurmd runs. Where a
# slurmd was stopped, its jobs stay completing on every node of theirs
# until Slurm marks it down (SlurmdTimeout): waiting for them was 10 s
# lost, and their steps on the other nodes were ended by scancel.
_slurm_jobs_live() {
	if [ -n "${_slurm_down:-}" ]; then
		timeout 5 squeue -h -o %T 2>/dev/null | grep -qv '^COMPLETING$' && echo live
	else
		timeout 5 squeue -h 2>/dev/null | head -n 1
	fi
}

slurm_stop() {
	[ -n "$_slurm_pids" ] || { _slurm_free_ports; return 0; }
	# jobs first (their steps are not the daemons' children), then the daemons
	timeout 10 scancel --user="$(id -un)" 2>/dev/null
	i=0
	while [ "$i" -lt 50 ] && [ -n "$(_slurm_jobs_live)" ]; do
		sleep 0.2
		i=$((i + 1))
	done
	for p in $_slurm_pids; do
		kill -TERM "$p" 2>/dev/null
	done
	# each gone within 10 s, else killed
	i=0
	while [ "$i" -lt 20 ]; do
		alive=""
		for p in $_slurm_pids; do
			kill -0 "$p" 2>/dev/null && alive="$alive $p"
		done
		[ -z "$alive" ] && break
		sleep 0.5
		i=$((i + 1))
	done
	for p in $alive; do
		kill -KILL "$p" 2>/dev/null
	done
	_slurm_pids=""
	_slurm_free_ports
}
_slurm_free_ports() {
	[ -n "$_slurm_ports" ] && rm -rf "$_slurm_ports"
	_slurm_ports=""
}
