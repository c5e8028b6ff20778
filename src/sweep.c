/* SPDX-License-Identifier: MIT */
/* The sweep command: for each collective and size, check once, warm up,
 * then time samples until the median is known (--iters auto) or the fixed
 * count is done. Every decision is taken on values reduced over the world,
 * so all ranks take it alike. Rank 0 writes the report. This file holds
 * the command's start-up, its run loop and its ends (a signal, --timeout);
 * the plan, the limits, the verdict and the output have their own files
 * (sweep_state.h names them). */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../probes/nccl_log.h"
#include "cmds.h"
#include "compare.h"
#include "msg.h"
#include "report.h"
#include "sweep_state.h"
#include "sweep_verdict.h"
#include "watchdog.h"

#define CI_TARGET 0.01   /* 95% CI half-width of the median, relative */
#define SMALL_BUDGET 0.1 /* share of --budget for sizes below --judge-from */
/* the first point warms up at least this long: for a few hundred ms after
 * the launch its own start-up shares the cores (2 host ranks' 8 B
 * all-reduce read 0.460 us after 5 warm-up calls, 0.442 after 90 ms,
 * 0.433 after 220 ms; a plain loop timed for a second, 0.423-0.43) */
#define WARM_FIRST_S 0.25
#define NOISE_MIN_JUDGED 12 /* judged sizes: the interval leaves out the extremes */

extern char **environ;

/* A step of this rank alone, armed so that a hang there is named. */
static void step(struct sweep *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void step(struct sweep *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->step, sizeof(s->step), fmt, ap);
	va_end(ap);
	np_watchdog_arm("%s", s->step);
}

/* All ranks learn the worst status of the step; the failing ranks say why. */
static enum np_status agree(struct sweep *s, enum np_status st, const struct np_err *err)
{
	return np_step_agree(s->w->comm, st, err, s->step);
}

static _Noreturn void fail_all(struct sweep *s, enum np_status st)
{
	np_outfile_discard(&s->of); /* nothing when no file was opened */
	np_outfile_discard(&s->json_of);
	np_outfile_discard(&s->csv_of);
	np_watchdog_stop();
	if (s->be.ops && s->be.ops->finalize)
		s->be.ops->finalize(&s->be);
	np_exit(np_status_exit(st));
}

static _Noreturn void sweep_fail(void *arg, enum np_status st) { fail_all(arg, st ? st : NP_EMPI); }

void sweep_skip(struct sweep *s, const struct np_coll *c, uint64_t size, const char *fmt, ...)
{
	struct np_sweep_report *r = &s->rep;
	struct np_skip *sk;
	va_list ap;

	if (r->nskips == r->skips_cap) {
		size_t cap = r->skips_cap ? r->skips_cap * 2 : 16;
		struct np_skip *n = realloc(r->skips, cap * sizeof(*n));
		if (!n)
			return;
		r->skips = n;
		r->skips_cap = cap;
	}
	pthread_mutex_lock(&s->rep_lock);
	sk = &r->skips[r->nskips++];
	sk->coll = c;
	sk->size = size;
	va_start(ap, fmt);
	vsnprintf(sk->reason, sizeof(sk->reason), fmt, ap);
	va_end(ap);
	if (s->w->rank == 0) {
		if (s->stream)
			np_report_table_skip(s->out, sk);
		else {
			char sz[32] = "";
			if (size)
				np_human_size(size, sz, sizeof(sz));
			np_note("skipped %s%s%s: %s", c->name, size ? " " : "", sz, sk->reason);
		}
	}
	pthread_mutex_unlock(&s->rep_lock);
}

static void add_row(struct sweep *s, const struct np_result *res)
{
	struct np_sweep_report *r = &s->rep;
	double *times = NULL;

	if (res->samples > 0) {
		times = malloc((size_t)res->samples * sizeof(*times));
		if (!times)
			np_abort(NP_EXIT_RUNTIME, "out of memory for sample times");
		memcpy(times, s->meas.samples, (size_t)res->samples * sizeof(*times));
	}
	if (r->nrows == r->rows_cap) {
		size_t cap = r->rows_cap ? r->rows_cap * 2 : 64;
		struct np_result *n = realloc(r->rows, cap * sizeof(*n));
		if (!n)
			np_abort(NP_EXIT_RUNTIME, "out of memory for results");
		r->rows = n;
		r->rows_cap = cap;
	}
	pthread_mutex_lock(&s->rep_lock);
	r->rows[r->nrows] = *res;
	r->rows[r->nrows++].sample_times = times;
	if (s->w->rank == 0 && s->stream)
		np_report_table_row(s->out, &s->table, res);
	pthread_mutex_unlock(&s->rep_lock);
}

