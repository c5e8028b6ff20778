/* SPDX-License-Identifier: MIT */
/* What the fleet's own noise lets isolate name (src/isolate_judge.h):
 * after np_iso_decide has named nodes and links from their figures, the
 * fleet's own pairs, which nothing named explains, say how often a
 * healthy group comes out as low by chance, by their share below the
 * fleet and by their spread; names that chance explains become notes,
 * and with nothing left named the verdict is inconclusive. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "isolate_judge.h"
#include "isolate_judge_internal.h"
#include "stats.h"

/* The pair figures that nothing named explains (neither end named, not a
 * named link, not wrong): how many, and how many below their fleet; and
 * the spread of the log ratio to their fleet (1.4826 MAD: a normal sigma,
 * which the slow figures of a few unnamed nodes do not move) of those
 * pairs and of the alone figures of nodes not named, each 0 when fewer
 * than 4. */
struct fleet_noise {
	int n, below;
	double spread_pair, spread_alone;
};

/* Whether figure f is one that nothing named explains: not wrong, its
 * node (alone) or both ends (a pair) not named, a pair not a named link. */
static bool unexplained(const struct np_iso_judge *j, const struct np_iso_fig *f)
{
	if (f->kind == NP_FIG_WORLD || f->wrong || j->state[f->a] != NP_NODE_OK)
		return false;
	return f->kind != NP_FIG_PAIR ||
	       (j->state[f->b] == NP_NODE_OK && !np_iso_link_named(j, f->a, f->b));
}

static double spread_of(const struct np_iso_judge *j, enum np_iso_fig_kind kind, double *lr)
{
	int m = 0;

	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == kind && unexplained(j, f) && f->ratio > 0 && isfinite(f->ratio))
			lr[m++] = log(f->ratio);
	}
	return m >= 4 ? 1.4826 * np_stats_mad(lr, m, np_stats_median(lr, m)) : 0;
}

static void noise_of(const struct np_iso_judge *j, struct fleet_noise *fn)
{
	double *lr = np_iso_xmalloc(((size_t)j->nfigs + 1) * sizeof(double));

	fn->n = fn->below = 0;
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_PAIR && unexplained(j, f)) {
			fn->n++;
			fn->below += f->bad;
		}
	}
	fn->spread_pair = spread_of(j, NP_FIG_PAIR, lr);
	fn->spread_alone = spread_of(j, NP_FIG_ALONE, lr);
	free(lr);
}

/* The fleet's own false-below rate: of the pair figures that nothing
 * named explains (neither end named, not a named link), the share q below
 * its fleet. A node is named after 1 + NP_ISO_CONFIRMS figures below, so
 * at that rate about N q^(1 + NP_ISO_CONFIRMS) healthy nodes a run come
 * out so by chance (where the noise is the host's or the fabric's, not a
 * node's: another job's load, congestion that moves). q is known only as
 * well as the fleet's pairs show it (3 below of 18 do not tell 5% from 30%), so
 * the count is its expectation over what q can be given k below of n
 * (Jeffreys: q ~ Beta(k + 1/2, n - k + 1/2), whose E[q^m] is the product
 * of (k + 1/2 + i) / (n + 1 + i) over i < m): a small fleet's few pairs
 * must be cleaner than a large fleet's many. Where that is not below
 * NP_ISO_ALPHA, the names for slowness cannot be supported: they become
 * notes and the verdict inconclusive (wrong data stays named: its
 * evidence is exact). */
static double chance_of(int N, int k, int n)
{
	double e = N;

	for (int i = 0; i < 1 + NP_ISO_CONFIRMS; i++)
		e *= (k + 0.5 + i) / (n + 1.0 + i);
	return e;
}

/* The ratio to its fleet of the weakest figure a name needs: of node v's
 * figures below (alone for a node slow inside, pairs for its network) or
 * of link a-b's (v < 0), the (1 + NP_ISO_CONFIRMS)-th lowest, or the
 * highest of fewer. 0 when none has a ratio. */
static double needed_ratio(const struct np_iso_judge *j, int v, int a, int b)
{
	double r[64];
	int m = 0;

	for (int i = 0; i < j->nfigs && m < 64; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		bool mine;
		if (!f->bad || f->wrong || !(f->ratio > 0) || f->kind == NP_FIG_WORLD)
			continue;
		if (v >= 0)
			mine = (f->kind == NP_FIG_ALONE) == (j->state[v] == NP_NODE_BAD_INSIDE) &&
			       (f->a == v || f->b == v);
		else
			mine = f->kind == NP_FIG_PAIR &&
			       ((f->a == a && f->b == b) || (f->a == b && f->b == a));
		if (mine)
			r[m++] = f->ratio;
	}
	if (!m)
		return 0;
	np_sort_doubles(r, m);
	return r[m > NP_ISO_CONFIRMS ? NP_ISO_CONFIRMS : m - 1];
}

/* Healthy nodes a run that a spread puts as far below as ratio r in
 * 1 + NP_ISO_CONFIRMS figures: N P(T < ln r / spread)^(1 + C), T a
 * Student t of 4 degrees of freedom (its cdf 1/2 + 3/4 x (1 - x^2 / 3),
 * x = t / sqrt(t^2 + 4)): the tails of real figures are heavier than a
 * normal's (a neighbour's job, a daemon, a core shared), and a normal's
 * would name the node that one of them caught three times. */
