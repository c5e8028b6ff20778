/* SPDX-License-Identifier: MIT */
/* Live NIC ports: sysfs (class/infiniband/DEV/ports/N: state, phys_state,
 * rate, link_layer, GID table) read through the root fd, refined by
 * libibverbs (state, link layer, width x speed, MTU) when the root is the
 * real one, and the NIC side of dma-buf: an ibv_reg_dmabuf_mr probe. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_VERBS
#include <infiniband/verbs.h>
#endif

#include "../common/number.h"
#include "gpu_live.h"

/* "400 Gb/sec (4X NDR)" -> 400, 4, "NDR" */
static void parse_rate(const char *s, struct np_nic *n)
{
	char *end;
	double v = strtod(s, &end);
	const char *p = strchr(s, '(');

	if (end != s && v > 0)
		n->rate_gbit = v;
	if (p) {
		const char *q = p + 1;
		int64_t w;
		if (np_scan_i64(&q, 10, 1, 32, &w) && (*q == 'X' || *q == 'x')) {
			n->width = (int)w;
			sscanf(q + 1, " %15[A-Za-z0-9]", n->speed); /* a word, no number */
		}
	}
}

/* The first GID of type "RoCE v2" holding an IPv4-mapped address
 * (::ffff:a.b.c.d), as NCCL's auto-selection looks for it. */
static void roce_gid(const struct np_sysfs *fs, const char *dev, int port, struct np_nic *n)
{
	char rel[256], gid[64], type[32];
	char **names;
	int cnt;

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/%d/gids", dev, port);
	cnt = np_sysfs_list(fs, rel, &names);
	if (cnt < 0)
		return;
	n->gid_checked = true;
	for (int idx = 0; idx < cnt && idx < 4096; idx++) { /* GID indices in numeric order */
		if (!np_sysfs_readf(fs, gid, sizeof(gid),
				    "sys/class/infiniband/%s/ports/%d/gids/%d", dev, port, idx))
			continue;
		if (!np_sysfs_readf(fs, type, sizeof(type),
				    "sys/class/infiniband/%s/ports/%d/gid_attrs/types/%d", dev,
				    port, idx))
			continue;
		if (strcasecmp(type, "RoCE v2") != 0)
			continue;
		if (!strncmp(gid, "0000:0000:0000:0000:0000:ffff:", 30)) {
			n->gid_index = idx;
			break;
		}
		if (n->gid_index6 < 0 && strncmp(gid, "fe80:", 5) &&
		    strcmp(gid, "0000:0000:0000:0000:0000:0000:0000:0000"))
			n->gid_index6 = idx;
	}
	np_sysfs_free_list(names, cnt);
}

static void pcie_of(const struct np_sysfs *fs, const char *busid, struct np_pcie *l)
{
	char buf[64];
	long v;
	char rel[128];

	if (np_sysfs_readf(fs, buf, sizeof(buf), "sys/bus/pci/devices/%s/current_link_speed",
			   busid))
		l->gen_cur = np_pcie_gen_of_gts(strtod(buf, NULL));
	if (np_sysfs_readf(fs, buf, sizeof(buf), "sys/bus/pci/devices/%s/max_link_speed", busid))
		l->gen_max = np_pcie_gen_of_gts(strtod(buf, NULL));
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/current_link_width", busid);
	if (np_sysfs_read_long(fs, rel, &v) && v > 0 && v <= 32)
		l->width_cur = (int)v;
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/max_link_width", busid);
	if (np_sysfs_read_long(fs, rel, &v) && v > 0 && v <= 32)
		l->width_max = (int)v;
	l->gbps = np_pcie_gbps(l->gen_cur, l->width_cur);
}

void np_pcie_live(const struct np_sysfs *fs, const char *busid, struct np_pcie *l)
{
	pcie_of(fs, busid, l);
}