/* Without a largest size, the range reaches the sizes where the links
 * saturate (NVLink and InfiniBand from about 1 GiB): up to 8G on GPUs, the
 * largest size of the series whose buffers fit in the tightest rank's
 * free memory for every collective of the run; on host memory, where the
 * MPI backend checks logic rather than fabric speed, 128M. */
static void default_range(struct sweep *s)
{
	struct np_opts *o = s->o;
	size_t elt = np_dtypes[o->dtype].size, n;
	uint64_t mem = s->be.info.mem_avail, *sizes, fit = 0;
	bool device = (s->be.ops->caps & NP_CAP_DEVICE) != 0;
	char a[32], b[32];

	if (!o->max_default)
		return;
	np_watchdog_arrive(s->w->comm, "choosing the default sizes");
	MPI_Allreduce(MPI_IN_PLACE, &mem, 1, MPI_UINT64_T, MPI_MIN, s->w->comm);
	o->max_bytes = np_opts_default_max(o, device);
	n = np_opts_sizes(o, NULL, 0);
	sizes = calloc(n, sizeof(*sizes));
	if (!sizes)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %zu sizes", n);
	np_opts_sizes(o, sizes, n);
	for (size_t i = 0; i < n; i++) {
		bool fits = true;
		for (int c = 0; c < NP_COLL_COUNT; c++) {
			struct np_layout lay;
			if (!o->colls[c])
				continue;
			np_coll_layout(&np_colls[c], sizes[i], elt, s->w->size, &lay);
			if (np_plan_need(&lay, o->inplace) > mem)
				fits = false;
		}
		if (fits)
			fit = sizes[i];
	}
	free(sizes);
	if (fit)
		o->max_bytes = fit; /* else every size is skipped, with the reason */
	np_human_size(o->max_bytes, a, sizeof(a));
	np_human_size(mem, b, sizeof(b));
	if (device)
		np_notes_add(&s->rep.notes,
			     "default sizes up to %s: the largest up to 8 GiB whose buffers fit in the tightest rank's free memory (%s), so the links reach saturation; --sweep MIN:MAX to choose",
			     a, b);
	else
		np_notes_add(&s->rep.notes,
			     "default sizes up to %s on host memory (GPUs: up to 8 GiB); --sweep MIN:MAX to choose",
			     a);
}

/* What the backend cannot do with these options: a usage error on every
 * rank alike (the backend's facts were agreed at init). */
static void backend_fit(struct sweep *s)
{
	const struct np_opts *o = s->o;
	int ok = s->be.info.dtype_ok[o->dtype], all = 0;

	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, s->w->comm);
	if (!all) {
		if (s->w->rank == 0)
			np_error("--dtype %s: %s; choose another type", np_dtype_str(o->dtype),
				 s->be.info.dtype_why[0]
					 ? s->be.info.dtype_why
					 : "the backend's library has no such type");
		fail_all(s, NP_EUSAGE);
	}
	ok = !!(s->be.info.ops_ok[o->dtype] & (1u << o->op));
	{
		bool reduces = false;
		for (int c = 0; c < NP_COLL_COUNT; c++)
			reduces |= o->colls[c] && (np_colls[c].flags & NP_COLL_F_REDUCE);
		if (!reduces)
			ok = 1;
	}
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, s->w->comm);
	if (!all) {
		if (s->w->rank == 0)
			np_error("--op %s on %s: the %s backend's library has no such reduction; choose another --op or --dtype",
				 np_redop_str(o->op), np_dtype_str(o->dtype), s->be.ops->name);
		fail_all(s, NP_EUSAGE);
	}
	if (o->graph && !(s->be.ops->caps & NP_CAP_GRAPHS))
		np_notes_add(&s->rep.notes,
			     "--graph has no effect: the %s backend has no CUDA graphs",
			     s->be.ops->name);
	if (s->be.info.calls[0])
		np_notes_add(&s->rep.notes, "%s", s->be.info.calls);
}

