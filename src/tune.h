/* SPDX-License-Identifier: MIT */
/* One tune run's state, shared by the files of the tune command and by
 * no other: src/tune.c (the command: candidates, the plan of points, the
 * points in turn), src/tune_arm.c (an arm started on its own
 * communicator with its candidate's settings in effect),
 * src/tune_rounds.c (the first calls and the rounds that time the arms
 * at a point) and src/tune_report.c (the table, the JSON, the exit code).
 * Every function here is collective over the world unless it says
 * otherwise. */
#ifndef NP_TUNE_H
#define NP_TUNE_H

#include <stdbool.h>
#include <stdio.h>

#include "measure.h"
#include "notes.h"
#include "run_record.h"
#include "tune_cand.h"
#include "tune_judge.h"

#define TUNE_MAX_ROUNDS 2000

struct arm {
	const struct np_tune_cand *cand; /* NULL: the baseline */
	struct np_backend be;
	struct np_world w; /* the job's world on its own communicator */
	bool up;           /* be is initialized */
	enum np_tune_arm_state state;
	char why[512];      /* refused, error, wrong data: why */
	char evidence[512]; /* what the library said */
};

struct tune {
	const struct np_opts *o;
	struct np_world *w;
	const struct np_test_plan *test; /* the test-only switches */
	struct np_tune_cand cands[NP_TUNE_MAX_CANDS];
	int ncands, narms;
	struct arm *arms;
	struct np_tune_point *pts;
	size_t npts, done;
	size_t max_send, max_recv; /* the buffers of the largest point */
	int nlive;                 /* arms that started, when planning */
	const struct np_backend_ops *ops;
	char backend_why[192];
	double *t; /* narms x TUNE_MAX_ROUNDS times */
	double *r; /* TUNE_MAX_ROUNDS ratios */
	FILE *log; /* rank 0: NCCL's log, for TUNING lines */
	struct np_notes notes;
	bool interrupted;
	int hung; /* the arm that hung, 0 none: the run stopped there */
	double t0;
	struct np_run_record run;
};

static inline const char *arm_label(const struct tune *tu, int a)
{
	return a ? tu->arms[a].cand->label : "baseline";
}

static inline bool arm_live(const struct arm *arm) { return arm->state == NP_TUNE_ARM_OK; }

/* The arms' states, for the decisions over points. */
static inline void arm_states(const struct tune *tu, enum np_tune_arm_state *st)
{
	for (int a = 0; a < tu->narms; a++)
		st[a] = tu->arms[a].state;
}

/* src/tune_arm.c */

/* Start arm a's backend on its own communicator with its setting in
 * effect; every rank learns the outcome (arm->state, arm->why). */
void arm_start(struct tune *tu, int a);

/* Finalize the arm's backend and free its communicator (local). */
void arm_stop(struct arm *arm);

/* The size of NCCL's log in bytes, 0 when there is none (local). */
long tune_log_size(void);

/* src/tune_rounds.c */

/* Whether a step of arm a went well on every rank; a failed arm stops
 * (its state and why set), a failed baseline ends the run. */
bool tune_step_ok(struct tune *tu, int a, enum np_status st, const char *what);

/* The first call of every live arm at point p: set up, check, NCCL's
 * choice; tu->hung set when one hung. */
void tune_first_calls(struct tune *tu, struct np_tune_point *p, const struct np_bench *b);

/* Rounds of every live arm at point p until each comparison is settled
 * or the budget ends; p's cells judged. False on a signal or a hang. */
bool tune_rounds(struct tune *tu, struct np_tune_point *p, const struct np_bench *b);

/* src/tune_report.c */

/* Rank 0: the report to --output (or standard output) and --json, an
 * error line per losing candidate and for why the run stopped; the exit
 * code. */
int tune_report(struct tune *tu, bool baseline_wrong);

#endif
