/* SPDX-License-Identifier: MIT */
/* The sweep command: for each collective and size, check once, warm up,
 * then time samples until the median is known (--iters auto) or the fixed
 * count is done. Every decision is taken on values reduced over the world,
 * so all ranks take it alike. Rank 0 writes the report. */
#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "msg.h"
#include "report.h"
#include "stats.h"
#include "sweep.h"
#include "watchdog.h"

#define MAX_SAMPLES 10000
#define MIN_SAMPLES_AUTO 5
#define MIN_SAMPLES_BUDGET 3   /* when the budget runs out first */
#define BATCH_TARGET 20e-3     /* seconds a batch should last with --iters auto */
#define CI_TARGET 0.01         /* 95% CI half-width of the median, relative */
#define MAX_ITERS (1 << 20)

extern char **environ;

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) { g_stop = sig; }

struct sweep {
	struct np_opts *o;
	struct np_world *w;
	struct np_backend be;
	struct np_sweep_report rep;
	struct np_outfile of;
	FILE *out;            /* rank 0: where the report goes */
	bool stream;          /* rank 0: table rows streamed to out */
	bool progress;        /* rank 0: progress line on stderr */
	int stall_rank;       /* NCCL_PROBE_TEST_STALL=R (host stall), -1 none */
	double *samples;
	double *sorted;
	int planned, done;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* All ranks learn the worst status; the failing ranks say why. */
static enum np_status agree(struct sweep *s, enum np_status st, const struct np_err *err)
{
	int mine = (int)st, worst = 0;

	MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, s->w->comm);
	if (st != NP_OK && err && !err->secondary)
		np_rank_error("%s", err->msg);
	return (enum np_status)worst;
}

static _Noreturn void fail_all(struct sweep *s, enum np_status st)
{
	np_outfile_discard(&s->of); /* nothing when no file was opened */
	np_watchdog_stop();
	if (s->be.ops && s->be.ops->finalize)
		s->be.ops->finalize(&s->be);
	np_exit(np_status_exit(st));
}

static void add_skip(struct sweep *s, const struct np_coll *c, uint64_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_skip(struct sweep *s, const struct np_coll *c, uint64_t size, const char *fmt, ...)
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
}

