#!/bin/sh
# SPDX-License-Identifier: MIT
# GPU health from NVML, on a fake sysfs tree with the fake NVML
# (tests/fakenvml) answering for its GPUs: a healthy idle H100 and a driver
# that reports temperatures as T.Limit margins give no finding; each
# planted fault (thermal slowdown, power cap and lowered limit, lowered
# application clocks, hot GPU, persistence off, ECC off and errors, row
# remapping, PCIe replays, NVLinks down and erring, a GPU NVML cannot
# reach) gives its finding; unknown figures are null and give none.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"

LIB=$top_builddir/tests/fakenvml/libfakenvml.so
[ -f "$LIB" ] || skip_all "fake NVML not built ($LIB); run make check"
CFG=$TEST_TMP/nvml.conf
R=$TEST_TMP/root
node "$R"
pci "$R" pci0000:3a/0000:3a:01.0/0000:3b:00.0 0x10de 0x030200
link "$R" 0000:3b:00.0 32.0 16 32.0 16

# --wide: each finding on one line, for the greps below (t2002 tests the default layout)
# topo on the fake machine, sampled idle over 0.2 s (--window) unless
# the arguments give --under-load or DEFAULT_WINDOW is set
topo() {
	win="--window 0.2"
	case " $* " in *" --under-load "*) win= ;; esac
	[ -z "${DEFAULT_WINDOW:-}" ] || win=
	# shellcheck disable=SC2086 # $win: no option or one with its value
	NCCL_PROBE_FSROOT=$R NCCL_PROBE_NVML_LIB=$LIB NP_FAKE_NVML=$CFG np topo --quiet --wide $win "$@"
}

# A healthy idle H100 as NVML shows it; driver 580 style temperatures:
# 34 C, 53 C below T.Limit, slowdown at -2 C of T.Limit, and an absolute
# slowdown threshold that is no temperature (-2 read as unsigned).
healthy() {
	echo "count=${1:-1}"
	for i in $(seq 0 $((${1:-1} - 1))); do
		[ "$i" -eq 0 ] && b=0000:19:00.0 || b=0000:3b:00.0
		cat <<EOF
gpu$i.busid=$b
gpu$i.name=NVIDIA H100 80GB HBM3
gpu$i.sm=345
gpu$i.sm_max=1980
gpu$i.sm_app=1755
gpu$i.sm_app_default=1755
gpu$i.mem=2619
gpu$i.mem_max=2619
gpu$i.mem_app=2619
gpu$i.reasons=0x1
gpu$i.viol_power=0
gpu$i.viol_thermal=0
gpu$i.temp=34
gpu$i.margin=53
gpu$i.slowdown_tlimit=-2
gpu$i.slowdown=4294967294
gpu$i.power=70000
gpu$i.power_limit=700000
gpu$i.power_default=700000
gpu$i.persistence=1
gpu$i.ecc=1
gpu$i.ecc_uncorrected=0
gpu$i.remap_pending=0
gpu$i.remap_failed=0
gpu$i.pcie_replay=4
gpu$i.nvlinks=18
gpu$i.nvl_crc=7
gpu$i.nvl_replay=1
gpu$i.nvl_recovery=0
EOF
	done
}

no_health_finding() {
	! grep -q 'health-' "$TEST_OUT"
	ok $? "  $1"
	grep 'health-' "$TEST_OUT" | sed 's/^/#   /'
}

# plant KEY=VALUE lines on top of the healthy GPU(s) and expect a finding
plant() {
	want=$1 desc=$2 code=$3
	shift 3
	{ healthy "${NGPU:-1}"; printf '%s\n' "$@"; } >"$CFG"
	expect_code "$code" "$desc" topo
	expect_grep "$want" "$TEST_OUT" "  $want"
}

healthy >"$CFG"
expect_success "a healthy idle GPU" topo
no_health_finding "no health finding (idle clocks, margins read as margins, old counters)"
expect_grep '^Health \(sampled 0\.2 s, idle\)' "$TEST_OUT" "  a health section, sampled idle over --window"
expect_grep 'GPU0 +SM 345/1980 MHz \(app 1755\), mem 2619/2619 MHz, 34 C \(55 C to slowdown\), 70/700 W, reasons: idle' \
	"$TEST_OUT" "  GPU0's figures: 53 C margin minus a -2 C slowdown margin is 55 C of headroom"
