/* SPDX-License-Identifier: MIT */
/* NCCL settings that answer findings, each with its reason. Variables that
 * NCCL documents as debugging-only (NCCL_P2P_LEVEL, NCCL_NET_GDR_LEVEL,
 * NCCL_BUFFSIZE, NCCL_IB_QPS_PER_CONNECTION, ...) are only ever proposed
 * as diagnostics to try, never as exports. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "topo.h"

/* A port NCCL_IB_HCA can name: an IB or RoCE device whose name the kernel
 * allows (the value goes into a shell's export line). */
static bool selectable(const struct np_nic *n)
{
	return (n->ll == NP_LL_IB || n->ll == NP_LL_ROCE || n->ll == NP_LL_UNKNOWN) &&
	       n->rdma != NP_NO && np_devname_valid(n->name, NP_IBNAMSIZ);
}

/* NCCL_IB_HCA with '=' (exact names: prefix matching would make mlx5_1
 * select mlx5_10 too) listing the active data ports at the top rate, when
 * some port is down, polling or slower, or a management port would be
 * taken by NCCL too. */
/* The link layer the list keeps when its ports mix InfiniBand and RoCE:
 * the one the GPUs' nearest NICs have; NP_LL_UNKNOWN (keep both) when the
 * GPUs' nearest NICs are of both kinds, as NCCL then uses both. */
static enum np_link_layer hca_kind(const struct np_topo *t, int *ib_gpus, int *roce_gpus)
{
	*ib_gpus = *roce_gpus = 0;
	for (int i = 0; i < t->ngpus; i++) {
		if (t->near[i].n == 0 || t->nics[t->near[i].nics[0]].state != NP_PORT_ACTIVE)
			continue;
		*ib_gpus += t->nics[t->near[i].nics[0]].ll == NP_LL_IB;
		*roce_gpus += t->nics[t->near[i].nics[0]].ll == NP_LL_ROCE;
	}
	if (*ib_gpus && !*roce_gpus)
		return NP_LL_IB;
	if (*roce_gpus && !*ib_gpus)
		return NP_LL_ROCE;
	return NP_LL_UNKNOWN;
}

static void rec_ib_hca(struct np_topo *t)
{
	double top = 0;
	int active = 0, mgmt = 0, ib = 0, roce = 0, ib_gpus = 0, roce_gpus = 0;
	enum np_link_layer keep = NP_LL_UNKNOWN;
	const char *why = NULL;
	struct np_rec *r;
	size_t off;

	for (int k = 0; k < t->nnics; k++) {
		const struct np_nic *n = &t->nics[k];
		if (!selectable(n))
			continue;
		if (n->mgmt) {
			mgmt += n->state == NP_PORT_ACTIVE || n->state == NP_PORT_UNKNOWN;
			continue;
		}
		if (n->state == NP_PORT_ACTIVE && n->phys != NP_PORT_POLLING) {
			active++;
			ib += n->ll == NP_LL_IB;
			roce += n->ll == NP_LL_ROCE;
			if (n->rate_gbit > top)
				top = n->rate_gbit;
		}
	}
	if (!active)
		return;
	if (ib && roce)
		keep = hca_kind(t, &ib_gpus, &roce_gpus);
	/* what NCCL would take that the list leaves out: NCCL's IB transport
	 * (net_ib.cc, ncclIbInitDevices) already skips every port that is not
	 * ACTIVE, so a port down or polling is no reason */
	if (np_topo_has_finding(t, "nic-rate-mixed"))
		why = "nic-rate-mixed";
	else if (mgmt)
		why = "nic-mgmt";
	else if (keep != NP_LL_UNKNOWN)
		why = "nic-fabric-mixed";
	if (!why)
		return;
	if (!strcmp(why, "nic-fabric-mixed")) {
		struct np_finding *f = np_topo_finding(t, "nic-fabric-mixed", NP_SEV_INFO, "node");
		snprintf(f->message, sizeof(f->message),
			 "the active RDMA ports are of two fabrics, %d InfiniBand and %d RoCE; NCCL takes both, while the GPUs' nearest ports are %s only",
			 ib, roce, keep == NP_LL_IB ? "InfiniBand" : "RoCE");
		snprintf(f->evidence, sizeof(f->evidence),
			 "link layers of the active ports; GPUs nearest to InfiniBand %d, to RoCE %d",
			 ib_gpus, roce_gpus);
		snprintf(f->remedy, sizeof(f->remedy), "select the GPUs' fabric with NCCL_IB_HCA");
	}
	r = np_topo_rec(t, "NCCL_IB_HCA", why);
	snprintf(r->value, sizeof(r->value), "=");
	off = 1;
	for (int k = 0; k < t->nnics && off < sizeof(r->value); k++) {
		const struct np_nic *n = &t->nics[k];
		if (!selectable(n) || n->mgmt || n->state != NP_PORT_ACTIVE ||
		    n->phys == NP_PORT_POLLING)
			continue;
		if (keep != NP_LL_UNKNOWN && n->ll != keep)
			continue; /* another fabric than the GPUs' */
		if (top > 0 && n->rate_gbit > 0 && n->rate_gbit < top)
			continue;
		off += (size_t)snprintf(r->value + off, sizeof(r->value) - off, "%s%s:%d",
					off > 1 ? "," : "", n->name, n->port);
	}
	snprintf(r->reason, sizeof(r->reason), "%s: use only the active %sports%s, by exact name%s",
		 why, !strcmp(why, "nic-mgmt") ? "data " : "",
		 !strcmp(why, "nic-rate-mixed") ? " at the top rate" : "",
		 !(ib && roce) ? ""
		 : keep == NP_LL_IB
			 ? "; InfiniBand only: the GPUs' nearest ports are InfiniBand, the RoCE ports another fabric"
		 : keep == NP_LL_ROCE
			 ? "; RoCE only: the GPUs' nearest ports are RoCE, the InfiniBand ports another fabric"
		 : ib_gpus || roce_gpus
			 ? "; both InfiniBand and RoCE: GPUs are nearest to ports of each, and NCCL uses both"
			 : "; both InfiniBand and RoCE: no NVIDIA GPU's nearest port tells one fabric, and NCCL uses both");
}

