/* SPDX-License-Identifier: MIT */
/* isolate's judging (src/isolate_judge.h) without MPI: each rule on
 * figures made by hand, and whole runs on a small fleet whose truth is
 * planted (a node slow inside, a node's network, a link, wrong data, the
 * whole fleet, the whole world), driven round by round as isolate does. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/isolate_judge.h"
#include "tap.h"

#include "iso_fixture.h"

/* ---- the rules, one by one ------------------------------------------------ */

/* part[] is a matching: groups of exactly two; returns the nodes that sit out */
static int check_matching(const int *part, int N, bool *ok)
{
	int out = 0;

	for (int v = 0; v < N; v++) {
		int n = 0;
		if (part[v] < 0) {
			out++;
			continue;
		}
		for (int u = 0; u < N; u++)
			n += part[u] == part[v];
		*ok = *ok && n == 2;
	}
	return out;
}

static int partner(const int *part, int N, int v)
{
	for (int u = 0; u < N && part[v] >= 0; u++)
		if (u != v && part[u] == part[v])
			return u;
	return -1;
}

static void test_plan_matching(void)
{
	static const int sizes[] = { 4, 5, 8, 64, 65, 257 };
	int p1[257], p2[257], q[257];
	bool ok = true, two = true, det = true, alike = true;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int N = sizes[i];
		for (uint64_t seed = 0; seed < 5; seed++) {
			np_iso_plan_matching_seed(N, 1, seed, p1);
			np_iso_plan_matching_seed(N, 2, seed, p2);
			int o1 = check_matching(p1, N, &ok), o2 = check_matching(p2, N, &ok);
			ok = ok && o1 == N % 2 && o2 == N % 2;
			for (int v = 0; v < N; v++) {
				int a = partner(p1, N, v), b = partner(p2, N, v);
				/* two partners: never the same one twice, never left out twice */
				two = two && !(a >= 0 && a == b) && !(a < 0 && b < 0);
			}
			np_iso_plan_matching_seed(N, 1, seed, q);
			det = det && !memcmp(p1, q, (size_t)N * sizeof(int));
			np_iso_plan_matching_seed(N, 1, seed + 1000, q);
			for (int v = 0; v < N; v++)
				alike = alike && partner(q, N, v) == partner(p1, N, v);
		}
	}
	tap_ok(ok, "rounds 1 and 2: pairs, and N mod 2 nodes sit out, at 4 to 257 nodes");
	tap_ok(two, "every node has two partners in rounds 1 and 2 (one sits out at most once)");
	tap_ok(det, "the same seed plans the same pairs");
	tap_ok(!alike, "another seed plans other pairs");
	np_iso_plan_matching(64, 1, p1);
	np_iso_plan_matching_seed(64, 1, 0, q);
	tap_ok(!memcmp(p1, q, 64 * sizeof(int)), "np_iso_plan_matching is seed 0");
	np_iso_plan_matching(2, 2, p1);
	tap_ok(p1[0] == 0 && p1[1] == 0, "2 nodes: the one pair again in round 2");

	/* node numbers that follow leaf switches of 32: the pairs do not
	 * (node order made every round-1 pair a same-leaf pair) */
	int same = 0, pairs = 0;
	for (uint64_t seed = 1; seed <= 20; seed++)
		for (int round = 1; round <= 2; round++) {
			np_iso_plan_matching_seed(256, round, seed, p1);
			for (int v = 0; v < 256; v++) {
				int u = partner(p1, 256, v);
				if (u > v) {
					pairs++;
					same += u / 32 == v / 32;
				}
			}
		}
	tap_ok(same * 100 < pairs * 20,
	       "leaves of 32 in node order: %d of %d pairs same-leaf (random: 12%%)", same, pairs);
}

/* The paired rule: below its round's fleet by more than min_effect, and
 * by more than 3 spreads, and below a floor when there is one. */
