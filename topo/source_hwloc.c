/* SPDX-License-Identifier: MIT */
/* hwloc XML source: GPUs (NVIDIA PCI display/3D devices), NICs (PCI
 * devices with an OpenFabrics OS device), the PCI tree, NUMA nodes and
 * NVLinks from hwloc's NVLinkBandwidth distances. nccl-probe's own
 * snapshots carry NCCLProbe* records that fill the model instead. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "internal.h"
#include "topo.h"

#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_VENDOR_AMAZON 0x1d0f

void np_hwloc_numa(struct np_topo *t, hwloc_topology_t topo)
{
	hwloc_obj_t root = hwloc_get_root_obj(topo), o = NULL;
	const char *host = hwloc_obj_get_info_by_name(root, "HostName");

	if (host && !t->host.hostname[0])
		snprintf(t->host.hostname, sizeof(t->host.hostname), "%s", host);
	t->nnuma = 0;
	while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o)) && t->nnuma < NP_MAX_NUMA) {
		struct np_numa *n = &t->numa[t->nnuma++];
		n->os_index = (int)o->os_index;
		if (o->cpuset)
			hwloc_bitmap_list_snprintf(n->cpus, sizeof(n->cpus), o->cpuset);
	}
}

int np_hwloc_numa_of(hwloc_topology_t topo, hwloc_obj_t obj)
{
	hwloc_obj_t nonio = hwloc_get_non_io_ancestor_obj(topo, obj);

	/* devices that hwloc could not place (a VM's numa_node -1) hang from
	 * the machine itself: their NUMA node is unknown */
	if (!nonio || nonio->type == HWLOC_OBJ_MACHINE || !nonio->nodeset)
		return -1;
	if (hwloc_bitmap_weight(nonio->nodeset) != 1)
		return -1;
	return hwloc_bitmap_first(nonio->nodeset);
}