static void rec_socket(struct np_topo *t)
{
	struct np_rec *r;

	if (!np_topo_has_finding(t, "net-socket-iface") ||
	    !np_devname_valid(t->host.iface_pci, NP_IFNAMSIZ))
		return;
	r = np_topo_rec(t, "NCCL_SOCKET_IFNAME", "net-socket-iface");
	snprintf(r->value, sizeof(r->value), "=%s", t->host.iface_pci);
	snprintf(r->reason, sizeof(r->reason), "net-socket-iface: NCCL would bootstrap over '%s'",
		 t->host.iface_nccl);
}

/* NCCL 2.21 and later pick the RoCE v2 IPv4 GID themselves. */
static void rec_gid(struct np_topo *t)
{
	struct np_rec *r;

	if (!t->host.nccl_version || t->host.nccl_version >= 22100)
		return;
	for (int k = 0; k < t->nnics; k++) {
		const struct np_nic *n = &t->nics[k];
		if (n->ll != NP_LL_ROCE || n->state != NP_PORT_ACTIVE || n->gid_index < 0)
			continue;
		{
			struct np_finding *f =
				np_topo_finding(t, "roce-gid-old-nccl", NP_SEV_INFO, n->name);
			snprintf(f->message, sizeof(f->message),
				 "NCCL %d.%d.%d does not select the RoCE v2 GID by itself",
				 t->host.nccl_version / 10000, t->host.nccl_version / 100 % 100,
				 t->host.nccl_version % 100);
			snprintf(f->evidence, sizeof(f->evidence),
				 "%s port %d: RoCE v2 IPv4 GID at index %d", n->name, n->port,
				 n->gid_index);
			snprintf(f->remedy, sizeof(f->remedy),
				 "set NCCL_IB_GID_INDEX=%d or upgrade NCCL to 2.21+", n->gid_index);
		}
		r = np_topo_rec(t, "NCCL_IB_GID_INDEX", "roce-gid-old-nccl");
		snprintf(r->value, sizeof(r->value), "%d", n->gid_index);
		snprintf(r->reason, sizeof(r->reason),
			 "roce-gid-old-nccl: RoCE v2 IPv4 GID of %s:%d; NCCL before 2.21 does not find it",
			 n->name, n->port);
		return;
	}
}

