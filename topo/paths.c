/* SPDX-License-Identifier: MIT */
/* Path classes between GPUs and NICs, as nvidia-smi topo -m names them:
 * NVLinks first, else the PCI tree (PIX, PXB, PHB) and the NUMA nodes of
 * the two ends (NODE, SYS); beside them the class NCCL gives the same
 * GPU-NIC path, which GDR decisions follow (NCCL 2.28's graph/paths.cc on
 * its tree of graph/topo.cc, Broadcom switches flattened). Also which NICs carry no job
 * traffic, whether the tree is a hypervisor's flattened one, and each
 * GPU's nearest data NIC(s). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/number.h"
#include "topo.h"

/* Edges from node a up to its ancestor anc, -1 when anc is not above a. */
static int hops(const struct np_topo *t, int a, int anc)
{
	int h = 0;

	for (int i = a; i >= 0; i = t->pci[i].parent, h++)
		if (i == anc)
			return h;
	return -1;
}

static int common_ancestor(const struct np_topo *t, int a, int b)
{
	for (int i = a; i >= 0; i = t->pci[i].parent)
		if (hops(t, b, i) >= 0)
			return i;
	return -1;
}

static enum np_path numa_path(const struct np_topo *t, int na, int nb)
{
	if (na >= 0 && nb >= 0)
		return na == nb ? NP_PATH_NODE : NP_PATH_SYS;
	/* a locality nobody could tell: one NUMA node leaves no doubt, more
	 * must be assumed the worst, as NCCL does */
	return t->nnuma <= 1 ? NP_PATH_NODE : NP_PATH_SYS;
}

/* The host bridge above node i. */
static int root_of(const struct np_topo *t, int i)
{
	while (t->pci[i].parent >= 0)
		i = t->pci[i].parent;
	return i;
}

/* Bridges the source left out hide where two devices meet: only NUMA
 * nodes that differ still tell (SYS). Below one host bridge whose
 * bridges are missing, only how two devices meet is hidden: two host
 * bridges still meet at the CPU. */
static bool hidden(const struct np_topo *t, int a, int b)
{
	int ra = root_of(t, a), rb = root_of(t, b);

	return t->pci[ra].named || t->pci[rb].named || (ra == rb && t->pci[ra].gaps);
}

/* A device straight under a host bridge of bus B that sits on another bus
 * has bridges between them that the source left out (an export with its
 * bridges filtered, as hwloc 1.x exports of bare-metal POWER nodes are):
 * a hypervisor's flat tree puts its devices on the host bridge's own bus.
 * Marks those host bridges (np_pci.gaps) and says what told it. */
static void mark_gaps(struct np_topo *t)
{
	int n = 0;
	char first[NP_MSG_LEN / 2] = "";

	if (t->origin == NP_SRC_NCCL)
		return;
	for (int i = 0; i < t->npci; i++) {
		const struct np_pci *d = &t->pci[i];
		struct np_pci *hb;
		unsigned dom, bus, dev, fn;
		uint64_t hdom, hbus;
		const char *h;
		if (d->kind != NP_PCI_DEVICE || d->parent < 0)
			continue;
		hb = &t->pci[d->parent];
		h = hb->id + 3; /* "pciDDDD:BB" */
		if (hb->kind != NP_PCI_HOSTBRIDGE || hb->named ||
		    !np_busid_parse(d->id, &dom, &bus, &dev, &fn) || strncmp(hb->id, "pci", 3) ||
		    !np_scan_u64(&h, 16, 0, 0xffffffff, &hdom) || *h++ != ':' ||
		    !np_scan_u64(&h, 16, 0, 0xff, &hbus) || (dom == hdom && bus == hbus))
			continue;
		hb->gaps = true;
		if (!n++)
			snprintf(first, sizeof(first),
				 "%s on bus %02x under host bridge %s, whose bus is %02x", d->id,
				 bus, hb->id + 3, (unsigned)hbus);
	}
	if (n)
		np_topo_note(t,
			     "the file leaves out PCI bridges: %d device(s) sit straight under a host bridge on a bus "
			     "other than its own (%s%s), so bridges join them there; a bare-metal export without "
			     "bridge objects, not a hypervisor's flattened tree; paths below one such host bridge are unknown",
			     n, first, n > 1 ? ", ..." : "");
}

