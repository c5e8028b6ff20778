#!/bin/sh
# SPDX-License-Identifier: MIT
# nccl-probe tune with NCCL on one GPU: every rank its own virtual node
# (--ranks-per-node 1), so NCCL's protocols and algorithms run over its
# network transport. NCCL_PROTO and NCCL_ALGO candidates are confirmed by
# NCCL's own log ("set by environment", when each candidate's communicator
# is made) and by the protocol and algorithm NCCL logged for the first call
# of every size; every row carries its ratio with a 95% interval, and a
# candidate for which NCCL made the baseline's choice is never faster or
# slower; a
# variable NCCL reads once per process is refused, not measured; a
# candidate for which NCCL has no algorithm (NCCL_ALGO=Tree for allgather)
# is an error and loses; a candidate whose call hangs is aborted at
# --timeout, and the run stops with its report and exit 4; NCCL_DEBUG set
# by the user is a usage error.
. "$(dirname "$0")/lib.sh"
have_nccl_build || skip_all "built without the NCCL backend"
have_gpu || skip_all "no GPU"
have_mpirun || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"

n=${NP_GPU_RANKS:-2}
tune() { mpirun -np "$n" --oversubscribe --bind-to none "$NP_BIN" tune --backend nccl --ranks-per-node 1 "$@"; }

expect_code 64 "NCCL_DEBUG set by the user: usage error" env NCCL_DEBUG=WARN \
	"$NP_BIN" tune --backend nccl --try NCCL_PROTO=LL
expect_grep "unset NCCL_DEBUG" "$TEST_ERR" "... saying to unset it"
expect_code 64 "an Open MPI setting on the NCCL backend" "$NP_BIN" tune --backend nccl --try OMPI_MCA_btl=self
expect_grep "an Open MPI setting, and this run uses the nccl backend" "$TEST_ERR" "... said"

expect_success "$n ranks: NCCL_PROTO and NCCL_ALGO candidates, and NCCL_BUFFSIZE" \
	tune --sweep 8:4M:x8 --budget 0.5 --try NCCL_PROTO=LL,LL128,Simple --try NCCL_ALGO=Ring,Tree \
	--try NCCL_BUFFSIZE=1048576 -J "$TEST_TMP/tune.json"
sed 's/^/#   /' "$TEST_OUT"
python3 - "$TEST_TMP/tune.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
arms = d["arms"]
labels = [a["label"] for a in arms]
assert labels == ["baseline", "NCCL_PROTO=LL", "NCCL_PROTO=LL128", "NCCL_PROTO=Simple",
                  "NCCL_ALGO=Ring", "NCCL_ALGO=Tree", "NCCL_BUFFSIZE=1048576"], labels
for a in arms[1:6]:
    assert a["state"] in ("measured", "wrong-data"), a
    if a["state"] == "measured":
        name, value = a["label"].split("=")
        assert "%s set by environment to %s" % (name, value) in a["evidence"], a
buf = arms[6]
assert buf["state"] == "refused" and "did not read NCCL_BUFFSIZE=1048576" in buf["why"], buf
assert arms[1]["state"] == "measured" and arms[3]["state"] == "measured", "LL and Simple run everywhere"
rows = d["rows"]
# 8:4M:x8 is 8 B to 2 MiB by x8, and the 4 MiB asked for: 8 sizes
assert len(rows) == 8, len(rows)
for r in rows:
    assert r["rounds"] >= 3, r
    for i, c in enumerate(r["arms"]):
        a = arms[i]
        if a["state"] != "measured" or not c["ran"]:
            continue
        assert c["proto"] and c["algo"], ("NCCL's choice read for every call", a["label"], r["size"], c)
        name, value = (a["label"].split("=") + [None])[:2]
        if name == "NCCL_PROTO" and not c["ignored"]:
            assert c["proto"].lower() == value.lower(), ("the protocol NCCL used", a["label"], r["size"], c)
        if name == "NCCL_ALGO" and not c["ignored"]:
            assert c["algo"].lower() == value.lower(), ("the algorithm NCCL used", a["label"], r["size"], c)
        if i and r["rounds"] >= 6:
            assert c["ratio_lo"] <= c["speed_ratio"] <= c["ratio_hi"], c
            assert c["verdict"] in ("faster", "slower", "no significant difference"), c
        if i:
            base = r["arms"][0]
            same = (c["algo"], c["proto"]) == (base["algo"], base["proto"])
            assert c["same_choice"] == same, ("same_choice: the baseline's algorithm and protocol", c, base)
            if same:
                assert c["verdict"] == "no significant difference" and r["winner"] != i, (a["label"], r)
print("checked %d rows x %d arms" % (len(rows), len(arms)))
PY
ok $? "every candidate confirmed by NCCL's log and by the protocol or algorithm it used; intervals hold"

expect_success "$n ranks: NCCL_ALGO=Tree for allgather" \
	tune --coll allgather --sweep 1K:64K:x8 --budget 0.3 --try NCCL_ALGO=Tree,Ring --format json \
	--output "$TEST_TMP/ag.json"
python3 - "$TEST_TMP/ag.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tree, ring = d["arms"][1], d["arms"][2]
assert tree["state"] == "error" and "failed" in tree["why"], tree
assert ring["state"] == "measured", ring
assert all(r["arms"][2]["algo"] == "RING" for r in d["rows"]), d["rows"]
PY
ok $? "Tree, which allgather lacks, is an error and loses; Ring is measured"
expect_grep "candidate 1 \(NCCL_ALGO=Tree\) loses" "$TEST_ERR" "... named on standard error"

# a candidate whose first call hangs on the last rank (a planted device
# stall): the watchdog aborts its communicator at --timeout, the run
# stops there with exit 4, and the report (written whole) says it hung
last=$((n - 1))
t0=$(date +%s)
NCCL_PROBE_TEST_TUNE="1/NCCL_PROBE_TEST_STALL=$last:device" \
	expect_code 4 "$n ranks: candidate 1 hangs on rank $last: exit 4" \
	tune --timeout 5 --sweep 1K:8K:x8 --budget 0.3 --try NCCL_PROTO=LL,Simple -J "$TEST_TMP/hang.json"
t1=$(date +%s)
python3 - "$TEST_TMP/hang.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hung = d["arms"][1]
assert d["hung"] == 1 and hung["state"] == "hung" and "did not finish within 5 s (--timeout)" in hung["why"], hung
assert d["recommended"] is None, d["recommended"]
PY
ok $? "the report is written, the candidate marked hung, nothing recommended"
expect_grep "candidate 1 \(NCCL_PROTO=LL\) loses: .* did not finish within 5 s" "$TEST_ERR" "... named on standard error"
expect_grep "the run stopped at candidate 1's hang" "$TEST_ERR" "... and why the run stopped"
[ $((t1 - t0)) -lt 60 ]
ok $? "... within the timeout and its grace ($((t1 - t0)) s)"
done_testing