static void test_paired_rule(void)
{
	struct np_iso_judge j;

	setup(&j, 4, 1, 0, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 0, 1, 100, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 2, 3, 50, 0);
	np_iso_judge_figs(&j);
	tap_is_dbl(j.figs[1].ref, 100, 1e-9, "fleet: the other group of the round (100)");
	tap_is_dbl(j.figs[1].ratio, 0.5, 1e-9, "paired ratio: fleet's time over its own (0.5)");
	tap_ok(j.figs[1].slow && j.figs[1].bad && !j.figs[1].ok, "half its fleet: slow, bad");
	tap_is_dbl(j.figs[0].ratio, 2, 1e-9, "the fast group's ratio: 2");
	tap_ok(!j.figs[0].bad && j.figs[0].ok, "above its fleet: ok");
	np_iso_judge_release(&j);

	/* 3% below: within --min-effect 5%, neither bad nor proven ok */
	setup(&j, 4, 1, 0, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 0, 1, 100, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 2, 3, 97, 0);
	np_iso_judge_figs(&j);
	tap_ok(!j.figs[1].bad, "3%% below, min_effect 5%%: not bad");
	tap_ok(j.figs[1].ok, "3%% below: its interval rules out a 5%% shortfall: ok");
	np_iso_judge_release(&j);

	/* a floor the slow group still reaches: not bad */
	setup(&j, 4, 1, 40, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 0, 1, 100, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 2, 3, 50, 0);
	np_iso_judge_figs(&j);
	tap_ok(!j.figs[1].slow, "half its fleet but above the floor (40): not slow");
	np_iso_judge_release(&j);

	/* a noisy fleet (spread from the MAD): 3 spreads decide */
	setup(&j, 10, 1, 0, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 0, 1, 100, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 2, 3, 100, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 4, 5, 110, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 6, 7, 90, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 8, 9, 80, 0);
	np_iso_judge_figs(&j);
	tap_is_dbl(j.figs[4].ref, 100, 1e-9, "fleet of 4: median 100");
	tap_is_dbl(j.figs[4].spread, 1.4826 * 5, 1e-9, "fleet of 4: spread 1.4826 x MAD (5)");
	tap_ok(j.figs[4].ratio_hi < 0.95 && !j.figs[4].slow,
	       "20%% below but within 3 spreads (77.8): not slow");
	np_iso_judge_release(&j);
}

/* Without a group beside it in its round: another round's fleet is its
 * reference, and only a floor can judge it. */
static void test_unpaired_rule(void)
{
	struct np_iso_judge j;

	setup(&j, 4, 1, 0, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 0, 1, 100, 0);
	add_fig(&j, 2, NP_FIG_PAIR, 2, 3, 50, 0);
	np_iso_judge_figs(&j);
	tap_is_int(j.figs[1].nref, 1, "alone in its round: the other round's group is its fleet");
	tap_ok(j.figs[1].ratio == 0, "no group in its round: no paired ratio");
	tap_ok(!j.figs[1].bad && j.figs[1].ok,
	       "no floor: nothing judges it below, so not bad (ok)");
	np_iso_judge_release(&j);

	setup(&j, 4, 1, 80, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 0, 1, 100, 0);
	add_fig(&j, 2, NP_FIG_PAIR, 2, 3, 50, 0);
	np_iso_judge_figs(&j);
	tap_ok(j.figs[1].bad, "below the floor (80) and its fleet: bad");
	tap_ok(j.figs[0].ok, "above the floor: ok");
	np_iso_judge_release(&j);

	/* a figure sharing a node with every other: the better half of all */
	setup(&j, 3, 1, 0, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 0, 1, 100, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 1, 2, 60, 0);
	add_fig(&j, 2, NP_FIG_PAIR, 0, 2, 80, 0);
	np_iso_judge_figs(&j);
	tap_is_dbl(j.figs[1].ref, 100, 1e-9, "no disjoint group: the better half of the others");
	np_iso_judge_release(&j);
}

/* ---- whole runs on a planted fleet --------------------------------------- */

struct truth {
	double inside[MAXN];     /* a node alone */
	double net[MAXN];        /* its network */
	double link[MAXN][MAXN]; /* between two nodes */
	int wrong;               /* node that computes wrong data, -1 none */
	int failed;              /* node whose groups cannot run, -1 none */
	double world;            /* every node together */
};

static void truth_init(struct truth *t)
{
	for (int a = 0; a < MAXN; a++) {
		t->inside[a] = t->net[a] = 100;
		for (int b = 0; b < MAXN; b++)
			t->link[a][b] = 100;
	}
	t->wrong = -1;
	t->failed = -1;
	t->world = 100;
}

static double min2(double x, double y) { return x < y ? x : y; }

/* A node whose round-1 alone figure noise brings up to its fleet, -1 none */
static int alone_fine_in_round1 = -1;

