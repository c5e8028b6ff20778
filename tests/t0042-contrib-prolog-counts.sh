#!/bin/sh
# SPDX-License-Identifier: MIT
# The prolog run directly (t0043 runs it through Slurm): the GPU and NIC
# counts expected of a node type ('expect' lines of the floors file) are
# checked first. A stand-in nvidia-smi that lists 7 GPUs of a type with
# 8 is a problem naming both counts, and no all-reduce runs; a fake
# sysfs with 2 data NICs against 3 expected, and a stand-in nccl-probe
# whose topo reads a DGX-2's hwloc file (6 NVLinks per GPU) against 8
# expected, likewise; the right counts pass. The drain reason leads with
# the figures and stays within 200 characters. Configuration errors (a
# bad value, a line that is not KEY=value (the file is data, never
# sourced: a variable or a command in it is named, never run), a relative
# --conf, a linked file, a file or a directory above it others may write,
# a bad expect line) are one line: exit 64 by hand, exit 0 (fails open)
# under slurmd. NP_DRAIN=1 with NP_FAIL_EXIT=0 says the job still runs.
# Without SLURMD_NODENAME the node is the one whose NodeHostName is this
# host (a stand-in 'scontrol show node'); one not found is said, not drained.
. "$(dirname "$0")/lib.sh"
. "$srcdir/tests/fakesys.sh"
FIX=$NP_FIXTURES/topology/hwloc
P=$srcdir/contrib/slurm/prolog-nccl-probe
T=$TEST_TMP
C=$T/prolog.conf
conf() {
	{
		echo "NP_BIN=$NP_BIN"
		echo "NP_FLOORS=$T/floors"
		echo "NP_TIMEOUT=30 NP_GDR=no NP_SHARED=measure NP_DRAIN=1 NP_FAIL_EXIT=1"
		echo "NP_PATH=$T/bin:/usr/local/bin:/usr/bin:/bin"
		printf '%s\n' "$@"
	} >"$C"
	chmod 644 "$C"
}
prolog() { NCCL_PROBE_PROLOG_CONF=$C "$P"; }
# stand-ins: nvidia-smi listing $T/gpus, scontrol recording its arguments
mkdir -p "$T/bin" "$T/nobin"
printf '#!/bin/sh\ncat "%s/gpus"\n' "$T" >"$T/bin/nvidia-smi"
# ('scontrol -o show node' lists $T/nodes: the node's name from its host name)
printf '#!/bin/sh\n[ "$1" = -o ] && exec cat "%s/nodes"\nfor a in "$@"; do printf "%%s\\n" "$a"; done >"%s/scontrol.args"\n' \
	"$T" "$T" >"$T/bin/scontrol"
host=$(hostname -s)
echo "NodeName=$host Arch=x86_64 NodeHostName=$host Version=22.05.8" >"$T/nodes"
chmod +x "$T/bin/nvidia-smi" "$T/bin/scontrol"
cp "$T/bin/scontrol" "$T/nobin/scontrol"
gpus() {
	i=0
	: >"$T/gpus"
	while [ "$i" -lt "$1" ]; do
		echo "$2" >>"$T/gpus"
		i=$((i + 1))
	done
}
reason() { sed -n 's/^Reason=//p' "$T/scontrol.args" 2>/dev/null; }

# ---- GPUs -------------------------------------------------------------------------
gpus 7 "NVIDIA H100 80GB HBM3"
printf '# H100 nodes\nexpect NVIDIA H100 80GB HBM3 = gpus 8\nNVIDIA H100 80GB HBM3 x8 = 350\n' >"$T/floors"
conf
expect_code 1 "7 of the 8 GPUs of its type: a problem (exit 1)" prolog
expect_grep "problem: GPUs: nvidia-smi lists 7, 8 expected of 'NVIDIA H100 80GB HBM3'" "$TEST_ERR" "  names both counts"
expect_grep "no all-reduce: the node does not have the GPUs or NICs of its type" "$TEST_ERR" "  and runs no all-reduce"
[ "$(reason)" = "nccl-probe: 7 of 8 GPUs (NVIDIA H100 80GB HBM3)" ]
ok $? "  drained with the counts as the reason ($(reason))"
gpus 8 "NVIDIA H100 80GB HBM3"
rm -f "$T/scontrol.args"
conf NP_ALLREDUCE=0
expect_success "8 of 8: passes" prolog
! grep -q -e 'problem:' -e 'GPUs:' "$TEST_ERR" && [ ! -e "$T/scontrol.args" ]
ok $? "  no problem, nothing drained"

