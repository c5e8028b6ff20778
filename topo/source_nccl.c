/* SPDX-License-Identifier: MIT */
/* NCCL topology XML source (<system version="1">, the NCCL_TOPO_FILE and
 * NCCL_TOPO_DUMP_FILE format), read with libxml2. Each <cpu> is a NUMA node
 * and stands for its host bridge; <pci> elements of class 0x0604 are
 * switches; GPUs are class 0x03 (or hold <gpu>), NICs class 0x02 (or hold
 * <nic>); a <nic> right under a <cpu> holds NCCL's interfaces without a
 * PCI device (sockets). What the file leaves out stays unknown: a GPU
 * without <gpu> has unknown NVLinks and GDR attribute. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hwloc.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "internal.h"
#include "topo.h"
#include "xmlfile.h"

static const char *attr(xmlNodePtr n, const char *name, char *buf, size_t len)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);

	if (!v)
		return NULL;
	snprintf(buf, len, "%s", (const char *)v);
	xmlFree(v);
	return buf;
}

static bool is_elem(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* NCCL's affinity is a kernel cpumask ("000000ff,ffff0000"); hwloc's
 * taskset syntax is the same hex without the commas. */
static void mask_to_list(const char *mask, char *out, size_t len)
{
	char hex[512];
	size_t k = 0;
	hwloc_bitmap_t b = hwloc_bitmap_alloc();

	out[0] = '\0';
	if (!b)
		return;
	hex[k++] = '0';
	hex[k++] = 'x';
	for (const char *p = mask; *p && k < sizeof(hex) - 1; p++)
		if (*p != ',')
			hex[k++] = *p;
	hex[k] = '\0';
	if (hwloc_bitmap_taskset_sscanf(b, hex) == 0)
		hwloc_bitmap_list_snprintf(out, len, b);
	hwloc_bitmap_free(b);
}

/* NVLink targets as NCCL classes them (kvDictPciClass): 0x068000 an
 * NVSwitch (also what NCCL writes when the far end is hidden, target
 * "fffffff:ffff:ff"), 0x068001 a CPU, 0x03... a GPU. */
enum nv_target { NV_GPU, NV_SWITCH, NV_CPU, NV_OTHER };

struct nvl {
	char target[NP_BUSID_LEN]; /* normalized, "" when not a bus id */
	enum nv_target kind;
	int count;
};

#define NV_PER_GPU 32

struct walk {
	struct np_topo *t;
	const char *path;
	struct np_err *err;
	enum np_status st; /* the first bad value stops the walk */
	int numa;
	int cpu_nics;    /* <nic> directly under a <cpu> */
	int cpu_repeats; /* socket interfaces listed again under a later <cpu> */
	int pci_sockets; /* <net> of a PCI NIC that NCCL's socket transport wrote */
	int repeats;     /* <pci> switches read under an id of their own */
	struct nvl nv[NP_MAX_GPUS][NV_PER_GPU]; /* deferred <nvlink> entries, by file order */
	int nnv[NP_MAX_GPUS];
	bool has_gpu_elem[NP_MAX_GPUS];
	bool nv_unknown[NP_MAX_GPUS];     /* an <nvlink> without a usable count */
	struct np_gpu order[NP_MAX_GPUS]; /* the GPUs in file order */
};

/* Stop the walk on a value that no NCCL writes; the line says which. */
static void bad(struct walk *w, xmlNodePtr n, const char *name, const char *val, const char *what)
{
	char v[40];
	size_t k = 0;

	if (w->st)
		return;
	for (const char *p = val; *p && k + 1 < sizeof(v); p++)
		v[k++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
	v[k] = '\0';
	w->st = np_fail(w->err, NP_EUSAGE,
			"--input '%s' line %ld: <%s> %s=\"%s%s\" %s; correct it or dump the file again (NCCL_TOPO_DUMP_FILE)",
			w->path, (long)xmlGetLineNo(n), (const char *)n->name, name, v,
			val[k] ? "..." : "", what);
}

/* An attribute as a whole number in [lo, hi]: 1 when it is one, 0 when
 * absent or empty, -1 (the walk stopped) otherwise. */
static int num(struct walk *w, xmlNodePtr n, const char *name, int base, long lo, long hi,
	       long *out)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	const char *why;
	char what[96];
	int r = 0;

	if (v && v[0]) {
		r = 1;
		if (!np_xml_long((const char *)v, base, lo, hi, out, &why)) {
			snprintf(what, sizeof(what),
				 base == 16 ? "%s (0x%lx..0x%lx)" : "%s (%ld..%ld)", why, lo, hi);
			bad(w, n, name, (const char *)v, what);
			r = -1;
		}
	}
	xmlFree(v);
	return r;
}

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(((const struct np_gpu *)a)->busid, ((const struct np_gpu *)b)->busid);
}