/* Auto-selection cannot work without an IPv4 RoCE v2 GID: point NCCL at
 * the IPv6 one where every such port has one at the same index. */
static void rec_gid6(struct np_topo *t)
{
	int idx = -1;
	struct np_rec *r;

	for (int k = 0; k < t->nnics; k++) {
		const struct np_nic *n = &t->nics[k];
		if (n->ll != NP_LL_ROCE || n->state != NP_PORT_ACTIVE || !n->gid_checked)
			continue;
		if (n->gid_index >=
		    0) /* one index for all ports: leave a mixed node to the finding */
			return;
		if (n->gid_index6 < 0 || (idx >= 0 && idx != n->gid_index6))
			return;
		idx = n->gid_index6;
	}
	if (idx < 0)
		return;
	r = np_topo_rec(t, "NCCL_IB_GID_INDEX", "roce-no-v2-gid");
	snprintf(r->value, sizeof(r->value), "%d", idx);
	snprintf(r->reason, sizeof(r->reason),
		 "roce-no-v2-gid: no IPv4 RoCE v2 GID; this is the IPv6 one (set NCCL_IB_ADDR_FAMILY=AF_INET6 too)");
	r = np_topo_rec(t, "NCCL_IB_ADDR_FAMILY", "roce-no-v2-gid");
	snprintf(r->value, sizeof(r->value), "AF_INET6");
	snprintf(r->reason, sizeof(r->reason),
		 "roce-no-v2-gid: the RoCE v2 GID NCCL can use is IPv6");
}

static void rec_topo_file(struct np_topo *t)
{
	struct np_rec *r;

	if (!np_topo_has_finding(t, "vm-flattened"))
		return;
	r = np_topo_rec(t, "NCCL_TOPO_FILE", "vm-flattened");
	r->operator_value = true;
	snprintf(r->reason, sizeof(r->reason),
		 "vm-flattened: the hypervisor hides the PCIe switches; set it to the provider's topology file for this instance type");
}

/* No NCCL_CROSS_NIC: its default, 2, lets NCCL's search (search.cc)
 * try rings and balanced trees across NICs when the same-NIC search falls
 * short, so 1 would not change what NCCL can choose. */

static void rec_diagnostics(struct np_topo *t)
{
	struct np_rec *r;
	enum np_path worst = NP_PATH_X;

	if (!np_topo_has_finding(t, "gdr-path"))
		return;
	/* NCCL's GDR check (ncclTopoCheckGdr) returns no before the
	 * distance when the GPU or the NIC says gdr="0": the level changes
	 * nothing for those GPUs */
	for (int i = 0; i < t->ngpus; i++) {
		const struct np_near *nr = &t->near[i];
		bool nic_may = false;
		for (int k = 0; k < nr->n; k++)
			nic_may |= t->nics[nr->nics[k]].gdr != NP_NO;
		if (nr->n && nic_may && t->gpus[i].gdr != NP_NO && nr->nccl != NP_PATH_UNKNOWN &&
		    !np_path_gdr_level(nr->nccl) && nr->pxn < 0 && !nr->pxn_unknown &&
		    !nr->c2c_unknown && nr->nccl > worst)
			worst = nr->nccl;
	}
	if (worst == NP_PATH_X)
		return;
	r = np_topo_rec(t, "NCCL_NET_GDR_LEVEL", "gdr-path");
	snprintf(r->value, sizeof(r->value), "%s", np_path_str(worst));
	snprintf(r->reason, sizeof(r->reason),
		 "gdr-path: diagnostic only; compare busbw with and without it, then fix the placement");
	r->diagnostic = true;
}

void np_topo_recommend(struct np_topo *t)
{
	/* NCCL runs on NVIDIA GPUs: without one no setting changes what it
	 * does (a file that leaves its devices unclassified may hold some) */
	if (t->ngpus == 0 && !t->unclassified)
		return;
	rec_ib_hca(t);
	rec_socket(t);
	rec_gid(t);
	rec_gid6(t);
	rec_topo_file(t);
	rec_diagnostics(t);
}
