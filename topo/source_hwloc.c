/* SPDX-License-Identifier: MIT */
/* hwloc XML source: GPUs (NVIDIA PCI display/3D devices), NICs (PCI
 * devices with an OpenFabrics OS device), the PCI tree, NUMA nodes and
 * NVLinks from hwloc's NVLinkBandwidth distances. nccl-probe's own
 * snapshots carry NCCLProbe* records that fill the model instead. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "../common/number.h"
#include "internal.h"
#include "topo.h"

#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_VENDOR_AMAZON 0x1d0f
#define PCI_VENDOR_HPE_CRAY 0x17db /* Cassini: Slingshot */
#define PCI_VENDOR_AMD 0x1002
#define PCI_VENDOR_HYGON 0x1d94
#define PCI_VENDOR_INTEL 0x8086

void np_hwloc_numa(struct np_topo *t, hwloc_topology_t topo)
{
	hwloc_obj_t root = hwloc_get_root_obj(topo), o = NULL;
	const char *host = hwloc_obj_get_info_by_name(root, "HostName");
	const char *arch = hwloc_obj_get_info_by_name(root, "Architecture");

	if (host && !t->host.hostname[0])
		snprintf(t->host.hostname, sizeof(t->host.hostname), "%s", host);
	if (arch && !t->host.arch[0])
		snprintf(t->host.arch, sizeof(t->host.arch), "%s", arch);
	t->nnuma = 0;
	while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o)) &&
	       t->nnuma < NP_MAX_NUMA) {
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
	else if (o->type == HWLOC_OBJ_BRIDGE &&
		 o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
		snprintf(buf, len, "pci%04x:%02x", (unsigned)o->attr->bridge.downstream.pci.domain,
			 o->attr->bridge.downstream.pci.secondary_bus);
	else /* a PCI-PCI bridge */
		snprintf(buf, len, "%04x:%02x:%02x.%x",
			 (unsigned)o->attr->bridge.upstream.pci.domain,
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
		if (o->type == HWLOC_OBJ_BRIDGE &&
		    o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
			have_hb = true;
			break;
		}
	}
	if (!have_hb) { /* hwloc may omit the host bridge; name one after the domain and bus */
		char hb[NP_BUSID_LEN];
		hwloc_obj_t top = chain[n - 1];
		unsigned dom = top->type == HWLOC_OBJ_PCI_DEVICE
				       ? top->attr->pcidev.domain
				       : top->attr->bridge.upstream.pci.domain;
		unsigned bus = top->type == HWLOC_OBJ_PCI_DEVICE
				       ? top->attr->pcidev.bus
				       : top->attr->bridge.upstream.pci.bus;
		snprintf(hb, sizeof(hb), "pci%04x:%02x", dom, bus);
		parent = np_topo_pci_add(t, hb, NP_PCI_HOSTBRIDGE, -1);
		if (parent >= 0 && t->pci[parent].numa < 0)
			t->pci[parent].numa = numa;
		if (parent >= 0)
			t->pci[parent].named = true;
	}
	while (n-- > 0) {
		char id[NP_BUSID_LEN];
		hwloc_obj_t o = chain[n];
		enum np_pci_kind kind = o->type == HWLOC_OBJ_PCI_DEVICE ? NP_PCI_DEVICE
					: o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST
						? NP_PCI_HOSTBRIDGE
						: NP_PCI_BRIDGE;
		busid_of(o, id, sizeof(id));
		parent = np_topo_pci_add(t, id, kind, parent);
		if (parent < 0)
			return -1;
		if (kind == NP_PCI_BRIDGE &&
		    o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI) {
			const struct hwloc_pcidev_attr_s *u = &o->attr->bridge.upstream.pci;
			np_topo_pci_set_ids(t, parent, u->vendor_id, u->device_id, u->subvendor_id,
					    u->subdevice_id, true);
		}
		if (kind == NP_PCI_HOSTBRIDGE && t->pci[parent].numa < 0)
			t->pci[parent].numa = numa;
	}
	return parent;
}

void np_hwloc_bridge_ids(struct np_topo *t, hwloc_topology_t topo)
{
	for (hwloc_obj_t o = hwloc_get_next_bridge(topo, NULL); o;
	     o = hwloc_get_next_bridge(topo, o)) {
		char id[NP_BUSID_LEN];
		const struct hwloc_pcidev_attr_s *u = &o->attr->bridge.upstream.pci;
		int i;
		if (o->attr->bridge.upstream_type != HWLOC_OBJ_BRIDGE_PCI)
			continue;
		busid_of(o, id, sizeof(id));
		i = np_topo_pci_find(t, id);
		if (i >= 0 && t->pci[i].kind == NP_PCI_BRIDGE && t->pci[i].ids_known == NP_IDS_NONE)
			np_topo_pci_set_ids(t, i, u->vendor_id, u->device_id, u->subvendor_id,
					    u->subdevice_id, true);
	}
}

static bool is_nvidia_gpu(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_PCI_DEVICE && o->attr->pcidev.vendor_id == PCI_VENDOR_NVIDIA &&
	       (o->attr->pcidev.class_id >> 8) == 0x03;
}

/* A compute GPU of another maker, which NCCL does not drive: an AMD,
 * Hygon or Intel 3D, display or accelerator controller. VGA controllers
 * are left out: servers' on-board graphics (ATI ES1000, ASPEED, Matrox)
 * and CPUs' integrated graphics are VGA. */
static bool is_other_gpu(hwloc_obj_t o)
{
	unsigned cls = o->attr->pcidev.class_id, v = o->attr->pcidev.vendor_id;

	if (v != PCI_VENDOR_AMD && v != PCI_VENDOR_HYGON && v != PCI_VENDOR_INTEL)
		return false;
	if (cls == 0x0302 || cls == 0x0380 || cls == 0x1200)
		return true;
	if (cls != 0x0300)
		return false;
	/* a VGA controller that computes (AMD's Vega 20 cards are VGA): a
	 * compute OS device below it (OpenCL, RSMI, Level Zero), the GPU's
	 * own PCIe switch above it (AMD's discrete GPUs since Vega have one,
	 * 1002:14a1), or a link no on-board graphics has (above PCIe Gen3
	 * x4, 3.9 GB/s) */
	if (o->parent && o->parent->type == HWLOC_OBJ_BRIDGE &&
	    o->parent->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI &&
	    o->parent->attr->bridge.upstream.pci.vendor_id == v)
		return true;
	for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
		if (c->type == HWLOC_OBJ_OS_DEVICE &&
		    (c->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC ||
		     c->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU) &&
		    c->name &&
		    (!strncmp(c->name, "opencl", 6) || !strncmp(c->name, "rsmi", 4) ||
		     !strncmp(c->name, "ze", 2)))
			return true;
	return o->attr->pcidev.linkspeed > 4.0f;
}

/* What tells an other maker's GPU: its name in the file, else its ids. */
static void other_gpu_what(hwloc_obj_t o, char *buf, size_t len)
{
	const char *name = hwloc_obj_get_info_by_name(o, "PCIDevice");

	if (name && name[0])
		snprintf(buf, len, "%s (%04x:%04x, class 0x%04x)", name, o->attr->pcidev.vendor_id,
			 o->attr->pcidev.device_id, o->attr->pcidev.class_id);
	else
		snprintf(buf, len, "%04x:%04x, class 0x%04x", o->attr->pcidev.vendor_id,
			 o->attr->pcidev.device_id, o->attr->pcidev.class_id);
}

static const char *gpu_model_of(hwloc_obj_t pci)
{
	hwloc_obj_t c, only = NULL;
	int gpus = 0;

	for (c = pci->io_first_child; c; c = c->next_sibling) {
		const char *m = c->type == HWLOC_OBJ_OS_DEVICE
					? hwloc_obj_get_info_by_name(c, "GPUModel")
					: NULL;
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

/* "NVIDIA GA100 [A100 SXM4 40GB]": the names the file's own PCI database
 * gave, shortened as lspci does; else this machine's pci.ids. */
static void pci_name(hwloc_obj_t o, char *buf, size_t len)
{
	const char *v = hwloc_obj_get_info_by_name(o, "PCIVendor");
	const char *d = hwloc_obj_get_info_by_name(o, "PCIDevice");

	buf[0] = '\0';
	if (v && d && *v && *d)
		snprintf(buf, len, "%.*s %s", (int)strcspn(v, " ,"), v, d);
	else
		np_pci_ids_name(o->attr->pcidev.vendor_id, o->attr->pcidev.device_id, buf, len);
}

static enum np_status add_gpu(struct np_topo *t, hwloc_topology_t topo, hwloc_obj_t o,
			      struct np_err *err)
{
	char busid[NP_BUSID_LEN];
	struct np_gpu *g;
	const char *model = gpu_model_of(o);

	busid_of(o, busid, sizeof(busid));
	if (np_topo_gpu_find(t, busid))
		return np_fail(err, NP_EUSAGE,
			       "--input '%s' has two GPUs with bus id %s; the hwloc XML is damaged, export it again (lstopo --of xml)",
			       t->source, busid);
	g = np_topo_gpu_add(t, busid);
	if (!g) {
		np_topo_note(t, "more than %d GPUs; the rest are left out", NP_MAX_GPUS);
		return NP_OK;
	}
	g->vendor_id = o->attr->pcidev.vendor_id;
	g->device_id = o->attr->pcidev.device_id;
	if (model)
		snprintf(g->name, sizeof(g->name), "%s", model);
	else
		pci_name(o, g->name, sizeof(g->name));
	g->pci = np_hwloc_chain(t, topo, o);
	g->numa = np_hwloc_numa_of(topo, o);
	g->pcie.gbps = o->attr->pcidev.linkspeed;
	return NP_OK;
}

static enum np_status add_nic(struct np_topo *t, hwloc_topology_t topo, hwloc_obj_t pci,
			      hwloc_obj_t ofed, struct np_err *err)
{
	char busid[NP_BUSID_LEN], key[32];
	const char *netdev = NULL;
	int ports = 0;

	busid_of(pci, busid, sizeof(busid));
	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
		if (c->type == HWLOC_OBJ_OS_DEVICE &&
		    c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK &&
		    (!netdev || !strncmp(c->name, "ib", 2)))
			netdev = c->name;
	for (int p = 1; p <= 16; p++) {
		snprintf(key, sizeof(key), "Port%dState", p);
		if (hwloc_obj_get_info_by_name(ofed, key))
			ports = p;
	}
	for (int p = 1; p <= (ports ? ports : 1); p++) {
		struct np_nic *n;
		const char *st;
		unsigned cls = pci->attr->pcidev.class_id;
		if (np_topo_nic_find(t, ofed->name, p))
			return np_fail(err, NP_EUSAGE,
				       "--input '%s' has two RDMA devices named '%.64s'; the hwloc XML is damaged, export it again (lstopo --of xml)",
				       t->source, ofed->name);
		n = np_topo_nic_add(t, ofed->name, p);
		if (!n) {
			np_topo_note(t, "more than %d NIC ports; the rest are left out",
				     NP_MAX_NICS);
			return NP_OK;
		}
		snprintf(n->busid, sizeof(n->busid), "%s", busid);
		n->pci = np_hwloc_chain(t, topo, pci);
		n->numa = np_hwloc_numa_of(topo, pci);
		n->pcie.gbps = pci->attr->pcidev.linkspeed;
		snprintf(key, sizeof(key), "Port%dState", p);
		st = hwloc_obj_get_info_by_name(ofed, key);
		if (st) { /* hwloc records the numeric ibv_port_state; else unknown */
			int32_t v = -1;
			np_parse_i32(st, 10, 0, INT32_MAX, &v);
			n->state = v == 4   ? NP_PORT_ACTIVE
				   : v == 1 ? NP_PORT_DOWN
				   : v == 2 ? NP_PORT_INIT
				   : v == 3 ? NP_PORT_ARMED
					    : NP_PORT_UNKNOWN;
		}
		if (pci->attr->pcidev.vendor_id == PCI_VENDOR_AMAZON ||
		    !strncmp(ofed->name, "rdmap", 5) || !strncmp(ofed->name, "efa", 3))
			n->ll = NP_LL_EFA;
		else if (cls == 0x0207 || cls == 0x0c06)
			n->ll = NP_LL_IB;
		else if (cls == 0x0200)
			n->ll = NP_LL_ROCE;
		if (netdev)
			snprintf(n->netdev, sizeof(n->netdev), "%s", netdev);
	}
	return NP_OK;
}

/* hwloc's NVML backend adds 20000 MB/s to NVLinkBandwidth for each
 * NVLink 1 link and 25000 for each NVLink 2 to 4 link: a row whose values
 * are multiples of only one of them tells the version, and so the count
 * and the per-link rate. 0 when the values do not tell. */
static double row_unit(const struct hwloc_distances_s *d, unsigned i)
{
	bool by20 = true, by25 = true, any = false;

	for (unsigned j = 0; j < d->nbobjs; j++) {
		hwloc_uint64_t v = d->values[i * d->nbobjs + j];
		if (i == j || v == 0)
			continue;
		any = true;
		by20 &= v % 20000 == 0;
		by25 &= v % 25000 == 0;
	}
	if (!any || by20 == by25)
		return 0;
	return by20 ? 20000 : 25000;
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
	double machine = 0;

	if (hwloc_distances_get_by_name(topo, "NVLinkBandwidth", &nr, d, 0) != 0 || nr == 0)
		return;
	/* one NVLink version per machine: a row that cannot tell takes the
	 * unit another row tells */
	for (unsigned i = 0; i < d[0]->nbobjs && !machine; i++)
		if (gpu_of_obj(t, d[0]->objs[i]) >= 0)
			machine = row_unit(d[0], i);
	for (unsigned i = 0; i < d[0]->nbobjs; i++) {
		int gi = gpu_of_obj(t, d[0]->objs[i]);
		double unit = row_unit(d[0], i);
		struct np_gpu *g;
		if (gi < 0)
			continue;
		g = &t->gpus[gi];
		if (!unit)
			unit = machine;
		g->nvlinks = g->nvswitch_links = g->nvcpu_links = 0;
		for (unsigned j = 0; j < d[0]->nbobjs; j++) {
			hwloc_uint64_t v = d[0]->values[i * d[0]->nbobjs + j];
			hwloc_obj_t peer = d[0]->objs[j];
			int links, gj;
			if (i == j || v == 0)
				continue;
			if (!unit) { /* bandwidth without a count */
				g->nvlinks = g->nvswitch_links = g->nvcpu_links = NP_COUNT_UNKNOWN;
				break;
			}
			links = (int)((double)v / unit + 0.5);
			g->nvlinks += links;
			gj = gpu_of_obj(t, peer);
			if (gj >= 0)
				g->nvpeer[gj] += links;
			else if (peer->type == HWLOC_OBJ_PCI_DEVICE)
				g->nvswitch_links +=
					links; /* an NVSwitch (or a switch hwloc could not name) */
			else if (peer->cpuset)
				g->nvcpu_links +=
					links; /* a CPU (POWER): hwloc gives its package */
		}
		g->nvlink_gbps = unit / 1000.0;
	}
	for (unsigned k = 0; k < nr; k++)
		hwloc_distances_release(topo, d[k]);
}

/* Network devices without an OpenFabrics device that NCCL reaches through
 * a network plugin: HPE Slingshot (Cassini, hwloc's "Slingshot" subtype
 * on hsn* interfaces) and AWS EFA without its verbs device. */
static void plugin_nics(struct np_topo *t, hwloc_topology_t topo)
{
	hwloc_obj_t o = NULL;

	while ((o = hwloc_get_next_pcidev(topo, o))) {
		bool ofed = false, cxi = o->attr->pcidev.vendor_id == PCI_VENDOR_HPE_CRAY;
		bool efa = o->attr->pcidev.vendor_id == PCI_VENDOR_AMAZON &&
			   (o->attr->pcidev.device_id & 0xfff0) == 0xefa0;
		if ((o->attr->pcidev.class_id >> 8) != 0x02)
			continue;
		for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) {
			if (c->type != HWLOC_OBJ_OS_DEVICE)
				continue;
			ofed |= c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS;
			cxi |= c->subtype && !strcmp(c->subtype, "Slingshot");
		}
		if (ofed || (!cxi && !efa))
			continue;
		if (!t->plugin_nics++) {
			snprintf(t->plugin_kind, sizeof(t->plugin_kind), "%s",
				 cxi ? "HPE Slingshot (cxi)" : "AWS EFA");
			snprintf(t->plugin_name, sizeof(t->plugin_name),
				 "the aws-ofi-nccl plugin with libfabric's %s provider",
				 cxi ? "cxi" : "efa");
		}
	}
}

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(((const struct np_gpu *)a)->busid, ((const struct np_gpu *)b)->busid);
}

/* What an hwloc file does not say: port rates and PCIe generations never
 * (hwloc records neither), port states only where its OpenFabrics
 * devices carry no Port<N>State infos. */
static void hwloc_lacks(struct np_topo *t)
{
	bool states = true;

	for (int k = 0; k < t->nnics; k++)
		states &= t->nics[k].state != NP_PORT_UNKNOWN;
	np_topo_note(t,
		     "%sPCIe generations and GDR facts are not in an hwloc file; 'nccl-probe topo --export' keeps them",
		     !t->nnics ? ""
		     : states  ? "NIC port rates, "
			       : "NIC port states and rates, ");
}

/* An hwloc 1.x file without NUMANode objects: hwloc 1.x writes none for a
 * machine whose kernel reports one NUMA node (or none), and hwloc 2.x adds
 * that one node on import, with the I/O outside it. Every device is on it:
 * their NUMA node is known, not a hypervisor's hidden one. */
static void one_numa(struct np_topo *t)
{
	int n = 0;

	if (!t->v1_no_numa || t->nnuma != 1)
		return;
	for (int i = 0; i < t->ngpus; i++)
		if (t->gpus[i].numa < 0 && ++n)
			t->gpus[i].numa = t->numa[0].os_index;
	for (int k = 0; k < t->nnics; k++)
		if (t->nics[k].numa < 0 && ++n)
			t->nics[k].numa = t->numa[0].os_index;
	for (int i = 0; i < t->npci; i++)
		if (t->pci[i].kind == NP_PCI_HOSTBRIDGE && t->pci[i].numa < 0)
			t->pci[i].numa = t->numa[0].os_index;
	if (n)
		np_topo_note(t,
			     "the file is an hwloc 1.x export without NUMANode objects, as hwloc 1.x writes a machine of one NUMA node: its %d GPU(s) and NIC port(s) are on that node",
			     n);
}

enum np_status np_topo_from_hwloc(struct np_topo *t, void *hwloc_topology, struct np_err *err)
{
	hwloc_topology_t topo = (hwloc_topology_t)hwloc_topology;
	hwloc_obj_t o = NULL;
	enum np_status st;

	np_hwloc_numa(t, topo);
	if (np_snapshot_present(topo)) {
		t->kind = NP_SRC_SNAPSHOT;
		return np_snapshot_read(t, topo, err);
	}
	t->kind = t->origin = NP_SRC_HWLOC;
	while ((o = hwloc_get_next_pcidev(topo, o))) {
		if (is_nvidia_gpu(o) && (st = add_gpu(t, topo, o, err)))
			return st;
		if (is_other_gpu(o) && !t->other_gpus++) {
			t->other_gpu_vendor = o->attr->pcidev.vendor_id;
			other_gpu_what(o, t->other_gpu_what, sizeof(t->other_gpu_what));
		}
	}
	qsort(t->gpus, (size_t)t->ngpus, sizeof(t->gpus[0]), cmp_gpu); /* nvidia-smi order */
	for (int i = 0; i < t->ngpus; i++)
		t->gpus[i].index = i;
	o = NULL;
	while ((o = hwloc_get_next_osdev(topo, o))) {
		if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS)
			continue;
		if (!o->parent || o->parent->type != HWLOC_OBJ_PCI_DEVICE) {
			np_topo_note(t, "RDMA device '%s' has no PCI device in the file; left out",
				     o->name);
			continue;
		}
		if ((st = add_nic(t, topo, o->parent, o, err)))
			return st;
	}
	np_topo_sort_nics(t);
	plugin_nics(t, topo);
	nvlink_distances(t, topo);
	for (int i = 0; i < t->ngpus; i++)
		if (t->gpus[i].nvlinks < 0) {
			np_topo_note(t,
				     "NVLinks unknown for some GPUs: the file has no NVLinkBandwidth distances that tell them");
			break;
		}
	hwloc_lacks(t);
	one_numa(t);
	return NP_OK;
}