/* One phase: a figure per group of part, in the order of its first node. */
static void phase(struct np_iso_judge *j, const struct truth *t, const int *part,
		  enum np_iso_fig_kind kind, int round)
{
	for (int v = 0; v < j->N; v++) {
		int a = v, b = -1;
		double bw;
		bool first = part[v] >= 0;
		for (int u = 0; u < v && first; u++)
			first = part[u] != part[v];
		if (!first)
			continue;
		for (int u = v + 1; u < j->N; u++)
			if (part[u] == part[v])
				b = u;
		if (kind == NP_FIG_WORLD) {
			add_fig(j, round, kind, -1, -1, t->world, 0);
			return;
		}
		bw = t->inside[a];
		if (kind == NP_FIG_ALONE && round == 1 && a == alone_fine_in_round1)
			bw = 100;
		if (b >= 0) {
			bw = min2(bw, min2(t->inside[b], min2(t->net[a], t->net[b])));
			bw = min2(bw, t->link[a][b]);
		}
		if (t->failed >= 0 && (t->failed == a || t->failed == b)) {
			/* as isolate records a group that could not run: no figures */
			struct np_iso_fig f;
			memset(&f, 0, sizeof(f));
			f.round = round;
			f.kind = kind;
			f.a = a;
			f.b = b;
			f.wrong = 1;
			f.failed = true;
			np_iso_fig_add(j, &f);
			continue;
		}
		add_fig(j, round, kind, a, b, bw,
			t->wrong >= 0 && (t->wrong == a || t->wrong == b));
	}
}

static bool any(const int *p, int N)
{
	for (int v = 0; v < N; v++)
		if (p[v] >= 0)
			return true;
	return false;
}

/* isolate's rounds: 1 and 2 (alone, pairs, the world), then up to 4
 * confirmation rounds while suspects are open; the final verdict. */
static void run(struct np_iso_judge *j, const struct truth *t)
{
	int part[MAXN], alone[MAXN], extra = 0;

	for (int round = 1; round <= 2; round++) {
		if (round == 1 && j->L > 1) {
			for (int v = 0; v < j->N; v++)
				alone[v] = v;
			phase(j, t, alone, NP_FIG_ALONE, round);
		}
		np_iso_plan_matching(j->N, round, part);
		phase(j, t, part, NP_FIG_PAIR, round);
		if (round == 2) {
			for (int v = 0; v < j->N; v++)
				part[v] = 0;
			phase(j, t, part, NP_FIG_WORLD, round);
		}
		j->rounds = round;
	}
	while (extra < 4 && np_iso_decide(j, false) > 0 && np_iso_plan_confirm(j, part, alone)) {
		extra++;
		j->rounds++;
		if (any(alone, j->N))
			phase(j, t, alone, NP_FIG_ALONE, j->rounds);
		if (any(part, j->N))
			phase(j, t, part, NP_FIG_PAIR, j->rounds);
	}
	np_iso_decide(j, true);
	np_iso_judge_fleet(j);
}

static void test_run_good(void)
{
	struct np_iso_judge j;
	struct truth t;

	truth_init(&t);
	setup(&j, 4, 2, 0, 0);
	run(&j, &t);
	tap_is_int(named(&j) + j.nlinks, 0, "a good fleet: nothing named");
	tap_is_int(j.rounds, 2, "a good fleet: no confirmation round");
	tap_is_int(np_iso_exit_code(&j), 0, "a good fleet: exit 0");
	tap_ok(!j.fleet[0] && !j.scale[0], "a good fleet: no fleet or scale finding");
	tap_is_dbl(np_iso_floor_of_run(&j), 95, 1e-9, "its baseline floor: 100 less 5%%");
	tap_is_dbl(np_iso_world_floor_of_run(&j), 50, 1e-9, "its world floor: half the world's");
	tap_ok(np_iso_node_measured(&j, 3), "every node is measured");
	np_iso_judge_release(&j);
}

