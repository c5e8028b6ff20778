#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/nccl-probe-validate and the files around it: --json follows
# nccl-probe's output contract (a device, a FIFO, a symbolic link, a
# directory or a read-only file is refused with exit 64 and left as it
# was; '-' is the JSON alone on standard output); --out DIR never writes
# through a link planted in it and never reads the previous run's
# verdict; --launcher-args are split as words, never glob-expanded;
# node names that are not node names are refused. The script compiles
# as Python 3. The same cases under a real Slurm are t0041.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"
command -v timeout >/dev/null || skip_all "timeout (coreutils) not found"

V="$srcdir/contrib/nccl-probe-validate"
T=$TEST_TMP
# a short run on 2 virtual nodes of this host (MPI host backend)
val() { "$V" --nccl-probe "$NP_BIN" --backend mpi --virtual 2 --ppn 1 --no-topo "$@"; }
iso="--size 16K --budget 0.4 --min-effect 50"

python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
	"$V" "$T/validate.pyc"
ok $? "nccl-probe-validate compiles as Python 3"
[ -x "$V" ] && head -n 1 "$V" | grep -q '^#!/usr/bin/env python3$'
ok $? "  and runs as a python3 script"

# ---- --json: what is not a regular file is refused and left alone ------------
# mark FILE: a line that says what FILE is (type, inode, size, content digest)
mark() { stat -c '%F %i %s %a' "$1"; [ -f "$1" ] && [ ! -L "$1" ] && cksum <"$1"; true; }
dev=$(mark /dev/null)
expect_code 64 "--json /dev/null: exit 64" val --json /dev/null -- $iso
expect_grep "^error: --json '/dev/null' is a character device, not a regular file" "$TEST_ERR" "  one line saying what it is"
[ "$(grep -c . "$TEST_ERR")" -eq 1 ]
ok $? "  and nothing more"
[ "$(mark /dev/null)" = "$dev" ] && [ -c /dev/null ]
ok $? "  /dev/null is still the device"
mkfifo "$T/fifo"
expect_code 64 "--json FIFO: exit 64" val --json "$T/fifo" -- $iso
expect_grep "is a FIFO, not a regular file" "$TEST_ERR" "  says so"
[ -p "$T/fifo" ]
ok $? "  the FIFO is left"
echo precious >"$T/target"
before=$(mark "$T/target")
ln -s "$T/target" "$T/link"
expect_code 64 "--json SYMLINK: exit 64" val --json "$T/link" -- $iso
expect_grep "is a symbolic link, and nccl-probe-validate does not write through links" "$TEST_ERR" "  says so"
[ -L "$T/link" ] && [ "$(mark "$T/target")" = "$before" ]
ok $? "  the link and the file it points to are left"
mkdir "$T/dir"
expect_code 64 "--json DIR: exit 64" val --json "$T/dir" -- $iso
expect_grep "it is a directory; give a file name" "$TEST_ERR" "  says so"
[ -z "$(ls -A "$T/dir")" ]
ok $? "  nothing is written in the directory"
echo old >"$T/ro.json"
chmod 444 "$T/ro.json"
if [ "$(id -u)" -eq 0 ] || [ ! -w "$T/ro.json" ]; then
	expect_code 64 "--json READ-ONLY: exit 64" val --json "$T/ro.json" -- $iso
	[ "$(cat "$T/ro.json")" = old ]
	ok $? "  left as it was"
fi
expect_code 64 "--json in a directory that does not exist: exit 64" val --json "$T/no/v.json" -- $iso

# a new file gets the umask's mode; '-' is JSON alone on standard output
(umask 027 && exec "$V" --nccl-probe "$NP_BIN" --backend mpi --virtual 2 --ppn 1 --no-topo --json "$T/v.json" -- $iso) \
	>"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
ok $? "a run with --json FILE ends with a verdict (exit $rc)"
[ "$(stat -c %a "$T/v.json")" = 640 ]
ok $? "  FILE has the umask's mode (027: 640, got $(stat -c %a "$T/v.json"))"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["schema"] != "nccl-probe/validate")' "$T/v.json"
ok $? "  FILE is the JSON verdict"
[ -z "$(find "$T" -maxdepth 1 -name '.v.json.tmp.*')" ]
ok $? "  no temporary is left beside it"
val --json - -- $iso >"$TEST_OUT" 2>"$TEST_ERR"
python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(r["schema"] != "nccl-probe/validate")' <"$TEST_OUT"
ok $? "--json -: standard output is the JSON verdict alone"
expect_grep '^verdict: ' "$TEST_ERR" "  the verdict line goes to standard error"