static void sysfs_ports(struct np_topo *t, const struct np_sysfs *fs, const char *dev)
{
	char rel[256], link[512], busid[NP_BUSID_LEN] = "", buf[128];
	char **ports, **nets;
	int nports, nnets;
	long numa = -1;
	const char *base;
	bool efa = !strncmp(dev, "rdmap", 5) || !strncmp(dev, "efa", 3);

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/device", dev);
	if (np_sysfs_readlink(fs, rel, link, sizeof(link)) && (base = strrchr(link, '/')))
		np_busid_norm(base + 1, busid, sizeof(busid));
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/device/numa_node", dev);
	np_sysfs_read_long(fs, rel, &numa);
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/device/driver", dev);
	if (np_sysfs_readlink(fs, rel, link, sizeof(link)) && (base = strrchr(link, '/')) &&
	    !strcmp(base, "/efa"))
		efa = true;
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/device/net", dev);
	nnets = np_sysfs_list(fs, rel, &nets);
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports", dev);
	nports = np_sysfs_list(fs, rel, &ports);
	for (int i = 0; i < nports; i++) {
		int64_t pv;
		long p;
		struct np_nic *n;
		if (!np_parse_i64(ports[i], 10, 1, 255, &pv))
			continue;
		p = (long)pv;
		n = np_topo_nic_add(t, dev, (int)p);
		if (!n) {
			np_topo_note(t, "more than %d NIC ports; the rest are left out",
				     NP_MAX_NICS);
			break;
		}
		snprintf(n->busid, sizeof(n->busid), "%s", busid);
		n->numa = (int)numa;
		if (np_sysfs_readf(fs, buf, sizeof(buf), "sys/class/infiniband/%s/ports/%ld/state",
				   dev, p))
			n->state = np_port_state_parse(buf);
		if (np_sysfs_readf(fs, buf, sizeof(buf),
				   "sys/class/infiniband/%s/ports/%ld/phys_state", dev, p))
			n->phys = np_port_state_parse(buf);
		if (np_sysfs_readf(fs, buf, sizeof(buf), "sys/class/infiniband/%s/ports/%ld/rate",
				   dev, p))
			parse_rate(buf, n);
		if (np_sysfs_readf(fs, buf, sizeof(buf),
				   "sys/class/infiniband/%s/ports/%ld/link_layer", dev, p))
			n->ll = np_link_layer_parse(buf);
		if (efa)
			n->ll = NP_LL_EFA;
		if (np_sysfs_readf(fs, buf, sizeof(buf),
				   "sys/class/infiniband/%s/ports/%ld/gid_attrs/ndevs/0", dev, p) &&
		    buf[0])
			snprintf(n->netdev, sizeof(n->netdev), "%.63s", buf);
		else if (nnets > 0)
			snprintf(n->netdev, sizeof(n->netdev), "%s",
				 nets[nnets > (int)p - 1 ? p - 1 : 0]);
		if (n->ll == NP_LL_ROCE)
			roce_gid(fs, dev, (int)p, n);
		if (busid[0])
			pcie_of(fs, busid, &n->pcie);
	}
	if (nports >= 0)
		np_sysfs_free_list(ports, nports);
	if (nnets >= 0)
		np_sysfs_free_list(nets, nnets);
}

#ifdef HAVE_VERBS
/* ibv_port_attr.active_speed codes -> Gb/s per lane and name */
static void verbs_speed(unsigned code, double *lane, const char **name)
{
	switch (code) {
	case 1:
		*lane = 2.5;
		*name = "SDR";
		break;
	case 2:
		*lane = 5;
		*name = "DDR";
		break;
	case 4:
		*lane = 10;
		*name = "QDR";
		break;
	case 8:
		*lane = 10;
		*name = "FDR10";
		break;
	case 16:
		*lane = 14;
		*name = "FDR";
		break;
	case 32:
		*lane = 25;
		*name = "EDR";
		break;
	case 64:
		*lane = 50;
		*name = "HDR";
		break;
	case 128:
		*lane = 100;
		*name = "NDR";
		break;
	default:
		*lane = 0;
		*name = "";
		break;
	}
}