static void test_run_network(void)
{
	struct np_iso_judge j;
	struct truth t;

	truth_init(&t);
	t.net[3] = 50;
	setup(&j, 4, 1, 0, 0);
	run(&j, &t);
	tap_is_str(np_iso_node_state_str(j.state[3]), "bad-network",
		   "slow with every partner, fine partners elsewhere: its network");
	tap_is_int(named(&j), 1, "only that node is named");
	tap_is_int(j.nlinks, 0, "no link is named");
	tap_ok(j.rounds >= 3, "named after a confirmation round (%d rounds)", j.rounds);
	tap_ok(strstr(j.evidence[3], "with n") != NULL, "its evidence lists its partners: '%.60s'",
	       j.evidence[3]);
	tap_is_int(np_iso_exit_code(&j), 1, "exit 1");
	{
		char why[256];
		np_iso_node_why(&j, 3, why, sizeof(why));
		tap_ok(strstr(why, "never measured alone") && !strstr(why, "fine alone"),
		       "one rank per node: never 'fine alone', it was never measured alone: '%.60s'",
		       why);
		np_iso_node_why(&j, 0, why, sizeof(why));
		tap_is_str(why, "", "a node not named has no why");
	}
	np_iso_judge_release(&j);

	/* two ranks per node: measured alone, and fine there */
	truth_init(&t);
	t.net[3] = 50;
	setup(&j, 4, 2, 0, 0);
	run(&j, &t);
	{
		char why[256];
		np_iso_node_why(&j, 3, why, sizeof(why));
		tap_ok(j.state[3] == NP_NODE_BAD_NETWORK && strstr(why, "fine alone"),
		       "two ranks per node, fine alone: 'fine alone' ('%.50s')", why);
	}
	np_iso_judge_release(&j);

	/* the same figures without a confirmation round: not named, a note */
	truth_init(&t);
	t.net[3] = 50;
	setup(&j, 4, 1, 0, 0);
	for (int round = 1; round <= 2; round++) {
		int part[MAXN];
		np_iso_plan_matching(4, round, part);
		phase(&j, &t, part, NP_FIG_PAIR, round);
		j.rounds = round;
	}
	tap_ok(np_iso_decide(&j, false) > 0, "below in rounds 1 and 2: a suspect, still open");
	tap_is_int(j.state[3], NP_NODE_OK, "not named before a confirmation round");
	np_iso_decide(&j, true);
	tap_is_int(j.state[3], NP_NODE_OK, "final without confirmation: not named");
	tap_is_int(nnotes, 1, "but noted");
	tap_ok(strstr(last_note, "node n3 was below the fleet but not named") != NULL,
	       "the note names it: '%.60s'", last_note);
	np_iso_judge_release(&j);
}

static void test_run_inside(void)
{
	struct np_iso_judge j;
	struct truth t;

	truth_init(&t);
	t.inside[2] = 50;
	setup(&j, 4, 2, 0, 0);
	run(&j, &t);
	tap_is_str(np_iso_node_state_str(j.state[2]), "bad-inside",
		   "slow alone, again in %d confirmation rounds: inside the node", NP_ISO_CONFIRMS);
	tap_is_int(j.rounds, 2 + NP_ISO_CONFIRMS, "named after %d confirmation rounds",
		   NP_ISO_CONFIRMS);
	tap_is_int(named(&j) + j.nlinks, 1, "only that node is named");
	tap_is_str(np_iso_node_state_why(j.state[2]),
		   "slow inside the node (its GPUs, NVLink, PCIe or CPU)", "and why, for people");
	np_iso_judge_release(&j);

	/* its round-1 alone figure at its fleet (another job's noise), every
	 * later one below: below alone more often than fine, still inside */
	truth_init(&t);
	t.inside[2] = 50;
	setup(&j, 4, 2, 0, 0);
	alone_fine_in_round1 = 2;
	run(&j, &t);
	alone_fine_in_round1 = -1;
	tap_is_str(np_iso_node_state_str(j.state[2]), "bad-inside",
		   "fine alone once, below alone in %d confirmation rounds: inside, not its network",
		   NP_ISO_CONFIRMS);
	tap_is_int(named(&j) + j.nlinks, 1, "  only that node is named");
	np_iso_judge_release(&j);

	/* below alone in one confirmation round only: still a suspect */
	truth_init(&t);
	t.inside[2] = 50;
	setup(&j, 4, 2, 0, 0);
	for (int round = 1; round <= 3; round++) {
		int part[MAXN], alone[MAXN];
		for (int v = 0; v < 4; v++)
			alone[v] = v;
		if (round == 3)
			tap_ok(np_iso_decide(&j, false) > 0 && np_iso_plan_confirm(&j, part, alone),
			       "below alone in round 1: a confirmation round planned");
		else
			np_iso_plan_matching(4, round, part);
		if (round != 2)
			phase(&j, &t, alone, NP_FIG_ALONE, round);
		phase(&j, &t, part, NP_FIG_PAIR, round);
		j.rounds = round;
	}
	tap_ok(np_iso_decide(&j, false) > 0 && j.state[2] == NP_NODE_OK,
	       "below alone again in one confirmation round: not named yet, still open");
	np_iso_judge_release(&j);
}