static enum np_path pci_path(const struct np_topo *t, int a, int b, int na, int nb)
{
	int c, da, db;

	if (a < 0 || b < 0)
		return na >= 0 && nb >= 0 && na != nb ? NP_PATH_SYS : NP_PATH_UNKNOWN;
	if (a == b)
		return NP_PATH_X;
	if (hidden(t, a, b))
		return na >= 0 && nb >= 0 && na != nb ? NP_PATH_SYS : NP_PATH_UNKNOWN;
	c = common_ancestor(t, a, b);
	if (c < 0)
		return numa_path(t, na, nb);
	if (t->pci[c].kind == NP_PCI_HOSTBRIDGE)
		return NP_PATH_PHB;
	da = hops(t, a, c);
	db = hops(t, b, c);
	/* a switch is its upstream port and the downstream ports right below
	 * it: two devices within one switch cross at most one bridge; an NCCL
	 * file's <pci> switch is the whole switch */
	if (t->origin == NP_SRC_NCCL)
		return da <= 1 && db <= 1 ? NP_PATH_PIX : NP_PATH_PXB;
	return da <= 2 && db <= 2 ? NP_PATH_PIX : NP_PATH_PXB;
}

static int nvlinks_between(const struct np_topo *t, int i, int j)
{
	const struct np_gpu *a = &t->gpus[i], *b = &t->gpus[j];
	int direct = a->nvpeer[j] > b->nvpeer[i] ? a->nvpeer[j] : b->nvpeer[i];

	if (direct)
		return direct;
	if (a->nvswitch_links > 0 && b->nvswitch_links > 0)
		return a->nvswitch_links < b->nvswitch_links ? a->nvswitch_links
							     : b->nvswitch_links;
	return 0;
}

/* NCCL's tree (xml.cc) climbs sysfs two levels at a time: a switch, its
 * upstream and downstream ports, is one element, and a CPU root port is
 * part of the CPU. An NCCL topology file is already that tree. Returns the
 * element node i hangs from: a bridge, or the host bridge for the CPU. */
static int nccl_up(const struct np_topo *t, int i)
{
	int p = t->pci[i].parent, gp;

	if (t->origin == NP_SRC_NCCL || p < 0 || t->pci[p].kind == NP_PCI_HOSTBRIDGE)
		return p;
	gp = t->pci[p].parent;
	if (gp < 0 || t->pci[gp].kind == NP_PCI_HOSTBRIDGE)
		return gp >= 0 ? gp : p;
	return gp;
}

/* NCCL's getBcmGen (graph/topo.cc, 2.28): the generation of a Broadcom PEX
 * switch, by its vendor, device and subsystem ids, as a level-0 switch or
 * a level-1 sub-switch of one (Gen4 parts look the same at both levels);
 * 0 when it is not one, -1 when the ids the source gave cannot tell. A
 * host bridge is NCCL's CPU; a switch an NCCL file invents (ffff:) has no
 * ids anywhere. */
static int bcm_gen(const struct np_pci *p, int level)
{
	uint64_t id = p->ids & ~(uint64_t)0xfff;
	unsigned vd = (unsigned)(p->ids >> 32);

	if (p->kind != NP_PCI_BRIDGE || p->virtual_sw)
		return 0;
	switch (p->ids_known) {
	case NP_IDS_ALL:
		if (id == 0x1000c0101000a000ULL)
			return 4;
		if (id == (0x1000c03010000000ULL | (uint64_t)level * 0x1000))
			return 5;
		return 0;
	case NP_IDS_DEVICE: return vd == 0x1000c010 || vd == 0x1000c030 ? -1 : 0;
	default: return -1;
	}
}

/* Whether NCCL folds switch e into the switch above it
 * (ncclTopoFlattenBcmSwitches): a Broadcom level-1 sub-switch right below
 * a level-0 switch of the same generation, which was not folded itself
 * (a switch takes its sub-switches once). Broadcom's sub-switches are one
 * crossbar, so NCCL sees one switch: devices under two of its
 * sub-switches are PIX to NCCL, PXB in the raw tree. */
static enum np_tri folded(const struct np_topo *t, int e)
{
	int p = nccl_up(t, e), gp, ge;
	enum np_tri pf;

