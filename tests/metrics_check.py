# SPDX-License-Identifier: MIT
"""Checks of --metrics files for tests/t0060-metrics.sh: each file parsed
with prometheus_client's parser and its values compared with the JSON
report of the same run. Prints what differs as TAP diagnostics ('# ...')
and exits 1; exits 0 when all agrees.

  metrics_check.py lint FILE...            names, HELP/TYPE, labels, one family each
  metrics_check.py sweep PROM JSON T0 T1   rows, verdict, run info, timestamp
  metrics_check.py topo PROM JSON          findings, GDR per GPU, health
  metrics_check.py isolate PROM JSON RC    node states, exit code
  metrics_check.py validate DIR JSON RC    one file per node: state, exit code
  metrics_check.py help FILE...            a family's HELP is the same in every file
  metrics_check.py names FILE...           the sample names written, one a line
  metrics_check.py dashboard DASH NAMES    every metric and label a query uses is written
"""
import json
import math
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

PFX = "nccl_probe_"
NAME_RE = re.compile(r"^nccl_probe_[a-z][a-z0-9_]*$")
LABEL_RE = re.compile(r"^[a-z][a-z0-9_]*$")
bad = []


def fail(msg):
    bad.append(msg)


def parse(path):
    text = open(path).read()
    fams = list(text_string_to_metric_families(text))
    return text, fams


def samples(fams, name):
    """{frozenset(labels): value} of the samples called NAME, less the label
    file (a topo file's own name, checked by lint)."""
    out = {}
    for f in fams:
        for s in f.samples:
            if s.name == name:
                key = frozenset((k, v) for k, v in s.labels.items() if k != "file")
                if key in out:
                    fail("%s%s written twice" % (name, dict(s.labels)))
                out[key] = s.value
    return out


def one(fams, name, **labels):
    want = frozenset(labels.items())
    got = [v for k, v in samples(fams, name).items() if k == want]
    return got[0] if got else None


def close(a, b, rel=1e-8):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


def lint(paths):
    for p in paths:
        text, fams = parse(p)
        names = [f.name for f in fams]
        if not fams:
            fail("%s: no metric family" % p)
        if len(names) != len(set(names)):
            fail("%s: a family is split in two: %s" % (p, names))
        for f in fams:
            if not NAME_RE.match(f.name):
                fail("%s: name %r is not nccl_probe_ snake_case" % (p, f.name))
            if ("# HELP %s " % f.name) not in text or ("# TYPE %s gauge\n" % f.name) not in text:
                fail("%s: %s lacks its HELP or TYPE line" % (p, f.name))
            if f.type != "gauge" or not f.documentation:
                fail("%s: %s has type %r, help %r" % (p, f.name, f.type, f.documentation))
            if not f.samples:
                fail("%s: %s has HELP and TYPE but no sample" % (p, f.name))
            for s in f.samples:
                for k in s.labels:
                    if not LABEL_RE.match(k):
                        fail("%s: label %r of %s" % (p, k, f.name))
                if "file" in s.labels and s.labels["file"] != p.rsplit("/", 1)[-1]:
                    fail("%s: %s has file=%r, not the file's name" % (p, s.name, s.labels["file"]))
                if not math.isfinite(s.value):
                    fail("%s: %s%s is %r" % (p, s.name, s.labels, s.value))
        for unit in ("gbps", "gb_per", "mhz", "_ms", "_us", "percent"):
            if unit in " ".join(names):
                fail("%s: a name in %r is not in base units" % (p, unit))


def state_set(fams, name, key, states):
    """{key label value: the one state that is 1}; a key whose states are
    not exactly one 1 and the others 0 is a failure."""
    got = {}
    for labels, v in samples(fams, name).items():
        d = dict(labels)
        got.setdefault(d[key], {})[d["state"]] = v
    out = {}
    for k, st in got.items():
        if sorted(st) != sorted(states) or sorted(st.values()) != [0] * (len(states) - 1) + [1]:
            fail("%s{%s=%r}: not a state set of %s: %r" % (name, key, k, states, st))
            continue
        out[k] = [s for s, v in st.items() if v == 1][0]
    return out


