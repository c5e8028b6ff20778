/* SPDX-License-Identifier: MIT */
/* tune's decisions over measured figures (src/tune_judge.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "tune_judge.h"

const char *np_tune_arm_state_str(enum np_tune_arm_state s)
{
	switch (s) {
	case NP_TUNE_ARM_OK: return "measured";
	case NP_TUNE_ARM_REFUSED: return "refused";
	case NP_TUNE_ARM_ERROR: return "error";
	case NP_TUNE_ARM_WRONG: return "wrong-data";
	case NP_TUNE_ARM_HUNG: return "hung";
	}
	return "unknown";
}

void np_tune_ratios(const double *base, const double *cand, int n, double *out)
{
	for (int r = 0; r < n; r++)
		out[r] = cand[r] > 0 ? base[r] / cand[r] : NAN;
}

bool np_tune_rounds_done(int n, bool settled, double el, double budget)
{
	return (n >= NP_TUNE_MIN_ROUNDS && (settled || el >= budget)) ||
	       (el >= 10 * budget && n >= 3);
}

void np_tune_cell_judge(struct np_tune_cell *cl, double *ratios, int n, double min_change)
{
	np_tune_ratio_compute(ratios, n, min_change, &cl->ratio);
	if (cl->same_choice && cl->ratio.verdict != NP_TUNE_UNDECIDED)
		cl->ratio.verdict = NP_TUNE_NONE; /* the baseline's own calls */
}

/* Whether the candidate sets NCCL_PROTO or NCCL_ALGO alone, and NCCL
 * chose for it the algorithm and protocol it chose for the baseline. */
bool np_tune_choice_same(const struct np_tune_cand *c, const struct np_tune_cell *cl,
			 const struct np_tune_cell *base)
{
	for (int i = 0; c && i < c->n; i++)
		if (strcmp(c->set[i].name, "NCCL_PROTO") && strcmp(c->set[i].name, "NCCL_ALGO"))
			return false;
	return c && cl->algo[0] && cl->proto[0] && !strcmp(cl->algo, base->algo) &&
	       !strcmp(cl->proto, base->proto);
}

/* Whether NCCL's choice contradicts the candidate's NCCL_PROTO or NCCL_ALGO. */
bool np_tune_choice_ignores(const struct np_tune_cand *c, const struct np_tune_cell *cl)
{
	for (int i = 0; c && i < c->n; i++) {
		const char *got = !strcmp(c->set[i].name, "NCCL_PROTO")  ? cl->proto
				  : !strcmp(c->set[i].name, "NCCL_ALGO") ? cl->algo
									 : NULL;
		if (got && got[0] && np_tune_list_allows(c->set[i].value, got) == 0)
			return true;
	}
	return false;
}

/* The winner of a point: the candidate significantly faster with the
 * largest median ratio, else the baseline (0). */
int np_tune_point_winner(const struct np_tune_point *p, int narms,
			 const enum np_tune_arm_state *state)
{
	int best = 0;
	double r = 1;

	for (int a = 1; a < narms; a++) {
		const struct np_tune_cell *cl = &p->cells[a];
		if (state[a] == NP_TUNE_ARM_OK && cl->ran && !cl->ignored &&
		    cl->ratio.verdict == NP_TUNE_FASTER && cl->ratio.median > r) {
			r = cl->ratio.median;
			best = a;
		}
	}
	return best;
}

/* The candidate to recommend: significantly faster somewhere, slower
 * nowhere, every point it ran confirmed; the most winning points, then
 * the largest product of winning ratios. -1 when none. */
int np_tune_recommended(const struct np_tune_point *pts, size_t npts, int narms,
			const enum np_tune_arm_state *state)
{
	int best = -1, best_wins = 0;
	double best_gain = 0;

	for (int a = 1; a < narms; a++) {
		int wins = 0, slower = 0, ignored = 0;
		double gain = 0;
		if (state[a] != NP_TUNE_ARM_OK)
			continue;
		for (size_t i = 0; i < npts; i++) {
			const struct np_tune_cell *cl = &pts[i].cells[a];
			ignored += cl->ignored;
			slower += cl->ratio.verdict == NP_TUNE_SLOWER;
			if (pts[i].winner == a) {
				wins++;
				gain += log(cl->ratio.median);
			}
		}
		if (!wins || slower || ignored)
			continue;
		if (wins > best_wins || (wins == best_wins && gain > best_gain)) {
			best = a;
			best_wins = wins;
			best_gain = gain;
		}
	}
	return best;
}