DEFAULT_WINDOW=1
expect_success "as JSON (the default window)" topo --format json --output "$TEST_TMP/h.json"
DEFAULT_WINDOW=
if PY=$(command -v python3); then
	"$PY" - "$TEST_TMP/h.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
g = d["health"]["gpus"][0]
want = {"index": 0, "bus_id": "0000:19:00.0", "sm_mhz": 345, "sm_max_mhz": 1980, "sm_app_default_mhz": 1755,
        "temp_c": 34, "tlimit_margin_c": 53, "slowdown_tlimit_c": -2, "slowdown_c": None, "slowdown_headroom_c": 55,
        "power_mw": 70000, "power_limit_mw": 700000, "persistence": True, "ecc": True, "ecc_uncorrected_volatile": 0,
        "remap_pending": False, "pcie_replay": 4, "pcie_replay_grew": 0, "nvlinks_up": 18, "nvlinks_down": 0,
        "nvlink_crc": 7, "clock_event_reasons": 1, "retired_pages_pending": None,
        "below_app_clocks_ms": {"power": 0, "thermal": 0, "sync_boost": None, "board_limit": None}}
bad = ["%s: %r, want %r" % (k, g.get(k), v) for k, v in want.items() if g.get(k) != v]
bad += [] if d["health"]["window_s"] == 1 and d["health"]["nvml"] is True else ["window/nvml"]
bad += [f["id"] for f in d["findings"] if f["id"].startswith("health-")]
print("\n".join("# " + b for b in bad))
sys.exit(1 if bad else 0)
PY
	ok $? "  the JSON has the planted figures, null for the unreported one, no health finding"
	schema_ok topo "$TEST_TMP/h.json" "  the JSON with health figures holds to the topo schema"
fi

plant 'error +health-gpu-slowdown \[GPU0\]: GPU0: clocks held down, thermal slowdown active' \
	"thermal slowdown (HW thermal reason)" 1 gpu0.reasons=0x40 gpu0.sm=1200 gpu0.viol_thermal_step=250000000
expect_grep 'thermal violation \+(250|500|750) ms' "$TEST_OUT" "  the thermal violation counter's growth is evidence"
expect_code 1 "  as JSON" topo --format json --output "$TEST_TMP/v.json"
if [ -n "${PY:-}" ]; then
	"$PY" -c '
import json, sys
v = json.load(open(sys.argv[1]))["health"]["gpus"][0]["below_app_clocks_ms"]
print("# below_app_clocks_ms:", v)
sys.exit(0 if v["thermal"] in (250, 500, 750) and v["power"] == 0 else 1)' "$TEST_TMP/v.json"
	ok $? "  its growth in JSON is below_app_clocks_ms, in ms as the sweep has it"
	schema_ok topo "$TEST_TMP/v.json" "  that JSON holds to the topo schema"
fi
plant 'error +health-gpu-slowdown \[GPU0\]: .*HW slowdown active' "HW slowdown" 1 gpu0.reasons=0x8
plant 'warning +health-gpu-power-cap \[GPU0\]' "power cap while busy" 0 gpu0.reasons=0x4 gpu0.sm=1500
plant 'warning +health-gpu-power-limit \[GPU0\]: GPU0: power limit lowered to 500 W of its default 700 W' \
	"lowered power limit" 0 gpu0.power_limit=500000
plant 'warning +health-gpu-app-clocks \[GPU0\]: .*1200 MHz, below its default 1755' "lowered application clocks" 0 gpu0.sm_app=1200
plant 'warning +health-gpu-temp \[GPU0\]: GPU0: 3 C from thermal slowdown' "1 C below T.Limit, slowdown at -2 C" 0 \
	gpu0.margin=1 gpu0.temp=80