static void test_run_link(void)
{
	struct np_iso_judge j;
	struct truth t;

	truth_init(&t);
	t.link[0][1] = t.link[1][0] = 50;
	setup(&j, 4, 1, 0, 0);
	run(&j, &t);
	tap_is_int(named(&j), 0, "a slow link: no node named");
	tap_is_int(j.nlinks, 1, "a slow link: one link named");
	tap_ok(j.nlinks == 1 && ((j.links[0].a == 0 && j.links[0].b == 1) ||
				 (j.links[0].a == 1 && j.links[0].b == 0)),
	       "the link 0-1");
	tap_is_int(np_iso_exit_code(&j), 1, "exit 1");
	np_iso_judge_release(&j);

	/* two nodes: their one pair is its own fleet, so below a floor it is
	 * the fleet that is below, and nobody is accused */
	truth_init(&t);
	t.link[0][1] = t.link[1][0] = 50;
	setup(&j, 2, 1, 80, 0);
	run(&j, &t);
	tap_is_int(named(&j) + j.nlinks, 0, "2 nodes below a floor: no node or link named");
	tap_ok(strstr(j.fleet, "the whole fleet is below the floor") == j.fleet,
	       "2 nodes below a floor: the fleet finding");
	np_iso_judge_release(&j);
}

static void test_run_wrong(void)
{
	struct np_iso_judge j;
	struct truth t;

	truth_init(&t);
	t.wrong = 1;
	setup(&j, 4, 2, 0, 0);
	run(&j, &t);
	tap_is_str(np_iso_node_state_str(j.state[1]), "wrong-data", "wrong data alone, twice");
	tap_is_int(named(&j), 1, "only that node is named");
	tap_is_int(np_iso_exit_code(&j), 2, "wrong data: exit 2");
	np_iso_judge_release(&j);

	/* a node whose groups could not run, alone and with partners: it is
	 * named for that, not for wrong data it never computed */
	truth_init(&t);
	t.failed = 1;
	setup(&j, 4, 2, 0, 0);
	run(&j, &t);
	{
		char why[256];
		np_iso_node_why(&j, 1, why, sizeof(why));
		tap_is_str(np_iso_node_state_str(j.state[1]), "could-not-run",
			   "could not run, again: could-not-run, not wrong-data");
		tap_ok(strstr(j.evidence[1], "(could not run)") != NULL &&
			       strstr(j.evidence[1], "wrong data") == NULL,
		       "its evidence says could not run: '%.80s'", j.evidence[1]);
		tap_ok(strstr(why, "could not run") == why, "and why, for people: '%s'", why);
	}
	tap_is_int(named(&j), 1, "only that node is named");
	tap_is_int(np_iso_exit_code(&j), 1, "a node named, no wrong data: exit 1");
	np_iso_judge_release(&j);
}

static void test_run_fleet_scale(void)
{
	struct np_iso_judge j;
	struct truth t;

	truth_init(&t);
	for (int v = 0; v < MAXN; v++)
		t.net[v] = 50;
	setup(&j, 4, 1, 80, 80);
	snprintf(j.floor_src, sizeof(j.floor_src), "--min-busbw");
	run(&j, &t);
	tap_is_int(named(&j) + j.nlinks, 0, "every node alike below the floor: no node named");
	tap_ok(strstr(j.fleet,
		      "the whole fleet is below the floor: median 50 GB/s, floor 80 GB/s (--min-busbw)") ==
		       j.fleet,
	       "the fleet finding: '%.70s'", j.fleet);
	tap_is_int(np_iso_exit_code(&j), 1, "exit 1");
	np_iso_judge_release(&j);

	truth_init(&t);
	t.world = 30;
	setup(&j, 4, 1, 0, 60);
	run(&j, &t);
	tap_is_int(named(&j) + j.nlinks, 0, "only the whole world slow: no node named");
	tap_ok(!j.fleet[0], "pairs fine: no fleet finding");
	tap_ok(strstr(j.scale, "every node together: 30 GB/s") == j.scale,
	       "the scale finding: '%.50s'", j.scale);
	for (int i = 0; i < j.nfigs; i++)
		if (j.figs[i].kind == NP_FIG_WORLD)
			tap_ok(j.figs[i].bad && j.figs[i].ref == 100,
			       "the world figure: below its floor, beside the pairs' 100");
	tap_is_int(np_iso_exit_code(&j), 1, "exit 1");
	np_iso_judge_release(&j);
}

