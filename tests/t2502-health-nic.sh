#!/bin/sh
# SPDX-License-Identifier: MIT
# NIC health on fake sysfs trees: port error counters read at both ends of
# the sampling window. Old counts are shown, not accused; counters that a
# background writer makes grow during the run are; a port trained at 1X is.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"

R=$TEST_TMP/root
node "$R"
topo() { NCCL_PROBE_FSROOT=$R np topo --quiet "$@"; }

# counters DEV SYMBOL LINK_DOWNED RCV OVERRUN
counters() {
	c=$R/sys/class/infiniband/$1/ports/1/counters
	mkdir -p "$c"
	echo "$2" >"$c/symbol_error"
	echo "$3" >"$c/link_downed"
	echo "$4" >"$c/port_rcv_errors"
	echo "$5" >"$c/excessive_buffer_overrun_errors"
}
counters mlx5_0 12 1 0 0
counters mlx5_1 0 0 3 0

expect_success "old error counts, nothing growing" topo
! grep -q 'health-' "$TEST_OUT"
ok $? "  no health finding: counts from before the run are not accused"
expect_grep '^  mlx5_0:1 symbol_error 12 \(\+0\) link_downed 1 \(\+0\) port_rcv_errors 0 \(\+0\)' "$TEST_OUT" \
	"  the counters are shown with their growth"
expect_grep '^Health \(sampled 1\.0 s, idle\)' "$TEST_OUT" "  over the 1 s window"

# a writer that makes mlx5_0's counters grow (written whole, then renamed,
# as sysfs files never show half a number)
grow() {
	c=$R/sys/class/infiniband/mlx5_0/ports/1/counters
	i=0
	while [ $i -lt 60 ]; do
		i=$((i + 1))
		echo $((12 + i)) >"$c/.s" && mv "$c/.s" "$c/symbol_error"
		echo $((i / 10 + 1)) >"$c/.l" && mv "$c/.l" "$c/link_downed"
		sleep 0.1
	done
}
grow &
writer=$!
expect_success "symbol errors and link downs growing during the run" topo --format json --output "$TEST_TMP/g.json"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
schema_ok topo "$TEST_TMP/g.json" "  the JSON with NIC counters holds to the topo schema"
if PY=$(command -v python3); then
	"$PY" - "$TEST_TMP/g.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["id"] == "health-nic-errors"]
n = d["health"]["nics"]
print("# findings:", [(x["subject"], x["evidence"]) for x in f])
print("# grew:", [x["grew"] for x in n])
ok = len(f) == 1 and f[0]["subject"] == "mlx5_0:1" and "symbol_error +" in f[0]["evidence"]
ok = ok and n[0]["grew"]["symbol_error"] > 0 and n[1]["grew"] == {k: 0 for k in n[1]["grew"]}
ok = ok and f[0]["severity"] == "warning" and n[1]["counters"]["port_rcv_errors"] == 3
sys.exit(0 if ok else 1)
PY
	ok $? "  mlx5_0 is named with its symbol errors' growth; mlx5_1, unchanged, is not"
fi

grow &
writer=$!
expect_success "the window follows --under-load (the GPUs of a fake tree are not loaded)" topo --under-load 2
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
expect_grep 'health-nic-errors \[mlx5_0:1\]' "$TEST_OUT" "  the growth is seen"
expect_grep 'evidence: sysfs ports/1/counters over 2\.0 s: symbol_error \+[0-9]+' "$TEST_OUT" \
	"  over the 2 s window of --under-load"
NCCL_PROBE_FSROOT=$R expect_success "  as JSON" np topo --under-load 0.5 --format json --output "$TEST_TMP/l.json"
grep -q '"under_load": false' "$TEST_TMP/l.json" && grep -q -- '--under-load: NCCL_PROBE_FSROOT describes another machine' "$TEST_TMP/l.json"
ok $? "  under_load is false and a note says why"

# a port that trained one lane of four
echo "100 Gb/sec (1X NDR)" >"$R/sys/class/infiniband/mlx5_1/ports/1/rate"
expect_success "an NDR port at 1X" topo
expect_grep 'warning +health-nic-width \[mlx5_1:1\]: mlx5_1:1: port trained at 1X, 100 of its 400 Gb/s' "$TEST_OUT" \
	"  the port at 1X is named"
echo "400 Gb/sec (4X NDR)" >"$R/sys/class/infiniband/mlx5_1/ports/1/rate"
expect_success "back at 4X" topo
! grep -q 'health-nic-width' "$TEST_OUT"
ok $? "  no width finding at 4X"

# counters unreadable: unknown, no finding
rm -r "$R/sys/class/infiniband/mlx5_0/ports/1/counters"
expect_success "no counters for mlx5_0" topo --format json --output "$TEST_TMP/u.json"
schema_ok topo "$TEST_TMP/u.json" "  the JSON with unknown counters holds to the topo schema"
if [ -n "${PY:-}" ]; then
	"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1])); c = d["health"]["nics"][0]
sys.exit(0 if set(c["counters"].values()) == {None} and set(c["grew"].values()) == {None} else 1)' "$TEST_TMP/u.json"
	ok $? "  its counters are null"
fi
done_testing
