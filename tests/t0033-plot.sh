#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/nccl-probe-plot on real reports of this build: the points the
# figure draws (read back from its own lines with --data) are the reports'
# busbw, limit and eff; a compare report's rows are marked with their
# result; a tune report's candidates are drawn with their ratios and each
# size's winner starred; PNG and SVG files are whole, with the umask's mode; bad input is
# one line and exit 64 (JSON nested too deep too, never a traceback), and a
# link or device as --output is left alone; '$' in a label or title is
# text; a reader that closed standard output ends it with exit 3, quietly.
. "$(dirname "$0")/lib.sh"
have_mpirun || skip_all "mpirun not found"
# its failing runs under mpirun end on every rank by themselves
quick_abort
PLOT=$srcdir/contrib/nccl-probe-plot
# the script finds the distribution's matplotlib itself when the python3
# on PATH lacks it; the test needs one interpreter that has it
py=""
for p in python3 /usr/bin/python3; do
	command -v "$p" >/dev/null 2>&1 && "$p" -c 'import matplotlib' 2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || skip_all "matplotlib not installed (Debian/Ubuntu: apt-get install python3-matplotlib)"
plot() { "$py" "$PLOT" "$@"; }

A=$TEST_TMP/a.json B=$TEST_TMP/b.json
expect_success "run A" np_host 2 --sweep 1K:64K:x4 --iters 5 --samples 6 --format json --output "$A"
expect_success "run B" np_host 2 --sweep 1K:64K:x4 --iters 5 --samples 6 --format json --output "$B"
# the host backend has no limit: give A's rows one, and eff from it, so
# that the limit line and the eff axis are drawn (the report's fields);
# A's first all-reduce row an interval unbounded above (ci 150%), its
# second none (as with fewer than 6 samples)
"$py" - "$A" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ar = [row for row in r["results"] if row["coll"] == "allreduce"]
ar[0]["time_ci"], ar[1]["time_ci"] = 1.5, None
for i, row in enumerate(r["results"]):
    row["limit"] = 10.0 + i
    row["eff"] = 100.0 * row["busbw"] / row["limit"]
json.dump(r, open(sys.argv[1], "w"))
PY
ok $? "A's rows given a limit and eff, two intervals planted"

expect_success "--data of A and B" plot --data "$A" "$B"
cp "$TEST_OUT" "$TEST_TMP/data.json"
"$py" - "$TEST_TMP/data.json" "$A" "$B" <<'PY'
import json, os, sys
data = json.load(open(sys.argv[1]))
lines = data["panels"][0]["lines"]
bad = 0
want = {}
marks = {}
for path in sys.argv[2:]:
    name = os.path.basename(path)
    for r in json.load(open(path))["results"]:
        k = "%s %s" % (name, r["coll"])
        want.setdefault((k, "busbw"), []).append((r["size"], r["busbw"]))
        m = marks.setdefault(k, ([], []))
        ci = r.get("time_ci")
        if ci is None:
            m[1].append(float(r["size"]))
        elif ci >= 1:
            m[0].append(float(r["size"]))
        if r.get("limit") is not None:
            want.setdefault((k + " limit", "limit"), []).append((r["size"], r["limit"]))
            want.setdefault((k + " eff", "eff"), []).append((r["size"], r["eff"]))
got = {(l["label"], l["what"]): list(zip(l["x"], l["y"])) for l in lines}
for key in sorted(set(want) | set(got)):
    w = sorted(want.get(key, []))
    g = got.get(key, [])
    same = len(w) == len(g) and all(a[0] == b[0] and abs(a[1] - b[1]) <= 1e-12 * max(1.0, abs(a[1])) for a, b in zip(w, g))
    print("# %-32s %-5s %d points %s" % (key[0], key[1], len(g), "ok" if same else "DIFFER: want %s got %s" % (w, g)))
    bad += not same
for l in lines:
    if l["what"] != "busbw":
        continue
    u, n = marks[l["label"]]
    same = sorted(l["unbounded_above"]) == sorted(u) and sorted(l["interval_unknown"]) == sorted(n)
    print("# %-32s unbounded above at %s, unknown at %s %s" % (l["label"], l["unbounded_above"], l["interval_unknown"], "ok" if same else "DIFFER: want %s %s" % (u, n)))
    bad += not same