/* The <net> entries of a <nic>: one NIC port each. busid is "" for a
 * <nic> straight under a <cpu> (NCCL's socket and virtual interfaces). */
static void add_nets(struct walk *w, xmlNodePtr nic, const char *busid, int node, long cls,
		     long vendor)
{
	struct np_topo *t = w->t;
	bool on_cpu = !busid[0];
	int added = 0;

	for (xmlNodePtr net = nic->children; net && !w->st; net = net->next) {
		char name[NP_NAME_LEN], buf[NP_NAME_LEN];
		struct np_nic *n;
		long port = 1, v, maxconn = 0;
		bool port0 = false;
		if (!is_elem(net, "net"))
			continue;
		if (num(w, net, "net", 10, 0, 1, &v) > 0 && v == 0)
			continue; /* a physical NIC fused into a virtual one */
		if (!attr(net, "name", buf, sizeof(buf)) || !np_devname_valid(buf, NP_IBNAMSIZ)) {
			if (on_cpu)
				snprintf(name, sizeof(name), "net@cpu%d.%d", w->numa, w->cpu_nics);
			else
				snprintf(name, sizeof(name), "nic@%s", busid);
		} else {
			snprintf(name, sizeof(name), "%s", buf);
		}
		if (num(w, net, "port", 10, 0, 255, &v) >
		    0) { /* socket interfaces: 0, shown as written */
			port = v;
			port0 = v == 0;
		}
		if (num(w, net, "maxconn", 10, 0, 0x7fffffff, &maxconn) < 0)
			return;
		if (w->st)
			return;
		if ((n = np_topo_nic_find(t, name, (int)port))) {
			/* NCCL lists each socket interface (no PCI device) under
			 * every <cpu> it finds: the same interface, read once */
			if (on_cpu && !n->busid[0]) {
				w->cpu_repeats++;
				continue;
			}
			bad(w, net, "name", name, "names a NIC port a second time");
			return;
		}
		n = np_topo_nic_add(t, name, (int)port);
		if (!n) {
			np_topo_note(t, "more than %d NIC ports; the rest are left out",
				     NP_MAX_NICS);
			return;
		}
		added++;
		snprintf(n->busid, sizeof(n->busid), "%s", busid);
		n->pci = node;
		n->numa = w->numa;
		/* Mb/s; NCCL writes -1 when unknown. A plugin may report another
		 * unit (RCCL's dumps of Slingshot cxi NICs say 200000000 for 200
		 * Gb/s): a rate above 10 Tb/s is no port's, so it is unknown */
		if (num(w, net, "speed", 10, -1, 0x7fffffff, &v) > 0 && v > 0) {
			if (v <= 10000000)
				n->rate_gbit = (double)v / 1000.0;
			else
				np_topo_note(t,
					     "<net> speed=\"%ld\" is above any port's rate in Mb/s (a plugin's own unit?); that NIC's rate is unknown",
					     v);
		}
		if (num(w, net, "gdr", 10, 0, 1, &v) > 0)
			n->gdr = v ? NP_YES : NP_NO;
		if (on_cpu) {
			n->rdma = NP_NO; /* no PCI device: NCCL attaches socket interfaces here */
		} else if (port0 && n->gdr != NP_YES && (maxconn == 65536 || cls >> 8 == 0x0280)) {
			/* NCCL's socket transport (net_socket.cc) writes port 0,
			 * maxconn 65536 and gdr 0 for an interface of a PCI NIC;
			 * its IB transport's ports count from 1; 0x0280 is a
			 * wireless controller. A socket interface, not RDMA */
			n->rdma = NP_NO;
			w->pci_sockets++;
		} else if (vendor == 0x1d0f) {
			n->ll = NP_LL_EFA;
		} else if ((cls >> 8) == 0x0207) {
			n->ll = NP_LL_IB;
		} else if (n->gdr != NP_YES) {
			n->rdma = NP_UNKNOWN; /* an Ethernet function: RoCE or a socket, the file
						 does not say */
		}
	}
	if (on_cpu)
		w->cpu_nics++;
	if (!added && !on_cpu) { /* a bare NIC: the PCI device only */
		char name[NP_NAME_LEN];
		struct np_nic *n;
		snprintf(name, sizeof(name), "nic@%s", busid);
		n = np_topo_nic_add(t, name, 1);
		if (!n)
			return;
		snprintf(n->busid, sizeof(n->busid), "%s", busid);
		n->pci = node;
		n->numa = w->numa;
		n->ll = vendor == 0x1d0f       ? NP_LL_EFA
			: (cls >> 8) == 0x0207 ? NP_LL_IB
					       : NP_LL_UNKNOWN;
		n->rdma = n->ll != NP_LL_UNKNOWN ? NP_YES : NP_UNKNOWN;
	}
}

