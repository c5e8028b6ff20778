/* SPDX-License-Identifier: MIT */
/* isolate's judging: which node or link the figures of its rounds prove
 * bad, and which groups the next round measures. Pure functions over
 * measured figures: no MPI, no clock, no output; figures in, verdict out.
 *
 * Use (what nccl-probe isolate does, and what a fleet simulator can do
 * with figures of its own):
 *
 *     struct np_iso_judge j;
 *     np_iso_judge_init(&j, N, L, names, min_effect, floor, world_floor);
 *     j.seed = the run's seed (0 by default: a fixed random order)
 *     j.leaf, j.nleaves (and j.leaf_names) = each node's leaf switch, where
 *         known (NULL by default: none known; isolate's --topology)
 *     for round 1, 2: np_iso_plan_matching_seed(N, round, j.seed, part), measure the
 *         pairs (and with L > 1 every node alone in round 1, the whole
 *         world in round 2), np_iso_fig_add() each figure; j.rounds = round
 *     while (extra < NP_ISO_MAX_CONFIRM && np_iso_decide(&j, false) > 0 &&
 *            np_iso_plan_confirm(&j, part, alone))
 *         measure part (and alone), add the figures, j.rounds++
 *     np_iso_decide(&j, true); np_iso_judge_fleet(&j);
 *     j.state[], j.links, j.fleet, j.scale, j.segment, j.inconclusive,
 *     np_iso_exit_code(&j)
 *     (np_iso_node_why(&j, v, ...) says why node v was named, in words
 *     that its own figures support)
 *     np_iso_judge_release(&j);
 *
 * A figure's batch times t[] pair it with the other groups of its round
 * batch by batch: groups of one round time their batches in the same
 * windows, so t[k] of every group of a round is one window. A figure is
 * not changed once added (but for what judging fills). Judging costs
 * about the figures' batches times their log, whatever N: 16,384 nodes
 * are judged in a second (tests/bench/isolate-sim). Out of memory ends
 * the process (np_abort). */
#ifndef NP_ISOLATE_JUDGE_H
#define NP_ISOLATE_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NP_ISO_NAMELEN 80    /* a node's name, with its terminating NUL */
#define NP_ISO_Z 3.0         /* spreads below the fleet that count as significant, at least */
#define NP_ISO_ALPHA 0.05    /* a figure's chance of a healthy group below, over all its fleet's */
#define NP_ISO_CONFIRMS 2    /* confirmation rounds a slow node or link must be below in */
#define NP_ISO_MAX_CONFIRM 4 /* confirmation rounds at most (the promise: 6 rounds in all) */
/* without leaves: nodes slow with partners, consecutive in node order, that
 * are one segment (np_iso_decide) */
#define NP_ISO_RUN_MIN 8

enum np_iso_fig_kind { NP_FIG_ALONE, NP_FIG_PAIR, NP_FIG_WORLD };

/* One measured group of one round: the measured figures (round, kind,
 * a, b, busbw, lo, hi, wrong, samples, t, nt) are the caller's; the
 * judged ones (ref to ok) np_iso_judge_figs() fills. */
struct np_iso_fig {
	int round;
	enum np_iso_fig_kind kind;
	int a, b;             /* the nodes (b = -1 alone; both -1 for the world) */
	double busbw, lo, hi; /* GB/s, median and its 95% interval */
	uint64_t wrong;
	int samples;
	double ref, spread; /* the fleet it is compared with */
	int nref;
	/* paired with the fleet of its round batch by batch (the same
	 * windows, so load common to all groups cancels): the median ratio
	 * of its busbw to the fleet's and that ratio's 95% interval; 0 when
	 * it has no fleet in its round */
	double ratio, ratio_lo, ratio_hi;
	double *t; /* seconds per iteration of each batch */
	int nt;
	bool slow, bad; /* significantly below the fleet (or wrong data) */
	bool ok;        /* its interval rules out a shortfall of --min-effect */
	/* the group could not run (no figures): the caller sets wrong too,
	 * so that it is judged as a group without right data; a node named
	 * for such figures only is NP_NODE_COULD_NOT_RUN, not wrong data
	 * (false, as a zeroed figure has it, keeps older callers as they were) */
	bool failed;
	/* below, but explained by its leaf's congestion in its round (with
	 * j->leaf: most of the pairs across leaves of one leaf below together
	 * in one round): neither bad nor ok (np_iso_judge_figs fills it) */
	bool seg;
};

/* What the figures prove about a node (np_iso_node_state_str() names it). */
enum np_iso_node_state {
	NP_NODE_OK,            /* not named (which includes not measured) */
	NP_NODE_BAD_INSIDE,    /* below alone more often than fine alone, and in
				* NP_ISO_CONFIRMS confirmation rounds */
	NP_NODE_BAD_NETWORK,   /* fine alone, slow with two or more partners fine elsewhere */
	NP_NODE_BAD_DATA,      /* wrong data, alone or with partners, again */
	NP_NODE_COULD_NOT_RUN, /* as NP_NODE_BAD_DATA, but every such group of it could
				* not run (figures with failed): no data to be wrong */
};

