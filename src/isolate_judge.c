/* SPDX-License-Identifier: MIT */
/* isolate's judging (src/isolate_judge.h): nodes and links named from the
 * judged figures, and confirmation rounds planned. The judge's figures,
 * the fleet's floor and the answers read from a judge are
 * src/isolate_judge_data.c; each figure against its fleet is
 * src/isolate_fleet.c. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate_judge.h"
#include "isolate_judge_internal.h"
#include "msg.h"
#include "stats.h"

void np_iso_note(struct np_iso_judge *j, const char *fmt, ...)
{
	char msg[512]; /* the longest note, with a 64-byte node name and 140 bytes of detail, is
			  about 330 */
	va_list ap;

	if (!j->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	j->note(j->note_arg, msg);
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
	int first_bad;         /* the round of its first figure below, 0 none */
};

/* Below alone more often than clearly fine alone: a slow node's one
 * alone figure that noise brought up to its fleet (beside another job on
 * the host's cores) does not make its slowness its network's. */
static bool inside(const struct nodeview *n) { return n->alone_bad > n->alone_ok; }

/* A confirmation round of a node or link first below in round first: a
 * later one, and never round 1 or 2 (a group first below in a
 * confirmation round, as the fleet of it, is confirmed only after) */
static bool confirms(int round, int first) { return round > 2 && round > first; }

static void view_nodes(struct np_iso_judge *j, struct nodeview *nv)
{
	memset(nv, 0, (size_t)j->N * sizeof(*nv));
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		for (int k = 0; k < 2 && f->kind != NP_FIG_WORLD && f->bad; k++) {
			int v = k ? f->b : f->a;
			if (v >= 0 && (!nv[v].first_bad || f->round < nv[v].first_bad))
				nv[v].first_bad = f->round;
		}
	}
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_ALONE) {
			bool late = f->bad && confirms(f->round, nv[f->a].first_bad);
			nv[f->a].alone++;
			nv[f->a].alone_bad += f->bad;
			nv[f->a].alone_ok += f->ok;
			nv[f->a].alone_wrong += f->wrong > 0;
			nv[f->a].late_bad += late;
			nv[f->a].late_alone_bad += late;
		} else if (f->kind == NP_FIG_PAIR) {
			for (int k = 0; k < 2; k++) {
				int v = k ? f->b : f->a;
				bool late = f->bad && confirms(f->round, nv[v].first_bad);
				nv[v].good_pairs += f->ok;
				nv[v].bad_pairs += f->bad;
				nv[v].wrong_pairs += f->wrong > 0;
				nv[v].late_bad += late;
				nv[v].late_pair_bad += late;
			}
		}
	}
	np_iso_index_nodes(j);
	for (int v = 0; v < j->N; v++) {
		/* partners already counted as a bad partner (bp), as a fine one (fp) */
		int nb = 0, nf = 0, deg = j->by_node_at[v + 1] - j->by_node_at[v];
		int *bp = np_iso_xmalloc(((size_t)deg + 1) * 2 * sizeof(int)), *fp = bp + deg + 1;
		NP_ISO_NODE_FIGS (j, v, i) {
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

/* Below with two or more partners that are fine elsewhere, more than it
 * was clearly fine with. */
static bool network_most(const struct nodeview *n)
{
	return n->good_partners_bad >= 2 && n->good_partners_bad > n->good_partners;
}

/* Its network: so, and clearly fine with no partner. A node that
 * delivered its fleet's figure with one partner is not slow for its
 * network: its slowness came and went (another job, a busy host, a fault
 * that comes and goes), which rounds of a few seconds cannot tell apart
 * (see mixed_note). */
static bool network_bad(const struct nodeview *n) { return network_most(n) && !n->good_partners; }

/* Slow at times: not slow inside, below with most partners in
 * confirmation rounds too, and clearly fine with one (mixed_note). */
static bool network_mixed(const struct nodeview *n)
{
	return !inside(n) && network_most(n) && n->good_partners &&
	       n->late_pair_bad >= NP_ISO_CONFIRMS;
}

static bool paired_before(struct np_iso_judge *j, int a, int b)
{
	np_iso_index_nodes(j);
	NP_ISO_NODE_FIGS (j, a, i) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_PAIR &&
		    ((f->a == a && f->b == b) || (f->a == b && f->b == a)))
			return true;
	}
	return false;
}