/* link_speed as NCCL writes it: "16.0 GT/s PCIe", "16 GT/s", "Unknown".
 * NCCL writes the maximums (xml.cc: sysfs max_link_speed and
 * max_link_width, the lesser of the device's and its port's): what the
 * link runs at now is not in the file. */
static void fill_link(struct walk *w, xmlNodePtr pci, struct np_pcie *l)
{
	char buf[64], *end;
	long v;

	if (attr(pci, "link_speed", buf, sizeof(buf)) && buf[0] >= '0' && buf[0] <= '9') {
		double gts = strtod(buf, &end);
		while (*end == ' ')
			end++;
		if (*end && strncmp(end, "GT/s", 4)) {
			bad(w, pci, "link_speed", buf,
			    "is not a PCIe rate like \"16.0 GT/s PCIe\"");
			return;
		}
		if (gts > 256) {
			bad(w, pci, "link_speed", buf, "is out of range (0..256 GT/s)");
			return;
		}
		l->gen_max = np_pcie_gen_of_gts(gts);
	}
	if (num(w, pci, "link_width", 10, 0, 32, &v) > 0 && v > 0)
		l->width_max = (int)v;
	l->gbps = np_pcie_gbps(l->gen_max, l->width_max);
}

static void read_gpu(struct walk *w, xmlNodePtr pci, struct np_gpu *g, long vendor, long device)
{
	int gi = w->t->ngpus - 1;
	long v;

	if (vendor > 0 && vendor <= 0xffff && device > 0 && device <= 0xffff) {
		g->vendor_id = (unsigned)vendor;
		g->device_id = (unsigned)device;
	}
	for (xmlNodePtr c = pci->children; c; c = c->next) {
		if (!is_elem(c, "gpu"))
			continue;
		w->has_gpu_elem[gi] = true;
		if (num(w, c, "gdr", 10, 0, 1, &v) > 0)
			g->gdr = v ? NP_YES : NP_NO;
		if (num(w, c, "sm", 10, 0, 1000, &v) > 0 && v >= 10 && v <= 200)
			g->sm = (int)v;
		/* NCCL writes a <c2c> for a GPU with NVLink-C2C links to its CPU
		 * (Grace): none in a <gpu> means none */
		if (g->c2c_links < 0)
			g->c2c_links = 0;
		for (xmlNodePtr nv = c->children; nv; nv = nv->next) {
			char tgt[64], tcls[32];
			struct nvl *e;
			long cnt;
			if (is_elem(nv, "c2c")) {
				if (num(w, nv, "count", 10, 0, 64, &cnt) > 0)
					g->c2c_links += (int)cnt;
				continue;
			}
			if (!is_elem(nv, "nvlink"))
				continue;
			if (num(w, nv, "count", 10, 1, 64, &cnt) <= 0) {
				w->nv_unknown[gi] = true;
				continue;
			}
			if (w->nnv[gi] >= NV_PER_GPU) {
				w->nv_unknown[gi] = true;
				continue;
			}
			e = &w->nv[gi][w->nnv[gi]++];
			e->count = (int)cnt;
			if (!attr(nv, "target", tgt, sizeof(tgt)) ||
			    !np_busid_norm(tgt, e->target, sizeof(e->target)))
				e->target[0] = '\0';
			if (!attr(nv, "tclass", tcls, sizeof(tcls)))
				e->kind = NV_OTHER;
			else if (!strncasecmp(tcls, "0x068000", 8))
				e->kind = NV_SWITCH;
			else if (!strncasecmp(tcls, "0x068001", 8))
				e->kind = NV_CPU;
			else if (!strncasecmp(tcls, "0x03", 4))
				e->kind = NV_GPU;
			else
				e->kind = NV_OTHER;
		}
	}
}

/* A <gpu> that RCCL wrote: an AMD GPU's gcn architecture ("906", "gfx942")
 * or <xgmi> links (AMD's Infinity Fabric), neither of which NCCL writes.
 * When first, what tells goes into what. */
static bool rccl_gpu(xmlNodePtr pci, char *what, size_t len, bool first)
{
	for (xmlNodePtr c = pci->children; c; c = c->next) {
		char gcn[32] = "";
		int xgmi = 0;
		if (!is_elem(c, "gpu"))
			continue;
		attr(c, "gcn", gcn, sizeof(gcn));
		for (xmlNodePtr x = c->children; x; x = x->next)
			xgmi += is_elem(x, "xgmi");
		if (!gcn[0] && !xgmi)
			continue;
		if (first) {
			for (char *p = gcn; *p; p++)
				if (*p < 0x20 || *p >= 0x7f || *p == '"')
					*p = '?';
			snprintf(what, len, "%s%s%s%s", gcn[0] ? "gcn=\"" : "", gcn,
				 gcn[0] ? "\"" : "",
				 xgmi ? (gcn[0] ? " and <xgmi> links" : "<xgmi> links") : "");
		}
		return true;
	}
	return false;
}