# ---- data NICs (fake sysfs: mlx5_0 and mlx5_1, both data) ------------------------------
root=$T/root
node "$root"
echo 'expect host memory = nics 3' >"$T/floors"
conf NP_ALLREDUCE=0 "NP_PATH=$T/nobin:/usr/local/bin:/usr/bin:/bin"
expect_code 1 "a node without GPUs, 2 data NICs of 3 expected: a problem" \
	env NCCL_PROBE_FSROOT="$root" NCCL_PROBE_PROLOG_CONF="$C" "$P"
expect_grep "problem: NICs: topo lists 2 RDMA NICs of role data, 3 expected of 'host memory'" "$TEST_ERR" \
	"  names both counts"
[ "$(reason)" = "nccl-probe: 2 of 3 data NICs (host memory)" ]
ok $? "  the reason ($(reason))"
echo 'expect host memory = nics 2' >"$T/floors"
expect_success "2 of 2 data NICs: passes" env NCCL_PROBE_FSROOT="$root" NCCL_PROBE_PROLOG_CONF="$C" "$P"
! grep -q 'problem:' "$TEST_ERR"
ok $? "  no problem"

# ---- NVLinks per GPU: topo of a DGX-2 (16 V100, 6 NVLinks each) -----------------------
if [ -f "$FIX/hwloc-nvidiaDGX2.xml" ]; then
	printf '#!/bin/sh\n[ "$1" = topo ] || exec "%s" "$@"\nshift\nexec "%s" topo --input "%s" "$@"\n' \
		"$NP_BIN" "$NP_BIN" "$FIX/hwloc-nvidiaDGX2.xml" >"$T/probe"
	chmod +x "$T/probe"
	gpus 16 "Tesla V100-SXM3-32GB-H"
	echo 'expect Tesla V100-SXM3-32GB-H = gpus 16, nvlinks 6' >"$T/floors"
	rm -f "$T/scontrol.args"
	conf NP_ALLREDUCE=0 "NP_BIN=$T/probe"
	expect_success "16 GPUs with their 6 NVLinks each: passes" prolog
	! grep -q 'problem:' "$TEST_ERR"
	ok $? "  no problem" || _np_show
	echo 'expect Tesla V100-SXM3-32GB-H = gpus 17, nvlinks 8' >"$T/floors"
	expect_code 1 "6 NVLinks per GPU of 8 expected, 16 GPUs of 17: a problem" prolog
	expect_grep "problem: NVLinks: active per GPU GPU0 6, GPU1 6, GPU2 6, GPU3 6 \(\+12 more GPUs\), 8 expected" \
		"$TEST_ERR" "  names the GPUs and the counts"
	r=$(reason)
	[ "${#r}" -le 200 ] && case $r in "nccl-probe: 16 of 17 GPUs (Tesla V100-SXM3-32GB-H); NVLinks GPU0 6, "*) true ;; *) false ;; esac
	ok $? "  the reason: both, the figures first, ${#r} <= 200 characters ($r)"
else
	for i in 1 2 3 4 5; do ok 0 "NVLinks # SKIP no fixture $FIX/hwloc-nvidiaDGX2.xml"; done
fi

# ---- the node's Slurm name ---------------------------------------------------------------
# run by hand or from cron (no SLURMD_NODENAME) on a host whose Slurm name
# is not its host name: the node whose NodeHostName is this host
gpus 7 "NVIDIA H100 80GB HBM3"
printf 'expect NVIDIA H100 80GB HBM3 = gpus 8\n' >"$T/floors"
printf 'NodeName=gpu-a17 Arch=x86_64 NodeHostName=%s Version=22.05.8\nNodeName=gpu-a18 NodeHostName=other\n' "$host" \
	>"$T/nodes"
