/* SPDX-License-Identifier: MIT */
/* tune's measuring at one point: the first call of every arm (set up,
 * checked, NCCL's choice of algorithm and protocol read from its log),
 * the batch length calibrated on the baseline, then rounds of one batch
 * per arm in alternating order until each candidate's paired comparison
 * is settled or the budget ends. A candidate that hangs or fails loses;
 * the baseline failing ends the run. */
#define _GNU_SOURCE /* SEEK_DATA: past the holes of NCCL's truncated log */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "../probes/nccl_log.h"
#include "msg.h"
#include "stats.h"
#include "tune.h"
#include "watchdog.h"

#define TUNE_BATCH 2e-3 /* seconds a batch should last */
#define TUNE_MAX_ITERS (1 << 20)

/* Rank 0: the algorithm and protocol NCCL logged for the calls since
 * *off (TUNING lines; comm rank 0 logs them, and world rank 0 is rank 0
 * of every arm's communicator). */
static void nccl_choice(struct tune *tu, long *off, struct np_tune_cell *cl)
{
	char fn[32], al[32], pr[32], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	off_t start;

	if (!tu->log)
		return;
	/* past the hole that truncating the log left before NCCL's offset;
	 * the block where the data starts may still hold zeros before it */
	start = lseek(fileno(tu->log), (off_t)*off, SEEK_DATA);
	if (start < 0)
		start = (off_t)*off;
	clearerr(tu->log);
	if (fseeko(tu->log, start, SEEK_SET) != 0)
		return;
	while ((n = getline(&line, &cap, tu->log)) > 0) {
		const char *p = line;
		for (ssize_t i = 0; i < n; i++)
			if (!line[i])
				p = line + i + 1;
		if (np_nccl_log_tuning_line(p, fn, sizeof(fn), al, sizeof(al), pr, sizeof(pr))) {
			snprintf(cl->algo, sizeof(cl->algo), "%s", al);
			snprintf(cl->proto, sizeof(cl->proto), "%s", pr);
		}
	}
	free(line);
	*off = ftell(tu->log);
}

/* Every rank: the worst status of a step of arm a; a failed arm stops, a
 * call that the watchdog aborted (--timeout) is a hung arm. */
bool tune_step_ok(struct tune *tu, int a, enum np_status st, const char *what)
{
	struct arm *arm = &tu->arms[a];
	int mine[2] = { (int)st, np_watchdog_fired() || st == NP_ETIMEOUT }, all[2];

	MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, tu->w->comm);
	if (!all[0] && !all[1])
		return true;
	if (a == 0)
		np_abort(np_status_exit((enum np_status)all[0]), "%s failed for the baseline: %s",
			 what, st ? arm->be.err.msg : "on another rank");
	if (all[1]) {
		arm->state = NP_TUNE_ARM_HUNG;
		snprintf(arm->why, sizeof(arm->why),
			 "%.160s did not finish within %g s (--timeout): aborted", what,
			 tu->o->timeout);
		return false;
	}
	arm->state = NP_TUNE_ARM_ERROR;
	snprintf(arm->why, sizeof(arm->why), "%.160s failed: %.300s", what,
		 st ? arm->be.err.msg : "on another rank");
	mine[0] = st ? tu->w->rank : tu->w->size;
	MPI_Allreduce(mine, all, 1, MPI_INT, MPI_MIN, tu->w->comm);
	MPI_Bcast(arm->why, sizeof(arm->why), MPI_CHAR, all[0] < tu->w->size ? all[0] : 0,
		  tu->w->comm);
	return false;
}

/* The calls of a candidate may hang (a protocol that deadlocks on this
 * fabric): their deadline is soft when the backend can abort, and a hung
 * candidate loses instead of ending the job. */
static void soft_for(const struct tune *tu, int a)
{
	np_watchdog_soft(a > 0 && (tu->ops->caps & NP_CAP_ABORT));
}

/* One batch of arm a: the slowest rank's time; the stop flag agreed.
 * NAN when the arm hung (it is marked so on every rank). */
static double batch(struct tune *tu, int a, const struct np_bench *b, int iters, bool *stop)
{
	struct arm *arm = &tu->arms[a];
	double in[3], out[3], t = 0;
	enum np_status st;
	bool hung;

	np_watchdog_set_backend(&arm->be);
	np_watchdog_arrive(tu->w->comm, "%s of %zu B (batch of %d) for %s", b->coll->name,
			   b->lay.size, iters, arm_label(tu, a));
	soft_for(tu, a);
	st = arm->be.ops->run(&arm->be, b, iters, &t);
	np_watchdog_soft(false);
	hung = np_watchdog_fired() || (a > 0 && st == NP_ETIMEOUT);
	if (st != NP_OK && !hung)
		np_abort(NP_EXIT_RUNTIME, "%s of %zu B failed for %s: %s", b->coll->name,
			 b->lay.size, arm_label(tu, a),
			 arm->be.err.msg); /* the others are inside the collective */
	in[0] = t;
	in[1] = np_signal ? 1 : 0;
	in[2] = hung;
	MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_MAX, tu->w->comm);
	*stop = out[1] > 0;
	if (*stop)
		np_watchdog_interrupted(); /* this thread ends the run */
	if (out[2] > 0) {
		arm->state = NP_TUNE_ARM_HUNG;
		snprintf(arm->why, sizeof(arm->why),
			 "%s of %zu B did not finish within %g s (--timeout): aborted",
			 b->coll->name, b->lay.size, tu->o->timeout);
		return NAN;
	}
	return out[0];
}

