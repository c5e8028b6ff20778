/* SPDX-License-Identifier: MIT */
/* Checks over the model: GPUDirect RDMA (checks_gdr.c), placement (NUMA
 * of GPUs and NICs, ranks' CPU binding), links (ports, rates, PCIe
 * training) and flattened virtual machines. Each finding has an id, a
 * severity, a subject, a message, the evidence and a remedy. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <hwloc.h>

#include "internal.h"
#include "topo.h"

void np_topo_fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, len, f, ap);
	va_end(ap);
}

static double pcie_max(const struct np_pcie *l)
{
	int gen = l->gen_max ? l->gen_max : l->gen_cur,
	    width = l->width_max ? l->width_max : l->width_cur;
	double g = np_pcie_gbps(gen, width);

	return g > 0 ? g : l->gbps;
}

static void gpu_name(int i, char *buf, size_t len) { snprintf(buf, len, "GPU%d", i); }

static void nic_label(const struct np_nic *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%d", n->name, n->port);
}

static void check_placement(struct np_topo *t)
{
	char list[NP_MSG_LEN] = "", ev[NP_MSG_LEN] = "";
	int first_nic_numa = -2, gpu_numa_a = -1, gpu_numa_b = -1, unknown = 0, nolist = 0;
	bool nics_one = true;
	struct np_finding *f;

	for (int i = 0; i < t->ngpus; i++) {
		int numa = t->gpus[i].numa;
		bool has = false;
		if (numa < 0) {
			unknown++;
			continue;
		}
		if (gpu_numa_a < 0)
			gpu_numa_a = numa;
		else if (numa != gpu_numa_a)
			gpu_numa_b = numa;
		for (int k = 0; k < t->nnics; k++)
			has |= np_topo_nic_data(t, k) && t->nics[k].numa == numa;
		has |= t->near[i].pxn >= 0; /* NCCL sends over NVLink to a NIC near another GPU */
		if (!has && t->nnics) {
			nolist++;
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%sGPU%d",
				 list[0] ? "," : "", i);
			snprintf(ev + strlen(ev), sizeof(ev) - strlen(ev), "%sGPU%d NUMA %d",
				 ev[0] ? ", " : "", i, numa);
		}
	}
	if (list[0]) {
		char nics[160] = "";
		for (int k = 0; k < t->nnics && strlen(nics) < sizeof(nics) - 32; k++)
			if (np_topo_nic_data(t, k))
				snprintf(nics + strlen(nics), sizeof(nics) - strlen(nics),
					 "%s%s NUMA %d", nics[0] ? ", " : "", t->nics[k].name,
					 t->nics[k].numa);
		f = np_topo_finding(t, "numa-gpu-no-nic", NP_SEV_WARNING, list);
		SET(f->message,
		    "%s %s no NIC on %s NUMA node; %s network traffic crosses the CPU interconnect",
		    list, nolist > 1 ? "have" : "has", nolist > 1 ? "their" : "its",
		    nolist > 1 ? "their" : "its");
		SET(f->evidence, "%s; %s", ev, nics);
		SET(f->remedy,
		    "place a NIC on each GPU NUMA node, or pin these ranks' jobs to GPUs near a NIC");
	}
	for (int k = 0; k < t->nnics; k++) {
		if (t->nics[k].numa < 0 || !np_topo_nic_data(t, k))
			continue;
		if (first_nic_numa == -2)
			first_nic_numa = t->nics[k].numa;
		else if (t->nics[k].numa != first_nic_numa)
			nics_one = false;
	}
	if (t->nnics && first_nic_numa >= 0 && nics_one && gpu_numa_b >= 0) {
		f = np_topo_finding(t, "numa-nics-one-node", NP_SEV_WARNING, "node");
		SET(f->message,
		    "all NICs are on NUMA node %d while the GPUs span NUMA nodes %d and %d",
		    first_nic_numa, gpu_numa_a, gpu_numa_b);
		SET(f->evidence, "every data NIC port on NUMA %d; GPUs on NUMA %d and %d",
		    first_nic_numa, gpu_numa_a, gpu_numa_b);
		SET(f->remedy, "spread the NICs over the sockets (one per GPU NUMA node at least)");
	}
	if (unknown && t->ngpus) {
		f = np_topo_finding(t, "numa-unknown", NP_SEV_INFO, "node");
		SET(f->message,
		    "the NUMA node of %d GPU(s) is unknown; CPU binding and NUMA placement cannot be checked",
		    unknown);
		SET(f->evidence, "%s",
		    t->kind == NP_SRC_LIVE
			    ? "sysfs numa_node is -1 (virtual machines often hide it)"
		    : t->origin == NP_SRC_LIVE
			    ? "the snapshot records sysfs numa_node -1 (virtual machines often hide it)"
			    : "the file places the GPUs above any NUMA node");
		SET(f->remedy,
		    "on a virtual machine, ask the provider for NUMA-aware placement or use its NCCL topology file");
	}
}

