/* SPDX-License-Identifier: MIT */
/* isolate's judge (src/isolate_judge.h): its figures (added, indexed by
 * node), the fleet and the whole world judged against floors, and the
 * answers read from a judge (node states, their words, floors, exit code). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate_judge.h"
#include "isolate_judge_internal.h"
#include "msg.h"
#include "stats.h"

bool np_iso_judge_init(struct np_iso_judge *j, int N, int L, const char (*names)[NP_ISO_NAMELEN],
		       double min_effect, double floor, double world_floor)
{
	memset(j, 0, sizeof(*j));
	j->N = N;
	j->L = L;
	j->names = names;
	j->min_effect = min_effect;
	j->floor = floor;
	j->world_floor = world_floor;
	j->state = calloc((size_t)N, sizeof(*j->state));
	j->evidence = calloc((size_t)N, sizeof(*j->evidence));
	return j->state && j->evidence;
}

void np_iso_judge_release(struct np_iso_judge *j)
{
	for (int i = 0; i < j->nfigs; i++)
		free(j->figs[i].t);
	free(j->figs);
	free(j->state);
	free(j->evidence);
	free(j->links);
	free(j->by_node_at);
	free(j->by_node);
	free(j->seg_busy);
	memset(j, 0, sizeof(*j));
}

void np_iso_fig_add(struct np_iso_judge *j, const struct np_iso_fig *f)
{
	if (j->nfigs == j->figs_cap) {
		int cap = j->figs_cap ? j->figs_cap * 2 : 64;
		struct np_iso_fig *n = realloc(j->figs, (size_t)cap * sizeof(*n));
		if (!n)
			np_abort(NP_EXIT_RUNTIME, "out of memory for figures");
		j->figs = n;
		j->figs_cap = cap;
	}
	j->figs[j->nfigs++] = *f;
}

const char *np_iso_fig_kind_str(enum np_iso_fig_kind k)
{
	switch (k) {
	case NP_FIG_ALONE: return "alone";
	case NP_FIG_PAIR: return "pair";
	case NP_FIG_WORLD: return "world";
	}
	return "unknown";
}

void np_iso_index_nodes(struct np_iso_judge *j)
{
	int *at, *by;

	if (j->indexed == j->nfigs && j->by_node_at)
		return;
	at = calloc((size_t)j->N + 2, sizeof(int));
	by = malloc(((size_t)j->nfigs * 2 + 1) * sizeof(int));
	if (!at || !by)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->a >= 0)
			at[f->a + 2]++;
		if (f->b >= 0 && f->b != f->a)
			at[f->b + 2]++;
	}
	for (int v = 0; v < j->N; v++)
		at[v + 2] += at[v + 1];
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->a >= 0)
			by[at[f->a + 1]++] = i;
		if (f->b >= 0 && f->b != f->a)
			by[at[f->b + 1]++] = i;
	}
	free(j->by_node_at);
	free(j->by_node);
	j->by_node_at = at; /* at[v] .. at[v + 1]: node v's, in figure order */
	j->by_node = by;
	j->indexed = j->nfigs;
}

void *np_iso_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	return p;
}

void np_iso_judge_fleet(struct np_iso_judge *j)
{
	double *buf = malloc(((size_t)j->nfigs + 1) * sizeof(double));
	int n = 0;
	double pair_ref = 0, fleet_med;

	if (!buf)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	for (int i = 0; i < j->nfigs; i++)
		if (j->figs[i].kind == NP_FIG_PAIR && !j->figs[i].wrong)
			buf[n++] = j->figs[i].busbw;
	if (n)
		pair_ref = np_stats_median(buf, n);
	n = 0;
	for (int i = 0; i < j->nfigs; i++)
		if (j->figs[i].kind != NP_FIG_WORLD && !j->figs[i].wrong)
			buf[n++] = j->figs[i].busbw;
	fleet_med = n ? np_stats_median(buf, n) : 0;
	if (j->floor > 0 && n && fleet_med < j->floor)
		snprintf(j->fleet, sizeof(j->fleet),
			 "the whole fleet is below the floor: median %.3g GB/s, floor %.3g GB/s (%s); no single node stands out: check the fabric, its settings and the switches",
			 fleet_med, j->floor, j->floor_src);
	for (int i = 0; i < j->nfigs; i++) {
		struct np_iso_fig *f = &j->figs[i];
		if (f->kind != NP_FIG_WORLD)
			continue;
		f->ref = pair_ref;
		f->nref = pair_ref > 0;
		/* judged against a floor only: the whole world's busbw differs
		 * from a pair's by the fabric's shape, not by a fixed factor */
		f->slow = j->world_floor > 0 && f->hi < j->world_floor;
		f->bad = f->slow || f->wrong;
		if ((f->slow || (f->wrong && np_iso_exit_code(j) != NP_EXIT_WRONG)) && !j->fleet[0])
			snprintf(j->scale, sizeof(j->scale),
				 "every node together: %s%.3g GB/s [%.3g-%.3g], floor %.3g GB/s (%s); pairs of nodes reach %.3g GB/s: the fabric fails only at full scale (switch uplinks, routing, NCCL settings)",
				 f->wrong ? "wrong data, " : "", f->busbw, f->lo, f->hi,
				 j->world_floor, j->floor_src, pair_ref);
	}
	free(buf);
}

