/* SPDX-License-Identifier: MIT */
/* Snapshots: the hwloc topology written as XML with NCCLProbe* info
 * attributes that hold what hwloc does not (GPU and NIC facts, PCIe
 * generations, NVLinks, GDR and host facts, ACS), so that 'topo --input'
 * reproduces the live findings offline and lstopo can still draw it.
 * Records are "key=value;..." strings, on the device's PCI object when
 * hwloc has it, else on the root. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "internal.h"
#include "topo.h"
#include "xmlfile.h"

#define REC_LEN 2048

static void kv(char *buf, size_t len, const char *key, const char *val)
{
	size_t off = strlen(buf);

	snprintf(buf + off, len - off, "%s%s=", off ? ";" : "", key);
	off = strlen(buf);
	for (const char *p = val; *p && off + 1 < len; p++) /* ';' and '=' are separators */
		buf[off++] = (*p == ';' || *p == '=') ? ',' : *p;
	buf[off] = '\0';
}

static void kvi(char *buf, size_t len, const char *key, long long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%lld", v);
	kv(buf, len, key, s);
}

static void kvd(char *buf, size_t len, const char *key, double v)
{
	char s[32];

	snprintf(s, sizeof(s), "%.6g", v);
	kv(buf, len, key, s);
}

static bool get(const char *rec, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = rec; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			const char *v = p + kl + 1, *e = strchr(v, ';');
			size_t n = e ? (size_t)(e - v) : strlen(v);
			if (n >= len)
				n = len - 1;
			memcpy(out, v, n);
			out[n] = '\0';
			return true;
		}
	}
	return false;
}

/* Reading records back: a key that is absent takes its default (older
 * snapshots lack some); one that is present must be a number in the range
 * of its key, or the read stops with a line naming record, key and value:
 * the reader's state, one per read. */
struct reader {
	struct np_topo *t;
	struct np_err *err;
	enum np_status st;
	const char *rec; /* the record's info name */
};

static const struct range {
	const char *key;
	double lo, hi;
} ranges[] = {
	{ "index", 0, 1 << 30 },
	{ "order", 0, 1 << 30 },
	{ "numa", -1, 4095 },
	{ "gen", 0, 6 },
	{ "genmax", 0, 6 },
	{ "width", 0, 32 },
	{ "widthmax", 0, 32 },
	{ "gbps", 0, 1000 },
	{ "nvgbps", 0, 1000 },
	{ "rate", 0, 100000 },
	{ "nvlinks", -1, 64 },
	{ "nvswitch", -1, 64 },
	{ "nvcpu", -1, 64 },
	{ "sm", 0, 1000 },
	{ "vendor", 0, 0xffff },
	{ "device", 0, 0xffff },
	{ "bar1", 0, 1099511627776.0 },
	{ "port", 1, 255 },
	{ "lanes", 0, 32 },
	{ "mtu", 0, 65536 },
	{ "gid", -1, 65535 },
	{ "gid6", -1, 65535 },
	{ "nccl", 0, 10000000 },
	{ "source", 0, 3 },
	{ "nvcounts", 0, 1 },
};

