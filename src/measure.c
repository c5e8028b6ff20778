/* SPDX-License-Identifier: MIT */
/* The measurement engine shared by sweep, isolate and tune: one point
 * (a collective at one size) checked once, warmed up, then timed in
 * batches until the median is known, the noise bounds it or the budget
 * ends. Every decision is taken on values reduced over the measuring
 * world, so all its ranks take it alike. */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/testhooks.h"
#include "measure.h"
#include "msg.h"
#include "stats.h"
#include "watchdog.h"

#define MIN_SAMPLES_AUTO 6     /* the first count with a finite interval (src/stats.c) */
#define MIN_SAMPLES_BUDGET 3   /* when the budget runs out first */
#define BATCH_TARGET 2e-3      /* seconds a batch should last with --iters auto */
#define MAX_ITERS (1 << 20)

double np_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The clock the budget counts by. */
static double meas_now(const struct np_meas *m)
{
	return m->clock ? m->clock() : np_now_s();
}

/* NCCL_PROBE_TEST_STALL=R stalls job rank R at its first timed batch;
 * R@N at its timed batch N (from 0), so that rows finish before it
 * (common/testhooks.h) */
static long stall_after;

int np_test_stall_rank(void)
{
	struct np_test_stall st;

	np_test_stall_read(&st);
	stall_after = st.after;
	return np_test_stall_rank_at(&st, NP_STALL_BATCH);
}

static void stall_if_asked(struct np_meas *m)
{
	if (m->stall_rank < 0 || m->stall_rank != (m->be->world.job_ranks ? m->be->world.job_ranks[m->be->world.rank] : m->be->world.rank))
		return;
	if (stall_after-- > 0)
		return;
	m->stall_rank = -1;
	for (;;)
		sleep(1); /* test-only: the watchdog ends this */
}

/* All ranks of the measuring world learn the worst status; the failing
 * ranks say why. */
static enum np_status meas_agree(struct np_meas *m, enum np_status st, const char *what)
{
	int mine = (int)st, worst = 0;

	np_watchdog_arrive(m->be->world.comm, "the end of %s", what);
	MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, m->be->world.comm);
	if (st != NP_OK && !m->be->err.secondary)
		np_rank_error("%s", m->be->err.msg);
	return (enum np_status)worst;
}

/* The slots from..to-1 of one step of turns: each ends when every rank of
 * sync is past it (the group whose slot it is has timed its batch). A
 * rank waits for a slot asleep between polls, not spinning in a barrier:
 * the groups take turns because they share a host's cores, and a waiting
 * rank that spins takes a core from the group that measures. */
static void turn_slots(const struct np_meas *m, int from, int to)
{
	const struct timespec nap = { 0, 500000 };

	if (!m->synced || m->turns < 2 || m->o->iters)
		return; /* fixed batches agree on nothing over sync */
	for (int j = from < 0 ? 0 : from; j < to; j++) {
		MPI_Request rq;
		int done = 0;
		MPI_Ibarrier(m->sync, &rq);
		for (;;) {
			MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
			if (done)
				break;
			nanosleep(&nap, NULL);
		}
	}
}

/* One timed batch: every rank's time, reduced with MAX; also the stop
 * flag and elapsed time, so every rank takes the next decision alike. */
static void timed_batch(struct np_meas *m, const struct np_bench *b, int iters, double t_start,
			double *t_max, double *elapsed, bool *stop, double *t_own)
{
	double in[3], outv[3], t = 0;

	stall_if_asked(m);
	np_watchdog_arrive(m->be->world.comm, "%s of %zu B (batch of %d)%s%s", b->coll->name,
			   b->lay.size, iters, m->what ? " " : "", m->what ? m->what : "");
	if (m->be->ops->run(m->be, b, iters, &t) != NP_OK)
		np_abort_err(&m->be->err); /* the others are inside the collective */
	in[0] = t;
	in[1] = meas_now(m) - t_start;
	in[2] = m->stop && *m->stop ? 1 : 0;
	MPI_Allreduce(in, outv, 3, MPI_DOUBLE, MPI_MAX, m->be->world.comm);
	*t_max = outv[0];
	*elapsed = outv[1];
	if (t_own)
		*t_own = t;
	*stop = outv[2] > 0;
}

/* Per-rank times of a row: every rank's own median time per iteration,
 * gathered; the longest, whose rank, and its excess over the median of
 * the ranks' medians. Collective over the measuring world. */
