/* SPDX-License-Identifier: MIT */
/* isolate's judging (src/isolate_judge.h): figures against their fleet,
 * nodes and links named from the figures, confirmation rounds planned. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate_judge.h"
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

static void judge_note(struct np_iso_judge *j, const char *fmt, ...) NP_PRINTF(2, 3);

static void judge_note(struct np_iso_judge *j, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!j->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	j->note(j->note_arg, msg);
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

static bool shares(const struct np_iso_fig *f, const struct np_iso_fig *g)
{
	return (f->a >= 0 && (f->a == g->a || f->a == g->b)) ||
	       (f->b >= 0 && (f->b == g->a || f->b == g->b));
}

/* Each node's figures, for every figure added so far (j->by_node). */
static void index_nodes(struct np_iso_judge *j)
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

/* The spreads below the fleet that make a group significant among n
 * groups compared: the one-sided normal quantile of NP_ISO_ALPHA / n
 * (Bonferroni over the groups of the comparison), never fewer than
 * NP_ISO_Z. */
static double z_of(int n)
{
	double p = NP_ISO_ALPHA / (n > 1 ? n : 1), lo = NP_ISO_Z, hi = 40;

	if (0.5 * erfc(lo / sqrt(2.0)) <= p)
		return lo;
	for (int k = 0; k < 60; k++) {
		double mid = (lo + hi) / 2;
		if (0.5 * erfc(mid / sqrt(2.0)) > p)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

#define NODE_FIGS(j, v, i)                                                                         \
	for (int i##_k = (j)->by_node_at[v], i; i##_k < (j)->by_node_at[(v) + 1] &&                \
						(i = (j)->by_node[i##_k], 1);                      \
	     i##_k++)

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
	int *fig, n;          /* figure indices of its groups without wrong data */
	int *at;              /* at[figure index]: its place in fig, -1 none (whole judge) */
	struct ranked bw;
	struct ranked *t;     /* per batch: the groups that have it */
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

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	return p;
}

static void phase_make(struct np_iso_judge *j, struct phase *p, int round, enum np_iso_fig_kind kind,
		       int *at)
{
	memset(p, 0, sizeof(*p));
	p->at = at;
	p->fig = xmalloc(((size_t)j->nfigs + 1) * sizeof(int));
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *g = &j->figs[i];
		if (g->round == round && g->kind == kind && !g->wrong) {
			at[i] = p->n;
			p->fig[p->n++] = i;
			if (g->nt > p->nt)
				p->nt = g->nt;
		}
	}
	p->items = xmalloc(((size_t)p->n + 1) * sizeof(*p->items));
	p->val = xmalloc(((size_t)p->n + 1) * sizeof(double));
	p->has = xmalloc(((size_t)p->n + 1) * sizeof(bool));
	p->bw.v = xmalloc(((size_t)p->n + 1) * sizeof(double));
	p->bw.pos = xmalloc(((size_t)p->n + 1) * sizeof(int));
	for (int k = 0; k < p->n; k++)
		p->val[k] = j->figs[p->fig[k]].busbw;
	ranked_make(&p->bw, p->val, NULL, p->n, p->items);
	p->t = xmalloc(((size_t)p->nt + 1) * sizeof(*p->t));
	for (int b = 0; b < p->nt; b++) {
		p->t[b].v = xmalloc(((size_t)p->n + 1) * sizeof(double));
		p->t[b].pos = xmalloc(((size_t)p->n + 1) * sizeof(int));
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
		p->mad[m].dev.v = xmalloc(((size_t)p->n + 1) * sizeof(double));
		p->mad[m].dev.pos = xmalloc(((size_t)p->n + 1) * sizeof(int));
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
static int left_out(struct np_iso_judge *j, const struct np_iso_fig *f, int fi, const struct phase *p,
		    int *out)
{
	int n = 0;

	for (int e = 0; e < 2; e++) {
		int v = e ? f->b : f->a;
		if (v < 0)
			continue;
		NODE_FIGS(j, v, i) {
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
			   double *ratios)
{
	int out[64], pos[64], nout, m, n = 0;
	struct np_stats st;

	nout = left_out(j, f, fi, p, out);
	m = p->n - nout;
	if (m < 1)
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

void np_iso_judge_figs(struct np_iso_judge *j)
{
	double *buf = xmalloc(((size_t)j->nfigs + 1) * 2 * sizeof(double));
	int *at = xmalloc(((size_t)j->nfigs + 1) * sizeof(int));
	bool *fresh = xmalloc(((size_t)j->nfigs + 1) * sizeof(bool));
	bool *grew;
	double *ratios;
	int nt = 0, rmax = 0, zn_of = -1;
	double zn = NP_ISO_Z;

	index_nodes(j);
	for (int i = 0; i < j->nfigs; i++) {
		at[i] = -1;
		fresh[i] = false;
		if (j->figs[i].nt > nt)
			nt = j->figs[i].nt;
		if (j->figs[i].round > rmax)
			rmax = j->figs[i].round;
	}
	ratios = xmalloc(((size_t)nt + 1) * sizeof(double));
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
		/* its phase, once for every figure of it that is to be judged */
		phase_make(j, &p, f->round, f->kind, at);
		for (int g = i; g < j->nfigs; g++) {
			struct np_iso_fig *h = &j->figs[g];
			if (h->round != f->round || h->kind != f->kind ||
			    (!grew[PHASE_OF(h)] && h->nref && h->ratio > 0))
				continue;
			if (!fleet_in_phase(j, h, g, &p, ratios))
				fleet_elsewhere(j, h, buf);
			fresh[g] = true;
		}
		phase_free(&p);
	judge:
		if (f->kind == NP_FIG_WORLD)
			continue;
		if (f->nref != zn_of) {
			zn_of = f->nref;
			zn = z_of(zn_of);
		}
		if (f->ratio > 0) /* the same windows: the paired interval decides */
			f->slow = f->ratio_hi < 1 - j->min_effect &&
				  f->busbw < f->ref - zn * f->spread &&
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
#undef PHASE_OF
	j->judged = j->nfigs;
	free(grew);
	free(buf);
	free(at);
	free(fresh);
	free(ratios);
}

/* Per node: below alone, fine in some pair, the distinct partners of its
 * pairs below the fleet that are fine elsewhere. */
struct nodeview {
	int alone, alone_bad, alone_ok, alone_wrong;
	int good_pairs, bad_pairs, wrong_pairs;
	int late_bad;          /* figures below from a confirmation round */
	int late_alone_bad;    /* of them alone (one a round) */
	int late_pair_bad;     /* of them in pairs (one a round: a new partner) */
	int good_partners_bad; /* distinct partners, fine elsewhere, of bad pairs */
	int good_partners;     /* distinct partners of its clearly fine pairs */
};

/* Below alone, and never clearly fine alone. */
static bool inside(const struct nodeview *n)
{
	return n->alone_bad && !n->alone_ok;
}

static void view_nodes(struct np_iso_judge *j, struct nodeview *nv)
{
	memset(nv, 0, (size_t)j->N * sizeof(*nv));
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_ALONE) {
			nv[f->a].alone++;
			nv[f->a].alone_bad += f->bad;
			nv[f->a].alone_ok += f->ok;
			nv[f->a].alone_wrong += f->wrong > 0;
			nv[f->a].late_bad += f->bad && f->round > 2;
			nv[f->a].late_alone_bad += f->bad && f->round > 2;
		} else if (f->kind == NP_FIG_PAIR) {
			for (int k = 0; k < 2; k++) {
				int v = k ? f->b : f->a;
				nv[v].good_pairs += f->ok;
				nv[v].bad_pairs += f->bad;
				nv[v].wrong_pairs += f->wrong > 0;
				nv[v].late_bad += f->bad && f->round > 2;
				nv[v].late_pair_bad += f->bad && f->round > 2;
			}
		}
	}
	index_nodes(j);
	for (int v = 0; v < j->N; v++) {
		/* partners already counted as a bad partner (bp), as a fine one (fp) */
		int nb = 0, nf = 0, deg = j->by_node_at[v + 1] - j->by_node_at[v];
		int *bp = xmalloc(((size_t)deg + 1) * 2 * sizeof(int)), *fp = bp + deg + 1;
		NODE_FIGS(j, v, i) {
			const struct np_iso_fig *f = &j->figs[i];
			int p;
			bool seen;
			if (f->kind != NP_FIG_PAIR || (f->a != v && f->b != v))
				continue;
			p = f->a == v ? f->b : f->a;
			seen = false;
			for (int k = 0; k < nb; k++)
				seen |= bp[k] == p;
			if (f->bad && nv[p].good_pairs > 0 && !inside(&nv[p]) && !seen) {
				bp[nb++] = p;
				nv[v].good_partners_bad++;
			}
			seen = false;
			for (int k = 0; k < nf; k++)
				seen |= fp[k] == p;
			if (f->ok && !seen) {
				fp[nf++] = p;
				nv[v].good_partners++;
			}
		}
		free(bp);
	}
}

/* Below alone and never fine alone, or below with at least as many
 * partners (fine elsewhere) as it was fine with: a majority of partners,
 * not all of them, since one figure of a slow node can come out fine. */
static bool node_suspect(const struct nodeview *n)
{
	return inside(n) || (n->bad_pairs && n->good_partners_bad >= n->good_partners);
}

/* Its network: below with two or more partners that are fine elsewhere,
 * more than it was fine with. */
static bool network_bad(const struct nodeview *n)
{
	return n->good_partners_bad >= 2 && n->good_partners_bad > n->good_partners;
}

static bool paired_before(struct np_iso_judge *j, int a, int b)
{
	index_nodes(j);
	NODE_FIGS(j, a, i) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_PAIR && ((f->a == a && f->b == b) || (f->a == b && f->b == a)))
			return true;
	}
	return false;
}

/* Figures of pair a-b below the fleet (bad) or clearly fine (!bad); with
 * late, only those of confirmation rounds. */
static int count_pair(struct np_iso_judge *j, int a, int b, bool bad, bool late)
{
	int n = 0;

	index_nodes(j);
	NODE_FIGS(j, a, i) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_PAIR && ((f->a == a && f->b == b) || (f->a == b && f->b == a)) &&
		    (bad ? f->bad : f->ok) && (!late || f->round > 2))
			n++;
	}
	return n;
}

/* Every figure of pair a-b. */
static int pair_figures(struct np_iso_judge *j, int a, int b)
{
	int n = 0;

	index_nodes(j);
	NODE_FIGS(j, a, i) {
		const struct np_iso_fig *f = &j->figs[i];
		n += f->kind == NP_FIG_PAIR && ((f->a == a && f->b == b) || (f->a == b && f->b == a));
	}
	return n;
}

static bool link_named(const struct np_iso_judge *j, int a, int b)
{
	for (int i = 0; i < j->nlinks; i++)
		if ((j->links[i].a == a && j->links[i].b == b) ||
		    (j->links[i].a == b && j->links[i].b == a))
			return true;
	return false;
}

/* The figures of node v (and of pair v-p) as evidence text. */
static void evidence_of(const struct np_iso_judge *j, int v, int p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < j->nfigs && off < len; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		int n;
		if (f->kind == NP_FIG_WORLD || (f->a != v && f->b != v))
			continue;
		if (p >= 0 && !(f->kind == NP_FIG_PAIR && (f->a == p || f->b == p)))
			continue;
		if (f->kind == NP_FIG_ALONE)
			n = snprintf(buf + off, len - off, "%sround %d alone %.3g GB/s",
				     off ? "; " : "", f->round, f->busbw);
		else
			n = snprintf(buf + off, len - off, "%sround %d with %s %.3g GB/s",
				     off ? "; " : "", f->round,
				     j->names[f->a == v ? f->b : f->a], f->busbw);
		if (n > 0)
			off += (size_t)n;
		if (f->wrong)
			n = snprintf(buf + off < buf + len ? buf + off : buf + len - 1,
				     off < len ? len - off : 1, " (wrong data)");
		else if (f->ratio > 0)
			n = snprintf(buf + off < buf + len ? buf + off : buf + len - 1,
				     off < len ? len - off : 1, ", %.2f [%.2f-%.2f] of its round's fleet%s",
				     f->ratio, f->ratio_lo, f->ratio_hi, f->bad ? " (below)" : "");
		else if (f->nref)
			n = snprintf(buf + off < buf + len ? buf + off : buf + len - 1,
				     off < len ? len - off : 1, " [%.3g-%.3g] vs fleet %.3g%s",
				     f->lo, f->hi, f->ref, f->bad ? " (below)" : "");
		else
			n = 0;
		if (n > 0)
			off += (size_t)n;
	}
}

/* Name what the figures prove; returns how many suspects still need a
 * confirmation round. */
int np_iso_decide(struct np_iso_judge *j, bool final)
{
	struct nodeview *nv = calloc((size_t)j->N, sizeof(*nv));
	int open = 0;

	if (!nv)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	np_iso_judge_figs(j);
	view_nodes(j, nv);
	for (int v = 0; v < j->N; v++) {
		struct nodeview *n = &nv[v];
		bool net = network_bad(n);
		if (j->state[v] != NP_NODE_OK || !node_suspect(n))
			continue;
		/* wrong data named when wrong again in a confirmation round;
		 * slowness only when below in NP_ISO_CONFIRMS of them (alone,
		 * or with a new partner each): a figure's own offset puts a
		 * healthy group past --min-effect now and then, with p a
		 * figure, so among N nodes about 3 N p come out suspects after
		 * rounds 1 and 2; one confirmation leaves about 3 N p^2 healthy
		 * nodes named a run, two 3 N p^3 (a Bonferroni correction over
		 * the fleet paid in rounds, not in a wider threshold, which
		 * heavy tails would defeat) */
		if (n->late_bad && (n->alone_wrong >= 2 || (n->wrong_pairs >= 2 && net)))
			j->state[v] = NP_NODE_BAD_DATA;
		else if (inside(n) && n->late_alone_bad >= NP_ISO_CONFIRMS)
			j->state[v] = NP_NODE_BAD_INSIDE;
		else if (!inside(n) && net && n->late_pair_bad >= NP_ISO_CONFIRMS)
			j->state[v] = NP_NODE_BAD_NETWORK;
		if (j->state[v] != NP_NODE_OK) {
			evidence_of(j, v, -1, j->evidence[v], sizeof(j->evidence[v]));
		} else if (!final) {
			open++;
		} else {
			char ev[512];
			evidence_of(j, v, -1, ev, sizeof(ev));
			judge_note(j, "node %s was below the fleet but not named (not below in %d confirmation rounds, with new partners, in %d rounds): %.140s",
				 j->names[v], NP_ISO_CONFIRMS, j->rounds, ev);
		}
	}
	/* links: a pair below, then again in NP_ISO_CONFIRMS confirmation
	 * rounds, while both ends are fine elsewhere */
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		int a = f->a, b = f->b;
		if (f->kind != NP_FIG_PAIR || !f->bad || link_named(j, a, b))
			continue;
		if (j->state[a] != NP_NODE_OK || j->state[b] != NP_NODE_OK)
			continue;
		if (j->N == 2 && !inside(&nv[a]) && !inside(&nv[b])) {
			/* one possible partner: a node's network and the link are one */
		} else if (!(nv[a].good_pairs && nv[b].good_pairs && !inside(&nv[a]) &&
			     !inside(&nv[b]))) {
			continue;
		} else if (node_suspect(&nv[a]) || node_suspect(&nv[b])) {
			open += !final; /* an end's own network first */
			continue;
		}
		if (count_pair(j, a, b, false, false))
			continue; /* fine when measured again: a passing disturbance */
		/* below in NP_ISO_CONFIRMS confirmation rounds too, as a node */
		if (count_pair(j, a, b, true, true) < NP_ISO_CONFIRMS) {
			open += !final;
			continue;
		}
		j->links = realloc(j->links, (size_t)(j->nlinks + 1) * sizeof(*j->links));
		if (!j->links)
			np_abort(NP_EXIT_RUNTIME, "out of memory");
		j->links[j->nlinks].a = a;
		j->links[j->nlinks].b = b;
		evidence_of(j, a, b, j->links[j->nlinks].why, sizeof(j->links[0].why));
		j->nlinks++;
	}
	free(nv);
	return open;
}

