/* SPDX-License-Identifier: MIT */
/* What the fleet's own noise lets isolate name (src/isolate_chance.c) and
 * a node slow only at times (src/isolate_judge.c): whole small runs of
 * figures made by hand, judged as isolate judges them. */
#include "config.h"

#include "iso_fixture.h"
#include "tap.h"

/* A node below in four rounds with four partners fine elsewhere: named on
 * a quiet fleet; on a fleet whose own pairs are below a third of the time
 * (another job's load), not supported: a note, and inconclusive */
static void fleet_with(struct np_iso_judge *j, double others)
{
	static const int pairs[4][4][2] = {
		{ { 3, 2 }, { 0, 1 }, { 4, 5 }, { 6, 7 } },
		{ { 3, 4 }, { 1, 2 }, { 5, 6 }, { 7, 0 } },
		{ { 3, 0 }, { 1, 5 }, { 2, 6 }, { 4, 7 } },
		{ { 3, 6 }, { 0, 2 }, { 1, 7 }, { 4, 5 } },
	};
	/* the pairs without node 3 that are below on the busy fleet */
	static const bool busy[4][4] = {
		{ 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 }, { 0, 0, 1, 0 }
	};

	setup(j, 8, 1, 0, 0);
	for (int r = 0; r < 4; r++)
		for (int g = 0; g < 4; g++)
			add_fig(j, r + 1, NP_FIG_PAIR, pairs[r][g][0], pairs[r][g][1],
				g == 0       ? 50
				: busy[r][g] ? others
					     : 100,
				0);
	j->rounds = 4;
	np_iso_decide(j, true);
}

static void test_fleet_chance(void)
{
	struct np_iso_judge j;

	fleet_with(&j, 100);
	tap_is_str(np_iso_node_state_str(j.state[3]), "bad-network",
		   "a quiet fleet: the slow node is named");
	tap_is_int(np_iso_exit_code(&j), 1, "  exit 1");
	np_iso_judge_release(&j);

	fleet_with(&j, 50);
	tap_is_int(named(&j) + j.nlinks, 0, "its own pairs below 4 times in 12: nobody named");
	tap_ok(strstr(j.inconclusive, "below their fleet in 4 of 12 figures") != NULL,
	       "  inconclusive, with the rate: '%.80s'", j.inconclusive);
	tap_ok(strstr(last_note, "node n3 came out bad-network") != NULL,
	       "  the node is noted: '%.60s'", last_note);
	tap_is_int(np_iso_exit_code(&j), 6, "  exit 6");
	np_iso_judge_release(&j);
}

/* Eight nodes, six rounds, node 3 with a new partner each round; the
 * other pairs of a round at others[r][0..2], node 3's pair at mine[r]. */
static void fleet_rounds(struct np_iso_judge *j, const double mine[6], const double others[6][3])
{
	static const int pairs[6][4][2] = {
		{ { 3, 0 }, { 1, 2 }, { 4, 5 }, { 6, 7 } },
		{ { 3, 1 }, { 0, 2 }, { 4, 6 }, { 5, 7 } },
		{ { 3, 2 }, { 0, 1 }, { 4, 7 }, { 5, 6 } },
		{ { 3, 4 }, { 0, 5 }, { 1, 6 }, { 2, 7 } },
		{ { 3, 5 }, { 0, 4 }, { 1, 7 }, { 2, 6 } },
		{ { 3, 6 }, { 0, 7 }, { 1, 4 }, { 2, 5 } },
	};

	setup(j, 8, 1, 0, 0);
	for (int r = 0; r < 6; r++)
		for (int g = 0; g < 4; g++)
			add_fig(j, r + 1, NP_FIG_PAIR, pairs[r][g][0], pairs[r][g][1],
				g ? others[r][g - 1] : mine[r], 0);
	j->rounds = 6;
	np_iso_decide(j, true);
}