static void rank_times(struct np_meas *m, int n, struct np_result *res)
{
	const struct np_backend_world *w = &m->be->world;
	struct np_stats st;
	double mine, *all;
	int k = 0;

	res->slow_rank = -1;
	res->slow_time = res->slow_excess = NAN;
	if (!m->own || n < 1)
		return;
	memcpy(m->sorted, m->own, (size_t)n * sizeof(double));
	np_stats_compute(m->sorted, n, &st);
	mine = st.median;
	all = malloc((size_t)w->size * sizeof(*all));
	if (!all)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d ranks' times", w->size);
	MPI_Allgather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, w->comm);
	for (int r = 1; r < w->size; r++)
		if (all[r] > all[k])
			k = r;
	res->slow_rank = w->job_ranks ? w->job_ranks[k] : k;
	res->slow_time = all[k];
	np_stats_compute(all, w->size, &st); /* sorts all */
	if (w->size > 1 && st.median > 0)
		res->slow_excess = res->slow_time / st.median - 1;
	free(all);
}

const char *np_stop_str(enum np_stop st)
{
	switch (st) {
	case NP_STOP_FIXED: return "fixed";
	case NP_STOP_CONVERGED: return "converged";
	case NP_STOP_NOISE: return "noise-bound";
	case NP_STOP_BUDGET: return "budget";
	}
	return "unknown";
}

/* --iters auto: as many iterations as fill a batch of BATCH_TARGET, so
 * that the barrier before a batch and the skew of its start are a small
 * part of it: batches of 1, 8, 64, ... iterations until one lasts an
 * eighth of the target (the warm-up's first calls, which set up
 * connections, would overestimate the time of one; few steps, since with
 * --graph each new batch length is a new capture). *t_start moves past
 * the calibration: the budget counts timed samples only. */
static int calibrate(struct np_meas *m, const struct np_bench *b, double *t_start, bool *stop)
{
	int k = 1, iters;
	double t = 0, el = 0;
	const double bt = m->batch > 0 ? m->batch : BATCH_TARGET;

	for (;;) {
		timed_batch(m, b, k, *t_start, &t, &el, stop, NULL);
		if (*stop)
			return 0;
		int done = t >= bt / 8 || k >= MAX_ITERS / 8;
		if (m->synced)
			MPI_Allreduce(MPI_IN_PLACE, &done, 1, MPI_INT, MPI_MIN, m->sync);
		if (done)
			break;
		if (k < MAX_ITERS / 8)
			k *= 8;
	}
	iters = t > 0 ? (int)ceil(bt * k / t) : MAX_ITERS;
	if (iters < 1)
		iters = 1;
	if (iters > MAX_ITERS)
		iters = MAX_ITERS;
	*t_start = meas_now(m);
	return iters;
}