/* Arm a's check of its first call: the wrong elements of every rank in
 * cl; false when the check failed, or when a candidate's data was wrong
 * (it loses; the baseline's is an error, and the run goes on) */
static bool first_check(struct tune *tu, int a, const struct np_bench *b, struct np_tune_cell *cl)
{
	struct arm *arm = &tu->arms[a];
	uint64_t wrong = 0, total = 0;
	char what[160];

	snprintf(what, sizeof(what), "checking %s of %zu B for %.100s", b->coll->name, b->lay.size,
		 arm_label(tu, a));
	np_watchdog_arm("%s", what);
	if (!tune_step_ok(tu, a, arm->be.ops->check(&arm->be, b, &wrong), what))
		return false;
	MPI_Allreduce(&wrong, &total, 1, MPI_UINT64_T, MPI_SUM, tu->w->comm);
	cl->wrong = total;
	if (!total)
		return true;
	if (a == 0 && tu->w->rank == 0)
		np_error("%s of %zu B: the baseline computed %llu wrong elements; this node or its links are faulty (run nccl-probe sweep and isolate)",
			 b->coll->name, b->lay.size, (unsigned long long)total);
	if (a == 0)
		return true;
	arm->state = NP_TUNE_ARM_WRONG;
	snprintf(arm->why, sizeof(arm->why), "%s of %zu B computed %llu wrong elements",
		 b->coll->name, b->lay.size, (unsigned long long)total);
	return false;
}

/* NCCL's choice for arm a's first call, read on rank 0, to every rank:
 * whether NCCL ignored the candidate's setting, and whether it chose
 * what it chose for the baseline */
static void choice_share(struct tune *tu, struct np_tune_point *p, int a)
{
	struct arm *arm = &tu->arms[a];
	struct np_tune_cell *cl = &p->cells[a];
	int ign = tu->w->rank == 0 && np_tune_choice_ignores(arm->cand, cl);

	MPI_Bcast(cl->algo, sizeof(cl->algo), MPI_CHAR, 0, tu->w->comm);
	MPI_Bcast(cl->proto, sizeof(cl->proto), MPI_CHAR, 0, tu->w->comm);
	MPI_Bcast(&ign, 1, MPI_INT, 0, tu->w->comm);
	cl->ignored = ign != 0;
	cl->same_choice = a > 0 && np_tune_choice_same(arm->cand, cl, &p->cells[0]);
}

/* Arm a's first call at p: set up, run once, checked, NCCL's choice.
 * False when the call hung: the run stops there. */
static bool first_call(struct tune *tu, struct np_tune_point *p, const struct np_bench *b, int a)
{
	struct arm *arm = &tu->arms[a];
	struct np_tune_cell *cl = &p->cells[a];
	char what[160];
	double t;
	long off = 0;
	enum np_status st;

	snprintf(what, sizeof(what), "preparing %s of %zu B for %.100s", b->coll->name, b->lay.size,
		 arm_label(tu, a));
	np_watchdog_arm("%s", what);
	if (!tune_step_ok(tu, a, arm->be.ops->prepare(&arm->be, b), what))
		return true;
	if (tu->log)
		off = tune_log_size();
	snprintf(what, sizeof(what), "the first %s of %zu B for %.100s", b->coll->name, b->lay.size,
		 arm_label(tu, a));
	np_watchdog_set_backend(&arm->be);
	np_watchdog_arrive(tu->w->comm, "%s", what);
	soft_for(tu, a);
	st = arm->be.ops->run(&arm->be, b, 1, &t);
	np_watchdog_soft(false);
	if (!tune_step_ok(tu, a, st, what))
		return arm->state != NP_TUNE_ARM_HUNG;
	if (tu->w->rank == 0)
		nccl_choice(tu, &off, cl);
	cl->ran = true;
	if (tu->o->check && !first_check(tu, a, b, cl))
		return true;
	choice_share(tu, p, a);
	return true;
}

/* The first call of every arm at this point: set up, check, and NCCL's
 * choice of algorithm and protocol. */
void tune_first_calls(struct tune *tu, struct np_tune_point *p, const struct np_bench *b)
{
	for (int a = 0; a < tu->narms; a++)
		if (arm_live(&tu->arms[a]) && !first_call(tu, p, b, a)) {
			tu->hung = a;
			return;
		}
}

/* The baseline's batch, for np_batch_find */
struct cal {
	struct tune *tu;
	const struct np_bench *b;
	bool *stop;
};

static double cal_batch(void *arg, int iters)
{
	struct cal *c = arg;
	double t = batch(c->tu, 0, c->b, iters, c->stop);

	return *c->stop ? -1 : t;
}

