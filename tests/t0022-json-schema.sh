#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/nccl-probe-sweep.schema.json (JSON Schema 2020-12) holds the JSON
# of real runs: 1 to 4 ranks, every collective, --check, skipped sizes,
# wrong data, failing --min-busbw and --min-eff, known limits on a fake
# node, auto sampling and an interrupted run; and it refuses documents with
# a member missing, of the wrong type or unknown, so it is not a schema
# that takes anything. The schemas of topo, isolate, compare and tune hold
# their commands' real documents, and every document opens with the same
# envelope (schema, schema_version, tool, run_id, start_time, cmdline).
# contrib/nccl-probe-validate.schema.json holds nccl-probe-validate's
# --json verdicts (all good, a slow node named, could not run) and
# refuses one with an unknown member or an ok node with a drain line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort
command -v python3 >/dev/null || skip_all "python3 not found"
python3 -c 'import jsonschema; jsonschema.Draft202012Validator' 2>/dev/null ||
	skip_all "python3-jsonschema not installed"

schema=$srcdir/contrib/nccl-probe-sweep.schema.json
J=$TEST_TMP/runs
mkdir "$J"

# validate FILE...: each against the schema; one diagnostic line per error
validate() {
	validate_with "$schema" "$@"
}
validate_with() {
	python3 - "$@" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
bad = 0
for path in sys.argv[2:]:
    for e in v.iter_errors(json.load(open(path))):
        print("# %s: %s: %s" % (path.rsplit("/", 1)[-1], e.json_path, e.message[:200]))
        bad += 1
sys.exit(1 if bad else 0)
PY
}

python3 - "$schema" <<'PY'
import json, sys
import jsonschema
jsonschema.Draft202012Validator.check_schema(json.load(open(sys.argv[1])))
PY
ok $? "the schema is a valid JSON Schema 2020-12"

run() { # NAME WANT-EXIT ARGS... (np_host with JSON to $J/NAME.json)
	name=$1 want=$2
	shift 2
	expect_code "$want" "$name: exit $want" "$@" --format json --output "$J/$name.json"
}
run one 0 np_host 1 --sweep 1K:16K --coll all --iters 1 --samples 2 --check
run two-busbw 1 np_host 2 --sweep 1K:64K --coll all --iters 1 --samples 2 --check --min-busbw 100000
run three-inplace 0 np_host 3 --sweep 8:4K --coll all --inplace --iters 1 --samples 1 --root 2 --dtype int32
NCCL_PROBE_TEST_CORRUPT=1 run three-wrong 2 np_host 3 --sweep 1K:4K --coll allreduce,alltoall --iters 1 --samples 1 \
	--check --min-eff 50
unset NCCL_PROBE_TEST_CORRUPT # a function's prefix may outlive it (bash as sh)
run four-auto 0 np_host 4 --sweep 1K:8K:x2 --coll allreduce,alltoall,sendrecv --budget 0.05 --ranks-per-node 2
run two-not-judged 1 np_host 2 --sweep 1K:1025 --coll broadcast --iters 1 --samples 1 --judge-from 1025 --min-busbw 1 \
	--op max --dtype bfloat16
node "$TEST_TMP/root"
NCCL_PROBE_FSROOT=$TEST_TMP/root run four-limits 1 np_mpi 4 --backend mpi --ranks-per-node 1 --sweep 64K:128K \
	--coll alltoall,allreduce --iters 1 --samples 2 --min-eff alltoall=100
unset NCCL_PROBE_FSROOT

# an interrupted run: SIGINT to one process once two rows are done
NCCL_PROBE_PROGRESS=0 "$NP_BIN" --backend mpi --sweep 8:256M:x2 --budget 1 --format json \
	--output "$J/interrupted.json" >"$TEST_OUT" 2>"$TEST_ERR" &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q '^progress: row 3/' "$TEST_ERR" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ]
ok $? "interrupted: exit 130 (got $rc)"