plant 'error +health-gpu-temp \[GPU0\]: GPU0: -1 C from' "past the slowdown margin" 1 gpu0.margin=-3
{ healthy | grep -v -e margin -e slowdown; echo gpu0.temp=85; echo gpu0.slowdown=87; } >"$CFG"
expect_success "no margin reported: the absolute slowdown threshold is used" topo
expect_grep 'warning +health-gpu-temp \[GPU0\]: GPU0: 2 C from thermal slowdown' "$TEST_OUT" "  85 C with slowdown at 87 C"
{ healthy | grep -v -e margin -e slowdown; echo gpu0.temp=85; } >"$CFG"
expect_success "no margin and no threshold" topo
no_health_finding "a temperature alone is no finding (headroom unknown)"
plant 'info +health-gpu-persistence-off \[GPU0\]' "persistence mode off" 0 gpu0.persistence=0
plant 'warning +health-gpu-ecc-off \[GPU0\]' "ECC disabled" 0 gpu0.ecc=0
plant 'info +health-gpu-ecc-pending \[GPU0\]' "ECC to be disabled at reset" 0 gpu0.ecc_pending=0
plant 'error +health-gpu-ecc-uncorrected \[GPU0\]: GPU0: 3 uncorrectable' "uncorrectable ECC errors" 1 gpu0.ecc_uncorrected=3
plant 'error +health-gpu-remap-pending \[GPU0\]' "row remapping pending" 1 gpu0.remap_pending=1
plant 'error +health-gpu-remap-failed \[GPU0\]' "row remapping failed" 1 gpu0.remap_failed=1
{ healthy | grep -v remap; echo gpu0.retired_pending=1; } >"$CFG"
expect_code 1 "a page retirement pending (before Ampere)" topo
expect_grep 'error +health-gpu-retired-pending \[GPU0\]' "$TEST_OUT" "  health-gpu-retired-pending"
plant 'warning +health-gpu-pcie-replay \[GPU0\]: GPU0: 5 PCIe replays during the run' "PCIe replays growing" 0 gpu0.pcie_replay_step=5
plant 'warning +health-nvlink-errors \[GPU0\]: GPU0: NVLink errors during the run' "NVLink errors growing" 0 \
	gpu0.nvl_crc_step=2 gpu0.nvl_recovery_step=1
expect_grep 'evidence: NVML NVLink counters over 0.2 s idle: CRC \+2, replay \+0, recovery \+1' "$TEST_OUT" "  by how much each grew"
NGPU=2 plant 'warning +health-nvlink-down \[GPU1\]: GPU1: 16 NVLinks active, 18 on other GPUs like it' \
	"two NVLinks down on GPU1" 0 gpu1.nvlinks_down=3,7
expect_grep 'down: 3,7' "$TEST_OUT" "  the links down are named"
! grep -q 'health-nvlink-down \[GPU0\]' "$TEST_OUT"
ok $? "  GPU0, with all its links, is not accused"

# unknown: NVML lists the GPU and answers nothing else
printf 'count=1\ngpu0.busid=0000:19:00.0\n' >"$CFG"
expect_success "NVML answers only the bus id" topo --format json --output "$TEST_TMP/u.json"
if [ -n "${PY:-}" ]; then
	"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1])); g = d["health"]["gpus"][0]
known = [k for k, v in g.items() if v is not None and k not in ("index", "bus_id", "below_app_clocks_ms")]
known += [k for k, v in g["below_app_clocks_ms"].items() if v is not None]
print("# known:", known)
sys.exit(1 if known or any(f["id"].startswith("health-") for f in d["findings"]) else 0)' "$TEST_TMP/u.json"
	ok $? "  every figure is null and nothing is concluded from them"
fi

# a GPU the driver lists (and whose device node exists) that NVML does not
mkdir -p "$R/proc/driver/nvidia/gpus/0000:19:00.0" "$R/proc/driver/nvidia/gpus/0000:3b:00.0" "$R/dev"
echo "Device Minor: 	 0" >"$R/proc/driver/nvidia/gpus/0000:19:00.0/information"
echo "Device Minor: 	 1" >"$R/proc/driver/nvidia/gpus/0000:3b:00.0/information"
: >"$R/dev/nvidia0"
: >"$R/dev/nvidia1"
healthy 1 >"$CFG"
expect_code 1 "the driver lists two GPUs, NVML one" topo
expect_grep 'error +health-gpu-unreachable \[0000:3b:00.0\]: the driver lists GPU 0000:3b:00.0 but NVML cannot reach it' \
	"$TEST_OUT" "  the unreachable GPU is named"