static void gather_ranks(struct sweep *s)
{
	struct np_rank_info me = { 0 };

	me.rank = s->w->rank;
	me.local_rank = s->w->local_rank;
	me.node = s->w->node;
	me.pid = s->w->pid;
	me.device = s->be.info.device;
	snprintf(me.host, sizeof(me.host), "%s", s->w->host);
	snprintf(me.bus_id, sizeof(me.bus_id), "%s", s->be.info.bus_id);
	snprintf(me.device_name, sizeof(me.device_name), "%s", s->be.info.device_name);
	if (s->w->rank == 0) {
		s->rep.ranks = calloc((size_t)s->w->size, sizeof(*s->rep.ranks));
		if (!s->rep.ranks)
			np_abort(NP_EXIT_RUNTIME, "out of memory");
	}
	np_watchdog_arrive(s->w->comm, "gathering every rank's device");
	MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, s->rep.ranks, (int)sizeof(me), MPI_BYTE, 0,
		   s->w->comm);
}

/* The GPU clocks of each rank's GPU over the sweep, for the report to
 * put beside the slowest rank: read before the first row and after the
 * last one (a rank without a GPU reads nothing), gathered to rank 0. A
 * clock read takes NVML's start-up, twice per run. */
static void clocks_begin(struct sweep *s)
{
	np_gpu_clocks_read(s->be.info.bus_id[0] ? s->be.info.bus_id : NULL, &s->clk0);
}

static void clocks_end(struct sweep *s)
{
	struct np_gpu_clocks end, span;

	np_gpu_clocks_read(s->be.info.bus_id[0] ? s->be.info.bus_id : NULL, &end);
	np_gpu_clocks_span(&s->clk0, &end, &span);
	if (s->w->rank == 0) {
		s->rep.clocks = calloc((size_t)s->w->size, sizeof(*s->rep.clocks));
		if (!s->rep.clocks)
			np_abort(NP_EXIT_RUNTIME, "out of memory");
	}
	np_watchdog_arrive(s->w->comm, "gathering GPU clocks");
	MPI_Gather(&span, (int)sizeof(span), MPI_BYTE, s->rep.clocks, (int)sizeof(span), MPI_BYTE,
		   0, s->w->comm);
}

/* An NCCL_ variable the user set for NCCL (not the log settings
 * src/main.c made, nor a virtual node's host id, nor nccl-probe's own
 * NCCL_PROBE_ settings, which NCCL never reads). */
static bool user_nccl_var(const char *e)
{
	return !strncmp(e, "NCCL_", 5) && strncmp(e, "NCCL_PROBE_", 11) && !np_nccl_env_ours(e);
}

static char **nccl_env(void)
{
	size_t n = 0, k = 0;
	char **v;

	for (char **e = environ; *e; e++)
		if (user_nccl_var(*e))
			n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (char **e = environ; *e && k < n; e++)
		if (user_nccl_var(*e))
			v[k++] = *e;
	return v;
}