a_ar = [l for l in lines if l["label"] == "a.json allreduce" and l["what"] == "busbw"][0]
bad += len(a_ar["unbounded_above"]) < 1 or len(a_ar["interval_unknown"]) < 1
kinds = {k[1] for k in got}
sys.exit(1 if bad or kinds != {"busbw", "limit", "eff"} or len(got) != 8 else 0)
PY
ok $? "  every line's points are the reports' busbw, limit and eff (8 lines); rows without a two-sided interval are marked"

umask 022
expect_success "a PNG of A and B" plot -o "$TEST_TMP/ab.png" "$A" "$B"
[ "$(head -c 8 "$TEST_TMP/ab.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
ok $? "  a PNG file"
[ "$(stat -c %a "$TEST_TMP/ab.png")" = 644 ]
ok $? "  with the umask's mode (644, got $(stat -c %a "$TEST_TMP/ab.png"))"
[ "$(find "$TEST_TMP" -maxdepth 1 -name '.ab.png.*' | wc -l)" -eq 0 ]
ok $? "  no temporary left beside it"
expect_success "an SVG" plot --output "$TEST_TMP/ab.svg" --coll allreduce --title "A and B" "$A" "$B"
grep -q '<svg' "$TEST_TMP/ab.svg" && grep -q 'A and B' "$TEST_TMP/ab.svg"
ok $? "  an SVG file with the title"
plot -o - "$A" >"$TEST_TMP/stdout.png" 2>"$TEST_ERR"
[ $? -eq 0 ] && [ "$(head -c 4 "$TEST_TMP/stdout.png" | od -An -tx1 | tr -d ' \n')" = 89504e47 ]
ok $? "-o - writes the PNG to standard output"

# through its own #! line (the python3 on PATH; /usr/bin/python3 when
# that one has no matplotlib)
expect_success "run as a program" "$PLOT" --data "$A"
"$py" "$PLOT" --data "$A" | cmp -s - "$TEST_OUT"
ok $? "  the same points"

# a compare report: the speed line and one mark per row, with its result
"$NP_BIN" compare "$A" "$B" --format json >"$TEST_TMP/c.json" 2>/dev/null
[ -s "$TEST_TMP/c.json" ]
ok $? "a compare report of A and B"
expect_success "--data of the compare report" plot --data "$TEST_TMP/c.json"
"$py" - "$TEST_OUT" "$TEST_TMP/c.json" <<'PY'
import json, sys
panel = json.load(open(sys.argv[1]))["panels"][0]
rows = json.load(open(sys.argv[2]))["rows"]
want = sorted((r["coll"], r["size"], r["result"], r["speed"]) for r in rows)
got = sorted((m["coll"], m["size"], m["result"], m["speed"]) for m in panel["marks"])
print("# %d rows, %d marks; results %s" % (len(want), len(got), sorted({w[2] for w in want})))
ok = panel["kind"] == "compare" and len(want) > 0 and [(w[0], w[1], w[2]) for w in want] == [(g[0], g[1], g[2]) for g in got]
ok = ok and all(w[3] == g[3] for w, g in zip(want, got))
sys.exit(0 if ok else 1)
PY
ok $? "  one mark per row, with the row's result and speed"
expect_success "a PNG of runs and their comparison" plot -o "$TEST_TMP/abc.png" "$A" "$B" "$TEST_TMP/c.json"

# bad input: one line, exit 64, nothing written
expect_code 64 "a missing report: exit 64" plot -o "$TEST_TMP/x.png" "$TEST_TMP/nonexistent.json"
expect_grep "^nccl-probe-plot: error: cannot read '.*nonexistent.json'" "$TEST_ERR" "  one line naming it"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && [ ! -e "$TEST_TMP/x.png" ]
ok $? "  one line, no file"
echo '{"schema": "nccl-probe/other", "nodes": []}' >"$TEST_TMP/other.json"
expect_code 64 "a report of another kind: exit 64" plot -o "$TEST_TMP/x.png" "$TEST_TMP/other.json"
expect_grep "is not an nccl-probe sweep, compare, tune, isolate, validate or topo report" "$TEST_ERR" "  says what it needs"
echo '{"schema": "nccl-probe/isolate", "nodes": []}' >"$TEST_TMP/iso0.json"
expect_code 64 "an isolate report of no node: exit 64" plot -o "$TEST_TMP/x.png" "$TEST_TMP/iso0.json"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && grep -q 'nothing to draw' "$TEST_ERR"
ok $? "  one line: nothing to draw"
head -c 100 "$A" >"$TEST_TMP/cut.json"
expect_code 64 "a truncated report: exit 64" plot -o "$TEST_TMP/x.png" "$TEST_TMP/cut.json"
expect_grep "cut.json' is not JSON" "$TEST_ERR" "  says so"
expect_code 64 "an output that is not .png or .svg: exit 64" plot -o "$TEST_TMP/x.pdf" "$A"
expect_code 64 "an unknown option: exit 64" plot --frobnicate "$A"
expect_code 64 "no report: exit 64" plot -o "$TEST_TMP/x.png"
expect_code 64 "--coll that matches no row: exit 64" plot --coll nosuch -o "$TEST_TMP/x.png" "$A"
expect_grep "nothing to draw" "$TEST_ERR" "  says nothing matched"
# a string from a file or the command line reaches the error line with
# its control characters escaped (ESC cleared the screen, a newline forged
# a second error line) and at most 1000 characters of it (a 100 MB schema
# string was echoed whole)
expect_code 64 "a report named with ESC and a newline: exit 64" plot -o "$TEST_TMP/x.png" "$TEST_TMP/$(printf 'a\033[2J\nerror: forged')"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && grep -qF 'a\x1b[2J\x0aerror: forged' "$TEST_ERR" && ! grep -q "$(printf '\033')" "$TEST_ERR"
ok $? "  one line, ESC and newline escaped: $(head -c 200 "$TEST_ERR" | od -c | head -3 | tr -s ' ')"
"$py" -c 'import json, sys; json.dump({"schema": "x" * 100000, "nodes": []}, open(sys.argv[1], "w"))' "$TEST_TMP/long.json"
expect_code 64 "a report with a 100 KB schema string: exit 64" plot -o "$TEST_TMP/x.png" "$TEST_TMP/long.json"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && [ "$(wc -c <"$TEST_ERR")" -le 1100 ] && grep -q 'characters left out' "$TEST_ERR"
ok $? "  one line of at most 1000 characters after its prefix: $(wc -c <"$TEST_ERR") bytes"
echo keep >"$TEST_TMP/victim"
ln -s "$TEST_TMP/victim" "$TEST_TMP/link.png"
expect_code 64 "--output a symbolic link: exit 64" plot -o "$TEST_TMP/link.png" "$A"
[ "$(cat "$TEST_TMP/victim")" = keep ] && [ -L "$TEST_TMP/link.png" ]
ok $? "  the link and its target are left alone"
# the output contract of nccl-probe: a read-only file is not replaced; a
# file replaced keeps its mode and group; no temporary is left
echo keep >"$TEST_TMP/ro.png"
chmod 444 "$TEST_TMP/ro.png"
expect_code 64 "--output a read-only file: exit 64" plot -o "$TEST_TMP/ro.png" "$A"
[ "$(cat "$TEST_TMP/ro.png")" = keep ] && grep -q "is read-only, and nccl-probe-plot does not replace it" "$TEST_ERR"
ok $? "  left as it was, and the line says why and what to do"
echo old >"$TEST_TMP/kept.png"
chmod 640 "$TEST_TMP/kept.png"
grp=$(id -g)
if [ "$(id -u)" -eq 0 ]; then
	grp=$(awk -F: '$3 != 0 { print $3; exit }' /etc/group)
	chgrp "$grp" "$TEST_TMP/kept.png"
fi
umask 022
expect_success "--output an existing file of mode 640 and group $grp" plot -o "$TEST_TMP/kept.png" "$A"
[ "$(stat -c %a:%g "$TEST_TMP/kept.png")" = "640:$grp" ] &&
	[ "$(head -c 4 "$TEST_TMP/kept.png" | od -An -tx1 | tr -d ' \n')" = 89504e47 ]
ok $? "  replaced by the PNG, its mode and group kept (640:$grp, got $(stat -c %a:%g "$TEST_TMP/kept.png"))"
[ "$(find "$TEST_TMP" -maxdepth 1 -name '.*.tmp.*' | wc -l)" -eq 0 ]
ok $? "  no temporary left"
expect_code 64 "--output in a directory that does not exist: exit 64" plot -o "$TEST_TMP/nodir/x.png" "$A"
mkfifo "$TEST_TMP/fifo.png"
expect_code 64 "--output a FIFO: exit 64" plot -o "$TEST_TMP/fifo.png" "$A"
expect_grep "is not a regular file" "$TEST_ERR" "  says so"
expect_code 64 "--output in a missing directory: exit 64" plot -o "$TEST_TMP/no/such/x.png" "$A"
"$py" -c 'import sys; n = 100000; sys.stdout.write("[" * n + "]" * n)' >"$TEST_TMP/deep.json"
expect_code 64 "JSON nested 100000 deep: exit 64" plot -o "$TEST_TMP/x.png" "$TEST_TMP/deep.json"
expect_grep "deep.json' nests arrays or objects too deeply" "$TEST_ERR" "  says so"
[ "$(wc -l <"$TEST_ERR")" -eq 1 ] && ! grep -q Traceback "$TEST_ERR"
ok $? "  one line, no traceback"

# '$' in a label (the file name) and in --title is text, not a formula that
# mathtext fails to parse
D=$TEST_TMP/'r$\bad{$.json'
cp "$A" "$D"
expect_success "a report whose name holds two dollars and a backslash, a --title with them: drawn" \
	plot --title '$\frac{$ run' -o "$TEST_TMP/dollar.png" "$D"
[ "$(head -c 4 "$TEST_TMP/dollar.png" | od -An -c | tr -d ' ')" = '211PNG' ] && ! grep -q Traceback "$TEST_ERR"
ok $? "  a whole PNG, no traceback"
expect_success "--data of it" plot --data "$D"
grep -F -q '"label": "r$\\bad{$.json allreduce"' "$TEST_OUT"
ok $? "  the label is the file name as written"

# standard output whose reader is gone (as after '| head'): exit 3, quietly
closed_stdout() { # CMD...: run with standard output a pipe whose reader closed; print "RC STDERR-BYTES"
	"$py" -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
sys.stdout.write("%d %d\n" % (p.returncode, len(p.stderr)))
sys.stderr.buffer.write(p.stderr)' "$@"
}
got=$(closed_stdout "$py" "$PLOT" --data "$A" 2>"$TEST_ERR")
[ "$got" = "3 0" ]
ok $? "--data into a closed pipe: exit 3, nothing on stderr (got: $got)"
grep -q Traceback "$TEST_ERR" && sed 's/^/#   /' "$TEST_ERR" | tail -n 3
got=$(closed_stdout "$py" "$PLOT" -o - "$A" 2>"$TEST_ERR")
[ "$got" = "3 0" ]
ok $? "-o - into a closed pipe: exit 3, nothing on stderr (got: $got)"

expect_success "--help" plot --help
expect_grep '^  nccl-probe-plot \[-o FILE\]' "$TEST_OUT" "  the usage"
# fleet pictures: an isolate report of 8 virtual nodes with a slow link
# planted between nodes 5 and 6, a validate report of 4, a topo fleet
# (the picture is tested, not isolate's verdict: exit 0, 1 or 6 alike;
# 0.2 s of 16 KiB all-reduces per figure, not isolate's default second of
# 1 MiB ones, make the same report in a tenth of the time)
env NCCL_PROBE_TEST_SLOW=5:20000:link=6 mpirun -np 8 --oversubscribe --bind-to none "$NP_BIN" isolate \
	--ranks-per-node 1 --budget 0.2 --size 16K --format json --output "$TEST_TMP/iso.json" \
	>"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 6 ]
ok $? "isolate with a slow link (vnode5-vnode6) wrote its report (exit $rc)"
if [ -s "$TEST_TMP/iso.json" ]; then
	# the link planted is named on a quiet host; so that the drawing of a
	# link is tested whatever this host's noise named, one is added where
	# the report has none
	"$py" - "$TEST_TMP/iso.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
if not rep["links"]:
    rep["links"] = [{"a": "vnode5", "b": "vnode6", "evidence": "added by the test"}]
json.dump(rep, open(sys.argv[1], "w"))
PY
	expect_success "its picture" plot -o "$TEST_TMP/iso.png" "$TEST_TMP/iso.json"
	[ "$(head -c 4 "$TEST_TMP/iso.png" | od -An -c | tr -d ' ')" = '211PNG' ]
	ok $? "  a whole PNG"
	expect_success "its data" plot --data "$TEST_TMP/iso.json"
	"$py" - "$TEST_TMP/iso.json" "$TEST_OUT" <<'PY'
import json, sys
rep, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p = d["panels"][0]
assert p["kind"] == "isolate"
# every node a point, with its state; every named link drawn
assert [(n["name"], n["state"]) for n in p["nodes"]] == [(n["name"], n["state"]) for n in rep["nodes"]]
assert sorted((l["a"], l["b"]) for l in p["links"]) == sorted((l["a"], l["b"]) for l in rep["links"])
assert p["links"], "a link is drawn"
# every figure of every round at each of its nodes, with its ratio
want = sorted((f["round"], g, f["ratio"]) for f in rep["figures"] if f.get("ratio") is not None for g in f["group"])
got = sorted((m["round"], m["node"], m["ratio"]) for m in p["marks"])
assert got == want, (got[:5], want[:5])
assert abs(p["min_effect_line"] - (1 - rep["min_effect"])) < 1e-12
PY
	ok $? "  every node, every round's figure at its nodes, the named link and the --min-effect line are the report's"
else
	ok 1 "isolate wrote no report"
fi
# (healthy nodes; what is plotted is the report, so a verdict of either
# kind will do: on a loaded host a node can truly measure slow)
"$srcdir/contrib/nccl-probe-validate" --virtual 4 --ppn 1 \
	--nccl-probe "$NP_BIN" --no-topo --json "$TEST_TMP/val.json" --size 16K -- --budget 0.2 \
	>"$TEST_OUT" 2>"$TEST_ERR"
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 6 ]
ok $? "validate of 4 virtual nodes: a verdict (exit $rc)" || _np_show
expect_success "  its data" plot --data "$TEST_TMP/val.json"
"$py" - "$TEST_TMP/val.json" "$TEST_OUT" <<'PY'
import json, sys
rep, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p = d["panels"][0]
assert [(n["name"], n["state"]) for n in p["nodes"]] == [(n["name"], n["state"]) for n in rep["nodes"]]
assert len(p["marks"]) == sum(len(f["group"]) for f in rep["figures"] if f.get("ratio") is not None) > 0
PY
ok $? "  the validate report's nodes and its rounds' figures"
expect_success "topo of 3 virtual nodes" np_mpi 3 topo --ranks-per-node 1 \
	--format json --output "$TEST_TMP/fleet.json"