const char *np_iso_fig_kind_str(enum np_iso_fig_kind k);
const char *np_iso_node_state_str(enum np_iso_node_state s);
/* Why a node in that state is bad, for people ("" for NP_NODE_OK). */
const char *np_iso_node_state_why(enum np_iso_node_state s);

/* A link named bad: nodes a and b, and the figures that prove it. */
struct np_iso_link {
	int a, b;
	char why[512];
};

struct np_iso_judge {
	/* the run (np_iso_judge_init) */
	int N; /* nodes, numbered 0 to N-1 */
	int L; /* ranks per node: with L > 1 nodes are measured alone too */
	const char (*names)[NP_ISO_NAMELEN]; /* N names, for evidence and notes (not owned) */
	double min_effect;   /* a shortfall below the fleet worth naming, a fraction */
	double floor;        /* GB/s a group must reach, 0 = none */
	double world_floor;  /* GB/s every node together must reach, 0 = none */
	char floor_src[160]; /* where the floor comes from, for the findings */
	/* the figures, in measurement order (np_iso_fig_add) */
	struct np_iso_fig *figs;
	int nfigs, figs_cap;
	int rounds; /* rounds measured so far: the caller counts them */
	/* the verdict: state and evidence have N entries */
	enum np_iso_node_state *state;
	char (*evidence)[512]; /* the figures that named node v */
	struct np_iso_link *links;
	int nlinks;
	char fleet[512]; /* a finding about every node, "" none */
	char scale[512]; /* a finding about the whole world, "" none */
	/* with nothing named (np_iso_decide with final): why the figures
	 * can neither name a node nor clear it, "" when they clear every
	 * node (np_iso_exit_code: NP_EXIT_INCONCLUSIVE) */
	char inconclusive[512];
	/* (the judge's own) why names found were not supported, "" none */
	char chance[400];
	/* the run's seed: the random order behind every matching and every
	 * confirmation partner, so that partners never follow node order
	 * (where node numbers follow leaf switches, pairs of neighbours would
	 * all be same-leaf pairs); 0 after np_iso_judge_init, which is a
	 * random order too. Report it: the same seed plans the same rounds */
	uint64_t seed;
	/* each node's leaf switch, 0 to nleaves - 1, -1 unknown (N entries,
	 * not owned), or NULL when no leaf is known (the default): with it a
	 * pair is compared with pairs of the same relation (same leaf, across
	 * leaves), and pairs of one leaf below together are its segment's, not
	 * its nodes' (np_iso_judge_figs); leaf_names, NULL or nleaves names */
	const int *leaf;
	int nleaves;
	const char (*leaf_names)[NP_ISO_NAMELEN];
	/* a switch or fabric segment found (np_iso_decide with final): a
	 * leaf whose pairs across leaves were below together in every round
	 * that measured them, its members said; without leaves known, a run
	 * of NP_ISO_RUN_MIN or more nodes slow only with partners that are
	 * consecutive in node order (a hostfile's order follows racks and
	 * leaves), at most half the fleet; "" none. It names no node */
	char segment[768];
	/* what was seen but not named (np_iso_decide with final), or NULL */
	void (*note)(void *arg, const char *msg);
	void *note_arg;
	/* the judge's own: each node's figures (by_node[by_node_at[v]] to
	 * by_node[by_node_at[v + 1]], indices into figs) for the first
	 * indexed figures, and the fleets taken when judged figures were
	 * there: a figure's fleet is taken again only when its round's
	 * groups of its kind changed (or when it has none), so that judging
	 * after each round costs that round, not every round again */
	int *by_node_at, *by_node;
	int indexed, judged;
	/* the judge's own: seg_busy[round * nleaves + leaf], the leaf's pairs
	 * across leaves below together in that round (rounds 0 to seg_rounds) */
	unsigned char *seg_busy;
	int seg_rounds;
};

/* Ready for N nodes of L ranks; floors in GB/s (0 none). Returns false
 * when out of memory. */
bool np_iso_judge_init(struct np_iso_judge *j, int N, int L, const char (*names)[NP_ISO_NAMELEN],
		       double min_effect, double floor, double world_floor);
/* Frees the figures (and their t), the verdict and the links. */
void np_iso_judge_release(struct np_iso_judge *j);
/* Appends a copy of *f; j takes f->t (malloc'd, or NULL). */
void np_iso_fig_add(struct np_iso_judge *j, const struct np_iso_fig *f);