static void host_notes(struct sweep *s)
{
	const struct np_world *w = s->w;

	if (w->virtual_nodes)
		np_notes_add(&s->rep.notes,
			     "virtual nodes: every %d consecutive ranks count as one node (--ranks-per-node)",
			     w->ranks_per_node);
	if (getenv("NCCL_TESTS_MIN_BW") && *getenv("NCCL_TESTS_MIN_BW") &&
	    s->o->format != NP_FMT_NCCLTESTS)
		np_notes_add(&s->rep.notes,
			     "NCCL_TESTS_MIN_BW is not judged: it checks the Avg bus bandwidth line of --format nccl-tests; use --min-busbw");
	if (s->o->gpu_map && !(s->be.ops->caps & NP_CAP_DEVICE))
		np_notes_add(&s->rep.notes,
			     "--gpu-map %s is not used: the %s backend runs on host memory, no GPU",
			     s->o->gpu_map, s->be.ops->name);
	if (!w->virtual_nodes && w->nnodes > 1) {
		bool same = true;
		for (int r = 1; r < w->size; r++)
			if (strcmp(w->hosts[r], w->hosts[0]))
				same = false;
		if (same)
			np_notes_add(&s->rep.notes,
				     "%d nodes but every rank reports host '%s': check hostnames (containers?) before trusting per-node results",
				     w->nnodes, w->hosts[0]);
	}
	if (!w->ranks_per_node && s->node_L) {
		int lo = w->size, hi = 0, k = s->worst;
		for (int j = 0; j < w->nnodes; j++) {
			lo = s->node_L[j] < lo ? s->node_L[j] : lo;
			hi = s->node_L[j] > hi ? s->node_L[j] : hi;
		}
		np_notes_add(&s->rep.notes,
			     "nodes have %d to %d ranks; each row's limit is the least over nodes, each with its own rank count and B_node (the worst: node %d, %d ranks, B_node %.1f GB/s)",
			     lo, hi, k, s->node_L[k], s->node_B[k]);
	}
	if (w->virtual_nodes && (s->be.ops->caps & NP_CAP_HOSTID_VNODES))
		np_notes_add(&s->rep.notes,
			     "virtual nodes on the NCCL backend: each has its own NCCL host id (NCCL_HOSTID, e.g. '%s'), so NCCL moves data between them with its network transport (%s); B_node is that transport, not this host's NICs",
			     s->be.info.host_id,
			     s->be.info.transport[0] ? s->be.info.transport
						     : "transport not reported");
}

/* The report of the rows that finished, marked interrupted (rank 0, the
 * watchdog thread, rep_lock held): with code and why the job's end when
 * it is not an interrupt (a timeout, a rank that ended), so that the
 * report's exit code is the job's. */
static void end_report(struct sweep *s, int code, const char *why)
{
	sweep_progress_clear(s);
	s->rep.interrupted = true;
	s->rep.complete = false;
	s->rep.wall_seconds = np_now_s() - s->t0;
	np_sweep_verdict(&s->rep);
	if (code != NP_EXIT_INTERRUPTED) {
		np_sweep_add_verdict(&s->rep, "%s: the report holds the %zu row%s that finished",
				     why, s->rep.nrows, s->rep.nrows == 1 ? "" : "s");
		s->rep.exit_code = code;
	}
	sweep_finish_output(s);
}

/* A signal came while the main thread is stuck in a collective (watchdog
 * thread): the same whole, marked-incomplete report as an interrupt
 * between batches, then exit; the main thread never gets the lock back.
 * When the signal is the launcher's after a timeout or after a rank ended
 * (code 4 or 3), the report and the exit say so, not 130. */
static _Noreturn void takeover(void *arg, int sig, int code, const char *why)
{
	struct sweep *s = arg;

	pthread_mutex_lock(&s->rep_lock);
	if (s->w->rank == 0) {
		end_report(s, code, why);
		if (code == NP_EXIT_INTERRUPTED && *why)
			np_error("interrupted by a signal on another rank: %s, while this rank's collective had not finished (row %d of %d); the report holds the %zu rows that finished",
				 why, s->done + 1, s->planned, s->rep.nrows);
		else if (code == NP_EXIT_INTERRUPTED)
			np_error("interrupted by signal %d while a collective had not finished (row %d of %d); the report holds the %zu rows that finished",
				 sig, s->done + 1, s->planned, s->rep.nrows);
	}
	np_cleanup();
	fflush(stdout);
	fflush(stderr);
	_exit(s->w->rank == 0 ? s->rep.exit_code : code);
}

/* --timeout fired (watchdog thread, rank 0): the report, -J and --csv of
 * the rows that finished, marked interrupted, with exit 4 in the verdict */
static void hang_report(void *arg)
{
	struct sweep *s = arg;
	char why[64];

	pthread_mutex_lock(&s->rep_lock);
	snprintf(why, sizeof(why), "timed out (--timeout %g s, exit 4)", s->o->timeout);
	end_report(s, NP_EXIT_TIMEOUT, why);
	fflush(stdout);
	/* the lock stays held: the job ends now */
}