/* Below with four partners that are fine elsewhere, in confirmation
 * rounds too: named for its network; the same node clearly fine with one
 * partner in between was slow only at times (another job's load on its
 * host, a fault that comes and goes): noted, not named, inconclusive */
static void test_slow_at_times(void)
{
	static const double calm[6][3] = { { 100, 100, 100 }, { 100, 100, 100 }, { 100, 100, 100 },
					   { 100, 100, 100 }, { 100, 100, 100 }, { 100, 100, 100 } };
	const double always[6] = { 70, 70, 70, 70, 70, 70 },
		     at_times[6] = { 70, 70, 70, 100, 70, 70 };
	struct np_iso_judge j;

	fleet_rounds(&j, always, calm);
	tap_is_str(np_iso_node_state_str(j.state[3]), "bad-network",
		   "slow with every partner: its network");
	tap_is_int(np_iso_exit_code(&j), 1, "  exit 1");
	np_iso_judge_release(&j);

	fleet_rounds(&j, at_times, calm);
	tap_is_int(named(&j) + j.nlinks, 0,
		   "clearly fine with one partner, below with five: nobody named");
	tap_ok(strstr(all_notes,
		      "node n3 was below with 5 partners that are fine elsewhere, but clearly fine with 1") !=
		       NULL,
	       "  the node is noted, slow at times: '%.200s'", all_notes);
	tap_ok(strstr(j.inconclusive, "n3 was below with 5 partners") != NULL &&
		       strstr(j.inconclusive, "clearly fine with 1"),
	       "  inconclusive, with its figures: '%.120s'", j.inconclusive);
	tap_is_int(np_iso_exit_code(&j), 6, "  exit 6");
	np_iso_judge_release(&j);
}

/* Node 3 12% below its fleet in four rounds, whose own pairs are alike:
 * named. The same node beside a fleet whose pairs scatter by about 17%
 * over the run (rounds 4 and 6; two of those pairs below, too few for
 * the rate alone to refuse the name): a 12% shortfall three times is
 * what that spread gives a healthy node of eight by chance; not named,
 * inconclusive, with the spread. */
static void test_within_spread(void)
{
	const double mine[6] = { 88, 88, 88, 90, 88, 90 };
	static const double alike[6][3] = {
		{ 100, 100, 140 }, { 100, 100, 140 }, { 100, 100, 140 },
		{ 100, 100, 140 }, { 100, 100, 140 }, { 100, 100, 140 }
	};
	static const double scatter[6][3] = { { 100, 100, 140 }, { 100, 100, 140 },
					      { 100, 100, 140 }, { 70, 100, 160 },
					      { 100, 100, 140 }, { 70, 100, 160 } };
	struct np_iso_judge j;

	fleet_rounds(&j, mine, alike);
	tap_is_str(np_iso_node_state_str(j.state[3]), "bad-network",
		   "12%% below, the fleet's pairs alike: named");
	tap_is_int(np_iso_exit_code(&j), 1, "  exit 1");
	np_iso_judge_release(&j);

	fleet_rounds(&j, mine, scatter);
	tap_is_int(named(&j) + j.nlinks, 0,
		   "12%% below, the fleet's pairs scattering by 17%%: nobody named");
	tap_ok(strstr(all_notes,
		      "node n3 came out bad-network, but its figures below (3 needed, the weakest 0.88") !=
			       NULL &&
		       strstr(all_notes, "within the fleet's own spread (17%)") != NULL,
	       "  the node is noted, with the spread: '%.200s'", all_notes);
	tap_ok(strstr(j.inconclusive,
		      "1 of 1 name came out within the spread of the fleet's own figures") != NULL,
	       "  inconclusive, with the spread: '%.160s'", j.inconclusive);
	tap_is_int(np_iso_exit_code(&j), 6, "  exit 6");
	np_iso_judge_release(&j);
}

int main(void)
{
	test_fleet_chance();
	test_slow_at_times();
	test_within_spread();
	return tap_done();
}