static void bad(struct reader *rd, const char *key, const char *val, const char *why)
{
	char v[40];
	size_t k = 0;

	if (rd->st)
		return;
	for (const char *p = val; *p && k + 1 < sizeof(v); p++)
		v[k++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
	v[k] = '\0';
	rd->st =
		np_fail(rd->err, NP_EUSAGE,
			"--input '%s': snapshot record %s has %s=%s%s, which %s; export the snapshot again ('nccl-probe topo --export')",
			rd->t->source, rd->rec, key, v, val[k] ? "..." : "", why);
}

/* The range of a key; flags and tri-states (the rest) are -1..1. */
static void range_of(const char *key, double *lo, double *hi)
{
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (!strcmp(ranges[i].key, key)) {
			*lo = ranges[i].lo;
			*hi = ranges[i].hi;
			return;
		}
	*lo = -1;
	*hi = 1;
}

static long geti(struct reader *rd, const char *rec, const char *key, long dflt)
{
	char v[64], what[80];
	const char *why;
	double lo, hi;
	long x;

	if (!get(rec, key, v, sizeof(v)) || !v[0])
		return dflt;
	range_of(key, &lo, &hi);
	if (!np_xml_long(v, 10, (long)lo, (long)hi, &x, &why)) {
		snprintf(what, sizeof(what), "%s (%.0f..%.0f)", why, lo, hi);
		bad(rd, key, v, what);
		return dflt;
	}
	return x;
}

static double getd(struct reader *rd, const char *rec, const char *key)
{
	char v[64], what[80];
	const char *why;
	double lo, hi, x;

	if (!get(rec, key, v, sizeof(v)) || !v[0])
		return 0;
	range_of(key, &lo, &hi);
	if (!np_xml_double(v, lo, hi, &x, &why)) {
		snprintf(what, sizeof(what), "%s (%g..%g)", why, lo, hi);
		bad(rd, key, v, what);
		return 0;
	}
	return x;
}

static hwloc_obj_t home_of(hwloc_topology_t topo, const char *busid)
{
	unsigned dom, bus, dev, fn;
	hwloc_obj_t o = NULL;

	if (np_busid_parse(busid, &dom, &bus, &dev, &fn))
		o = hwloc_get_pcidev_by_busid(topo, dom, bus, dev, fn);
	return o ? o : hwloc_get_root_obj(topo);
}

static void gpu_record(const struct np_topo *t, int i, char *r, size_t len)
{
	const struct np_gpu *g = &t->gpus[i];
	char chain[1024], peers[1024] = "";

	r[0] = '\0';
	np_topo_pci_chain(t, g->pci, chain, sizeof(chain));
	kvi(r, len, "index", i);
	kv(r, len, "busid", g->busid);
	kv(r, len, "name", g->name);
	kvi(r, len, "numa", g->numa);
	kv(r, len, "pcipath", chain);
	kvi(r, len, "gen", g->pcie.gen_cur);
	kvi(r, len, "genmax", g->pcie.gen_max);
	kvi(r, len, "width", g->pcie.width_cur);
	kvi(r, len, "widthmax", g->pcie.width_max);
	kvd(r, len, "gbps", g->pcie.gbps);
	kvi(r, len, "nvlinks", g->nvlinks);
	kvd(r, len, "nvgbps", g->nvlink_gbps);
	kvi(r, len, "nvswitch", g->nvswitch_links);
	kvi(r, len, "nvcpu", g->nvcpu_links);
	kvi(r, len, "sm", g->sm);
	kvi(r, len, "vendor", g->vendor_id);
	kvi(r, len, "device", g->device_id);
	for (int j = 0; j < t->ngpus; j++)
		if (g->nvpeer[j])
			snprintf(peers + strlen(peers), sizeof(peers) - strlen(peers), "%s%s*%d",
				 peers[0] ? "," : "", t->gpus[j].busid, g->nvpeer[j]);
	kv(r, len, "nvpeers", peers);
	kvi(r, len, "bar1", (long long)g->bar1_mib);
	kvi(r, len, "gdr", g->gdr);
	kvi(r, len, "dmabuf", g->dmabuf);
}

static void nic_record(const struct np_topo *t, int k, char *r, size_t len)
{
	const struct np_nic *n = &t->nics[k];
	char chain[1024];

	r[0] = '\0';
	np_topo_pci_chain(t, n->pci, chain, sizeof(chain));
	kvi(r, len, "order", k);
	kv(r, len, "name", n->name);
	kvi(r, len, "port", n->port);
	kv(r, len, "busid", n->busid);
	kvi(r, len, "numa", n->numa);
	kv(r, len, "pcipath", chain);
	kv(r, len, "state", np_port_state_str(n->state));
	kv(r, len, "phys", np_port_state_str(n->phys));
	kv(r, len, "ll", np_link_layer_str(n->ll));
	kvd(r, len, "rate", n->rate_gbit);
	kvi(r, len, "lanes", n->width);
	kv(r, len, "speed", n->speed);
	kvi(r, len, "mtu", n->mtu);
	kvi(r, len, "gid", n->gid_index);
	kvi(r, len, "gid6", n->gid_index6);
	kvi(r, len, "gidchecked", n->gid_checked);
	kv(r, len, "netdev", n->netdev);
	kvi(r, len, "gen", n->pcie.gen_cur);
	kvi(r, len, "genmax", n->pcie.gen_max);
	kvi(r, len, "width", n->pcie.width_cur);
	kvi(r, len, "widthmax", n->pcie.width_max);
	kvd(r, len, "gbps", n->pcie.gbps);
	kvi(r, len, "rdma", n->rdma);
	kvi(r, len, "gdr", n->gdr);
}

static void host_record(const struct np_topo *t, char *r, size_t len)
{
	const struct np_host *h = &t->host;

	r[0] = '\0';
	kv(r, len, "hostname", h->hostname);
	kv(r, len, "peermem", h->peermem);
	kvi(r, len, "peermemloaded", h->peermem_loaded);
	kvi(r, len, "dmabufnic", h->dmabuf_nic);
	kvi(r, len, "iommu", h->iommu);
	kvi(r, len, "virtualized", h->virtualized);
	kvi(r, len, "acsreadable", h->acs_readable);
	kvi(r, len, "nccl", h->nccl_version);
	kvi(r, len, "nvml", h->nvml);
	kv(r, len, "ifnccl", h->iface_nccl);
	kv(r, len, "ifpci", h->iface_pci);
	kvi(r, len, "nvcounts", 1); /* NVLink counts of -1 mean unknown */
	kvi(r, len, "source", t->origin);
}

enum np_status np_topo_snapshot(struct np_topo *t, char **xml, size_t *len, struct np_err *err)
{
	hwloc_topology_t topo = (hwloc_topology_t)t->hwloc;
	hwloc_obj_t root;
	char *r, *buf = NULL;
	int n = 0;

	if (!topo)
		return np_fail(err, NP_EUSAGE,
			       "--export needs the live machine or an hwloc XML input, not an NCCL topology file");
	if (np_snapshot_present(topo))
		return np_fail(err, NP_EUSAGE,
			       "--input is already an nccl-probe snapshot; copy the file instead of exporting it again");
	r = malloc(REC_LEN);
	if (!r)
		return np_fail(err, NP_ENOMEM, "out of memory writing the snapshot");
	root = hwloc_get_root_obj(topo);
	hwloc_obj_add_info(root, "NCCLProbeSnapshot", "1 " PACKAGE_STRING);
	host_record(t, r, REC_LEN);
	hwloc_obj_add_info(root, "NCCLProbeHost", r);
	for (int i = 0; i < t->ngpus; i++) {
		gpu_record(t, i, r, REC_LEN);
		hwloc_obj_add_info(home_of(topo, t->gpus[i].busid), "NCCLProbeGPU", r);
	}
	for (int k = 0; k < t->nnics; k++) {
		nic_record(t, k, r, REC_LEN);
		hwloc_obj_add_info(home_of(topo, t->nics[k].busid), "NCCLProbeNIC", r);
	}
	for (int i = 0; i < t->npci; i++)
		if (t->pci[i].kind == NP_PCI_BRIDGE && t->pci[i].acs != NP_UNKNOWN) {
			r[0] = '\0';
			kv(r, REC_LEN, "id", t->pci[i].id);
			kvi(r, REC_LEN, "acs", t->pci[i].acs);
			hwloc_obj_add_info(root, "NCCLProbePCI", r);
		}
	free(r);
	if (hwloc_topology_export_xmlbuffer(topo, &buf, &n, 0) != 0 || !buf || n < 1) {
		int e = errno;
		if (buf)
			hwloc_free_xmlbuffer(topo, buf);
		return np_fail(err, NP_ESYS, "cannot build the --export snapshot: %s", strerror(e));
	}
	/* n counts the final NUL; the caller frees with free() */
	*xml = malloc((size_t)n);
	if (!*xml) {
		hwloc_free_xmlbuffer(topo, buf);
		return np_fail(err, NP_ENOMEM, "out of memory writing the snapshot");
	}
	memcpy(*xml, buf, (size_t)n);
	*len = strlen(*xml);
	hwloc_free_xmlbuffer(topo, buf);
	return NP_OK;
}

bool np_snapshot_present(hwloc_topology_t topo)
{
	return hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "NCCLProbeSnapshot") != NULL;
}