/* Figures of pair a-b below the fleet (bad) or clearly fine (!bad); with
 * late, only those of confirmation rounds after its first figure below. */
static int count_pair(struct np_iso_judge *j, int a, int b, bool bad, bool late)
{
	int n = 0, first = 0;

	np_iso_index_nodes(j);
	NP_ISO_NODE_FIGS (j, a, i) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_PAIR &&
		    ((f->a == a && f->b == b) || (f->a == b && f->b == a)) && f->bad &&
		    (!first || f->round < first))
			first = f->round;
	}
	NP_ISO_NODE_FIGS (j, a, i) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_PAIR &&
		    ((f->a == a && f->b == b) || (f->a == b && f->b == a)) &&
		    (bad ? f->bad : f->ok) && (!late || confirms(f->round, first)))
			n++;
	}
	return n;
}

/* Every figure of pair a-b. */
static int pair_figures(struct np_iso_judge *j, int a, int b)
{
	int n = 0;

	np_iso_index_nodes(j);
	NP_ISO_NODE_FIGS (j, a, i) {
		const struct np_iso_fig *f = &j->figs[i];
		n += f->kind == NP_FIG_PAIR &&
		     ((f->a == a && f->b == b) || (f->a == b && f->b == a));
	}
	return n;
}

bool np_iso_link_named(const struct np_iso_judge *j, int a, int b)
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
				     off ? "; " : "", f->round, j->names[f->a == v ? f->b : f->a],
				     f->busbw);
		if (n > 0)
			off += (size_t)n;
		if (f->wrong)
			n = snprintf(buf + off < buf + len ? buf + off : buf + len - 1,
				     off < len ? len - off : 1,
				     f->failed ? " (could not run)" : " (wrong data)");
		else if (f->ratio > 0)
			n = snprintf(buf + off < buf + len ? buf + off : buf + len - 1,
				     off < len ? len - off : 1,
				     ", %.2f [%.2f-%.2f] of its round's fleet%s", f->ratio,
				     f->ratio_lo, f->ratio_hi, f->bad ? " (below)" : "");
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

/* Whether a group of node v ran and computed wrong data (not only
 * groups that could not run). */
static bool computed_wrong(struct np_iso_judge *j, int v)
{
	np_iso_index_nodes(j);
	NP_ISO_NODE_FIGS (j, v, i) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind != NP_FIG_WORLD && f->wrong && !f->failed)
			return true;
	}
	return false;
}

/* The first figure of pair a-b below the fleet, or NULL */
static const struct np_iso_fig *pair_first_bad(const struct np_iso_judge *j, int a, int b)
{
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_PAIR && f->bad &&
		    ((f->a == a && f->b == b) || (f->a == b && f->b == a)))
			return f;
	}
	return NULL;
}

/* A link below in some rounds, not named: said at its first figure below */
static void link_note(struct np_iso_judge *j, const struct np_iso_fig *f, const char *why)
{
	int a = f->a, b = f->b, n = count_pair(j, a, b, true, false);
	char ev[512];

	if (f != pair_first_bad(j, a, b))
		return;
	evidence_of(j, a, b, ev, sizeof(ev));
	np_iso_note(j, "link %s-%s was below the fleet in %d round%s, %s; not named: %.200s",
		    j->names[a], j->names[b], n, n == 1 ? "" : "s", why, ev);
}

/* One figure's words: its ratio to its round's fleet and that ratio's
 * interval, or its busbw interval against the fleet or floor */