def check_sweep(prom, js, t0, t1):
    _, fams = parse(prom)
    d = json.load(open(js))
    fam = {"busbw": ("busbw_bytes_per_second", 1e9), "algbw": ("algbw_bytes_per_second", 1e9),
           "time": ("time_seconds", 1), "time_min": ("time_min_seconds", 1), "time_max": ("time_max_seconds", 1),
           "eff": ("eff_ratio", 1), "limit": ("limit_bytes_per_second", 1e9), "wrong": ("wrong_elements", 1)}
    rows = d["results"]
    if not rows:
        fail("the JSON report has no row")
    for key, (name, scale) in fam.items():
        got = samples(fams, PFX + name)
        want = 0
        for r in rows:
            labels = dict(coll=r["coll"], size_bytes=str(r["size"]), dtype=r["type"])
            v = got.get(frozenset(labels.items()))
            if r[key] is None:
                if v is not None:
                    fail("%s %r: written as %r, but null in the JSON" % (name, labels, v))
                continue
            want += 1
            if not close(v, r[key] * scale):
                fail("%s %r: %r, the JSON says %r x %g" % (name, labels, v, r[key], scale))
        if len(got) != want:
            fail("%s: %d samples for %d JSON rows with a value" % (name, len(got), want))
    got = samples(fams, PFX + "row_verdict_pass")
    for r in rows:
        v = got.get(frozenset(dict(coll=r["coll"], size_bytes=str(r["size"]), dtype=r["type"]).items()))
        want = None if r["verdict"] is None else float(r["verdict"] == "pass")
        if v != want:
            fail("row_verdict_pass %s %d: %r, the JSON verdict %r" % (r["coll"], r["size"], v, r["verdict"]))
    v = d["verdict"]
    if one(fams, PFX + "exit_code", command="sweep") != v["exit_code"]:
        fail("exit_code %r, the JSON %r" % (one(fams, PFX + "exit_code", command="sweep"), v["exit_code"]))
    if one(fams, PFX + "sweep_judged") != float(v["judged"]):
        fail("sweep_judged %r, the JSON %r" % (one(fams, PFX + "sweep_judged"), v["judged"]))
    info = samples(fams, PFX + "run_info")
    if len(info) != 1:
        fail("run_info: %d samples" % len(info))
    else:
        labels, value = dict(list(info)[0]), list(info.values())[0]
        want = dict(command="sweep", version=d["tool"]["version"], backend=d["backend"]["name"]
                    if isinstance(d["backend"], dict) else d["backend"], run_id=d["run_id"])
        for k, x in want.items():
            if labels.get(k) != x:
                fail("run_info label %s=%r, the JSON %r" % (k, labels.get(k), x))
        if value != 1 or not labels.get("host"):
            fail("run_info: value %r, host %r" % (value, labels.get("host")))
    if one(fams, PFX + "sweep_ranks") != d["world"]["ranks"]:
        fail("sweep_ranks %r, the JSON %r" % (one(fams, PFX + "sweep_ranks"), d["world"]["ranks"]))
    check_stamp(fams, "sweep", t0, t1)


def check_stamp(fams, command, t0, t1, **labels):
    ts = one(fams, PFX + "last_run_timestamp_seconds", command=command, **labels)
    if ts is None or not float(t0) - 1 <= ts <= float(t1) + 1:
        fail("last_run_timestamp_seconds %r is not within the run (%s..%s)" % (ts, t0, t1))


def check_topo(prom, js):
    _, fams = parse(prom)
    d = json.load(open(js))
    want = {}
    for f in d["findings"]:
        k = (f["severity"], f["id"])
        want[k] = want.get(k, 0) + 1
    got = {}
    for labels, v in samples(fams, PFX + "topo_findings").items():
        x = dict(labels)
        got[(x["level"], x["kind"])] = v
    if got != want:
        fail("topo_findings %r, the JSON's findings %r" % (got, want))
    if one(fams, PFX + "topo_gpus") != len(d["gpus"]) or one(fams, PFX + "topo_nics") != len(d["nics"]):
        fail("topo_gpus/nics %r/%r, the JSON %d/%d" % (one(fams, PFX + "topo_gpus"), one(fams, PFX + "topo_nics"),
                                                      len(d["gpus"]), len(d["nics"])))
    gdr = state_set(fams, PFX + "gdr_state", "gpu", ["yes", "no", "unknown"])
    wantg = {str(g["index"]): {True: "yes", False: "no", None: "unknown"}[g["gdr_ok"]] for g in d["gpus"]}
    if gdr != wantg:
        fail("gdr_state %r, the JSON's gdr_ok %r" % (gdr, wantg))
    for labels in samples(fams, PFX + "gdr_state"):
        x = dict(labels)
        if x["bus_id"] != d["gpus"][int(x["gpu"])]["bus_id"]:
            fail("gdr_state gpu %s: bus_id %r" % (x["gpu"], x["bus_id"]))
    h = d.get("health")
    figs = {"gpu_sm_clock_hertz": ("sm_mhz", 1e6), "gpu_sm_max_clock_hertz": ("sm_max_mhz", 1e6),
            "gpu_temperature_celsius": ("temp_c", 1), "gpu_temperature_margin_celsius": ("slowdown_headroom_c", 1),
            "gpu_power_watts": ("power_mw", 1e-3), "gpu_ecc_uncorrected_errors": ("ecc_uncorrected_volatile", 1)}
    for name, (key, scale) in figs.items():
        got = samples(fams, PFX + name)
        want = {}
        for g in (h or {}).get("gpus", []):
            if g[key] is not None:
                want[frozenset(dict(gpu=str(g["index"]), bus_id=g["bus_id"]).items())] = g[key] * scale
        if sorted(got) != sorted(want) or any(not close(got[k], want[k]) for k in want):
            fail("%s %r, the JSON's %s %r" % (name, got, key, want))
    bits = {"gpu_idle": 0x1, "applications_clocks_setting": 0x2, "sw_power_cap": 0x4, "hw_slowdown": 0x8,
            "sync_boost": 0x10, "sw_thermal_slowdown": 0x20, "hw_thermal_slowdown": 0x40,
            "hw_power_brake_slowdown": 0x80, "display_clock_setting": 0x100}
    got = samples(fams, PFX + "gpu_clock_event_reason")
    want = {}
    for g in (h or {}).get("gpus", []):
        if g["clock_event_reasons"] is not None:
            for r, b in bits.items():
                want[frozenset(dict(gpu=str(g["index"]), bus_id=g["bus_id"], reason=r).items())] = \
                    float(bool(g["clock_event_reasons"] & b))
    if got != want:
        fail("gpu_clock_event_reason %r, the JSON's clock_event_reasons give %r" % (got, want))
    return bool(h and h.get("gpus"))