/* Every info of every object named name, in tree order. */
static void collect(hwloc_obj_t o, const char *name, const char **out, int *n, int max)
{
	for (unsigned i = 0; i < o->infos_count; i++)
		if (!strcmp(o->infos[i].name, name) && *n < max)
			out[(*n)++] = o->infos[i].value;
	for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling)
		collect(c, name, out, n, max);
	for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
		collect(c, name, out, n, max);
}

/* A count: NP_COUNT_UNKNOWN when absent or negative. */
static int count(struct reader *rd, const char *rec, const char *key)
{
	long v = geti(rd, rec, key, NP_COUNT_UNKNOWN);

	return v >= 0 && v <= 4096 ? (int)v : NP_COUNT_UNKNOWN;
}

static enum np_tri tri(long v) { return v > 0 ? NP_YES : v == 0 ? NP_NO : NP_UNKNOWN; }

static void read_gpu(struct reader *rd, struct np_topo *t, const char *r, char (*peers)[1024],
		     bool nv_known)
{
	char raw[64], busid[NP_BUSID_LEN], chain[1024];
	struct np_gpu *g;

	rd->rec = "NCCLProbeGPU";
	if (!get(r, "busid", raw, sizeof(raw)))
		return;
	if (!np_busid_norm(raw, busid, sizeof(busid))) {
		bad(rd, "busid", raw, "is not a PCI bus id");
		return;
	}
	if (np_topo_gpu_find(t, busid)) {
		bad(rd, "busid", raw, "is the bus id of another GPU");
		return;
	}
	if (!(g = np_topo_gpu_add(t, busid)))
		return;
	get(r, "name", g->name, sizeof(g->name));
	g->numa = (int)geti(rd, r, "numa", -1);
	if (get(r, "pcipath", chain, sizeof(chain)) && chain[0])
		g->pci = np_topo_pci_add_chain(t, chain, g->numa);
	g->pcie.gen_cur = (int)geti(rd, r, "gen", 0);
	g->pcie.gen_max = (int)geti(rd, r, "genmax", 0);
	g->pcie.width_cur = (int)geti(rd, r, "width", 0);
	g->pcie.width_max = (int)geti(rd, r, "widthmax", 0);
	g->pcie.gbps = getd(rd, r, "gbps");
	/* snapshots before explicit unknowns wrote 0 and a node-wide
	 * nvlinkknown=0 when NVLinks could not be told */
	g->nvlinks = nv_known ? count(rd, r, "nvlinks") : NP_COUNT_UNKNOWN;
	g->nvlink_gbps = getd(rd, r, "nvgbps");
	g->nvswitch_links = nv_known ? count(rd, r, "nvswitch") : NP_COUNT_UNKNOWN;
	g->nvcpu_links = nv_known ? count(rd, r, "nvcpu") : NP_COUNT_UNKNOWN;
	if (g->nvlinks >= 0 && g->nvcpu_links < 0 && geti(rd, r, "nvcpu", -2) == -2)
		g->nvcpu_links = 0; /* older snapshots counted no CPU links */
	g->sm = (int)geti(rd, r, "sm", 0);
	g->vendor_id = (unsigned)geti(rd, r, "vendor", 0) & 0xffff;
	g->device_id = (unsigned)geti(rd, r, "device", 0) & 0xffff;
	if (g->sm < 0 || g->sm > 200)
		g->sm = 0;
	g->bar1_mib = (uint64_t)geti(rd, r, "bar1", 0);
	g->gdr = tri(geti(rd, r, "gdr", -1));
	g->dmabuf = tri(geti(rd, r, "dmabuf", -1));
	get(r, "nvpeers", peers[g->index], sizeof(peers[0]));
}

