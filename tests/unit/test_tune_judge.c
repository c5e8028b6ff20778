/* SPDX-License-Identifier: MIT */
/* tune's decisions (src/tune_judge.h) on figures made by hand: the
 * paired ratios, when a point has had rounds enough, a cell's verdict,
 * NCCL's choice against a setting, the winner of a point and the
 * candidate to recommend. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../src/tune_judge.h"
#include "tap.h"

static void test_ratios(void)
{
	const double base[3] = { 2e-3, 3e-3, 1e-3 }, cand[3] = { 1e-3, 0, 2e-3 };
	double r[3];

	np_tune_ratios(base, cand, 3, r);
	tap_is_dbl(r[0], 2, 1e-12, "ratio: the baseline's time over the candidate's (faster: 2)");
	tap_ok(isnan(r[1]), "no candidate time: NaN");
	tap_is_dbl(r[2], 0.5, 1e-12, "slower: 0.5");
}

static void test_rounds_done(void)
{
	tap_ok(!np_tune_rounds_done(5, true, 0, 1), "settled at 5 rounds: not yet (no interval)");
	tap_ok(np_tune_rounds_done(6, true, 0, 1), "settled at 6 rounds: done");
	tap_ok(!np_tune_rounds_done(6, false, 0.5, 1), "unsettled within the budget: go on");
	tap_ok(np_tune_rounds_done(6, false, 1, 1), "unsettled, budget spent, an interval: done");
	tap_ok(!np_tune_rounds_done(4, false, 5, 1), "budget spent without an interval: go on");
	tap_ok(np_tune_rounds_done(3, false, 10, 1), "ten budgets spent, 3 rounds: done");
	tap_ok(!np_tune_rounds_done(2, false, 100, 1), "never before 3 rounds");
}

static void test_cell_judge(void)
{
	double r[8];
	struct np_tune_cell cl;

	memset(&cl, 0, sizeof(cl));
	for (int i = 0; i < 8; i++)
		r[i] = 1.2;
	np_tune_cell_judge(&cl, r, 8, 0.05);
	tap_is_str(np_tune_verdict_str(cl.ratio.verdict), "faster", "8 rounds at 1.2x: faster");
	tap_is_dbl(cl.ratio.median, 1.2, 1e-12, "its median ratio 1.2");

	memset(&cl, 0, sizeof(cl));
	cl.same_choice = true;
	for (int i = 0; i < 8; i++)
		r[i] = 1.2;
	np_tune_cell_judge(&cl, r, 8, 0.05);
	tap_is_int(cl.ratio.verdict, NP_TUNE_NONE,
		   "NCCL made the baseline's own calls: no difference");

	memset(&cl, 0, sizeof(cl));
	cl.same_choice = true;
	for (int i = 0; i < 3; i++)
		r[i] = 1.2;
	np_tune_cell_judge(&cl, r, 3, 0.05);
	tap_is_int(cl.ratio.verdict, NP_TUNE_UNDECIDED, "3 rounds: undecided, same choice or not");

	memset(&cl, 0, sizeof(cl));
	for (int i = 0; i < 8; i++)
		r[i] = 1.02;
	np_tune_cell_judge(&cl, r, 8, 0.05);
	tap_is_int(cl.ratio.verdict, NP_TUNE_NONE, "1.02x with --min-change 5%%: no difference");
}

static void cand1(struct np_tune_cand *c, const char *name, const char *value)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->set[0].name, sizeof(c->set[0].name), "%s", name);
	snprintf(c->set[0].value, sizeof(c->set[0].value), "%s", value);
	c->n = 1;
}

static void test_choice(void)
{
	struct np_tune_cand c;
	struct np_tune_cell cl, base;

	memset(&cl, 0, sizeof(cl));
	memset(&base, 0, sizeof(base));
	cand1(&c, "NCCL_PROTO", "LL");
	strcpy(cl.algo, "Ring");
	strcpy(cl.proto, "LL");
	strcpy(base.algo, "Ring");
	strcpy(base.proto, "LL");
	tap_ok(np_tune_choice_same(&c, &cl, &base),
	       "NCCL_PROTO=LL, NCCL chose Ring/LL for both: same");
	strcpy(base.proto, "Simple");
	tap_ok(!np_tune_choice_same(&c, &cl, &base), "the baseline ran Simple: not the same");
	tap_ok(!np_tune_choice_ignores(&c, &cl), "LL asked, LL used: not ignored");
	strcpy(cl.proto, "Simple");
	tap_ok(np_tune_choice_ignores(&c, &cl), "LL asked, Simple used: ignored");
	cl.proto[0] = '\0';
	tap_ok(!np_tune_choice_ignores(&c, &cl), "NCCL's choice unknown: not ignored");
	cand1(&c, "NCCL_MIN_NCHANNELS", "4");
	strcpy(cl.proto, "LL");
	strcpy(base.proto, "LL");
	tap_ok(!np_tune_choice_same(&c, &cl, &base),
	       "a setting other than PROTO/ALGO: never the same");
	tap_ok(!np_tune_choice_same(NULL, &cl, &base), "the baseline itself: not a same choice");
}

static void cell(struct np_tune_cell *cl, enum np_tune_verdict v, double median)
{
	memset(cl, 0, sizeof(*cl));
	cl->ran = true;
	cl->ratio.verdict = v;
	cl->ratio.median = median;
}

static void test_winner(void)
{
	struct np_tune_cell cells[3];
	struct np_tune_point p = { .cells = cells };
	enum np_tune_arm_state st[3] = { NP_TUNE_ARM_OK, NP_TUNE_ARM_OK, NP_TUNE_ARM_OK };

	cell(&cells[0], NP_TUNE_NONE, 0);
	cell(&cells[1], NP_TUNE_FASTER, 1.2);
	cell(&cells[2], NP_TUNE_FASTER, 1.3);
	tap_is_int(np_tune_point_winner(&p, 3, st), 2, "two faster: the larger ratio wins");
	st[2] = NP_TUNE_ARM_REFUSED;
	tap_is_int(np_tune_point_winner(&p, 3, st), 1, "a refused candidate cannot win");
	st[2] = NP_TUNE_ARM_OK;
	cells[2].ignored = true;
	tap_is_int(np_tune_point_winner(&p, 3, st), 1, "a candidate NCCL ignored cannot win");
	cell(&cells[1], NP_TUNE_NONE, 1.4);
	cell(&cells[2], NP_TUNE_UNDECIDED, 1.5);
	tap_is_int(np_tune_point_winner(&p, 3, st), 0, "none significantly faster: the baseline");
}

static void test_recommended(void)
{
	struct np_tune_cell c[3][3];
	struct np_tune_point pts[3];
	enum np_tune_arm_state st[3] = { NP_TUNE_ARM_OK, NP_TUNE_ARM_OK, NP_TUNE_ARM_OK };

	for (int i = 0; i < 3; i++) {
		pts[i] = (struct np_tune_point){ .cells = c[i] };
		cell(&c[i][0], NP_TUNE_NONE, 0);
		cell(&c[i][1], NP_TUNE_FASTER, 1.1);
		cell(&c[i][2], NP_TUNE_NONE, 1.0);
		pts[i].winner = 1;
	}
	tap_is_int(np_tune_recommended(pts, 3, 3, st), 1, "faster at every point: recommended");
	c[2][1].ratio.verdict = NP_TUNE_SLOWER;
	pts[2].winner = 0;
	tap_is_int(np_tune_recommended(pts, 3, 3, st), -1, "slower at one point: not recommended");
	c[2][1].ratio.verdict = NP_TUNE_NONE;
	c[2][1].ignored = true;
	tap_is_int(np_tune_recommended(pts, 3, 3, st), -1,
		   "ignored by NCCL at one point: not recommended");
	c[2][1].ignored = false;
	/* two candidates win as many points: the larger gain */
	c[0][2].ratio = (struct np_tune_ratio){ .verdict = NP_TUNE_FASTER, .median = 1.5 };
	pts[0].winner = 2;
	c[1][2].ratio = (struct np_tune_ratio){ .verdict = NP_TUNE_FASTER, .median = 1.5 };
	pts[1].winner = 2;
	c[2][1].ratio = (struct np_tune_ratio){ .verdict = NP_TUNE_FASTER, .median = 1.1 };
	pts[2].winner = 1;
	tap_is_int(np_tune_recommended(pts, 3, 3, st), 2, "more winning points: recommended");
	st[2] = NP_TUNE_ARM_WRONG;
	tap_is_int(np_tune_recommended(pts, 3, 3, st), 1, "a candidate with wrong data: never");
	tap_is_str(np_tune_arm_state_str(NP_TUNE_ARM_WRONG), "wrong-data", "its state's name");
}

int main(void)
{
	test_ratios();
	test_rounds_done();
	test_cell_judge();
	test_choice();
	test_winner();
	test_recommended();
	return tap_done();
}
