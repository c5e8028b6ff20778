/* SPDX-License-Identifier: MIT */
/* The sweep's link limits (DESIGN.md Limits): each rank's link facts
 * gathered and reduced to the world's bottleneck, B_node and the rank
 * count of each node, and from them the limit and eff of each row. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "sweep_state.h"
#include "watchdog.h"

/* One rank's link facts as the world gathers them. */
struct rank_bw {
	int node;
	double node_gbps, nic_gbps;
	char nic[40];
};

/* B_node of each node (DESIGN.md Limits): the rates of the data NICs that
 * its ranks' GPUs use (each GPU's nearest NIC, counted once), so a node
 * where the job has 1 or 2 of 8 GPUs is held to the NICs those GPUs would
 * use; the node's whole NIC sum when a rank has no nearest NIC (host
 * memory, or unknown). On virtual nodes of a device backend B_node is the
 * transport NCCL uses between them, whose rate nccl-probe does not know. */
static void node_limits(struct sweep *s, const struct rank_bw *all)
{
	const struct np_world *w = s->w;
	int nn = w->nnodes;
	const char **nic = calloc((size_t)w->size, sizeof(*nic));
	double *rate = calloc((size_t)w->size, sizeof(*rate));

	s->node_L = calloc((size_t)nn, sizeof(*s->node_L));
	s->node_B = calloc((size_t)nn, sizeof(*s->node_B));
	if (!s->node_L || !s->node_B || !nic || !rate)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d nodes", nn);
	for (int j = 0; j < nn; j++) {
		double whole = -1;
		int k = 0;
		for (int r = 0; r < w->size; r++) {
			if (all[r].node != j)
				continue;
			nic[k] = all[r].nic;
			rate[k++] = all[r].nic_gbps;
			if (whole < 0 || all[r].node_gbps < whole)
				whole = all[r].node_gbps;
		}
		s->node_L[j] = k;
		s->node_B[j] = np_node_bw_used(k, nic, rate, whole);
	}
	free(nic);
	free(rate);
	if (w->virtual_nodes && (s->be.ops->caps & NP_CAP_HOSTID_VNODES))
		for (int j = 0; j < nn; j++)
			s->node_B[j] = 0;
}

/* The worst node: the least B_node per rank (ranks share their node's NICs). */
static int worst_node(const struct sweep *s)
{
	int k = 0;

	for (int j = 1; j < s->w->nnodes; j++) {
		double a = s->node_L[j] ? s->node_B[j] / s->node_L[j] : 1e300;
		double b = s->node_L[k] ? s->node_B[k] / s->node_L[k] : 1e300;
		if (a < b)
			k = j;
	}
	return k;
}

/* This rank's link facts: its node's first rank discovers the machine
 * once for the bus ids of all the node's ranks (np_bw_facts_node) and
 * hands each its own; a discovery that failed leaves every one unknown. */
static void rank_facts(const struct sweep *s, struct np_bw_facts *f)
{
	enum { ID_LEN = sizeof(s->be.info.bus_id) };
	MPI_Comm nc = s->w->node_comm;
	char *ids = NULL;
	const char **idp = NULL;
	struct np_bw_facts *all = NULL;
	struct np_err err = { 0 };
	int lr, ln;

	MPI_Comm_rank(nc, &lr);
	MPI_Comm_size(nc, &ln);
	if (lr == 0) {
		ids = calloc((size_t)ln, ID_LEN);
		idp = calloc((size_t)ln, sizeof(*idp));
		all = calloc((size_t)ln, sizeof(*all));
		if (!ids || !idp || !all)
			np_abort(NP_EXIT_RUNTIME, "out of memory for %d ranks' link facts", ln);
	}
	MPI_Gather(s->be.info.bus_id, ID_LEN, MPI_CHAR, ids, ID_LEN, MPI_CHAR, 0, nc);
	if (lr == 0) {
		for (int i = 0; i < ln; i++) {
			ids[(size_t)i * ID_LEN + ID_LEN - 1] = '\0';
			idp[i] = ids + (size_t)i * ID_LEN;
		}
		if (np_bw_facts_node(ln, idp, all, &err) != NP_OK)
			for (int i = 0; i < ln; i++) {
				memset(&all[i], 0, sizeof(all[i]));
				snprintf(all[i].gpu_src, sizeof(all[i].gpu_src), "unknown: %.80s",
					 err.msg);
			}
	}
	MPI_Scatter(all, (int)sizeof(*f), MPI_BYTE, f, (int)sizeof(*f), MPI_BYTE, 0, nc);
	free(ids);
	free(idp);
	free(all);
}

