/* SPDX-License-Identifier: MIT */
/* NCCL topology XML source (<system version="1">, the NCCL_TOPO_FILE and
 * NCCL_TOPO_DUMP_FILE format), read with libxml2. Each <cpu> is a NUMA node
 * and stands for its host bridge; <pci> elements of class 0x0604 are
 * switches; GPUs are class 0x03 (or hold <gpu>), NICs class 0x02. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "topo.h"

static const char *attr(xmlNodePtr n, const char *name, char *buf, size_t len)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);

	if (!v)
		return NULL;
	snprintf(buf, len, "%s", (const char *)v);
	xmlFree(v);
	return buf;
}

static bool attr_long(xmlNodePtr n, const char *name, int base, long *out)
{
	char buf[64], *end;
	long v;

	if (!attr(n, name, buf, sizeof(buf)) || !buf[0])
		return false;
	errno = 0;
	v = strtol(buf, &end, base);
	if (errno || end == buf)
		return false;
	*out = v;
	return true;
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

struct walk {
	struct np_topo *t;
	int numa;
	char nvtarget[NP_MAX_GPUS][4][NP_BUSID_LEN]; /* deferred <nvlink> peers */
	int nvcount[NP_MAX_GPUS][4];
	int nnv[NP_MAX_GPUS];
	struct np_gpu order[NP_MAX_GPUS]; /* the GPUs in file order */
};

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(((const struct np_gpu *)a)->busid, ((const struct np_gpu *)b)->busid);
}

static void add_net(struct walk *w, xmlNodePtr pci, const char *busid, int node)
{
	struct np_topo *t = w->t;
	bool named = false;
	char buf[128];
	long v;

	for (xmlNodePtr c = pci->children; c; c = c->next) {
		if (!is_elem(c, "nic"))
			continue;
		for (xmlNodePtr net = c->children; net; net = net->next) {
			struct np_nic *n;
			long port = 1;
			if (!is_elem(net, "net"))
				continue;
			attr_long(net, "port", 10, &port);
			n = np_topo_nic_add(t, attr(net, "name", buf, sizeof(buf)) ? buf : busid, (int)port);
			if (!n)
				return;
			named = true;
			snprintf(n->busid, sizeof(n->busid), "%s", busid);
			n->pci = node;
			n->numa = w->numa;
			if (attr_long(net, "speed", 10, &v) && v > 0) /* Mb/s */
				n->rate_gbit = (double)v / 1000.0;
		}
	}
	if (!named) {
		char name[NP_NAME_LEN];
		struct np_nic *n;
		snprintf(name, sizeof(name), "nic@%s", busid);
		n = np_topo_nic_add(t, name, 1);
		if (!n)
			return;
		snprintf(n->busid, sizeof(n->busid), "%s", busid);
		n->pci = node;
		n->numa = w->numa;
	}
}

static void fill_link(xmlNodePtr pci, struct np_pcie *l)
{
	char buf[64];
	long v;

	if (attr(pci, "link_speed", buf, sizeof(buf)))
		l->gen_cur = np_pcie_gen_of_gts(strtod(buf, NULL));
	if (attr_long(pci, "link_width", 10, &v) && v > 0 && v <= 32)
		l->width_cur = (int)v;
	l->gbps = np_pcie_gbps(l->gen_cur, l->width_cur);
}