def check_isolate(prom, js, rc):
    _, fams = parse(prom)
    d = json.load(open(js))
    cls = lambda s: s if s in ("ok", "unknown") else "bad"
    got = state_set(fams, PFX + "isolate_node_state", "node", ["ok", "bad", "unknown"])
    want = {n["name"]: cls(n["state"]) for n in d["nodes"]}
    if got != want:
        fail("isolate_node_state %r, the JSON's states %r" % (got, want))
    why = {dict(k)["node"]: dict(k)["reason"] for k in samples(fams, PFX + "isolate_node_bad")}
    wantw = {n["name"]: n["state"] for n in d["nodes"] if cls(n["state"]) == "bad"}
    if why != wantw:
        fail("isolate_node_bad %r, the JSON %r" % (why, wantw))
    for k, v in (("exit_code", d["exit_code"]), ("isolate_rounds", d["rounds"]), ("isolate_nodes", d["nodes_total"])):
        got = one(fams, PFX + k, command="isolate") if k == "exit_code" else one(fams, PFX + k)
        if got != v:
            fail("%s %r, the JSON %r" % (k, got, v))
    if d["exit_code"] != int(rc):
        fail("the JSON's exit_code %r, the command exited %s" % (d["exit_code"], rc))
    print("# states: %s" % ", ".join("%s %s" % kv for kv in sorted(want.items())))


def check_validate(dirpath, js, rc):
    import glob
    import os
    d = json.load(open(js))
    files = sorted(glob.glob(os.path.join(dirpath, "*.prom")))
    names = sorted("nccl-probe-validate.%s.prom" % n["name"] for n in d["nodes"])
    if [os.path.basename(f) for f in files] != names:
        fail("files %r, one per node wanted: %r" % ([os.path.basename(f) for f in files], names))
    others = [x for x in os.listdir(dirpath) if not x.endswith(".prom")]
    if others:
        fail("left in the directory: %r" % others)
    cls = lambda s: s if s in ("ok", "unknown") else "bad"
    figs = {}
    rep = None
    for n in d["nodes"]:
        p = os.path.join(dirpath, "nccl-probe-validate.%s.prom" % n["name"])
        try:
            _, fams = parse(p)
        except (OSError, ValueError) as e:
            fail("%s: %s" % (p, e))
            continue
        st = state_set(fams, PFX + "validate_node_state", "node", ["ok", "bad", "unknown"])
        if st != {n["name"]: cls(n["state"])}:
            fail("%s: validate_node_state %r, the JSON %r" % (p, st, n["state"]))
        b = [dict(k) for k in samples(fams, PFX + "validate_node_bad")]
        if (b != [dict(node=n["name"], reason=n["state"])]) if cls(n["state"]) == "bad" else b:
            fail("%s: validate_node_bad %r, the JSON %r" % (p, b, n["state"]))
        if one(fams, PFX + "exit_code", command="validate", node=n["name"]) != int(rc) or d["exit_code"] != int(rc):
            fail("%s: exit_code %r, the run exited %s" % (p, one(fams, PFX + "exit_code", command="validate",
                                                                  node=n["name"]), rc))
        figs[n["name"]] = {dict(k)["figure"]: v for k, v in
                           samples(fams, PFX + "validate_node_busbw_bytes_per_second").items()}
    return figs


