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

static long geti(const char *rec, const char *key, long dflt)
{
	char v[64], *end;
	long r;

	if (!get(rec, key, v, sizeof(v)) || !v[0])
		return dflt;
	r = strtol(v, &end, 10);
	return *end ? dflt : r;
}

static double getd(const char *rec, const char *key)
{
	char v[64], *end;
	double r;

	if (!get(rec, key, v, sizeof(v)) || !v[0])
		return 0;
	r = strtod(v, &end);
	return *end ? 0 : r;
}

static hwloc_obj_t home_of(hwloc_topology_t topo, const char *busid)
{
	unsigned dom, bus, dev, fn;
	hwloc_obj_t o = NULL;

	if (sscanf(busid, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
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
	for (int j = 0; j < t->ngpus; j++)
		if (g->nvpeer[j])
			snprintf(peers + strlen(peers), sizeof(peers) - strlen(peers), "%s%s*%d", peers[0] ? "," : "",
				 t->gpus[j].busid, g->nvpeer[j]);
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
	kvi(r, len, "nvlinkknown", t->nvlink_known);
	kvi(r, len, "source", t->origin);
}

enum np_status np_topo_snapshot(struct np_topo *t, const char *path, struct np_err *err)
{
	hwloc_topology_t topo = (hwloc_topology_t)t->hwloc;
	hwloc_obj_t root;
	char *r, tmp[4200];

	if (!topo)
		return np_fail(err, NP_EUSAGE, "--export needs the live machine or an hwloc XML input, not an NCCL topology file");
	if (np_snapshot_present(topo))
		return np_fail(err, NP_EUSAGE, "--input is already an nccl-probe snapshot; copy the file instead of exporting it again");
	if (strlen(path) + 32 >= sizeof(tmp))
		return np_fail(err, NP_EUSAGE, "--export path '%.64s...' is too long", path);
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
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	if (hwloc_topology_export_xml(topo, tmp, 0) != 0) {
		int e = errno;
		unlink(tmp);
		return np_fail(err, NP_EUSAGE, "cannot write --export '%s': %s; choose a writable file", path, strerror(e));
	}
	if (rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		return np_fail(err, NP_EUSAGE, "cannot write --export '%s': %s; choose a writable file", path, strerror(e));
	}
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

static enum np_tri tri(long v)
{
	return v > 0 ? NP_YES : v == 0 ? NP_NO : NP_UNKNOWN;
}

static void read_gpu(struct np_topo *t, const char *r, char (*peers)[1024])
{
	char busid[NP_BUSID_LEN], chain[1024];
	struct np_gpu *g;

	if (!get(r, "busid", busid, sizeof(busid)) || !(g = np_topo_gpu_add(t, busid)))
		return;
	get(r, "name", g->name, sizeof(g->name));
	g->numa = (int)geti(r, "numa", -1);
	if (get(r, "pcipath", chain, sizeof(chain)) && chain[0])
		g->pci = np_topo_pci_add_chain(t, chain, g->numa);
	g->pcie.gen_cur = (int)geti(r, "gen", 0);
	g->pcie.gen_max = (int)geti(r, "genmax", 0);
	g->pcie.width_cur = (int)geti(r, "width", 0);
	g->pcie.width_max = (int)geti(r, "widthmax", 0);
	g->pcie.gbps = getd(r, "gbps");
	g->nvlinks = (int)geti(r, "nvlinks", 0);
	g->nvlink_gbps = getd(r, "nvgbps");
	g->nvswitch_links = (int)geti(r, "nvswitch", 0);
	g->bar1_mib = (uint64_t)geti(r, "bar1", 0);
	g->gdr = tri(geti(r, "gdr", -1));
	g->dmabuf = tri(geti(r, "dmabuf", -1));
	get(r, "nvpeers", peers[g->index], sizeof(peers[0]));
}

static void read_nic(struct np_topo *t, const char *r)
{
	char name[NP_NAME_LEN], s[64], chain[1024];
	struct np_nic *n;

	if (!get(r, "name", name, sizeof(name)) || !(n = np_topo_nic_add(t, name, (int)geti(r, "port", 1))))
		return;
	get(r, "busid", n->busid, sizeof(n->busid));
	n->numa = (int)geti(r, "numa", -1);
	if (get(r, "pcipath", chain, sizeof(chain)) && chain[0])
		n->pci = np_topo_pci_add_chain(t, chain, n->numa);
	if (get(r, "state", s, sizeof(s)))
		n->state = np_port_state_parse(s);
	if (get(r, "phys", s, sizeof(s)))
		n->phys = np_port_state_parse(s);
	if (get(r, "ll", s, sizeof(s)))
		n->ll = np_link_layer_parse(s);
	n->rate_gbit = getd(r, "rate");
	n->width = (int)geti(r, "lanes", 0);
	get(r, "speed", n->speed, sizeof(n->speed));
	n->mtu = (int)geti(r, "mtu", 0);
	n->gid_index = (int)geti(r, "gid", -1);
	n->gid_index6 = (int)geti(r, "gid6", -1);
	n->gid_checked = geti(r, "gidchecked", 0) != 0;
	get(r, "netdev", n->netdev, sizeof(n->netdev));
	n->pcie.gen_cur = (int)geti(r, "gen", 0);
	n->pcie.gen_max = (int)geti(r, "genmax", 0);
	n->pcie.width_cur = (int)geti(r, "width", 0);
	n->pcie.width_max = (int)geti(r, "widthmax", 0);
	n->pcie.gbps = getd(r, "gbps");
}

static int by_key;
static int cmp_rec(const void *a, const void *b)
{
	long x = geti(*(const char *const *)a, by_key ? "order" : "index", 0);
	long y = geti(*(const char *const *)b, by_key ? "order" : "index", 0);

	return (x > y) - (x < y);
}

enum np_status np_snapshot_read(struct np_topo *t, hwloc_topology_t topo, struct np_err *err)
{
	hwloc_obj_t root = hwloc_get_root_obj(topo);
	const char *recs[NP_MAX_GPUS + NP_MAX_NICS + 256];
	const char *host = hwloc_obj_get_info_by_name(root, "NCCLProbeHost");
	char (*peers)[1024] = calloc(NP_MAX_GPUS, sizeof(*peers));
	int n = 0;

	if (!peers)
		return np_fail(err, NP_ENOMEM, "out of memory reading a snapshot");
	if (host) {
		struct np_host *h = &t->host;
		get(host, "hostname", h->hostname, sizeof(h->hostname));
		get(host, "peermem", h->peermem, sizeof(h->peermem));
		h->peermem_loaded = tri(geti(host, "peermemloaded", -1));
		h->dmabuf_nic = tri(geti(host, "dmabufnic", -1));
		h->iommu = tri(geti(host, "iommu", -1));
		h->virtualized = tri(geti(host, "virtualized", -1));
		h->acs_readable = tri(geti(host, "acsreadable", -1));
		h->nccl_version = (int)geti(host, "nccl", 0);
		h->nvml = tri(geti(host, "nvml", -1));
		get(host, "ifnccl", h->iface_nccl, sizeof(h->iface_nccl));
		get(host, "ifpci", h->iface_pci, sizeof(h->iface_pci));
		t->nvlink_known = geti(host, "nvlinkknown", 0) != 0;
		t->origin = geti(host, "source", NP_SRC_LIVE) == NP_SRC_HWLOC ? NP_SRC_HWLOC : NP_SRC_LIVE;
	}
	collect(root, "NCCLProbeGPU", recs, &n, NP_MAX_GPUS);
	by_key = 0;
	qsort(recs, (size_t)n, sizeof(recs[0]), cmp_rec);
	for (int i = 0; i < n; i++)
		read_gpu(t, recs[i], peers);
	for (int i = 0; i < t->ngpus; i++) { /* "busid*count,..." */
		char *tok, *save = NULL;
		for (tok = strtok_r(peers[i], ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char *star = strchr(tok, '*');
			if (!star)
				continue;
			*star = '\0';
			for (int j = 0; j < t->ngpus; j++)
				if (!strcmp(t->gpus[j].busid, tok))
					t->gpus[i].nvpeer[j] = (int)strtol(star + 1, NULL, 10);
		}
	}
	free(peers);
	n = 0;
	collect(root, "NCCLProbeNIC", recs, &n, NP_MAX_NICS);
	by_key = 1;
	qsort(recs, (size_t)n, sizeof(recs[0]), cmp_rec);
	for (int i = 0; i < n; i++)
		read_nic(t, recs[i]);
	n = 0;
	collect(root, "NCCLProbePCI", recs, &n, 256);
	for (int i = 0; i < n; i++) {
		char id[NP_BUSID_LEN];
		int p;
		if (get(recs[i], "id", id, sizeof(id)) && (p = np_topo_pci_find(t, id)) >= 0)
			t->pci[p].acs = tri(geti(recs[i], "acs", -1));
	}
	return NP_OK;
}