/* --baseline, checked on rank 0 with the files named (src/main.c agrees
 * on it over the world) */
enum np_status np_sweep_check(struct np_run *run, struct np_err *err)
{
	enum np_status st;
	char msg[sizeof(err->msg)];

	if (!run->o.baseline || run->w.rank != 0 || !(st = np_compare_check(run->o.baseline, err)))
		return NP_OK;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	return np_fail(err, st, "--baseline: %s", msg);
}

/* The backend up and fitted, the facts of the world gathered, the range
 * and the limits known; the table's header written */
static void start_backend(struct sweep *s, struct np_run *run)
{
	const struct np_opts *o = s->o;
	const struct np_world *w = s->w;

	s->be.ops = run->ops;
	np_backend_args(&s->be, o, w, &run->test);
	s->rep.opts = o;
	s->rep.world = w;
	s->rep.backend = run->ops->name;
	snprintf(s->rep.backend_why, sizeof(s->rep.backend_why), "%s", run->backend_why);
	np_watchdog_set_backend(&s->be);
	snprintf(s->step, sizeof(s->step), "%s backend initialization", run->ops->name);
	np_watchdog_arrive(w->comm, "%s", s->step);
	{
		enum np_status rc = run->ops->init(&s->be);
		if (agree(s, rc, rc ? &s->be.err : NULL))
			fail_all(s, rc ? rc : NP_EMPI);
	}
	backend_fit(s);
	gather_ranks(s);
	clocks_begin(s);
	s->rep.info = s->be.info;
	MPI_Bcast(&s->rep.info, (int)sizeof(s->rep.info), MPI_BYTE, 0, w->comm);
	s->rep.nccl_env = nccl_env();
	default_range(s);
	s->rep.judge_from = sweep_judge_from(o);
	sweep_gather_limits(s);
	host_notes(s);
	if (w->size == 1)
		for (int c = 0; c < NP_COLL_COUNT; c++)
			if (o->colls[c] && o->coll_min_busbw[c] > 0) {
				np_notes_add(&s->rep.notes,
					     "--min-busbw is not judged on one rank: busbw is 0 by definition there (no data crosses a bus); run 2 or more ranks to judge busbw");
				break;
			}
	if (w->rank == 0 && s->stream) {
		if (!o->quiet)
			np_report_table_header(s->out, &s->rep);
		s->table.wide = o->wide;
		np_report_table_columns(s->out, &s->table);
	}
}

/* Buffers for the largest point and the engine's arrays */
static void start_measure(struct sweep *s, size_t npts, size_t max_send, size_t max_recv)
{
	enum np_status rc = NP_OK;

	if (!npts) {
		np_outfile_discard(&s->of);
		np_outfile_discard(&s->json_of);
		np_outfile_discard(&s->csv_of);
		np_die(NP_EXIT_USAGE,
		       "nothing to run: every size of the sweep was skipped (see the notes above); choose other sizes or collectives");
	}
	step(s, "allocating buffers");
	rc = s->be.ops->alloc(&s->be, max_send, max_recv);
	if (agree(s, rc, rc ? &s->be.err : NULL))
		fail_all(s, rc ? rc : NP_EMPI);
	s->meas.be = &s->be;
	s->meas.o = s->o;
	s->meas.budget = s->o->budget;
	/* the steady state is a property of the point, not of its share of
	 * the budget: every size may search batches up to a third of it */
	s->meas.batch_max = s->o->budget / 3;
	s->meas.ci_target = CI_TARGET;
	s->meas.warm_first = WARM_FIRST_S;
	s->meas.stop = &np_signal;
	s->meas.fail = sweep_fail;
	s->meas.fail_arg = s;
	s->meas.samples = calloc(NP_MEAS_MAX_SAMPLES, sizeof(double));
	s->meas.sorted = calloc(NP_MEAS_MAX_SAMPLES, sizeof(double));
	s->meas.own = calloc(NP_MEAS_MAX_SAMPLES, sizeof(double));
	if (!s->meas.samples || !s->meas.sorted || !s->meas.own)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
}