static void fig_words(const struct np_iso_judge *j, int v, const struct np_iso_fig *f, char *buf,
		      size_t len)
{
	int p = f->a == v ? f->b : f->a;
	const char *who = f->kind == NP_FIG_ALONE ? "alone" : "with ";
	const char *pn = f->kind == NP_FIG_ALONE || p < 0 ? "" : j->names[p];

	if (f->ratio > 0)
		snprintf(buf, len, "round %d %s%s: %.2f [%.2f-%.2f] of its round's fleet", f->round,
			 who, pn, f->ratio, f->ratio_lo, f->ratio_hi);
	else
		snprintf(buf, len, "round %d %s%s: %.3g [%.3g-%.3g] GB/s against %.3g", f->round,
			 who, pn, f->busbw, f->lo, f->hi, f->nref ? f->ref : j->floor);
}

/* With nothing named: nodes slow with most partners and clearly fine
 * with one (mixed_note) are neither named nor cleared. */
static bool mixed_inconclusive(struct np_iso_judge *j)
{
	struct nodeview *nv = np_iso_xmalloc((size_t)j->N * sizeof(*nv));
	int n = 0, first = -1;

	view_nodes(j, nv);
	for (int v = 0; v < j->N; v++)
		if (network_mixed(&nv[v])) {
			first = first < 0 ? v : first;
			n++;
		}
	if (first >= 0)
		snprintf(j->inconclusive, sizeof(j->inconclusive),
			 "%d node%s could be neither named nor cleared: %s was below with %d partners that are fine elsewhere, but clearly fine with %d: slow at times, which rounds of a few seconds cannot tell from a passing disturbance; measure again on a quieter fabric or with a longer --budget",
			 n, n == 1 ? "" : "s", j->names[first], nv[first].good_partners_bad,
			 nv[first].good_partners);
	free(nv);
	return first >= 0;
}

/* With nothing named: a measured node none of whose figures is fine
 * (each interval holds both a shortfall of min_effect and none) can be
 * neither named nor cleared, so the verdict is inconclusive, with the
 * figure that says why. */
static void find_inconclusive(struct np_iso_judge *j)
{
	int n = 0, first = -1;
	const struct np_iso_fig *why = NULL;

	j->inconclusive[0] = '\0';
	for (int v = 0; v < j->N; v++)
		if (j->state[v] != NP_NODE_OK)
			return;
	if (j->nlinks || j->fleet[0] || j->scale[0] || j->segment[0])
		return;
	if (j->chance[0]) {
		snprintf(j->inconclusive, sizeof(j->inconclusive), "%s", j->chance);
		return;
	}
	if (mixed_inconclusive(j))
		return;
	np_iso_index_nodes(j);
	for (int v = 0; v < j->N; v++) {
		const struct np_iso_fig *widest = NULL;
		bool fine = false;
		NP_ISO_NODE_FIGS (j, v, i) {
			const struct np_iso_fig *f = &j->figs[i];
			if (f->kind == NP_FIG_WORLD || (f->a != v && f->b != v) || f->wrong)
				continue;
			fine |= f->ok;
			if (!widest || f->ratio_lo < widest->ratio_lo)
				widest = f;
		}
		if (fine || !widest)
			continue;
		if (first < 0) {
			first = v;
			why = widest;
		}
		n++;
	}
	if (first >= 0) {
		char fw[256];
		fig_words(j, first, why, fw, sizeof(fw));
		snprintf(j->inconclusive, sizeof(j->inconclusive),
			 "%d node%s could be neither named nor cleared: no figure of %s%s is fine (%s; the interval holds a shortfall of %.0f%%, --min-effect, and none): the fleet's noise cannot support a name; measure again on a quieter fabric or with a longer --budget",
			 n, n == 1 ? "" : "s", j->names[first], n > 1 ? " and others" : "", fw,
			 100 * j->min_effect);
		return;
	}
	/* a link below and never fine: neither named nor cleared, whether
	 * measured again (its confirmations' intervals reached the fleet) or
	 * not in the rounds after (its ends' own confirmations, each with new
	 * partners first, took them): its ends fine elsewhere clear them, not
	 * it. (First below in the last round, it has its note only: no round
	 * was left to measure it again, as none is for a node below there.) */
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		char ev[256];
		int seen;
		if (f->kind != NP_FIG_PAIR || !f->bad || f->a < 0 || f->b < 0 ||
		    count_pair(j, f->a, f->b, false, false))
			continue;
		seen = pair_figures(j, f->a, f->b);
		if (seen < 2 && f->round >= j->rounds)
			continue;
		evidence_of(j, f->a, f->b, ev, sizeof(ev));
		snprintf(j->inconclusive, sizeof(j->inconclusive),
			 "link %s-%s could be neither named nor cleared: below, %s and never fine (%.200s): the fleet's noise cannot support a name; measure again on a quieter fabric or with a longer --budget",
			 j->names[f->a], j->names[f->b],
			 seen > 1 ? "then measured again"
				  : "not measured again in the rounds after",
			 ev);
		return;
	}
}