static void busid_of(hwloc_obj_t o, char *buf, size_t len)
{
	if (o->type == HWLOC_OBJ_PCI_DEVICE)
		snprintf(buf, len, "%04x:%02x:%02x.%x", (unsigned)o->attr->pcidev.domain,
			 o->attr->pcidev.bus, o->attr->pcidev.dev, o->attr->pcidev.func);
	else if (o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
		snprintf(buf, len, "pci%04x:%02x", (unsigned)o->attr->bridge.downstream.pci.domain,
			 o->attr->bridge.downstream.pci.secondary_bus);
	else /* a PCI-PCI bridge */
		snprintf(buf, len, "%04x:%02x:%02x.%x", (unsigned)o->attr->bridge.upstream.pci.domain,
			 o->attr->bridge.upstream.pci.bus, o->attr->bridge.upstream.pci.dev,
			 o->attr->bridge.upstream.pci.func);
}

int np_hwloc_chain(struct np_topo *t, hwloc_topology_t topo, hwloc_obj_t obj)
{
	hwloc_obj_t chain[64];
	int n = 0, parent = -1, numa = np_hwloc_numa_of(topo, obj);
	bool have_hb = false;

	for (hwloc_obj_t o = obj; o && n < 64; o = o->parent) {
		if (o->type != HWLOC_OBJ_PCI_DEVICE && o->type != HWLOC_OBJ_BRIDGE)
			break;
		chain[n++] = o;
		if (o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
			have_hb = true;
			break;
		}
	}
	if (!have_hb) { /* hwloc may omit the host bridge; name one after the domain and bus */
		char hb[NP_BUSID_LEN];
		hwloc_obj_t top = chain[n - 1];
		unsigned dom = top->type == HWLOC_OBJ_PCI_DEVICE ? top->attr->pcidev.domain
								 : top->attr->bridge.upstream.pci.domain;
		unsigned bus = top->type == HWLOC_OBJ_PCI_DEVICE ? top->attr->pcidev.bus
								 : top->attr->bridge.upstream.pci.bus;
		snprintf(hb, sizeof(hb), "pci%04x:%02x", dom, bus);
		parent = np_topo_pci_add(t, hb, NP_PCI_HOSTBRIDGE, -1);
		if (parent >= 0 && t->pci[parent].numa < 0)
			t->pci[parent].numa = numa;
	}
	while (n-- > 0) {
		char id[NP_BUSID_LEN];
		hwloc_obj_t o = chain[n];
		enum np_pci_kind kind = o->type == HWLOC_OBJ_PCI_DEVICE ? NP_PCI_DEVICE
				      : o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST ? NP_PCI_HOSTBRIDGE
				      : NP_PCI_BRIDGE;
		busid_of(o, id, sizeof(id));
		parent = np_topo_pci_add(t, id, kind, parent);
		if (parent < 0)
			return -1;
		if (kind == NP_PCI_HOSTBRIDGE && t->pci[parent].numa < 0)
			t->pci[parent].numa = numa;
	}
	return parent;
}

static bool is_nvidia_gpu(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_PCI_DEVICE && o->attr->pcidev.vendor_id == PCI_VENDOR_NVIDIA &&
	       (o->attr->pcidev.class_id >> 8) == 0x03;
}

static bool is_nvswitch(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_PCI_DEVICE && o->attr->pcidev.vendor_id == PCI_VENDOR_NVIDIA &&
	       o->attr->pcidev.class_id == 0x0680;
}

static const char *gpu_model_of(hwloc_obj_t pci)
{
	hwloc_obj_t c, only = NULL;
	int gpus = 0;

	for (c = pci->io_first_child; c; c = c->next_sibling) {
		const char *m = c->type == HWLOC_OBJ_OS_DEVICE ? hwloc_obj_get_info_by_name(c, "GPUModel") : NULL;
		if (m)
			return m;
	}
	/* some exports hang OpenCL devices beside the GPU rather than below
	 * it; that is unambiguous when the GPU is alone there */
	if (!pci->parent)
		return NULL;
	for (c = pci->parent->io_first_child; c; c = c->next_sibling)
		if (is_nvidia_gpu(c))
			gpus++;
	if (gpus != 1)
		return NULL;
	for (c = pci->parent->io_first_child; c; c = c->next_sibling)
		if (c->type == HWLOC_OBJ_OS_DEVICE && hwloc_obj_get_info_by_name(c, "GPUModel"))
			only = c;
	return only ? hwloc_obj_get_info_by_name(only, "GPUModel") : NULL;
}

static void add_gpu(struct np_topo *t, hwloc_topology_t topo, hwloc_obj_t o)
{
	char busid[NP_BUSID_LEN];
	struct np_gpu *g;
	const char *model = gpu_model_of(o);

	busid_of(o, busid, sizeof(busid));
	g = np_topo_gpu_add(t, busid);
	if (!g) {
		np_topo_note(t, "more than %d GPUs; the rest are left out", NP_MAX_GPUS);
		return;
	}
	if (model)
		snprintf(g->name, sizeof(g->name), "%s", model);
	else
		snprintf(g->name, sizeof(g->name), "NVIDIA [10de:%04x]", o->attr->pcidev.device_id);
	g->pci = np_hwloc_chain(t, topo, o);
	g->numa = np_hwloc_numa_of(topo, o);
	g->pcie.gbps = o->attr->pcidev.linkspeed;
}

static void add_nic(struct np_topo *t, hwloc_topology_t topo, hwloc_obj_t pci, hwloc_obj_t ofed)
{
	char busid[NP_BUSID_LEN], key[32];
	const char *netdev = NULL;
	int ports = 0;

	busid_of(pci, busid, sizeof(busid));
	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
		if (c->type == HWLOC_OBJ_OS_DEVICE && c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK &&
		    (!netdev || !strncmp(c->name, "ib", 2)))
			netdev = c->name;
	for (int p = 1; p <= 16; p++) {
		snprintf(key, sizeof(key), "Port%dState", p);
		if (hwloc_obj_get_info_by_name(ofed, key))
			ports = p;
	}
	for (int p = 1; p <= (ports ? ports : 1); p++) {
		struct np_nic *n = np_topo_nic_add(t, ofed->name, p);
		const char *st;
		unsigned cls = pci->attr->pcidev.class_id;
		if (!n) {
			np_topo_note(t, "more than %d NIC ports; the rest are left out", NP_MAX_NICS);
			return;
		}
		snprintf(n->busid, sizeof(n->busid), "%s", busid);
		n->pci = np_hwloc_chain(t, topo, pci);
		n->numa = np_hwloc_numa_of(topo, pci);
		n->pcie.gbps = pci->attr->pcidev.linkspeed;
		snprintf(key, sizeof(key), "Port%dState", p);
		st = hwloc_obj_get_info_by_name(ofed, key);
		if (st) { /* hwloc records the numeric ibv_port_state */
			long v = strtol(st, NULL, 10);
			n->state = v == 4 ? NP_PORT_ACTIVE : v == 1 ? NP_PORT_DOWN : v == 2 ? NP_PORT_INIT
				 : v == 3 ? NP_PORT_ARMED : NP_PORT_UNKNOWN;
		}
		if (pci->attr->pcidev.vendor_id == PCI_VENDOR_AMAZON || !strncmp(ofed->name, "rdmap", 5) ||
		    !strncmp(ofed->name, "efa", 3))
			n->ll = NP_LL_EFA;
		else if (cls == 0x0207 || cls == 0x0c06)
			n->ll = NP_LL_IB;
		else if (cls == 0x0200)
			n->ll = NP_LL_ROCE;
		if (netdev)
			snprintf(n->netdev, sizeof(n->netdev), "%s", netdev);
	}
}

/* Per-link rate (MB/s) that hwloc used to fill NVLinkBandwidth: NVLink 1
 * (P100) carries 20 GB/s a link, later generations 25 GB/s. */
static double nvlink_unit(const struct np_topo *t)
{
	for (int i = 0; i < t->ngpus; i++)
		if (strstr(t->gpus[i].name, "P100"))
			return 20000;
	return 25000;
}

static int gpu_of_obj(const struct np_topo *t, hwloc_obj_t o)
{
	char busid[NP_BUSID_LEN];

	while (o && o->type == HWLOC_OBJ_OS_DEVICE)
		o = o->parent;
	if (!o || !is_nvidia_gpu(o))
		return -1;
	busid_of(o, busid, sizeof(busid));
	for (int i = 0; i < t->ngpus; i++)
		if (!strcmp(t->gpus[i].busid, busid))
			return i;
	return -1;
}

static void nvlink_distances(struct np_topo *t, hwloc_topology_t topo)
{
	struct hwloc_distances_s *d[4];
	unsigned nr = 4;
	double unit = nvlink_unit(t);

	if (hwloc_distances_get_by_name(topo, "NVLinkBandwidth", &nr, d, 0) != 0 || nr == 0)
		return;
	t->nvlink_known = true;
	for (unsigned i = 0; i < d[0]->nbobjs; i++) {
		int gi = gpu_of_obj(t, d[0]->objs[i]);
		struct np_gpu *g;
		if (gi < 0)
			continue;
		g = &t->gpus[gi];
		for (unsigned j = 0; j < d[0]->nbobjs; j++) {
			hwloc_uint64_t v = d[0]->values[i * d[0]->nbobjs + j];
			int links, gj;
			if (i == j || v == 0)
				continue;
			links = (int)(v / unit + 0.5);
			if (links < 1)
				links = 1;
			g->nvlinks += links;
			g->nvlink_gbps = unit / 1000.0;
			gj = gpu_of_obj(t, d[0]->objs[j]);
			if (gj >= 0)
				g->nvpeer[gj] += links;
			else if (is_nvswitch(d[0]->objs[j]) || d[0]->objs[j]->type == HWLOC_OBJ_PCI_DEVICE)
				g->nvswitch_links += links; /* hwloc puts an empty PCI object for a switch it cannot see */
		}
	}
	for (unsigned k = 0; k < nr; k++)
		hwloc_distances_release(topo, d[k]);
}

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(((const struct np_gpu *)a)->busid, ((const struct np_gpu *)b)->busid);
}

