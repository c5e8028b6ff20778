#!/bin/sh
# SPDX-License-Identifier: MIT
# GPU health on a real GPU machine, cross-checked with nvidia-smi: maximum
# clocks, power limits, persistence, ECC, temperature and the T.Limit
# margins (driver 5xx reports thresholds relative to T.Limit: "Slowdown
# T.Limit Temp -2 C" must not read as a threshold 2 degrees below zero);
# every health finding on the node must agree with nvidia-smi, and a
# healthy GPU has none of the alarming ones; --under-load raises the clocks
# (a busy kernel through the CUDA driver) and they agree with nvidia-smi's
# taken during the load; two virtual nodes on this host are no outliers.
# Skips without a GPU.
. "$(dirname "$0")/lib.sh"

have_gpu || skip_all "no NVIDIA GPU (nvidia-smi -L lists none)"
PY=$(command -v python3) || skip_all "python3 not found"
unset NCCL_PROBE_FSROOT NCCL_PROBE_NVML_LIB

expect_success "topo on this GPU machine (1 s idle window)" np topo --quiet --format json --output "$TEST_TMP/idle.json"
np topo --quiet >"$TEST_TMP/idle.txt" 2>&1
sed -n '/^Health/,/^$/p' "$TEST_TMP/idle.txt" | sed 's/^/# /'
grep -A2 'health-' "$TEST_TMP/idle.txt" | sed 's/^/# /'

# nvidia-smi's view, one query per field (a field an older nvidia-smi does
# not know fails alone), and the T.Limit lines of -q
{
	echo "bus_id,$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | tr '\n' ',')"
	for f in clocks.max.sm clocks.max.memory power.limit enforced.power.limit power.default_limit \
		persistence_mode ecc.mode.current ecc.errors.uncorrected.volatile.total temperature.gpu \
		clocks.sm clocks.applications.graphics clocks.default_applications.graphics; do
		v=$(nvidia-smi --query-gpu="$f" --format=csv,noheader,nounits 2>/dev/null) || v=
		echo "$f,$(echo "$v" | tr '\n' ',')"
	done
} >"$TEST_TMP/smi.csv"
nvidia-smi -q -d TEMPERATURE >"$TEST_TMP/smi-temp.txt" 2>&1
nvidia-smi -q -d PERFORMANCE >"$TEST_TMP/smi-perf.txt" 2>&1
sed 's/^/# nvidia-smi: /' "$TEST_TMP/smi.csv"
grep -i 'T.Limit\|Slowdown\|Current Temp' "$TEST_TMP/smi-temp.txt" | sed 's/^/# nvidia-smi -q:/'

"$PY" - "$TEST_TMP/idle.json" "$TEST_TMP/smi.csv" "$TEST_TMP/smi-temp.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
smi = {}
for line in open(sys.argv[2]):
    k, _, rest = line.rstrip("\n").partition(",")
    smi[k] = [x.strip() for x in rest.split(",") if x.strip() != ""]
def norm(b):  # nvidia-smi: 00000000:19:00.0
    dom, rest = b.lower().split(":", 1)
    return "%04x:%s" % (int(dom, 16), rest)
order = [norm(b) for b in smi["bus_id"]]
def num(s):
    try:
        return float(s)
    except ValueError:
        return None  # [N/A], [Not Supported]
# per-GPU blocks of nvidia-smi -q -d TEMPERATURE
temps, cur = {}, None
for line in open(sys.argv[3]):
    m = re.match(r"^GPU ([0-9A-Fa-f:.]+)", line)
    if m:
        cur = norm(m.group(1)); temps[cur] = {}
        continue
    m = re.match(r"^\s+(.*?)\s+:\s+(-?\d+) C", line)
    if m and cur:
        temps[cur][m.group(1)] = int(m.group(2))
h = d["health"]
bad = []
if not h["nvml"]:
    bad.append("health.nvml is false on a GPU machine")
hg = {g["bus_id"]: g for g in h["gpus"]}
if sorted(hg) != sorted(order):
    bad.append("NVML health GPUs %s, nvidia-smi %s" % (sorted(hg), sorted(order)))