rm -f "$T/scontrol.args"
conf
expect_code 1 "NodeName gpu-a17 on host $host, 7 of 8 GPUs, no SLURMD_NODENAME: a problem" prolog
[ "$(sed -n 's/^NodeName=//p' "$T/scontrol.args" 2>/dev/null)" = gpu-a17 ]
ok $? "  drained as gpu-a17, its Slurm name ($(head -n 2 "$T/scontrol.args" 2>/dev/null | tr '\n' ' '))"
rm -f "$T/scontrol.args"
expect_code 1 "  SLURMD_NODENAME=gpu-b01 (as slurmd sets it) wins" env SLURMD_NODENAME=gpu-b01 NCCL_PROBE_PROLOG_CONF="$C" "$P"
[ "$(sed -n 's/^NodeName=//p' "$T/scontrol.args" 2>/dev/null)" = gpu-b01 ]
ok $? "  drained as gpu-b01"
printf 'NodeName=gpu-a18 NodeHostName=other\n' >"$T/nodes"
rm -f "$T/scontrol.args"
expect_code 1 "no node with this host's NodeHostName: still a problem (exit 1)" prolog
expect_grep "not checked, could not run: this host's Slurm node name is unknown: no node of 'scontrol show node' has NodeHostName '$host'.*; run it with SLURMD_NODENAME=NAME" \
	"$TEST_ERR" "  says the name could not be found"
expect_grep "could not drain: this host's Slurm node name is unknown" "$TEST_ERR" "  and drains nothing by a guess"
[ ! -e "$T/scontrol.args" ]
ok $? "  no scontrol update"
printf 'NodeName=a NodeHostName=%s\nNodeName=b NodeHostName=%s\n' "$host" "$host" >"$T/nodes"
gpus 8 "NVIDIA H100 80GB HBM3"
conf NP_SHARED=topo
expect_success "two nodes with this host's NodeHostName, 8 of 8 GPUs: exit 0" prolog
expect_grep "Slurm node name is unknown: several nodes have NodeHostName '$host' \(a b\)" "$TEST_ERR" "  says so"
expect_grep "no all-reduce: the node's Slurm name is unknown" "$TEST_ERR" "  no all-reduce: whether a job shares the node is unknown"
! grep -q ': ok$' "$TEST_ERR"
ok $? "  never 'ok'"
echo "NodeName=$host Arch=x86_64 NodeHostName=$host Version=22.05.8" >"$T/nodes"

# ---- configuration errors -------------------------------------------------------------
conf NP_DRAIN=yes
expect_code 64 "NP_DRAIN=yes, by hand: exit 64" prolog
expect_grep "^nccl-probe prolog: .*: configuration error: NP_DRAIN='yes' in '$C' is not a whole number" "$TEST_ERR" \
	"  one line naming it"
expect_success "the same under slurmd: exit 0 (fails open)" env SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=7 \
	NCCL_PROBE_PROLOG_CONF="$C" "$P"
expect_grep "configuration error: NP_DRAIN='yes'" "$TEST_ERR" "  the line"
expect_grep "nothing checked: configuration errors fail open" "$TEST_ERR" "  says it fails open"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ]
ok $? "  in one line (one syslog line a node)"
conf NP_DRAIN=2
expect_code 64 "NP_DRAIN=2: exit 64" prolog
expect_grep "configuration error: NP_DRAIN='2' in .*; use 0 or 1" "$TEST_ERR" "  names it"
conf 'if then'
expect_code 64 "a syntax error in the file: exit 64, not a half-read file" prolog
expect_grep "configuration error: '$C' line 5: not KEY=value: if then$" "$TEST_ERR" "  one line naming it"
# the settings are data, never sourced: a variable's reference is named
# (an unset one made sh exit 2, which drains every node), a command never runs
# shellcheck disable=SC2016 # the file's text
conf 'NP_PATH=$NP_SITE_BIN:/usr/bin:/bin'
expect_code 64 "an unset variable in the file, --check-conf: exit 64" "$P" --conf "$C" --check-conf
expect_grep "configuration error: '$C' line 5: NP_PATH refers to a variable or a command" "$TEST_ERR" "  names it"
expect_success "the same under slurmd: exit 0 (fails open), never 2" env SLURM_SCRIPT_CONTEXT=prolog_slurmd \
	SLURM_JOB_ID=7 NCCL_PROBE_PROLOG_CONF="$C" "$P"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && grep -q "NP_PATH refers to a variable.*; nothing checked: configuration errors fail open" \
	"$TEST_ERR"
