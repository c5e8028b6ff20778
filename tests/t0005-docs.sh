#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages hold to the code: every option of the option table has an
# entry in the OPTIONS of each page of a command it belongs to, and no page
# lists an option its command does not take (nccl-probe-validate and
# nccl-probe-plot from their --help); every JSON field a command writes is
# in its page; every page renders without warnings in 80 columns and ends
# with EXAMPLES, then SEE ALSO.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"

mandir=$srcdir/man
page() { [ "$1" = sweep ] && echo "$mandir/nccl-probe.1" || echo "$mandir/nccl-probe-$1.1"; }

# the commands, from their table (src/cmds.h); each command's option
# table, one "command option" a line, from the rows of the table its
# declaration (np_cmd_NAME in src/*.c) names: a row of its own, or one of
# src/opts_rows.h by name
cmds=$(echo $(sed -n 's/^#define NP_COMMANDS(X) //p' "$srcdir/src/cmds.h" | grep -o 'X([a-z]*)' | sed 's/^X(//; s/)$//'))
[ "$(echo "$cmds" | wc -w)" -ge 5 ] && echo " $cmds " | grep -q " sweep "
ok $? "the commands read from src/cmds.h: $cmds"
python3 - "$srcdir/src" $cmds >"$TEST_TMP/table.txt" <<'PY'
import glob, re, sys
src = sys.argv[1]
shared = dict(re.findall(r'^#define (NP_ROW_[A-Z_]+)\s*\\?\s*OPT_[A-Z]+\("([a-z][a-z-]*)"',
                         open(src + "/opts_rows.h").read(), re.M))
files = [open(f).read() for f in sorted(glob.glob(src + "/*.c"))]
for cmd in sys.argv[2:]:
    decl = "const struct np_cmd np_cmd_%s = {" % cmd
    text = [t for t in files if decl in t]
    if len(text) != 1:
        sys.exit("np_cmd_%s is declared in %d files" % (cmd, len(text)))
    text = text[0]
    array = re.search(r'NP_CMD_OPTIONS\((\w+)\)', text[text.index(decl):]).group(1)
    table = text[text.index(" %s[] = {" % array):]
    table = table[:table.index("\n};")]
    for own, row in re.findall(r'^\s*(?:OPT_[A-Z]+\("([a-z][a-z-]*)"|(NP_ROW_[A-Z_]+))', table, re.M):
        print(cmd, own or shared[row])
PY
n=$(wc -l <"$TEST_TMP/table.txt")
[ "$n" -ge 100 ]
ok $? "the commands' option tables read from src/*.c ($n command-option pairs)"

# the options a page's OPTIONS section has entries for: the tag line after
# each .TP or .TQ
tags() {
	sed -e 's/\\-/-/g' "$1" | awk '/^\.SH /{ on = ($2 == "OPTIONS") } on && tag && !/^\.\\"/ { print; tag = 0 }
		on && /^\.T[PQ]/ { tag = 1 }' | grep -o -- '--[a-z][a-z-]*' | sed 's/^--//' | sort -u
}
for c in $cmds; do
	p=$(page "$c")
	[ -f "$p" ]
	ok $? "$c has its page ${p##*/}"
	tags "$p" >"$TEST_TMP/tags-$c.txt"
	sed -n "s/^$c //p" "$TEST_TMP/table.txt" | sort -u >"$TEST_TMP/opts-$c.txt"
	for o in $(cat "$TEST_TMP/opts-$c.txt"); do
		grep -qx -- "$o" "$TEST_TMP/tags-$c.txt"
		ok $? "  $c: --$o has an entry in ${p##*/}"
	done
	for o in $(comm -13 "$TEST_TMP/opts-$c.txt" "$TEST_TMP/tags-$c.txt"); do
		ok 1 "  $c: ${p##*/} lists --$o, which $c does not take"
	done
	# and --help lists the same options
	"$NP_BIN" $c --help >"$TEST_TMP/help-$c.txt" 2>&1
	sed -n 's/^ *\(-[A-Za-z], \)\{0,1\}--\([a-z][a-z-]*\).*/\2/p' "$TEST_TMP/help-$c.txt" | sort -u >"$TEST_TMP/h-$c.txt"
	cmp -s "$TEST_TMP/h-$c.txt" "$TEST_TMP/opts-$c.txt"
	ok $? "  $c --help lists its options of the table"
done

# the contrib commands: their --help against their pages
"$srcdir/contrib/nccl-probe-validate" --help >"$TEST_TMP/help-validate.txt" 2>&1
sed -n 's/^ *\(-[A-Za-z], \)\{0,1\}--\([a-z][a-z-]*\).*/\2/p' "$TEST_TMP/help-validate.txt" | sort -u >"$TEST_TMP/opts-validate.txt"
# the plotter's usage line, and its -o is --output
"$srcdir/contrib/nccl-probe-plot" --help >"$TEST_TMP/help-plot.txt" 2>&1
{ grep -m1 'nccl-probe-plot \[' "$TEST_TMP/help-plot.txt" | grep -o -- '--[a-z][a-z-]*' | sed 's/^--//'; echo help; echo output; } |
	sort -u >"$TEST_TMP/opts-plot.txt"