static void check_links(struct np_topo *t)
{
	struct np_finding *f;
	double rmin = 0, rmax = 0;
	char rates[NP_MSG_LEN] = "", s[NP_NAME_LEN];

	for (int k = 0; k < t->nnics; k++) {
		struct np_nic *n = &t->nics[k];
		nic_label(n, s, sizeof(s));
		if (n->phys == NP_PORT_POLLING) {
			f = np_topo_finding(t, "nic-port-polling", NP_SEV_WARNING, s);
			SET(f->message, "%s port %d is polling: the link is trying to come up",
			    n->name, n->port);
			SET(f->evidence, "state %s, physical state Polling",
			    np_port_state_str(n->state));
			SET(f->remedy,
			    "check the cable and the switch port; leave it out of NCCL_IB_HCA until it is up");
		} else if (n->state == NP_PORT_DOWN || n->state == NP_PORT_INIT ||
			   n->state == NP_PORT_ARMED) {
			f = np_topo_finding(t, "nic-port-down", NP_SEV_WARNING, s);
			SET(f->message, "%s port %d is %s", n->name, n->port,
			    np_port_state_str(n->state));
			SET(f->evidence, "port state %s%s", np_port_state_str(n->state),
			    n->state == NP_PORT_INIT ? " (no subnet manager has configured it)"
						     : "");
			SET(f->remedy, "%s",
			    n->state == NP_PORT_INIT
				    ? "start or check the subnet manager (opensm / UFM)"
				    : "check the cable and the switch port, or leave the port out with NCCL_IB_HCA");
		}
		if (n->mgmt) {
			f = np_topo_finding(t, "nic-mgmt", NP_SEV_INFO, s);
			SET(f->message,
			    "%s is taken for a management or service port: it carries no job traffic, is nobody's nearest NIC and is not counted in the node's bandwidth",
			    n->name);
			SET(f->evidence,
			    "its PCIe link carries at most %.1f GB/s, a quarter or less of the node's widest NIC",
			    pcie_max(&n->pcie));
			SET(f->remedy,
			    "nothing to do if it is the management port; otherwise reseat it in a x16 slot");
		}
		if (n->state == NP_PORT_ACTIVE && n->rate_gbit > 0 && n->ll != NP_LL_EFA &&
		    np_topo_nic_data(t, k)) {
			if (!rmin || n->rate_gbit < rmin)
				rmin = n->rate_gbit;
			if (n->rate_gbit > rmax)
				rmax = n->rate_gbit;
			snprintf(rates + strlen(rates), sizeof(rates) - strlen(rates), "%s%s %g",
				 rates[0] ? ", " : "", s, n->rate_gbit);
		}
		if (n->ll == NP_LL_ROCE && n->gid_checked && n->gid_index < 0 &&
		    n->state == NP_PORT_ACTIVE) {
			f = np_topo_finding(t, "roce-no-v2-gid", NP_SEV_WARNING, s);
			SET(f->message,
			    "%s port %d has no RoCE v2 GID with an IPv4 address; NCCL's GID auto-selection cannot work",
			    n->name, n->port);
			SET(f->evidence,
			    "no 'RoCE v2' entry with an ::ffff:a.b.c.d GID in its GID table");
			if (n->gid_index6 >= 0)
				SET(f->remedy,
				    "give %s an IPv4 address, or use its IPv6 RoCE v2 GID %d (NCCL_IB_GID_INDEX with NCCL_IB_ADDR_FAMILY=AF_INET6)",
				    n->netdev[0] ? n->netdev : "its netdev", n->gid_index6);
			else
				SET(f->remedy, "give %s an IPv4 address",
				    n->netdev[0] ? n->netdev : "its netdev");
		}
	}
	if (rmin > 0 && rmax > rmin) {
		f = np_topo_finding(t, "nic-rate-mixed", NP_SEV_WARNING, "node");
		SET(f->message,
		    "active NIC ports run at different rates (%g to %g Gb/s); NCCL's rings go at the slowest",
		    rmin, rmax);
		SET(f->evidence, "Gb/s: %s", rates);
		SET(f->remedy,
		    "fix the slow link (cable, switch port speed) or select the fast ports with NCCL_IB_HCA");
	}
	for (int i = 0; i < t->ngpus + t->nnics; i++) {
		bool gpu = i < t->ngpus;
		const struct np_pcie *l = gpu ? &t->gpus[i].pcie : &t->nics[i - t->ngpus].pcie;
		bool width = l->width_max && l->width_cur && l->width_cur < l->width_max;
		bool gen = l->gen_max && l->gen_cur && l->gen_cur < l->gen_max;
		if (gpu)
			gpu_name(i, s, sizeof(s));
		else
			nic_label(&t->nics[i - t->ngpus], s, sizeof(s));
		if (!width && !gen)
			continue;
		/* idle GPUs lower their PCIe generation to save power: only a
		 * narrower link is sure to be a fault there */
		f = np_topo_finding(t, "pcie-downtrained",
				    gpu && !width ? NP_SEV_INFO : NP_SEV_WARNING, s);
		SET(f->message, "%s's PCIe link runs at Gen%d x%d, below its maximum Gen%d x%d%s",
		    s, l->gen_cur, l->width_cur, l->gen_max, l->width_max,
		    gpu && !width ? " (an idle GPU lowers its generation; check under load)" : "");
		SET(f->evidence, "current Gen%d x%d, max Gen%d x%d (%s)", l->gen_cur, l->width_cur,
		    l->gen_max, l->width_max, gpu ? t->gpus[i].busid : t->nics[i - t->ngpus].busid);
		SET(f->remedy,
		    "reseat the card or check the slot and riser; see 'lspci -vv' LnkSta against LnkCap");
	}
}