static double spread_chance(const struct np_iso_judge *j, double spread, double r)
{
	double t, x;

	if (!(spread > 0) || !(r > 0))
		return 0;
	t = log(r) / spread;
	x = t / sqrt(t * t + 4);
	return j->N * pow(0.5 + 0.75 * x * (1 - x * x / 3), 1 + NP_ISO_CONFIRMS);
}

/* Names for slowness that the fleet's spread explains: notes, not names. */
static int within_spread(struct np_iso_judge *j, const struct fleet_noise *fn, double *worst,
			 double *worst_spread)
{
	int dropped = 0;

	for (int v = 0; v < j->N; v++) {
		double r, c, spread;
		if (j->state[v] != NP_NODE_BAD_INSIDE && j->state[v] != NP_NODE_BAD_NETWORK)
			continue;
		spread = j->state[v] == NP_NODE_BAD_INSIDE ? fn->spread_alone : fn->spread_pair;
		r = needed_ratio(j, v, -1, -1);
		c = spread_chance(j, spread, r);
		if (c < NP_ISO_ALPHA)
			continue;
		np_iso_note(j,
			    "node %s came out %s, but its figures below (%d needed, the weakest %.2f of its fleet) are within the fleet's own spread (%.0f%%): about %.2f healthy nodes a run come out so by chance: not named: %.200s",
			    j->names[v], np_iso_node_state_str(j->state[v]), 1 + NP_ISO_CONFIRMS, r,
			    100 * expm1(spread), c, j->evidence[v]);
		j->state[v] = NP_NODE_OK;
		j->evidence[v][0] = '\0';
		if (c > *worst) {
			*worst = c;
			*worst_spread = spread;
		}
		dropped++;
	}
	for (int i = 0; i < j->nlinks;) {
		const struct np_iso_link *l = &j->links[i];
		double r = needed_ratio(j, -1, l->a, l->b),
		       c = spread_chance(j, fn->spread_pair, r);
		if (c < NP_ISO_ALPHA) {
			i++;
			continue;
		}
		np_iso_note(j,
			    "link %s-%s came out slow, but its figures below (%d needed, the weakest %.2f of its fleet) are within the fleet's own spread (%.0f%%): not named: %.200s",
			    j->names[l->a], j->names[l->b], 1 + NP_ISO_CONFIRMS, r,
			    100 * expm1(fn->spread_pair), l->why);
		j->links[i] = j->links[--j->nlinks];
		if (c > *worst) {
			*worst = c;
			*worst_spread = fn->spread_pair;
		}
		dropped++;
	}
	return dropped;
}

void np_iso_judge_chance(struct np_iso_judge *j)
{
	struct fleet_noise fn;
	int slow = 0, names, dropped;
	double chance, worst = 0, worst_spread = 0;

	j->chance[0] = '\0';
	noise_of(j, &fn);
	for (int v = 0; v < j->N; v++)
		slow += j->state[v] == NP_NODE_BAD_INSIDE || j->state[v] == NP_NODE_BAD_NETWORK;
	if (!fn.n || (!slow && !j->nlinks))
		return;
	names = slow + j->nlinks;
	chance = chance_of(j->N, fn.below, fn.n);
	if (chance < NP_ISO_ALPHA) {
		dropped = within_spread(j, &fn, &worst, &worst_spread);
		if (dropped)
			snprintf(j->chance, sizeof(j->chance),
				 "%d of %d name%s came out within the spread of the fleet's own figures, which nothing named explains (%.0f%%, 1.4826 MAD of their log ratio to their fleet, against --min-effect %.0f%%), as far below as about %.2f healthy nodes a run come out by chance; measure again on a quieter fabric",
				 dropped, names, names == 1 ? "" : "s", 100 * expm1(worst_spread),
				 100 * j->min_effect, worst);
		return;
	}
	for (int v = 0; v < j->N; v++)
		if (j->state[v] == NP_NODE_BAD_INSIDE || j->state[v] == NP_NODE_BAD_NETWORK) {
			np_iso_note(j,
				    "node %s came out %s, but the fleet's own pairs were below in %d of %d figures: not named: %.200s",
				    j->names[v], np_iso_node_state_str(j->state[v]), fn.below, fn.n,
				    j->evidence[v]);
			j->state[v] = NP_NODE_OK;
			j->evidence[v][0] = '\0';
		}
	for (int i = 0; i < j->nlinks; i++)
		np_iso_note(j,
			    "link %s-%s came out slow, but the fleet's own pairs were below in %d of %d figures: not named: %.200s",
			    j->names[j->links[i].a], j->names[j->links[i].b], fn.below, fn.n,
			    j->links[i].why);
	j->nlinks = 0;
	snprintf(j->chance, sizeof(j->chance),
		 "the fleet's own pairs, which nothing named explains, were below their fleet in %d of %d figures (%.0f%%): at that rate about %.2f healthy nodes a run come out below in %d rounds by chance, so %d name%s could not be supported",
		 fn.below, fn.n, 100.0 * fn.below / fn.n, chance, 1 + NP_ISO_CONFIRMS, names,
		 names == 1 ? "" : "s");
}