static int verbs_width(unsigned code)
{
	switch (code) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

static void verbs_ports(struct np_topo *t)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	bool probed = false;

	if (!list) {
		np_topo_note(t, "libibverbs lists no RDMA device (%s)", strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++) {
		const char *dev = ibv_get_device_name(list[i]);
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_device_attr da;
		if (!ctx)
			continue;
		if (ibv_query_device(ctx, &da) == 0) {
			for (int p = 1; p <= da.phys_port_cnt; p++) {
				struct ibv_port_attr pa;
				double lane;
				const char *sp;
				if (ibv_query_port(ctx, (uint8_t)p, &pa) != 0)
					continue;
				for (int k = 0; k < t->nnics; k++) {
					struct np_nic *nic = &t->nics[k];
					if (strcmp(nic->name, dev) || nic->port != p)
						continue;
					nic->state = pa.state == IBV_PORT_ACTIVE  ? NP_PORT_ACTIVE
						     : pa.state == IBV_PORT_DOWN  ? NP_PORT_DOWN
						     : pa.state == IBV_PORT_INIT  ? NP_PORT_INIT
						     : pa.state == IBV_PORT_ARMED ? NP_PORT_ARMED
										  : nic->state;
					nic->phys = pa.phys_state == 2   ? NP_PORT_POLLING
						    : pa.phys_state == 5 ? NP_PORT_ACTIVE
						    : pa.phys_state == 3 ? NP_PORT_DOWN
									 : nic->phys;
					if (nic->ll != NP_LL_EFA)
						nic->ll =
							pa.link_layer == IBV_LINK_LAYER_ETHERNET
								? NP_LL_ROCE
							: pa.link_layer == IBV_LINK_LAYER_INFINIBAND
								? NP_LL_IB
								: nic->ll;
					nic->mtu = 128 << pa.active_mtu;
					verbs_speed(pa.active_speed, &lane, &sp);
					if (lane > 0 && verbs_width(pa.active_width)) {
						nic->width = verbs_width(pa.active_width);
						snprintf(nic->speed, sizeof(nic->speed), "%s", sp);
						if (!nic->rate_gbit) /* sysfs knows XDR, which this
									field cannot hold */
							nic->rate_gbit = lane * nic->width;
					}
				}
			}
		}
#ifdef HAVE_IBV_REG_DMABUF_MR
		if (!probed) {
			/* NCCL's probe: an invalid fd gives EBADF where the kernel and
			 * the provider know dma-buf, EOPNOTSUPP/EPROTONOSUPPORT where not */
			struct ibv_pd *pd = ibv_alloc_pd(ctx);
			if (pd) {
				struct ibv_mr *mr;
				errno = 0;
				mr = ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0);
				if (mr)
					ibv_dereg_mr(mr);
				t->host.dmabuf_nic =
					(errno == EOPNOTSUPP || errno == EPROTONOSUPPORT) ? NP_NO
											  : NP_YES;
				ibv_dealloc_pd(pd);
				probed = true;
			}
		}
#endif
		ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
#ifndef HAVE_IBV_REG_DMABUF_MR
	if (n > 0)
		np_topo_note(t,
			     "this libibverbs has no ibv_reg_dmabuf_mr; NIC-side dma-buf is unknown");
#endif
	(void)probed;
}
#endif

void np_nic_live(struct np_topo *t, const struct np_sysfs *fs)
{
	char **devs;
	int n = np_sysfs_list(fs, "sys/class/infiniband", &devs);

	for (int i = 0; i < n; i++)
		sysfs_ports(t, fs, devs[i]);
	if (n >= 0)
		np_sysfs_free_list(devs, n);
	np_topo_sort_nics(t);
#ifdef HAVE_VERBS
	if (!fs->fake && n > 0)
		verbs_ports(t);
#else
	if (n > 0)
		np_topo_note(t,
			     "built without libibverbs; NIC ports come from sysfs alone and dma-buf is unknown");
#endif
}
