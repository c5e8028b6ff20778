#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check 'nccl-probe topo --format json' against a hand-written truth file.

A truth file says what a reader of the machine's file knows, written from
the XML, not from the program. One fact a line, '#' comments:

  gpus N | nics N | rdma_nics N | numa N    counts
  numa_cpuless N                            NUMA nodes without a CPU
  gpu BUSID key=value ...                   one GPU, by PCI bus id:
      nearest=ID[,ID]   its nearest data NIC(s), by bus id (or name when
                        the NIC has none), '-' for none
      path=CLASS        nvidia-smi's class to them; nccl=CLASS, NCCL's
      nvlinks=N|unknown gdr=yes|no|unknown name=TEXT|unknown (_ for space)
      pxn=BUSID|-       the GPU NCCL sends through by PXN, '-' for none
      numa=N|unknown    its NUMA node
  nic ID role=data|mgmt|socket rdma=yes|no|unknown state=ACTIVE|DOWN|...
      port=N            the port as the file gives it (0 for a socket)
  gg BUSID BUSID CELL                       GPU-GPU cell (NV6, PIX, unknown)
  trays N                                   trays of a multi-node NVLink dump
  tray HASH key=value ...                   one tray, by host_hash: gpus=N nics=N
                                            gdr=yes|no|unknown reported=yes|no
  expect ID | forbid ID                     finding ids that must (not) appear
  note TEXT                                 a note holds TEXT (_ for space)
  says ID TEXT                              finding ID's message or evidence
                                            holds TEXT (_ for space)
  rec VAR TEXT                              a recommendation of VAR whose
                                            reason holds TEXT (_ for space)
  norec VAR                                 no recommendation of VAR
  check-gdr-exit N                          exit status of --check-gdr (0, 1, 5)

Prints one line per mismatch; exit status 1 when there is any.
"""
import json
import sys


def tri(v):
    return "unknown" if v is None else ("yes" if v else "no")


def main(truth_path, json_path):
    d = json.load(open(json_path))
    bad = []
    gpus = {g["bus_id"]: g for g in d["gpus"]}
    nics = d["nics"]
    nic_id = [n["bus_id"] or n["name"] for n in nics]
    ids = {f["id"] for f in d["findings"]}
    order = [g["bus_id"] for g in d["gpus"]]

    def want(what, got, exp):
        if str(got) != str(exp):
            bad.append("%s: got %s, truth says %s" % (what, got, exp))

    for ln, line in enumerate(open(truth_path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        w = line.split()
        k = w[0]
        if k == "gpus":
            want("GPU count", len(gpus), w[1])
        elif k == "nics":
            want("NIC count", len(nics), w[1])
        elif k == "rdma_nics":
            want("RDMA NIC count", sum(1 for n in nics if n["rdma"] is not False), w[1])
        elif k == "numa":
            want("NUMA node count", len(d["numa"]), w[1])
        elif k == "numa_cpuless":
            want("CPU-less NUMA node count", sum(1 for n in d["numa"] if not n["cpus"]), w[1])
        elif k == "gpu":
            g = gpus.get(w[1])
            if g is None:
                bad.append("GPU %s: not found" % w[1])
                continue
            for kv in w[2:]:
                key, val = kv.split("=", 1)
                what = "GPU %s %s" % (w[1], key)
                if key == "nearest":
                    got = ",".join(sorted(nic_id[i] for i in g["nearest_nics"])) or "-"
                    want(what, got, ",".join(sorted(val.split(","))))
                elif key == "path":
                    want(what, g["nearest_path"] or "-", val)
                elif key == "nccl":
                    want(what, g["nearest_path_nccl"] or "-", val)
                elif key == "nvlinks":
                    want(what, "unknown" if g["nvlinks"] is None else g["nvlinks"], val)
                elif key == "gdr":
                    want(what, tri(g["gdr_ok"]), val)
                elif key == "numa":
                    want(what, "unknown" if g["numa"] is None else g["numa"], val)
                elif key == "pxn":
                    p = g.get("pxn_gpu")
                    want(what, "-" if p is None else d["gpus"][p]["bus_id"], val)
                elif key == "name":
                    want(what, g["name"] or "unknown", val.replace("_", " "))
                else:
                    bad.append("line %d: unknown key %s" % (ln, key))
        elif k == "nic":
            idx = [i for i, x in enumerate(nic_id) if x == w[1]]
            if not idx:
                bad.append("NIC %s: not found" % w[1])
                continue
            n = nics[idx[0]]
            for kv in w[2:]:
                key, val = kv.split("=", 1)
                got = n["role"] if key == "role" else tri(n["rdma"]) if key == "rdma" \
                    else str(n["state"]) if key == "state" else str(n["port"]) if key == "port" else "?"
                want("NIC %s %s" % (w[1], key), got, val)
        elif k == "gg":
            try:
                cell = d["paths"]["gpu_gpu"][order.index(w[1])][order.index(w[2])]
            except ValueError:
                bad.append("gg %s %s: GPU not found" % (w[1], w[2]))
                continue
            want("GPU %s to %s" % (w[1], w[2]), cell or "unknown", w[3])
        elif k == "trays":
            want("tray count", len(d.get("trays") or []), w[1])
        elif k == "tray":
            tr = [x for x in d.get("trays") or [] if x["host_hash"] == w[1]]
            if not tr:
                bad.append("tray %s: not found" % w[1])
                continue
            for kv in w[2:]:
                key, val = kv.split("=", 1)
                got = tri(tr[0]["gdr_ok"]) if key == "gdr" else tri(tr[0]["reported"]) if key == "reported" \
                    else str(tr[0].get(key, "?"))
                want("tray %s %s" % (w[1], key), got, val)
        elif k == "note":
            text = " ".join(w[1:]).replace("_", " ")
            if not any(text in n for n in d["notes"]):
                bad.append("no note holds '%s' (notes: %s)" % (text, d["notes"]))
        elif k == "says":
            text = " ".join(w[2:]).replace("_", " ")
            if not any(f["id"] == w[1] and (text in f["message"] or text in (f.get("evidence") or ""))
                       for f in d["findings"]):
                bad.append("no finding %s says '%s'" % (w[1], text))
        elif k == "rec":
            text = " ".join(w[2:]).replace("_", " ")
            if not any(r["variable"] == w[1] and text in r["reason"] for r in d.get("recommendations") or []):
                bad.append("no recommendation of %s says '%s'" % (w[1], text))
        elif k == "norec":
            if any(r["variable"] == w[1] for r in d.get("recommendations") or []):
                bad.append("a recommendation of %s, which the truth forbids" % w[1])
        elif k == "check-gdr-exit":
            pass  # the shell test runs --check-gdr and compares
        elif k == "expect":
            if w[1] not in ids:
                bad.append("finding %s expected, not found (found: %s)" % (w[1], " ".join(sorted(ids))))
        elif k == "forbid":
            if w[1] in ids:
                bad.append("finding %s must not appear" % w[1])
        else:
            bad.append("line %d: unknown fact %s" % (ln, k))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