ok $? "  one line a node, saying it fails open"
# shellcheck disable=SC2016 # the file's text
conf "NP_DRAIN=0; touch $T/pwned" "NP_GDR=\$(touch $T/pwned2)" "NP_SIZE=\`touch $T/pwned3\`"
expect_code 64 "commands in the file: exit 64" prolog
[ ! -e "$T/pwned" ] && [ ! -e "$T/pwned2" ] && [ ! -e "$T/pwned3" ]
ok $? "  none ran"
conf 'NP_MPIRUN_ARGS="--bind-to none"  # a comment' "NP_SHARED='measure' NP_GDR=no" 'export NP_ALLREDUCE=0'
expect_success "quoted values, several on a line, export and comments: read" "$P" --conf "$C" --check-conf
conf NP_DRAINN=1
expect_code 64 "an unknown setting: exit 64" prolog
expect_grep "configuration error: '$C' line 5: unknown setting NP_DRAINN" "$TEST_ERR" "  names it"
# every value is checked: --check-conf says which and why, exit 64
bad() {
	conf "$1"
	expect_code 64 "--check-conf, $1: exit 64" "$P" --conf "$C" --check-conf
	expect_grep "configuration error: $2" "$TEST_ERR" "  says what is wrong"
}
bad NP_SIZE=banana "NP_SIZE='banana' in '$C' is not a size; give bytes or a number with K, M, G or T"
bad NP_MPIRUN=/no/such "NP_MPIRUN='/no/such' in '$C' is not an executable file"
bad NP_MPIRUN=no-such-launcher "NP_MPIRUN='no-such-launcher' in '$C' is not found in NP_PATH '$T/bin:"
bad NP_BIN=/no/such/nccl-probe "NP_BIN='/no/such/nccl-probe' in '$C' is not an executable file"
bad NP_FAIL_EXIT=300 "NP_FAIL_EXIT='300' in '$C' is not an exit status"
bad NP_TIMEOUT=99999999999999999999 "NP_TIMEOUT='99999999999999999999' in '$C' is too large"
bad NP_PATH=bin:/usr/bin "NP_PATH in '$C': 'bin' is not an absolute directory"
bad NP_NICE=-21 "NP_NICE='-21' in '$C' is not a niceness from -20 to 19"
bad "NP_MPIRUN_ARGS='--mca x \"y z\"'" "NP_MPIRUN_ARGS in '$C' holds a quote"
mkdir -m 0777 "$T/wbin"
bad "NP_PATH=$T/wbin:/usr/bin:/bin" "NP_PATH in '$C': '$T/wbin' may be written by others than root"
printf 'expect NVIDIA H100 80GB HBM3 = gpus 8\nNVIDIA H100 80GB HBM3 x8 = fast\n' >"$T/floors"
bad NP_ALLREDUCE=1 "NP_FLOORS '$T/floors' line 2: NVIDIA H100 80GB HBM3 x8 = fast: use 'NODE TYPE = GB/s'"
conf NP_SIZE=banana
expect_success "NP_SIZE=banana under slurmd: exit 0 (fails open)" env SLURM_SCRIPT_CONTEXT=prolog_slurmd \
	SLURM_JOB_ID=7 NCCL_PROBE_PROLOG_CONF="$C" "$P"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && grep -q "NP_SIZE='banana'.*; nothing checked: configuration errors fail open" "$TEST_ERR"