static void walk_pci(struct walk *w, xmlNodePtr pci, int parent)
{
	struct np_topo *t = w->t;
	char raw[64], busid[NP_BUSID_LEN], id[NP_BUSID_LEN];
	long cls = 0, vendor = 0, device = 0;
	int node, has_cls, has_vendor, prev;
	bool has_gpu = false, has_pci = false, bridge;
	xmlNodePtr nic = NULL;

	if (w->st)
		return;
	if (!attr(pci, "busid", raw, sizeof(raw)) || !np_busid_norm(raw, busid, sizeof(busid))) {
		np_topo_note(t, "a <pci> element without a valid busid was left out");
		return;
	}
	if ((has_cls = num(w, pci, "class", 16, 0, 0xffffff, &cls)) < 0 ||
	    (has_vendor = num(w, pci, "vendor", 16, 0, 0xffff, &vendor)) < 0 ||
	    num(w, pci, "device", 16, 0, 0xffff, &device) < 0)
		return;
	for (xmlNodePtr c = pci->children; c; c = c->next) {
		if (is_elem(c, "gpu"))
			has_gpu = true;
		if (is_elem(c, "nic"))
			nic = c;
		if (is_elem(c, "pci"))
			has_pci = true;
	}
	/* NCCL makes a node of each <pci> switch element, even of one whose
	 * bus id an earlier element has (RCCL's models repeat a switch for
	 * each of its ports), and keys GPUs, NICs and switches apart: such a
	 * switch, or a device on a switch's bus id, is read under an id of
	 * its own. Two devices on one bus id are two GPUs or NICs in one
	 * place, which no dump has. */
	bridge = (((cls >> 16) & 0xff) == 0x06 || (!has_cls && has_pci)) && !has_gpu && !nic;
	snprintf(id, sizeof(id), "%s", busid);
	prev = np_topo_pci_find(t, busid);
	if (prev >= 0 && (bridge || t->pci[prev].kind == NP_PCI_BRIDGE)) {
		char uid[NP_BUSID_LEN];
		for (int k = 2; prev >= 0 && k < 100; k++) {
			snprintf(uid, sizeof(uid), "%.16s#%d", busid, k);
			prev = np_topo_pci_find(t, uid);
		}
		if (prev < 0) {
			snprintf(id, sizeof(id), "%s", uid);
			w->repeats++;
		}
	}
	if (prev >= 0) {
		bad(w, pci, "busid", raw, "is the bus id of an earlier <pci> element");
		return;
	}
	/* a skeleton (a provider's file that NCCL merges with the node): a
	 * bus id alone, its class taken from the node's sysfs */
	if (!has_cls && !has_vendor && !has_gpu && !nic && !has_pci) {
		t->unclassified++;
		np_topo_pci_add(t, id, NP_PCI_DEVICE, parent);
		return;
	}
	if (bridge) {
		node = np_topo_pci_add(t, id, NP_PCI_BRIDGE, parent);
		if (node < 0)
			return;
		t->pci[node].virtual_sw = !strncmp(busid, "ffff:", 5);
		if (has_vendor && device > 0) {
			long sv = 0, sd = 0;
			int hsv, hsd;
			if ((hsv = num(w, pci, "subsystem_vendor", 16, 0, 0xffff, &sv)) < 0 ||
			    (hsd = num(w, pci, "subsystem_device", 16, 0, 0xffff, &sd)) < 0)
				return;
			np_topo_pci_set_ids(t, node, (unsigned)vendor, (unsigned)device,
					    (unsigned)sv, (unsigned)sd, hsv && hsd);
		}
		for (xmlNodePtr c = pci->children; c; c = c->next)
			if (is_elem(c, "pci"))
				walk_pci(w, c, node);
		return;
	}
	node = np_topo_pci_add(t, id, NP_PCI_DEVICE, parent);
	if (node < 0)
		return;
	if ((has_gpu || ((cls >> 16) & 0xff) == 0x03) && vendor && vendor != 0x10de) {
		/* an AMD, Hygon or Intel GPU (RCCL writes the same format):
		 * not one NCCL drives */
		if (!t->other_gpus++) {
			t->other_gpu_vendor = (unsigned)vendor;
			if (!rccl_gpu(pci, t->other_gpu_what, sizeof(t->other_gpu_what), true))
				snprintf(t->other_gpu_what, sizeof(t->other_gpu_what),
					 "vendor=\"0x%04lx\"", vendor);
		}
		return;
	}
	if (has_gpu && !vendor &&
	    rccl_gpu(pci, t->other_gpu_what, sizeof(t->other_gpu_what), !t->other_gpus)) {
		/* RCCL's dumps give no vendor: its <gpu> has gcn and <xgmi> */
		if (!t->other_gpus++)
			t->other_gpu_vendor = 0x1002;
		return;
	}
	if (has_gpu || ((cls >> 16) & 0xff) == 0x03) {
		struct np_gpu *g = np_topo_gpu_add(t, busid);
		if (!g) {
			np_topo_note(t, "more than %d GPUs; the rest are left out", NP_MAX_GPUS);
			return;
		}
		g->pci = node;
		g->numa = w->numa;
		fill_link(w, pci, &g->pcie);
		read_gpu(w, pci, g, vendor, device);
	} else if (nic || ((cls >> 16) & 0xff) == 0x02) {
		int first = t->nnics;
		if (nic)
			add_nets(w, nic, busid, node, cls, vendor);
		else
			add_nets(w, pci, busid, node, cls,
				 vendor); /* no <net> inside: one bare NIC */
		for (int i = first; i < t->nnics; i++)
			fill_link(w, pci, &t->nics[i].pcie);
	}
}

