#!/bin/sh
# SPDX-License-Identifier: MIT
# topo on this machine, whatever it has: no crash, the model as JSON, a
# snapshot that reproduces the findings offline, and fleet mode under MPI.
. "$(dirname "$0")/lib.sh"
# its failing runs under mpirun end on every rank by themselves
quick_abort
unset NCCL_PROBE_FSROOT

PY=$(command -v python3 || true)
expect_success "topo on this machine" np topo
expect_grep '^GPUs' "$TEST_OUT" "  a GPU section"
expect_grep '^NICs' "$TEST_OUT" "  a NIC section"
expect_grep '^Findings' "$TEST_OUT" "  findings"
expect_success "topo --format json" np topo --format json --quiet
cp "$TEST_OUT" "$TEST_TMP/live.json"
if [ -n "$PY" ]; then
	"$PY" - "$TEST_TMP/live.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["schema"] == "nccl-probe/topo" and d["schema_version"] == 2
ok = ok and isinstance(d["gpus"], list) and isinstance(d["nics"], list)
ok = ok and all(g["gdr_ok"] in (True, False, None) for g in d["gpus"])
ok = ok and d["source"]["kind"] == "live"
sys.exit(0 if ok else 1)
PY
	ok $? "  the JSON carries the schema, GPUs, NICs and booleans"
	ngpu=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["gpus"]))' "$TEST_TMP/live.json")
	nnic=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["nics"]))' "$TEST_TMP/live.json")
	if [ "$ngpu" -eq 0 ] || [ "$nnic" -eq 0 ]; then
		expect_code 1 "--check-gdr without a GPU or a NIC exits 1" np topo --check-gdr --quiet
		grep -Eq 'no NVIDIA GPU|no RDMA NIC' "$TEST_OUT"
		ok $? "  and says which is missing"
	fi
fi
# with NVIDIA GPUs: the same GPUs, PCIe links and names as nvidia-smi says
if [ -n "$PY" ] && have_gpu; then
	nvidia-smi --query-gpu=pci.bus_id,name,pcie.link.gen.max,pcie.link.width.max \
		--format=csv,noheader >"$TEST_TMP/smi.csv" 2>/dev/null
	"$PY" - "$TEST_TMP/live.json" "$TEST_TMP/smi.csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
smi = [[x.strip() for x in l.split(",")] for l in open(sys.argv[2]) if l.strip()]
gpus = {g["bus_id"].lower(): g for g in d["gpus"]}
bad = []
if len(gpus) != len(smi):
    bad.append("%d GPUs, nvidia-smi has %d" % (len(gpus), len(smi)))
for bus, name, gen, width in smi:
    bus = bus.lower()[-12:]  # nvidia-smi prints an 8-digit domain
    g = next((v for k, v in gpus.items() if k.endswith(bus)), None)
    if g is None:
        bad.append("GPU %s missing" % bus)
        continue
    if g["name"] != name:
        bad.append("%s: name %r, nvidia-smi %r" % (bus, g["name"], name))
    if g["pcie"]["gen_max"] != int(gen) or g["pcie"]["width_max"] != int(width):
        bad.append("%s: PCIe Gen%s x%s, nvidia-smi Gen%s x%s" % (bus, g["pcie"]["gen_max"], g["pcie"]["width_max"], gen, width))
print("\n".join("# " + b for b in bad))
sys.exit(1 if bad else 0)
PY
	ok $? "  the GPUs, names and PCIe links agree with nvidia-smi"
	if [ "$nnic" -eq 0 ]; then
		grep -q 'gdr-no-nic' "$TEST_TMP/live.json"
		ok $? "  no RDMA NIC is reported"
	fi
	"$PY" -c 'import json,sys; h=json.load(open(sys.argv[1]))["host"]; sys.exit(0 if h["peermem"] in (True, False) else 1)' "$TEST_TMP/live.json"
	ok $? "  peer memory is known (present or absent)"
fi
expect_success "--export a snapshot" np topo --quiet --export "$TEST_TMP/snap.xml" --format json --output "$TEST_TMP/live.json"
expect_success "--input the snapshot" np topo --quiet --input "$TEST_TMP/snap.xml" --format json --output "$TEST_TMP/snap.json"
if [ -n "$PY" ]; then
	"$PY" - "$TEST_TMP/live.json" "$TEST_TMP/snap.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# evidence names its source ("the snapshot records ..."): compare the rest;
# health findings (health-*) are live figures that a snapshot does not keep
key = lambda d: [(f["id"], f["severity"], f["subject"], f["remedy"] if f["id"] != "gdr-unknown" else "") for f in d["findings"] if not f["id"].startswith("health-")]
same = key(a) == key(b) and a["recommendations"] == b["recommendations"] and a["paths"] == b["paths"]
same = same and [g["bus_id"] for g in a["gpus"]] == [g["bus_id"] for g in b["gpus"]]
sys.exit(0 if same and b["source"]["kind"] == "snapshot" else 1)
PY
	ok $? "  the snapshot gives the live run's findings"
fi
if command -v lstopo-no-graphics >/dev/null 2>&1; then
	expect_success "lstopo reads the snapshot" lstopo-no-graphics -i "$TEST_TMP/snap.xml" --of console
fi
expect_code 64 "exporting a snapshot again" np topo --input "$TEST_TMP/snap.xml" --export "$TEST_TMP/again.xml"

if have_mpirun; then
	expect_success "fleet mode on 2 ranks" np_mpi 2 topo --quiet
	expect_grep '^Fleet: 1 node, 1 like ' "$TEST_OUT" "  one node, reported once"
	[ "$(grep -c '^Findings' "$TEST_OUT")" -eq 1 ]
	ok $? "  rank 0 alone prints"
	expect_success "fleet mode as JSON" np_mpi 3 topo --quiet --format json
	if [ -n "$PY" ]; then
		"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["fleet"]["nodes"]==1 and not d["fleet"]["summaries"][0]["differs"] else 1)' "$TEST_OUT"
		ok $? "  the JSON has the fleet"
	fi
	expect_code 64 "a bad --input under MPI" np_mpi 2 topo --input "$TEST_TMP/none.xml"
fi

done_testing