for i, b in enumerate(order):
    g = hg.get(b)
    if not g:
        continue
    def val(f):
        v = smi.get(f, [])
        return v[i] if i < len(v) else ""
    for key, f, scale, tol in (("sm_max_mhz", "clocks.max.sm", 1, 0), ("mem_max_mhz", "clocks.max.memory", 1, 0),
                               ("power_limit_mw", "enforced.power.limit", 1000, 1000),
                               ("power_default_limit_mw", "power.default_limit", 1000, 1000),
                               ("temp_c", "temperature.gpu", 1, 5)):
        s = num(val(f))
        if s is None:
            if g[key] is not None and val(f) != "":
                bad.append("%s %s: %s, nvidia-smi has none (%s)" % (b, key, g[key], val(f)))
            continue
        if g[key] is None or abs(g[key] - s * scale) > tol:
            bad.append("%s %s: %s, nvidia-smi %s=%s" % (b, key, g[key], f, val(f)))
    for key, f in (("persistence", "persistence_mode"), ("ecc", "ecc.mode.current")):
        s = val(f)
        want = True if s == "Enabled" else False if s == "Disabled" else None
        if s and g[key] != want:
            bad.append("%s %s: %s, nvidia-smi %s=%s" % (b, key, g[key], f, s))
    s = num(val("ecc.errors.uncorrected.volatile.total"))
    if s is not None and g["ecc_uncorrected_volatile"] is not None and g["ecc_uncorrected_volatile"] != s:
        bad.append("%s uncorrected ECC %s, nvidia-smi %s" % (b, g["ecc_uncorrected_volatile"], s))
    t = temps.get(b, {})
    tl = next((v for k, v in t.items() if k.endswith("T.Limit Temp") and "Slowdown" not in k and "Shutdown" not in k
               and "Max" not in k), None)
    sl = next((v for k, v in t.items() if "Slowdown T.Limit" in k), None)
    print("# %s: temp %s C, T.Limit margin %s (nvidia-smi %s), slowdown T.Limit %s (nvidia-smi %s), headroom %s (%s)"
          % (b, g["temp_c"], g["tlimit_margin_c"], tl, g["slowdown_tlimit_c"], sl, g["slowdown_headroom_c"],
             "margins" if g["tlimit_margin_c"] is not None else "absolute"))
    if tl is not None and (g["tlimit_margin_c"] is None or abs(g["tlimit_margin_c"] - tl) > 5):
        bad.append("%s T.Limit margin %s, nvidia-smi %s" % (b, g["tlimit_margin_c"], tl))
    if sl is not None and g["slowdown_tlimit_c"] != sl:
        bad.append("%s slowdown T.Limit %s, nvidia-smi %s" % (b, g["slowdown_tlimit_c"], sl))
    if g["slowdown_headroom_c"] is not None and g["temp_c"] is not None and g["temp_c"] < 70 and g["slowdown_headroom_c"] < 5:
        bad.append("%s: %s C reads as %s C from slowdown: a margin read as a threshold?" % (b, g["temp_c"], g["slowdown_headroom_c"]))
print("\n".join("# " + x for x in bad))
sys.exit(1 if bad else 0)
PY
ok $? "  NVML's health figures agree with nvidia-smi (clocks, power, persistence, ECC, temperature, T.Limit margins)"

# Every health finding must be one that nvidia-smi confirms; on a healthy
# idle GPU the alarming ones must not appear.
"$PY" - "$TEST_TMP/idle.json" "$TEST_TMP/smi.csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
smi = {}
for line in open(sys.argv[2]):
    k, _, rest = line.rstrip("\n").partition(",")
    smi[k] = [x.strip() for x in rest.split(",") if x.strip() != ""]
