#!/bin/sh
# SPDX-License-Identifier: MIT
# --metrics FILE (sweep, topo, isolate) and nccl-probe-validate --metrics
# DIR: every file parses with prometheus_client's parser, every family has
# HELP and TYPE and a nccl_probe_ name, and the values are the same run's
# JSON report (busbw per row, the verdict, topo's findings and GDR answers
# on the fixtures and on fake nodes, health figures from the fake NVML,
# isolate's and validate's node states). Files are replaced whole (the old
# inode untouched, no temporary left, never a partial file seen) and links,
# directories and FIFOs are refused. The Grafana dashboard's queries use
# only metrics and labels these files have; the man page names them all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fakesys.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort
# the distribution's prometheus_client when the python3 on PATH lacks it
PY=
for p in python3 /usr/bin/python3; do
	command -v "$p" >/dev/null 2>&1 && "$p" -c 'import prometheus_client.parser' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || skip_all "prometheus_client not installed (Debian/Ubuntu: apt-get install python3-prometheus-client)"
CHECK="$srcdir/tests/metrics_check.py"
T=$TEST_TMP
check() { "$PY" "$CHECK" "$@"; }
now() { date +%s; }
ALL=

# ---- sweep -----------------------------------------------------------------
t0=$(now)
expect_success "sweep --metrics beside --format json" np_host 2 --sweep 1K:64K --iters 2 --samples 2 \
	--min-busbw 0.000001 --format json --output "$T/s.json" --metrics "$T/s.prom"
t1=$(now)
expect_success "  the file parses: nccl_probe_ names, HELP and TYPE, snake_case labels, base units" check lint "$T/s.prom"
expect_success "  busbw, algbw, time, eff, limit, wrong per row, the verdict and run info are the JSON's" \
	check sweep "$T/s.prom" "$T/s.json" "$t0" "$t1"
grep -q '^nccl_probe_busbw_bytes_per_second{coll="allreduce",size_bytes="65536",dtype="float"} [0-9]' "$T/s.prom"
ok $? "  busbw of allreduce at 64 KiB in bytes per second, labelled coll, size_bytes, dtype"
ALL="$ALL $T/s.prom"

# a known limit: virtual nodes over a fake node with two NDR ports (as
# t0007): alltoall's limit is 100 GB/s, allreduce's unknown on host memory.
# eff is a ratio in (0, 1): on a loaded machine it may be below 1e-4, which
# the file writes with an exponent (1.2e-05)
node "$T/lroot"
t0=$(now)
NCCL_PROBE_FSROOT=$T/lroot expect_success "sweep on virtual nodes of a fake node: a limit known for alltoall" \
	np_mpi 4 --backend mpi --ranks-per-node 1 --sweep 64K:256K --iters 2 --samples 2 --format json \
	--output "$T/l.json" --metrics "$T/l.prom"
expect_success "  eff and limit where the JSON has them, absent where it has null" check sweep "$T/l.prom" "$T/l.json" "$t0" "$(now)"
grep -q '^nccl_probe_limit_bytes_per_second{coll="alltoall",size_bytes="65536",dtype="float"} 100000000000$' "$T/l.prom" &&
	awk '$1 == "nccl_probe_eff_ratio{coll=\"alltoall\",size_bytes=\"65536\",dtype=\"float\"}" { n++; if (!($2 + 0 > 0 && $2 + 0 < 1)) bad = 1 }
		END { exit !(n == 1 && !bad) }' "$T/l.prom" &&
	! grep -q '^nccl_probe_eff_ratio{coll="allreduce"' "$T/l.prom" && grep -q '^nccl_probe_sweep_nodes 4$' "$T/l.prom"
ok $? "  the lines: alltoall's limit 1e11 bytes/s and its eff a ratio; no eff for allreduce (unknown, not 0)"
ALL="$ALL $T/l.prom"

t0=$(now)
expect_code 1 "a sweep below --min-busbw: exit 1" np_host 2 --sweep 1K:4K --iters 2 --samples 2 \
	--coll allreduce --min-busbw 1000000 --format json --output "$T/f.json" --metrics "$T/f.prom"