static void read_nic(struct reader *rd, struct np_topo *t, const char *r)
{
	char name[NP_NAME_LEN], raw[64], s[64], chain[1024];
	struct np_nic *n;
	int port;

	rd->rec = "NCCLProbeNIC";
	if (!get(r, "name", name, sizeof(name)))
		return;
	if (!np_devname_valid(name, NP_IBNAMSIZ) && strncmp(name, "nic@", 4) &&
	    strncmp(name, "net@", 4)) {
		np_topo_note(t, "a NIC record with a name no kernel allows was left out");
		return;
	}
	port = (int)geti(rd, r, "port", 1);
	if (rd->st)
		return;
	if (np_topo_nic_find(t, name, port)) {
		bad(rd, "name", name, "names a NIC port a second time");
		return;
	}
	if (!(n = np_topo_nic_add(t, name, port)))
		return;
	if (get(r, "busid", raw, sizeof(raw)) && raw[0] &&
	    !np_busid_norm(raw, n->busid, sizeof(n->busid))) {
		bad(rd, "busid", raw, "is not a PCI bus id");
		return;
	}
	n->numa = (int)geti(rd, r, "numa", -1);
	if (get(r, "pcipath", chain, sizeof(chain)) && chain[0])
		n->pci = np_topo_pci_add_chain(t, chain, n->numa);
	if (get(r, "state", s, sizeof(s)))
		n->state = np_port_state_parse(s);
	if (get(r, "phys", s, sizeof(s)))
		n->phys = np_port_state_parse(s);
	if (get(r, "ll", s, sizeof(s)))
		n->ll = np_link_layer_parse(s);
	n->rate_gbit = getd(rd, r, "rate");
	n->width = (int)geti(rd, r, "lanes", 0);
	get(r, "speed", n->speed, sizeof(n->speed));
	n->mtu = (int)geti(rd, r, "mtu", 0);
	n->gid_index = (int)geti(rd, r, "gid", -1);
	n->gid_index6 = (int)geti(rd, r, "gid6", -1);
	n->gid_checked = geti(rd, r, "gidchecked", 0) != 0;
	get(r, "netdev", n->netdev, sizeof(n->netdev));
	if (n->netdev[0] && !np_devname_valid(n->netdev, NP_IFNAMSIZ)) {
		np_topo_note(t, "NIC %s: its interface name is not one the kernel allows; left out",
			     n->name);
		n->netdev[0] = '\0';
	}
	n->rdma = tri(geti(rd, r, "rdma", 1));
	n->gdr = tri(geti(rd, r, "gdr", -1));
	n->pcie.gen_cur = (int)geti(rd, r, "gen", 0);
	n->pcie.gen_max = (int)geti(rd, r, "genmax", 0);
	n->pcie.width_cur = (int)geti(rd, r, "width", 0);
	n->pcie.width_max = (int)geti(rd, r, "widthmax", 0);
	n->pcie.gbps = getd(rd, r, "gbps");
}