bool np_measure(struct np_meas *m, const struct np_bench *b, struct np_result *res)
{
	const struct np_opts *o = m->o;
	const struct np_backend_world *w = &m->be->world;
	double t_start = meas_now(m), t, el;
	bool stop = false;
	int iters, target = o->iters ? o->samples : NP_MEAS_MAX_SAMPLES, n = 0;
	struct np_stats st = { 0 };
	enum np_status rc;
	char what[200];

	memset(res, 0, sizeof(*res));
	res->coll = b->coll;
	res->dtype = b->dtype;
	res->op = b->op;
	res->root = (b->coll->flags & NP_COLL_F_ROOTED) ? b->root : -1;
	res->inplace = b->inplace;
	res->lay = b->lay;
	res->eff = NAN;
	res->ci_half_rel = INFINITY;

	snprintf(what, sizeof(what), "preparing %s of %zu B", b->coll->name, b->lay.size);
	np_watchdog_arm("%s", what);
	rc = m->be->ops->prepare(m->be, b);
	if ((rc = meas_agree(m, rc, what)))
		m->fail(m->fail_arg, rc);
	if (o->check) {
		uint64_t wrong = 0, total = 0;
		timed_batch(m, b, 1, t_start, &t, &el, &stop, NULL);
		if (stop)
			return false;
		snprintf(what, sizeof(what), "checking %s of %zu B", b->coll->name, b->lay.size);
		np_watchdog_arm("%s", what);
		rc = m->be->ops->check(m->be, b, &wrong);
		if ((rc = meas_agree(m, rc, what)))
			m->fail(m->fail_arg, rc);
		MPI_Allreduce(&wrong, &total, 1, MPI_UINT64_T, MPI_SUM, w->comm);
		res->checked = true;
		res->wrong = total;
		if (wrong && !m->quiet_wrong)
			np_rank_error("%s of %zu B: %llu of this rank's result elements are wrong",
				      b->coll->name, b->lay.size, (unsigned long long)wrong);
	}
	if (o->warmup > 0) {
		timed_batch(m, b, o->warmup, t_start, &t, &el, &stop, NULL);
		if (stop)
			return false;
	}
	iters = o->iters ? o->iters : calibrate(m, b, &t_start, &stop);
	if (stop)
		return false;
	res->iters = iters;
	res->stop = o->iters ? NP_STOP_FIXED : NP_STOP_BUDGET;
	while (n < target) {
		double t_own = 0;
		turn_slots(m, 0, m->turn);
		timed_batch(m, b, iters, t_start, &t, &el, &stop, &t_own);
		turn_slots(m, m->turn, m->turns);
		if (stop)
			return false; /* interrupted: a row is reported whole or not at all */
		if (m->own)
			m->own[n] = t_own / iters;
		m->samples[n++] = t / iters;
		if (o->iters)
			continue;
		memcpy(m->sorted, m->samples, (size_t)n * sizeof(double));
		np_stats_compute(m->sorted, n, &st);
		{
			/* samples and elapsed time are the world's (reduced in
			 * timed_batch), so every rank decides alike. [0]: this
			 * group goes on (neither converged nor noise-bound),
			 * [1]: out of budget */
			bool conv = n >= MIN_SAMPLES_AUTO && st.ci_half_rel <= m->ci_target;
			bool noise = !conv && n >= (m->noise_min > MIN_SAMPLES_AUTO ? m->noise_min : MIN_SAMPLES_AUTO) &&
				     np_stats_noise_bound(n, st.ci_half_rel, m->ci_target, el, m->budget);
			int d[2] = { !conv && !noise, el >= m->budget && n >= MIN_SAMPLES_BUDGET };
			res->stop = conv ? NP_STOP_CONVERGED : noise ? NP_STOP_NOISE : NP_STOP_BUDGET;
			if (m->synced)
				MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_INT, MPI_MAX, m->sync);
			if (!d[0] || d[1])
				break;
		}
	}
	res->converged = res->stop == NP_STOP_CONVERGED;
	memcpy(m->sorted, m->samples, (size_t)n * sizeof(double));
	np_stats_compute(m->sorted, n, &st);
	res->samples = n;
	res->t_med = st.median;
	res->t_min = st.min;
	res->t_max = st.max;
	res->t_ci_lo = st.ci_lo;
	res->t_ci_hi = st.ci_hi;
	res->ci_half_rel = st.ci_half_rel;
	res->algbw = np_algbw(b->lay.size, st.median);
	res->busbw = np_busbw(b->coll, w->size, res->algbw);
	rank_times(m, n, res);
	return true;
}

void np_measure_idle(struct np_meas *m)
{
	int done, d[2];

	if (!m->synced || m->o->iters)
		return; /* fixed batches agree on nothing over sync */
	/* the batch length: each step ends when every group is done */
	do {
		done = 1;
		MPI_Allreduce(MPI_IN_PLACE, &done, 1, MPI_INT, MPI_MIN, m->sync);
	} while (!done);
	/* the samples: until no group goes on, or the budget ends */
	do {
		turn_slots(m, 0, m->turns);
		d[0] = d[1] = 0;
		MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_INT, MPI_MAX, m->sync);
	} while (d[0] && !d[1]);
}

_Static_assert(NP_BE_HOSTLEN == NP_HOSTLEN, "host names: one length");

void np_backend_args(struct np_backend *be, const struct np_opts *o, const struct np_world *w)
{
	struct np_backend_world *bw = &be->world;

	be->cfg.gpu_map = o->gpu_map;
	be->cfg.graph = o->graph;
	bw->comm = w->comm;
	bw->node_comm = w->node_comm;
	bw->rank = w->rank;
	bw->size = w->size;
	bw->node = w->node;
	bw->nnodes = w->nnodes;
	bw->local_rank = w->local_rank;
	bw->local_size = w->local_size;
	bw->virtual_nodes = w->virtual_nodes;
	bw->hosts = (const char (*)[NP_BE_HOSTLEN])w->hosts;
	bw->mpi_version = w->mpi_version;
	bw->job_ranks = w->job_ranks;
	bw->job_size = w->job_size;
	bw->device = w->device;
}