"$py" - "$TEST_TMP/fleet.json" <<'PY'
import json, sys
# a fourth node that differs: one finding more
rep = json.load(open(sys.argv[1]))
s = rep["fleet"]["summaries"]
s.append(dict(s[0], host="odd", differs=True, findings=s[0]["findings"] + ["health-shm-small"]))
json.dump(rep, open(sys.argv[1], "w"))
PY
expect_success "  its fleet grid" plot -o "$TEST_TMP/fleet.png" "$TEST_TMP/fleet.json"
expect_success "  its data" plot --data "$TEST_TMP/fleet.json"
"$py" - "$TEST_TMP/fleet.json" "$TEST_OUT" <<'PY'
import json, sys
rep, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p = d["panels"][0]
rows = rep["fleet"]["summaries"]
assert [n["host"] for n in p["nodes"]] == [r["host"] for r in rows]
assert [n["differs"] for n in p["nodes"]] == [r["differs"] for r in rows]
assert sorted((c["node"], c["check"]) for c in p["cells"]) == sorted((i, f) for i, r in enumerate(rows) for f in r["findings"])
assert "health-shm-small" in p["checks"]
PY
ok $? "  one cell per node and finding, the node that differs marked"
"$NP_BIN" topo --format json --output "$TEST_TMP/one.json" 2>/dev/null
expect_code 64 "a topo report of one node" plot --data "$TEST_TMP/one.json"
expect_grep "the fleet view needs one written under mpirun" "$TEST_ERR" "  says what is needed"