/* Leaf l's rounds with pairs across leaves (measured) and those busy in
 * (busy, listed in rounds) */
static void leaf_rounds(const struct np_iso_judge *j, int l, int *measured, int *busy, char *rounds,
			size_t len)
{
	size_t ro = 0;

	*measured = *busy = 0;
	if (rounds && len)
		rounds[0] = '\0';
	for (int r = 0; j->seg_busy && r <= j->seg_rounds; r++) {
		bool m = false;
		for (int i = 0; i < j->nfigs && !m; i++) {
			const struct np_iso_fig *f = &j->figs[i];
			m = f->round == r && f->kind == NP_FIG_PAIR && f->a >= 0 && f->b >= 0 &&
			    j->leaf[f->a] >= 0 && j->leaf[f->b] >= 0 &&
			    j->leaf[f->a] != j->leaf[f->b] &&
			    (j->leaf[f->a] == l || j->leaf[f->b] == l);
		}
		*measured += m;
		if (m && j->seg_busy[(size_t)r * (size_t)j->nleaves + (size_t)l]) {
			int n = rounds ? snprintf(rounds + ro, len - ro, "%s%d", ro ? ", " : "", r)
				       : 0;
			(*busy)++;
			if (n > 0 && (size_t)n < len - ro)
				ro += (size_t)n;
		}
	}
}

/* Leaves busy in every round that measured them, but in fewer than
 * 1 + NP_ISO_CONFIRMS: a confirmation round tells a busy leaf from a
 * passing burst, as it does a node */
static int leaves_open(const struct np_iso_judge *j)
{
	int open = 0;

	for (int l = 0; j->leaf && j->seg_busy && l < j->nleaves; l++) {
		int measured, busy;
		leaf_rounds(j, l, &measured, &busy, NULL, 0);
		open += busy && busy == measured && measured < 1 + NP_ISO_CONFIRMS;
	}
	return open;
}

static const char *leaf_name(const struct np_iso_judge *j, int l, char *buf, size_t len)
{
	if (j->leaf_names)
		return j->leaf_names[l];
	snprintf(buf, len, "leaf %d", l);
	return buf;
}

/* With leaves known: a leaf busy (np_iso_judge_figs) in every round that
 * measured its pairs across leaves, three or more (a leaf busy in
 * every round so far, fewer, asks for a confirmation round), is one switch or fabric
 * segment finding with its members (j->segment), which names none of
 * them; a leaf busy in some rounds only is a note (congestion that comes
 * and goes: another job, a passing burst). */