# what the runs cover, so that the schema is held to each case
python3 - "$J" <<'PY'
import json, os, sys
d = sys.argv[1]
r = {n[:-5]: json.load(open(os.path.join(d, n))) for n in os.listdir(d)}
details = {x["code"] for v in r.values() for x in v["verdict"]["details"]}
colls = {x["coll"] for x in r["two-busbw"]["results"]}
print("# runs", sorted(r), "detail codes", sorted(details))
sys.exit(0 if len(r) == 8 and len(colls) == 9 and r["interrupted"]["interrupted"] is True
         and r["three-inplace"]["skipped"] and r["four-limits"]["limits"]["node_gbps"] == 100
         and details == {"data_errors", "min_busbw", "min_eff", "eff_unknown", "not_judged", "interrupted"}
         else 1)
PY
ok $? "the runs cover every collective, skips, known limits and every verdict detail code"

# the NCCL backend's ranks, as a GPU run writes them (none here): one with
# NVML's figures, one whose NVML did not answer
python3 - "$J/two-busbw.json" "$TEST_TMP/gpu.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["backend"].update(name="nccl", library="NCCL 2.28.3", runtime="CUDA driver 13.0, runtime 13.0",
                    transport="IB ([0]mlx5_0:1/IB)")
for r in d["ranks"]:
    r.update(device=r["local_rank"], bus_id="0000:1b:00.0", device_name="NVIDIA H200")
d["ranks"][0]["gpu_clocks"] = {"sm_mhz": 1980, "sm_max_mhz": 1980, "sm_app_default_mhz": 1980, "temp_c": 41,
                               "clock_event_reasons": 0,
                               "below_app_clocks_ms": {"power": 0, "thermal": 2100, "sync_boost": None,
                                                       "board_limit": 0}}
d["limits"].update(gpu_gbps=450, gpu_evidence="18 NVLinks x 25 GB/s", proto_gbps=360)
json.dump(d, open(sys.argv[2], "w"))
PY
validate "$TEST_TMP/gpu.json"
ok $? "an NCCL backend's report (GPU ranks, clocks, runtime) holds to the schema"

# GPU clocks have one key set and one unit: every key of the sweep's
# ranks[].gpu_clocks is a key of topo's health.gpus[], its object's keys too
python3 - "$srcdir/contrib/nccl-probe-sweep.schema.json" "$srcdir/contrib/nccl-probe-topo.schema.json" <<'PY'
import json, sys
clk = json.load(open(sys.argv[1]))["$defs"]["rank"]["properties"]["gpu_clocks"]["properties"]
gpu = json.load(open(sys.argv[2]))["properties"]["health"]["properties"]["gpus"]["items"]["properties"]
bad = [k for k in clk if k not in gpu]
bad += ["%s.%s" % (k, s) for k, v in clk.items() if "properties" in v
        for s in set(v["properties"]) ^ set(gpu.get(k, {}).get("properties", {}))]
print("# not alike:", bad) if bad else None
sys.exit(1 if bad else 0)
PY
ok $? "the sweep's GPU clocks and topo's health name each figure alike"