const char *np_iso_node_state_str(enum np_iso_node_state s)
{
	switch (s) {
	case NP_NODE_OK: return "ok";
	case NP_NODE_BAD_INSIDE: return "bad-inside";
	case NP_NODE_BAD_NETWORK: return "bad-network";
	case NP_NODE_BAD_DATA: return "wrong-data";
	case NP_NODE_COULD_NOT_RUN: return "could-not-run";
	}
	return "unknown";
}

const char *np_iso_node_state_why(enum np_iso_node_state s)
{
	switch (s) {
	case NP_NODE_OK: return "";
	case NP_NODE_BAD_INSIDE: return "slow inside the node (its GPUs, NVLink, PCIe or CPU)";
	case NP_NODE_BAD_NETWORK:
		return "slow with partners that are fine with others: its network (np_iso_node_why says what its figures show)";
	case NP_NODE_BAD_DATA: return "computes wrong data";
	case NP_NODE_COULD_NOT_RUN:
		return "could not run, again, while its partners ran elsewhere: its GPUs, driver or setup";
	}
	return "unknown";
}

int np_iso_exit_code(const struct np_iso_judge *j)
{
	bool data = false, any = j->nlinks > 0 || j->fleet[0] || j->scale[0] || j->segment[0];

	for (int v = 0; v < j->N; v++) {
		data |= j->state[v] == NP_NODE_BAD_DATA;
		any |= j->state[v] != NP_NODE_OK;
	}
	return data                 ? NP_EXIT_WRONG
	       : any                ? NP_EXIT_VERDICT
	       : j->inconclusive[0] ? NP_EXIT_INCONCLUSIVE
				    : NP_EXIT_OK;
}

void np_iso_node_why(const struct np_iso_judge *j, int v, char *buf, size_t len)
{
	int alone = 0, alone_ok = 0;

	buf[0] = '\0';
	if (v < 0 || v >= j->N || j->state[v] == NP_NODE_OK)
		return;
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_ALONE && f->a == v) {
			alone++;
			alone_ok += f->ok;
		}
	}
	if (j->state[v] != NP_NODE_BAD_NETWORK)
		snprintf(buf, len, "%s", np_iso_node_state_why(j->state[v]));
	else if (alone_ok)
		snprintf(buf, len,
			 "fine alone but slow with partners that are fine with others: its NICs, cables or switch port");
	else if (alone)
		snprintf(buf, len,
			 "slow with partners that are fine with others, and not clearly fine alone: its NICs, cables or switch port, or the node itself");
	else
		snprintf(buf, len,
			 "slow with partners that are fine with others (never measured alone: one rank per node): the node, its NICs, cables or switch port");
}

double np_iso_floor_of_run(const struct np_iso_judge *j)
{
	double lo = 0;

	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_PAIR && !f->bad && (lo == 0 || f->lo < lo))
			lo = f->lo;
	}
	return lo * (1 - j->min_effect);
}

/* Half the lower end of the whole world's interval: the world figure is
 * one group, so no fleet narrows it. */
double np_iso_world_floor_of_run(const struct np_iso_judge *j)
{
	for (int i = 0; i < j->nfigs; i++)
		if (j->figs[i].kind == NP_FIG_WORLD && !j->figs[i].bad)
			return j->figs[i].lo / 2;
	return 0;
}

/* Whether node V is in a figure of the run: a node never measured is
 * "unknown", not "ok". */
bool np_iso_node_measured(const struct np_iso_judge *j, int v)
{
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_WORLD || f->a == v || f->b == v)
			return true;
	}
	return false;
}
