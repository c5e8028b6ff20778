/* SPDX-License-Identifier: MIT */
/* The topology model: lifecycle, the PCI tree, and the small helpers every
 * source and the analysis share (names of enums, bus ids, PCIe rates). */
#define _GNU_SOURCE /* strverscmp */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwloc.h>

#include "../common/number.h"
#include "model.h"

const char *np_tri_str(enum np_tri t)
{
	switch (t) {
	case NP_YES: return "yes";
	case NP_NO: return "no";
	case NP_UNKNOWN: return "unknown";
	}
	return "unknown";
}

const char *np_path_str(enum np_path p)
{
	switch (p) {
	case NP_PATH_X: return "X";
	case NP_PATH_NV: return "NV";
	case NP_PATH_PIX: return "PIX";
	case NP_PATH_PXB: return "PXB";
	case NP_PATH_P2C: return "P2C";
	case NP_PATH_PHB: return "PHB";
	case NP_PATH_NODE: return "NODE";
	case NP_PATH_SYS: return "SYS";
	case NP_PATH_UNKNOWN: return "?";
	}
	return "?";
}

enum np_path np_path_parse(const char *s)
{
	for (int p = NP_PATH_X; p < NP_PATH_UNKNOWN; p++)
		if (!strcasecmp(s, np_path_str((enum np_path)p)))
			return (enum np_path)p;
	return NP_PATH_UNKNOWN;
}

const char *np_pci_kind_str(enum np_pci_kind k)
{
	switch (k) {
	case NP_PCI_HOSTBRIDGE: return "hostbridge";
	case NP_PCI_BRIDGE: return "bridge";
	case NP_PCI_DEVICE: return "device";
	}
	return "unknown";
}

const char *np_port_state_str(enum np_port_state s)
{
	switch (s) {
	case NP_PORT_DOWN: return "DOWN";
	case NP_PORT_INIT: return "INIT";
	case NP_PORT_ARMED: return "ARMED";
	case NP_PORT_ACTIVE: return "ACTIVE";
	case NP_PORT_POLLING: return "POLLING";
	case NP_PORT_UNKNOWN: return "unknown";
	}
	return "unknown";
}

enum np_port_state np_port_state_parse(const char *s)
{
	/* sysfs writes "4: ACTIVE" and "2: Polling"; snapshots the bare name */
	const char *colon = strchr(s, ':');

	if (colon)
		s = colon + 1;
	while (*s == ' ')
		s++;
	if (!strncasecmp(s, "ACTIVE", 6) || !strncasecmp(s, "LinkUp", 6))
		return NP_PORT_ACTIVE;
	if (!strncasecmp(s, "DOWN", 4) || !strncasecmp(s, "Disabled", 8))
		return NP_PORT_DOWN;
	if (!strncasecmp(s, "INIT", 4))
		return NP_PORT_INIT;
	if (!strncasecmp(s, "ARMED", 5))
		return NP_PORT_ARMED;
	if (!strncasecmp(s, "POLLING", 7))
		return NP_PORT_POLLING;
	return NP_PORT_UNKNOWN;
}

const char *np_link_layer_str(enum np_link_layer l)
{
	switch (l) {
	case NP_LL_IB: return "IB";
	case NP_LL_ROCE: return "RoCE";
	case NP_LL_EFA: return "EFA";
	case NP_LL_UNKNOWN: return "unknown";
	}
	return "unknown";
}

enum np_link_layer np_link_layer_parse(const char *s)
{
	if (!strcasecmp(s, "IB") || !strncasecmp(s, "InfiniBand", 10))
		return NP_LL_IB;
	if (!strcasecmp(s, "RoCE") || !strncasecmp(s, "Ethernet", 8))
		return NP_LL_ROCE;
	if (!strcasecmp(s, "EFA"))
		return NP_LL_EFA;
	return NP_LL_UNKNOWN;
}