def check_validate_figures(figs, isojson):
    """Each node's figures against isolate's own report of the run."""
    d = json.load(open(isojson))
    for name, got in figs.items():
        pairs = [f["busbw"] for f in d["figures"] if f["kind"] == "pair" and name in f["group"]]
        world = [f["busbw"] for f in d["figures"] if f["kind"] == "world"]
        if not close(got.get("pair_min"), min(pairs) * 1e9 if pairs else None, 1e-6):
            fail("%s: pair_min %r, isolate's pairs %r GB/s" % (name, got.get("pair_min"), pairs))
        if not close(got.get("world"), world[-1] * 1e9 if world else None, 1e-6):
            fail("%s: world %r, isolate's %r GB/s" % (name, got.get("world"), world))


def check_help(paths):
    seen = {}
    for p in paths:
        _, fams = parse(p)
        for f in fams:
            if f.name in seen and seen[f.name][1] != f.documentation:
                fail("%s: HELP of %s differs from %s's: %r / %r" % (p, f.name, seen[f.name][0], f.documentation,
                                                                     seen[f.name][1]))
            seen.setdefault(f.name, (p, f.documentation))


def names(paths):
    out = {}
    for p in paths:
        _, fams = parse(p)
        for f in fams:
            for s in f.samples:
                out.setdefault(s.name, set()).update(s.labels)
    for n in sorted(out):
        print("%s %s" % (n, " ".join(sorted(out[n]))))


def check_dashboard(dash, names_file):
    written = {}
    for l in open(names_file):
        f = l.split()
        written[f[0]] = set(f[1:])
    d = json.load(open(dash))
    exprs = []

    def walk(v):
        if isinstance(v, dict):
            for key in ("expr", "definition"):
                if isinstance(v.get(key), str):
                    exprs.append(v[key])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(d.get("panels", []))
    walk(d.get("templating", {}))
    if len(exprs) < 6:
        fail("the dashboard has %d queries" % len(exprs))
    used = set()
    for e in exprs:
        for m in re.finditer(r"\b(nccl_probe_[a-z0-9_]+)\b(\{([^}]*)\})?", e):
            used.add(m.group(1))
            if m.group(1) not in written:
                fail("query %r uses %s, which no file of this run has" % (e, m.group(1)))
                continue
            for lab in re.findall(r"([a-z_][a-z0-9_]*)\s*(?:=~|!=|!~|=)", m.group(3) or ""):
                if lab not in written[m.group(1)] | {"instance", "job"}:
                    fail("query %r: %s has no label %r" % (e, m.group(1), lab))
        for by in re.findall(r"\bby\s*\(([^)]*)\)", e):
            for lab in [x.strip() for x in by.split(",") if x.strip()]:
                if lab not in {"instance", "job"} and not any(lab in ls for ls in written.values()):
                    fail("query %r groups by %r, a label no metric has" % (e, lab))
    ds = [v for v in d.get("templating", {}).get("list", []) if v.get("type") == "datasource"]
    if not ds or ds[0].get("query") != "prometheus":
        fail("no Prometheus datasource variable in templating")
    else:
        ref = "${%s}" % ds[0]["name"]

        def check_ds(v, where):
            if isinstance(v, dict):
                if "targets" in v or "expr" in v:
                    u = v.get("datasource", {})
                    if (u.get("uid") if isinstance(u, dict) else u) != ref:
                        fail("%s: datasource %r, not the variable %s" % (where, u, ref))
                for k, x in v.items():
                    check_ds(x, v.get("title", where))
            elif isinstance(v, list):
                for x in v:
                    check_ds(x, where)
        check_ds(d.get("panels", []), "dashboard")
    print("# %d queries use %s" % (len(exprs), ", ".join(sorted(used))))


def main(argv):
    cmd, args = argv[0], argv[1:]
    if cmd == "lint":
        lint(args)
    elif cmd == "sweep":
        check_sweep(*args)
    elif cmd == "topo":
        check_topo(*args)
    elif cmd == "isolate":
        check_isolate(*args)
    elif cmd == "validate":
        figs = check_validate(args[0], args[1], args[2])
        if len(args) > 3:
            check_validate_figures(figs, args[3])
    elif cmd == "help":
        check_help(args)
    elif cmd == "names":
        names(args)
        return 0
    elif cmd == "dashboard":
        check_dashboard(*args)
    for b in bad[:20]:
        print("# " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