rm "$R/dev/nvidia1"
expect_success "without its device node (a container given one GPU)" topo
no_health_finding "a GPU of the host that this container was not given is not unreachable"
# a minor that is not one number is not known: the GPU is the driver's
# without a look at a device node, as when the line is absent
for m in "1x" "+1" "99999999999" ""; do
	echo "Device Minor: 	 $m" >"$R/proc/driver/nvidia/gpus/0000:3b:00.0/information"
	expect_code 1 "Device Minor '$m' is not a minor" topo
	expect_grep 'error +health-gpu-unreachable \[0000:3b:00.0\]' "$TEST_OUT" "  the GPU is the driver's, NVML cannot reach it"
done
echo "Model: 	 NVIDIA H100" >"$R/proc/driver/nvidia/gpus/0000:3b:00.0/information"
expect_code 1 "no Device Minor line: the same" topo
echo "Device Minor: 	 1 " >"$R/proc/driver/nvidia/gpus/0000:3b:00.0/information"
echo "GPU Excluded:	 No" >>"$R/proc/driver/nvidia/gpus/0000:3b:00.0/information"
expect_success "Device Minor 1 followed by a blank and a line: its device node is looked for" topo
no_health_finding "  still a GPU this container was not given"
healthy 2 >"$CFG"
: >"$R/dev/nvidia1"
expect_success "NVML reaches both" topo
no_health_finding "no unreachable GPU"

# without the driver's /proc list: NVIDIA GPUs bound to the nvidia driver,
# by the same class test as topo's GPU list; a GPU of class 0x0380 (other
# display controller) counts as one in both (health's own test took only
# 0x0300 and 0x0302)
mv "$R/proc/driver/nvidia" "$TEST_TMP/proc-nvidia"
pci "$R" pci0000:5d/0000:5d:01.0/0000:5e:00.0 0x10de 0x038000
mkdir -p "$R/sys/bus/pci/drivers/nvidia"
ln -s ../../../bus/pci/drivers/nvidia "$R/sys/devices/pci0000:5d/0000:5d:01.0/0000:5e:00.0/driver"
healthy 1 >"$CFG"
expect_code 1 "no /proc list; a class 0x0380 GPU on the nvidia driver that NVML does not list" topo --format json \
	--output "$TEST_TMP/c.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
gpus = [g["bus_id"] for g in d["gpus"]]
un = [f for f in d["findings"] if f["id"] == "health-gpu-unreachable"]
print("# gpus:", gpus, "unreachable:", [f.get("subject") for f in un])
sys.exit(0 if "0000:5e:00.0" in gpus and len(un) == 1 and "0000:5e:00.0" in json.dumps(un[0]) else 1)' "$TEST_TMP/c.json"
rc=$?
# what topo saw of the GPU, shown when the check fails
[ "$rc" -eq 0 ] || { ls -l "$R/sys/bus/pci/devices/" "$R/sys/devices/pci0000:5d/0000:5d:01.0/0000:5e:00.0/";
	head -c 300 "$R/sys/devices/pci0000:5d/0000:5d:01.0/0000:5e:00.0/class"; sed -n 1,20p "$TEST_ERR"; } | sed 's/^/# /'
ok "$rc" "  topo lists it as a GPU, and health names it unreachable"
rm "$R/sys/devices/pci0000:5d/0000:5d:01.0/0000:5e:00.0/driver" "$R/sys/bus/pci/devices/0000:5e:00.0"
mv "$TEST_TMP/proc-nvidia" "$R/proc/driver/nvidia"

NCCL_PROBE_NVML_LIB=$TEST_TMP/none.so expect_success "NCCL_PROBE_NVML_LIB names no library" \
	env NCCL_PROBE_FSROOT="$R" "$NP_BIN" topo
expect_grep "NCCL_PROBE_NVML_LIB='.*none.so' could not be loaded" "$TEST_ERR" "  a note says so"

expect_code 64 "--under-load 0" topo --under-load 0
expect_grep 'invalid --under-load' "$TEST_ERR" "  names the option"
expect_code 64 "--under-load abc" topo --under-load abc
expect_code 64 "--under-load 601" topo --under-load 601
expect_code 64 "--under-load with --check-gdr" topo --under-load 1 --check-gdr
expect_code 64 "--window 0.05" topo --window 0.05
expect_code 64 "--window with --under-load" topo --window 2 --under-load 1
expect_grep "give --window or --under-load, not both" "$TEST_ERR" "  the message says which to drop"
expect_code 64 "--window with --input" env NCCL_PROBE_FSROOT="$R" "$NP_BIN" topo --window 2 --input "$TEST_TMP/h.json"
done_testing