/* The <nvlink> entries into NVLink counts, each checked against what else
 * the file says; an entry that contradicts it is a finding, not a link. */
static void resolve_nvlinks(struct walk *w)
{
	struct np_topo *t = w->t;

	for (int i = 0; i < t->ngpus; i++) {
		struct np_gpu *g = &t->gpus[i];
		int src = -1;
		char s[16];
		for (int k = 0; k < t->ngpus; k++)
			if (!strcmp(w->order[k].busid, g->busid))
				src = k;
		if (src < 0 || !w->has_gpu_elem[src])
			continue; /* a bare <pci>: NVLinks unknown */
		g->nvlinks = w->nv_unknown[src] ? NP_COUNT_UNKNOWN : 0;
		g->nvswitch_links = g->nvcpu_links = 0;
		g->nvlink_gbps = np_nvlink_gbps_of_sm(g->sm);
		snprintf(s, sizeof(s), "GPU%d", i);
		for (int k = 0; k < w->nnv[src]; k++) {
			const struct nvl *e = &w->nv[src][k];
			int peer = -1;
			struct np_finding *f;
			for (int j = 0; j < t->ngpus; j++)
				if (e->target[0] && !strcmp(t->gpus[j].busid, e->target))
					peer = j;
			if (e->kind == NV_SWITCH) {
				g->nvswitch_links += e->count;
			} else if (e->kind == NV_CPU) {
				g->nvcpu_links += e->count;
			} else if (peer == i) {
				f = np_topo_finding(t, "nvlink-self", NP_SEV_WARNING, s);
				snprintf(f->message, sizeof(f->message),
					 "%s lists %d NVLink(s) whose far end is the GPU itself; they are not counted as links to any peer",
					 s, e->count);
				snprintf(f->evidence, sizeof(f->evidence),
					 "the file says <nvlink target=\"%s\" count=\"%d\"> under GPU %s",
					 e->target, e->count, g->busid);
				snprintf(f->remedy, sizeof(f->remedy),
					 "dump the topology again on the machine (NCCL_TOPO_DUMP_FILE) with the NVSwitch and fabric manager up, or check 'nvidia-smi nvlink -s'");
				continue;
			} else if (peer >= 0 && (e->kind == NV_GPU || e->kind == NV_OTHER)) {
				g->nvpeer[peer] += e->count;
			} else {
				f = np_topo_finding(t, "nvlink-unmatched", NP_SEV_WARNING, s);
				snprintf(f->message, sizeof(f->message),
					 "%s lists %d NVLink(s) to %s, which the file does not hold as a GPU, NVSwitch or CPU; they are not counted",
					 s, e->count,
					 e->target[0] ? e->target : "an unnamed target");
				snprintf(f->evidence, sizeof(f->evidence),
					 "the file's <nvlink> of GPU %s has target \"%s\" and class %s",
					 g->busid, e->target,
					 e->kind == NV_GPU ? "GPU" : "not given or unknown");
				snprintf(f->remedy, sizeof(f->remedy),
					 "dump the topology again on the machine (NCCL_TOPO_DUMP_FILE)");
				continue;
			}
			if (g->nvlinks >= 0)
				g->nvlinks += e->count;
		}
	}
	/* links between two GPUs are listed on both sides: the counts agree */
	for (int i = 0; i < t->ngpus; i++)
		for (int j = i + 1; j < t->ngpus; j++) {
			struct np_gpu *a = &t->gpus[i], *b = &t->gpus[j];
			struct np_finding *f;
			char s[40];
			if (a->nvlinks < 0 || b->nvlinks < 0 || a->nvpeer[j] == b->nvpeer[i])
				continue;
			snprintf(s, sizeof(s), "GPU%d,GPU%d", i, j);
			f = np_topo_finding(t, "nvlink-asymmetric", NP_SEV_WARNING, s);
			snprintf(f->message, sizeof(f->message),
				 "GPU%d lists %d NVLink(s) to GPU%d but GPU%d lists %d back; the path between them counts the smaller",
				 i, a->nvpeer[j], j, j, b->nvpeer[i]);
			snprintf(f->evidence, sizeof(f->evidence),
				 "the file's <nvlink> entries of %s and %s", a->busid, b->busid);
			snprintf(f->remedy, sizeof(f->remedy),
				 "dump the topology again on the machine (NCCL_TOPO_DUMP_FILE)");
			if (a->nvpeer[j] > b->nvpeer[i])
				a->nvpeer[j] = b->nvpeer[i];
			else
				b->nvpeer[i] = a->nvpeer[j];
		}
}

