#!/bin/sh
# SPDX-License-Identifier: MIT
# Help by command: each command's --help lists its own options in lines of
# at most 80 columns, names no option the command refuses, and the formats
# it writes alone; 'nccl-probe help
# [COMMAND]' shows the command's page (man) or its --help; 'nccl-probe
# version'; options before the command name are refused with the words in
# the right order.
. "$(dirname "$0")/lib.sh"

# the commands, from their table (src/cmds.h)
cmds=$(echo $(sed -n 's/^#define NP_COMMANDS(X) //p' "$srcdir/src/cmds.h" | grep -o 'X([a-z]*)' | sed 's/^X(//; s/)$//'))
for c in $cmds; do
	expect_success "$c --help" np "$c" --help
	awk 'length($0) > 80 { bad = 1; print "# too wide: " $0 } END { exit bad }' "$TEST_OUT"
	ok $? "  $c --help fits 80 columns"
	cp "$TEST_OUT" "$TEST_TMP/$c.help"
done
grep -q -- '--format table|json|csv|nccl-tests' "$TEST_TMP/sweep.help"
ok $? "sweep offers its four formats"
for c in topo isolate compare tune; do
	grep -Eq -- '--format table\|json +output format' "$TEST_TMP/$c.help" && ! grep -q 'nccl-tests\|csv' "$TEST_TMP/$c.help"
	ok $? "  $c offers table and json alone"
done
! grep -q -- '--try ' "$TEST_TMP/topo.help" && grep -q -- '--try ' "$TEST_TMP/tune.help"
ok $? "a command's options alone: --try in tune's help, not in topo's"

# every option a command's help names (below its usage lines, which for the
# sweep list the other commands) is one that command takes: given with a
# value and --help, it is taken (exit 0), or its value or the missing one
# refused (exit 64), never refused as another command's or unknown. Each
# run starts MPI alone (0.4 s, mostly waiting for its daemon): the runs
# of a command go 4 at a time, each into its own files, then are judged
# one by one
mkdir "$TEST_TMP/opt"
for c in $cmds; do
	sed '1,/^$/d' "$TEST_TMP/$c.help" | grep -o -- '--[a-z][a-z-]*' | sort -u >"$TEST_TMP/$c.opts"
	# shellcheck disable=SC2016 # expanded by the inner shell
	xargs -P 4 -I OPT sh -c '"$1" "$2" "$3=1" --help >"$4/$2.$3.out" 2>"$4/$2.$3.err"; echo $? >"$4/$2.$3.rc"' \
		sh "$NP_BIN" "$c" OPT "$TEST_TMP/opt" <"$TEST_TMP/$c.opts"
done
for c in $cmds; do
	bad= n=0
	for o in $(cat "$TEST_TMP/$c.opts"); do
		n=$((n + 1))
		f=$TEST_TMP/opt/$c.$o
		rc=$(cat "$f.rc" 2>/dev/null || echo none)
		if { [ "$rc" != 0 ] && [ "$rc" != 64 ]; } || grep -q "is not for\|unknown option" "$f.err"; then
			bad="$bad $o"
			sed "s/^/# $c $o (exit $rc): /" "$f.err" | head -n 2
		fi
	done
	[ "$n" -ge 4 ] && [ -z "$bad" ]
	ok $? "  $c --help names only options $c takes ($n named${bad:+; refused:$bad})"
done
# the check can fail: isolate refuses the sweep's --iters, and its help
# names neither it nor the sweep's baseline
expect_code 64 "isolate --iters is refused" np isolate --iters=1 --help
expect_grep "option '--iters' is not for 'isolate'" "$TEST_ERR" "  as the sweep's option"
! grep -q -- '--iters' "$TEST_TMP/isolate.help" && ! grep -q 'the sweep' "$TEST_TMP/isolate.help" &&
	grep -A1 -- '--baseline FILE' "$TEST_TMP/isolate.help" | grep -q "known-good 'isolate"
ok $? "  isolate's help: no --iters, and its --baseline is a known-good isolate run"