for c in validate plot; do
	p=$(page "$c")
	[ -f "$p" ]
	ok $? "$c has its page ${p##*/}"
	n=$(wc -l <"$TEST_TMP/opts-$c.txt")
	[ "$n" -ge 4 ]
	ok $? "  its --help gives $n options"
	tags "$p" >"$TEST_TMP/tags-$c.txt"
	for o in $(cat "$TEST_TMP/opts-$c.txt"); do
		grep -qx -- "$o" "$TEST_TMP/tags-$c.txt"
		ok $? "  $c: --$o has an entry in ${p##*/}"
	done
	for o in $(comm -13 "$TEST_TMP/opts-$c.txt" "$TEST_TMP/tags-$c.txt"); do
		ok 1 "  $c: ${p##*/} lists --$o, which its --help does not"
	done
done

# JSON fields: each command's report, every key in its page (the envelope
# and the sweep's own in nccl-probe(1))
np_host 2 --sweep 1K:4K --coll all --iters 1 --samples 1 --format json --output "$TEST_TMP/sweep.json" \
	>/dev/null 2>&1
ok $? "a sweep JSON report to read the fields from"
# topo: a fake node with a GPU and two NICs, so nested objects have members
node "$TEST_TMP/root"
NCCL_PROBE_FSROOT=$TEST_TMP/root "$NP_BIN" topo --quiet --format json --output "$TEST_TMP/topo.json" \
	>/dev/null 2>&1
[ -s "$TEST_TMP/topo.json" ]
ok $? "a topo JSON report to read the fields from"
"$NP_BIN" compare --format json --output "$TEST_TMP/compare.json" "$TEST_TMP/sweep.json" "$TEST_TMP/sweep.json" \
	>/dev/null 2>&1
[ -s "$TEST_TMP/compare.json" ]
ok $? "a compare JSON report to read the fields from"
np_mpi 2 tune --backend mpi --sweep 1K --budget 0.1 --try OMPI_MCA_coll_tuned_allreduce_algorithm=1 \
	--try OMPI_MCA_no_such_variable=1 --format json --output "$TEST_TMP/tune.json" >/dev/null 2>&1
[ -s "$TEST_TMP/tune.json" ]
ok $? "a tune JSON report to read the fields from"
np_mpi 2 isolate --backend mpi --ranks-per-node 1 --size 1K --budget 0.1 --format json --output "$TEST_TMP/isolate.json" \
	>/dev/null 2>&1
[ -s "$TEST_TMP/isolate.json" ]
ok $? "an isolate JSON report to read the fields from"
sed -e 's/\\-/-/g' -e 's/\\e/\\/g' "$mandir/nccl-probe.1" >"$TEST_TMP/man-sweep.txt"
for c in sweep topo compare tune isolate; do
	python3 - "$TEST_TMP/$c.json" >"$TEST_TMP/keys-$c.txt" <<'PY'
import json, sys
keys = set()
def walk(v, parent=None):
    if isinstance(v, dict):
        for k, x in v.items():
            if parent != "nccl_env":
                keys.add(k)
            walk(x, k)
    elif isinstance(v, list):
        for x in v:
            walk(x, parent)
walk(json.load(open(sys.argv[1])))
print("\n".join(sorted(keys)))
PY
	p=$(page "$c")
	sed -e 's/\\-/-/g' -e 's/\\e/\\/g' "$p" >"$TEST_TMP/man-$c.txt"
	for k in $(cat "$TEST_TMP/keys-$c.txt"); do
		grep -q "\b$k\b" "$TEST_TMP/man-$c.txt" || grep -q "\b$k\b" "$TEST_TMP/man-sweep.txt"
		ok $? "  $c JSON field '$k' is in ${p##*/}"
	done
done

# every page: installed, no NCCL_PROBE_TEST_* (tests/README has them),
# EXAMPLES last before SEE ALSO, rendered without warnings in 80 columns
for p in "$mandir"/*.1; do
	b=${p##*/}
	grep -q "man/$b" "$srcdir/Makefile.am"
	ok $? "$b is installed (Makefile.am)"
	! grep -q 'NCCL_PROBE_TEST_' "$p"
	ok $? "  no test switch in $b"
	[ "$(grep '^\.SH' "$p" | tail -2 | tr '\n' ' ')" = ".SH EXAMPLES .SH SEE ALSO " ]
	ok $? "  EXAMPLES, then SEE ALSO, end $b"
	if command -v man >/dev/null 2>&1; then
		w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)
		[ -z "$w" ]
		ok $? "  $b renders without warnings" || printf '# %s\n' "$w"
		LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$p" 2>/dev/null | python3 -c '
import sys
wide = [l for l in sys.stdin.read().split("\n") if len(l) > 80]
for l in wide: print("# too wide: " + l)
sys.exit(1 if wide else 0)'
		ok $? "  $b fits 80 columns"
	else
		ok 0 "# SKIP man is not installed"
		ok 0 "# SKIP man is not installed"
	fi
done
done_testing