	if (p < 0 || t->pci[e].kind != NP_PCI_BRIDGE || t->pci[p].kind != NP_PCI_BRIDGE)
		return NP_NO;
	gp = bcm_gen(&t->pci[p], 0);
	ge = bcm_gen(&t->pci[e], 1);
	if (gp == 0 || ge == 0 || (gp > 0 && ge > 0 && gp != ge))
		return NP_NO;
	pf = folded(t, p);
	if (pf == NP_YES)
		return NP_NO;
	return gp > 0 && ge > 0 && pf == NP_NO ? NP_YES : NP_UNKNOWN;
}

/* The element above element (or device) i once NCCL has folded Broadcom
 * sub-switches; a fold the ids cannot tell is taken as fold_unknown says. */
static int nccl_up_flat(const struct np_topo *t, int i, bool fold_unknown)
{
	int p = nccl_up(t, i);

	while (p >= 0 && t->pci[p].kind != NP_PCI_HOSTBRIDGE) {
		enum np_tri f = folded(t, p);
		if (f == NP_NO || (f == NP_UNKNOWN && !fold_unknown))
			break;
		p = nccl_up(t, p);
	}
	return p;
}

static enum np_path nccl_path_as(const struct np_topo *t, int a, int b, int na, int nb,
				 bool fold_unknown)
{
	int ea, eb, first_a, first_b;

	if (a < 0 || b < 0 || hidden(t, a, b))
		return na >= 0 && nb >= 0 && na != nb ? NP_PATH_SYS : NP_PATH_UNKNOWN;
	first_a = nccl_up_flat(t, a, fold_unknown);
	first_b = nccl_up_flat(t, b, fold_unknown);
	for (ea = first_a; ea >= 0 && t->pci[ea].kind != NP_PCI_HOSTBRIDGE;
	     ea = nccl_up_flat(t, ea, fold_unknown))
		for (eb = first_b; eb >= 0 && t->pci[eb].kind != NP_PCI_HOSTBRIDGE;
		     eb = nccl_up_flat(t, eb, fold_unknown))
			if (ea == eb)
				return ea == first_a && eb == first_b ? NP_PATH_PIX : NP_PATH_PXB;
	/* through the CPU: NCCL puts every host bridge of a NUMA node under
	 * one CPU */
	if (na >= 0 && nb >= 0)
		return na == nb ? NP_PATH_PHB : NP_PATH_SYS;
	if (common_ancestor(t, a, b) >= 0 || t->nnuma <= 1)
		return NP_PATH_PHB;
	return NP_PATH_UNKNOWN;
}

/* NCCL's class of a GPU-NIC path. Where the source lacks the ids of a
 * switch that may be a Broadcom sub-switch, and folding it would change
 * the class, the class is the raw tree's and a note says so. */
static enum np_path nccl_path(struct np_topo *t, int gi, int k)
{
	const struct np_gpu *g = &t->gpus[gi];
	const struct np_nic *n = &t->nics[k];
	enum np_path raw = nccl_path_as(t, g->pci, n->pci, g->numa, n->numa, false);
	enum np_path fold = nccl_path_as(t, g->pci, n->pci, g->numa, n->numa, true);

	if (raw != fold)
		np_topo_note(t,
			     "NCCL's path from a GPU to a NIC is taken as %s, as the PCIe tree stands; it is %s if a switch "
			     "between them is a Broadcom PEX switch, which NCCL flattens, and the source lacks the "
			     "switches' PCI ids (vendor, device, subsystem) that tell",
			     np_path_str(raw), np_path_str(fold));
	/* ncclTopoComputePaths (2.28): a GPU whose path to its CPU is C2C and
	 * a NIC whose path to that CPU is PHB (its PCIe hangs from it) are
	 * P2C to each other, where the PCIe tree gives no nearer class. The
	 * C2C link is the GPU's way to its CPU: its bandwidth is far above
	 * the GPU's PCIe link's on every Grace part. */
	if (g->c2c_links > 0 && raw == NP_PATH_PHB && g->numa >= 0 && g->numa == n->numa)
		raw = NP_PATH_P2C;
	return raw;
}

static bool usable(const struct np_nic *n)
{
	return n->state == NP_PORT_ACTIVE || n->state == NP_PORT_UNKNOWN;
}