static void find_segments(struct np_iso_judge *j)
{
	size_t off = 0;
	int found = 0;

	j->segment[0] = '\0';
	if (!j->leaf || !j->seg_busy)
		return;
	for (int l = 0; l < j->nleaves; l++) {
		int measured, busy, members = 0, seg = 0, first = -1, n;
		double ratio = 0;
		char rounds[96] = "", lb[32];

		leaf_rounds(j, l, &measured, &busy, rounds, sizeof(rounds));
		if (!busy)
			continue;
		/* the ratio of its pairs across leaves below in its busy rounds
		 * (below by their interval: the figures that made it busy) */
		for (int i = 0; i < j->nfigs; i++) {
			const struct np_iso_fig *f = &j->figs[i];
			if (f->kind != NP_FIG_PAIR || f->a < 0 || f->b < 0 || f->wrong ||
			    !(f->ratio > 0) || f->round < 0 || f->round > j->seg_rounds ||
			    j->leaf[f->a] == j->leaf[f->b] ||
			    (j->leaf[f->a] != l && j->leaf[f->b] != l) ||
			    !j->seg_busy[(size_t)f->round * (size_t)j->nleaves + (size_t)l] ||
			    !(f->seg || f->ratio_hi < 1 - j->min_effect))
				continue;
			ratio += f->ratio;
			seg++;
		}
		ratio = seg ? ratio / seg : 0;
		for (int v = 0; v < j->N; v++)
			if (j->leaf[v] == l) {
				members++;
				if (first < 0)
					first = v;
			}
		if (busy < measured || measured < 1 + NP_ISO_CONFIRMS) {
			np_iso_note(j,
				    "%s (%d nodes, %s and others) was below together in round%s %s of %d, its pairs across leaves %.2f of their fleet: congestion that comes and goes (another job, a burst); its nodes are not accused",
				    leaf_name(j, l, lb, sizeof(lb)), members,
				    first >= 0 ? j->names[first] : "?", busy == 1 ? "" : "s",
				    rounds, measured, ratio);
			continue;
		}
		found++;
		n = snprintf(j->segment + off, sizeof(j->segment) - off,
			     "%s%s (%d nodes: %s and others): its pairs across leaves were below together in every round (%s), %.2f of their fleet",
			     off ? "; " : "", leaf_name(j, l, lb, sizeof(lb)), members,
			     first >= 0 ? j->names[first] : "?", rounds, ratio);
		if (n > 0 && (size_t)n < sizeof(j->segment) - off)
			off += (size_t)n;
	}
	if (found) {
		const char *tail =
			": a switch or fabric segment (its uplinks, or another job's traffic through it), not its nodes; none of them is accused";
		if (off + strlen(tail) < sizeof(j->segment))
			strcat(j->segment, tail);
	}
}

/* Without leaves known: nodes named for their network (fine alone, slow
 * with partners) that are consecutive in node order (through gaps of at
 * most NP_ISO_RUN_GAP nodes not named, whose figures came out fine
 * once), NP_ISO_RUN_MIN or more and at most half the fleet (the whole
 * fleet is the fleet finding's), were below together as a segment of the
 * network is (a hostfile's order follows racks and leaves: a congested
 * leaf, another job's traffic through its uplinks), not as many nodes
 * fail at once: one segment finding with the run's ends, and none of
 * them named. A node of the run named for its own figures (alone) stays
 * named. The run's pairs are then the segment's, explained: a node named
 * outside it only for pairs with its members is no longer named. */
#define NP_ISO_RUN_GAP 4
static bool run_member(const struct np_iso_judge *j, int v)
{
	return j->state[v] == NP_NODE_BAD_NETWORK || j->state[v] == NP_NODE_BAD_INSIDE;
}

static void segment_run(struct np_iso_judge *j, int v, int w, int net, size_t *off)
{
	int n;

	for (int k = v; k < w; k++)
		if (j->state[k] == NP_NODE_BAD_NETWORK) {
			j->state[k] = NP_NODE_OK;
			j->evidence[k][0] = '\0';
		}
	for (int i = 0; i < j->nfigs; i++) {
		struct np_iso_fig *f = &j->figs[i];
		if (f->kind == NP_FIG_PAIR && f->bad &&
		    ((f->a >= v && f->a < w) || (f->b >= v && f->b < w))) {
			f->seg = true;
			f->bad = false;
		}
	}
	/* a link with an end in the run, or within a gap of it (a member
	 * whose figures came out fine once), was below with the segment */
	for (int i = 0; i < j->nlinks;) {
		int a = j->links[i].a, b = j->links[i].b, lo = v - NP_ISO_RUN_GAP,
		    hi = w + NP_ISO_RUN_GAP;
		if ((a >= lo && a < hi) || (b >= lo && b < hi)) {
			np_iso_note(j,
				    "link %s-%s was below, but an end of it is in the segment of nodes %s to %s: not named: %.200s",
				    j->names[a], j->names[b], j->names[v], j->names[w - 1],
				    j->links[i].why);
			j->links[i] = j->links[--j->nlinks];
		} else {
			i++;
		}
	}
	n = snprintf(j->segment + *off, sizeof(j->segment) - *off,
		     "%snodes %s to %s (%d in node order, %d of them slow only with partners, fine alone)",
		     *off ? "; " : "", j->names[v], j->names[w - 1], w - v, net);
	if (n > 0 && (size_t)n < sizeof(j->segment) - *off)
		*off += (size_t)n;
}