const char *np_topo_kind_str(enum np_topo_kind k)
{
	switch (k) {
	case NP_SRC_LIVE: return "live";
	case NP_SRC_HWLOC: return "hwloc-xml";
	case NP_SRC_NCCL: return "nccl-xml";
	case NP_SRC_SNAPSHOT: return "snapshot";
	}
	return "unknown";
}

const char *np_severity_str(enum np_severity s)
{
	switch (s) {
	case NP_SEV_INFO: return "info";
	case NP_SEV_WARNING: return "warning";
	case NP_SEV_ERROR: return "error";
	}
	return "unknown";
}

void np_topo_init(struct np_topo *t)
{
	memset(t, 0, sizeof(*t));
	t->host.peermem_loaded = NP_UNKNOWN;
	t->host.dmabuf_nic = NP_UNKNOWN;
	t->host.iommu = NP_UNKNOWN;
	t->host.virtualized = NP_UNKNOWN;
	t->host.acs_readable = NP_UNKNOWN;
	t->host.nvml = NP_UNKNOWN;
}

void np_topo_release(struct np_topo *t)
{
	free(t->pci);
	free(t->pci_index);
	free(t->findings);
	free(t->recs);
	free(t->notes);
	free(t->trays);
	t->trays = NULL;
	t->ntrays = 0;
	if (t->hwloc)
		hwloc_topology_destroy((hwloc_topology_t)t->hwloc);
	t->pci = NULL;
	t->pci_index = NULL;
	t->cap_index = 0;
	t->findings = NULL;
	t->recs = NULL;
	t->notes = NULL;
	t->hwloc = NULL;
}

/* Grow *arr (of elem-sized items) to hold one more; false on no memory. */
static bool grow(void **arr, int n, int *cap, size_t elem)
{
	void *p;
	int ncap;

	if (n < *cap)
		return true;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

/* PCI nodes are found by id through a hash table: files can hold 100k of
 * them, and a scan per insert made reading one quadratic. */
static unsigned hash_id(const char *id)
{
	unsigned h = 2166136261u; /* FNV-1a */

	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 16777619u;
	return h;
}

static void index_put(int *index, int cap, const struct np_pci *pci, int i)
{
	for (unsigned h = hash_id(pci[i].id) & (unsigned)(cap - 1);;
	     h = (h + 1) & (unsigned)(cap - 1))
		if (index[h] < 0) {
			index[h] = i;
			return;
		}
}

/* Keep the table at most half full; false on no memory. */
static bool index_grow(struct np_topo *t)
{
	int cap = t->cap_index ? t->cap_index * 2 : 64, *index;

	if (t->npci + 1 <= t->cap_index / 2)
		return true;
	index = malloc((size_t)cap * sizeof(*index));
	if (!index)
		return false;
	for (int k = 0; k < cap; k++)
		index[k] = -1;
	for (int i = 0; i < t->npci; i++)
		index_put(index, cap, t->pci, i);
	free(t->pci_index);
	t->pci_index = index;
	t->cap_index = cap;
	return true;
}

int np_topo_pci_find(const struct np_topo *t, const char *id)
{
	if (!t->cap_index)
		return -1;
	for (unsigned h = hash_id(id) & (unsigned)(t->cap_index - 1);;
	     h = (h + 1) & (unsigned)(t->cap_index - 1)) {
		int i = t->pci_index[h];
		if (i < 0)
			return -1;
		if (!strcmp(t->pci[i].id, id))
			return i;
	}
}

int np_topo_pci_add(struct np_topo *t, const char *id, enum np_pci_kind kind, int parent)
{
	char key[NP_BUSID_LEN];
	int i;
	struct np_pci *p;

	snprintf(key, sizeof(key), "%s", id); /* ids are kept at this length */
	i = np_topo_pci_find(t, key);
	if (i >= 0)
		return i;
	if (!grow((void **)&t->pci, t->npci, &t->cap_pci, sizeof(*t->pci)) || !index_grow(t))
		return -1;
	p = &t->pci[t->npci];
	memset(p, 0, sizeof(*p));
	snprintf(p->id, sizeof(p->id), "%s", key);
	p->kind = kind;
	p->parent = parent;
	p->numa = parent >= 0 ? t->pci[parent].numa : -1;
	p->acs = NP_UNKNOWN;
	index_put(t->pci_index, t->cap_index, t->pci, t->npci);
	return t->npci++;
}

void np_topo_pci_set_ids(struct np_topo *t, int i, unsigned vendor, unsigned device,
			 unsigned sub_vendor, unsigned sub_device, bool sub_known)
{
	if (i < 0 || i >= t->npci)
		return;
	t->pci[i].ids = (uint64_t)(vendor & 0xffff) << 48 | (uint64_t)(device & 0xffff) << 32;
	if (sub_known)
		t->pci[i].ids |= (uint64_t)(sub_vendor & 0xffff) << 16 | (sub_device & 0xffff);
	t->pci[i].ids_known = sub_known ? NP_IDS_ALL : NP_IDS_DEVICE;
}

int np_topo_pci_add_chain(struct np_topo *t, const char *chain, int numa)
{
	char buf[1024], *tok, *save = NULL;
	int parent = -1, last = -1;

	snprintf(buf, sizeof(buf), "%s", chain);
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		bool hb = !strncmp(tok, "pci", 3);
		char *next = save && *save ? save : NULL;
		enum np_pci_kind kind = hb     ? NP_PCI_HOSTBRIDGE
					: next ? NP_PCI_BRIDGE
					       : NP_PCI_DEVICE;
		last = np_topo_pci_add(t, tok, kind, parent);
		if (last < 0)
			return -1;
		if (hb && t->pci[last].numa < 0)
			t->pci[last].numa = numa;
		parent = last;
	}
	return last;
}