enum np_status np_topo_from_hwloc(struct np_topo *t, void *hwloc_topology, struct np_err *err)
{
	hwloc_topology_t topo = (hwloc_topology_t)hwloc_topology;
	hwloc_obj_t o = NULL;

	np_hwloc_numa(t, topo);
	if (np_snapshot_present(topo)) {
		t->kind = NP_SRC_SNAPSHOT;
		return np_snapshot_read(t, topo, err);
	}
	t->kind = t->origin = NP_SRC_HWLOC;
	while ((o = hwloc_get_next_pcidev(topo, o)))
		if (is_nvidia_gpu(o))
			add_gpu(t, topo, o);
	qsort(t->gpus, (size_t)t->ngpus, sizeof(t->gpus[0]), cmp_gpu); /* nvidia-smi order */
	for (int i = 0; i < t->ngpus; i++)
		t->gpus[i].index = i;
	o = NULL;
	while ((o = hwloc_get_next_osdev(topo, o))) {
		if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS)
			continue;
		if (!o->parent || o->parent->type != HWLOC_OBJ_PCI_DEVICE) {
			np_topo_note(t, "RDMA device '%s' has no PCI device in the file; left out", o->name);
			continue;
		}
		add_nic(t, topo, o->parent, o);
	}
	np_topo_sort_nics(t);
	nvlink_distances(t, topo);
	if (!t->nvlink_known)
		np_topo_note(t, "the file has no NVLinkBandwidth distances; NVLinks cannot be told from it");
	np_topo_note(t, "NIC port states and rates, PCIe generations and GDR facts are not in an hwloc file; run 'nccl-probe topo --export' on the node to keep them");
	return NP_OK;
}
