#!/bin/sh
# SPDX-License-Identifier: MIT
# Output files (sweep --output, topo --output, topo --export) go through
# one writer: a random temporary created with O_EXCL beside the target,
# the umask's mode (a file replaced keeps its group and mode), renamed
# into place. '-' and /proc/self/fd/N are standard output and that
# descriptor; a symbolic link, a FIFO, a device, a read-only file or a
# directory is refused (exit 64) and left as it was;
# a path too long is a usage error; a directory where no file can be made
# is one message and exit 3. No temporary is ever left behind. An output
# may never be an input of the same run, nor two outputs one file.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort

cd "$TEST_TMP" || exit 1
sweep() { np_host "${RANKS:-1}" --sweep 1K --coll allreduce --iters 1 --samples 1 -q "$@"; }

one_error() { # DESC NAME: exactly one error line, naming NAME
	n=$(grep -c '^error:' "$TEST_ERR")
	[ "$n" -eq 1 ] && grep -F -q -- "$2" "$TEST_ERR"
	ok $? "$1: one error line naming '$2' (got $n)"
	[ "$n" -eq 1 ] || sed 's/^/#   /' "$TEST_ERR" | head -n 5
}

expect_success "--output - writes to standard output" sweep --output -
expect_grep '^ +1024 +256 ' "$TEST_OUT" "the rows are on standard output"
[ ! -e "$TEST_TMP/-" ]
ok $? "no file named '-'"
expect_success "--output /proc/self/fd/1 writes to that descriptor" sweep --output /proc/self/fd/1
expect_grep '^ +1024 +256 ' "$TEST_OUT" "the rows are on descriptor 1"

echo keep >victim
ln -s victim link
expect_code 64 "--output on a symbolic link is refused" sweep --output link
one_error "symbolic link" "link"
[ -L link ] && [ "$(cat victim)" = keep ]
ok $? "the link and the file it points to are unchanged"

mkfifo fifo
expect_code 64 "--output on a FIFO is refused (not replaced, no hang)" timeout 60 sh -c \
	'mpirun -np 1 --oversubscribe --bind-to none "$0" --backend mpi --sweep 1K --output fifo' "$NP_BIN"
one_error "FIFO" "fifo"
[ -p fifo ]
ok $? "the FIFO is still a FIFO"

if mknod cdev c 1 3 2>/dev/null; then
	expect_code 64 "--output on a character device is refused" sweep --output cdev
	one_error "character device" "cdev"
	[ -c cdev ]
	ok $? "the device node is still a device node"
else
	ok 0 "# SKIP cannot make a device node here"
fi

echo keep >ro
chmod 444 ro
expect_code 64 "--output on a read-only file is refused" sweep --output ro
one_error "read-only file" "ro"
[ "$(cat ro)" = keep ]
ok $? "the read-only file is unchanged"

expect_code 64 "--output on a directory is refused" sweep --output "$TEST_TMP"
one_error "directory" "$TEST_TMP"

long=$(printf 'n%.0s' $(seq 300))
expect_code 64 "a file name of 300 characters is a usage error" sweep --output "$long"
one_error "long file name" "the file name is 300 characters"
deep=$(printf 'd/%.0s' $(seq 2100))x
expect_code 64 "a path over PATH_MAX is a usage error" sweep --output "$deep"
one_error "long path" "the path is"

# a directory where no file can be created: the system says no (exit 3);
# without the privilege to try, the check says no first (exit 64)
want=3
[ "$(id -u)" -eq 0 ] || want=64
RANKS=2 expect_code $want "--output where no file can be made: exit $want" sweep --output /proc/np-probe-out.json
one_error "unwritable directory" "/proc/np-probe-out.json"

# the mode is the umask's (it was 0600 whatever the umask)
(umask 022 && sweep --output m022.txt) >/dev/null 2>&1
(umask 077 && sweep --output m077.txt) >/dev/null 2>&1
[ "$(stat -c %a m022.txt)" = 644 ] && [ "$(stat -c %a m077.txt)" = 600 ]
ok $? "sweep --output has the umask's mode (umask 022: $(stat -c %a m022.txt), 077: $(stat -c %a m077.txt))"

# a file replaced keeps its group and mode (a 0640 root:daemon file stays
# so), whatever the umask; the contents are this run's
echo old >g.json
if chgrp daemon g.json 2>/dev/null && chmod 0640 g.json; then
	(umask 022 && sweep -J g.json) >/dev/null 2>&1
	[ "$(stat -c '%a %G' g.json)" = "640 daemon" ] && grep -q '"schema"' g.json
	ok $? "-J over a 0640 file of group daemon keeps them (now $(stat -c '%a %U:%G' g.json))"
else
	ok 0 "# SKIP cannot give a file the group daemon here"