/* The most a NIC's PCIe link carries: its maximum where known. */
static double pcie_cap(const struct np_pcie *l)
{
	int gen = l->gen_max ? l->gen_max : l->gen_cur,
	    width = l->width_max ? l->width_max : l->width_cur;
	double g = np_pcie_gbps(gen, width);

	return g > 0 ? g : l->gbps;
}

/* A NIC on a PCIe link a quarter or less of the widest NIC's is a
 * management or service port: it carries no job traffic. */
static void mark_mgmt(struct np_topo *t)
{
	double top = 0;

	for (int k = 0; k < t->nnics; k++) {
		t->nics[k].mgmt = false;
		if (t->nics[k].rdma != NP_NO && pcie_cap(&t->nics[k].pcie) > top)
			top = pcie_cap(&t->nics[k].pcie);
	}
	for (int k = 0; k < t->nnics; k++) {
		double c = pcie_cap(&t->nics[k].pcie);
		if (t->nics[k].rdma != NP_NO && c > 0 && c * 4 <= top)
			t->nics[k].mgmt = true;
	}
}

/* Every GPU and NIC straight under a host bridge, with no PCIe switch or
 * root port anywhere: what hypervisors show, not what the board has. A
 * host bridge the file lacks (an export with bridges filtered out, as
 * bare-metal exports often are) tells nothing of the sort. */
static bool flattened(const struct np_topo *t)
{
	int devices = 0, flat = 0;

	if (t->origin == NP_SRC_NCCL || t->host.virtualized == NP_NO)
		return false;
	for (int i = 0; i < t->npci; i++)
		if (t->pci[i].gaps)
			return false;
	for (int i = 0; i < t->ngpus + t->nnics; i++) {
		int p = i < t->ngpus ? t->gpus[i].pci : t->nics[i - t->ngpus].pci;
		if (p < 0)
			continue;
		devices++;
		if (t->pci[p].parent >= 0 && t->pci[t->pci[p].parent].named)
			return false;
		if (t->pci[p].parent >= 0 && t->pci[t->pci[p].parent].kind == NP_PCI_HOSTBRIDGE)
			flat++;
	}
	return devices >= 2 && flat == devices && t->ngpus > 0;
}

bool np_path_gdr_level(enum np_path p) { return p <= NP_PATH_PXB || p == NP_PATH_P2C; }

bool np_topo_nic_data(const struct np_topo *t, int k)
{
	bool rdma_any = false;

	if (t->nics[k].mgmt)
		return false;
	if (t->nics[k].rdma != NP_NO)
		return true;
	for (int l = 0; l < t->nnics; l++)
		rdma_any |= t->nics[l].rdma != NP_NO && !t->nics[l].mgmt;
	return !rdma_any; /* socket interfaces carry the traffic when nothing else can */
}

/* NCCL 2.28's PXN (ncclTopoComputePaths, paths.cc): a GPU sends to a NIC
 * through the NIC's local GPU (ncclTopoGetLocalGpu: the GPU nearest to
 * it) when that GPU is PXB or P2C (NCCL_PXN_C2C=1) from the NIC, joined
 * to the sender by NVLink (directly or through NVSwitches: NCCL's NVL),
 * and the sender's own path to the NIC goes through the CPU; GDR is then
 * judged on the local GPU's path (ncclTopoCheckGdr). Only GPUs whose own
 * nearest NIC is beyond the GDR level are looked at: for the others
 * NCCL's choice does not change the GDR answer. */