# last, what judges timing (tune's winners): apart from the other tests
# that judge it
timing_alone
# a tune report (the baseline slowed on purpose, so that candidates win;
# one candidate refused): a line per measured candidate whose points are
# the rows' speed ratios, a mark per point with its verdict, the winner
# of every row starred (at 1.0 where the baseline wins), the refused one
# named, not drawn
U=$TEST_TMP/u.json
NCCL_PROBE_TEST_TUNE='0/NCCL_PROBE_TEST_SLOW=0:30%' OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
	expect_success "a tune report" np_mpi 2 tune --backend mpi --sweep 1K:64K:x4 --budget 0.2 \
	--try OMPI_MCA_coll_tuned_allreduce_algorithm=0,ring --try OMPI_MCA_no_such_variable=1 -J "$U"
expect_success "--data of the tune report" plot --data "$U"
"$py" - "$TEST_OUT" "$U" <<'PY'
import json, sys
panel = json.load(open(sys.argv[1]))["panels"][0]
rep = json.load(open(sys.argv[2]))
assert panel["kind"] == "tune", panel["kind"]
measured = [a["index"] for a in rep["arms"][1:] if a["state"] == "measured"]
assert measured == [1, 2], measured
for k in measured:
    want = [(float(r["size"]), c["speed_ratio"]) for r in rep["rows"] for c in r["arms"]
            if c["arm"] == k and not c["ignored"] and c["speed_ratio"] is not None]
    line = [l for l in panel["lines"] if l["arm"] == k]
    assert len(line) == 1 and list(zip(line[0]["x"], line[0]["y"])) == want, (k, line, want)
    marks = [(m["size"], m["verdict"]) for m in panel["marks"] if m["arm"] == k]
    assert marks == [(float(r["size"]), c["verdict"]) for r in rep["rows"] for c in r["arms"] if c["arm"] == k], marks
