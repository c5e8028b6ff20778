/* SPDX-License-Identifier: MIT */
/* isolate's figures against their fleet (np_iso_judge_figs): each group
 * compared with the other groups of its kind in its round that share no
 * node with it (reference, spread, and the ratio paired batch by batch),
 * or without those with the groups of other rounds; then slow, bad and
 * ok. Nodes and links are named from these in src/isolate_judge.c. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isolate_judge.h"
#include "isolate_judge_internal.h"
#include "msg.h"
#include "stats.h"

/* A pair's relation where both leaves are known: 1 one leaf, 2 across
 * leaves; 0 otherwise (every group compared with every other; a leaf
 * outside 0 to nleaves - 1 is unknown). */
static int relation(const struct np_iso_judge *j, const struct np_iso_fig *f)
{
	if (!j->leaf || f->kind != NP_FIG_PAIR || f->a < 0 || f->b < 0 || j->leaf[f->a] < 0 ||
	    j->leaf[f->b] < 0 || j->leaf[f->a] >= j->nleaves || j->leaf[f->b] >= j->nleaves)
		return 0;
	return j->leaf[f->a] == j->leaf[f->b] ? 1 : 2;
}

static bool shares(const struct np_iso_fig *f, const struct np_iso_fig *g)
{
	return (f->a >= 0 && (f->a == g->a || f->a == g->b)) ||
	       (f->b >= 0 && (f->b == g->a || f->b == g->b));
}

/* The spreads below the fleet that make a group significant among n
 * groups compared: the one-sided normal quantile of NP_ISO_ALPHA / n
 * (Bonferroni over the groups of the comparison), never fewer than
 * NP_ISO_Z. */
static double z_of(int n)
{
	double z = np_norm_upper_quantile(NP_ISO_ALPHA / (n > 1 ? n : 1));

	return z > NP_ISO_Z ? z : NP_ISO_Z;
}

/* The slow way to a fleet, for a figure whose round holds no group of its
 * kind that shares no node with it: the groups of its kind of every round
 * that share no node with it, or without any, the better half of every
 * other group of its kind. */
static void fleet_elsewhere(struct np_iso_judge *j, struct np_iso_fig *f, double *buf)
{
	int n = 0;

	for (int i = 0; i < j->nfigs; i++) {
		struct np_iso_fig *g = &j->figs[i];
		if (g == f || g->kind != f->kind || g->wrong || shares(f, g))
			continue;
		buf[n++] = g->busbw;
	}
	if (n < 1) {
		for (int i = 0; i < j->nfigs; i++) {
			struct np_iso_fig *g = &j->figs[i];
			if (g != f && g->kind == f->kind && !g->wrong)
				buf[n++] = g->busbw;
		}
		if (n) {
			np_sort_doubles(buf, n);
			memmove(buf, buf + n / 2, (size_t)(n - n / 2) * sizeof(*buf));
			n -= n / 2;
		}
	}
	f->nref = n;
	f->ref = f->spread = 0;
	f->ratio = f->ratio_lo = f->ratio_hi = 0;
	if (!n)
		return;
	f->ref = np_stats_median(buf, n);
	if (n >= 4)
		f->spread = 1.4826 * np_stats_mad(buf, n, f->ref);
}

/* Values sorted with the position of each (pos[i]: where value i went, or
 * -1 when it has none), so that the median of all but a few is a walk
 * over the positions left out. */
struct ranked {
	double *v;
	int *pos, n;
};

struct sort_item {
	double v;
	int i;
};

static int cmp_item(const void *x, const void *y)
{
	const struct sort_item *a = x, *b = y;
	int c = (a->v > b->v) - (a->v < b->v);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* r from val[0..n) where has[i]; items is scratch of n. */
static void ranked_make(struct ranked *r, const double *val, const bool *has, int n,
			struct sort_item *items)
{
	int m = 0;

	for (int i = 0; i < n; i++) {
		r->pos[i] = -1;
		if (!has || has[i])
			items[m++] = (struct sort_item){ val[i], i };
	}
	qsort(items, (size_t)m, sizeof(*items), cmp_item);
	for (int k = 0; k < m; k++) {
		r->v[k] = items[k].v;
		r->pos[items[k].i] = k;
	}
	r->n = m;
}

/* The k-th (0-based) of r's values but those at the positions out[0..nout)
 * (sorted ascending, distinct). */
static double ranked_kth(const struct ranked *r, int k, const int *out, int nout)
{
	for (int i = 0; i < nout; i++)
		if (out[i] <= k)
			k++;
	return r->v[k];
}

static double ranked_median(const struct ranked *r, const int *out, int nout)
{
	int m = r->n - nout;

	return m % 2 ? ranked_kth(r, m / 2, out, nout)
		     : (ranked_kth(r, m / 2 - 1, out, nout) + ranked_kth(r, m / 2, out, nout)) / 2;
}

static void sort_ints(int *x, int n)
{
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && x[k - 1] > x[k]; k--) {
			int t = x[k];
			x[k] = x[k - 1];
			x[k - 1] = t;
		}
}