void np_topo_pci_chain(const struct np_topo *t, int i, char *buf, size_t len)
{
	int chain[64], n = 0;
	size_t off = 0;

	buf[0] = '\0';
	while (i >= 0 && n < 64) {
		chain[n++] = i;
		i = t->pci[i].parent;
	}
	while (n-- > 0 && off < len) {
		int w = snprintf(buf + off, len - off, "%s%s", off ? "/" : "", t->pci[chain[n]].id);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

struct np_gpu *np_topo_gpu_add(struct np_topo *t, const char *busid)
{
	struct np_gpu *g;

	if (t->ngpus >= NP_MAX_GPUS)
		return NULL;
	g = &t->gpus[t->ngpus];
	memset(g, 0, sizeof(*g));
	g->index = t->ngpus++;
	snprintf(g->busid, sizeof(g->busid), "%s", busid);
	g->pci = -1;
	g->numa = -1;
	g->nvlinks = NP_COUNT_UNKNOWN;
	g->nvswitch_links = NP_COUNT_UNKNOWN;
	g->nvcpu_links = NP_COUNT_UNKNOWN;
	g->c2c_links = NP_COUNT_UNKNOWN;
	g->gdr = NP_UNKNOWN;
	g->dmabuf = NP_UNKNOWN;
	return g;
}

struct np_nic *np_topo_nic_add(struct np_topo *t, const char *name, int port)
{
	struct np_nic *n;

	if (t->nnics >= NP_MAX_NICS)
		return NULL;
	n = &t->nics[t->nnics++];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->port = port;
	n->pci = -1;
	n->numa = -1;
	n->gid_index = -1;
	n->gid_index6 = -1;
	n->rdma = NP_YES;
	n->gdr = NP_UNKNOWN;
	return n;
}

struct np_gpu *np_topo_gpu_find(struct np_topo *t, const char *busid)
{
	for (int i = 0; i < t->ngpus; i++)
		if (!strcmp(t->gpus[i].busid, busid))
			return &t->gpus[i];
	return NULL;
}

struct np_nic *np_topo_nic_find(struct np_topo *t, const char *name, int port)
{
	for (int i = 0; i < t->nnics; i++)
		if (t->nics[i].port == port && !strcmp(t->nics[i].name, name))
			return &t->nics[i];
	return NULL;
}

static int cmp_nic(const void *a, const void *b)
{
	const struct np_nic *x = a, *y = b;
	int c = strverscmp(x->name, y->name);

	return c ? c : x->port - y->port;
}

void np_topo_sort_nics(struct np_topo *t)
{
	qsort(t->nics, (size_t)t->nnics, sizeof(t->nics[0]), cmp_nic);
}

int np_topo_numa_index(const struct np_topo *t, int os_index)
{
	for (int i = 0; i < t->nnuma; i++)
		if (t->numa[i].os_index == os_index)
			return i;
	return -1;
}

void np_topo_note(struct np_topo *t, const char *fmt, ...)
{
	va_list ap;

	if (!grow((void **)&t->notes, t->nnotes, &t->cap_notes, sizeof(*t->notes)))
		return;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->nnotes], sizeof(t->notes[0]), fmt, ap);
	va_end(ap);
	for (int i = 0; i < t->nnotes; i++) /* say each thing once */
		if (!strcmp(t->notes[i], t->notes[t->nnotes]))
			return;
	t->nnotes++;
}

