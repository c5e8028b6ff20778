/* SPDX-License-Identifier: MIT */
/* tune's decisions, as pure functions over measured figures (no MPI, no
 * clock, no output): when a point has had rounds enough, each
 * candidate's paired ratios and verdict at a point, NCCL's choice against
 * a candidate's setting, the winner of a point and the candidate to
 * recommend. src/tune_rounds.c measures;
 * tests/unit/test_tune_judge.c covers each rule. */
#ifndef NP_TUNE_JUDGE_H
#define NP_TUNE_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/coll.h"
#include "tune_cand.h"

#define NP_TUNE_MIN_ROUNDS 6 /* the first count with a 95% interval */

/* What became of an arm (the baseline, arm 0, or a candidate). */
enum np_tune_arm_state {
	NP_TUNE_ARM_OK,      /* measured */
	NP_TUNE_ARM_REFUSED, /* the library did not take the setting */
	NP_TUNE_ARM_ERROR,   /* its communicator or a call failed */
	NP_TUNE_ARM_WRONG,   /* it computed wrong data */
	NP_TUNE_ARM_HUNG,    /* a call did not finish within --timeout: aborted */
};

const char *np_tune_arm_state_str(enum np_tune_arm_state s);

/* One arm at one point. */
struct np_tune_cell {
	bool ran;
	uint64_t wrong;
	double t_med, busbw;
	struct np_tune_ratio ratio; /* candidates only */
	char algo[32], proto[32];   /* NCCL's choice for this call, "" unknown */
	bool ignored;               /* NCCL used what the setting excludes */
	bool same_choice;           /* a candidate of NCCL_PROTO/NCCL_ALGO alone for
				     * which NCCL chose the baseline's algorithm and
				     * protocol: the same calls, any difference noise */
};

/* One point (a collective at one size) and its arms' cells. */
struct np_tune_point {
	const struct np_coll *coll;
	struct np_layout lay;
	int iters, rounds;
	struct np_tune_cell *cells; /* narms */
	int winner;                 /* arm index, 0 the baseline */
};

/* Paired speed ratios of rounds 0..n-1: base[r] / cand[r] (> 1: the
 * candidate is faster), NaN where the candidate has no time. */
void np_tune_ratios(const double *base, const double *cand, int n, double *out);

/* Whether a point has had rounds enough: n rounds, every candidate's
 * comparison settled, el seconds of the budget's (rank 0's clock). The
 * budget ends a point only once it has an interval (NP_TUNE_MIN_ROUNDS),
 * except at ten times the budget with 3 rounds: a candidate far slower
 * than the baseline, whose batch length every arm uses, may take the
 * whole budget in a few rounds. */
bool np_tune_rounds_done(int n, bool settled, double el, double budget);

/* A candidate's cell at a point from its n paired ratios (sorted in
 * place): cl->ratio as np_tune_ratio_compute gives it, except that a
 * cell where NCCL made the baseline's own calls (same_choice) shows no
 * difference once it has an interval. */
void np_tune_cell_judge(struct np_tune_cell *cl, double *ratios, int n, double min_change);

/* Whether candidate c sets NCCL_PROTO or NCCL_ALGO alone, and NCCL chose
 * for it (cl) the algorithm and protocol it chose for the baseline. */
bool np_tune_choice_same(const struct np_tune_cand *c, const struct np_tune_cell *cl,
			 const struct np_tune_cell *base);
/* Whether NCCL's choice (cl) contradicts c's NCCL_PROTO or NCCL_ALGO. */
bool np_tune_choice_ignores(const struct np_tune_cand *c, const struct np_tune_cell *cl);

/* The winner of point p among narms arms (state[a] each): the measured
 * candidate significantly faster with the largest median ratio, else the
 * baseline (0). */
int np_tune_point_winner(const struct np_tune_point *p, int narms,
			 const enum np_tune_arm_state *state);

/* The candidate to recommend: measured, winner somewhere, slower nowhere,
 * never ignored by NCCL; the most winning points, then the largest
 * product of winning ratios. -1 when none. */
int np_tune_recommended(const struct np_tune_point *pts, size_t npts, int narms,
			const enum np_tune_arm_state *state);

#endif