/* The groups of one round of one kind (a phase): their busbw, their
 * batch times batch by batch, and the deviations from a few medians. */
struct phase {
	int *fig, n; /* figure indices of its groups without wrong data */
	int *at;     /* at[figure index]: its place in fig, -1 none (whole judge) */
	struct ranked bw;
	struct ranked *t; /* per batch: the groups that have it */
	int nt;
	struct {
		double med;
		struct ranked dev;
	} mad[4];
	int nmad, nextmad;
	struct sort_item *items;
	double *val;
	bool *has;
};

/* Whether pair f reaches a leaf busy in its round (busy: the round's
 * flags by leaf, or NULL) */
static bool on_busy(const struct np_iso_judge *j, const struct np_iso_fig *f,
		    const unsigned char *busy)
{
	return busy && relation(j, f) == 2 && (busy[j->leaf[f->a]] || busy[j->leaf[f->b]]);
}

/* The phase of (round, kind), of relation rel (0 any), without the pairs
 * that reach a leaf busy in the round (busy, or NULL). */
static void phase_make(struct np_iso_judge *j, struct phase *p, int round,
		       enum np_iso_fig_kind kind, int rel, const unsigned char *busy, int *at)
{
	memset(p, 0, sizeof(*p));
	p->at = at;
	p->fig = np_iso_xmalloc(((size_t)j->nfigs + 1) * sizeof(int));
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *g = &j->figs[i];
		if (g->round == round && g->kind == kind && !g->wrong &&
		    (!rel || relation(j, g) == rel) && !on_busy(j, g, busy)) {
			at[i] = p->n;
			p->fig[p->n++] = i;
			if (g->nt > p->nt)
				p->nt = g->nt;
		}
	}
	p->items = np_iso_xmalloc(((size_t)p->n + 1) * sizeof(*p->items));
	p->val = np_iso_xmalloc(((size_t)p->n + 1) * sizeof(double));
	p->has = np_iso_xmalloc(((size_t)p->n + 1) * sizeof(bool));
	p->bw.v = np_iso_xmalloc(((size_t)p->n + 1) * sizeof(double));
	p->bw.pos = np_iso_xmalloc(((size_t)p->n + 1) * sizeof(int));
	for (int k = 0; k < p->n; k++)
		p->val[k] = j->figs[p->fig[k]].busbw;
	ranked_make(&p->bw, p->val, NULL, p->n, p->items);
	p->t = np_iso_xmalloc(((size_t)p->nt + 1) * sizeof(*p->t));
	for (int b = 0; b < p->nt; b++) {
		p->t[b].v = np_iso_xmalloc(((size_t)p->n + 1) * sizeof(double));
		p->t[b].pos = np_iso_xmalloc(((size_t)p->n + 1) * sizeof(int));
		for (int k = 0; k < p->n; k++) {
			const struct np_iso_fig *g = &j->figs[p->fig[k]];
			p->has[k] = b < g->nt;
			p->val[k] = p->has[k] ? g->t[b] : 0;
		}
		ranked_make(&p->t[b], p->val, p->has, p->n, p->items);
	}
}

static void phase_free(struct phase *p)
{
	for (int k = 0; k < p->n; k++)
		p->at[p->fig[k]] = -1;
	for (int b = 0; b < p->nt; b++) {
		free(p->t[b].v);
		free(p->t[b].pos);
	}
	for (int m = 0; m < p->nmad; m++) {
		free(p->mad[m].dev.v);
		free(p->mad[m].dev.pos);
	}
	free(p->t);
	free(p->bw.v);
	free(p->bw.pos);
	free(p->fig);
	free(p->items);
	free(p->val);
	free(p->has);
}