static void name_gpus(struct np_topo *t)
{
	for (int i = 0; i < t->ngpus; i++) {
		struct np_gpu *g = &t->gpus[i];
		if (g->vendor_id &&
		    !np_pci_ids_name(g->vendor_id, g->device_id, g->name, sizeof(g->name)))
			g->name[0] = '\0';
	}
}

/* The host_hash values of the file's <cpu> trees, each once, in file order
 * (hashes[NP_HASH_LEN] each, at most max); their count. Unprintable bytes
 * become '?'. */
static int host_hashes(xmlNodePtr sys, char (*hashes)[NP_HASH_LEN], int max)
{
	int n = 0;

	for (xmlNodePtr cpu = sys->children; cpu; cpu = cpu->next) {
		char hash[NP_HASH_LEN];
		bool seen = false;
		if (!is_elem(cpu, "cpu") || !attr(cpu, "host_hash", hash, sizeof(hash)))
			continue;
		for (char *p = hash; *p; p++)
			if (*p < 0x21 || *p >= 0x7f)
				*p = '?';
		for (int k = 0; k < n && !seen; k++)
			seen = !strcmp(hashes[k], hash);
		if (!seen && n < max)
			snprintf(hashes[n++], NP_HASH_LEN, "%s", hash);
	}
	return n;
}

/* Read the <cpu> trees of one host: host (a host_hash) or, NULL, those
 * without one and the first host's. */
static enum np_status walk_system(struct np_topo *t, xmlNodePtr sys, const char *path,
				  const char *host, struct np_err *err)
{
	struct walk *w = calloc(1, sizeof(*w));
	enum np_status st;

	if (!w)
		return np_fail(err, NP_ENOMEM, "out of memory reading an NCCL topology file");
	w->t = t;
	w->path = path;
	w->err = err;
	for (xmlNodePtr cpu = sys->children; cpu && !w->st; cpu = cpu->next) {
		char hb[NP_BUSID_LEN], mask[512], hash[NP_HASH_LEN];
		long numa = -1;
		int node;
		if (!is_elem(cpu, "cpu"))
			continue;
		/* a multi-node NVLink dump: one tree per host (tray) of the
		 * NVLink domain, keyed by host_hash, the same bus ids in each */
		if (host && attr(cpu, "host_hash", hash, sizeof(hash))) {
			for (char *p = hash; *p; p++)
				if (*p < 0x21 || *p >= 0x7f)
					*p = '?';
			if (strcmp(hash, host))
				continue;
		}
		if (num(w, cpu, "numaid", 10, -1, 4095, &numa) < 0)
			break;
		if (!t->host.arch[0] && attr(cpu, "arch", hash, sizeof(hash)))
			snprintf(t->host.arch, sizeof(t->host.arch), "%.15s", hash);
		w->numa = (int)numa;
		w->cpu_nics = 0;
		if (w->numa >= 0 && np_topo_numa_index(t, w->numa) < 0 && t->nnuma < NP_MAX_NUMA) {
			struct np_numa *n = &t->numa[t->nnuma++];
			n->os_index = w->numa;
			if (attr(cpu, "affinity", mask, sizeof(mask)))
				mask_to_list(mask, n->cpus, sizeof(n->cpus));
		}
		/* the CPU is the host bridge of what hangs from it */
		snprintf(hb, sizeof(hb), "cpu%d", w->numa);
		node = np_topo_pci_add(t, hb, NP_PCI_HOSTBRIDGE, -1);
		if (node < 0)
			break;
		t->pci[node].numa = w->numa;
		for (xmlNodePtr c = cpu->children; c && !w->st; c = c->next) {
			if (is_elem(c, "pci"))
				walk_pci(w, c, node);
			else if (is_elem(c, "nic"))
				add_nets(w, c, "", node, 0, 0);
		}
	}
	st = w->st;
	if (st) {
		free(w);
		return st;
	}
	if (w->repeats)
		np_topo_note(t,
			     "%d <pci> element(s) repeat the bus id of an earlier one where one of them is a switch; NCCL makes a node of each, and so does this reading (the repeat named BUSID#N)",
			     w->repeats);
	if (w->pci_sockets)
		np_topo_note(t,
			     "%d <net> entr%s of PCI NICs %s port=\"0\" with NCCL's socket transport's maxconn 65536 (or a wireless controller's class 0x0280): socket interfaces, not RDMA ports",
			     w->pci_sockets, w->pci_sockets == 1 ? "y" : "ies",
			     w->pci_sockets == 1 ? "has" : "have");
	if (w->cpu_repeats)
		np_topo_note(t,
			     "%d socket interface entr%s repeated under another <cpu> (NCCL lists such interfaces under each CPU) read once",
			     w->cpu_repeats, w->cpu_repeats == 1 ? "y" : "ies");
	/* nvidia-smi numbers GPUs in bus id order; the file's order may differ */
	memcpy(w->order, t->gpus, sizeof(t->gpus[0]) * (size_t)t->ngpus);
	qsort(t->gpus, (size_t)t->ngpus, sizeof(t->gpus[0]), cmp_gpu);
	for (int i = 0; i < t->ngpus; i++)
		t->gpus[i].index = i;
	resolve_nvlinks(w);
	name_gpus(t);
	free(w);
	np_topo_sort_nics(t);
	return NP_OK;
}

