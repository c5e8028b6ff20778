/* SPDX-License-Identifier: MIT */
/* The sweep command: for each collective and size, check once, warm up,
 * then time samples until the median is known (--iters auto) or the fixed
 * count is done. Every decision is taken on values reduced over the world,
 * so all ranks take it alike. Rank 0 writes the report. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../probes/nccl_log.h"
#include "cmds.h"
#include "compare.h"
#include "msg.h"
#include "openmetrics.h"
#include "report.h"
#include "stats.h"
#include "sweep.h"
#include "watchdog.h"

#define CI_TARGET 0.01         /* 95% CI half-width of the median, relative */
#define SMALL_BUDGET 0.1       /* share of --budget for sizes below --judge-from */
#define NOISE_MIN_JUDGED 12    /* judged sizes: the interval leaves out the extremes */

extern char **environ;

/* Held by the main thread while it changes the report, and for good by
 * the watchdog thread when a signal finds the main thread stuck. */
static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;

struct sweep {
	struct np_opts *o;
	struct np_world *w;
	struct np_backend be;
	struct np_sweep_report rep;
	struct np_outfile of;
	struct np_outfile json_of, csv_of; /* rank 0: -J/--json and --csv files */
	FILE *out;            /* rank 0: where the report goes */
	bool stream;          /* rank 0: table rows streamed to out */
	struct np_table table; /* rank 0: the streamed table's state */
	bool progress;        /* rank 0: progress on stderr */
	bool progress_tty;    /* rewritten in place (stderr is a terminal) */
	double progress_every; /* seconds between lines off a terminal */
	double progress_last; /* when the last line was written */
	struct np_meas meas;
	int *node_L;          /* ranks of each node */
	double *node_B;       /* B_node of each node, GB/s, 0 unknown */
	int worst;            /* the node with the least B_node per rank */
	int planned, done;
	double t0;            /* start of the run */
	struct np_gpu_clocks clk0; /* this rank's GPU clocks before the first row */
	char step[200];       /* this rank's step, for the watchdog */
};

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
	int mine = (int)st, worst = 0;

	np_watchdog_arrive(s->w->comm, "the end of %s", s->step);
	MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, s->w->comm);
	if (st != NP_OK && err && !err->secondary)
		np_rank_error("%s", err->msg);
	return (enum np_status)worst;
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