static void walk_pci(struct walk *w, xmlNodePtr pci, int parent)
{
	struct np_topo *t = w->t;
	char raw[64], busid[NP_BUSID_LEN];
	long cls = 0;
	int node;
	bool has_gpu = false, has_nic = false;

	if (!attr(pci, "busid", raw, sizeof(raw)) || !np_busid_norm(raw, busid, sizeof(busid))) {
		np_topo_note(t, "a <pci> element without a valid busid was left out");
		return;
	}
	attr_long(pci, "class", 16, &cls);
	for (xmlNodePtr c = pci->children; c; c = c->next) {
		if (is_elem(c, "gpu"))
			has_gpu = true;
		if (is_elem(c, "nic"))
			has_nic = true;
	}
	if (((cls >> 16) & 0xff) == 0x06 && !has_gpu && !has_nic) {
		node = np_topo_pci_add(t, busid, NP_PCI_BRIDGE, parent);
		if (node < 0)
			return;
		t->pci[node].virtual_sw = !strncmp(busid, "ffff:", 5);
		for (xmlNodePtr c = pci->children; c; c = c->next)
			if (is_elem(c, "pci"))
				walk_pci(w, c, node);
		return;
	}
	node = np_topo_pci_add(t, busid, NP_PCI_DEVICE, parent);
	if (node < 0)
		return;
	if (has_gpu || ((cls >> 16) & 0xff) == 0x03) {
		struct np_gpu *g = np_topo_gpu_add(t, busid);
		if (!g)
			return;
		g->pci = node;
		g->numa = w->numa;
		snprintf(g->name, sizeof(g->name), "NVIDIA GPU");
		fill_link(pci, &g->pcie);
		for (xmlNodePtr c = pci->children; c; c = c->next) {
			long v;
			if (!is_elem(c, "gpu"))
				continue;
			if (attr_long(c, "gdr", 10, &v))
				g->gdr = v ? NP_YES : NP_NO;
			for (xmlNodePtr nv = c->children; nv; nv = nv->next) {
				long cnt = 0, tcls = 0;
				char tgt[64];
				int gi = t->ngpus - 1, k = w->nnv[gi];
				if (!is_elem(nv, "nvlink") || !attr_long(nv, "count", 10, &cnt) || cnt <= 0)
					continue;
				t->nvlink_known = true;
				g->nvlinks += (int)cnt;
				attr_long(nv, "tclass", 16, &tcls);
				if (tcls == 0x068000) {
					g->nvswitch_links += (int)cnt;
				} else if (attr(nv, "target", tgt, sizeof(tgt)) && k < 4 &&
					   np_busid_norm(tgt, w->nvtarget[gi][k], NP_BUSID_LEN)) {
					w->nvcount[gi][k] = (int)cnt;
					w->nnv[gi]++;
				}
			}
		}
	} else if (has_nic || ((cls >> 16) & 0xff) == 0x02) {
		long vendor = 0;
		attr_long(pci, "vendor", 16, &vendor);
		add_net(w, pci, busid, node);
		for (int i = 0; i < t->nnics; i++)
			if (!strcmp(t->nics[i].busid, busid)) {
				fill_link(pci, &t->nics[i].pcie);
				t->nics[i].ll = vendor == 0x1d0f ? NP_LL_EFA : (cls >> 8) == 0x0207 ? NP_LL_IB : NP_LL_UNKNOWN;
			}
	}
}

static enum np_status walk_system(struct np_topo *t, xmlNodePtr sys, struct np_err *err)
{
	struct walk *w = calloc(1, sizeof(*w));

	if (!w)
		return np_fail(err, NP_ENOMEM, "out of memory reading an NCCL topology file");
	w->t = t;
	for (xmlNodePtr cpu = sys->children; cpu; cpu = cpu->next) {
		char hb[NP_BUSID_LEN], mask[512];
		long numa = -1;
		int node;
		if (!is_elem(cpu, "cpu"))
			continue;
		attr_long(cpu, "numaid", 10, &numa);
		w->numa = numa >= 0 && numa < 4096 ? (int)numa : -1;
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
		for (xmlNodePtr c = cpu->children; c; c = c->next)
			if (is_elem(c, "pci"))
				walk_pci(w, c, node);
	}
	/* nvidia-smi numbers GPUs in bus id order; the file's order may differ */
	memcpy(w->order, t->gpus, sizeof(t->gpus[0]) * (size_t)t->ngpus);
	qsort(t->gpus, (size_t)t->ngpus, sizeof(t->gpus[0]), cmp_gpu);
	for (int i = 0; i < t->ngpus; i++) {
		int src = 0;
		t->gpus[i].index = i;
		for (int k = 0; k < t->ngpus; k++)
			if (!strcmp(w->order[k].busid, t->gpus[i].busid))
				src = k;
		for (int k = 0; k < w->nnv[src]; k++)
			for (int j = 0; j < t->ngpus; j++)
				if (!strcmp(t->gpus[j].busid, w->nvtarget[src][k]))
					t->gpus[i].nvpeer[j] += w->nvcount[src][k];
	}
	free(w);
	np_topo_sort_nics(t);
	return NP_OK;
}

enum np_status np_topo_from_nccl_xml(struct np_topo *t, const char *path, struct np_err *err)
{
	xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	xmlNodePtr root;
	enum np_status st;
	long version = 0;

	if (!doc)
		return np_fail(err, NP_EUSAGE, "--input '%s' is not well-formed XML; give an hwloc XML or an NCCL topology file", path);
	root = xmlDocGetRootElement(doc);
	if (!root || !is_elem(root, "system")) {
		xmlFreeDoc(doc);
		return np_fail(err, NP_EUSAGE, "--input '%s' is not an NCCL topology file (no <system>)", path);
	}
	attr_long(root, "version", 10, &version);
	if (version != 1)
		np_topo_note(t, "NCCL topology file version %ld; version 1 is the one known", version);
	t->kind = t->origin = NP_SRC_NCCL;
	st = walk_system(t, root, err);
	xmlFreeDoc(doc);
	if (st)
		return st;
	np_topo_note(t, "an NCCL topology file has no NIC port states, PCIe maximums or host facts; those checks are skipped");
	return NP_OK;
}
