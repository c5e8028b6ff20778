#!/bin/sh
# SPDX-License-Identifier: MIT
# The readers of files a user names: a FIFO (or a directory) given as a
# JSON report to compare, sweep --baseline or contrib/nccl-probe-plot, or
# as topo --input, is refused at once (exit 64, one line naming it), never
# waited on for a writer; running out of memory while parsing an XML file
# is exit 3 "out of memory", not 64 "is not XML".
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"

cd "$TEST_TMP" || exit 1
mkfifo fifo

one_error() { # DESC TEXT: exactly one error line, holding TEXT
	n=$(grep -c 'error:' "$TEST_ERR")
	[ "$n" -eq 1 ] && grep -F -q -- "$2" "$TEST_ERR"
	ok $? "$1: one error line saying '$2' (got $n)"
	[ "$n" -eq 1 ] || sed 's/^/#   /' "$TEST_ERR" | head -n 5
}

# a real report to compare with: a FIFO on either side is the usage error
expect_success "a report to compare with" np_host 1 --sweep 1K --coll allreduce --iters 1 --samples 1 -q -J a.json
# timeout: the old reader waited for a writer, forever
expect_code 64 "compare FIFO a.json: exit 64, no wait" timeout 30 "$NP_BIN" compare fifo a.json
one_error "compare FIFO a.json" "'fifo' is a FIFO, not a regular file"
expect_code 64 "compare a.json FIFO: exit 64, no wait" timeout 30 "$NP_BIN" compare a.json fifo
one_error "compare a.json FIFO" "'fifo' is a FIFO, not a regular file"
expect_code 64 "compare DIR a.json: exit 64" timeout 30 "$NP_BIN" compare . a.json
one_error "compare DIR a.json" "'.' is a directory, not a regular file"
expect_code 64 "sweep --baseline FIFO: exit 64, no wait" timeout 60 mpirun -np 1 --oversubscribe \
	--bind-to none "$NP_BIN" --backend mpi --sweep 1K --coll allreduce --iters 1 --samples 1 -q --baseline fifo
one_error "sweep --baseline FIFO" "'fifo' is a FIFO, not a regular file"
expect_code 64 "topo --input FIFO: exit 64, no wait" timeout 30 "$NP_BIN" topo -q --input fifo
one_error "topo --input FIFO" "'fifo' is not a regular file"
[ -p fifo ]
ok $? "the FIFO is left as it was"

py=""
for p in python3 /usr/bin/python3; do
	command -v "$p" >/dev/null 2>&1 && { py=$p; break; }
done
if [ -n "$py" ]; then
	expect_code 64 "nccl-probe-plot FIFO: exit 64, no wait" timeout 30 "$py" "$srcdir/contrib/nccl-probe-plot" --data fifo
	one_error "nccl-probe-plot FIFO" "'fifo' is a FIFO, not a regular file"
	grep -q Traceback "$TEST_ERR"
	[ $? -ne 0 ]
	ok $? "nccl-probe-plot FIFO: no traceback"
else
	ok 0 "# SKIP no python3"
	ok 0 "# SKIP no python3"
	ok 0 "# SKIP no python3"
fi

# 200,000 elements of one 250-byte attribute: 52 MB of XML, within the
# bounds on elements and attributes (t2010); 400 MB of address space is
# enough to read the file, not to parse it
if [ -n "${NP_SANITIZED:-}" ]; then
	for i in 1 2 3; do ok 0 "# SKIP a sanitized build cannot start under ulimit -v"; done
else
	awk 'BEGIN { v = sprintf("%0250d", 0); printf "<topology version=\"2.0\">"
		for (i = 0; i < 200000; i++) printf "<a b=\"%s\"/>", v; print "</topology>" }' >big.xml
	expect_code 3 "XML parsed out of memory (ulimit -v 400000): exit 3" \
		sh -c 'ulimit -v 400000 && exec "$0" topo -q --input big.xml' "$NP_BIN"
	one_error "XML out of memory" "out of memory parsing --input 'big.xml'"
	# with memory, the same file parses, and is refused for what it holds
	"$NP_BIN" topo -q --input big.xml >"$TEST_OUT" 2>"$TEST_ERR"
	rc=$?
	[ "$rc" -eq 64 ] && ! grep -q 'out of memory' "$TEST_ERR"
	ok $? "the same file with memory: exit 64 for its contents, not out of memory (exit $rc)"
	rm -f big.xml
fi
done_testing