fi
echo old >m.csv
chmod 0604 m.csv
(umask 077 && sweep --csv m.csv) >/dev/null 2>&1
[ "$(stat -c %a m.csv)" = 604 ] && grep -q '^coll,' m.csv
ok $? "--csv over a 0604 file keeps its mode under umask 077 (now $(stat -c %a m.csv))"
# a user who may not give the file its old group: the old group's rights
# are not handed to the user's own group (0664 nobody:daemon replaced by
# nobody, not in daemon: group write dropped, the umask's read kept)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
	getent passwd nobody >/dev/null && chmod o+x "$TEST_TMP" && mkdir -m 0777 gdir &&
	: >gdir/n.xml && chown nobody:daemon gdir/n.xml && chmod 0664 gdir/n.xml; then
	setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups \
		sh -c 'umask 022 && exec "$0" topo -q --export gdir/n.xml' "$NP_BIN" >/dev/null 2>&1
	[ "$(stat -c '%a %G' gdir/n.xml)" = "644 $(id -gn nobody)" ] && grep -q '<topology' gdir/n.xml
	ok $? "a group the user may not keep: its rights are not given to another (now $(stat -c '%a %U:%G' gdir/n.xml))"
else
	ok 0 "# SKIP needs root, setpriv and the user nobody"
fi

# topo: --output and --export through the same writer
(umask 022 && "$NP_BIN" topo -q --output topo.txt --export snap.xml) >"$TEST_OUT" 2>"$TEST_ERR"
ok $? "topo --output and --export write files"
[ "$(stat -c %a topo.txt)" = 644 ] && [ "$(stat -c %a snap.xml)" = 644 ]
ok $? "topo's files have the umask's mode"
expect_success "the snapshot reads back" "$NP_BIN" topo -q --input snap.xml
expect_code 64 "topo --output on a symbolic link is refused" "$NP_BIN" topo -q --output link
one_error "topo --output link" "link"
expect_code 64 "topo --export on a symbolic link is refused" "$NP_BIN" topo -q --export link
one_error "topo --export link" "link"
[ -L link ] && [ "$(cat victim)" = keep ]
ok $? "the link and its file are unchanged"
# a link planted at the name the old writer used (FILE.tmp.<pid>): the
# shell's pid is nccl-probe's after exec
sh -c 'ln -s victim planted.xml.tmp.$$ && exec "$0" topo -q --export planted.xml' "$NP_BIN" \
	>"$TEST_OUT" 2>"$TEST_ERR"
ok $? "topo --export with a link planted at FILE.tmp.<pid> succeeds"
[ "$(cat victim)" = keep ] && [ -f planted.xml ] && [ ! -L planted.xml ]
ok $? "the planted link was not written through; the snapshot is a regular file"
rm -f planted.xml.tmp.*

# nothing a run was given is lost: an output that is an input of the same
# run (same device and inode, through links too) is refused up front, and
# the input is left as it was
same() { # DESC NEEDLE FILE ARGS...: exit 64, one error naming NEEDLE, FILE unchanged
	desc=$1 needle=$2 file=$3
	shift 3
	sum=$(cksum <"$file")
	expect_code 64 "$desc" "$@"
	one_error "$desc" "$needle"
	[ "$(cksum <"$file")" = "$sum" ]
	ok $? "$desc: $file is unchanged"
}
ln -s snap.xml snap-link.xml
ln snap.xml snap-hard.xml
same "topo --input F --output F" "would replace what this run reads" snap.xml \
	"$NP_BIN" topo -q --input snap.xml --output snap.xml
same "topo --input LINK --output F (through a symbolic link)" "--input 'snap-link.xml'" snap.xml \
	"$NP_BIN" topo -q --input snap-link.xml --output snap.xml
same "topo --input HARDLINK --export F" "--export 'snap.xml' is --input" snap.xml \
	"$NP_BIN" topo -q --input snap-hard.xml --export snap.xml
same "topo --input F --output ./F" "--output './snap.xml'" snap.xml \
	"$NP_BIN" topo -q --input snap.xml --output ./snap.xml
same "topo --export F --output F" "are one file" snap.xml "$NP_BIN" topo -q --export snap.xml --output snap.xml
same "topo --export F --metrics F" "are one file" snap.xml "$NP_BIN" topo -q --export snap.xml --metrics snap.xml
expect_code 64 "topo --export F --output F, F not yet there" "$NP_BIN" topo -q --export new.xml --output new.xml
[ ! -e new.xml ]
ok $? "and nothing is written"
expect_success "a sweep's JSON A" sweep --format json --output a.json
expect_success "a sweep's JSON B" sweep --format json --output b.json
ln a.json a-hard.json
same "compare A B --output A" "compare's first file 'a.json'" a.json "$NP_BIN" compare a.json b.json --output a.json
same "compare A B --output B (hard link)" "compare's second file 'b.json'" b.json \
	"$NP_BIN" compare a.json b.json --output ./b.json
same "--baseline B -J B" "--json 'a.json' is --baseline 'a.json'" a.json sweep --baseline a.json -J a.json
same "--baseline B -J B's hard link (a failing gate never replaces its baseline)" "--baseline" a.json \
	sweep --baseline a.json -J a-hard.json --min-busbw 100000
same "--baseline B --output B" "--output 'a.json' is --baseline" a.json \
	sweep --baseline a.json --format json --output a.json
expect_success "--baseline A -J C is fine" sweep --baseline a.json -J c.json
[ -s c.json ]
ok $? "C is written"

left=$(ls -A | grep -c '\.tmp\.')
[ "$left" -eq 0 ]
ok $? "no temporary file left behind ($left)"
done_testing