/* One tray of a multi-node NVLink dump read and analyzed on its own. */
static enum np_status tray_summary(struct np_tray *tr, xmlNodePtr sys, const char *path,
				   const char *hash, struct np_err *err)
{
	struct np_topo *t = malloc(sizeof(*t));
	enum np_status st;

	if (!t)
		return np_fail(err, NP_ENOMEM, "out of memory reading an NCCL topology file");
	np_topo_init(t);
	t->kind = t->origin = NP_SRC_NCCL;
	snprintf(tr->host_hash, sizeof(tr->host_hash), "%s", hash);
	st = walk_system(t, sys, path, hash, err);
	if (!st) {
		np_topo_analyze(t);
		tr->ngpus = t->ngpus;
		tr->nnics = t->nnics;
		for (int k = 0; k < t->nnics; k++)
			tr->rdma_nics += t->nics[k].rdma != NP_NO;
		tr->gdr = np_topo_gdr_all(t);
		tr->nvlinks_most = -1;
		tr->device_id = t->ngpus ? t->gpus[0].device_id : 0;
		for (int g = 0; g < t->ngpus; g++) {
			if (t->gpus[g].nvlinks > tr->nvlinks_most)
				tr->nvlinks_most = t->gpus[g].nvlinks;
			if (t->gpus[g].device_id != tr->device_id)
				tr->device_id = 0;
		}
		for (int f = 0; f < t->nfindings; f++) {
			const struct np_finding *x = &t->findings[f];
			tr->warnings += x->sev >= NP_SEV_WARNING;
			tr->errors += x->sev >= NP_SEV_ERROR;
			if (x->sev >= NP_SEV_ERROR && !tr->first_error[0])
				snprintf(tr->first_error, sizeof(tr->first_error),
					 "%.31s [%.40s]: %.240s", x->id, x->subject, x->message);
		}
	}
	np_topo_release(t);
	free(t);
	return st;
}

/* A tray whose GPUs have fewer NVLinks than the same GPUs of another tray
 * of the domain: each tray is judged on its own, so a tray all of whose
 * GPUs lost links (an NVLink switch tray's ports, its cables) would read
 * clean. Counted in its summary, and a finding when it is the one
 * reported. */
static void domain_nvlinks(struct np_topo *t)
{
	for (int k = 0; k < t->ntrays; k++) {
		struct np_tray *tr = &t->trays[k];
		int most = -1, from = -1;
		char msg[NP_MSG_LEN];
		for (int m = 0; m < t->ntrays; m++)
			if (m != k && tr->device_id && t->trays[m].device_id == tr->device_id &&
			    t->trays[m].nvlinks_most > most) {
				most = t->trays[m].nvlinks_most;
				from = m;
			}
		if (tr->nvlinks_most < 0 || from < 0 || tr->nvlinks_most >= most)
			continue;
		snprintf(msg, sizeof(msg),
			 "the GPUs of tray %d (host_hash %.40s) have at most %d NVLinks, the same GPUs of tray %d have %d: %s",
			 k + 1, tr->host_hash, tr->nvlinks_most, from + 1, most,
			 tr->nvlinks_most
				 ? "NCCL's NVLink paths through that tray carry less"
				 : "NCCL's NVLink rings and NVLS cannot reach that tray's GPUs, which go by PCIe or the network");
		tr->warnings++;
		if (!tr->nvlinks_most)
			tr->errors++;
		if (!tr->nvlinks_most && !tr->first_error[0])
			snprintf(tr->first_error, sizeof(tr->first_error),
				 "nvlink-tray [tray %d]: %.250s", k + 1, msg);
		if (k == t->tray) {
			struct np_finding *f =
				np_topo_finding(t, "nvlink-tray",
						tr->nvlinks_most ? NP_SEV_WARNING : NP_SEV_ERROR,
						"node");
			snprintf(f->message, sizeof(f->message), "%s", msg);
			snprintf(f->evidence, sizeof(f->evidence),
				 "the file's <nvlink> counts under <cpu host_hash=\"%.40s\"> and under tray %d's",
				 tr->host_hash, from + 1);
			snprintf(f->remedy, sizeof(f->remedy),
				 "nvidia-smi nvlink -s on the tray's node; check its NVLink cables and the NVLink switch trays' ports, restart the fabric manager, else drain the node");
		}
	}
}