t1=$(now)
expect_success "  exit_code 1, judged 1, the rows' verdicts 0, as the JSON says" check sweep "$T/f.prom" "$T/f.json" "$t0" "$t1"
grep -q '^nccl_probe_exit_code{command="sweep"} 1$' "$T/f.prom" && grep -q '^nccl_probe_sweep_judged 1$' "$T/f.prom" &&
	grep -q '^nccl_probe_row_verdict_pass{coll="allreduce",size_bytes="4096",dtype="float"} 0$' "$T/f.prom"
ok $? "  the lines themselves: exit code 1, judged, 4 KiB failed"
expect_success "a sweep with no threshold, a table on standard output" np_host 2 --sweep 1K:4K --iters 2 \
	--samples 2 --json "$T/n.json" --metrics "$T/n.prom"
expect_success "  not judged: sweep_judged 0 and no row verdict" check sweep "$T/n.prom" "$T/n.json" "$t0" "$(now)"
! grep -q row_verdict_pass "$T/n.prom" && grep -q '^nccl_probe_sweep_judged 0$' "$T/n.prom"
ok $? "  (no row_verdict_pass line at all)"

# ---- topo on the fixtures and on fake nodes ------------------------------------
if [ -n "${NP_FIXTURES:-}" ] && [ -d "$NP_FIXTURES/topology" ]; then
	for f in "$NP_FIXTURES"/topology/*/*.xml; do
		b=$(basename "$f" .xml)
		np topo --quiet --input "$f" --format json --output "$T/$b.json" --metrics "$T/$b.prom" \
			>"$TEST_OUT" 2>"$TEST_ERR"
		rc=$?
		{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && check lint "$T/$b.prom" && check topo "$T/$b.prom" "$T/$b.json" &&
			grep -q "^nccl_probe_exit_code{command=\"topo\",file=\"$b.prom\"} $rc\$" "$T/$b.prom"
		ok $? "topo --input $b: findings by level and kind, GDR per GPU and exit code $rc as the JSON"
		ALL="$ALL $T/$b.prom"
	done
else
	ok 0 "topo on the fixtures # SKIP NP_FIXTURES unset or missing"
fi
# GDR yes and no: a fake node's snapshot with the facts recorded (as t2003)
R=$T/root
node "$R"
NCCL_PROBE_FSROOT=$R np topo --quiet --export "$T/a0.xml" >/dev/null 2>&1
sed 's/;gdr=-1;dmabuf=-1/;gdr=1;dmabuf=1/; s/dmabufnic=-1/dmabufnic=0/' "$T/a0.xml" >"$T/gdr-no.xml"
mkdir -p "$R/sys/module/nvidia_peermem" && echo 1.0 >"$R/sys/module/nvidia_peermem/version"
NCCL_PROBE_FSROOT=$R np topo --quiet --export "$T/a.xml" >/dev/null 2>&1
sed 's/;gdr=-1;dmabuf=-1/;gdr=1;dmabuf=-1/' "$T/a.xml" >"$T/gdr-yes.xml"
for g in yes no; do
	np topo --quiet --input "$T/gdr-$g.xml" --format json --output "$T/gdr-$g.json" --metrics "$T/gdr-$g.prom" \
		>/dev/null 2>&1
	check topo "$T/gdr-$g.prom" "$T/gdr-$g.json" &&
		grep -q "^nccl_probe_gdr_state{gpu=\"0\",bus_id=\"0000:19:00.0\",state=\"$g\",file=\"gdr-$g.prom\"} 1\$" "$T/gdr-$g.prom"
	ok $? "GDR $g on a fake node's snapshot: gdr_state{state=\"$g\"} 1, the JSON's gdr_ok"
	ALL="$ALL $T/gdr-$g.prom"
done
# health figures from the fake NVML: thermal slowdown, uncorrected ECC errors
LIB=$top_builddir/tests/fakenvml/libfakenvml.so
if [ -f "$LIB" ]; then
	cat >"$T/nvml.conf" <<EOF
count=1
gpu0.busid=0000:19:00.0
gpu0.name=NVIDIA H100 80GB HBM3
gpu0.sm=1200
gpu0.sm_max=1980
gpu0.sm_app=1755
gpu0.sm_app_default=1755
gpu0.reasons=0x41
gpu0.temp=84
gpu0.margin=3
gpu0.slowdown_tlimit=-2
gpu0.power=650000
gpu0.power_limit=700000
gpu0.power_default=700000
gpu0.ecc=1
gpu0.ecc_uncorrected=3
EOF
	NCCL_PROBE_FSROOT=$R NCCL_PROBE_NVML_LIB=$LIB NP_FAKE_NVML=$T/nvml.conf np topo --quiet --format json \
		--output "$T/h.json" --metrics "$T/h.prom" >"$TEST_OUT" 2>"$TEST_ERR"
	rc=$?
	check lint "$T/h.prom" && check topo "$T/h.prom" "$T/h.json"
	ok $? "health: SM clock, clock event reasons, temperature margin, power, ECC as the JSON's (exit $rc)"
	grep -q '^nccl_probe_gpu_sm_clock_hertz{gpu="0",bus_id="0000:19:00.0",file="h.prom"} 1200000000$' "$T/h.prom" &&
		grep -q '^nccl_probe_gpu_clock_event_reason{gpu="0",bus_id="0000:19:00.0",reason="hw_thermal_slowdown",file="h.prom"} 1$' "$T/h.prom" &&
		grep -q '^nccl_probe_gpu_clock_event_reason{gpu="0",bus_id="0000:19:00.0",reason="sw_thermal_slowdown",file="h.prom"} 0$' "$T/h.prom" &&
		grep -q '^nccl_probe_gpu_temperature_margin_celsius{gpu="0",bus_id="0000:19:00.0",file="h.prom"} 5$' "$T/h.prom" &&
		grep -q '^nccl_probe_gpu_ecc_uncorrected_errors{gpu="0",bus_id="0000:19:00.0",file="h.prom"} 3$' "$T/h.prom" &&
		grep -q '^nccl_probe_topo_findings{level="error",kind="health-gpu-slowdown",file="h.prom"} 1$' "$T/h.prom"
	ok $? "  the planted figures: 1200 MHz, HW thermal slowdown on, 5 C to slowdown, 3 ECC errors, its finding"
	! grep -q 'gpu_power_watts{.*} 0$' "$T/h.prom" && grep -q '^nccl_probe_gpu_power_watts{gpu="0",bus_id="0000:19:00.0",file="h.prom"} 650$' "$T/h.prom"
	ok $? "  power in watts"
	ALL="$ALL $T/h.prom"
else
	ok 0 "health figures # SKIP the fake NVML is not built (make check builds it)"
fi

# ---- two topo files of one host, and a host name that is not UTF-8 ----------------
# node_exporter reads every .prom file of its directory as one: topo and
# topo --check-gdr of one host must not write one series twice (each
# series carries file=NAME), and a host name with bytes that are not UTF-8
# (sethostname takes any) is escaped, the file stays UTF-8
mkdir -p "$T/two"
if unshare -u "$PY" -c 'import socket; socket.sethostname(b"n\xff\xc3\"x\\y")' 2>/dev/null; then
	# shellcheck disable=SC2016 # python
	unshare -u "$PY" -c 'import socket, subprocess, sys
socket.sethostname(b"n\xff\xc3\"x\\y")
for a, n in (([], "topo"), (["--check-gdr"], "topo-gdr")):
    subprocess.run([sys.argv[1], "topo", "--quiet"] + a + ["--metrics", sys.argv[2] + "/" + n + ".prom"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)' "$NP_BIN" "$T/two"
	# shellcheck disable=SC2016 # python
	expect_success "topo and topo --check-gdr of one host in one directory: no series twice, UTF-8, host escaped" \
		"$PY" -c 'import sys
from prometheus_client.parser import text_string_to_metric_families as parse
seen, host = set(), None
for p in sys.argv[1:]:
    for f in parse(open(p, "rb").read().decode("utf-8")):
        for s in f.samples:
            k = (s.name, tuple(sorted(s.labels.items())))
            assert k not in seen, "twice: %r" % (k,)
            seen.add(k)
            host = s.labels.get("host", host)
assert host == "n\\xff\\xc3\"x\\y", host
print(len(seen), "series, host", host)' "$T/two/topo.prom" "$T/two/topo-gdr.prom"
	expect_success "  both files lint" check lint "$T/two/topo.prom" "$T/two/topo-gdr.prom"
else
	ok 0 "two topo files of one host # SKIP cannot set a host name in a new UTS namespace (unshare -u)"
	ok 0 "  both files lint # SKIP"
fi

# ---- the atomic writer --------------------------------------------------------------
echo 'old' >"$T/m.prom"
ln "$T/m.prom" "$T/m-old"
expect_success "topo --metrics over an existing file" np topo --quiet --input "$T/gdr-yes.xml" --metrics "$T/m.prom"
[ "$(cat "$T/m-old")" = old ] && grep -q '^nccl_probe_last_run_timestamp_seconds{command="topo",file="m.prom"} ' "$T/m.prom" &&
	[ "$(ls -A "$T" | grep -c '^m\.prom\.')" -eq 0 ]
ok $? "  replaced by rename: the old inode keeps its text, the new file is whole, no temporary left"
# a reader polling the file while sweeps rewrite it never sees part of one
rm -f "$T/r.prom"
(
	i=0
	while [ $i -lt 6 ]; do
		np_host 2 --sweep 1K:256K --iters 2 --samples 2 --quiet --metrics "$T/r.prom" >/dev/null 2>&1
		i=$((i + 1))
	done
	: >"$T/r.done"
) &
bg=$!
"$PY" - "$T/r.prom" "$T/r.done" <<'PY'
import os, sys
from prometheus_client.parser import text_string_to_metric_families as p
path, done = sys.argv[1:]
reads = 0
while not os.path.exists(done):
    try:
        text = open(path).read()
    except FileNotFoundError:
        continue
    reads += 1
    names = {s.name for f in p(text) for s in f.samples}
    if not text.endswith("\n") or "nccl_probe_last_run_timestamp_seconds" not in names:
        print("# a partial file: %r" % text[-200:])
        sys.exit(1)
print("# %d whole reads" % reads)
sys.exit(0 if reads > 0 else 1)
PY
ok $? "a reader polling the file while 6 sweeps rewrite it sees only whole files"
wait "$bg"
# the sweep's --metrics is one of the run's outputs: all replaced or none
mkdir "$T/full"
if mount -t tmpfs -o size=64k tmpfs "$T/full" 2>/dev/null; then
	trap 'umount "$T/full" 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
	echo old >"$T/g.json"
	echo old >"$T/full/g.prom"
	dd if=/dev/zero of="$T/full/fill" bs=4k >/dev/null 2>&1
	expect_code 3 "sweep -J FILE --metrics on a full disk: exit 3" np_host 1 --sweep 1K --coll allreduce --iters 1 \
		--samples 1 -q --json "$T/g.json" --metrics "$T/full/g.prom"
	[ "$(cat "$T/g.json")" = old ] && [ "$(cat "$T/full/g.prom")" = old ] && [ "$(grep -c '^error:' "$TEST_ERR")" -eq 1 ] &&
		grep -q -- '--metrics' "$TEST_ERR" && [ "$(ls -A "$T" | grep -c '^g\.json\.')" -eq 0 ]
	ok $? "  neither file replaced, no temporary left, one error line naming --metrics"
	umount "$T/full"
else
	ok 0 "--metrics with the run's other outputs, all or none # SKIP cannot mount a small tmpfs (not root)"
fi
ln -s "$T/target" "$T/link.prom"
expect_code 64 "sweep --metrics a symbolic link: exit 64" np_host 2 --sweep 1K --iters 1 --samples 1 --quiet \
	--metrics "$T/link.prom"
[ ! -e "$T/target" ] && grep -q "link" "$TEST_ERR"
ok $? "  not followed, and the message says why"
expect_code 64 "topo --metrics a symbolic link: exit 64" np topo --quiet --input "$T/gdr-yes.xml" --metrics "$T/link.prom"
[ "$(grep -c . "$TEST_ERR")" -eq 1 ]
ok $? "  one line"
expect_code 64 "isolate --metrics a symbolic link: exit 64" mpirun -np 2 --oversubscribe --bind-to none "$NP_BIN" \
	isolate --backend mpi --ranks-per-node 1 --metrics "$T/link.prom"
expect_code 64 "topo --metrics a directory: exit 64" np topo --quiet --input "$T/gdr-yes.xml" --metrics "$T"
mkfifo "$T/fifo.prom"
expect_code 64 "topo --metrics a FIFO: exit 64" np topo --quiet --input "$T/gdr-yes.xml" --metrics "$T/fifo.prom"
expect_code 64 "--metrics the same file as --output: exit 64" np topo --quiet --input "$T/gdr-yes.xml" \
	--output "$T/same" --metrics "$T/same"
expect_code 64 "--metrics - with the report on standard output: exit 64" np topo --quiet --input "$T/gdr-yes.xml" \
	--metrics -
expect_code 64 "compare has no --metrics: exit 64" np compare --metrics "$T/c.prom" "$T/s.json" "$T/s.json"

# isolate and validate with a planted slow node: what is judged is that
# the files say the verdict the JSON says, whichever it is (0, 1 or 6 on
# a loaded host), so this needs no turn apart from the tests that judge
# timing; 0.1 s of samples per figure is enough for a verdict of either
# kind (wrong data is found on the first round)
# ---- isolate on virtual nodes ----------------------------------------------------
t0=$(now)
NCCL_PROBE_TEST_SLOW=1:1000% mpirun -np 4 --oversubscribe --bind-to none "$NP_BIN" isolate --backend mpi \
	--ranks-per-node 1 --size 16K --budget 0.1 --min-effect 50 --timeout 60 --format json --output "$T/i.json" \
	--metrics "$T/i.prom" >"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
t1=$(now)
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 6 ]; }
ok $? "isolate on 4 virtual nodes, one planted slow: a verdict (exit $rc; 6, inconclusive, on a loaded host)"
check lint "$T/i.prom" && check isolate "$T/i.prom" "$T/i.json" "$rc" && "$PY" -c '
import sys
from prometheus_client.parser import text_string_to_metric_families as p
ts = [s.value for f in p(open(sys.argv[1]).read()) for s in f.samples if s.name == "nccl_probe_last_run_timestamp_seconds"]
sys.exit(0 if len(ts) == 1 and int(sys.argv[2]) - 1 <= ts[0] <= int(sys.argv[3]) + 1 else 1)' "$T/i.prom" "$t0" "$t1"
ok $? "  each node's state (ok, bad, unknown), why, rounds and exit code as the JSON; the run's end"
ALL="$ALL $T/i.prom"
# a node named bad whatever this host's noise: one computing wrong data
NCCL_PROBE_TEST_CORRUPT=1 mpirun -np 4 --oversubscribe --bind-to none "$NP_BIN" isolate --backend mpi \
	--ranks-per-node 1 --size 16K --budget 0.1 --timeout 60 --metrics "$T/ic.prom" >"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
[ "$rc" -eq 2 ] && check lint "$T/ic.prom" &&
	grep -q '^nccl_probe_isolate_node_bad{node="vnode1",.*reason="wrong-data"} 1' "$T/ic.prom"
ok $? "isolate with a node computing wrong data: exit 2 ($rc), the node bad for wrong-data"
ALL="$ALL $T/ic.prom"

# ---- nccl-probe-validate --metrics DIR --------------------------------------------
V="$srcdir/contrib/nccl-probe-validate"
NCCL_PROBE_TEST_SLOW=2:1000% "$V" --nccl-probe "$NP_BIN" --backend mpi --json "$T/v.json" --out "$T/vout" \
	--metrics "$T/vm" --virtual 4 --ppn 1 -- --size 16K --budget 0.1 --min-effect 50 >"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 6 ]; }
ok $? "validate --virtual 4 --metrics DIR: a verdict (exit $rc; 6, inconclusive, on a loaded host)"
check lint "$T"/vm/*.prom && check validate "$T/vm" "$T/v.json" "$rc" "$T/vout/isolate.json"
ok $? "  one file per node, nothing else in DIR: state, why, busbw figures, exit code as the JSON verdict"
mkdir "$T/vm1" && cp "$T"/vm/*.prom "$T/vm1/"
ALL="$ALL $(ls "$T"/vm1/*.prom | tr '\n' ' ')"
NCCL_PROBE_TEST_CORRUPT=2 "$V" --nccl-probe "$NP_BIN" --backend mpi --metrics "$T/vmc" --virtual 4 --ppn 1 \
	--no-topo -- --size 16K --budget 0.1 >"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
[ "$rc" -eq 1 ] && grep -q '^nccl_probe_validate_node_bad{node="vnode2"' "$T"/vmc/*.prom
ok $? "validate with a node computing wrong data: exit 1 ($rc), its file says it is bad"
ALL="$ALL $(ls "$T"/vmc/*.prom | tr '\n' ' ')"
# an earlier file of a node is replaced whole
ln "$T/vm/nccl-probe-validate.vnode0.prom" "$T/v-old"
cp "$T/v-old" "$T/v-old.copy"
"$V" --nccl-probe "$NP_BIN" --backend mpi --metrics "$T/vm" --no-topo --virtual 4 --ppn 1 -- --size 16K \
	--budget 0.1 --min-effect 50 >/dev/null 2>&1
cmp -s "$T/v-old" "$T/v-old.copy" && ! cmp -s "$T/v-old" "$T/vm/nccl-probe-validate.vnode0.prom" &&
	[ "$(ls -A "$T/vm" | grep -vc '\.prom$')" -eq 0 ]
ok $? "  a second run replaces the files by rename: the old inode keeps the old text, no temporary left"
# the files of nodes absent from the latest run are removed (a node shown
# bad forever otherwise); another file, and a link, are left alone
echo 'nccl_probe_validate_node_state{node="gone",state="bad"} 1' >"$T/vm/nccl-probe-validate.gone.prom"
echo 'other' >"$T/vm/other.prom"
ln -s "$T/v-old.copy" "$T/vm/nccl-probe-validate.linked.prom"
"$V" --nccl-probe "$NP_BIN" --backend mpi --metrics "$T/vm" --no-topo --virtual 2 --ppn 1 -- --size 16K \
	--budget 0.1 --min-effect 50 >/dev/null 2>&1
got=$(ls "$T/vm" | tr '\n' ' ')
[ "$got" = "nccl-probe-validate.linked.prom nccl-probe-validate.vnode0.prom nccl-probe-validate.vnode1.prom other.prom " ]
ok $? "  a run of 2 nodes removes the files of vnode2, vnode3 and gone, keeps a link and another file ($got)"
rm -f "$T/vm/other.prom" "$T/vm/nccl-probe-validate.linked.prom"
ln -s "$T/elsewhere" "$T/vlink"
expect_code 64 "validate --metrics a symbolic link: exit 64" "$V" --nccl-probe "$NP_BIN" --metrics "$T/vlink" \
	--virtual 2 --dry-run
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && grep -q "^error: --metrics '.*vlink' is a symbolic link" "$TEST_ERR" && [ ! -e "$T/elsewhere" ]
ok $? "  one line naming it, nothing created where it points"
: >"$T/vfile"
expect_code 64 "validate --metrics a regular file: exit 64" "$V" --nccl-probe "$NP_BIN" --metrics "$T/vfile" \
	--virtual 2 --dry-run
mkdir -p "$T/vm2" && ln -s "$T/victim" "$T/vm2/nccl-probe-validate.vnode1.prom"
"$V" --nccl-probe "$NP_BIN" --backend mpi --metrics "$T/vm2" --no-topo --virtual 2 --ppn 1 -- --size 16K \
	--budget 0.1 --min-effect 50 >"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
[ "$rc" -eq 3 ] && [ ! -e "$T/victim" ] && [ -L "$T/vm2/nccl-probe-validate.vnode1.prom" ] &&
	grep -q "symbolic link 'nccl-probe-validate.vnode1.prom'" "$TEST_ERR" && [ -f "$T/vm2/nccl-probe-validate.vnode0.prom" ]
ok $? "  a link where a node's file goes is refused, not followed (exit $rc); the other node's file is written"

# ---- the files as node_exporter sees them ------------------------------------------
# shellcheck disable=SC2086
expect_success "a family's HELP text is the same in every file (node_exporter merges them)" check help $ALL
# shellcheck disable=SC2086
check names $ALL >"$T/names.txt"
n=0
for name in $(cut -d' ' -f1 "$T/names.txt"); do
	grep -q "$name" "$srcdir/man/nccl-probe.1" || { diag "$name is not in the man page"; n=$((n + 1)); }
done
[ "$n" -eq 0 ] && [ "$(wc -l <"$T/names.txt")" -ge 30 ]
ok $? "every metric name written ($(wc -l <"$T/names.txt")) is in the man page"
expect_success "the Grafana dashboard's queries use only metrics and labels written here, with its datasource variable" \
	check dashboard "$srcdir/contrib/grafana/nccl-probe-dashboard.json" "$T/names.txt"
cat "$TEST_OUT" | head -n 3
done_testing