ok $? "  one line a node, saying it fails open"
! grep -q -e 'could not run' -e ': ok$' "$TEST_ERR"
ok $? "  never 'could not run' then 'ok'"
echo 'expect NVIDIA H100 80GB HBM3 = gpus 8, nics 8' >"$T/floors"
conf NP_SIZE=64MiB "NP_MPIRUN=$(command -v mpirun)"
expect_success "--check-conf, NP_SIZE=64MiB and mpirun by its path: valid" "$P" --conf "$C" --check-conf
# the file checked is the file read: a link, a directory others may write
# (a file swapped in after the check), another owner are refused
conf
ln -s "$C" "$T/link.conf"
expect_code 64 "a settings file that is a symbolic link: exit 64" "$P" --conf "$T/link.conf" --check-conf
expect_grep "configuration error: the settings file '$T/link.conf' is a symbolic link" "$TEST_ERR" "  says so"
mkdir -m 0777 "$T/open"
cp "$C" "$T/open/prolog.conf"
expect_code 64 "a settings file in a directory others may write: exit 64" "$P" --conf "$T/open/prolog.conf" --check-conf
expect_grep "configuration error: the settings file '$T/open/prolog.conf': the directory '$T/open' may be written by others" \
	"$TEST_ERR" "  names the directory"
mkdir -m 0755 "$T/open/sub"
cp "$C" "$T/open/sub/prolog.conf"
expect_code 64 "  and in a directory below one: exit 64" "$P" --conf "$T/open/sub/prolog.conf" --check-conf
expect_grep "the directory '$T/open' may be written by others" "$TEST_ERR" "  names the one above"
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	cp "$C" "$T/nobody.conf"
	chown nobody "$T/nobody.conf"
	expect_code 64 "a settings file of another user's: exit 64" "$P" --conf "$T/nobody.conf" --check-conf
	expect_grep "configuration error: the settings file '$T/nobody.conf' is writable by others than its owner, or not owned by root" \
		"$TEST_ERR" "  says so"
else
	ok 0 "a settings file of another user's # SKIP not root, or no user nobody"
	ok 0 "  says so # SKIP"
fi
echo 'host memory x2 = 1' >"$T/open/floors"
conf "NP_FLOORS=$T/open/floors"
expect_code 64 "a floors file in a directory others may write: exit 64" "$P" --conf "$C" --check-conf
expect_grep "configuration error: NP_FLOORS '$T/open/floors': the directory '$T/open' may be written" "$TEST_ERR" "  says so"
ln -s "$T/open/floors" "$T/floors.link"
conf "NP_FLOORS=$T/floors.link"
expect_code 64 "a floors file that is a symbolic link: exit 64" "$P" --conf "$C" --check-conf
expect_grep "configuration error: NP_FLOORS '$T/floors.link' is a symbolic link" "$TEST_ERR" "  says so"
expect_code 64 "a relative --conf: exit 64" "$P" --conf prolog.conf
expect_grep "configuration error: the settings file 'prolog.conf' is not an absolute path" "$TEST_ERR" "  says so"
conf
chmod 666 "$C"
expect_code 64 "a file others may write: exit 64" prolog
expect_grep "configuration error: the settings file '$C' is writable by others" "$TEST_ERR" "  says so"
chmod 644 "$C"
echo 'expect NVIDIA H100 80GB HBM3 = gpus eight' >"$T/floors"
expect_code 64 "a bad expect line: exit 64" prolog
expect_grep "configuration error: NP_FLOORS '$T/floors' line 1: " "$TEST_ERR" "  names the line"
echo 'expect NVIDIA H100 80GB HBM3 = gpus 8, nics 8' >"$T/floors"
conf NP_FAIL_EXIT=0
expect_success "--check-conf: a valid file, exit 0" "$P" --conf "$C" --check-conf
expect_grep "note: NP_DRAIN=1 with NP_FAIL_EXIT=0: a problem drains the node but the job still runs" "$TEST_OUT" \
	"  says what NP_DRAIN=1 NP_FAIL_EXIT=0 does"
gpus 7 "NVIDIA H100 80GB HBM3"
expect_success "a problem with NP_DRAIN=1 NP_FAIL_EXIT=0 in a prolog: exit 0" \
	env SLURM_JOB_ID=42 NCCL_PROBE_PROLOG_CONF="$C" "$P"
expect_grep "note: job 42 still runs on the drained node \(NP_FAIL_EXIT=0\); NP_FAIL_EXIT=1 makes Slurm requeue it" \
	"$TEST_ERR" "  says the job still runs, recommends 1"
done_testing