/* Iterations per batch: the steady state of the baseline
 * (np_batch_find, as the sweep measures), the longest batch a third of
 * the budget. One count for every arm. */
static int calibrate(struct tune *tu, const struct np_bench *b, bool *stop)
{
	struct cal c = { .tu = tu, .b = b, .stop = stop };
	struct np_batch_rule r = { .min_batch = TUNE_BATCH,
				   .max_batch = tu->o->budget / 3,
				   .precision = 0.01,
				   .max_iters = TUNE_MAX_ITERS };
	struct np_batch_len len;

	if (tu->o->iters)
		return tu->o->iters;
	if (!np_batch_find(&r, cal_batch, NULL, &c, &len))
		return 0;
	return len.iters;
}

static void ratios(struct tune *tu, int a, int n, double *out)
{
	np_tune_ratios(tu->t, tu->t + (size_t)a * TUNE_MAX_ROUNDS, n, out);
}

/* Whether arm a takes part in the rounds at p */
static bool in_rounds(const struct tune *tu, const struct np_tune_point *p, int a)
{
	return arm_live(&tu->arms[a]) && !p->cells[a].ignored;
}

/* One batch of arm a, its time per call to *t (NULL: not kept); false,
 * to end the point, on a signal (*stop) or when the arm hung (tu->hung) */
static bool arm_batch(struct tune *tu, int a, const struct np_bench *b, int iters, double *t,
		      bool *stop)
{
	double x = batch(tu, a, b, iters, stop);

	if (t)
		*t = x / iters;
	if (*stop)
		return false;
	if (!arm_live(&tu->arms[a])) {
		tu->hung = a;
		return false;
	}
	return true;
}

/* Whether every candidate's comparison over n rounds is settled */
static int rounds_settled(struct tune *tu, const struct np_tune_point *p, int n)
{
	int settled = 1;

	for (int a = 1; a < tu->narms; a++) {
		struct np_tune_ratio rt;
		if (!in_rounds(tu, p, a))
			continue;
		ratios(tu, a, n, tu->r);
		np_tune_ratio_compute(tu->r, n, tu->o->min_change, &rt);
		settled &= rt.settled;
	}
	return settled;
}

/* Each arm's median time and busbw over n rounds; each candidate's
 * ratios and verdict */
static void cells_judge(struct tune *tu, struct np_tune_point *p, const struct np_bench *b, int n)
{
	for (int a = 0; a < tu->narms; a++) {
		struct np_tune_cell *cl = &p->cells[a];
		struct np_stats st;
		double *v = tu->r;
		if (!arm_live(&tu->arms[a]) || cl->ignored || !cl->ran)
			continue;
		memcpy(v, tu->t + (size_t)a * TUNE_MAX_ROUNDS, (size_t)n * sizeof(double));
		np_stats_compute(v, n, &st);
		cl->t_med = st.median;
		cl->busbw = np_busbw(b->coll, tu->w->size, np_algbw(b->lay.size, st.median));
		if (a > 0) {
			ratios(tu, a, n, tu->r);
			np_tune_cell_judge(cl, tu->r, n, tu->o->min_change);
		}
	}
}

/* Rounds of one batch per live arm, in alternating order (A B C, C B A),
 * until every candidate's comparison is settled, the budget ends, or
 * --iters N's --samples rounds are done. Returns false on a signal. */
bool tune_rounds(struct tune *tu, struct np_tune_point *p, const struct np_bench *b)
{
	const struct np_opts *o = tu->o;
	int n = 0, target = o->iters ? o->samples : TUNE_MAX_ROUNDS, live_arms = 0;
	double t_start, budget;
	bool stop = false;

	for (int a = 0; a < tu->narms; a++)
		live_arms += in_rounds(tu, p, a);
	p->iters = calibrate(tu, b, &stop);
	if (stop)
		return false;
	for (int a = 0; a < tu->narms && o->warmup > 0; a++)
		if (in_rounds(tu, p, a) && !arm_batch(tu, a, b, o->warmup, NULL, &stop))
			return false;
	budget = o->budget * live_arms;
	t_start = np_now_s();
	while (n < target) {
		int settled;
		double el;
		for (int k = 0; k < tu->narms; k++) {
			int a = n % 2 ? tu->narms - 1 - k : k;
			double *t = &tu->t[(size_t)a * TUNE_MAX_ROUNDS + n];
			if (in_rounds(tu, p, a) && !arm_batch(tu, a, b, p->iters, t, &stop))
				return false;
		}
		n++;
		if (o->iters)
			continue;
		settled = rounds_settled(tu, p, n);
		/* rank 0's clock decides for all */
		el = np_now_s() - t_start;
		MPI_Bcast(&el, 1, MPI_DOUBLE, 0, tu->w->comm);
		/* the budget ends a point only once it has an interval: a
		 * candidate far slower than the baseline (whose batch length
		 * every arm uses) may take the whole budget in a few rounds */
		if (np_tune_rounds_done(n, settled, el, budget))
			break;
	}
	p->rounds = n;
	cells_judge(tu, p, b, n);
	return true;
}