# ---- --out DIR: links planted in it are replaced, never written through -------
mkdir "$T/out"
for f in nodes commands verdict.json bad links isolate.json isolate.out isolate.err topo.out topo.err; do
	echo "precious $f" >"$T/victim.$f"
	ln -s "$T/victim.$f" "$T/out/$f"
done
val --out "$T/out" --json "$T/o.json" -- $iso >"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
ok $? "--out DIR with links planted in it: the run ends with a verdict (exit $rc)"
bad=""
for f in nodes commands verdict.json bad links isolate.json isolate.out isolate.err topo.out topo.err; do
	[ "$(cat "$T/victim.$f")" = "precious $f" ] || bad="$bad $f"
done
[ -z "$bad" ]
ok $? "  no file a link pointed to was written (written:${bad:- none})"
[ ! -L "$T/out/verdict.json" ] && [ -f "$T/out/verdict.json" ] && [ ! -L "$T/out/isolate.json" ] &&
	[ -f "$T/out/isolate.json" ] && [ ! -L "$T/out/commands" ]
ok $? "  the run's own files are regular files in DIR"
ln -s "$T/out" "$T/outlink"
expect_code 64 "--out SYMLINK: exit 64" val --out "$T/outlink" -- $iso
expect_grep "^error: --out '.*outlink' is a symbolic link" "$TEST_ERR" "  says so"

# ---- a reused --out DIR: the previous run's verdict is never read again -------
# (a planted slow node named: timing is judged from here on, apart from
# the other tests that judge it; the runs above accept any verdict)
timing_alone
mkdir "$T/reuse"
NCCL_PROBE_TEST_SLOW=1:1000% "$V" --nccl-probe "$NP_BIN" --backend mpi --virtual 4 --ppn 1 --no-topo \
	--out "$T/reuse" -- --size 16K --budget 0.6 --min-effect 50 >"$TEST_OUT" 2>"$TEST_ERR"
grep -q '^bad: node vnode1' "$TEST_OUT" && [ -f "$T/reuse/isolate.json" ]
judged_ok $? "a first run in --out DIR names a slow vnode1 and leaves its isolate.json"
expect_code 3 "a second run there whose launcher fails at once: exit 3" "$V" --nccl-probe "$NP_BIN" --backend mpi \
	--virtual 4 --ppn 1 --no-topo --out "$T/reuse" --json "$T/r.json" --launcher-args --no-such-option
! grep -q -e '^bad:' -e '^drain:' -e '^verdict:' "$TEST_OUT"
ok $? "  the old verdict is not printed: no bad, drain or verdict line"
expect_grep "^error: isolate failed on every node .*the launch, not a node" "$TEST_ERR" "  one error about the launch"
[ ! -e "$T/reuse/isolate.json" ]
ok $? "  the previous run's isolate.json is gone, and none was written"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r["exit_code"] == 3 and r["rounds"] is None and all(n["state"] == "unknown" for n in r["nodes"])))' \
	"$T/r.json"
ok $? "  JSON: exit 3, no rounds, every node unknown"

# ---- --launcher-args: words, never globs ------------------------------------------
: >"$T/glob-a" && : >"$T/glob-b"
(cd "$T" && "$V" --nccl-probe "$NP_BIN" --hosts a,b --no-topo --dry-run \
	--launcher-args "-x 'FOO=glob-*' -x \"BAR=two words\"") >"$TEST_OUT" 2>"$TEST_ERR"
expect_grep "^mpirun -np 2 --host a:1,b:1 --map-by ppr:1:node -x 'FOO=glob-\*' -x 'BAR=two words' " "$TEST_OUT" \
	"--launcher-args: 'FOO=glob-*' stays one word, quotes keep 'two words' together"
expect_code 64 "--launcher-args with an open quote: exit 64" "$V" --nccl-probe "$NP_BIN" --hosts a,b --dry-run \
	--launcher-args "-x 'FOO"

# ---- node names ---------------------------------------------------------------------
for n in 'a,$(touch x)' 'b`id`' 'c;d' 'gpu[001-512]' '-g'; do
	expect_code 64 "node name '$n' refused: exit 64" "$V" --nccl-probe "$NP_BIN" --hostfile /dev/stdin --dry-run <<EOF
ok1
$n
EOF
	expect_grep "^error: invalid node name" "$TEST_ERR" "  says so"
done
done_testing
