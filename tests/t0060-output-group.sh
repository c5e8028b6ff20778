#!/bin/sh
# SPDX-License-Identifier: MIT
# One run's output files (--output, -J/--json, --csv) are all replaced or
# none: every temporary is written and fsync'ed before any is renamed, and
# when one of them cannot be written (a full disk), every temporary is
# removed and every old file is left as it was, with exit 3 and one line.
# The full disk is a 64 KiB tmpfs filled to the last block (root only);
# a rename that fails midway is made by a shim (LD_PRELOAD).
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"

cd "$TEST_TMP" || exit 1
mkdir full
mounted=0
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
	mounted=1
	trap 'umount "$TEST_TMP/full" 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
fi

sweep() { np_host 1 --sweep 1K --coll allreduce --iters 1 --samples 1 -q "$@"; }

one_error() { # DESC NAME: exactly one error line, naming NAME
	n=$(grep -c '^error:' "$TEST_ERR")
	[ "$n" -eq 1 ] && grep -F -q -- "$2" "$TEST_ERR"
	ok $? "$1: one error line naming '$2' (got $n)"
	[ "$n" -eq 1 ] || sed 's/^/#   /' "$TEST_ERR" | head -n 5
}

old() { # write "old NAME" into each file
	for f; do echo "old $f" >"$f"; done
}

unchanged() { # DESC FILE...: each still holds "old FILE"
	local desc=$1 bad=
	shift
	for f; do [ "$(cat "$f" 2>/dev/null)" = "old $f" ] || bad="$bad $f"; done
	[ -z "$bad" ]
	ok $? "$desc (changed:${bad:- none})"
}

no_temps() { # DESC: no temporary in . or full/
	left=$(ls -A . full | grep -c '\.tmp\.')
	[ "$left" -eq 0 ]
	ok $? "$1: no temporary left ($left)"
}

fill() { # leave no block free on full/
	dd if=/dev/zero of=full/fill bs=1k count=128 2>/dev/null
	[ "$(df -P full | awk 'NR == 2 { print $4 }')" -eq 0 ]
}

if [ "$mounted" -eq 1 ]; then
	old full/r.json r.csv r.txt
	fill
	ok $? "the tmpfs is full"
	expect_code 3 "-J on a full disk, --csv and --output elsewhere: exit 3" \
		sweep -J full/r.json --csv r.csv --output r.txt
	one_error "JSON on a full disk" "full/r.json"
	expect_grep 'No space left on device' "$TEST_ERR" "the message says the disk is full"
	unchanged "the JSON, the CSV and the table are all the old files" full/r.json r.csv r.txt
	no_temps "JSON on a full disk"

	# the other order: the JSON's temporary is complete when the CSV fails
	rm -f full/fill full/r.json
	old r.json full/r.csv r.txt
	fill
	expect_code 3 "--csv on a full disk, -J and --output elsewhere: exit 3" \
		sweep -J r.json --csv full/r.csv --output r.txt
	one_error "CSV on a full disk" "full/r.csv"
	unchanged "the JSON, the CSV and the table are all the old files" r.json full/r.csv r.txt
	no_temps "CSV on a full disk"

	# with room, every file is replaced
	rm -f full/fill
	expect_success "with room on the disk both are written" sweep -J r.json --csv full/r.csv --output r.txt
	grep -q '"schema"' r.json && grep -q '^coll,' full/r.csv && grep -q 'allreduce' r.txt
	ok $? "the JSON, the CSV and the table are this run's"
	no_temps "with room"
else
	ok 0 "# SKIP cannot mount a small tmpfs here (needs root): the full disk cannot be made"
fi

# a rename that fails after others were done: those are put back (the
# file system swaps the names back), a file that was new is removed. A
# shim fails every rename onto a name ending in NP_FAIL_RENAME.
cc=${CC:-cc}
cat >shim.c <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
static int refused(const char *to)
{
	const char *end = getenv("NP_FAIL_RENAME");
	size_t n = end ? strlen(end) : 0, m = strlen(to);
	return n && m >= n && !strcmp(to + m - n, end);
}
int rename(const char *from, const char *to)
{
	int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	if (refused(to))
		return errno = EIO, -1;
	return real(from, to);
}
int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags)
{
	int (*real)(int, const char *, int, const char *, unsigned) =
		(int (*)(int, const char *, int, const char *, unsigned))dlsym(RTLD_NEXT, "renameat2");
	if (refused(to))
		return errno = EIO, -1;
	return real(fd1, from, fd2, to, flags);
}
EOF
shim_sweep() { # FAIL-SUFFIX ARGS...: the sweep with renames onto *FAIL-SUFFIX failing
	local fail=$1
	shift
	mpirun -np 1 --oversubscribe --bind-to none -x LD_PRELOAD="$TEST_TMP/shim.so" -x NP_FAIL_RENAME="$fail" \
		"$NP_BIN" --backend mpi --sweep 1K --coll allreduce --iters 1 --samples 1 -q "$@"
}
if [ -n "${NP_SANITIZED:-}" ] || ! $cc -shared -fPIC -o shim.so shim.c -ldl 2>/dev/null; then
	for i in 1 2 3 4 5 6; do ok 0 "# SKIP cannot build the rename shim (or a sanitized build)"; done
else
	old p.json p.txt
	rm -f p.csv
	expect_code 3 "the CSV's rename fails after the table's and the JSON's: exit 3" \
		shim_sweep p.csv -J p.json --csv p.csv --output p.txt
	one_error "rename failed" "p.csv"
	unchanged "the table and the JSON renamed before it are put back" p.json p.txt
	[ ! -e p.csv ]
	ok $? "no CSV where there was none"
	# a file that was new is removed again
	rm -f p.json
	old p.csv
	expect_code 3 "again, with no JSON before the run: exit 3" \
		shim_sweep p.csv -J p.json --csv p.csv --output p.txt
	[ ! -e p.json ] && [ "$(cat p.csv)" = "old p.csv" ] && [ "$(cat p.txt)" = "old p.txt" ]
	ok $? "the new JSON is removed again, the table and the CSV are the old files"
	no_temps "a failed rename"
fi
done_testing
