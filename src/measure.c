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

#define MIN_SAMPLES_AUTO 6   /* the first count with a finite interval (src/stats.c) */
#define MIN_SAMPLES_BUDGET 3 /* when the budget runs out first */
#define BATCH_TARGET 2e-3    /* seconds a batch should last with --iters auto */
#define MAX_ITERS (1 << 20)
#define CONFIRM_BELOW 16 /* batches shorter than this are held against 4k too */

double np_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The clock the budget counts by. */
static double meas_now(const struct np_meas *m) { return m->clock ? m->clock() : np_now_s(); }

/* NCCL_PROBE_TEST_STALL=R stalls job rank R at its first timed batch;
 * R@N at its timed batch N (from 0), so that rows finish before it
 * (common/testhooks.h) */
void np_meas_test_stall(struct np_meas *m, const struct np_test_plan *test)
{
	struct np_test_stall st;

	np_test_stall_parse(test->stall, &st);
	m->stall_rank = np_test_stall_rank_at(&st, NP_STALL_BATCH);
	m->stall_after = st.after;
}

static void stall_if_asked(struct np_meas *m)
{
	if (m->stall_rank < 0 ||
	    m->stall_rank != (m->be->world.job_ranks ? m->be->world.job_ranks[m->be->world.rank]
						     : m->be->world.rank))
		return;
	if (m->stall_after-- > 0)
		return;
	m->stall_rank = -1;
	for (;;)
		sleep(1); /* test-only: the watchdog ends this */
}

/* All ranks of the measuring world learn the worst status; the failing
 * ranks say why. */
static enum np_status meas_agree(struct np_meas *m, enum np_status st, const char *what)
{
	return np_step_agree(m->be->world.comm, st, &m->be->err, what);
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
	in[2] = m->stop ? *m->stop : 0; /* the signal: a rank that got none reports the other's */
	MPI_Allreduce(in, outv, 3, MPI_DOUBLE, MPI_MAX, m->be->world.comm);
	*t_max = outv[0];
	*elapsed = outv[1];
	if (t_own)
		*t_own = t;
	*stop = outv[2] > 0;
	if (*stop)
		m->stop_sig = (int)outv[2];
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
	case NP_STOP_UNSTEADY: return "unsteady";
	}
	return "unknown";
}

static int agree_max(int (*agree)(void *, int), void *arg, int v)
{
	return agree ? agree(arg, v) : v;
}

/* The least time per collective that a fall from p at k to p2 at j
 * allows, were it a fixed cost per batch spread over more collectives
 * (t(k) = s + L/k); 0 when it leaves nothing. */
static double floor_of(double p, int k, double p2, int j)
{
	double s = p2 - (p - p2) / ((double)j / k - 1);

	return s > 0 ? s : 0;
}

/* The shortest batch that hides a launch: batches of 1, 8, 64, ...
 * until one lasts min_batch / 8 (the first calls of a warm-up, which make
 * connections, would overestimate one; few lengths, since with --graph
 * each is a new capture), then as many as last min_batch. 0 to stop. */
static int shortest_batch(const struct np_batch_rule *r, double (*batch)(void *, int),
			  int (*agree)(void *, int), void *arg, int cap)
{
	int k = 1;
	double t, n;

	for (;;) {
		if ((t = batch(arg, k)) < 0)
			return 0;
		if (!agree_max(agree, arg, !(t >= r->min_batch / 8 || k >= cap / 8)))
			break;
		k *= 8;
	}
	n = t > 0 ? ceil(r->min_batch * k / t) : cap;
	return n < 1 ? 1 : n > cap ? cap : (int)n;
}

/* Three batches of k timed: the median time per collective. One batch
 * that interference lengthened does not move it; and unlike the shorter
 * of two, it does not read short batches low where each collective's
 * time varies (a slow transport): the shortest of a few single
 * collectives lies further below their typical time than the shortest of
 * a few longer batches lies below theirs, which would hide the fall the
 * search looks for. False to stop. */
static bool timed_three(double (*batch)(void *, int), void *arg, int k, double *per)
{
	double t[3], lo, hi;

	for (int i = 0; i < 3; i++)
		if ((t[i] = batch(arg, k)) < 0)
			return false;
	lo = t[0] < t[1] ? t[0] : t[1];
	hi = t[0] < t[1] ? t[1] : t[0];
	*per = (t[2] < lo ? lo : t[2] > hi ? hi : t[2]) / k;
	return true;
}