# defaults that differ by command (--budget: 0.5 for the sweep, 1 for
# isolate and tune; tune's --coll: allreduce) are each command's own in
# its --help, and its man page says the same
help_default() { # FILE OPTION: the "(default X)" of OPTION's help text
	awk -v o="--$2 " 'index($0, o) { on = 1; t = $0; next }
		on && /^      +[^ -]/ { t = t " " $0; next } on { exit } END { print t }' "$1" |
		sed -n 's/.*(default \([^)]*\)).*/\1/p' | tr -d ' '
}
man_default() { # PAGE OPTION: the first "(default X)" after .BI \-\-OPTION
	MANOPT="\\-\\-$2 " awk 'substr($0, 1, 3) == ".BI" && index($0, ENVIRON["MANOPT"]) { on = 1; next }
		on && /^[.]TP/ { exit } on { print }' "$1" |
		tr '\n' ' ' | sed -n 's/.*(default \([^)]*\)).*/\1/p'
}
for c in sweep:nccl-probe:0.5 isolate:nccl-probe-isolate:1 tune:nccl-probe-tune:1; do
	h=$(help_default "$TEST_TMP/${c%%:*}.help" budget)
	m=$(man_default "$srcdir/man/$(echo "$c" | cut -d: -f2).1" budget)
	[ "$h" = "${c##*:}" ] && [ "$m" = "$h" ]
	ok $? "${c%%:*}: --budget's default in --help ($h) is its own and its man page's ($m)"
done
h=$(help_default "$TEST_TMP/tune.help" coll)
[ "$h" = allreduce ] && [ "$(man_default "$srcdir/man/nccl-probe-tune.1" coll)" = allreduce ] &&
	[ "$(help_default "$TEST_TMP/sweep.help" coll)" = allreduce,alltoall ]
ok $? "tune's --coll defaults to allreduce in its --help ($h) and man page; the sweep's to allreduce,alltoall"

# help COMMAND: the page where man has it, else the command's --help
if command -v man >/dev/null 2>&1; then
	mkdir -p "$TEST_TMP/man/man1"
	cp "$srcdir/man/nccl-probe.1" "$TEST_TMP/man/man1/"
	MANPATH=$TEST_TMP/man MANPAGER=cat PAGER=cat expect_success "help sweep with the page installed" np help sweep
	grep -q 'COMING FROM NCCL' "$TEST_OUT"
	ok $? "  shows nccl-probe(1)"
else
	ok 0 "# SKIP man is not installed"
	ok 0 "# SKIP man is not installed"
fi
MANPATH=$TEST_TMP/none expect_success "help tune without its page" np help tune
cmp -s "$TEST_OUT" "$TEST_TMP/tune.help"
ok $? "  shows tune's --help"
expect_success "help" np help
grep -q '^usage: mpirun -np N nccl-probe \[sweep\]' "$TEST_OUT" && grep -q 'nccl-probe help \[COMMAND\] | version' "$TEST_OUT"
ok $? "  the commands, and help and version"
miss=
for c in $cmds; do
	[ "$c" = sweep ] || grep -q "^       .*nccl-probe $c " "$TEST_OUT" || miss="$miss $c"
done
[ -z "$miss" ]
ok $? "  a usage line for every command of the table${miss:+ (missing:$miss)}"
expect_code 64 "help of an unknown command" np help frobnicate
expect_grep "unknown command 'frobnicate'" "$TEST_ERR" "  names it"
# a command name with ESC and a newline: one line, its controls as \xNN
expect_code 64 "an unknown command with ESC and a newline" np "$(printf 'x\033[2J\nerror: forged')"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && grep -qF "unknown command 'x\x1b[2J\x0aerror: forged'" "$TEST_ERR" &&
	! grep -q "$(printf '\033')" "$TEST_ERR"
ok $? "  one line, escaped"
expect_code 64 "options before a command, one with a newline" np --quiet sweep "$(printf -- '--x\ny')"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && grep -qF -- "--x\x0ay" "$TEST_ERR"
ok $? "  one line, escaped"
expect_success "version" np version
expect_grep '^nccl-probe [0-9]+\.[0-9]+' "$TEST_OUT" "  prints the version"
expect_grep '^nccl backend: (yes|no)$' "$TEST_OUT" "  and what this build runs"

# options before the command
expect_code 64 "options before the command" np --ranks-per-node 1 tune --try NCCL_ALGO=Ring
expect_grep "the command goes first, then its options: 'nccl-probe tune --ranks-per-node 1 --try NCCL_ALGO=Ring'" "$TEST_ERR" \
	"  the message gives the right order"
n=$(wc -l <"$TEST_ERR")
[ "$n" -eq 1 ]
ok $? "  in one line ($n)"
expect_code 64 "a value that names a command is a value" np --coll tune --iters 1
expect_grep "unknown collective 'tune'" "$TEST_ERR" "  --coll tune is the collective 'tune', refused as one"
# an option the backend does not use is said, not ignored silently
have_mpirun && {
	expect_success "--gpu-map on the host backend" np_host 2 --gpu-map 0,1 --sweep 1K --iters 1 --samples 1
	expect_grep '^# note: --gpu-map 0,1 is not used: the mpi backend runs on host memory' "$TEST_OUT" "  a note says it is not used"
}
done_testing