/* A figure whose batches alternate between times t0 and t1 */
static void add_fig2(struct np_iso_judge *j, int round, int a, int b, double t0, double t1)
{
	struct np_iso_fig f;

	memset(&f, 0, sizeof(f));
	f.round = round;
	f.kind = NP_FIG_PAIR;
	f.a = a;
	f.b = b;
	f.busbw = 2 / (t0 + t1);
	f.lo = 1 / (t0 > t1 ? t0 : t1);
	f.hi = 1 / (t0 < t1 ? t0 : t1);
	f.samples = f.nt = NT;
	f.t = malloc(NT * sizeof(double));
	for (int k = 0; k < NT; k++)
		f.t[k] = k % 2 ? t1 : t0;
	np_iso_fig_add(j, &f);
}

/* Figures neither below nor fine: nothing named, and no ok either */
static void test_inconclusive(void)
{
	struct np_iso_judge j;

	setup(&j, 8, 1, 0, 0);
	add_fig2(&j, 1, 0, 1, 0.01, 0.01);
	add_fig2(&j, 1, 2, 3, 0.01, 0.01);
	add_fig2(&j, 1, 4, 5, 0.01, 0.01);
	add_fig2(&j, 1, 6, 7, 0.01, 0.04); /* 4x slow in half its batches */
	add_fig2(&j, 2, 1, 2, 0.01, 0.01);
	add_fig2(&j, 2, 3, 4, 0.01, 0.01);
	add_fig2(&j, 2, 5, 6, 0.01, 0.04);
	add_fig2(&j, 2, 7, 0, 0.01, 0.04);
	j.rounds = 2;
	np_iso_decide(&j, true);
	np_iso_judge_fleet(&j);
	tap_is_int(named(&j) + j.nlinks, 0, "intervals from 0.25 to 1 of the fleet: nobody named");
	tap_ok(j.inconclusive[0] != '\0', "... and not cleared: '%.90s'", j.inconclusive);
	tap_ok(strstr(j.inconclusive, "2 nodes could be neither named nor cleared") &&
		       strstr(j.inconclusive, "n6"),
	       "the inconclusive finding counts and names them");
	tap_is_int(np_iso_exit_code(&j), 6, "exit 6, inconclusive: not 0, not a name");
	np_iso_judge_release(&j);

	/* the same fleet with every figure tight: cleared, exit 0 */
	setup(&j, 8, 1, 0, 0);
	for (int round = 1; round <= 2; round++)
		for (int v = round - 1; v < 8 + round - 1; v += 2)
			add_fig2(&j, round, v % 8, (v + 1) % 8, 0.01, v % 3 ? 0.0101 : 0.01);
	j.rounds = 2;
	np_iso_decide(&j, true);
	tap_ok(!j.inconclusive[0] && np_iso_exit_code(&j) == 0,
	       "tight figures: cleared, exit 0 ('%.60s')", j.inconclusive);
	np_iso_judge_release(&j);
}

/* A link below in round 1, fine when measured again: not named, said */
static void test_link_intermittent(void)
{
	struct np_iso_judge j;

	setup(&j, 4, 1, 0, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 0, 1, 50, 0);
	add_fig(&j, 1, NP_FIG_PAIR, 2, 3, 100, 0);
	add_fig(&j, 2, NP_FIG_PAIR, 1, 2, 100, 0);
	add_fig(&j, 2, NP_FIG_PAIR, 3, 0, 100, 0);
	add_fig(&j, 3, NP_FIG_PAIR, 0, 1, 100, 0);
	add_fig(&j, 3, NP_FIG_PAIR, 2, 3, 100, 0);
	j.rounds = 3;
	np_iso_decide(&j, true);
	tap_is_int(j.nlinks, 0, "below in round 1, fine in round 3: no link named");
	tap_ok(nnotes >= 1 && strstr(last_note, "link n0-n1 was below the fleet in 1 round") &&
		       strstr(last_note, "intermittent"),
	       "but said, as intermittent: '%.80s'", last_note);
	np_iso_judge_release(&j);
}