/* The deviations of the phase's busbw from med, ranked (a few kept: a
 * phase's fleets leave out one group or two, so their medians are few). */
static const struct ranked *phase_dev(struct phase *p, const struct np_iso_judge *j, double med)
{
	int m;

	for (m = 0; m < p->nmad; m++)
		if (p->mad[m].med == med)
			return &p->mad[m].dev;
	if (p->nmad < 4) {
		m = p->nmad++;
		p->mad[m].dev.v = np_iso_xmalloc(((size_t)p->n + 1) * sizeof(double));
		p->mad[m].dev.pos = np_iso_xmalloc(((size_t)p->n + 1) * sizeof(int));
	} else {
		m = p->nextmad;
		p->nextmad = (p->nextmad + 1) % 4;
	}
	p->mad[m].med = med;
	for (int k = 0; k < p->n; k++)
		p->val[k] = fabs(j->figs[p->fig[k]].busbw - med);
	ranked_make(&p->mad[m].dev, p->val, NULL, p->n, p->items);
	return &p->mad[m].dev;
}

/* The groups of f's phase that its fleet leaves out (itself, and those
 * that share a node with it): their places in the phase, in out[]. */
static int left_out(struct np_iso_judge *j, const struct np_iso_fig *f, int fi,
		    const struct phase *p, int *out)
{
	int n = 0;

	for (int e = 0; e < 2; e++) {
		int v = e ? f->b : f->a;
		if (v < 0)
			continue;
		NP_ISO_NODE_FIGS (j, v, i) {
			int k = p->at[i];
			bool dup = false;
			if (k < 0 || (i != fi && !shares(f, &j->figs[i])))
				continue;
			for (int d = 0; d < n; d++)
				dup |= out[d] == k;
			if (!dup)
				out[n++] = k;
		}
	}
	if (fi >= 0 && p->at[fi] >= 0) {
		bool dup = false;
		for (int d = 0; d < n; d++)
			dup |= out[d] == p->at[fi];
		if (!dup)
			out[n++] = p->at[fi];
	}
	return n;
}

/* f's fleet in its phase p: ref and spread (the median and 1.4826 x MAD of
 * the phase's busbw but the groups left out), and the paired ratio (per
 * batch, the median time of those groups over f's own; its median and 95%
 * interval, 0 with fewer than 3 batches). False when the phase has no
 * group for its fleet. */
static bool fleet_in_phase(struct np_iso_judge *j, struct np_iso_fig *f, int fi, struct phase *p,
			   double *ratios, int least)
{
	int out[64], pos[64], nout, m, n = 0;
	struct np_stats st;

	nout = left_out(j, f, fi, p, out);
	m = p->n - nout;
	if (m < least)
		return false;
	for (int d = 0; d < nout; d++)
		pos[d] = p->bw.pos[out[d]];
	sort_ints(pos, nout);
	f->nref = m;
	f->ref = ranked_median(&p->bw, pos, nout);
	f->spread = 0;
	if (m >= 4) {
		const struct ranked *dev = phase_dev(p, j, f->ref);
		for (int d = 0; d < nout; d++)
			pos[d] = dev->pos[out[d]];
		sort_ints(pos, nout);
		f->spread = 1.4826 * ranked_median(dev, pos, nout);
	}
	f->ratio = f->ratio_lo = f->ratio_hi = 0;
	for (int b = 0; b < f->nt && b < p->nt; b++) {
		int np = 0;
		for (int d = 0; d < nout; d++)
			if (p->t[b].pos[out[d]] >= 0)
				pos[np++] = p->t[b].pos[out[d]];
		if (p->t[b].n - np < 1 || !(f->t[b] > 0))
			continue;
		sort_ints(pos, np);
		ratios[n++] = ranked_median(&p->t[b], pos, np) / f->t[b];
	}
	if (n >= 3) {
		np_stats_compute(ratios, n, &st);
		f->ratio = st.median;
		f->ratio_lo = st.ci_lo;
		f->ratio_hi = st.ci_hi;
	}
	return true;
}