/* The host the report is of (t->tray_want, else the first) and, where the
 * file holds several (a multi-node NVLink dump: one <cpu> tree per tray,
 * keyed by host_hash, as NCCL keys them), each tray's summary. */
static enum np_status read_trays(struct np_topo *t, xmlNodePtr sys, const char *path,
				 struct np_err *err)
{
	enum { MAX_TRAYS = 1024 };
	char(*hashes)[NP_HASH_LEN] = calloc(MAX_TRAYS, NP_HASH_LEN);
	int n, want = 0;
	enum np_status st = NP_OK;

	if (!hashes)
		return np_fail(err, NP_ENOMEM, "out of memory reading an NCCL topology file");
	n = host_hashes(sys, hashes, MAX_TRAYS);
	if (t->tray_want) {
		for (want = 0; want < n && strcmp(hashes[want], t->tray_want); want++)
			;
		if (want == n) {
			char list[200] = "";
			for (int k = 0; k < n && strlen(list) < sizeof(list) - NP_HASH_LEN - 8; k++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 k ? ", " : "", hashes[k]);
			st = np_fail(err, NP_EUSAGE,
				     n ? "--host-hash '%.40s' names no tray of --input '%s'; its trays' host_hash: %s%s"
				       : "--host-hash '%.40s': --input '%s' is not a multi-node NVLink dump (no <cpu host_hash>)%s%s",
				     t->tray_want, path, list,
				     n && strlen(list) >= sizeof(list) - NP_HASH_LEN - 8 ? ", ..."
											 : "");
			goto out_free;
		}
	}
	st = walk_system(t, sys, path, n ? hashes[want] : NULL, err);
	if (st || n < 2)
		goto out_free;
	t->trays = calloc((size_t)n, sizeof(*t->trays));
	if (!t->trays) {
		st = np_fail(err, NP_ENOMEM, "out of memory reading an NCCL topology file");
		goto out_free;
	}
	for (int k = 0; k < n && !st; k++)
		st = tray_summary(&t->trays[k], sys, path, hashes[k], err);
	if (st)
		goto out_free;
	t->ntrays = n;
	t->tray = want;
	domain_nvlinks(t);
	np_topo_note(t,
		     "the file holds %d%s hosts (trays) of one multi-node NVLink domain (<cpu host_hash>); this report is of host_hash %s, tray %d, and the trays' summary follows; --host-hash reports another",
		     n, n == MAX_TRAYS ? " or more" : "", hashes[want], want + 1);
out_free:
	free(hashes);
	return st;
}

enum np_status np_topo_from_nccl_doc(struct np_topo *t, xmlDocPtr doc, const char *path,
				     struct np_err *err)
{
	xmlNodePtr root = xmlDocGetRootElement(doc);
	enum np_status st;
	long version = 0;

	if (!root || !is_elem(root, "system"))
		return np_fail(err, NP_EUSAGE,
			       "--input '%s' is not an NCCL topology file (no <system>)", path);
	{
		xmlChar *v = xmlGetProp(root, (const xmlChar *)"version");
		const char *why;
		if (v && !np_xml_long((const char *)v, 10, 0, 1000000, &version, &why))
			version = -1;
		xmlFree(v);
	}
	if (version != 1)
		np_topo_note(t, "NCCL topology file version %ld; version 1 is the one known",
			     version);
	t->kind = t->origin = NP_SRC_NCCL;
	st = read_trays(t, root, path, err);
	if (st)
		return st;
	np_topo_note(t,
		     "an NCCL topology file has no NIC port states, current PCIe links (its link_speed and link_width are the maximums) or host facts; those checks are skipped");
	for (int i = 0; i < t->ngpus; i++)
		if (t->gpus[i].nvlinks < 0) {
			np_topo_note(t,
				     "the NVLinks of some GPUs are not in the file (no <gpu> element, or an <nvlink> without a count); they are unknown");
			break;
		}
	return NP_OK;
}

enum np_status np_topo_from_nccl_xml(struct np_topo *t, const char *path, struct np_err *err)
{
	struct np_xml x;
	enum np_status st = np_xml_read(&x, path, err);

	if (st)
		return st;
	st = np_topo_from_nccl_doc(t, x.doc, path, err);
	np_xml_release(&x);
	return st;
}