bool np_batch_find(const struct np_batch_rule *r, double (*batch)(void *, int),
		   int (*agree)(void *, int), void *arg, struct np_batch_len *out)
{
	int cap = r->max_iters > 0 && r->max_iters < MAX_ITERS ? r->max_iters : MAX_ITERS;
	int k = shortest_batch(r, batch, agree, arg, cap);
	bool searching = true;
	double p = 0, fl = 0;

	memset(out, 0, sizeof(*out));
	if (!k || !timed_three(batch, arg, k, &p))
		return false;
	/* every party takes part in each step until none searches, so that
	 * parties that decide together take the same number of steps */
	do {
		if (!searching)
			continue;
		if (k > cap / 2 || 2.0 * k * p > r->max_batch) {
			searching = false; /* unsteady: the budget ends the search */
			continue;
		}
		/* the median of three batches of 2k against k's: where the
		 * noise hides a fall, doubling goes on rather than stop short
		 * (a longer batch is never less steady; the budget bounds it) */
		double p2;
		int j = 2 * k;
		if (!timed_three(batch, arg, j, &p2))
			return false;
		/* a short batch (few collectives: a slow transport, a large
		 * size) is also held against 4k and 8k, as the budget allows:
		 * the few collectives of a plateau, or each collective's own
		 * spread, can hide a fall that a longer batch shows. The
		 * longest length that fell is taken */
		int jf = 1 - p2 / p > r->precision ? j : 0;
		double pf = p2;
		while (k < CONFIRM_BELOW && j < 8 * k && 2 * j <= cap &&
		       2.0 * j * p <= r->max_batch) {
			j *= 2;
			if (!timed_three(batch, arg, j, &p2))
				return false;
			if (1 - p2 / p > r->precision) {
				jf = j;
				pf = p2;
			}
		}
		if (jf) {
			for (int d = jf / k; d > 1; d /= 2)
				out->doublings++;
			fl = floor_of(p, k, pf, jf);
			k = jf;
			p = pf;
		} else {
			searching = false;
			out->steady = true;
		}
	} while (agree_max(agree, arg, searching));
	out->iters = k;
	out->t_per = p;
	out->t_floor = out->steady ? p : fl;
	return true;
}

/* The engine's side of np_batch_find: timed batches of the point, their
 * decisions agreed over sync when groups measure in step; the last twelve
 * batches kept (length, time, this rank's own time), so that the three
 * of the length the search ended with can be the first samples. */
#define CAL_KEEP 12 /* four lengths of three batches: k, 2k, 4k and 8k */
struct cal {
	struct np_meas *m;
	const struct np_bench *b;
	double t_start;
	bool stop;
	int n;
	struct {
		int iters;
		double t, own;
	} last[CAL_KEEP];
};

static double cal_batch(void *arg, int iters)
{
	struct cal *c = arg;
	double t = 0, el, own = 0;

	timed_batch(c->m, c->b, iters, c->t_start, &t, &el, &c->stop, &own);
	memmove(&c->last[1], &c->last[0], (CAL_KEEP - 1) * sizeof(c->last[0]));
	c->last[0].iters = iters;
	c->last[0].t = t;
	c->last[0].own = own;
	c->n++;
	return c->stop ? -1 : t;
}

static int cal_agree(void *arg, int v)
{
	struct cal *c = arg;

	if (c->m->synced)
		MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, c->m->sync);
	return v;
}

/* --iters auto: the steady state's batch length (np_batch_find), the
 * longest batch a third of the budget (the samples a budget-bound row
 * takes). The two batches the search timed at that length are the first
 * samples (*n), unless groups measure in step (their samples are timed
 * in turns). *t_start moves past the search: the budget counts timed
 * samples only. */
static int calibrate(struct np_meas *m, const struct np_bench *b, double *t_start, bool *stop,
		     bool *steady, double *floor_rel, int *n)
{
	struct cal c = { .m = m, .b = b, .t_start = *t_start };
	struct np_batch_rule r = {
		.min_batch = m->batch > 0 ? m->batch : BATCH_TARGET,
		.max_batch = m->batch_max > 0 ? m->batch_max : m->budget / MIN_SAMPLES_BUDGET,
		.precision = m->ci_target > 0 ? m->ci_target : 0.01,
		.max_iters = MAX_ITERS,
	};
	struct np_batch_len len;

	if (!np_batch_find(&r, cal_batch, cal_agree, &c, &len)) {
		*stop = true;
		return 0;
	}
	*steady = len.steady;
	*floor_rel = len.t_per > 0 ? len.t_floor / len.t_per : 0;
	*n = 0;
	/* the latest three of that length: past the threes of 2k, 4k and
	 * 8k tried last */
	int i = 0;
	while (i + 3 <= CAL_KEEP && c.last[i].iters != len.iters)
		i += 3;
	if (!m->synced && i + 3 <= CAL_KEEP && c.n >= i + 3 && c.last[i].iters == len.iters &&
	    c.last[i + 1].iters == len.iters && c.last[i + 2].iters == len.iters) {
		for (int j = i + 2; j >= i; j--) {
			if (m->own)
				m->own[*n] = c.last[j].own / len.iters;
			m->samples[(*n)++] = c.last[j].t / len.iters;
		}
	}
	*t_start = meas_now(m);
	return len.iters;
}