/* Every point in turn, until the last or a signal */
static void run_points(struct sweep *s, const struct np_plan_point *pts, size_t npts)
{
	const struct np_opts *o = s->o;

	for (size_t i = 0; i < npts; i++) {
		struct np_bench b = { .coll = pts[i].coll,
				      .dtype = o->dtype,
				      .op = o->op,
				      .root = o->root,
				      .inplace = pts[i].inplace,
				      .lay = pts[i].lay };
		struct np_result res;
		bool whole, judged = pts[i].lay.size >= s->rep.judge_from;

		if (s->w->rank == 0)
			sweep_progress(s, &b);
		/* the time goes where the verdict is judged */
		s->meas.budget = judged ? o->budget : o->budget * SMALL_BUDGET;
		s->meas.noise_min = judged ? NOISE_MIN_JUDGED : 0;
		whole = np_measure(&s->meas, &b, &res);
		res.judged = judged;
		if (s->w->rank == 0)
			sweep_progress_clear(s);
		if (whole) {
			sweep_row_limit(s, &res);
			np_sweep_row_verdict(&s->rep, &res);
			add_row(s, &res);
		}
		s->done++;
		if (!whole) {
			np_watchdog_interrupted(); /* this thread ends the run */
			s->rep.interrupted = true;
			s->rep.complete = false;
			break;
		}
	}
}

static void sweep_release(struct sweep *s)
{
	free(s->meas.samples);
	free(s->meas.sorted);
	free(s->meas.own);
	for (size_t i = 0; i < s->rep.nrows; i++)
		free(s->rep.rows[i].sample_times);
	free(s->rep.rows);
	free(s->rep.details);
	free(s->rep.skips);
	free(s->rep.ranks);
	free(s->rep.clocks);
	free(s->rep.nccl_env);
	np_notes_release(&s->rep.notes);
	np_notes_release(&s->rep.verdict);
	free(s->node_L);
	free(s->node_B);
}

int cmd_sweep(struct np_run *run)
{
	static struct sweep sw;
	struct sweep *s = &sw;
	const struct np_opts *o = &run->o;
	struct np_err err = { 0 };
	struct np_plan_point *pts;
	size_t npts, max_send, max_recv;
	char *cmp_text = NULL;
	int code;

	s->o = &run->o;
	s->w = &run->w;
	pthread_mutex_init(&s->rep_lock, NULL);
	s->rep.run = run->rec;
	{
		enum np_status rc;
		step(s, "opening --output");
		rc = sweep_open_output(s, &err);
		if (agree(s, rc, rc ? &err : NULL))
			fail_all(s, rc ? rc : NP_EMPI);
	}
	np_meas_test_stall(&s->meas, &run->test);
	start_backend(s, run);
	pts = sweep_plan(s, &npts, &max_send, &max_recv);
	s->planned = (int)npts;
	start_measure(s, npts, max_send, max_recv);
	s->rep.complete = true;
	s->t0 = run->t0;
	np_watchdog_on_interrupt(takeover, s);
	np_watchdog_on_hang(hang_report, s);
	run_points(s, pts, npts);
	if (!s->rep.interrupted)
		clocks_end(s);
	np_watchdog_stop();
	s->rep.wall_seconds = np_now_s() - run->t0;
	np_sweep_verdict(&s->rep);
	if (o->baseline && s->w->rank == 0 && !s->rep.interrupted)
		cmp_text = sweep_compare_baseline(s);
	sweep_finish_output(s);
	if (cmp_text) {
		/* beside the table when it is on standard output, else on stderr */
		bool table_out =
			o->format == NP_FMT_TABLE && (!o->output || !strcmp(o->output, "-"));
		fflush(stdout);
		fputs(cmp_text, table_out ? stdout : stderr);
		free(cmp_text);
	}
	if (s->rep.interrupted && s->w->rank == 0)
		np_error("interrupted by signal %d%s after %zu of %d rows; the report holds the rows that finished",
			 np_signal ? (int)np_signal : s->meas.stop_sig,
			 np_signal ? "" : " on another rank", s->rep.nrows, s->planned);
	s->be.ops->finalize(&s->be);
	free(pts);
	sweep_release(s);
	code = s->rep.exit_code;
	MPI_Bcast(&code, 1, MPI_INT, 0, s->w->comm);
	return code;
}