static void pxn_paths(struct np_topo *t)
{
	for (int i = 0; i < t->ngpus; i++) {
		struct np_near *nr = &t->near[i];
		enum np_path best = NP_PATH_UNKNOWN;
		nr->pxn = nr->pxn_nic = -1;
		nr->pxn_unknown = false;
		if (t->flat || nr->n == 0 || nr->nccl == NP_PATH_UNKNOWN ||
		    np_path_gdr_level(nr->nccl))
			continue;
		for (int k = 0; k < t->nnics; k++) {
			enum np_path local = NP_PATH_UNKNOWN;
			if (!np_topo_nic_data(t, k) || !usable(&t->nics[k]))
				continue;
			for (int q = 0; q < t->ngpus; q++)
				if (t->gn_nccl[q][k] < local)
					local = t->gn_nccl[q][k];
			if (local == NP_PATH_UNKNOWN || !np_path_gdr_level(local) ||
			    t->gn_nccl[i][k] <= NP_PATH_P2C)
				continue;
			for (int p = 0; p < t->ngpus; p++) {
				if (p == i || t->gn_nccl[p][k] != local)
					continue;
				if (t->gg[i][p] == NP_PATH_NV) {
					/* of equal classes, a NIC on the sender's NUMA node
					 * (NCCL's choice among them is its search's) */
					bool home = t->nics[k].numa >= 0 &&
						    t->nics[k].numa == t->gpus[i].numa;
					if (nr->pxn < 0 || local < best ||
					    (local == best && home &&
					     t->nics[nr->pxn_nic].numa != t->gpus[i].numa)) {
						nr->pxn = p;
						nr->pxn_nic = k;
						best = local;
					}
				} else if ((t->gpus[i].nvlinks < 0 || t->gpus[p].nvlinks < 0) &&
					   t->gpus[i].nvlinks != 0 &&
					   t->gpus[p].nvlinks !=
						   0) { /* a GPU of no NVLink joins none */
					nr->pxn_unknown = true;
				}
			}
		}
		if (nr->pxn >= 0)
			nr->pxn_unknown = false;
	}
}

/* Whether a GPU whose source does not say may have NVLink-C2C to its CPU:
 * only Grace (aarch64) has it. */
static bool c2c_possible(const struct np_topo *t, const struct np_gpu *g)
{
	const char *a = t->host.arch;

	if (g->c2c_links >= 0)
		return g->c2c_links > 0;
	return !a[0] || !strcmp(a, "aarch64") || !strcmp(a, "arm64");
}

void np_topo_paths(struct np_topo *t)
{
	mark_mgmt(t);
	mark_gaps(t);
	t->flat = flattened(t);
	for (int i = 0; i < t->ngpus; i++)
		for (int j = 0; j < t->ngpus; j++) {
			int nv = i == j ? 0 : nvlinks_between(t, i, j);
			t->gg_nv[i][j] = nv;
			t->gg[i][j] = i == j ? NP_PATH_X
				      : nv   ? NP_PATH_NV
					     : pci_path(t, t->gpus[i].pci, t->gpus[j].pci,
							t->gpus[i].numa, t->gpus[j].numa);
		}
	for (int i = 0; i < t->ngpus; i++)
		for (int k = 0; k < t->nnics; k++) {
			t->gn[i][k] = pci_path(t, t->gpus[i].pci, t->nics[k].pci, t->gpus[i].numa,
					       t->nics[k].numa);
			t->gn_nccl[i][k] = nccl_path(t, i, k);
		}
	for (int k = 0; k < t->nnics; k++)
		for (int l = 0; l < t->nnics; l++)
			t->nn[k][l] = k == l ? NP_PATH_X
					     : pci_path(t, t->nics[k].pci, t->nics[l].pci,
							t->nics[k].numa, t->nics[l].numa);
	for (int i = 0; i < t->ngpus; i++) {
		struct np_near *nr = &t->near[i];
		bool any_usable = false;
		nr->path = nr->nccl = NP_PATH_UNKNOWN;
		nr->n = 0;
		for (int k = 0; k < t->nnics; k++)
			any_usable |= np_topo_nic_data(t, k) && usable(&t->nics[k]);
		for (int k = 0; k < t->nnics; k++) {
			enum np_path p = t->gn[i][k];
			if (!np_topo_nic_data(t, k) || (any_usable && !usable(&t->nics[k])))
				continue;
			if (p < nr->path || nr->n == 0) {
				nr->path = p;
				nr->nccl = t->gn_nccl[i][k];
				nr->n = 0;
			}
			if (p == nr->path) {
				nr->nics[nr->n++] = k;
				if (t->gn_nccl[i][k] < nr->nccl)
					nr->nccl = t->gn_nccl[i][k];
			}
		}
	}
	for (int i = 0; i < t->ngpus; i++) {
		struct np_near *nr = &t->near[i];
		nr->c2c_unknown = false;
		for (int k = 0; k < nr->n && !t->flat; k++)
			nr->c2c_unknown |=
				t->gpus[i].c2c_links < 0 && c2c_possible(t, &t->gpus[i]) &&
				t->gn_nccl[i][nr->nics[k]] == NP_PATH_PHB && t->gpus[i].numa >= 0 &&
				t->gpus[i].numa == t->nics[nr->nics[k]].numa;
	}
	pxn_paths(t);
}