/* GPUs of one kind (PCI device, else compute capability) with fewer
 * active NVLinks than the most of them: a GPU without any, beside GPUs
 * with NVLinks, is an error (NCCL builds NVLink rings and NVLS only over
 * GPUs that all have them, so every collective of the node or NVLink
 * domain falls back); fewer than its peers, a warning (a link down). */
static void check_nvlinks(struct np_topo *t)
{
	for (int i = 0; i < t->ngpus; i++) {
		const struct np_gpu *g = &t->gpus[i];
		char s[NP_NAME_LEN], peers[NP_MSG_LEN] = "";
		int most = 0, with = 0, like = 0, switched = 0;
		struct np_finding *f;
		if (g->nvlinks < 0)
			continue;
		for (int k = 0; k < t->ngpus; k++) {
			const struct np_gpu *h = &t->gpus[k];
			bool same = g->device_id && h->device_id
					    ? g->device_id == h->device_id &&
						      g->vendor_id == h->vendor_id
					    : g->sm && g->sm == h->sm;
			if (k == i || !same || h->nvlinks < 0)
				continue;
			like++;
			if (h->nvlinks > most)
				most = h->nvlinks;
		}
		if (most <= g->nvlinks)
			continue;
		for (int k = 0; k < t->ngpus; k++)
			if (k != i && t->gpus[k].nvlinks == most) {
				with++;
				switched += t->gpus[k].nvswitch_links > 0;
				if (strlen(peers) < sizeof(peers) - 16)
					snprintf(peers + strlen(peers),
						 sizeof(peers) - strlen(peers), "%sGPU%d",
						 peers[0] ? ", " : "", k);
			}
		gpu_name(i, s, sizeof(s));
		/* behind an NVSwitch every GPU has the same links by design: one
		 * without is a fault; links straight between GPUs (bridges, a
		 * mesh) may be so by the box's design: a warning */
		f = np_topo_finding(t, g->nvlinks ? "nvlink-fewer" : "nvlink-none",
				    g->nvlinks || !switched ? NP_SEV_WARNING : NP_SEV_ERROR, s);
		if (!g->nvlinks && !switched)
			SET(f->message,
			    "%s has no NVLink while %d of the %d other GPUs like it have %d straight to GPUs: a bridge or link is missing, or the box is built so; NCCL's NVLink rings leave %s out",
			    s, with, like, most, s);
		else if (g->nvlinks)
			SET(f->message,
			    "%s has %d active NVLinks, %d of the %d other GPUs like it have %d: a link is down, and NCCL's NVLink paths through %s carry less",
			    s, g->nvlinks, with, like, most, s);
		else
			SET(f->message,
			    "%s has no NVLink while %d of the %d other GPUs like it have %d: NCCL builds its NVLink rings and NVLS only over GPUs that all have them, so collectives with %s fall back to PCIe or the network",
			    s, with, like, most, s);
		SET(f->evidence, "%s (%s): %d NVLinks%s; %s: %d each", s, g->busid, g->nvlinks,
		    t->origin == NP_SRC_NCCL && !g->nvlinks
			    ? " (no <nvlink> with a count in the file)"
			    : "",
		    peers, most);
		if (switched)
			SET(f->remedy,
			    "nvidia-smi nvlink -s -i %d on the node; reset the GPU, or restart the NVSwitch fabric manager (and on a multi-node NVLink rack its IMEX and NVLink switch tray), else drain the node",
			    g->index);
		else
			SET(f->remedy,
			    "nvidia-smi nvlink -s -i %d on the node; seat the GPU's NVLink bridge or reset the GPU, unless the box is built without it",
			    g->index);
	}
}