/* Compares every figure but the world's with its fleet: ref and spread
 * (the median and 1.4826 x MAD of the groups of its kind that share no
 * node with it: of its round when there are any, else of every round,
 * else the better half of every other), the paired ratio (per batch the
 * fleet's median time over its own; its median and 95% interval, 0 with
 * fewer than 3 batches), then slow, bad and ok:
 *   paired:   slow = ratio_hi < 1 - min_effect and busbw < ref - z x spread
 *             and (no floor or busbw < floor);  ok = !bad and ratio_lo >= 1 - min_effect
 *             (z: the one-sided normal quantile of NP_ISO_ALPHA / nref, a
 *             Bonferroni correction over the groups compared, at least
 *             NP_ISO_Z)
 *   unpaired: slow = floor and hi < floor and (no fleet or hi < ref (1 - min_effect));
 *             ok = !bad and (no floor or lo >= floor)
 *   bad = slow or wrong data.
 * With j->leaf, a pair's fleet is the pairs of its relation (both ends on
 * one leaf, or across leaves) when it holds 3 or more groups, and a pair
 * across leaves below while at least 3 and half of its round's pairs
 * across leaves of an end's leaf are below (not counting pairs with other
 * such leaves) is seg: neither bad nor ok, its leaf's congestion. */
void np_iso_judge_figs(struct np_iso_judge *j);
/* Judges the figures and names what they prove: a node below alone and
 * never fine alone (bad inside), or below with at least as many partners
 * fine elsewhere as it was fine with, two or more (its network), or wrong
 * data twice; wrong data when wrong again in a confirmation round (round 3
 * on), slowness only when below in NP_ISO_CONFIRMS confirmation rounds
 * (alone, or with a new partner each) after the round it was first below
 * in; a link below, and again in NP_ISO_CONFIRMS confirmation rounds after
 * that, never fine, while both ends are fine elsewhere (with N = 2, while
 * neither is bad alone). Figures seg (a busy leaf's, with j->leaf) count
 * for nobody.
 * Returns how many suspects a confirmation round could still settle;
 * with final, those become notes instead, and (with j->leaf) a leaf busy
 * in every round that measured it, three or more, is j->segment (a leaf
 * busy in some rounds only, a note); then names for slowness that the
 * fleet's own false-below rate cannot support become notes, and with
 * nothing named j->inconclusive says why nothing could be cleared (such
 * as a node none of whose figures is fine, or a pair below and never fine
 * after, measured again or not; one first below in round j->rounds, the
 * last, has a note only). */
int np_iso_decide(struct np_iso_judge *j, bool final);
/* Rounds 1 and 2: part[v] = node v's pair (-1: sits out), from one
 * random order of the nodes drawn from seed: round 1 pairs its places
 * 2k and 2k+1, round 2 its places 2k+1 and 2k+2 (a ring), so every node
 * has two partners that node numbers do not choose (odd N: one node sits
 * out, another each round; N = 2: the one pair in both). */
void np_iso_plan_matching_seed(int N, int round, uint64_t seed, int *part);
/* The same with seed 0 (before seeds, this paired node i with i^1, then
 * with i's other neighbour in node order). */
void np_iso_plan_matching(int N, int round, int *part);
/* A confirmation round: each suspect link measured again, each suspect
 * node with a new partner that is fine elsewhere (else the fine one it had
 * least, else anyone), looked for from a random place (j->seed and the
 * round), and with L > 1 every node alone; the rest paired at random as
 * their fleet. part[v] and alone[v] as above. Returns whether anything
 * is to be measured. */
bool np_iso_plan_confirm(struct np_iso_judge *j, int *part, int *alone);
/* The whole fleet below the floor (j->fleet), and the world figure judged
 * against world_floor only (j->scale): the whole world's busbw differs
 * from a pair's by the fabric's shape, not by a fixed factor. */
void np_iso_judge_fleet(struct np_iso_judge *j);
/* 2 when a node computes wrong data, 1 when anything is named (a segment
 * too), else 6
 * when j->inconclusive says why nothing could be cleared, else 0. */
int np_iso_exit_code(const struct np_iso_judge *j);
/* Why node v was named, in words its figures support: "fine alone" only
 * where it was measured alone and fine; "" for a node not named. */
void np_iso_node_why(const struct np_iso_judge *j, int v, char *buf, size_t len);
/* The floor a later run may take as its --baseline: the lowest interval
 * end of the pairs not below, less min_effect (0 without such pairs). */
double np_iso_floor_of_run(const struct np_iso_judge *j);
/* Half the lower end of the world figure's interval (0 without one). */
double np_iso_world_floor_of_run(const struct np_iso_judge *j);
/* Whether node v is in some figure: a node never measured is unknown. */
bool np_iso_node_measured(const struct np_iso_judge *j, int v);

#endif