/* A link below in round 1 whose ends were each cleared with new partners
 * in rounds 2 and 3 (their own confirmations first), and the run ended
 * before it was measured again: neither named nor cleared (exit 6); a
 * pair first below in the run's last round has its note only (exit 0) */
static void test_link_unmeasured(void)
{
	static const int pairs[3][4][2] = {
		{ { 0, 1 }, { 2, 3 }, { 4, 5 }, { 6, 7 } },
		{ { 1, 2 }, { 3, 4 }, { 5, 6 }, { 7, 0 } },
		{ { 0, 2 }, { 1, 3 }, { 4, 6 }, { 5, 7 } },
	};
	struct np_iso_judge j;

	for (int last = 0; last < 2; last++) {
		setup(&j, 8, 1, 0, 0);
		for (int r = 0; r < 3; r++)
			for (int k = 0; k < 4; k++) {
				int a = pairs[r][k][0], b = pairs[r][k][1];
				/* below: 0-1 in round 1, or 4-6 in round 3 */
				bool slow = last ? (r == 2 && a == 4) : (r == 0 && a == 0);
				add_fig(&j, r + 1, NP_FIG_PAIR, a, b, slow ? 10 : 100, 0);
			}
		j.rounds = 3;
		np_iso_decide(&j, true);
		np_iso_judge_fleet(&j);
		tap_is_int(named(&j) + j.nlinks, 0,
			   last ? "a pair first below in the last round: nobody named"
				: "a pair below in round 1, its ends fine with two new partners each: nobody named");
		if (!last) {
			tap_ok(strstr(j.inconclusive,
				      "link n0-n1 could be neither named nor cleared") &&
				       strstr(j.inconclusive,
					      "not measured again in the rounds after"),
			       "... and the link not cleared: '%.100s'", j.inconclusive);
			tap_is_int(np_iso_exit_code(&j), 6,
				   "exit 6, inconclusive: its ends cleared, not it");
		} else {
			tap_ok(!j.inconclusive[0] &&
				       strstr(all_notes,
					      "link n4-n6 was below the fleet in 1 round"),
			       "... said in a note, not inconclusive ('%.60s')", j.inconclusive);
			tap_is_int(np_iso_exit_code(&j), 0, "exit 0");
		}
		np_iso_judge_release(&j);
	}
}

/* ---- leaves known (np_iso_judge.leaf) ----------------------------------- */

/* 48 nodes on 6 leaves of 8; in round r the leaves pair up as blocks[r]
 * (node k of one leaf with node (k + r) % 8 of the other), so each leaf
 * meets a new one each round; leaf 0 busy (another job): its pairs 70
 * GB/s, the others 100 */
static const int leaf48[48] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
				2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
				4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5 };
static const char leafnames[6][NP_ISO_NAMELEN] = { "sw0", "sw1", "sw2", "sw3", "sw4", "sw5" };

static void busy_leaf(struct np_iso_judge *j, bool told, int rounds)
{
	static const int blocks[4][3][2] = {
		{ { 0, 1 }, { 2, 3 }, { 4, 5 } },
		{ { 0, 2 }, { 1, 4 }, { 3, 5 } },
		{ { 0, 3 }, { 1, 5 }, { 2, 4 } },
		{ { 0, 4 }, { 1, 3 }, { 2, 5 } },
	};

	setup(j, 48, 1, 0, 0);
	if (told) {
		j->leaf = leaf48;
		j->nleaves = 6;
		j->leaf_names = leafnames;
	}
	for (int r = 0; r < rounds; r++)
		for (int b = 0; b < 3; b++)
			for (int k = 0; k < 8; k++) {
				int la = blocks[r][b][0], lb = blocks[r][b][1];
				add_fig(j, r + 1, NP_FIG_PAIR, 8 * la + k, 8 * lb + (k + r) % 8,
					la == 0 || lb == 0 ? 70 : 100, 0);
			}
	j->rounds = rounds;
	if (rounds < 4)
		return;
	np_iso_decide(j, true);
	np_iso_judge_fleet(j);
}