/* Link limits: each rank's facts, reduced to the world's bottleneck (the
 * slowest GPU link, the slowest nearest NIC) and, per node, B_node and its
 * rank count; discovery failures only leave the limits unknown. */
void sweep_gather_limits(struct sweep *s)
{
	struct np_bw_facts f;
	struct {
		double v;
		int rank;
	} in[2], out[2];
	struct rank_bw me, *all;
	int k;

	np_watchdog_arm("discovering this node's link rates");
	rank_facts(s, &f);
	/* a zero (unknown) on any rank makes the world's value unknown */
	in[0].v = f.gpu_gbps > 0 ? f.gpu_gbps : -1;
	in[1].v = f.nic_gbps > 0 ? f.nic_gbps : -1;
	for (int i = 0; i < 2; i++)
		in[i].rank = s->w->rank;
	np_watchdog_arrive(s->w->comm, "gathering link rates");
	MPI_Allreduce(in, out, 2, MPI_DOUBLE_INT, MPI_MINLOC, s->w->comm);
	memset(&me, 0, sizeof(me));
	me.node = s->w->node;
	me.node_gbps = f.node_gbps;
	me.nic_gbps = f.nic_gbps;
	snprintf(me.nic, sizeof(me.nic), "%s", f.nic);
	all = calloc((size_t)s->w->size, sizeof(*all));
	if (!all)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d ranks' link facts", s->w->size);
	MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, s->w->comm);
	node_limits(s, all);
	k = worst_node(s);
	/* the evidence of the bottleneck ranks: the slowest GPU link, and the
	 * first rank of the worst node */
	{
		int first = 0;
		for (int r = 0; r < s->w->size; r++)
			if (all[r].node == k) {
				first = r;
				break;
			}
		MPI_Bcast(f.gpu_src, sizeof(f.gpu_src), MPI_CHAR, out[0].rank, s->w->comm);
		MPI_Bcast(&f.proto_gbps, 1, MPI_DOUBLE, out[0].rank, s->w->comm);
		MPI_Bcast(f.node_src, sizeof(f.node_src), MPI_CHAR, first, s->w->comm);
		/* the node's NIC sum: the evidence names its NICs; B_node counts those used */
		MPI_Bcast(&f.node_gbps, 1, MPI_DOUBLE, first, s->w->comm);
	}
	free(all);
	s->rep.bw = f;
	s->rep.bw.gpu_gbps = out[0].v > 0 ? out[0].v : 0;
	s->rep.bw.nic_gbps = out[1].v > 0 ? out[1].v : 0;
	s->rep.bw.node_gbps = s->node_B[k];
	if (s->w->virtual_nodes && (s->be.ops->caps & NP_CAP_HOSTID_VNODES))
		snprintf(s->rep.bw.node_src, sizeof(s->rep.bw.node_src),
			 "virtual nodes: NCCL's %.30s between them, rate unknown",
			 s->be.info.transport[0] ? s->be.info.transport : "transport");
	else if (s->node_B[k] > 0 && s->node_B[k] < f.node_gbps)
		snprintf(s->rep.bw.node_src, sizeof(s->rep.bw.node_src),
			 "NICs of the job's GPUs, of %.0f GB/s: %.50s", f.node_gbps, f.node_src);
	if (!(s->rep.bw.gpu_gbps > 0))
		s->rep.bw.proto_gbps = 0;
	s->rep.bw_gpu_rank = out[0].rank;
	s->rep.bw_known = true;
	s->worst = k;
}

/* limit and eff of one row (DESIGN.md Limits): the least over nodes, each
 * with its own rank count and B_node; one rank: no bus traffic */
void sweep_row_limit(const struct sweep *s, struct np_result *res)
{
	const struct np_world *w = s->w;

	res->limit = 0;
	res->eff = NAN;
	if (w->size < 2 || !s->rep.bw_known || !s->node_L)
		return;
	res->limit = np_limit_nodes(res->coll->id, w->size, w->nnodes, s->node_L, s->node_B,
				    s->rep.bw.gpu_gbps, s->rep.bw.nic_gbps);
	if (res->limit > 0)
		res->eff = res->busbw / res->limit;
}
