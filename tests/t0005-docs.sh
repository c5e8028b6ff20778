#!/bin/sh
# SPDX-License-Identifier: MIT
# Every option of the option table is in --help and in the man page; every
# JSON field the sweep writes is in the man page.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"

man="$srcdir/man/nccl-probe.1"
sed -e 's/\\-/-/g' -e 's/\\e/\\/g' "$man" >"$TEST_TMP/man.txt"
"$NP_BIN" --help >"$TEST_TMP/help-sweep.txt" 2>&1
"$NP_BIN" topo --help >"$TEST_TMP/help-topo.txt" 2>&1
"$NP_BIN" isolate --help >"$TEST_TMP/help-isolate.txt" 2>&1
"$NP_BIN" compare --help >"$TEST_TMP/help-compare.txt" 2>&1
"$NP_BIN" tune --help >"$TEST_TMP/help-tune.txt" 2>&1
cat "$TEST_TMP/help-sweep.txt" "$TEST_TMP/help-topo.txt" "$TEST_TMP/help-isolate.txt" \
	"$TEST_TMP/help-compare.txt" "$TEST_TMP/help-tune.txt" >"$TEST_TMP/help.txt"

# the option names, as --help prints them
opts=$(sed -n 's/^ *\(-[A-Za-z], \)\{0,1\}--\([a-z][a-z-]*\).*/\2/p' "$TEST_TMP/help.txt" | sort -u)
n=$(printf '%s\n' "$opts" | grep -c .)
[ "$n" -ge 25 ]
ok $? "--help lists the option table ($n options)"
for o in $opts; do
	grep -q -- "--$o\b" "$TEST_TMP/man.txt"
	ok $? "option --$o is in the man page"
done
# every option the man page's OPTIONS section describes is in --help
sed -n '/^\.SH OPTIONS/,/^\.SH OUTPUT/p' "$TEST_TMP/man.txt" >"$TEST_TMP/man-opts.txt"
for o in $(grep -o -- '^\.B[IR]* .*--[a-z][a-z-]*' "$TEST_TMP/man-opts.txt" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	printf '%s\n' "$opts" | grep -qx -- "${o#--}"
	ok $? "man-page option $o is in --help"
done

# JSON fields: run a sweep, collect every key
np_host 2 --sweep 1K:4K --coll all --iters 1 --samples 1 --format json --output "$TEST_TMP/s.json" \
	>/dev/null 2>&1
ok $? "a JSON report to read the fields from"
# topo: a fake node with a GPU and two NICs, so nested objects have members
node "$TEST_TMP/root"
NCCL_PROBE_FSROOT=$TEST_TMP/root "$NP_BIN" topo --quiet --format json --output "$TEST_TMP/t.json" \
	>/dev/null 2>&1
[ -s "$TEST_TMP/t.json" ]
ok $? "a topo JSON report to read the fields from"
# compare: the sweep's report against itself
"$NP_BIN" compare --format json --output "$TEST_TMP/c.json" "$TEST_TMP/s.json" "$TEST_TMP/s.json" >/dev/null 2>&1
[ -s "$TEST_TMP/c.json" ]
ok $? "a compare JSON report to read the fields from"
np_mpi 2 tune --backend mpi --sweep 1K --budget 0.1 --try OMPI_MCA_coll_tuned_allreduce_algorithm=1 \
	--try OMPI_MCA_no_such_variable=1 --format json --output "$TEST_TMP/u.json" >/dev/null 2>&1
[ -s "$TEST_TMP/u.json" ]
ok $? "a tune JSON report to read the fields from"
python3 - "$TEST_TMP/s.json" "$TEST_TMP/t.json" "$TEST_TMP/c.json" "$TEST_TMP/u.json" >"$TEST_TMP/keys.txt" <<'PY'
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
for path in sys.argv[1:]:
    walk(json.load(open(path)))
print("\n".join(sorted(keys)))
PY
for k in $(cat "$TEST_TMP/keys.txt"); do
	grep -q "\b$k\b" "$TEST_TMP/man.txt"
	ok $? "JSON field '$k' is in the man page"
done
done_testing