struct np_finding *np_topo_finding(struct np_topo *t, const char *id, enum np_severity sev,
				   const char *subject)
{
	struct np_finding *f;

	/* on no memory the caller still gets somewhere to write; it is lost */
	if (!grow((void **)&t->findings, t->nfindings, &t->cap_findings, sizeof(*t->findings)))
		return &t->lost_finding;
	f = &t->findings[t->nfindings++];
	memset(f, 0, sizeof(*f));
	snprintf(f->id, sizeof(f->id), "%s", id);
	f->sev = sev;
	snprintf(f->subject, sizeof(f->subject), "%s", subject);
	f->gdr = !strncmp(id, "gdr-", 4);
	return f;
}

struct np_rec *np_topo_rec(struct np_topo *t, const char *var, const char *finding)
{
	struct np_rec *r;

	for (int i = 0; i < t->nrecs; i++)
		if (!strcmp(t->recs[i].var, var))
			return &t->lost_rec; /* one line per variable: the first reason wins */
	if (!grow((void **)&t->recs, t->nrecs, &t->cap_recs, sizeof(*t->recs)))
		return &t->lost_rec;
	r = &t->recs[t->nrecs++];
	memset(r, 0, sizeof(*r));
	snprintf(r->var, sizeof(r->var), "%s", var);
	snprintf(r->finding, sizeof(r->finding), "%s", finding);
	return r;
}

bool np_topo_has_finding(const struct np_topo *t, const char *id)
{
	for (int i = 0; i < t->nfindings; i++)
		if (!strcmp(t->findings[i].id, id))
			return true;
	return false;
}

bool np_busid_parse(const char *s, unsigned *domain, unsigned *busno, unsigned *device,
		    unsigned *function)
{
	uint64_t dom = 0, bus, dev, fn;
	const char *p = s;

	/* "dddd:bb:dd.f", "bb:dd.f", NVML's "00000000:19:00.0": hexadecimal
	 * digits alone (no sign, blank or 0x), each field in its range */
	if (!np_scan_u64(&p, 16, 0, 0xffffffff, &dom) || *p++ != ':' ||
	    !np_scan_u64(&p, 16, 0, 0xffffffff, &bus))
		return false;
	if (*p == '.') { /* no domain: what we read was bus:dev */
		p++;
		dev = bus;
		bus = dom;
		dom = 0;
	} else if (*p++ != ':' || !np_scan_u64(&p, 16, 0, 0x1f, &dev) || *p++ != '.') {
		return false;
	}
	if (!np_scan_u64(&p, 16, 0, 7, &fn))
		return false;
	while (isspace((unsigned char)*p))
		p++;
	if (*p || bus > 0xff || dev > 0x1f)
		return false;
	*domain = (unsigned)dom;
	*busno = (unsigned)bus;
	*device = (unsigned)dev;
	*function = (unsigned)fn;
	return true;
}