/* Warm-up batches, each twice the last, until they have lasted secs of
 * the world's time (the slowest rank's: every rank decides alike);
 * false on a stop */
static bool warm_for(struct np_meas *m, const struct np_bench *b, double t_start, double secs)
{
	double spent = 0, t, el;
	bool stop = false;
	int k = m->o->warmup > 0 ? m->o->warmup : 1;

	while (spent < secs) {
		timed_batch(m, b, k, t_start, &t, &el, &stop, NULL);
		if (stop)
			return false;
		spent += t;
		if (k <= INT_MAX / 2)
			k *= 2;
	}
	return true;
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
	if (!o->iters && !m->warmed && m->warm_first > 0 && !warm_for(m, b, t_start, m->warm_first))
		return false;
	m->warmed = true;
	res->steady = -1;
	res->floor_rel = 1;
	if (o->iters) {
		iters = o->iters;
	} else {
		bool steady = false;
		iters = calibrate(m, b, &t_start, &stop, &steady, &res->floor_rel, &n);
		res->steady = steady;
	}
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
			bool noise = !conv &&
				     n >= (m->noise_min > MIN_SAMPLES_AUTO ? m->noise_min
									   : MIN_SAMPLES_AUTO) &&
				     np_stats_noise_bound(n, st.ci_half_rel, m->ci_target, el,
							  m->budget);
			int d[2] = { !conv && !noise, el >= m->budget && n >= MIN_SAMPLES_BUDGET };
			res->stop = conv    ? NP_STOP_CONVERGED
				    : noise ? NP_STOP_NOISE
					    : NP_STOP_BUDGET;
			if (m->synced)
				MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_INT, MPI_MAX, m->sync);
			if (!d[0] || d[1])
				break;
		}
	}
	res->converged = res->stop == NP_STOP_CONVERGED;
	if (res->steady == 0)
		res->stop = NP_STOP_UNSTEADY; /* whatever the interval, the time is too long */
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
	int more, d[2];

	if (!m->synced || m->o->iters)
		return; /* fixed batches agree on nothing over sync */
	/* the batch length: np_batch_find's agreements (cal_agree), as a
	 * party that has nothing more to time: the shortest batch's, then
	 * the steady state's, each until no group goes on */
	for (int phase = 0; phase < 2; phase++) {
		do {
			more = 0;
			MPI_Allreduce(MPI_IN_PLACE, &more, 1, MPI_INT, MPI_MAX, m->sync);
		} while (more);
	}
	/* the samples: until no group goes on, or the budget ends */
	do {
		turn_slots(m, 0, m->turns);
		d[0] = d[1] = 0;
		MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_INT, MPI_MAX, m->sync);
	} while (d[0] && !d[1]);
}

_Static_assert(NP_BE_HOSTLEN == NP_HOSTLEN, "host names: one length");

void np_backend_args(struct np_backend *be, const struct np_opts *o, const struct np_world *w,
		     const struct np_test_plan *test)
{
	struct np_backend_world *bw = &be->world;

	be->cfg.gpu_map = o->gpu_map;
	be->cfg.graph = o->graph;
	be->cfg.test = *test;
	bw->comm = w->comm;
	bw->node_comm = w->node_comm;
	bw->rank = w->rank;
	bw->size = w->size;
	bw->node = w->node;
	bw->nnodes = w->nnodes;
	bw->local_rank = w->local_rank;
	bw->local_size = w->local_size;
	bw->virtual_nodes = w->virtual_nodes;
	bw->hosts = (const char(*)[NP_BE_HOSTLEN])w->hosts;
	bw->mpi_version = w->mpi_version;
	bw->job_ranks = w->job_ranks;
	bw->job_size = w->job_size;
	bw->device = w->device;
}