static void add_note(struct sweep *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_note(struct sweep *s, const char *fmt, ...)
{
	va_list ap;

	if (s->rep.nnotes >= (int)(sizeof(s->rep.notes) / sizeof(s->rep.notes[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(s->rep.notes[s->rep.nnotes++], sizeof(s->rep.notes[0]), fmt, ap);
	va_end(ap);
}

static void add_verdict(struct np_sweep_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_verdict(struct np_sweep_report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nverdict >= (int)(sizeof(r->verdict) / sizeof(r->verdict[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(r->verdict[r->nverdict++], sizeof(r->verdict[0]), fmt, ap);
	va_end(ap);
}

static void stall_if_asked(struct sweep *s)
{
	if (s->stall_rank != s->w->rank)
		return;
	s->stall_rank = -1;
	for (;;)
		sleep(1); /* test-only: the watchdog ends this */
}

/* One timed batch: every rank's time, reduced with MAX; also the stop
 * flag and elapsed time, so every rank takes the next decision alike. */
static void timed_batch(struct sweep *s, const struct np_bench *b, int iters, double t_start,
			double *t_max, double *elapsed, bool *stop)
{
	double in[3], outv[3], t = 0;

	np_watchdog_arm("%s of %zu B (batch of %d)", b->coll->name, b->lay.size, iters);
	stall_if_asked(s);
	if (s->be.ops->run(&s->be, b, iters, &t) != NP_OK)
		np_abort_err(&s->be.err); /* the others are inside the collective */
	in[0] = t;
	in[1] = now_s() - t_start;
	in[2] = g_stop ? 1 : 0;
	MPI_Allreduce(in, outv, 3, MPI_DOUBLE, MPI_MAX, s->w->comm);
	np_watchdog_disarm();
	*t_max = outv[0];
	*elapsed = outv[1];
	*stop = outv[2] > 0;
}

/* Measure one point; false when interrupted. */
static bool measure(struct sweep *s, const struct np_bench *b, struct np_result *res)
{
	const struct np_opts *o = s->o;
	double t_start = now_s(), t, el;
	bool stop = false;
	int iters, target = o->iters ? o->samples : MAX_SAMPLES, n = 0;
	struct np_stats st = { 0 };
	enum np_status rc;

	memset(res, 0, sizeof(*res));
	res->coll = b->coll;
	res->dtype = b->dtype;
	res->op = b->op;
	res->root = (b->coll->flags & NP_COLL_F_ROOTED) ? b->root : -1;
	res->inplace = b->inplace;
	res->lay = b->lay;
	res->eff = NAN;
	res->ci_half_rel = INFINITY;

	np_watchdog_arm("preparing %s of %zu B", b->coll->name, b->lay.size);
	rc = s->be.ops->prepare(&s->be, b);
	np_watchdog_disarm();
	if (agree(s, rc, rc ? &s->be.err : NULL))
		fail_all(s, rc ? rc : NP_EMPI);
	if (o->check) {
		uint64_t wrong = 0, total = 0;
		timed_batch(s, b, 1, t_start, &t, &el, &stop);
		if (stop)
			return false;
		np_watchdog_arm("checking %s of %zu B", b->coll->name, b->lay.size);
		rc = s->be.ops->check(&s->be, b, &wrong);
		np_watchdog_disarm();
		if (agree(s, rc, rc ? &s->be.err : NULL))
			fail_all(s, rc ? rc : NP_EMPI);
		MPI_Allreduce(&wrong, &total, 1, MPI_UINT64_T, MPI_SUM, s->w->comm);
		res->checked = true;
		res->wrong = total;
		if (wrong)
			np_rank_error("%s of %zu B: %llu of this rank's result elements are wrong",
				      b->coll->name, b->lay.size, (unsigned long long)wrong);
	}
	if (o->warmup > 0) {
		timed_batch(s, b, o->warmup, t_start, &t, &el, &stop);
		if (stop)
			return false;
	}
	if (o->iters) {
		iters = o->iters;
	} else {
		/* as many iterations as fill a batch of BATCH_TARGET, so that the
		 * barrier before a batch and the skew of its start are a small
		 * part of it: batches of 1, 8, 64, ... iterations until one lasts
		 * an eighth of the target (the warm-up's first calls, which set
		 * up connections, would overestimate the time of one; few steps,
		 * since with --graph each new batch length is a new capture) */
		int k = 1;
		for (;;) {
			timed_batch(s, b, k, t_start, &t, &el, &stop);
			if (stop)
				return false;
			if (t >= BATCH_TARGET / 8 || k >= MAX_ITERS / 8)
				break;
			k *= 8;
		}
		iters = t > 0 ? (int)ceil(BATCH_TARGET * k / t) : MAX_ITERS;
		if (iters < 1)
			iters = 1;
		if (iters > MAX_ITERS)
			iters = MAX_ITERS;
		t_start = now_s(); /* the budget counts timed samples only */
	}
	res->iters = iters;
	while (n < target) {
		timed_batch(s, b, iters, t_start, &t, &el, &stop);
		if (stop)
			return false; /* interrupted: a row is reported whole or not at all */
		s->samples[n++] = t / iters;
		if (o->iters)
			continue;
		memcpy(s->sorted, s->samples, (size_t)n * sizeof(double));
		np_stats_compute(s->sorted, n, &st);
		if (n >= MIN_SAMPLES_AUTO && st.ci_half_rel <= CI_TARGET) {
			res->converged = true;
			break;
		}
		if (el >= o->budget && n >= MIN_SAMPLES_BUDGET)
			break;
	}
	memcpy(s->sorted, s->samples, (size_t)n * sizeof(double));
	np_stats_compute(s->sorted, n, &st);
	res->samples = n;
	res->t_med = st.median;
	res->t_min = st.min;
	res->t_max = st.max;
	res->ci_half_rel = st.ci_half_rel;
	res->algbw = np_algbw(b->lay.size, st.median);
	res->busbw = np_busbw(b->coll, s->w->size, res->algbw);
	return true;
}

static void add_row(struct sweep *s, const struct np_result *res)
{
	struct np_sweep_report *r = &s->rep;

	if (r->nrows == r->rows_cap) {
		size_t cap = r->rows_cap ? r->rows_cap * 2 : 64;
		struct np_result *n = realloc(r->rows, cap * sizeof(*n));
		if (!n)
			np_abort(NP_EXIT_RUNTIME, "out of memory for results");
		r->rows = n;
		r->rows_cap = cap;
	}
	r->rows[r->nrows++] = *res;
	if (s->w->rank == 0 && s->stream)
		np_report_table_row(s->out, res);
}

static void progress(struct sweep *s, const struct np_bench *b)
{
	char sz[32];

	if (!s->progress)
		return;
	np_human_size(b->lay.size, sz, sizeof(sz));
	fprintf(stderr, "\r\033[K[%d/%d] %s %s", s->done + 1, s->planned, b->coll->name, sz);
	fflush(stderr);
}

static void progress_clear(struct sweep *s)
{
	if (s->progress) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

struct point {
	const struct np_coll *coll;
	struct np_layout lay;
};

/* Lay out every point; skip what cannot run; returns the points to run. */
static struct point *plan(struct sweep *s, size_t *npoints, size_t *max_send, size_t *max_recv)
{
	const struct np_opts *o = s->o;
	size_t elt = np_dtypes[o->dtype].size, nsizes, np = 0;
	uint64_t *sizes, mem = s->be.info.mem_avail;
	struct point *pts;

	MPI_Allreduce(MPI_IN_PLACE, &mem, 1, MPI_UINT64_T, MPI_MIN, s->w->comm);
	nsizes = np_opts_sizes(o, NULL, 0);
	sizes = calloc(nsizes, sizeof(*sizes));
	pts = calloc(nsizes * NP_COLL_COUNT + 1, sizeof(*pts));
	if (!sizes || !pts)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %zu sizes", nsizes);
	np_opts_sizes(o, sizes, nsizes);
	*max_send = *max_recv = 0;
	for (int c = 0; c < NP_COLL_COUNT; c++) {
		const struct np_coll *coll = &np_colls[c];
		if (!o->colls[c])
			continue;
		if (o->inplace && !(coll->flags & NP_COLL_F_INPLACE)) {
			add_skip(s, coll, 0, "has no in-place form; run it without --inplace");
			continue;
		}
		for (size_t i = 0; i < nsizes; i++) {
			struct np_layout lay;
			uint64_t need;
			np_coll_layout(coll, sizes[i], elt, s->w->size, &lay);
			if (lay.count == 0) {
				add_skip(s, coll, sizes[i],
					 "rounds to 0 %s elements per rank on %d ranks; use a larger size",
					 np_dtype_str(o->dtype), s->w->size);
				continue;
			}
			if (lay.count > (size_t)INT32_MAX && !strcmp(s->be.ops->name, "mpi")) {
				add_skip(s, coll, sizes[i],
					 "%zu elements exceed MPI's int count; use a larger --dtype or a smaller size",
					 lay.count);
				continue;
			}
			need = o->inplace ? (lay.send_bytes > lay.recv_bytes ? lay.send_bytes : lay.recv_bytes)
					  : lay.send_bytes + lay.recv_bytes;
			if (need > mem) {
				char a[32], m[32];
				np_human_size(need, a, sizeof(a));
				np_human_size(mem, m, sizeof(m));
				add_skip(s, coll, sizes[i],
					 "needs %s of buffers per rank, %s available on the tightest rank",
					 a, m);
				continue;
			}
			pts[np].coll = coll;
			pts[np].lay = lay;
			np++;
			if (o->inplace) {
				size_t big = lay.send_bytes > lay.recv_bytes ? lay.send_bytes : lay.recv_bytes;
				if (big > *max_recv)
					*max_recv = big;
			} else {
				if (lay.send_bytes > *max_send)
					*max_send = lay.send_bytes;
				if (lay.recv_bytes > *max_recv)
					*max_recv = lay.recv_bytes;
			}
		}
	}
	free(sizes);
	*npoints = np;
	return pts;
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
	MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, s->rep.ranks, (int)sizeof(me), MPI_BYTE, 0,
		   s->w->comm);
}

static char **nccl_env(void)
{
	size_t n = 0, k = 0;
	char **v;

	for (char **e = environ; *e; e++)
		if (!strncmp(*e, "NCCL_", 5))
			n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (char **e = environ; *e && k < n; e++)
		if (!strncmp(*e, "NCCL_", 5))
			v[k++] = *e;
	return v;
}

/* Link limits: each rank's facts, reduced to the world's bottleneck (the
 * slowest GPU link, the node with the least NIC bandwidth, the slowest
 * nearest NIC); discovery failures only leave the limits unknown. */
static void gather_limits(struct sweep *s)
{
	struct np_bw_facts f;
	struct np_err err = { 0 };
	struct { double v; int rank; } in[3], out[3];

	if (np_bw_facts_local(s->be.info.bus_id, &f, &err) != NP_OK) {
		memset(&f, 0, sizeof(f));
		snprintf(f.gpu_src, sizeof(f.gpu_src), "unknown: %.80s", err.msg);
	}
	/* a zero (unknown) on any rank makes the world's value unknown */
	in[0].v = f.gpu_gbps > 0 ? f.gpu_gbps : -1;
	in[1].v = f.node_gbps > 0 ? f.node_gbps : -1;
	in[2].v = f.nic_gbps > 0 ? f.nic_gbps : -1;
	for (int i = 0; i < 3; i++)
		in[i].rank = s->w->rank;
	MPI_Allreduce(in, out, 3, MPI_DOUBLE_INT, MPI_MINLOC, s->w->comm);
	/* the evidence of the bottleneck ranks */
	MPI_Bcast(f.gpu_src, sizeof(f.gpu_src), MPI_CHAR, out[0].rank, s->w->comm);
	MPI_Bcast(f.node_src, sizeof(f.node_src), MPI_CHAR, out[1].rank, s->w->comm);
	MPI_Bcast(&f.proto_gbps, 1, MPI_DOUBLE, out[0].rank, s->w->comm);
	s->rep.bw = f;
	s->rep.bw.gpu_gbps = out[0].v > 0 ? out[0].v : 0;
	s->rep.bw.node_gbps = out[1].v > 0 ? out[1].v : 0;
	s->rep.bw.nic_gbps = out[2].v > 0 ? out[2].v : 0;
	if (!(s->rep.bw.gpu_gbps > 0))
		s->rep.bw.proto_gbps = 0;
	s->rep.bw_gpu_rank = out[0].rank;
	s->rep.bw_known = true;
}

/* limit and eff of one row (DESIGN.md Limits); one rank: no bus traffic */
static void row_limit(const struct sweep *s, struct np_result *res)
{
	const struct np_world *w = s->w;
	int L = w->ranks_per_node ? w->ranks_per_node : w->local_size;

	res->limit = 0;
	res->eff = NAN;
	if (w->size < 2 || !s->rep.bw_known)
		return;
	res->limit = np_limit_busbw(res->coll->id, w->size, L, s->rep.bw.gpu_gbps,
				    s->rep.bw.node_gbps, s->rep.bw.nic_gbps);
	if (res->limit > 0)
		res->eff = res->busbw / res->limit;
}

static void host_notes(struct sweep *s)
{
	const struct np_world *w = s->w;

	if (w->virtual_nodes)
		add_note(s, "virtual nodes: every %d consecutive ranks count as one node (--ranks-per-node)",
			 w->ranks_per_node);
	if (!w->virtual_nodes && w->nnodes > 1) {
		bool same = true;
		for (int r = 1; r < w->size; r++)
			if (strcmp(w->hosts[r], w->hosts[0]))
				same = false;
		if (same)
			add_note(s, "%d nodes but every rank reports host '%s': check hostnames (containers?) before trusting per-node results",
				 w->nnodes, w->hosts[0]);
	}
	if (!w->ranks_per_node)
		add_note(s, "nodes have different rank counts; per-node limits use the smallest");
}

static void verdict(struct sweep *s)
{
	struct np_sweep_report *r = &s->rep;
	struct np_summary sum[NP_COLL_COUNT];
	int n = np_report_summary(r, sum, NP_COLL_COUNT);
	uint64_t wrong = 0;

	for (size_t i = 0; i < r->nrows; i++)
		wrong += r->rows[i].wrong;
	r->exit_code = 0;
	if (wrong) {
		add_verdict(r, "wrong data: %llu wrong elements (exit 2)", (unsigned long long)wrong);
		r->exit_code = NP_EXIT_WRONG;
	}
	for (int i = 0; i < n; i++) {
		char sz[32];
		np_human_size(sum[i].last_size, sz, sizeof(sz));
		if (s->o->min_busbw > 0 && sum[i].last_busbw < s->o->min_busbw) {
			add_verdict(r, "%s busbw %.2f GB/s at %s is below --min-busbw %g",
				    sum[i].coll->name, sum[i].last_busbw, sz, s->o->min_busbw);
			if (!r->exit_code)
				r->exit_code = NP_EXIT_VERDICT;
		}
		if (s->o->min_eff > 0 && !(sum[i].last_eff >= s->o->min_eff)) {
			if (isfinite(sum[i].last_eff))
				add_verdict(r, "%s eff %.0f%% at %s is below --min-eff %g%%",
					    sum[i].coll->name, sum[i].last_eff * 100, sz,
					    s->o->min_eff * 100);
			else
				add_verdict(r, "%s eff at %s is unknown (no link rate found), so --min-eff %g%% cannot be met",
					    sum[i].coll->name, sz, s->o->min_eff * 100);
			if (!r->exit_code)
				r->exit_code = NP_EXIT_VERDICT;
		}
	}
	if (r->interrupted && !r->exit_code)
		r->exit_code = NP_EXIT_INTERRUPTED;
}

static enum np_status open_output(struct sweep *s, struct np_err *err)
{
	if (s->w->rank != 0)
		return NP_OK;
	if (s->o->output) {
		if (np_outfile_open(&s->of, s->o->output, err))
			return err->status;
		s->out = s->of.f;
	} else {
		s->out = stdout;
	}
	s->stream = s->o->format == NP_FMT_TABLE;
	/* stderr on a terminal (under mpirun a rank's stderr is a pipe, and
	 * its stdout a pty whatever mpirun's own output is, so neither tells);
	 * a table streamed to the terminal is its own progress */
	s->progress = !s->o->quiet && isatty(STDERR_FILENO) &&
		      (s->o->output || !isatty(STDOUT_FILENO) || s->o->format != NP_FMT_TABLE);
	return NP_OK;
}

static void finish_output(struct sweep *s)
{
	struct np_err err = { 0 };

	if (s->w->rank != 0)
		return;
	switch (s->o->format) {
	case NP_FMT_TABLE:
		if (!s->o->quiet || s->rep.nverdict)
			np_report_table_footer(s->out, &s->rep);
		break;
	case NP_FMT_JSON:
		np_report_json(s->out, &s->rep);
		break;
	case NP_FMT_CSV:
		np_report_csv(s->out, &s->rep);
		break;
	}
	if (s->o->output && np_outfile_commit(&s->of, &err)) {
		np_error("%s", err.msg);
		s->rep.exit_code = NP_EXIT_RUNTIME;
	}
	for (int i = 0; i < s->rep.nverdict; i++)
		np_error("%s", s->rep.verdict[i]);
}

int cmd_sweep(int argc, char **argv, int first, bool mpi)
{
	static struct sweep sw;
	struct sweep *s = &sw;
	static struct np_opts o;
	static struct np_world w;
	struct np_err err = { 0 };
	bool help, version;
	const struct np_backend_ops *ops;
	int gpus = 0;
	struct point *pts;
	size_t npts, max_send, max_recv;
	double t0 = now_s();
	const char *stall;
	struct sigaction sa;

	(void)mpi;
	s->o = &o;
	s->w = &w;
	if (np_world_init(&w, 0, &err))
		np_abort_err(&err);
	{
		/* every rank parses the same argv; only a check of the file
		 * system (--output) can differ, so agree before going on */
		int st = np_opts_parse(&o, NP_CMD_SWEEP, argc, argv, first, &help, &version, &err);
		int worst = st;
		MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, w.comm);
		if (worst) {
			if (st && w.rank == 0)
				np_error("%s", err.msg);
			else if (st)
				np_rank_error("%s", err.msg);
			np_exit(NP_EXIT_USAGE);
		}
	}
	if (help) {
		if (w.rank == 0)
			np_opts_usage(stdout, NP_CMD_SWEEP);
		return 0;
	}
	if (version) {
		if (w.rank == 0) {
			printf("nccl-probe %s\n", PACKAGE_VERSION);
#ifdef HAVE_NCCL
			printf("nccl backend: yes\n");
#else
			printf("nccl backend: no\n");
#endif
		}
		return 0;
	}
	if (np_opts_check_world(&o, w.size, &err))
		np_die(NP_EXIT_USAGE, "%s", err.msg);
	if (o.ranks_per_node) {
		np_world_release(&w);
		if (np_world_init(&w, o.ranks_per_node, &err))
			np_abort_err(&err);
	}
	if (agree(s, open_output(s, &err), err.status ? &err : NULL))
		np_exit(NP_EXIT_RUNTIME);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	stall = getenv("NCCL_PROBE_TEST_STALL");
	s->stall_rank = -1;
	if (stall && !strchr(stall, ':')) {
		char *end;
		long r = strtol(stall, &end, 10);
		if (*stall && !*end && r >= 0)
			s->stall_rank = (int)r;
	}

#ifdef HAVE_NCCL
	/* only auto asks: --backend mpi leaves CUDA uninitialized */
	if (o.backend == NP_BACKEND_AUTO)
		gpus = np_nccl_gpu_visible();
#endif
	MPI_Allreduce(MPI_IN_PLACE, &gpus, 1, MPI_INT, MPI_MIN, w.comm);
	if (np_backend_select(&o, gpus > 0, &ops, s->rep.backend_why, sizeof(s->rep.backend_why), &err))
		np_die(np_status_exit(err.status), "%s", err.msg);
	s->be.ops = ops;
	s->be.opts = &o;
	s->be.world = &w;
	s->rep.opts = &o;
	s->rep.world = &w;
	s->rep.backend = ops->name;

	np_watchdog_start(o.timeout);
	np_watchdog_set_backend(&s->be);
	np_watchdog_arm("%s backend initialization", ops->name);
	{
		enum np_status rc = ops->init(&s->be);
		np_watchdog_disarm();
		if (agree(s, rc, rc ? &s->be.err : NULL))
			fail_all(s, rc ? rc : NP_EMPI);
	}
	gather_ranks(s);
	s->rep.info = s->be.info;
	MPI_Bcast(&s->rep.info, (int)sizeof(s->rep.info), MPI_BYTE, 0, w.comm);
	s->rep.nccl_env = nccl_env();
	gather_limits(s);
	host_notes(s);
	if (w.rank == 0 && s->stream) {
		if (!o.quiet)
			np_report_table_header(s->out, &s->rep);
		np_report_table_columns(s->out);
	}

	pts = plan(s, &npts, &max_send, &max_recv);
	s->planned = (int)npts;
	if (!npts) {
		np_outfile_discard(&s->of);
		np_die(NP_EXIT_USAGE, "nothing to run: every size of the sweep was skipped (see the notes above); choose other sizes or collectives");
	}
	{
		enum np_status rc = NP_OK;
		if (npts) {
			np_watchdog_arm("allocating buffers");
			rc = ops->alloc(&s->be, max_send, max_recv);
			np_watchdog_disarm();
		}
		if (agree(s, rc, rc ? &s->be.err : NULL))
			fail_all(s, rc ? rc : NP_EMPI);
	}
	s->samples = calloc(MAX_SAMPLES, sizeof(double));
	s->sorted = calloc(MAX_SAMPLES, sizeof(double));
	if (!s->samples || !s->sorted)
		np_abort(NP_EXIT_RUNTIME, "out of memory");

	s->rep.complete = true;
	for (size_t i = 0; i < npts; i++) {
		struct np_bench b = { .coll = pts[i].coll, .dtype = o.dtype, .op = o.op,
				      .root = o.root, .inplace = o.inplace, .lay = pts[i].lay };
		struct np_result res;
		bool whole;

		if (w.rank == 0)
			progress(s, &b);
		whole = measure(s, &b, &res);
		if (w.rank == 0)
			progress_clear(s);
		if (whole) {
			row_limit(s, &res);
			add_row(s, &res);
		}
		s->done++;
		if (!whole) {
			s->rep.interrupted = true;
			s->rep.complete = false;
			break;
		}
	}
	np_watchdog_stop();
	s->rep.wall_seconds = now_s() - t0;
	verdict(s);
	finish_output(s);
	if (s->rep.interrupted && w.rank == 0)
		np_error("interrupted by signal %d after %zu of %d rows; the report holds the rows that finished",
			 (int)g_stop, s->rep.nrows, s->planned);
	ops->finalize(&s->be);
	free(pts);
	free(s->samples);
	free(s->sorted);
	free(s->rep.rows);
	free(s->rep.skips);
	free(s->rep.ranks);
	free(s->rep.nccl_env);
	{
		int code = s->rep.exit_code;
		MPI_Bcast(&code, 1, MPI_INT, 0, w.comm);
		np_world_release(&w);
		return code;
	}
}
