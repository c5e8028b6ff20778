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

# compare on large reports the reader accepts: 400 rows of 10000 sample
# times (the most a row of nccl-probe stores), 4 million values, 47 MB
# each. Each report's parsed document (32 bytes a value) is freed once its
# rows are read, so two of them take about 210 MB, not 526 MB: they are
# read whole under 600 MB of address space (B ran on other ranks, so that
# only the reading is timed, not the statistics)
bigrun() { # FILE RANKS
	awk -v ranks="$2" 'BEGIN {
		printf "{\"schema\": \"nccl-probe/sweep\", \"backend\": {\"name\": \"mpi\"}, \"world\": {\"ranks\": %d, \"nodes\": 1},", ranks
		printf " \"options\": {\"dtype\": \"float\"}, \"results\": ["
		for (r = 0; r < 400; r++) {
			printf "%s{\"coll\": \"allreduce\", \"size\": %d, \"time\": 1e-05, \"sample_times\": [", r ? "," : "", 1024 * (r + 1)
			for (k = 0; k < 10000; k++)
				printf "%s1.%05de-05", k ? "," : "", (r * 7919 + k * 104729) % 100000
			printf "]}"
		}
		print "]}"
	}' >"$1"
}
bigrun big_a.json 2
bigrun big_b.json 4
if [ -n "${NP_SANITIZED:-}" ]; then
	ok 0 "# SKIP a sanitized build cannot start under ulimit -v"
	ok 0 "# SKIP a sanitized build cannot start under ulimit -v"
else
	expect_code 64 "compare two 47 MB reports of 4 million values under ulimit -v 600000: read whole" \
		sh -c 'ulimit -v 600000 && exec "$0" compare big_a.json big_b.json' "$NP_BIN"
	one_error "two large reports" "A ran on 2 ranks and B on 4"
fi
# what a row or a run of nccl-probe never holds is refused with the bound
awk 'BEGIN { printf "{\"schema\": \"nccl-probe/sweep\", \"results\": [{\"coll\": \"allreduce\", \"size\": 1024,"
	printf " \"time\": 1e-05, \"sample_times\": ["; for (k = 0; k < 10001; k++) printf "%s1e-05", k ? "," : ""; print "]}]}" }' >many.json
expect_code 64 "a row of 10001 sample times: exit 64" "$NP_BIN" compare many.json many.json
one_error "10001 sample times" "'sample_times' holds 10001, more than the 10000 a row of nccl-probe stores"
awk 'BEGIN { printf "{\"schema\": \"nccl-probe/sweep\", \"nccl_env\": {"
	for (k = 0; k < 1025; k++) printf "%s\"NCCL_X%d\": \"1\"", k ? "," : "", k; print "}, \"results\": []}" }' >env.json
expect_code 64 "1025 NCCL_* variables: exit 64" "$NP_BIN" compare env.json env.json
one_error "1025 NCCL_* variables" "has 1025 NCCL_* variables in \"nccl_env\" at byte"
# 4 million named strings (60 MB, within the bounds on bytes and values)
# would take 480 MB to hold: refused at the bound on memory
awk 'BEGIN { printf "{\"schema\": \"nccl-probe/sweep\", \"x\": {"
	for (k = 0; k < 4000000; k++) printf "%s\"k%d\":\"v\"", k ? "," : "", k; print "}}" }' >names.json
expect_code 64 "4 million named strings: exit 64" "$NP_BIN" compare names.json names.json
one_error "4 million named strings" "'names.json' needs more than 192 MiB of memory to read (its values, strings and names) at byte"
rm -f big_a.json big_b.json many.json env.json names.json
done_testing