for f in "$J"/*.json; do
	validate "$f"
	ok $? "$(basename "$f" .json): the report holds to the schema"
done

# broken documents: each must fail
python3 - "$J/two-busbw.json" "$TEST_TMP" <<'PY'
import copy, json, sys
doc = json.load(open(sys.argv[1]))
def broken(name, change):
    d = copy.deepcopy(doc)
    change(d)
    json.dump(d, open("%s/broken-%s.json" % (sys.argv[2], name), "w"))
broken("no-run_id", lambda d: d.pop("run_id"))
broken("time-string", lambda d: d["results"][0].update(time="fast"))
broken("samples-missing", lambda d: d["results"][0].pop("samples"))
broken("sample_times-null", lambda d: d["results"][0].update(sample_times=None))
broken("unknown-member", lambda d: d.update(extra=1))
broken("detail-code", lambda d: d["verdict"]["details"][0].update(code="slow"))
broken("ranks-string", lambda d: d["world"].update(ranks="2"))
broken("run_id-short", lambda d: d.update(run_id="abc"))
broken("cmdline-string", lambda d: d.update(cmdline=" ".join(d["cmdline"])))
broken("csv-column-in-json", lambda d: d["results"][0].update(run_id=d["run_id"]))
broken("gpu_clocks-missing", lambda d: d["ranks"][0].pop("gpu_clocks"))
broken("gpu_clocks-string", lambda d: d["ranks"][0].update(gpu_clocks="1980 MHz"))
PY
for f in "$TEST_TMP"/broken-*.json; do
	n=$(basename "$f" .json)
	validate "$f" >"$TEST_TMP/why" 2>&1
	rc=$?
	[ "$rc" -eq 1 ] && grep -q '^# ' "$TEST_TMP/why"
	ok $? "${n#broken-}: the schema refuses it ($(head -n 1 "$TEST_TMP/why" | cut -c 3-120))"
done
# the other documents, each against its own schema
for n in topo isolate compare tune; do
	python3 - "$srcdir/contrib/nccl-probe-$n.schema.json" <<'PY'
import json, sys
import jsonschema
jsonschema.Draft202012Validator.check_schema(json.load(open(sys.argv[1])))
PY
	ok $? "nccl-probe-$n.schema.json is a valid JSON Schema 2020-12"
done
T=${NP_FIXTURES:-}
case $T in /*) ;; *) T=$srcdir/$T ;; esac
doc() { # SCHEMA NAME "WANT-EXIT..." COMMAND... (the JSON on standard output to $J/NAME.json)
	schema_name=$1 name=$2 want=$3
	shift 3
	"$@" >"$J/$name.json" 2>"$TEST_ERR"
	rc=$?
	case " $want " in *" $rc "*) true ;; *) false ;; esac
	ok $? "$name: exit $want (got $rc)"
	validate_with "$srcdir/contrib/nccl-probe-$schema_name.schema.json" "$J/$name.json"
	ok $? "$name: the $schema_name schema holds it"
}
for f in "$T"/topology/hwloc/aws-p4d.xml "$T"/topology/nccl/*.xml; do
	[ -f "$f" ] || continue
	doc topo "topo-$(basename "$f" .xml)" 0 np topo --input "$f" --format json
done
# live: this machine's topology with its health object, and under mpirun
# with the fleet's summaries
doc topo topo-live 0 np topo --format json
doc topo topo-live-fleet 0 np_mpi 2 topo --format json
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if "health" in d and "fleet" in d else 1)' "$J/topo-live-fleet.json"
ok $? "  the live documents carry health and fleet, which the schema describes"
# a multi-node NVLink dump (its trays), PXN and C2C paths: exit 1 is their
# gdr="0" GPUs' error finding
for f in nccl-mnnvl nccl-pxn nccl-grace-c2c; do
	doc topo "topo-$f" "0 1" np topo --input "$srcdir/tests/topo/edge/$f.xml" --format json
done
# a verdict (1) or inconclusive (6) on a busy host is an answer too: the
# document is what is held
doc isolate isolate-4 "0 1 6" np_mpi 4 isolate --backend mpi --ranks-per-node 1 --budget 0.05 --format json
doc compare compare-same 0 np compare "$J/one.json" "$J/one.json" --format json
doc compare compare-auto 0 np compare "$J/four-auto.json" "$J/four-auto.json" --format json
doc tune tune-mpi 64 np_mpi 2 tune --backend mpi --try OMPI_MCA_coll_tuned_use_dynamic_rules=0,1 --sweep 1K:4K \
	--budget 0.05 --format json

# nccl-probe-validate's --json verdict: virtual nodes all good (0, or 1
# when this busy host is judged slow, or 6 when its noise leaves the
# figures inconclusive), a slow node named (1), a launcher
# that refuses an argument (3); the same envelope, with the script's name
# and the nccl-probe version and backend isolate reported (null when it
# could not run)
VS=$srcdir/contrib/nccl-probe-validate.schema.json
python3 - "$VS" <<'PY'
import json, sys
import jsonschema
jsonschema.Draft202012Validator.check_schema(json.load(open(sys.argv[1])))
PY
ok $? "nccl-probe-validate.schema.json is a valid JSON Schema 2020-12"
VJ=$TEST_TMP/validate
mkdir "$VJ"
vdoc() { # NAME "WANT-EXIT..." ARGS... (validate --json to $VJ/NAME.json)
	name=$1 want=$2
	shift 2
	"$srcdir/contrib/nccl-probe-validate" --nccl-probe "$NP_BIN" --backend mpi --json "$VJ/$name.json" "$@" \
		>"$TEST_OUT" 2>"$TEST_ERR"
	rc=$?
	case " $want " in *" $rc "*) true ;; *) false ;; esac
	ok $? "validate $name: exit $want (got $rc)"
	validate_with "$VS" "$VJ/$name.json"
	ok $? "validate $name: the validate schema holds it"
}
# healthy nodes: any verdict will do (0.2 s of samples per figure)
vdoc good "0 1 6" --virtual 4 --ppn 1 -- --size 16K --budget 0.2 --min-effect 50
# a slow node named (exit 1) judges timing: apart from the other tests that do
timing_alone
NCCL_PROBE_TEST_SLOW=2:1000% vdoc slow 1 --virtual 4 --ppn 2 -- --size 16K --budget 0.6 --min-effect 50
unset NCCL_PROBE_TEST_SLOW
timing_done
grep -q '"drain": "scontrol update NodeName=vnode1 ' "$VJ/slow.json"
ok $? "  with its drain line"
vdoc cannot-run 3 --virtual 2 --launcher mpirun --launcher-args --no-such-mpirun-option
python3 - "$VJ/slow.json" "$VJ" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
def broken(name, f):
    x = copy.deepcopy(d)
    f(x)
    json.dump(x, open("%s/broken-%s.json" % (sys.argv[2], name), "w"))
broken("unknown-member", lambda x: x.update(extra=1))
broken("ok-node-drain", lambda x: x["nodes"][0].update(state="ok", evidence=None, drain="scontrol update NodeName=vnode0 State=DRAIN Reason=x"))
broken("exit-code-2", lambda x: x.update(exit_code=2))
broken("inconclusive-no-reason", lambda x: x.update(exit_code=6, inconclusive=None))
broken("node-missing-state", lambda x: x["nodes"][0].pop("state"))
PY
for f in "$VJ"/broken-*.json; do
	n=$(basename "$f" .json)
	validate_with "$VS" "$f" >"$TEST_TMP/why" 2>&1
	rc=$?
	[ "$rc" -eq 1 ] && grep -q '^# ' "$TEST_TMP/why"
	ok $? "validate ${n#broken-}: the schema refuses it ($(head -n 1 "$TEST_TMP/why" | cut -c 3-120))"
done

# one envelope: the same members, first, in every document
python3 - "$J" <<'PY'
import json, os, sys
d = sys.argv[1]
env = ["schema", "schema_version", "tool", "run_id", "start_time", "cmdline"]
bad = 0
for f in sorted(os.listdir(d)):
    if not f.endswith(".json"):
        continue
    doc = json.load(open(os.path.join(d, f)))
    if list(doc)[:6] != env or doc["tool"]["name"] != "nccl-probe":
        print("# %s: %s" % (f, list(doc)[:6]))
        bad += 1
sys.exit(1 if bad else 0)
PY
ok $? "every document opens with the one envelope"
python3 - "$VJ" <<'PY'
import json, sys
env = ["schema", "schema_version", "tool", "run_id", "start_time", "cmdline", "backend"]
bad = 0
for n, version in (("good", True), ("slow", True), ("cannot-run", False)):
    doc = json.load(open("%s/%s.json" % (sys.argv[1], n)))
    t = doc["tool"]
    ok = (list(doc)[:7] == env and t["name"] == "nccl-probe-validate" and doc["cmdline"][0].endswith("nccl-probe-validate")
          and (isinstance(t["version"], str) and doc["backend"] == "mpi" if version else t["version"] is None and doc["backend"] is None))
    if not ok:
        print("# %s: %s %s %s" % (n, list(doc)[:7], t, doc["backend"]))
        bad += 1
sys.exit(1 if bad else 0)
PY
ok $? "validate's documents open with it too: nccl-probe's version and backend from isolate, null when it could not run"
done_testing