static _Noreturn void sweep_fail(void *arg, enum np_status st)
{
	fail_all(arg, st ? st : NP_EMPI);
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
	pthread_mutex_lock(&rep_lock);
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
	pthread_mutex_unlock(&rep_lock);
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

static void add_detail(struct np_sweep_report *r, const char *code, const struct np_coll *coll,
		       uint64_t size, double value, double threshold)
{
	if (r->ndetails == r->details_cap) {
		size_t cap = r->details_cap ? r->details_cap * 2 : 16;
		struct np_verdict_detail *n = realloc(r->details, cap * sizeof(*n));
		if (!n)
			return; /* the sentences still say it */
		r->details = n;
		r->details_cap = cap;
	}
	r->details[r->ndetails++] = (struct np_verdict_detail){
		.code = code,
		.coll = coll,
		.size = size,
		.value = value,
		.threshold = threshold,
	};
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
	pthread_mutex_lock(&rep_lock);
	r->rows[r->nrows] = *res;
	r->rows[r->nrows++].sample_times = times;
	if (s->w->rank == 0 && s->stream)
		np_report_table_row(s->out, &s->table, res);
	pthread_mutex_unlock(&rep_lock);
}

/* Progress on rank 0's stderr: on a terminal one line rewritten in place
 * before each row; elsewhere (a pipe under mpirun, a job log) a plain
 * line at most every NCCL_PROBE_PROGRESS seconds (default 10), so a log
 * gets no carriage returns and a short run gets none. */
static void progress(struct sweep *s, const struct np_bench *b)
{
	char sz[32];
	double now = np_now_s();

	if (!s->progress)
		return;
	if (!s->progress_tty && now - s->progress_last < s->progress_every)
		return;
	s->progress_last = now;
	np_human_size(b->lay.size, sz, sizeof(sz));
	fprintf(stderr, "%srow %d/%d: %s %s, %d more, %.*f s elapsed%s",
		s->progress_tty ? "\r\033[K" : "progress: ", s->done + 1, s->planned, b->coll->name,
		sz, s->planned - s->done - 1, now - s->t0 < 10 ? 1 : 0, now - s->t0,
		s->progress_tty ? "" : "\n");
	fflush(stderr);
}

static void progress_clear(struct sweep *s)
{
	if (s->progress && s->progress_tty) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

static double progress_interval(void)
{
	const char *e = getenv("NCCL_PROBE_PROGRESS");
	char *end;
	double v;

	if (!e || !*e)
		return 10;
	v = strtod(e, &end);
	return *end || !(v >= 0 && v <= 86400) ? 10 : v;
}

struct point {
	const struct np_coll *coll;
	struct np_layout lay;
};

/* Without a largest size, the range reaches the sizes where the links
 * saturate (NVLink and InfiniBand from about 1 GiB): up to 8G on GPUs, the
 * largest size of the series whose buffers fit in the tightest rank's
 * free memory for every collective of the run; on host memory, where the
 * MPI backend checks logic rather than fabric speed, 128M. */
static void default_range(struct sweep *s)
{
	struct np_opts *o = s->o;
	size_t elt = np_dtypes[o->dtype].size, n;
	uint64_t mem = s->be.info.mem_avail, *sizes, cap, fit = 0;
	bool device = (s->be.ops->caps & NP_CAP_DEVICE) != 0;
	char a[32], b[32];

	if (!o->max_default)
		return;
	np_watchdog_arrive(s->w->comm, "choosing the default sizes");
	MPI_Allreduce(MPI_IN_PLACE, &mem, 1, MPI_UINT64_T, MPI_MIN, s->w->comm);
	cap = device ? NP_DEFAULT_MAX_GPU : NP_DEFAULT_MAX_HOST;
	o->max_bytes = cap > o->min_bytes ? cap : o->min_bytes;
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
			if ((o->inplace ? (lay.send_bytes > lay.recv_bytes ? lay.send_bytes : lay.recv_bytes)
					: lay.send_bytes + lay.recv_bytes) > mem)
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
		add_note(s, "default sizes up to %s: the largest up to 8 GiB whose buffers fit in the tightest rank's free memory (%s), so the links reach saturation; --sweep MIN:MAX to choose",
			 a, b);
	else
		add_note(s, "default sizes up to %s on host memory (GPUs: up to 8 GiB); --sweep MIN:MAX to choose", a);
}

/* The smallest judged size: --judge-from, or else the first of the
 * largest quarter of the sweep's sizes (at least one). */
static uint64_t judge_from(const struct np_opts *o)
{
	size_t n = np_opts_sizes(o, NULL, 0), k;
	uint64_t *sizes, v;

	if (o->judge_from)
		return o->judge_from;
	sizes = calloc(n, sizeof(*sizes));
	if (!sizes)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %zu sizes", n);
	np_opts_sizes(o, sizes, n);
	k = (n + 3) / 4;
	v = sizes[n - k];
	free(sizes);
	return v;
}

/* Lay out every point; skip what cannot run; returns the points to run. */
static struct point *plan(struct sweep *s, size_t *npoints, size_t *max_send, size_t *max_recv)
{
	const struct np_opts *o = s->o;
	size_t elt = np_dtypes[o->dtype].size, nsizes, np = 0;
	uint64_t *sizes, mem = s->be.info.mem_avail;
	struct point *pts;

	np_watchdog_arrive(s->w->comm, "planning the sweep");
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
			if (s->be.info.max_count && lay.count > s->be.info.max_count) {
				add_skip(s, coll, sizes[i],
					 "%zu elements exceed the %s backend's largest count (%llu); use a larger --dtype or a smaller size",
					 lay.count, s->be.ops->name,
					 (unsigned long long)s->be.info.max_count);
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
				 s->be.info.dtype_why[0] ? s->be.info.dtype_why
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
		add_note(s, "--graph has no effect: the %s backend has no CUDA graphs", s->be.ops->name);
	if (s->be.info.calls[0])
		add_note(s, "%s", s->be.info.calls);
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
	MPI_Gather(&span, (int)sizeof(span), MPI_BYTE, s->rep.clocks, (int)sizeof(span), MPI_BYTE, 0,
		   s->w->comm);
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

/* One rank's link facts as the world gathers them. */
struct rank_bw {
	int node;
	double node_gbps, nic_gbps;
	char nic[40];
};

/* B_node of each node (DESIGN.md Limits): the rates of the data NICs that
 * its ranks' GPUs use (each GPU's nearest NIC, counted once), so a node
 * where the job has 1 or 2 of 8 GPUs is held to the NICs those GPUs would
 * use; the node's whole NIC sum when a rank has no nearest NIC (host
 * memory, or unknown). On virtual nodes of a device backend B_node is the
 * transport NCCL uses between them, whose rate nccl-probe does not know. */
static void node_limits(struct sweep *s, const struct rank_bw *all)
{
	const struct np_world *w = s->w;
	int nn = w->nnodes;
	const char **nic = calloc((size_t)w->size, sizeof(*nic));
	double *rate = calloc((size_t)w->size, sizeof(*rate));

	s->node_L = calloc((size_t)nn, sizeof(*s->node_L));
	s->node_B = calloc((size_t)nn, sizeof(*s->node_B));
	if (!s->node_L || !s->node_B || !nic || !rate)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d nodes", nn);
	for (int j = 0; j < nn; j++) {
		double whole = -1;
		int k = 0;
		for (int r = 0; r < w->size; r++) {
			if (all[r].node != j)
				continue;
			nic[k] = all[r].nic;
			rate[k++] = all[r].nic_gbps;
			if (whole < 0 || all[r].node_gbps < whole)
				whole = all[r].node_gbps;
		}
		s->node_L[j] = k;
		s->node_B[j] = np_node_bw_used(k, nic, rate, whole);
	}
	free(nic);
	free(rate);
	if (w->virtual_nodes && (s->be.ops->caps & NP_CAP_HOSTID_VNODES))
		for (int j = 0; j < nn; j++)
			s->node_B[j] = 0;
}

/* The worst node: the least B_node per rank (ranks share their node's NICs). */
static int worst_node(const struct sweep *s)
{
	int k = 0;

	for (int j = 1; j < s->w->nnodes; j++) {
		double a = s->node_L[j] ? s->node_B[j] / s->node_L[j] : 1e300;
		double b = s->node_L[k] ? s->node_B[k] / s->node_L[k] : 1e300;
		if (a < b)
			k = j;
	}
	return k;
}

/* Link limits: each rank's facts, reduced to the world's bottleneck (the
 * slowest GPU link, the slowest nearest NIC) and, per node, B_node and its
 * rank count; discovery failures only leave the limits unknown. */
static void gather_limits(struct sweep *s)
{
	struct np_bw_facts f;
	struct np_err err = { 0 };
	struct { double v; int rank; } in[2], out[2];
	struct rank_bw me, *all;
	int k;

	np_watchdog_arm("discovering this node's link rates");
	if (np_bw_facts_local(s->be.info.bus_id, &f, &err) != NP_OK) {
		memset(&f, 0, sizeof(f));
		snprintf(f.gpu_src, sizeof(f.gpu_src), "unknown: %.80s", err.msg);
	}
	/* a zero (unknown) on any rank makes the world's value unknown */
	in[0].v = f.gpu_gbps > 0 ? f.gpu_gbps : -1;
	in[1].v = f.nic_gbps > 0 ? f.nic_gbps : -1;
	for (int i = 0; i < 2; i++)
		in[i].rank = s->w->rank;
	np_watchdog_arrive(s->w->comm, "gathering link rates");
	MPI_Allreduce(in, out, 2, MPI_DOUBLE_INT, MPI_MINLOC, s->w->comm);
	memset(&me, 0, sizeof(me));
	me.node = s->w->node;
	me.node_gbps = f.node_gbps;
	me.nic_gbps = f.nic_gbps;
	snprintf(me.nic, sizeof(me.nic), "%s", f.nic);
	all = calloc((size_t)s->w->size, sizeof(*all));
	if (!all)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d ranks' link facts", s->w->size);
	MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, s->w->comm);
	node_limits(s, all);
	k = worst_node(s);
	/* the evidence of the bottleneck ranks: the slowest GPU link, and the
	 * first rank of the worst node */
	{
		int first = 0;
		for (int r = 0; r < s->w->size; r++)
			if (all[r].node == k) {
				first = r;
				break;
			}
		MPI_Bcast(f.gpu_src, sizeof(f.gpu_src), MPI_CHAR, out[0].rank, s->w->comm);
		MPI_Bcast(&f.proto_gbps, 1, MPI_DOUBLE, out[0].rank, s->w->comm);
		MPI_Bcast(f.node_src, sizeof(f.node_src), MPI_CHAR, first, s->w->comm);
		/* the node's NIC sum: the evidence names its NICs; B_node counts those used */
		MPI_Bcast(&f.node_gbps, 1, MPI_DOUBLE, first, s->w->comm);
	}
	free(all);
	s->rep.bw = f;
	s->rep.bw.gpu_gbps = out[0].v > 0 ? out[0].v : 0;
	s->rep.bw.nic_gbps = out[1].v > 0 ? out[1].v : 0;
	s->rep.bw.node_gbps = s->node_B[k];
	if (s->w->virtual_nodes && (s->be.ops->caps & NP_CAP_HOSTID_VNODES))
		snprintf(s->rep.bw.node_src, sizeof(s->rep.bw.node_src),
			 "virtual nodes: NCCL's %.30s between them, rate unknown",
			 s->be.info.transport[0] ? s->be.info.transport : "transport");
	else if (s->node_B[k] > 0 && s->node_B[k] < f.node_gbps)
		snprintf(s->rep.bw.node_src, sizeof(s->rep.bw.node_src),
			 "NICs of the job's GPUs, of %.0f GB/s: %.50s", f.node_gbps, f.node_src);
	if (!(s->rep.bw.gpu_gbps > 0))
		s->rep.bw.proto_gbps = 0;
	s->rep.bw_gpu_rank = out[0].rank;
	s->rep.bw_known = true;
	s->worst = k;
}

/* limit and eff of one row (DESIGN.md Limits): the least over nodes, each
 * with its own rank count and B_node; one rank: no bus traffic */
static void row_limit(const struct sweep *s, struct np_result *res)
{
	const struct np_world *w = s->w;

	res->limit = 0;
	res->eff = NAN;
	if (w->size < 2 || !s->rep.bw_known || !s->node_L)
		return;
	res->limit = np_limit_nodes(res->coll->id, w->size, w->nnodes, s->node_L, s->node_B,
				    s->rep.bw.gpu_gbps, s->rep.bw.nic_gbps);
	if (res->limit > 0)
		res->eff = res->busbw / res->limit;
}

static void host_notes(struct sweep *s)
{
	const struct np_world *w = s->w;

	if (w->virtual_nodes)
		add_note(s, "virtual nodes: every %d consecutive ranks count as one node (--ranks-per-node)",
			 w->ranks_per_node);
	if (s->o->gpu_map && !(s->be.ops->caps & NP_CAP_DEVICE))
		add_note(s, "--gpu-map %s is not used: the %s backend runs on host memory, no GPU", s->o->gpu_map,
			 s->be.ops->name);
	if (!w->virtual_nodes && w->nnodes > 1) {
		bool same = true;
		for (int r = 1; r < w->size; r++)
			if (strcmp(w->hosts[r], w->hosts[0]))
				same = false;
		if (same)
			add_note(s, "%d nodes but every rank reports host '%s': check hostnames (containers?) before trusting per-node results",
				 w->nnodes, w->hosts[0]);
	}
	if (!w->ranks_per_node && s->node_L) {
		int lo = w->size, hi = 0, k = s->worst;
		for (int j = 0; j < w->nnodes; j++) {
			lo = s->node_L[j] < lo ? s->node_L[j] : lo;
			hi = s->node_L[j] > hi ? s->node_L[j] : hi;
		}
		add_note(s, "nodes have %d to %d ranks; each row's limit is the least over nodes, each with its own rank count and B_node (the worst: node %d, %d ranks, B_node %.1f GB/s)",
			 lo, hi, k, s->node_L[k], s->node_B[k]);
	}
	if (w->virtual_nodes && (s->be.ops->caps & NP_CAP_HOSTID_VNODES))
		add_note(s, "virtual nodes on the NCCL backend: each has its own NCCL host id (NCCL_HOSTID, e.g. '%s'), so NCCL moves data between them with its network transport (%s); B_node is that transport, not this host's NICs",
			 s->be.info.host_id, s->be.info.transport[0] ? s->be.info.transport : "transport not reported");
}

/* A judged row against its collective's thresholds (its median's busbw
 * and eff); on one rank busbw is 0 by definition, so --min-busbw is not
 * applied there (a note says so). */
static void row_verdict(const struct sweep *s, struct np_result *res)
{
	double tb = s->o->coll_min_busbw[res->coll->id], te = s->o->coll_min_eff[res->coll->id];
	bool busbw = tb > 0 && s->w->size > 1;

	res->pass = -1;
	if (!res->judged || (!busbw && !(te > 0)))
		return;
	res->pass = 1;
	if (busbw && !(res->busbw >= tb))
		res->pass = 0;
	if (te > 0 && !(res->eff >= te))
		res->pass = 0;
}

/* "from 8 MiB up: allreduce busbw >= 100 GB/s, eff >= 80%; alltoall ..." */
static void judged_add(struct np_sweep_report *r, int c, double busbw, double eff)
{
	size_t n = strlen(r->judged);
	char sz[32];

	if (!busbw && !(eff > 0))
		return;
	if (!n) {
		np_human_size(r->judge_from, sz, sizeof(sz));
		n += (size_t)snprintf(r->judged, sizeof(r->judged), "from %s up: ", sz);
	} else {
		n += (size_t)snprintf(r->judged + n, sizeof(r->judged) - n, "; ");
	}
	if (n >= sizeof(r->judged))
		return;
	n += (size_t)snprintf(r->judged + n, sizeof(r->judged) - n, "%s", np_colls[c].name);
	if (n < sizeof(r->judged) && busbw > 0)
		n += (size_t)snprintf(r->judged + n, sizeof(r->judged) - n, " busbw >= %g GB/s%s", busbw,
				      eff > 0 ? "," : "");
	if (n < sizeof(r->judged) && eff > 0)
		snprintf(r->judged + n, sizeof(r->judged) - n, " eff >= %g%%", eff * 100);
}

static void verdict(struct sweep *s)
{
	struct np_sweep_report *r = &s->rep;
	uint64_t wrong = 0;

	r->nverdict = 0;
	r->ndetails = 0;
	r->judged[0] = '\0';
	for (size_t i = 0; i < r->nrows; i++) {
		wrong += r->rows[i].wrong;
		if (r->rows[i].wrong)
			add_detail(r, "data_errors", r->rows[i].coll, r->rows[i].lay.size,
				   (double)r->rows[i].wrong, 0);
	}
	r->exit_code = 0;
	if (wrong) {
		add_verdict(r, "wrong data: %llu wrong elements (exit 2)", (unsigned long long)wrong);
		r->exit_code = NP_EXIT_WRONG;
	}
	for (int c = 0; c < NP_COLL_COUNT; c++) {
		double tb = s->o->coll_min_busbw[c], te = s->o->coll_min_eff[c];
		const struct np_result *wb = NULL, *we = NULL;
		int judged = 0, nb = 0, ne = 0, unknown = 0;
		bool ran = false;
		char sz[32];

		if (!s->o->colls[c] || (!(tb > 0) && !(te > 0)))
			continue;
		for (size_t i = 0; i < r->nrows; i++) {
			const struct np_result *x = &r->rows[i];
			if (x->coll->id != (enum np_coll_id)c)
				continue;
			ran = true;
			if (!x->judged)
				continue;
			judged++;
			if (tb > 0 && s->w->size > 1 && !(x->busbw >= tb)) {
				nb++;
				if (!wb || x->busbw < wb->busbw)
					wb = x;
				add_detail(r, "min_busbw", x->coll, x->lay.size, x->busbw, tb);
			}
			if (te > 0 && !(x->eff >= te)) {
				if (!isfinite(x->eff)) {
					unknown++;
					add_detail(r, "eff_unknown", x->coll, x->lay.size, NAN, te);
				} else {
					if (ne++, !we || x->eff < we->eff)
						we = x;
					add_detail(r, "min_eff", x->coll, x->lay.size, x->eff, te);
				}
			}
		}
		if (!ran)
			continue; /* interrupted before it, or every size skipped: said elsewhere */
		if (judged)
			judged_add(r, c, tb > 0 && s->w->size > 1 ? tb : 0, te);
		if (!judged) {
			add_detail(r, "not_judged", &np_colls[c], 0, NAN, (double)r->judge_from);
			np_human_size(r->judge_from, sz, sizeof(sz));
			add_verdict(r, "%s: no row at or above --judge-from %s ran, so its thresholds cannot be judged",
				    np_colls[c].name, sz);
		}
		if (wb) {
			np_human_size(wb->lay.size, sz, sizeof(sz));
			add_verdict(r, "%s busbw below --min-busbw %g GB/s at %d of %d judged sizes (lowest %.2f GB/s at %s)",
				    np_colls[c].name, tb, nb, judged, wb->busbw, sz);
		}
		if (we) {
			np_human_size(we->lay.size, sz, sizeof(sz));
			add_verdict(r, "%s eff below --min-eff %g%% at %d of %d judged sizes (lowest %.1f%% at %s)",
				    np_colls[c].name, te * 100, ne, judged, we->eff * 100, sz);
		}
		if (unknown)
			add_verdict(r, "%s eff is unknown (%s) at %d judged sizes, so --min-eff %g%% cannot be met",
				    np_colls[c].name,
				    s->w->size == 1 ? "one rank moves no data over a bus" : "no link rate found",
				    unknown, te * 100);
		if ((!judged || wb || we || unknown) && !r->exit_code)
			r->exit_code = NP_EXIT_VERDICT;
	}
	if (r->interrupted)
		add_detail(r, "interrupted", NULL, 0, NAN, NAN);
	if (r->interrupted && !r->exit_code)
		r->exit_code = NP_EXIT_INTERRUPTED;
}

static enum np_status open_output(struct sweep *s, struct np_err *err)
{
	if (s->w->rank != 0)
		return NP_OK;
	if (s->o->output) {
		if (np_outfile_open(&s->of, s->o->output, "--output", err))
			return err->status;
		s->out = s->of.f;
	} else {
		s->out = stdout;
	}
	if (s->o->json_file && np_outfile_open(&s->json_of, s->o->json_file, "--json", err)) {
		np_outfile_discard(&s->of);
		return err->status;
	}
	if (s->o->csv_file && np_outfile_open(&s->csv_of, s->o->csv_file, "--csv", err)) {
		np_outfile_discard(&s->of);
		np_outfile_discard(&s->json_of);
		return err->status;
	}
	s->stream = s->o->format == NP_FMT_TABLE;
	/* under mpirun a rank's stderr is a pipe, whatever mpirun's own is:
	 * progress then goes as plain lines that read well in a job log */
	s->progress = !s->o->quiet;
	s->progress_tty = isatty(STDERR_FILENO);
	s->progress_every = progress_interval();
	s->progress_last = np_now_s();
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
	case NP_FMT_NCCLTESTS:
		np_report_nccltests(s->out, &s->rep);
		break;
	}
	if (s->o->json_file && s->o->format == NP_FMT_NCCLTESTS)
		np_report_nccltests_json(s->json_of.f, &s->rep);
	else if (s->o->json_file)
		np_report_json(s->json_of.f, &s->rep);
	if (s->o->csv_file)
		np_report_csv(s->csv_of.f, &s->rep);
	{
		/* one run's files: all replaced or none */
		struct np_outfile *files[4], mof = { 0 };
		int n = 0;
		if (s->o->output)
			files[n++] = &s->of;
		if (s->o->json_file)
			files[n++] = &s->json_of;
		if (s->o->csv_file)
			files[n++] = &s->csv_of;
		if (s->o->metrics_file && np_openmetrics_sweep(&mof, s->o->metrics_file, &s->rep, &err)) {
			while (n > 0)
				np_outfile_discard(files[--n]);
		} else if (s->o->metrics_file) {
			files[n++] = &mof;
		}
		if (err.status || np_outfile_commit_all(files, n, &err)) {
			np_error("%s", err.msg);
			s->rep.exit_code = NP_EXIT_RUNTIME;
		}
	}
	for (int i = 0; i < s->rep.nverdict; i++)
		np_error("%s", s->rep.verdict[i]);
}

/* --baseline (rank 0): this run against a known-good run of the same
 * shape, with compare's statistics, after the verdict and before the
 * report is written, so that the report carries the result. This run's
 * JSON goes to a temporary file for compare to read (removed at once, and
 * by np_cleanup on a signal); the comparison's table comes back as text,
 * shown after the report. A regression beyond --max-regression is exit 1
 * with a verdict line; runs that cannot be compared, exit 64. */
static char *compare_baseline(struct sweep *s)
{
	char path[PATH_MAX], *text = NULL;
	const char *dir = getenv("TMPDIR");
	size_t len = 0;
	FILE *f, *to;
	int fd, slot, code;

	if (snprintf(path, sizeof(path), "%s/nccl-probe-run.XXXXXX", dir && *dir ? dir : "/tmp") >= (int)sizeof(path))
		snprintf(path, sizeof(path), "/tmp/nccl-probe-run.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		np_error("--baseline: cannot write this run's report for the comparison ('%s': %s); set TMPDIR to a writable directory",
			 path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		if (!s->rep.exit_code)
			s->rep.exit_code = NP_EXIT_RUNTIME;
		return NULL;
	}
	slot = np_cleanup_add(path);
	np_report_json(f, &s->rep);
	if (fclose(f) != 0) {
		np_error("--baseline: cannot write this run's report for the comparison ('%s': %s)", path, strerror(errno));
		code = NP_EXIT_RUNTIME;
	} else {
		to = open_memstream(&text, &len);
		code = np_compare_files(s->o->baseline, path, "this run", s->o->max_regression, s->o->min_change, NP_FMT_TABLE,
					s->o->quiet, NULL, to ? to : stderr, &s->rep.run);
		if (to)
			fclose(to);
	}
	unlink(path);
	np_cleanup_drop(slot);
	if (code == 0 || code == NP_EXIT_VERDICT) {
		size_t n = strlen(s->rep.judged);
		snprintf(s->rep.judged + n, sizeof(s->rep.judged) - n, "%sno regression beyond %g%% against --baseline '%s'",
			 n ? "; " : "", s->o->max_regression * 100, s->o->baseline);
	}
	if (code == NP_EXIT_VERDICT)
		add_verdict(&s->rep, "significantly slower than --baseline '%s' by more than %g%% (the rows are named above)",
			    s->o->baseline, s->o->max_regression * 100);
	else if (code)
		add_verdict(&s->rep, "not compared with --baseline '%s' (see the error above)", s->o->baseline);
	if (code && !s->rep.exit_code)
		s->rep.exit_code = code;
	return text;
}

/* A signal came while the main thread is stuck in a collective (watchdog
 * thread): the same whole, marked-incomplete report as an interrupt
 * between batches, then exit; the main thread never gets the lock back. */
static _Noreturn void takeover(void *arg, int sig)
{
	struct sweep *s = arg;

	pthread_mutex_lock(&rep_lock);
	if (s->w->rank == 0) {
		progress_clear(s);
		s->rep.interrupted = true;
		s->rep.complete = false;
		s->rep.wall_seconds = np_now_s() - s->t0;
		verdict(s);
		finish_output(s);
		np_error("interrupted by signal %d while a collective had not finished (row %d of %d); the report holds the %zu rows that finished",
			 sig, s->done + 1, s->planned, s->rep.nrows);
	}
	np_cleanup();
	fflush(stdout);
	fflush(stderr);
	_exit(s->w->rank == 0 ? s->rep.exit_code : NP_EXIT_INTERRUPTED);
}

/* --timeout fired (watchdog thread, rank 0): the report, -J and --csv of
 * the rows that finished, marked interrupted, with exit 4 in the verdict */
static void hang_report(void *arg)
{
	struct sweep *s = arg;

	pthread_mutex_lock(&rep_lock);
	progress_clear(s);
	s->rep.interrupted = true;
	s->rep.complete = false;
	s->rep.wall_seconds = np_now_s() - s->t0;
	verdict(s);
	add_verdict(&s->rep, "timed out (--timeout %g s, exit 4): the report holds the %zu row%s that finished",
		    s->o->timeout, s->rep.nrows, s->rep.nrows == 1 ? "" : "s");
	s->rep.exit_code = NP_EXIT_TIMEOUT;
	finish_output(s);
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
	np_backend_args(&s->be, o, w);
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
	s->rep.judge_from = judge_from(o);
	gather_limits(s);
	host_notes(s);
	if (w->size == 1)
		for (int c = 0; c < NP_COLL_COUNT; c++)
			if (o->colls[c] && o->coll_min_busbw[c] > 0) {
				add_note(s, "--min-busbw is not judged on one rank: busbw is 0 by definition there (no data crosses a bus); run 2 or more ranks to judge busbw");
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
		np_die(NP_EXIT_USAGE, "nothing to run: every size of the sweep was skipped (see the notes above); choose other sizes or collectives");
	}
	step(s, "allocating buffers");
	rc = s->be.ops->alloc(&s->be, max_send, max_recv);
	if (agree(s, rc, rc ? &s->be.err : NULL))
		fail_all(s, rc ? rc : NP_EMPI);
	s->meas.be = &s->be;
	s->meas.o = s->o;
	s->meas.budget = s->o->budget;
	s->meas.ci_target = CI_TARGET;
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
static void run_points(struct sweep *s, const struct point *pts, size_t npts)
{
	const struct np_opts *o = s->o;

	for (size_t i = 0; i < npts; i++) {
		struct np_bench b = { .coll = pts[i].coll, .dtype = o->dtype, .op = o->op,
				      .root = o->root, .inplace = o->inplace, .lay = pts[i].lay };
		struct np_result res;
		bool whole, judged = pts[i].lay.size >= s->rep.judge_from;

		if (s->w->rank == 0)
			progress(s, &b);
		/* the time goes where the verdict is judged */
		s->meas.budget = judged ? o->budget : o->budget * SMALL_BUDGET;
		s->meas.noise_min = judged ? NOISE_MIN_JUDGED : 0;
		whole = np_measure(&s->meas, &b, &res);
		res.judged = judged;
		if (s->w->rank == 0)
			progress_clear(s);
		if (whole) {
			row_limit(s, &res);
			row_verdict(s, &res);
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
	free(s->node_L);
	free(s->node_B);
}

int cmd_sweep(struct np_run *run)
{
	static struct sweep sw;
	struct sweep *s = &sw;
	const struct np_opts *o = &run->o;
	struct np_err err = { 0 };
	struct point *pts;
	size_t npts, max_send, max_recv;
	char *cmp_text = NULL;
	int code;

	s->o = &run->o;
	s->w = &run->w;
	s->rep.run = run->rec;
	{
		enum np_status rc;
		step(s, "opening --output");
		rc = open_output(s, &err);
		if (agree(s, rc, rc ? &err : NULL))
			fail_all(s, rc ? rc : NP_EMPI);
	}
	s->meas.stall_rank = np_test_stall_rank();
	start_backend(s, run);
	pts = plan(s, &npts, &max_send, &max_recv);
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
	verdict(s);
	if (o->baseline && s->w->rank == 0 && !s->rep.interrupted)
		cmp_text = compare_baseline(s);
	finish_output(s);
	if (cmp_text) {
		/* beside the table when it is on standard output, else on stderr */
		bool table_out = o->format == NP_FMT_TABLE && (!o->output || !strcmp(o->output, "-"));
		fflush(stdout);
		fputs(cmp_text, table_out ? stdout : stderr);
		free(cmp_text);
	}
	if (s->rep.interrupted && s->w->rank == 0)
		np_error("interrupted by signal %d after %zu of %d rows; the report holds the rows that finished",
			 (int)np_signal, s->rep.nrows, s->planned);
	s->be.ops->finalize(&s->be);
	free(pts);
	sweep_release(s);
	code = s->rep.exit_code;
	MPI_Bcast(&code, 1, MPI_INT, 0, s->w->comm);
	return code;
}