bool np_busid_norm(const char *s, char *out, size_t len)
{
	unsigned dom, bus, dev, fn;

	if (!np_busid_parse(s, &dom, &bus, &dev, &fn))
		return false;
	snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}

double np_pcie_gbps(int gen, int width)
{
	/* GT/s per lane and line encoding: Gen1/2 8b/10b, Gen3-5 128b/130b,
	 * Gen6 FLIT (about 242/256) */
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };
	double enc;

	if (gen < 1 || gen > 6 || width <= 0)
		return 0;
	enc = gen <= 2 ? 0.8 : gen <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
	return gts[gen] * enc * width / 8.0;
}

int np_pcie_gen_of_gts(double gts)
{
	if (gts <= 0)
		return 0;
	if (gts < 4)
		return 1;
	if (gts < 6.5)
		return 2;
	if (gts < 12)
		return 3;
	if (gts < 24)
		return 4;
	if (gts < 48)
		return 5;
	return 6;
}

bool np_devname_valid(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n >= max || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '/' || *p == ':' || *p == ',')
			return false;
	return true;
}

double np_nvlink_gbps_of_sm(int sm)
{
	/* one direction of one link: NVLink 1 (sm 6.0) 20 GB/s, NVLink 2 and
	 * 3 (7.0, 8.0) and 4 (9.0) 25 GB/s, NVLink 3 of GA10x (8.6) 14.0625,
	 * NVLink 5 (10.x) 50 GB/s */
	switch (sm) {
	case 60: return 20;
	case 70:
	case 72:
	case 80:
	case 90: return 25;
	case 86: return 14.0625;
	case 100:
	case 103: return 50;
	default: return 0;
	}
}

/* A regular file opened for reading, NULL for anything else: a FIFO is not
 * waited on (O_NONBLOCK), a device such as /dev/zero is not read for ever. */
static FILE *open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
}

/* pci.ids: "vvvv  Vendor" at the start of a line, "\tdddd  Device" below
 * it, "\t\tssss ssss  Subsystem" below that, "C cc  Class" sections at the
 * end. */
bool np_pci_ids_name(unsigned vendor, unsigned device, char *out, size_t len)
{
	static const char *const paths[] = { "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids",
					     "/usr/share/pci.ids" };
	const char *env = getenv("NCCL_PROBE_PCI_IDS");
	FILE *f = NULL;
	char line[512], vname[256] = "";
	bool in_vendor = false, found = false;

	if (env && *env)
		f = open_regular(env);
	for (size_t i = 0; !f && !(env && *env) && i < sizeof(paths) / sizeof(paths[0]); i++)
		f = open_regular(paths[i]);
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		const char *end;
		uint64_t id;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (line[0] == 'C' && line[1] == ' ')
			break; /* the class list: no more vendors */
		if (line[0] != '\t') {
			if (in_vendor)
				break;
			end = line;
			in_vendor = np_scan_u64(&end, 16, 0, 0xffff, &id) && end == line + 4 &&
				    id == vendor;
			if (in_vendor)
				snprintf(vname, sizeof(vname), "%s", end + strspn(end, " "));
			continue;
		}
		if (!in_vendor || line[1] == '\t')
			continue;
		end = line + 1;
		if (np_scan_u64(&end, 16, 0, 0xffff, &id) && end == line + 5 && id == device) {
			const char *dname = end + strspn(end, " ");
			/* lspci's short form: the vendor's first word, then the device */
			size_t vw = strcspn(vname, " ,");
			snprintf(out, len, "%.*s %s", (int)vw, vname, dname);
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}
