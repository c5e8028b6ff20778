# SPDX-License-Identifier: MIT
# A real one-node Slurm on localhost for the tests, from Debian's
# slurm-wlm and munge: munged, slurmctld and slurmd started directly (no
# systemd), each with its own socket, ports, state and logs under one
# directory, and stopped by slurm_stop (call it from a trap). Source after
# lib.sh. Every wait is bounded: a daemon that does not come up is a
# failure with its log, never a hang.
#
#   slurm_missing            prints why this cannot run here (empty: it can)
#   slurm_start DIR [CONF...]  start with extra slurm.conf lines; exports SLURM_CONF
#   slurm_stop               stop the daemons started (by their pids only)
#   slurm_node               the node's name
#   slurm_state              the node's state as sinfo shows it (idle, drained, ...)

slurm_missing() {
	for p in munged slurmctld slurmd sinfo srun sbatch scontrol; do
		command -v "$p" >/dev/null 2>&1 || { echo "$p not installed (apt-get install slurm-wlm munge)"; return; }
	done
	[ "$(id -u)" -eq 0 ] || { echo "slurmd needs root to start jobs"; return; }
	command -v timeout >/dev/null 2>&1 || echo "timeout (coreutils) not installed"
}

_slurm_pids=""
_slurm_dir=""

slurm_node() { hostname -s 2>/dev/null || hostname; }

# _slurm_log FILE: show the last lines of a daemon's log as TAP diagnostics
_slurm_log() { [ -f "$1" ] && tail -n 15 "$1" | sed "s|^|#   $(basename "$1"): |"; return 0; }

_slurm_fail() {
	diag "$1"
	for f in "$_slurm_dir"/munged.log "$_slurm_dir"/slurmctld.log "$_slurm_dir"/slurmd.log; do
		_slurm_log "$f"
	done
	return 1
}

slurm_start() {
	d=$1
	shift
	_slurm_dir=$d
	mkdir -p "$d/state" "$d/spool" "$d/munge"
	chmod 700 "$d/munge"
	# ports: from this process's id, away from the default 6817/6818
	port=$((20000 + ($$ % 20000)))
	node=$(slurm_node)
	cpus=$(nproc 2>/dev/null || echo 1)

	dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 400 "$d/munge/munge.key"
	timeout 20 munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" \
		--pid-file="$d/munge/munged.pid" --log-file="$d/munged.log" --seed-file="$d/munge/seed" ||
		{ _slurm_fail "munged did not start"; return 1; }
	_slurm_pids="$(cat "$d/munge/munged.pid")"

	cat >"$d/slurm.conf" <<EOF
ClusterName=nptest
SlurmctldHost=$node
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
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
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=512 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=30 State=UP
EOF
	touch "$d/plugstack.conf"
	echo "PlugStackConfig=$d/plugstack.conf" >>"$d/slurm.conf"
	SLURM_CONF=$d/slurm.conf
	export SLURM_CONF

	slurmctld -D -i >"$d/slurmctld.out" 2>&1 &
	_slurm_pids="$_slurm_pids $!"
	slurmd -D >"$d/slurmd.out" 2>&1 &
	_slurm_pids="$_slurm_pids $!"
	# the node idle within 60 s, or a failure with the logs
	i=0
	while [ "$i" -lt 60 ]; do
		case $(slurm_state) in
		idle*) return 0 ;;
		esac
		sleep 1
		i=$((i + 1))
	done
	_slurm_fail "the node did not become idle within 60 s (sinfo: '$(slurm_state)')"
	_slurm_log "$d/slurmctld.out"
	_slurm_log "$d/slurmd.out"
	return 1
}

slurm_state() { timeout 10 sinfo -h -N -n "$(slurm_node)" -o %T 2>/dev/null | head -n 1; }

slurm_stop() {
	[ -n "$_slurm_pids" ] || return 0
	# jobs first (their steps are not the daemons' children), then the daemons
	timeout 10 scancel --user="$(id -un)" 2>/dev/null
	i=0
	while [ "$i" -lt 10 ] && [ -n "$(timeout 5 squeue -h 2>/dev/null)" ]; do
		sleep 1
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
}