static void check_vm(struct np_topo *t)
{
	struct np_finding *f;
	int devices = 0;

	if (!t->flat)
		return;
	for (int i = 0; i < t->ngpus + t->nnics; i++)
		devices += (i < t->ngpus ? t->gpus[i].pci : t->nics[i - t->ngpus].pci) >= 0;
	f = np_topo_finding(t, "vm-flattened", NP_SEV_WARNING, "node");
	SET(f->message,
	    "every GPU and NIC sits straight under a host bridge with no PCIe switch: a hypervisor's flattened tree. "
	    "The PCIe path classes here (PHB, NODE) are not the machine's, so GDR and P2P answers drawn from them are unknown, "
	    "and NCCL sees the same flat tree unless it is given the real one");
	SET(f->evidence,
	    "all %d GPUs and NICs have a host bridge as parent, each on that host bridge's own bus (no bridge left out of the export)%s",
	    devices, t->host.virtualized == NP_YES ? "; a hypervisor is present" : "");
	SET(f->remedy,
	    "give NCCL the provider's topology file for this instance type (NCCL_TOPO_FILE; the provider's NCCL plugin may set it)");
}

static void check_iface(struct np_topo *t)
{
	struct np_finding *f;

	if (!t->host.iface_nccl[0] || !t->host.iface_pci[0] ||
	    !strcmp(t->host.iface_nccl, t->host.iface_pci))
		return;
	if (!strncmp(t->host.iface_nccl, "ib", 2))
		return;
	f = np_topo_finding(t, "net-socket-iface", NP_SEV_WARNING, t->host.iface_nccl);
	SET(f->message,
	    "NCCL's default socket interface would be '%s', which is not backed by a network device",
	    t->host.iface_nccl);
	SET(f->evidence, "'%s' is UP and comes first; '%s' is the first UP interface on a PCI NIC",
	    t->host.iface_nccl, t->host.iface_pci);
	SET(f->remedy, "set NCCL_SOCKET_IFNAME=%s", t->host.iface_pci);
}

void np_topo_check(struct np_topo *t)
{
	np_topo_check_gdr(t);
	check_placement(t);
	check_links(t);
	check_nvlinks(t);
	check_vm(t);
	check_iface(t);
}

void np_topo_check_binding(struct np_topo *t, const struct np_rank_bind *b, int n)
{
	hwloc_bitmap_t rank = hwloc_bitmap_alloc(), node = hwloc_bitmap_alloc();
	char unbound[NP_MSG_LEN] = "";

	if (!rank || !node)
		goto out_free;
	for (int r = 0; r < n; r++) {
		int gi = b[r].gpu, ni;
		char s[NP_NAME_LEN];
		if (gi < 0 || gi >= t->ngpus || t->gpus[gi].numa < 0)
			continue;
		ni = np_topo_numa_index(t, t->gpus[gi].numa);
		if (ni < 0 || hwloc_bitmap_list_sscanf(node, t->numa[ni].cpus) != 0 ||
		    hwloc_bitmap_list_sscanf(rank, b[r].cpus) != 0)
			continue;
		snprintf(s, sizeof(s), "rank %d", b[r].rank);
		if (hwloc_bitmap_isincluded(rank, node))
			continue;
		if (!hwloc_bitmap_intersects(rank, node)) {
			struct np_finding *f =
				np_topo_finding(t, "cpu-binding-cross-numa", NP_SEV_WARNING, s);
			SET(f->message, "rank %d runs on CPUs %s, none on GPU%d's NUMA node %d",
			    b[r].rank, b[r].cpus, gi, t->gpus[gi].numa);
			SET(f->evidence, "sched_getaffinity %s; NUMA %d CPUs %s", b[r].cpus,
			    t->gpus[gi].numa, t->numa[ni].cpus);
			SET(f->remedy,
			    "bind each rank to its GPU's NUMA node (mpirun --map-by ppr:N:numa --bind-to numa, or srun --cpu-bind)");
		} else if (t->nnuma > 1) {
			snprintf(unbound + strlen(unbound), sizeof(unbound) - strlen(unbound),
				 "%s%d", unbound[0] ? "," : "", b[r].rank);
		}
	}
	if (unbound[0]) {
		struct np_finding *f =
			np_topo_finding(t, "cpu-binding-loose", NP_SEV_INFO, "ranks");
		SET(f->message, "ranks %s may run on CPUs outside their GPU's NUMA node", unbound);
		SET(f->evidence, "their sched_getaffinity sets span more than the GPU's NUMA node");
		SET(f->remedy, "bind each rank to its GPU's NUMA node (mpirun --bind-to numa)");
	}
out_free:
	hwloc_bitmap_free(rank);
	hwloc_bitmap_free(node);
}
