/* SPDX-License-Identifier: MIT */
/* Bandwidth limits (DESIGN.md "Limits"): the per-collective formula and
 * one rank's facts (B_gpu, B_node, nearest NIC) from live discovery. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwlimits.h"
#include "topo.h"

static double min2(double a, double b) { return a < b ? a : b; }

double np_limit_busbw(enum np_coll_id coll, int n, int L, double b_gpu, double b_node, double b_nic)
{
	int nodes;

	if (n < 1 || L < 1)
		return 0;
	if (L > n)
		L = n;
	nodes = (n + L - 1) / L;
	if ((unsigned)coll >= NP_COLL_COUNT)
		return 0;
	switch (np_colls[coll].limit) {
	case NP_LIMIT_SHARED:
		if (nodes == 1)
			return b_gpu > 0 ? b_gpu : 0;
		return b_gpu > 0 && b_node > 0 ? min2(b_gpu, b_node) : 0;
	case NP_LIMIT_ALLTOALL: {
		double net, intra;
		if (nodes == 1)
			return b_gpu > 0 ? b_gpu : 0;
		if (b_node <= 0)
			return 0;
		/* each rank sends (n-L)/(n-1) of its data off the node, and the
		 * node's L ranks share B_node */
		net = b_node * (n - 1) / ((double)L * (n - L));
		if (L == 1)
			return net;
		if (b_gpu <= 0)
			return 0;
		intra = b_gpu * (n - 1) / (double)(L - 1);
		return min2(intra, net);
	}
	case NP_LIMIT_P2P:
		if (nodes == 1)
			return b_gpu > 0 ? b_gpu : 0;
		return b_gpu > 0 && b_nic > 0 ? min2(b_gpu, b_nic) : 0;
	}
	return 0;
}

double np_node_bw_used(int k, const char *const *nic, const double *nic_gbps, double whole)
{
	double used = 0;

	for (int i = 0; i < k; i++) {
		bool seen = false;
		if (!nic[i] || !nic[i][0] || !(nic_gbps[i] > 0))
			return whole > 0 ? whole : 0;
		for (int q = 0; q < i && !seen; q++)
			seen = !strcmp(nic[q], nic[i]);
		if (!seen)
			used += nic_gbps[i];
	}
	return k > 0 ? used : 0;
}

double np_limit_nodes(enum np_coll_id coll, int n, int nnodes, const int *L, const double *B,
		      double b_gpu, double b_nic)
{
	double lim = 0;

	for (int j = 0; j < nnodes; j++) {
		double l;
		if (L[j] < 1)
			continue;
		l = np_limit_busbw(coll, n, L[j], b_gpu, B[j], b_nic);
		if (!(l > 0))
			return 0; /* unknown on one node: unknown */
		if (!(lim > 0) || l < lim)
			lim = l;
	}
	return lim;
}

static void node_facts(const struct np_topo *t, struct np_bw_facts *out)
{
	int active = 0, same = 1, first = -1, last = -1;
	double sum = 0, rate0 = 0;

	for (int k = 0; k < t->nnics; k++) {
		const struct np_nic *n = &t->nics[k];
		/* management ports carry no job traffic (np_topo_paths marks them) */
		if (n->state != NP_PORT_ACTIVE || n->rate_gbit <= 0 || !np_topo_nic_data(t, k))
			continue;
		if (first < 0) {
			first = k;
			rate0 = n->rate_gbit;
		}
		same &= n->rate_gbit == rate0;
		last = k;
		active++;
		sum += n->rate_gbit;
	}
	out->node_gbps = sum / 8.0;
	if (!active)
		snprintf(out->node_src, sizeof(out->node_src), "%s",
			 t->nnics ? "no active NIC port with a known rate" : "no RDMA NIC");
	else if (same)
		snprintf(out->node_src, sizeof(out->node_src), "%d x %s%s%g Gb/s (%.24s%s%.24s)",
			 active, t->nics[first].speed, t->nics[first].speed[0] ? " " : "", rate0,
			 t->nics[first].name, active > 1 ? ".." : "",
			 active > 1 ? t->nics[last].name : "");
	else
		snprintf(out->node_src, sizeof(out->node_src),
			 "%d ports, %g Gb/s in all (mixed rates)", active, sum);
}