static void find_runs(struct np_iso_judge *j)
{
	size_t off = strlen(j->segment);
	int found = 0;

	if (j->leaf)
		return;
	for (int v = 0; v < j->N;) {
		int w = v, net = 0, end = v;
		if (!run_member(j, v)) {
			v++;
			continue;
		}
		/* extend through gaps of at most NP_ISO_RUN_GAP; end: past the last member */
		while (w < j->N && w - end <= NP_ISO_RUN_GAP) {
			if (run_member(j, w)) {
				net += j->state[w] == NP_NODE_BAD_NETWORK;
				end = w + 1;
			}
			w++;
		}
		if (net >= NP_ISO_RUN_MIN && 2 * (end - v) <= j->N) {
			segment_run(j, v, end, net, &off);
			found++;
		}
		v = end;
	}
	if (!found)
		return;
	{
		const char *tail =
			": below together as a switch or fabric segment is (a leaf's uplinks, another job's traffic through it), not as many nodes fail at once; none of them is accused (give --topology to judge by leaf)";
		struct nodeview *nv = np_iso_xmalloc((size_t)j->N * sizeof(*nv));
		if (off + strlen(tail) < sizeof(j->segment))
			strcat(j->segment, tail);
		view_nodes(j, nv);
		for (int v = 0; v < j->N; v++)
			if (j->state[v] == NP_NODE_BAD_NETWORK &&
			    !(network_bad(&nv[v]) && nv[v].late_pair_bad >= NP_ISO_CONFIRMS)) {
				np_iso_note(j,
					    "node %s was below with partners of the segment's nodes, not with others enough to name it: %.200s",
					    j->names[v], j->evidence[v]);
				j->state[v] = NP_NODE_OK;
				j->evidence[v][0] = '\0';
			}
		free(nv);
	}
}

/* A node below with most of its partners, in confirmation rounds too,
 * and clearly fine with at least one: said, not named, and with nothing
 * named the verdict is inconclusive (find_inconclusive). */