/* slow, bad and ok of f against its fleet (z: spreads below it that count) */
static void judge_one(const struct np_iso_judge *j, struct np_iso_fig *f, double z)
{
	if (f->ratio > 0) /* the same windows: the paired interval decides */
		f->slow = f->ratio_hi < 1 - j->min_effect && f->busbw < f->ref - z * f->spread &&
			  (j->floor <= 0 || f->busbw < j->floor);
	else /* no group measured beside it: only a floor can judge it */
		f->slow = j->floor > 0 && f->hi < j->floor &&
			  (!f->nref || f->hi < f->ref * (1 - j->min_effect));
	f->bad = f->slow || f->wrong;
	/* clearly fine; neither bad nor ok: unclear, no evidence either way */
	if (f->ratio > 0)
		f->ok = !f->bad && f->ratio_lo >= 1 - j->min_effect;
	else
		f->ok = !f->bad && (j->floor <= 0 || f->lo >= j->floor);
}

/* With leaves known: per round, a leaf whose pairs across leaves are below
 * together (3 or more, and half or more of them, not counting pairs with
 * other such leaves) is busy in that round (j->seg_busy), and its pairs
 * below are seg: its segment's congestion, not its nodes' (another job's
 * traffic, an uplink), neither bad nor ok. */
static void mark_segments(struct np_iso_judge *j, int rmax)
{
	int nl = j->nleaves, *below, *total;
	unsigned char *busy;

	free(j->seg_busy);
	j->seg_busy = NULL;
	j->seg_rounds = 0;
	if (!j->leaf || nl < 1)
		return;
	below = np_iso_xmalloc((size_t)nl * 2 * sizeof(int));
	total = below + nl;
	busy = calloc(((size_t)rmax + 1) * (size_t)nl, 1);
	if (!busy)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	for (int r = 0; r <= rmax; r++) {
		unsigned char *b = busy + (size_t)r * (size_t)nl;
		/* pass 0 every pair across leaves; pass 1 without those that
		 * reach a leaf busy in pass 0 (a busy leaf's partners' leaves
		 * see its pairs below too) */
		for (int pass = 0; pass < 2; pass++) {
			memset(below, 0, (size_t)nl * 2 * sizeof(int));
			for (int i = 0; i < j->nfigs; i++) {
				const struct np_iso_fig *f = &j->figs[i];
				int la, lb;
				bool low;
				if (f->round != r || f->wrong || relation(j, f) != 2 ||
				    j->leaf[f->a] >= nl || j->leaf[f->b] >= nl)
					continue;
				la = j->leaf[f->a];
				lb = j->leaf[f->b];
				/* below by its paired interval alone: the fleet's
				 * spread, which a busy leaf widens, is no test here */
				low = f->slow || (f->ratio > 0 && f->ratio_hi < 1 - j->min_effect);
				if (!pass || !b[lb]) {
					total[la]++;
					below[la] += low;
				}
				if (!pass || !b[la]) {
					total[lb]++;
					below[lb] += low;
				}
			}
			for (int l = 0; l < nl; l++) {
				bool is = below[l] >= 3 && 2 * below[l] >= total[l];
				if (!pass)
					b[l] = is;
				else if (b[l] && total[l] >= 3 && !is)
					b[l] = 0;
			}
		}
	}
	for (int i = 0; i < j->nfigs; i++) {
		struct np_iso_fig *f = &j->figs[i];
		const unsigned char *b = busy + (size_t)(f->round < 0 ? 0 : f->round) * (size_t)nl;
		f->seg = false;
		if (f->round < 0 || f->round > rmax || !f->slow || f->wrong ||
		    relation(j, f) != 2 || j->leaf[f->a] >= nl || j->leaf[f->b] >= nl)
			continue;
		if (b[j->leaf[f->a]] || b[j->leaf[f->b]]) {
			f->seg = true;
			f->slow = f->bad = f->ok = false;
		}
	}
	j->seg_busy = busy;
	j->seg_rounds = rmax;
	free(below);
}

/* In a round with busy leaves, the pairs across leaves that reach none
 * are compared again with such pairs only: a busy leaf's pairs, below
 * together, would lower their fleet and widen its spread (with a quarter
 * of the leaves busy, a node 10% slow came out at its fleet) */