hg = {("GPU%d" % g["index"]) if g["index"] is not None else g["bus_id"]: g for g in d["health"]["gpus"]}
bad = []
for f in d["findings"]:
    i = f["id"]
    if not i.startswith("health-"):
        continue
    g = hg.get(f["subject"])
    print("# finding %s [%s] %s: %s | %s" % (f["severity"], f["subject"], i, f["message"], f["evidence"]))
    if i == "health-gpu-persistence-off" and g and g["persistence"] is False:
        continue  # nvidia-smi's persistence_mode was compared above
    if i in ("health-gpu-ecc-off", "health-gpu-ecc-pending") and g:
        continue  # the ECC mode was compared above
    if i == "health-gpu-ecc-uncorrected" and g and (g["ecc_uncorrected_volatile"] or 0) > 0:
        continue
    if i == "health-gpu-power-limit" and g and g["power_limit_mw"] < 0.95 * g["power_default_limit_mw"]:
        continue
    if i in ("health-memlock", "health-shm-small", "health-cpuset-numa", "health-mems-numa",
             "health-iommu-dma", "health-container"):
        continue  # facts of this host or container, not of the GPU; shown for the record
    bad.append("%s [%s] on a GPU nvidia-smi calls healthy: %s" % (i, f["subject"], f["evidence"]))
print("\n".join("# " + x for x in bad))
sys.exit(1 if bad else 0)
PY
ok $? "  no false GPU finding: every health finding agrees with nvidia-smi"

# under load: clocks rise and agree with nvidia-smi's, read mid-load
np topo --quiet --under-load 6 --format json --output "$TEST_TMP/load.json" >"$TEST_TMP/load.out" 2>&1 &
pid=$!
sleep 3
nvidia-smi --query-gpu=pci.bus_id,clocks.sm,utilization.gpu --format=csv,noheader,nounits >"$TEST_TMP/smi-load.csv" 2>&1
wait "$pid"
ok $? "topo --under-load 6"
sed 's/^/# nvidia-smi mid-load: /' "$TEST_TMP/smi-load.csv"
"$PY" - "$TEST_TMP/load.json" "$TEST_TMP/smi-load.csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = d["health"]
bad = [] if h["under_load"] else ["health.under_load is false: the load did not start (%s)" % d["notes"]]
smi = {}
for line in open(sys.argv[2]):
    p = [x.strip() for x in line.split(",")]
    if len(p) == 3:
        dom, rest = p[0].lower().split(":", 1)
        smi["%04x:%s" % (int(dom, 16), rest)] = (float(p[1]), float(p[2]))
for g in h["gpus"]:
    s = smi.get(g["bus_id"])
    print("# %s under load: SM %s MHz (app %s, max %s), reasons 0x%x, nvidia-smi SM %s MHz at %s%% utilization"
          % (g["bus_id"], g["sm_mhz"], g["sm_app_mhz"], g["sm_max_mhz"], g["clock_event_reasons"] or 0,
             s and s[0], s and s[1]))
    if s and s[1] < 50:
        bad.append("%s: nvidia-smi shows %s%% utilization during the load" % (g["bus_id"], s[1]))
    if s and g["sm_mhz"] is not None and abs(g["sm_mhz"] - s[0]) > 0.15 * s[0]:
        bad.append("%s: SM %s MHz under load, nvidia-smi %s MHz" % (g["bus_id"], g["sm_mhz"], s[0]))
    if g["clock_event_reasons"] is not None and g["clock_event_reasons"] & 0x1 and s and s[1] > 90:
        print("# note: the idle reason was seen in some sample (the window's first, before the kernel ran)")
bad += ["%s [%s]: %s" % (f["id"], f["subject"], f["evidence"]) for f in d["findings"]
        if f["id"] in ("health-gpu-clock-low", "health-gpu-slowdown", "health-gpu-temp")]
print("\n".join("# " + x for x in bad))
sys.exit(1 if bad else 0)
PY
ok $? "  under load: the load ran, clocks agree with nvidia-smi's, no clock or thermal finding on a healthy GPU"

if have_mpirun; then
	expect_success "two virtual nodes on this host" np_mpi 2 topo --quiet --ranks-per-node 1
	! grep -q 'health-fleet-outlier' "$TEST_OUT"
	ok $? "  the same GPUs are no outliers of each other"
fi
done_testing