static void mixed_note(struct np_iso_judge *j, int v, const struct nodeview *n)
{
	char ev[512];

	evidence_of(j, v, -1, ev, sizeof(ev));
	np_iso_note(j,
		    "node %s was below with %d partners that are fine elsewhere, but clearly fine with %d: slow at times (another job, a busy host, or a fault that comes and goes), not named: %.300s",
		    j->names[v], n->good_partners_bad, n->good_partners, ev);
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
		if (n->late_bad &&
		    (n->alone_wrong >= 2 || (n->wrong_pairs >= 2 && network_most(n))))
			j->state[v] = NP_NODE_BAD_DATA;
		else if (inside(n) && n->late_alone_bad >= NP_ISO_CONFIRMS)
			j->state[v] = NP_NODE_BAD_INSIDE;
		else if (!inside(n) && net && n->late_pair_bad >= NP_ISO_CONFIRMS)
			j->state[v] = NP_NODE_BAD_NETWORK;
		if (j->state[v] == NP_NODE_BAD_DATA && !computed_wrong(j, v))
			j->state[v] = NP_NODE_COULD_NOT_RUN;
		if (j->state[v] != NP_NODE_OK) {
			evidence_of(j, v, -1, j->evidence[v], sizeof(j->evidence[v]));
		} else if (!final) {
			open++;
		} else if (network_mixed(n)) {
			mixed_note(j, v, n);
		} else {
			char ev[512];
			evidence_of(j, v, -1, ev, sizeof(ev));
			np_iso_note(j,
				    "node %s was below the fleet but not named (not below in %d confirmation rounds, with new partners, in %d rounds): %.140s",
				    j->names[v], NP_ISO_CONFIRMS, j->rounds, ev);
		}
	}
	/* links: a pair below, then again in NP_ISO_CONFIRMS confirmation
	 * rounds, while both ends are fine elsewhere */
	for (int i = 0; i < j->nfigs; i++) {
		const struct np_iso_fig *f = &j->figs[i];
		int a = f->a, b = f->b;
		if (f->kind != NP_FIG_PAIR || !f->bad || np_iso_link_named(j, a, b))
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
		if (count_pair(j, a, b, false, false)) {
			/* fine when measured again: a passing disturbance, or a
			 * fault that comes and goes; said, never dropped */
			if (final)
				link_note(j, f,
					  "fine in another: intermittent, or a passing disturbance");
			continue;
		}
		/* below in NP_ISO_CONFIRMS confirmation rounds too, as a node */
		if (count_pair(j, a, b, true, true) < NP_ISO_CONFIRMS) {
			if (final)
				link_note(j, f, "not in enough confirmation rounds to name it");
			else
				open++;
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
	if (!final)
		open += leaves_open(j);
	if (final) {
		find_segments(j);
		find_runs(j);
		np_iso_judge_chance(j);
		find_inconclusive(j);
	}
	return open;
}

/* Rounds 1 and 2: node i with i^1, then with its other ring neighbour
 * (odd N: one node sits out, a different one each round). */
/* splitmix64: the random order's generator, the same on every platform */
static uint64_t mix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* order[0..n-1]: a random permutation of order's n entries, from x */
static void shuffle(int *order, int n, uint64_t x)
{
	for (int i = n - 1; i > 0; i--) {
		int k = (int)(mix(&x) % (uint64_t)(i + 1)), t = order[i];
		order[i] = order[k];
		order[k] = t;
	}
}

void np_iso_plan_matching_seed(int N, int round, uint64_t seed, int *part)
{
	int shift = round == 1 ? 0 : 1, *order = np_iso_xmalloc(((size_t)N + 1) * sizeof(int));

	for (int v = 0; v < N; v++) {
		part[v] = -1;
		order[v] = v;
	}
	shuffle(order, N, seed);
	for (int k = 0; 2 * k + 1 < N; k++) {
		int a = order[(2 * k + shift) % N], b = order[(2 * k + 1 + shift) % N];
		if (N == 2 && round == 2)
			break; /* one pair only: measured again in round 2 */
		part[a] = part[b] = k;
	}
	if (N == 2)
		part[0] = part[1] = 0;
	free(order);
}

void np_iso_plan_matching(int N, int round, int *part)
{
	np_iso_plan_matching_seed(N, round, 0, part);
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
		    count_pair(j, f->a, f->b, false, false) || np_iso_link_named(j, f->a, f->b))
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
		uint64_t x = j->seed ^ ((uint64_t)j->rounds << 32) ^ (uint64_t)v;
		int from = j->N > 1 ? (int)(mix(&x) % (uint64_t)(j->N - 1)) : 0;
		for (int pass = 0, fewest = 0; pass < 3 && best < 0; pass++)
			for (int k = 1; k < j->N; k++) {
				int p = (v + 1 + (from + k - 1) % (j->N - 1)) % j->N, n;
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
	/* a leaf busy in every round so far: a round of every node again */
	any |= leaves_open(j) > 0;
	/* the others pair up too, in a random order: the fleet of this
	 * round, measured in the same windows as the suspects */
	if (any) {
		int *rest = np_iso_xmalloc(((size_t)j->N + 1) * sizeof(int)), n = 0;
		for (int v = 0; v < j->N; v++)
			if (!used[v])
				rest[n++] = v;
		shuffle(rest, n, j->seed ^ 0x5eedULL ^ ((uint64_t)j->rounds << 40));
		for (int k = 0; k + 1 < n; k += 2) {
			part[rest[k]] = part[rest[k + 1]] = g++;
			used[rest[k]] = used[rest[k + 1]] = true;
		}
		free(rest);
	}
	free(nv);
	free(used);
	return any;
}