static void fleet_off_busy(struct np_iso_judge *j, int rmax, int *at, double *ratios)
{
	for (int r = 0; j->seg_busy && r <= rmax && r <= j->seg_rounds; r++) {
		const unsigned char *b = j->seg_busy + (size_t)r * (size_t)j->nleaves;
		struct phase p;
		bool any = false;
		for (int l = 0; l < j->nleaves; l++)
			any |= b[l] != 0;
		if (!any)
			continue;
		phase_make(j, &p, r, NP_FIG_PAIR, 2, b, at);
		for (int k = 0; p.n >= 4 && k < p.n; k++) {
			int fi = p.fig[k];
			struct np_iso_fig *f = &j->figs[fi];
			if (fleet_in_phase(j, f, fi, &p, ratios, 3))
				judge_one(j, f, z_of(f->nref));
		}
		phase_free(&p);
	}
}

void np_iso_judge_figs(struct np_iso_judge *j)
{
	double *buf = np_iso_xmalloc(((size_t)j->nfigs + 1) * 2 * sizeof(double));
	int *at = np_iso_xmalloc(((size_t)j->nfigs + 1) * sizeof(int));
	bool *fresh = np_iso_xmalloc(((size_t)j->nfigs + 1) * sizeof(bool));
	bool *grew;
	double *ratios;
	int *late = np_iso_xmalloc(((size_t)j->nfigs + 1) * sizeof(int));
	int nt = 0, rmax = 0, zn_of = -1, rel, nlate;
	double zn = NP_ISO_Z;

	np_iso_index_nodes(j);
	for (int i = 0; i < j->nfigs; i++) {
		at[i] = -1;
		fresh[i] = false;
		if (j->figs[i].nt > nt)
			nt = j->figs[i].nt;
		if (j->figs[i].round > rmax)
			rmax = j->figs[i].round;
	}
	ratios = np_iso_xmalloc(((size_t)nt + 1) * sizeof(double));
	/* the phases (round, kind) that grew since the last judging: all their
	 * groups are judged again */
	grew = calloc(((size_t)rmax + 2) * 3, sizeof(bool));
	if (!grew)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
#define PHASE_OF(f) ((f)->round < 0 ? 0 : (size_t)(f)->round * 3 + (size_t)(f)->kind)
	for (int i = j->judged; i < j->nfigs; i++)
		grew[PHASE_OF(&j->figs[i])] = true;
	for (int i = 0; i < j->nfigs; i++) {
		struct np_iso_fig *f = &j->figs[i];
		struct phase p;
		/* kept: a fleet of its own round that has not changed */
		if (f->kind == NP_FIG_WORLD || fresh[i] ||
		    (!grew[PHASE_OF(f)] && f->nref && f->ratio > 0))
			goto judge;
		/* its phase, once for every figure of it that is to be judged:
		 * of its relation (3 groups or more), else of every relation */
		rel = relation(j, f);
		phase_make(j, &p, f->round, f->kind, rel, NULL, at);
		nlate = 0;
		for (int g = i; g < j->nfigs; g++) {
			struct np_iso_fig *h = &j->figs[g];
			if (h->round != f->round || h->kind != f->kind || relation(j, h) != rel ||
			    (!grew[PHASE_OF(h)] && h->nref && h->ratio > 0))
				continue;
			fresh[g] = true;
			if (fleet_in_phase(j, h, g, &p, ratios, rel ? 3 : 1))
				continue;
			if (rel)
				late[nlate++] = g;
			else
				fleet_elsewhere(j, h, buf);
		}
		phase_free(&p);
		if (nlate) {
			phase_make(j, &p, f->round, f->kind, 0, NULL, at);
			for (int k = 0; k < nlate; k++)
				if (!fleet_in_phase(j, &j->figs[late[k]], late[k], &p, ratios, 1))
					fleet_elsewhere(j, &j->figs[late[k]], buf);
			phase_free(&p);
		}
	judge:
		if (f->kind == NP_FIG_WORLD)
			continue;
		if (f->nref != zn_of) {
			zn_of = f->nref;
			zn = z_of(zn_of);
		}
		judge_one(j, f, zn);
	}
#undef PHASE_OF
	j->judged = j->nfigs;
	mark_segments(j, rmax);
	fleet_off_busy(j, rmax, at, ratios);
	free(late);
	free(grew);
	free(buf);
	free(at);
	free(fresh);
	free(ratios);
}