static void test_busy_leaf(void)
{
	struct np_iso_judge j;
	int seg = 0;

	busy_leaf(&j, false, 4);
	/* leaves unknown: node order stands for them; its 8 nodes, 0 to 7,
	 * consecutive, are one segment by node order, none named */
	tap_is_int(named(&j) + j.nlinks, 0,
		   "a busy leaf, leaves unknown: none of its 8 nodes named, no link");
	tap_ok(strstr(j.segment,
		      "nodes n0 to n7 (8 in node order, 8 of them slow only with partners") != NULL,
	       "  one segment finding by node order: '%.100s'", j.segment);
	tap_is_int(np_iso_exit_code(&j), 1, "  exit 1, as a segment finding");
	np_iso_judge_release(&j);

	busy_leaf(&j, true, 4);
	tap_is_int(named(&j) + j.nlinks, 0, "leaves known: none of its nodes named, no link");
	tap_ok(strstr(j.segment, "sw0 (8 nodes: n0 and others)") &&
		       strstr(j.segment, "every round (1, 2, 3, 4), 0.70 of their fleet") &&
		       strstr(j.segment, "switch or fabric segment"),
	       "  one segment finding with its members and ratio: '%.100s'", j.segment);
	tap_ok(!strstr(j.segment, "sw1") && !strstr(j.segment, "sw2"),
	       "  only the busy leaf: its partners' leaves, below with it one round each, are not");
	tap_ok(strstr(last_note, "congestion that comes and goes") != NULL,
	       "  a leaf below with it in one round is a note: '%.80s'", last_note);
	tap_is_int(np_iso_exit_code(&j), 1, "  exit 1 (a finding), no node for a drain");
	for (int i = 0; i < j.nfigs; i++)
		seg += j.figs[i].seg;
	tap_is_int(seg, 32, "  its 32 pairs below are its segment's (seg), neither bad nor ok");
	np_iso_judge_release(&j);

	/* busy in rounds 1 and 2 only so far: a confirmation round of every
	 * node, as for a suspect node; no segment named from two rounds */
	busy_leaf(&j, true, 2);
	{
		int part[48], alone[48], paired = 0;
		tap_ok(np_iso_decide(&j, false) > 0,
		       "a leaf busy in rounds 1 and 2: open, another round asked");
		tap_ok(np_iso_plan_confirm(&j, part, alone), "  a confirmation round is planned");
		for (int v = 0; v < 48; v++)
			paired += part[v] >= 0;
		tap_is_int(paired, 48, "  of every node, paired");
		np_iso_decide(&j, true);
		tap_ok(!j.segment[0] && named(&j) == 0 &&
			       strstr(last_note, "congestion that comes and goes"),
		       "  ended there: a note, no segment, nobody named");
	}
	np_iso_judge_release(&j);
}

/* A pair is compared with pairs of its relation: 8 pairs within leaves at
 * 130 GB/s, 6 across at 100; across leaves is not below when the leaves
 * are known, and is below, all of it, when they are not */
static void test_relation(void)
{
	struct np_iso_judge j;
	int slow;

	for (int told = 0; told < 2; told++) {
		setup(&j, 48, 1, 0, 0);
		if (told) {
			j.leaf = leaf48;
			j.nleaves = 6;
		}
		for (int k = 0; k < 8; k++)
			add_fig(&j, 1, NP_FIG_PAIR, 2 * k, 2 * k + 1, 130,
				0); /* nodes 0-15: leaves 0, 1 */
		for (int k = 0; k < 6; k++)
			add_fig(&j, 1, NP_FIG_PAIR, 16 + k, 40 + k, k == 5 ? 90 : 100, 0);
		j.rounds = 1;
		np_iso_judge_figs(&j);
		slow = 0;
		for (int i = 8; i < 13; i++)
			slow += j.figs[i].slow;
		if (told) {
			tap_is_int(slow, 0,
				   "leaves known: pairs across leaves at 100 compared with theirs, not below");
			tap_ok(j.figs[13].slow,
			       "  the one at 90 across leaves is below its relation's fleet");
		} else {
			tap_is_int(slow, 5,
				   "leaves unknown: pairs across leaves at 100 below the 130 of pairs within one");
		}
		np_iso_judge_release(&j);
	}
}

int main(void)
{
	test_busy_leaf();
	test_relation();
	test_plan_matching();
	test_paired_rule();
	test_unpaired_rule();
	test_inconclusive();
	test_link_intermittent();
	test_link_unmeasured();
	test_run_good();
	test_run_network();
	test_run_inside();
	test_run_link();
	test_run_wrong();
	test_run_fleet_scale();
	return tap_done();
}