/* One rank's facts from the discovered machine: its GPU's link (want,
 * normalized; "" for host memory) and nearest NIC, and the node's. */
static void facts_of(const struct np_topo *t, const char *want, struct np_bw_facts *out)
{
	int gi = -1;

	memset(out, 0, sizeof(*out));
	node_facts(t, out);
	if (!want[0]) {
		snprintf(out->gpu_src, sizeof(out->gpu_src), "host memory");
		return;
	}
	for (int i = 0; i < t->ngpus; i++)
		if (!strcmp(t->gpus[i].busid, want))
			gi = i;
	if (gi < 0) {
		snprintf(out->gpu_src, sizeof(out->gpu_src), "no GPU at %s", want);
		return;
	}
	const struct np_gpu *g = &t->gpus[gi];
	const struct np_near *nr = &t->near[gi];
	int gen = g->pcie.gen_max ? g->pcie.gen_max : g->pcie.gen_cur;
	int width = g->pcie.width_max ? g->pcie.width_max : g->pcie.width_cur;
	if (g->nvlinks > 0 && g->nvlink_gbps > 0) {
		out->gpu_gbps = g->nvlinks * g->nvlink_gbps;
		out->proto_gbps = NP_NVLINK_PROTO_FRACTION * out->gpu_gbps;
		snprintf(out->gpu_src, sizeof(out->gpu_src), "%d NVLink x %.1f GB/s (NVML)",
			 g->nvlinks, g->nvlink_gbps);
	} else if (gen && width) {
		out->gpu_gbps = np_pcie_gbps(gen, width);
		snprintf(out->gpu_src, sizeof(out->gpu_src), "PCIe Gen%d x%d", gen, width);
	} else {
		snprintf(out->gpu_src, sizeof(out->gpu_src), "GPU %s link unknown", want);
	}
	for (int k = 0; k < nr->n; k++) {
		const struct np_nic *n = &t->nics[nr->nics[k]];
		if (n->state == NP_PORT_ACTIVE && n->rate_gbit / 8.0 > out->nic_gbps) {
			out->nic_gbps = n->rate_gbit / 8.0;
			snprintf(out->nic, sizeof(out->nic), "%.30s:%d", n->name, n->port);
		}
	}
}

enum np_status np_bw_facts_node(int n, const char *const *bus_ids, struct np_bw_facts *out,
				struct np_err *err)
{
	char(*want)[NP_BUSID_LEN];
	struct np_topo *t;
	enum np_status st;
	bool gpu = false;

	if (n > 0)
		memset(out, 0, (size_t)n * sizeof(*out));
	want = calloc(n > 0 ? (size_t)n : 1, sizeof(*want));
	t = malloc(sizeof(*t));
	if (!want || !t) {
		free(want);
		free(t);
		return np_fail(err, NP_ENOMEM, "out of memory for the topology model");
	}
	for (int i = 0; i < n; i++) {
		if (bus_ids[i] && *bus_ids[i] &&
		    !np_busid_norm(bus_ids[i], want[i], sizeof(want[i]))) {
			free(want);
			free(t);
			return np_fail(err, NP_EUSAGE,
				       "'%s' is not a PCI bus id; give one like 0000:19:00.0",
				       bus_ids[i]);
		}
		gpu = gpu || want[i][0];
	}
	np_topo_init(t);
	/* host memory: no GPU fact is needed, and a CUDA driver initialized
	 * here would stay in the process of a host-memory MPI run (a
	 * CUDA-aware MPI then checks every buffer it is given) */
	t->no_gpu_libs = !gpu;
	st = np_topo_discover_live(t, false, err);
	if (!st) {
		np_topo_paths(t);
		for (int i = 0; i < n; i++)
			facts_of(t, want[i], &out[i]);
	}
	np_topo_release(t);
	free(t);
	free(want);
	return st;
}

enum np_status np_bw_facts_local(const char *bus_id, struct np_bw_facts *out, struct np_err *err)
{
	return np_bw_facts_node(1, &bus_id, out, err);
}