/* Rounds 1 and 2: node i with i^1, then with its other ring neighbour
 * (odd N: one node sits out, a different one each round). */
void np_iso_plan_matching(int N, int round, int *part)
{
	int shift = round == 1 ? 0 : 1;

	for (int v = 0; v < N; v++)
		part[v] = -1;
	for (int k = 0; 2 * k + 1 < N; k++) {
		int a = (2 * k + shift) % N, b = (2 * k + 1 + shift) % N;
		if (N == 2 && round == 2)
			break; /* one pair only: measured again in round 2 */
		part[a] = part[b] = k;
	}
	if (N == 2)
		part[0] = part[1] = 0;
}

/* A confirmation round: each open suspect link measured again, each open
 * suspect node with a partner it has not had that is good elsewhere;
 * suspects bad alone measured alone again. Returns whether anything runs. */
bool np_iso_plan_confirm(struct np_iso_judge *j, int *part, int *alone)
{
	struct nodeview *nv = calloc((size_t)j->N, sizeof(*nv));
	bool *used = calloc((size_t)j->N, sizeof(bool));
	int g = 0;
	bool any = false;

	if (!nv || !used)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	np_iso_judge_figs(j);
	view_nodes(j, nv);
	for (int v = 0; v < j->N; v++)
		part[v] = alone[v] = -1;
	/* suspect links: both ends good elsewhere, bad once */
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind != NP_FIG_PAIR || !f->bad || used[f->a] || used[f->b])
			continue;
		if (node_suspect(&nv[f->a]) || node_suspect(&nv[f->b]))
			continue;
		if (count_pair(j, f->a, f->b, true, true) >= NP_ISO_CONFIRMS ||
		    count_pair(j, f->a, f->b, false, false) ||
		    link_named(j, f->a, f->b))
			continue;
		part[f->a] = part[f->b] = g++;
		used[f->a] = used[f->b] = true;
		any = true;
	}
	for (int v = 0; v < j->N; v++) {
		int best = -1;
		if (j->state[v] != NP_NODE_OK || !node_suspect(&nv[v]) || used[v])
			continue;
		if (j->L > 1) {
			/* alone again too, beside every other node (its fleet) */
			for (int u = 0; u < j->N; u++)
				alone[u] = u;
			any = true;
		}
		/* a new partner, good elsewhere; else the good one it was
		 * measured with least (not the one whose pair was below again
		 * and again); else anyone */
		for (int pass = 0, fewest = 0; pass < 3 && best < 0; pass++)
			for (int k = 1; k < j->N; k++) {
				int p = (v + k) % j->N, n;
				if (used[p] || p == v)
					continue;
				if (pass < 2 && (node_suspect(&nv[p]) || !nv[p].good_pairs))
					continue;
				if (pass == 0 && paired_before(j, v, p))
					continue;
				n = pass == 1 ? pair_figures(j, v, p) : 0;
				if (best < 0 || n < fewest) {
					best = p;
					fewest = n;
				}
				if (pass != 1)
					break;
			}
		if (best >= 0) {
			part[v] = part[best] = g++;
			used[v] = used[best] = true;
			any = true;
		}
	}
	/* the others pair up too: the fleet of this round, measured in the
	 * same windows as the suspects */
	for (int v = 0, prev = -1; any && v < j->N; v++) {
		if (used[v])
			continue;
		if (prev < 0) {
			prev = v;
			continue;
		}
		part[prev] = part[v] = g++;
		used[prev] = used[v] = true;
		prev = -1;
	}
	free(nv);
	free(used);
	return any;
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
				 f->wrong ? "wrong data, " : "", f->busbw, f->lo, f->hi, j->world_floor,
				 j->floor_src, pair_ref);
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
	}
	return "unknown";
}

const char *np_iso_node_state_why(enum np_iso_node_state s)
{
	switch (s) {
	case NP_NODE_OK: return "";
	case NP_NODE_BAD_INSIDE: return "slow inside the node (its GPUs, NVLink, PCIe or CPU)";
	case NP_NODE_BAD_NETWORK: return "fine alone but slow with every partner: its NICs, cables or switch port";
	case NP_NODE_BAD_DATA: return "computes wrong data";
	}
	return "unknown";
}

int np_iso_exit_code(const struct np_iso_judge *j)
{
	bool data = false, any = j->nlinks > 0 || j->fleet[0] || j->scale[0];

	for (int v = 0; v < j->N; v++) {
		data |= j->state[v] == NP_NODE_BAD_DATA;
		any |= j->state[v] != NP_NODE_OK;
	}
	return data ? NP_EXIT_WRONG : any ? NP_EXIT_VERDICT : NP_EXIT_OK;
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