wins = [(w["size"], w["arm"], w["speed_ratio"]) for w in panel["winners"]]
want = []
for r in rep["rows"]:
    w = r["winner"]
    want.append((float(r["size"]), w, 1.0 if not w else r["arms"][w]["speed_ratio"]))
assert wins == want, (wins, want)
assert panel["not_drawn"] == [{"label": "OMPI_MCA_no_such_variable=1", "state": "refused"}], panel["not_drawn"]
print("# %d rows, winners %s" % (len(rep["rows"]), [w[1] for w in wins]))
PY
ok $? "  a line per candidate with the rows' ratios, their verdicts, each row's winner, the refused named"
# every candidate refused: no winner is drawn, the baseline's neither
R=$TEST_TMP/refused.json
expect_code 64 "a tune report with every candidate refused" np_mpi 2 tune --backend mpi --sweep 1K:4K \
	--budget 0.2 --try OMPI_MCA_no_such_variable=1 -J "$R"
expect_success "--data of it" plot --data "$R"
"$py" - "$TEST_OUT" <<'PY'
import json, sys
panel = json.load(open(sys.argv[1]))["panels"][0]
assert panel["winners"] == [] and panel["lines"] == [], panel
assert panel["not_drawn"] == [{"label": "OMPI_MCA_no_such_variable=1", "state": "refused"}], panel
PY
ok $? "  no winner drawn, the refused candidate named"
expect_success "a PNG and an SVG of the tune report" plot -o "$TEST_TMP/u.png" "$U"
plot -o "$TEST_TMP/u.svg" "$U" && grep -q '<svg' "$TEST_TMP/u.svg" && [ "$(head -c 4 "$TEST_TMP/u.png" | od -An -c | tr -d ' ')" = '211PNG' ]
ok $? "  both whole"
done_testing