/* Records in the order of their key ("index" of GPUs, "order" of NICs) */
struct keyed {
	long key;
	const char *rec;
};

static int cmp_keyed(const void *a, const void *b)
{
	long x = ((const struct keyed *)a)->key, y = ((const struct keyed *)b)->key;

	return (x > y) - (x < y);
}

static void sort_recs(struct reader *rd, const char **recs, int n, const char *key)
{
	struct keyed k[NP_MAX_GPUS + NP_MAX_NICS + 256];

	for (int i = 0; i < n; i++) {
		k[i].key = geti(rd, recs[i], key, 0);
		k[i].rec = recs[i];
	}
	qsort(k, (size_t)n, sizeof(k[0]), cmp_keyed);
	for (int i = 0; i < n; i++)
		recs[i] = k[i].rec;
}

enum np_status np_snapshot_read(struct np_topo *t, hwloc_topology_t topo, struct np_err *err)
{
	hwloc_obj_t root = hwloc_get_root_obj(topo);
	const char *recs[NP_MAX_GPUS + NP_MAX_NICS + 256];
	const char *host = hwloc_obj_get_info_by_name(root, "NCCLProbeHost");
	char(*peers)[1024] = calloc(NP_MAX_GPUS, sizeof(*peers));
	struct reader reader, *rd = &reader;
	int n = 0;
	bool nv_known = false;

	if (!peers)
		return np_fail(err, NP_ENOMEM, "out of memory reading a snapshot");
	rd->t = t;
	rd->err = err;
	rd->st = NP_OK;
	rd->rec = "NCCLProbeHost";
	if (host) {
		struct np_host *h = &t->host;
		get(host, "hostname", h->hostname, sizeof(h->hostname));
		get(host, "peermem", h->peermem, sizeof(h->peermem));
		h->peermem_loaded = tri(geti(rd, host, "peermemloaded", -1));
		h->dmabuf_nic = tri(geti(rd, host, "dmabufnic", -1));
		h->iommu = tri(geti(rd, host, "iommu", -1));
		h->virtualized = tri(geti(rd, host, "virtualized", -1));
		h->acs_readable = tri(geti(rd, host, "acsreadable", -1));
		h->nccl_version = (int)geti(rd, host, "nccl", 0);
		h->nvml = tri(geti(rd, host, "nvml", -1));
		get(host, "ifnccl", h->iface_nccl, sizeof(h->iface_nccl));
		get(host, "ifpci", h->iface_pci, sizeof(h->iface_pci));
		/* names go into export lines: keep only what the kernel allows */
		if ((h->iface_nccl[0] && !np_devname_valid(h->iface_nccl, NP_IFNAMSIZ)) ||
		    (h->iface_pci[0] && !np_devname_valid(h->iface_pci, NP_IFNAMSIZ))) {
			np_topo_note(t,
				     "the snapshot's interface names are not ones the kernel allows; they are left out");
			h->iface_nccl[0] = h->iface_pci[0] = '\0';
		}
		nv_known =
			geti(rd, host, "nvcounts", 0) == 1 || geti(rd, host, "nvlinkknown", 0) != 0;
		t->origin = geti(rd, host, "source", NP_SRC_LIVE) == NP_SRC_HWLOC ? NP_SRC_HWLOC
										  : NP_SRC_LIVE;
	}
	collect(root, "NCCLProbeGPU", recs, &n, NP_MAX_GPUS);
	rd->rec = "NCCLProbeGPU";
	sort_recs(rd, recs, n, "index");
	for (int i = 0; i < n && !rd->st; i++)
		read_gpu(rd, t, recs[i], peers, nv_known);
	for (int i = 0; i < t->ngpus && !rd->st; i++) { /* "busid*count,..." */
		char *tok, *save = NULL;
		rd->rec = "NCCLProbeGPU";
		for (tok = strtok_r(peers[i], ",", &save); tok && !rd->st;
		     tok = strtok_r(NULL, ",", &save)) {
			char *star = strchr(tok, '*'), id[NP_BUSID_LEN];
			const char *why;
			long cnt;
			if (!star)
				continue;
			*star = '\0';
			if (!np_xml_long(star + 1, 10, 0, 64, &cnt, &why)) {
				bad(rd, "nvpeers", star + 1, "is not a link count (0..64)");
				break;
			}
			if (!np_busid_norm(tok, id, sizeof(id)))
				continue;
			for (int j = 0; j < t->ngpus; j++)
				if (!strcmp(t->gpus[j].busid, id))
					t->gpus[i].nvpeer[j] = (int)cnt;
		}
	}
	free(peers);
	n = 0;
	collect(root, "NCCLProbeNIC", recs, &n, NP_MAX_NICS);
	rd->rec = "NCCLProbeNIC";
	sort_recs(rd, recs, n, "order");
	for (int i = 0; i < n && !rd->st; i++)
		read_nic(rd, t, recs[i]);
	n = 0;
	collect(root, "NCCLProbePCI", recs, &n, 256);
	rd->rec = "NCCLProbePCI";
	for (int i = 0; i < n && !rd->st; i++) {
		char id[NP_BUSID_LEN];
		int p;
		if (get(recs[i], "id", id, sizeof(id)) && (p = np_topo_pci_find(t, id)) >= 0)
			t->pci[p].acs = tri(geti(rd, recs[i], "acs", -1));
	}
	np_hwloc_bridge_ids(t, topo);
	return rd->st;
}
