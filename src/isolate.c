/* SPDX-License-Identifier: MIT */
/* The isolate command: find the bad node or link in ONE job. The world is
 * split into disjoint groups (each node alone, pairs of nodes) that
 * measure an all-reduce at the same time, round after round, with new
 * partners each round; the whole world is measured once. Figures carry
 * their 95% interval; a node or link is named only when it is
 * significantly below the fleet (and below a floor when one is given)
 * and again with a new partner. Rank 0 judges and plans; every rank runs
 * the plan it broadcasts. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmds.h"
#include "json_read.h"
#include "json.h"
#include "measure.h"
#include "stats.h"
#include "msg.h"
#include "outfile.h"
#include "version.h"
#include "watchdog.h"

#define ISO_SCHEMA "nccl-probe/isolate"
#define ISO_SCHEMA_VERSION 1
#define ISO_CI_TARGET 0.01
#define ISO_MAX_EXTRA 4      /* confirmation rounds at most (the promise) */
#define ISO_Z 3.0            /* spreads below the fleet that count as significant */

enum fig_kind { FIG_ALONE, FIG_PAIR, FIG_WORLD };

static const char *fig_kind_str(enum fig_kind k)
{
	switch (k) {
	case FIG_ALONE: return "alone";
	case FIG_PAIR: return "pair";
	case FIG_WORLD: return "world";
	}
	return "unknown";
}

/* One measured group of one round (rank 0). */
struct fig {
	int round;
	enum fig_kind kind;
	int a, b;             /* the nodes (b = -1 alone; both -1 for the world) */
	double busbw, lo, hi; /* GB/s, median and its 95% interval */
	uint64_t wrong;
	int samples;
	double ref, spread;   /* the fleet it is compared with */
	int nref;
	/* paired with the fleet of its round batch by batch (the same
	 * windows, so load common to all groups cancels): the median ratio
	 * of its busbw to the fleet's and that ratio's 95% interval; 0 when
	 * it has no fleet in its round */
	double ratio, ratio_lo, ratio_hi;
	double *t;            /* seconds per iteration of each batch */
	int nt;
	bool slow, bad;       /* significantly below the fleet (or wrong data) */
	bool ok;              /* its interval rules out a shortfall of --min-effect */
};

enum node_state { NODE_OK, NODE_BAD_INSIDE, NODE_BAD_NETWORK, NODE_BAD_DATA };

struct iso {
	struct np_opts *o;
	struct np_world *w;
	const struct np_backend_ops *ops;
	char backend_why[192];
	int device;           /* this rank's GPU in the job, -1 host */
	char device_name[96]; /* rank 0's */
	int N, L;
	char (*names)[NP_HOSTLEN + 16]; /* node names */
	struct np_meas meas;
	uint64_t size;
	double floor;         /* GB/s a figure must reach, 0 = none */
	double world_floor;   /* GB/s every node together must reach, 0 = none */
	char floor_src[160];
	/* rank 0 */
	struct fig *figs;
	int nfigs, figs_cap;
	int rounds;
	enum node_state *state;
	char (*evidence)[512];
	struct { int a, b; char why[512]; } *links;
	int nlinks;
	char fleet[512];      /* a finding about every node, "" none */
	char scale[512];      /* a finding about the whole world, "" none */
	char notes[16][256];
	int nnotes;
	double *tbuf;         /* rank 0: the batch times of one phase */
	int *tdispl;
	double t0;
};

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) { g_stop = sig; }

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static _Noreturn void iso_fail(void *arg, enum np_status st)
{
	(void)arg;
	np_watchdog_stop();
	np_exit(np_status_exit(st ? st : NP_EMPI));
}

static void add_note(struct iso *is, const char *fmt, ...) NP_PRINTF(2, 3);

static void add_note(struct iso *is, const char *fmt, ...)
{
	va_list ap;

	if (is->nnotes >= (int)(sizeof(is->notes) / sizeof(is->notes[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(is->notes[is->nnotes++], sizeof(is->notes[0]), fmt, ap);
	va_end(ap);
}

/* ---- running one partition ---------------------------------------------- */

/* What each rank tells rank 0 after a phase. */
struct phase_out {
	int color, leader, status, samples;
	double busbw, lo, hi;
	uint64_t wrong;
	char msg[256];
};

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

/* The group's own world: its comm, ranks, nodes and hosts. */
static enum np_status group_world(struct iso *is, MPI_Comm gc, struct np_world *sw, int **jr,
				  int **nodes)
{
	const struct np_world *w = is->w;
	int nd = 0;

	memset(sw, 0, sizeof(*sw));
	sw->comm = gc;
	MPI_Comm_rank(gc, &sw->rank);
	MPI_Comm_size(gc, &sw->size);
	*jr = calloc((size_t)sw->size, sizeof(int));
	*nodes = calloc((size_t)sw->size, sizeof(int));
	sw->hosts = calloc((size_t)sw->size, sizeof(*sw->hosts));
	if (!*jr || !*nodes || !sw->hosts)
		np_abort(NP_EXIT_RUNTIME, "out of memory for a group of %d ranks", sw->size);
	MPI_Allgather(&w->rank, 1, MPI_INT, *jr, 1, MPI_INT, gc);
	MPI_Allgather(&w->node, 1, MPI_INT, *nodes, 1, MPI_INT, gc);
	for (int r = 0; r < sw->size; r++)
		memcpy(sw->hosts[r], w->hosts[(*jr)[r]], NP_HOSTLEN);
	/* node index inside the group: rank of this node among its nodes */
	{
		int *sorted = malloc((size_t)sw->size * sizeof(int));
		if (!sorted)
			np_abort(NP_EXIT_RUNTIME, "out of memory");
		memcpy(sorted, *nodes, (size_t)sw->size * sizeof(int));
		qsort(sorted, (size_t)sw->size, sizeof(int), cmp_int);
		for (int i = 0; i < sw->size; i++) {
			if (i == 0 || sorted[i] != sorted[i - 1]) {
				if (sorted[i] == w->node)
					sw->node = nd;
				nd++;
			}
		}
		free(sorted);
	}
	sw->nnodes = nd;
	sw->real_nnodes = nd;
	MPI_Comm_split(gc, w->node, sw->rank, &sw->node_comm);
	MPI_Comm_rank(sw->node_comm, &sw->local_rank);
	MPI_Comm_size(sw->node_comm, &sw->local_size);
	sw->ranks_per_node = is->L;
	sw->virtual_nodes = w->virtual_nodes;
	sw->pid = w->pid;
	memcpy(sw->host, w->host, sizeof(sw->host));
	memcpy(sw->mpi_version, w->mpi_version, sizeof(sw->mpi_version));
	sw->job_ranks = *jr;
	sw->job_size = w->size;
	sw->device = is->device;
	return NP_OK;
}

static enum np_status group_agree(MPI_Comm gc, enum np_status st)
{
	int mine = (int)st, worst = 0;

	MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, gc);
	return (enum np_status)worst;
}

/* Measure one group on this rank's side; fills out. */
static void measure_group(struct iso *is, MPI_Comm gc, const char *what, struct phase_out *out)
{
	struct np_world sw;
	struct np_backend be;
	struct np_bench b;
	struct np_result res;
	int *jr = NULL, *nodes = NULL;
	enum np_status st;
	size_t elt = np_dtypes[is->o->dtype].size;

	group_world(is, gc, &sw, &jr, &nodes);
	memset(&be, 0, sizeof(be));
	be.ops = is->ops;
	np_backend_args(&be, is->o, &sw);
	out->leader = sw.rank == 0;
	np_watchdog_set_backend(&be);
	np_watchdog_arm("%s backend initialization %s", is->ops->name, what);
	st = is->ops->init(&be);
	np_watchdog_disarm();
	if (st != NP_OK) {
		out->status = st;
		snprintf(out->msg, sizeof(out->msg), "%.255s", be.err.msg);
	}
	if ((st = group_agree(gc, st)) == NP_OK) {
		memset(&b, 0, sizeof(b));
		b.coll = &np_colls[NP_COLL_ALLREDUCE];
		b.dtype = is->o->dtype;
		b.op = NP_OP_SUM;
		np_coll_layout(b.coll, is->size, elt, sw.size, &b.lay);
		st = be.ops->alloc(&be, b.lay.send_bytes, b.lay.recv_bytes);
		if (st != NP_OK) {
			out->status = st;
			snprintf(out->msg, sizeof(out->msg), "%.255s", be.err.msg);
		}
		if ((st = group_agree(gc, st)) == NP_OK) {
			is->meas.be = &be;
			is->meas.what = what;
			if (!np_measure(&is->meas, &b, &res))
				iso_fail(NULL, NP_EVERDICT); /* interrupted */
			out->samples = res.samples;
			out->busbw = res.busbw;
			/* the interval of the median time, as bandwidth */
			out->lo = res.busbw * (res.t_ci_hi > 0 ? res.t_med / res.t_ci_hi : 1);
			out->hi = res.busbw * (res.t_ci_lo > 0 ? res.t_med / res.t_ci_lo : 1);
			out->wrong = res.wrong;
		}
	}
	if (st != NP_OK) {
		/* the message of the group's first rank that failed, for its leader */
		int first = out->status ? sw.rank : sw.size;
		MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, gc);
		if (first < sw.size)
			MPI_Bcast(out->msg, sizeof(out->msg), MPI_CHAR, first, gc);
		if (!out->status)
			out->status = st; /* another rank of the group failed */
		np_measure_idle(&is->meas); /* the other groups measure on */
	}
	np_watchdog_set_backend(NULL);
	be.ops->finalize(&be);
	MPI_Comm_free(&sw.node_comm);
	free(sw.hosts);
	free(jr);
	free(nodes);
}

static void push_fig(struct iso *is, const struct fig *f)
{
	if (is->nfigs == is->figs_cap) {
		int cap = is->figs_cap ? is->figs_cap * 2 : 64;
		struct fig *n = realloc(is->figs, (size_t)cap * sizeof(*n));
		if (!n)
			np_abort(NP_EXIT_RUNTIME, "out of memory for figures");
		is->figs = n;
		is->figs_cap = cap;
	}
	is->figs[is->nfigs++] = *f;
}

/* After a phase of pairs (or nodes alone): when no group ran right, on
 * any node (the idle ones included), the cause is common to every node
 * (the launch, the software), not a node's: one error, nobody accused;
 * exit 3 when no group could run, 2 when some computed wrong data.
 * Collective over the job; all is rank 0's (the phase's outcome by rank). */
static void launch_failed(struct iso *is, const struct phase_out *all, enum fig_kind kind, int round)
{
	const struct np_world *w = is->w;
	int res[2] = { -1, 0 }; /* the group whose message is shown; wrong data seen */
	int failed = 0, wrong = 0, groups = 0;

	if (kind == FIG_WORLD) /* every node together: judged as the scale */
		return;
	if (w->rank == 0) {
		int first = -1;
		for (int r = 0; r < w->size; r++) {
			if (!all[r].leader)
				continue;
			groups++;
			if (all[r].status) {
				failed++;
				if (first < 0 || (!all[first].msg[0] && all[r].msg[0]))
					first = r;
			} else if (all[r].wrong) {
				wrong++;
			}
		}
		if (groups > 0 && failed + wrong == groups) {
			res[0] = first < 0 ? 0 : first;
			res[1] = wrong > 0;
		}
	}
	MPI_Bcast(res, 2, MPI_INT, 0, w->comm);
	if (res[0] < 0)
		return;
	if (w->rank == 0 && res[1])
		np_error("every group of round %d computed wrong data or could not run (%d of %d wrong, every node in one), so the cause is common to every node (the software: NCCL, MPI, the driver, the build; or the launch), not a node; nobody is accused: check the software on any one node, e.g. with 'nccl-probe --check' there",
			 round, wrong, groups);
	else if (w->rank == 0)
		np_error("no group could run in round %d (all %d failed, every node in one), so the launch or the software, not a node: %s; nobody is accused: check the job's environment (libraries, devices, the network setup) on any one node",
			 round, groups, all[res[0]].msg[0] ? all[res[0]].msg : "no message");
	iso_fail(NULL, res[1] ? NP_EWRONG : NP_ESYS);
}

/* Run one partition: part[v] is node v's group (-1: idle). Collective
 * over the job. Rank 0 adds a figure per group. */
static void run_phase(struct iso *is, const int *part, enum fig_kind kind, int round)
{
	const struct np_world *w = is->w;
	struct phase_out mine, *all = NULL;
	int color = part[w->node];
	MPI_Comm gc = MPI_COMM_NULL;
	char what[96];

	memset(&mine, 0, sizeof(mine));
	/* a node without a group measures alone, unrecorded, so that every
	 * rank takes part in the batch-by-batch agreement (np_meas.synced) */
	mine.color = color >= 0 ? color : is->N + w->node;
	MPI_Comm_split(w->comm, mine.color, w->rank, &gc);
	if (kind == FIG_WORLD)
		snprintf(what, sizeof(what), "(round %d, every node)", round);
	else
		snprintf(what, sizeof(what), "(round %d, %s group %d)", round,
			 color >= 0 ? fig_kind_str(kind) : "idle", mine.color);
	/* virtual nodes share this host's cores (or GPU): at the same time
	 * their groups would measure who got the cores, a different pair each
	 * phase and by up to 40% on a 2-core host; they take turns instead */
	is->meas.turns = 0;
	is->meas.turn = color;
	if (w->virtual_nodes && kind != FIG_WORLD)
		for (int v = 0; v < is->N; v++)
			if (part[v] >= is->meas.turns)
				is->meas.turns = part[v] + 1;
	measure_group(is, gc, what, &mine);
	MPI_Comm_free(&gc);
	if (w->rank == 0) {
		all = calloc((size_t)w->size, sizeof(*all));
		if (!all)
			np_abort(NP_EXIT_RUNTIME, "out of memory");
	}
	MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, 0, w->comm);
	/* the leaders' batch times, for the paired comparison */
	{
		int cnt = mine.leader ? mine.samples : 0, *cnts = NULL, *displs = NULL, tot = 0;
		if (w->rank == 0) {
			cnts = calloc((size_t)w->size, sizeof(int));
			displs = calloc((size_t)w->size, sizeof(int));
			if (!cnts || !displs)
				np_abort(NP_EXIT_RUNTIME, "out of memory");
		}
		MPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, w->comm);
		if (w->rank == 0) {
			for (int r = 0; r < w->size; r++) {
				displs[r] = tot;
				tot += cnts[r];
			}
			free(is->tbuf);
			is->tbuf = malloc(((size_t)tot + 1) * sizeof(double));
			is->tdispl = displs;
			if (!is->tbuf)
				np_abort(NP_EXIT_RUNTIME, "out of memory");
		}
		MPI_Gatherv(is->meas.samples, cnt, MPI_DOUBLE, is->tbuf, cnts, displs, MPI_DOUBLE, 0,
			    w->comm);
		free(cnts);
	}
	launch_failed(is, all, kind, round);
	if (w->rank != 0)
		return;
	for (int r = 0; r < w->size; r++) {
		struct fig f;
		if (!all[r].leader || all[r].color >= is->N)
			continue;
		memset(&f, 0, sizeof(f));
		f.round = round;
		f.kind = kind;
		f.a = f.b = -1;
		if (kind != FIG_WORLD)
			for (int v = 0; v < is->N; v++)
				if (part[v] == all[r].color) {
					if (f.a < 0)
						f.a = v;
					else
						f.b = v;
				}
		if (all[r].status) {
			/* the group could not measure: name it by what happened */
			np_error("round %d: %s group of %s%s%s could not run: %s", round,
				 fig_kind_str(kind), f.a >= 0 ? is->names[f.a] : "every node",
				 f.b >= 0 ? " and " : "", f.b >= 0 ? is->names[f.b] : "", all[r].msg);
			f.busbw = f.lo = f.hi = 0;
			f.wrong = 1;
		} else {
			f.busbw = all[r].busbw;
			f.lo = all[r].lo;
			f.hi = all[r].hi;
			f.wrong = all[r].wrong;
			f.samples = all[r].samples;
			f.nt = all[r].samples;
			f.t = malloc(((size_t)f.nt + 1) * sizeof(double));
			if (!f.t)
				np_abort(NP_EXIT_RUNTIME, "out of memory");
			memcpy(f.t, is->tbuf + is->tdispl[r], (size_t)f.nt * sizeof(double));
		}
		push_fig(is, &f);
	}
	free(all);
	free(is->tdispl);
	is->tdispl = NULL;
}

/* ---- judging ------------------------------------------------------------- */

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double median_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool shares(const struct fig *f, const struct fig *g)
{
	return (f->a >= 0 && (f->a == g->a || f->a == g->b)) ||
	       (f->b >= 0 && (f->b == g->a || f->b == g->b));
}

/* The fleet a figure is compared with: the groups of its kind that share
 * no node with it, of the same round when there are any (the median; its
 * spread from the median absolute deviation), or without any, the better
 * half of every other group of its kind. */
static void fleet_ref(struct iso *is, struct fig *f, double *buf)
{
	int n = 0, m = 0;
	double med;

	/* the same round first: its groups measured in the same windows */
	for (int i = 0; i < is->nfigs; i++) {
		struct fig *g = &is->figs[i];
		if (g == f || g->kind != f->kind || g->wrong || shares(f, g) || g->round != f->round)
			continue;
		buf[n++] = g->busbw;
	}
	if (n < 1)
		for (int i = 0; i < is->nfigs; i++) {
			struct fig *g = &is->figs[i];
			if (g == f || g->kind != f->kind || g->wrong || shares(f, g))
				continue;
			buf[n++] = g->busbw;
		}
	if (n < 1) {
		n = 0;
		for (int i = 0; i < is->nfigs; i++) {
			struct fig *g = &is->figs[i];
			if (g != f && g->kind == f->kind && !g->wrong)
				buf[n++] = g->busbw;
		}
		if (n) {
			qsort(buf, (size_t)n, sizeof(*buf), cmp_double);
			memmove(buf, buf + n / 2, (size_t)(n - n / 2) * sizeof(*buf));
			n -= n / 2;
		}
	}
	f->nref = n;
	f->ref = f->spread = 0;
	if (!n)
		return;
	med = median_of(buf, n);
	f->ref = med;
	if (n >= 4) {
		for (int i = 0; i < n; i++)
			buf[m++] = fabs(buf[i] - med);
		f->spread = 1.4826 * median_of(buf, m);
	}
}

/* The paired comparison of f with the other groups of its round that
 * share no node with it: per batch, the fleet's median time over f's. */
static void paired(struct iso *is, struct fig *f, double *buf, double *ratios)
{
	struct np_stats st;
	int n = 0;

	f->ratio = f->ratio_lo = f->ratio_hi = 0;
	for (int k = 0; k < f->nt; k++) {
		int m = 0;
		for (int i = 0; i < is->nfigs; i++) {
			struct fig *g = &is->figs[i];
			if (g == f || g->kind != f->kind || g->wrong || g->round != f->round ||
			    shares(f, g) || k >= g->nt)
				continue;
			buf[m++] = g->t[k];
		}
		if (!m || !(f->t[k] > 0))
			continue;
		ratios[n++] = median_of(buf, m) / f->t[k];
	}
	if (n < 3)
		return;
	np_stats_compute(ratios, n, &st);
	f->ratio = st.median;
	f->ratio_lo = st.ci_lo;
	f->ratio_hi = st.ci_hi;
}

static void judge(struct iso *is)
{
	double *buf = malloc(((size_t)is->nfigs + 1) * 2 * sizeof(double));
	double *ratios = malloc(NP_MEAS_MAX_SAMPLES * sizeof(double));

	if (!buf || !ratios)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	for (int i = 0; i < is->nfigs; i++) {
		struct fig *f = &is->figs[i];
		if (f->kind == FIG_WORLD)
			continue;
		fleet_ref(is, f, buf);
		paired(is, f, buf, ratios);
		if (f->ratio > 0) /* the same windows: the paired interval decides */
			f->slow = f->ratio_hi < 1 - is->o->min_effect &&
				  f->busbw < f->ref - ISO_Z * f->spread &&
				  (is->floor <= 0 || f->busbw < is->floor);
		else /* no group measured beside it: only a floor can judge it */
			f->slow = is->floor > 0 && f->hi < is->floor &&
				  (!f->nref || f->hi < f->ref * (1 - is->o->min_effect));
		f->bad = f->slow || f->wrong;
		/* clearly fine; neither bad nor ok: unclear, no evidence either way */
		if (f->ratio > 0)
			f->ok = !f->bad && f->ratio_lo >= 1 - is->o->min_effect;
		else
			f->ok = !f->bad && (is->floor <= 0 || f->lo >= is->floor);
	}
	free(buf);
	free(ratios);
}

/* Per node: below alone, fine in some pair, the distinct partners of its
 * pairs below the fleet that are fine elsewhere. */
struct nodeview {
	int alone, alone_bad, alone_ok, alone_wrong;
	int good_pairs, bad_pairs, wrong_pairs;
	int late_bad;          /* figures below from a confirmation round */
	int good_partners_bad; /* distinct partners, fine elsewhere, of bad pairs */
	int good_partners;     /* distinct partners of its clearly fine pairs */
};

/* Below alone in a confirmation round. */
static bool late_alone_bad(const struct iso *is, int v)
{
	for (int i = 0; i < is->nfigs; i++)
		if (is->figs[i].kind == FIG_ALONE && is->figs[i].a == v && is->figs[i].bad &&
		    is->figs[i].round > 2)
			return true;
	return false;
}

/* Below alone, and never clearly fine alone. */
static bool inside(const struct nodeview *n)
{
	return n->alone_bad && !n->alone_ok;
}

static void view_nodes(struct iso *is, struct nodeview *nv)
{
	memset(nv, 0, (size_t)is->N * sizeof(*nv));
	for (int i = 0; i < is->nfigs; i++) {
		const struct fig *f = &is->figs[i];
		if (f->kind == FIG_ALONE) {
			nv[f->a].alone++;
			nv[f->a].alone_bad += f->bad;
			nv[f->a].alone_ok += f->ok;
			nv[f->a].alone_wrong += f->wrong > 0;
			nv[f->a].late_bad += f->bad && f->round > 2;
		} else if (f->kind == FIG_PAIR) {
			for (int k = 0; k < 2; k++) {
				int v = k ? f->b : f->a;
				nv[v].good_pairs += f->ok;
				nv[v].bad_pairs += f->bad;
				nv[v].wrong_pairs += f->wrong > 0;
				nv[v].late_bad += f->bad && f->round > 2;
			}
		}
	}
	for (int v = 0; v < is->N; v++) {
		/* seen[p]: 1 counted as a bad partner, 2 as a fine one, 3 both */
		int *seen = calloc((size_t)is->N, sizeof(int));
		if (!seen)
			np_abort(NP_EXIT_RUNTIME, "out of memory");
		for (int i = 0; i < is->nfigs; i++) {
			const struct fig *f = &is->figs[i];
			int p;
			if (f->kind != FIG_PAIR || (f->a != v && f->b != v))
				continue;
			p = f->a == v ? f->b : f->a;
			if (f->bad && nv[p].good_pairs > 0 && !inside(&nv[p]) && !(seen[p] & 1)) {
				seen[p] |= 1;
				nv[v].good_partners_bad++;
			}
			if (f->ok && !(seen[p] & 2)) {
				seen[p] |= 2;
				nv[v].good_partners++;
			}
		}
		free(seen);
	}
}

/* Below alone and never fine alone, or below with at least as many
 * partners (fine elsewhere) as it was fine with: a majority of partners,
 * not all of them, since one figure of a slow node can come out fine. */
static bool node_suspect(const struct nodeview *n)
{
	return inside(n) || (n->bad_pairs && n->good_partners_bad >= n->good_partners);
}

/* Its network: below with two or more partners that are fine elsewhere,
 * more than it was fine with. */
static bool network_bad(const struct nodeview *n)
{
	return n->good_partners_bad >= 2 && n->good_partners_bad > n->good_partners;
}

static bool paired_before(const struct iso *is, int a, int b)
{
	for (int i = 0; i < is->nfigs; i++) {
		const struct fig *f = &is->figs[i];
		if (f->kind == FIG_PAIR && ((f->a == a && f->b == b) || (f->a == b && f->b == a)))
			return true;
	}
	return false;
}

/* Figures of pair a-b below the fleet (bad) or clearly fine (!bad); with
 * late, only those of confirmation rounds. */
static int count_pair(const struct iso *is, int a, int b, bool bad, bool late)
{
	int n = 0;

	for (int i = 0; i < is->nfigs; i++) {
		const struct fig *f = &is->figs[i];
		if (f->kind == FIG_PAIR && ((f->a == a && f->b == b) || (f->a == b && f->b == a)) &&
		    (bad ? f->bad : f->ok) && (!late || f->round > 2))
			n++;
	}
	return n;
}

/* Every figure of pair a-b. */
static int pair_figures(const struct iso *is, int a, int b)
{
	int n = 0;

	for (int i = 0; i < is->nfigs; i++) {
		const struct fig *f = &is->figs[i];
		n += f->kind == FIG_PAIR && ((f->a == a && f->b == b) || (f->a == b && f->b == a));
	}
	return n;
}

static bool link_named(const struct iso *is, int a, int b)
{
	for (int i = 0; i < is->nlinks; i++)
		if ((is->links[i].a == a && is->links[i].b == b) ||
		    (is->links[i].a == b && is->links[i].b == a))
			return true;
	return false;
}

/* The figures of node v (and of pair v-p) as evidence text. */
static void evidence_of(const struct iso *is, int v, int p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < is->nfigs && off < len; i++) {
		const struct fig *f = &is->figs[i];
		int n;
		if (f->kind == FIG_WORLD || (f->a != v && f->b != v))
			continue;
		if (p >= 0 && !(f->kind == FIG_PAIR && (f->a == p || f->b == p)))
			continue;
		if (f->kind == FIG_ALONE)
			n = snprintf(buf + off, len - off, "%sround %d alone %.3g GB/s",
				     off ? "; " : "", f->round, f->busbw);
		else
			n = snprintf(buf + off, len - off, "%sround %d with %s %.3g GB/s",
				     off ? "; " : "", f->round,
				     is->names[f->a == v ? f->b : f->a], f->busbw);
		if (n > 0)
			off += (size_t)n;
		if (f->wrong)
			n = snprintf(buf + off < buf + len ? buf + off : buf + len - 1,
				     off < len ? len - off : 1, " (wrong data)");
		else if (f->ratio > 0)
			n = snprintf(buf + off < buf + len ? buf + off : buf + len - 1,
				     off < len ? len - off : 1, ", %.2f [%.2f-%.2f] of its round's fleet%s",
				     f->ratio, f->ratio_lo, f->ratio_hi, f->bad ? " (below)" : "");
		else if (f->nref)
			n = snprintf(buf + off < buf + len ? buf + off : buf + len - 1,
				     off < len ? len - off : 1, " [%.3g-%.3g] vs fleet %.3g%s",
				     f->lo, f->hi, f->ref, f->bad ? " (below)" : "");
		else
			n = 0;
		if (n > 0)
			off += (size_t)n;
	}
}

/* Name what the figures prove; returns how many suspects still need a
 * confirmation round. */
static int decide(struct iso *is, bool final)
{
	struct nodeview *nv = calloc((size_t)is->N, sizeof(*nv));
	int open = 0;

	if (!nv)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	judge(is);
	view_nodes(is, nv);
	for (int v = 0; v < is->N; v++) {
		struct nodeview *n = &nv[v];
		bool net = network_bad(n);
		if (is->state[v] != NODE_OK || !node_suspect(n))
			continue;
		/* named only when below again in a confirmation round */
		if (n->late_bad && (n->alone_wrong >= 2 || (n->wrong_pairs >= 2 && net)))
			is->state[v] = NODE_BAD_DATA;
		else if (n->late_bad && inside(n) && late_alone_bad(is, v))
			is->state[v] = NODE_BAD_INSIDE;
		else if (n->late_bad && !inside(n) && net)
			is->state[v] = NODE_BAD_NETWORK;
		if (is->state[v] != NODE_OK) {
			evidence_of(is, v, -1, is->evidence[v], sizeof(is->evidence[v]));
		} else if (!final) {
			open++;
		} else {
			char ev[512];
			evidence_of(is, v, -1, ev, sizeof(ev));
			add_note(is, "node %s was below the fleet but not named (not below again with new partners in %d rounds): %.160s",
				 is->names[v], is->rounds, ev);
		}
	}
	/* links: a pair below twice while both ends are fine elsewhere */
	for (int i = 0; i < is->nfigs; i++) {
		const struct fig *f = &is->figs[i];
		int a = f->a, b = f->b;
		if (f->kind != FIG_PAIR || !f->bad || link_named(is, a, b))
			continue;
		if (is->state[a] != NODE_OK || is->state[b] != NODE_OK)
			continue;
		if (is->N == 2 && !inside(&nv[a]) && !inside(&nv[b])) {
			/* one possible partner: a node's network and the link are one */
		} else if (!(nv[a].good_pairs && nv[b].good_pairs && !inside(&nv[a]) &&
			     !inside(&nv[b]))) {
			continue;
		} else if (node_suspect(&nv[a]) || node_suspect(&nv[b])) {
			open += !final; /* an end's own network first */
			continue;
		}
		if (count_pair(is, a, b, false, false))
			continue; /* fine when measured again: a passing disturbance */
		if (count_pair(is, a, b, true, false) < 2 || !count_pair(is, a, b, true, true)) {
			open += !final;
			continue;
		}
		is->links = realloc(is->links, (size_t)(is->nlinks + 1) * sizeof(*is->links));
		if (!is->links)
			np_abort(NP_EXIT_RUNTIME, "out of memory");
		is->links[is->nlinks].a = a;
		is->links[is->nlinks].b = b;
		evidence_of(is, a, b, is->links[is->nlinks].why, sizeof(is->links[0].why));
		is->nlinks++;
	}
	free(nv);
	return open;
}

/* ---- planning ------------------------------------------------------------ */

/* Rounds 1 and 2: node i with i^1, then with its other ring neighbour
 * (odd N: one node sits out, a different one each round). */
static void plan_matching(int N, int round, int *part)
{
	int shift = round == 1 ? 0 : 1;

	for (int v = 0; v < N; v++)
		part[v] = -1;
	for (int k = 0; 2 * k + 1 < N; k++) {
		int a = (2 * k + shift) % N, b = (2 * k + 1 + shift) % N;
		if (N == 2 && round == 2)
			break; /* one pair only: measured again in round 2 */
		part[a] = part[b] = k;
	}
	if (N == 2)
		part[0] = part[1] = 0;
}

/* A confirmation round: each open suspect link measured again, each open
 * suspect node with a partner it has not had that is good elsewhere;
 * suspects bad alone measured alone again. Returns whether anything runs. */
static bool plan_confirm(struct iso *is, int *part, int *alone)
{
	struct nodeview *nv = calloc((size_t)is->N, sizeof(*nv));
	bool *used = calloc((size_t)is->N, sizeof(bool));
	int g = 0;
	bool any = false;

	if (!nv || !used)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	judge(is);
	view_nodes(is, nv);
	for (int v = 0; v < is->N; v++)
		part[v] = alone[v] = -1;
	/* suspect links: both ends good elsewhere, bad once */
	for (int i = 0; i < is->nfigs; i++) {
		const struct fig *f = &is->figs[i];
		if (f->kind != FIG_PAIR || !f->bad || used[f->a] || used[f->b])
			continue;
		if (node_suspect(&nv[f->a]) || node_suspect(&nv[f->b]))
			continue;
		if (count_pair(is, f->a, f->b, true, true) || count_pair(is, f->a, f->b, false, false) ||
		    link_named(is, f->a, f->b))
			continue;
		part[f->a] = part[f->b] = g++;
		used[f->a] = used[f->b] = true;
		any = true;
	}
	for (int v = 0; v < is->N; v++) {
		int best = -1;
		if (is->state[v] != NODE_OK || !node_suspect(&nv[v]) || used[v])
			continue;
		if (is->L > 1) {
			/* alone again too, beside every other node (its fleet) */
			for (int u = 0; u < is->N; u++)
				alone[u] = u;
			any = true;
		}
		/* a new partner, good elsewhere; else the good one it was
		 * measured with least (not the one whose pair was below again
		 * and again); else anyone */
		for (int pass = 0, fewest = 0; pass < 3 && best < 0; pass++)
			for (int k = 1; k < is->N; k++) {
				int p = (v + k) % is->N, n;
				if (used[p] || p == v)
					continue;
				if (pass < 2 && (node_suspect(&nv[p]) || !nv[p].good_pairs))
					continue;
				if (pass == 0 && paired_before(is, v, p))
					continue;
				n = pass == 1 ? pair_figures(is, v, p) : 0;
				if (best < 0 || n < fewest) {
					best = p;
					fewest = n;
				}
				if (pass != 1)
					break;
			}
		if (best >= 0) {
			part[v] = part[best] = g++;
			used[v] = used[best] = true;
			any = true;
		}
	}
	/* the others pair up too: the fleet of this round, measured in the
	 * same windows as the suspects */
	for (int v = 0, prev = -1; any && v < is->N; v++) {
		if (used[v])
			continue;
		if (prev < 0) {
			prev = v;
			continue;
		}
		part[prev] = part[v] = g++;
		used[prev] = used[v] = true;
		prev = -1;
	}
	free(nv);
	free(used);
	return any;
}

static bool any_part(const int *part, int N)
{
	for (int v = 0; v < N; v++)
		if (part[v] >= 0)
			return true;
	return false;
}

/* Rank 0 plans, everyone runs: the plan travels as two arrays. */
static void bcast_plan(struct iso *is, int *part, int *alone, int *go)
{
	MPI_Bcast(go, 1, MPI_INT, 0, is->w->comm);
	if (*go) {
		MPI_Bcast(part, is->N, MPI_INT, 0, is->w->comm);
		MPI_Bcast(alone, is->N, MPI_INT, 0, is->w->comm);
	}
}

static void progress_round(struct iso *is, int round)
{
	int n = 0, bad = 0;

	if (is->w->rank != 0 || is->o->quiet)
		return;
	judge(is);
	for (int i = 0; i < is->nfigs; i++)
		if (is->figs[i].round == round) {
			n++;
			bad += is->figs[i].bad;
		}
	fprintf(stderr, "isolate: round %d: %d group%s measured, %d below the fleet (%.1f s)\n",
		round, n, n == 1 ? "" : "s", bad, now_s() - is->t0);
}

/* ---- the world figure, the fleet and the floor --------------------------- */

static int exit_code(const struct iso *is);

static void judge_fleet(struct iso *is)
{
	double *buf = malloc(((size_t)is->nfigs + 1) * sizeof(double));
	int n = 0;
	double pair_ref = 0;

	if (!buf)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	for (int i = 0; i < is->nfigs; i++)
		if (is->figs[i].kind == FIG_PAIR && !is->figs[i].wrong)
			buf[n++] = is->figs[i].busbw;
	if (n)
		pair_ref = median_of(buf, n);
	n = 0;
	for (int i = 0; i < is->nfigs; i++)
		if (is->figs[i].kind != FIG_WORLD && !is->figs[i].wrong)
			buf[n++] = is->figs[i].busbw;
	if (is->floor > 0 && n && median_of(buf, n) < is->floor)
		snprintf(is->fleet, sizeof(is->fleet),
			 "the whole fleet is below the floor: median %.3g GB/s, floor %.3g GB/s (%s); no single node stands out: check the fabric, its settings and the switches",
			 median_of(buf, n), is->floor, is->floor_src);
	for (int i = 0; i < is->nfigs; i++) {
		struct fig *f = &is->figs[i];
		if (f->kind != FIG_WORLD)
			continue;
		f->ref = pair_ref;
		f->nref = pair_ref > 0;
		/* judged against a floor only: the whole world's busbw differs
		 * from a pair's by the fabric's shape, not by a fixed factor */
		f->slow = is->world_floor > 0 && f->hi < is->world_floor;
		f->bad = f->slow || f->wrong;
		if ((f->slow || (f->wrong && exit_code(is) != NP_EXIT_WRONG)) && !is->fleet[0])
			snprintf(is->scale, sizeof(is->scale),
				 "every node together: %s%.3g GB/s [%.3g-%.3g], floor %.3g GB/s (%s); pairs of nodes reach %.3g GB/s: the fabric fails only at full scale (switch uplinks, routing, NCCL settings)",
				 f->wrong ? "wrong data, " : "", f->busbw, f->lo, f->hi, is->world_floor,
				 is->floor_src, pair_ref);
	}
	free(buf);
}

/* --baseline: the JSON report of a known-good run; its "floor_busbw" (and
 * "world_floor_busbw") for this node type (device name and ranks per
 * node), read with the JSON reader, so that a report reformatted or
 * minified by another program reads the same. */
static enum np_status read_baseline(struct iso *is, const char *type, struct np_err *err)
{
	struct np_jval root;
	const struct np_jval *list, *v;
	enum np_status rc = np_json_parse_file(is->o->baseline, &root, err);

	if (rc) {
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		return np_fail(err, rc, "--baseline: %s", why);
	}
	list = np_jget(&root, "baseline");
	for (size_t i = 0; list && list->type == NP_J_ARR && i < list->n; i++) {
		const struct np_jval *b = &list->items[i];
		const char *t = np_jstr(np_jget(b, "type"));
		if (!t || strcmp(t, type))
			continue;
		if ((v = np_jget(b, "floor_busbw")) && v->type == NP_J_NUM && v->num > 0) {
			is->floor = is->o->min_busbw > v->num ? is->o->min_busbw : v->num;
			snprintf(is->floor_src, sizeof(is->floor_src), "--baseline '%.100s'",
				 is->o->baseline);
		}
		if ((v = np_jget(b, "world_floor_busbw")) && v->type == NP_J_NUM && v->num > 0)
			is->world_floor = is->o->min_busbw > v->num ? is->o->min_busbw : v->num;
	}
	np_jval_free(&root);
	if (is->floor > 0)
		return NP_OK;
	return np_fail(err, NP_EUSAGE,
		       "--baseline '%s' has no floor for nodes of type '%s'; give the JSON report of a known-good 'nccl-probe isolate --format json' run on such nodes",
		       is->o->baseline, type);
}

/* ---- output -------------------------------------------------------------- */

static const char *node_state_str(enum node_state s)
{
	switch (s) {
	case NODE_OK: return "ok";
	case NODE_BAD_INSIDE: return "bad-inside";
	case NODE_BAD_NETWORK: return "bad-network";
	case NODE_BAD_DATA: return "wrong-data";
	}
	return "unknown";
}

static const char *node_state_why(enum node_state s)
{
	switch (s) {
	case NODE_OK: return "";
	case NODE_BAD_INSIDE: return "slow inside the node (its GPUs, NVLink, PCIe or CPU)";
	case NODE_BAD_NETWORK: return "fine alone but slow with every partner: its NICs, cables or switch port";
	case NODE_BAD_DATA: return "computes wrong data";
	}
	return "unknown";
}

static void node_type(const struct iso *is, char *buf, size_t len)
{
	snprintf(buf, len, "%.95s x%d", is->device_name, is->L);
}

static int exit_code(const struct iso *is)
{
	bool data = false, any = is->nlinks > 0 || is->fleet[0] || is->scale[0];

	for (int v = 0; v < is->N; v++) {
		data |= is->state[v] == NODE_BAD_DATA;
		any |= is->state[v] != NODE_OK;
	}
	return data ? NP_EXIT_WRONG : any ? NP_EXIT_VERDICT : NP_EXIT_OK;
}

static double floor_of_run(const struct iso *is)
{
	double lo = 0;

	for (int i = 0; i < is->nfigs; i++) {
		const struct fig *f = &is->figs[i];
		if (f->kind == FIG_PAIR && !f->bad && (lo == 0 || f->lo < lo))
			lo = f->lo;
	}
	return lo * (1 - is->o->min_effect);
}

/* Half the lower end of the whole world's interval: the world figure is
 * one group, so no fleet narrows it. */
static double world_floor_of_run(const struct iso *is)
{
	for (int i = 0; i < is->nfigs; i++)
		if (is->figs[i].kind == FIG_WORLD && !is->figs[i].bad)
			return is->figs[i].lo / 2;
	return 0;
}

/* Whether node V is in a figure of the run: a node never measured is
 * "unknown", not "ok". */
static bool node_measured(const struct iso *is, int v)
{
	for (int i = 0; i < is->nfigs; i++) {
		const struct fig *f = &is->figs[i];
		if (f->kind == FIG_WORLD || f->a == v || f->b == v)
			return true;
	}
	return false;
}

static void write_json(const struct iso *is, FILE *out, double wall)
{
	struct np_json j;
	char type[160];

	node_type(is, type, sizeof(type));
	np_json_init(&j, out, true);
	np_json_obj_begin(&j, NULL);
	np_json_str(&j, "schema", ISO_SCHEMA);
	np_json_int(&j, "schema_version", ISO_SCHEMA_VERSION);
	np_json_obj_begin(&j, "tool");
	np_json_str(&j, "name", PACKAGE_NAME);
	np_json_str(&j, "version", PACKAGE_VERSION);
	np_json_obj_end(&j);
	np_json_str(&j, "backend", is->ops->name);
	np_json_int(&j, "nodes_total", is->N);
	np_json_int(&j, "ranks_per_node", is->L);
	np_json_bool(&j, "virtual_nodes", is->w->virtual_nodes);
	np_json_uint(&j, "size", is->size);
	np_json_int(&j, "rounds", is->rounds);
	np_json_num(&j, "wall_time", wall);
	if (is->floor > 0)
		np_json_num(&j, "floor", is->floor);
	else
		np_json_null(&j, "floor");
	np_json_num(&j, "min_effect", is->o->min_effect);
	np_json_arr_begin(&j, "nodes");
	for (int v = 0; v < is->N; v++) {
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "name", is->names[v]);
		np_json_str(&j, "host", is->w->hosts[v * is->L]);
		np_json_str(&j, "state", is->state[v] == NODE_OK && !node_measured(is, v) ? "unknown"
									       : node_state_str(is->state[v]));
		np_json_str(&j, "evidence", is->state[v] != NODE_OK ? is->evidence[v] : NULL);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_arr_begin(&j, "links");
	for (int i = 0; i < is->nlinks; i++) {
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "a", is->names[is->links[i].a]);
		np_json_str(&j, "b", is->names[is->links[i].b]);
		np_json_str(&j, "evidence", is->links[i].why);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_str(&j, "fleet", is->fleet[0] ? is->fleet : NULL);
	np_json_str(&j, "scale", is->scale[0] ? is->scale : NULL);
	np_json_arr_begin(&j, "figures");
	for (int i = 0; i < is->nfigs; i++) {
		const struct fig *f = &is->figs[i];
		np_json_obj_begin(&j, NULL);
		np_json_int(&j, "round", f->round);
		np_json_str(&j, "kind", fig_kind_str(f->kind));
		np_json_arr_begin(&j, "group");
		if (f->kind == FIG_WORLD)
			for (int v = 0; v < is->N; v++)
				np_json_str(&j, NULL, is->names[v]);
		if (f->a >= 0)
			np_json_str(&j, NULL, is->names[f->a]);
		if (f->b >= 0)
			np_json_str(&j, NULL, is->names[f->b]);
		np_json_arr_end(&j);
		np_json_num(&j, "busbw", f->busbw);
		np_json_num(&j, "busbw_lo", f->lo);
		np_json_num(&j, "busbw_hi", f->hi);
		np_json_int(&j, "samples", f->samples);
		np_json_uint(&j, "wrong", f->wrong);
		if (f->nref)
			np_json_num(&j, "fleet_busbw", f->ref);
		else
			np_json_null(&j, "fleet_busbw");
		if (f->ratio > 0) {
			np_json_num(&j, "ratio", f->ratio);
			np_json_num(&j, "ratio_lo", f->ratio_lo);
			np_json_num(&j, "ratio_hi", f->ratio_hi);
		} else {
			np_json_null(&j, "ratio");
			np_json_null(&j, "ratio_lo");
			np_json_null(&j, "ratio_hi");
		}
		np_json_bool(&j, "below", f->bad);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_arr_begin(&j, "notes");
	for (int i = 0; i < is->nnotes; i++)
		np_json_str(&j, NULL, is->notes[i]);
	np_json_arr_end(&j);
	/* what a later run may pass as --baseline */
	np_json_arr_begin(&j, "baseline");
	if (!exit_code(is) && floor_of_run(is) > 0) {
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "type", type);
		np_json_num(&j, "floor_busbw", floor_of_run(is));
		np_json_num(&j, "world_floor_busbw", world_floor_of_run(is));
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_int(&j, "exit_code", exit_code(is));
	np_json_obj_end(&j);
	fputc('\n', out);
}

static void write_table(const struct iso *is, FILE *out, double wall)
{
	int bad = 0;

	if (!is->o->quiet) {
		fprintf(out, "# nccl-probe isolate: %d node%s x %d rank%s, all-reduce of %llu B, %s backend\n",
			is->N, is->N == 1 ? "" : "s", is->L, is->L == 1 ? "" : "s",
			(unsigned long long)is->size, is->ops->name);
		fprintf(out, "# %-6s %-6s %-30s %10s %21s %10s %20s\n", "round", "kind", "group", "busbw",
			"95% interval", "fleet", "x fleet (95%)");
		for (int i = 0; i < is->nfigs; i++) {
			const struct fig *f = &is->figs[i];
			char grp[64], iv[48], rt[48];
			if (f->kind == FIG_WORLD)
				snprintf(grp, sizeof(grp), "every node");
			else
				snprintf(grp, sizeof(grp), "%s%s%s", is->names[f->a], f->b >= 0 ? "-" : "",
					 f->b >= 0 ? is->names[f->b] : "");
			snprintf(iv, sizeof(iv), "[%.4g, %.4g]", f->lo, f->hi);
			if (f->ratio > 0)
				snprintf(rt, sizeof(rt), "%.2f [%.2f, %.2f]", f->ratio, f->ratio_lo,
					 f->ratio_hi);
			else
				snprintf(rt, sizeof(rt), "-");
			fprintf(out, "  %-6d %-6s %-30s %10.4g %21s %10.4g %20s%s%s\n", f->round,
				fig_kind_str(f->kind), grp, f->busbw, iv, f->ref, rt,
				f->wrong ? "  wrong data" : "", f->bad ? "  below" : "");
		}
	}
	for (int i = 0; i < is->nnotes; i++)
		fprintf(out, "note: %s\n", is->notes[i]);
	for (int v = 0; v < is->N; v++) {
		if (is->state[v] == NODE_OK)
			continue;
		fprintf(out, "bad: node %s: %s: %s\n", is->names[v], node_state_why(is->state[v]),
			is->evidence[v]);
		bad++;
	}
	for (int i = 0; i < is->nlinks; i++, bad++)
		fprintf(out, "bad: link %s-%s: slow together while both are fine with others: check the cables and switch path between them: %s\n",
			is->names[is->links[i].a], is->names[is->links[i].b], is->links[i].why);
	if (is->fleet[0]) {
		fprintf(out, "bad: fleet: %s\n", is->fleet);
		bad++;
	}
	if (is->scale[0]) {
		fprintf(out, "bad: scale: %s\n", is->scale);
		bad++;
	}
	if (bad)
		fprintf(out, "verdict: %d problem%s found in %d rounds (%.1f s)\n", bad,
			bad == 1 ? "" : "s", is->rounds, wall);
	else
		fprintf(out, "verdict: ok, %d node%s, %d rounds (%.1f s)\n", is->N,
			is->N == 1 ? "" : "s", is->rounds, wall);
}

/* ---- the command --------------------------------------------------------- */

/* Whether every node has a rank that failed (failed: this rank's own
 * failure, msg its message); if so rank 0 says so once, with the message
 * of the first rank that failed. Collective over the job. */
static bool every_node_failed(struct iso *is, bool failed, const char *msg)
{
	const struct np_world *w = is->w;
	int *nodes = calloc((size_t)is->N, sizeof(int)), n = 0, first;
	char m[256];

	if (!nodes)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d nodes", is->N);
	nodes[w->node] = failed;
	MPI_Allreduce(MPI_IN_PLACE, nodes, is->N, MPI_INT, MPI_MAX, w->comm);
	for (int v = 0; v < is->N; v++)
		n += nodes[v] > 0;
	free(nodes);
	if (n < is->N)
		return false;
	first = failed ? w->rank : w->size;
	MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, w->comm);
	snprintf(m, sizeof(m), "%.255s", failed ? msg : "");
	MPI_Bcast(m, sizeof(m), MPI_CHAR, first, w->comm);
	if (w->rank == 0)
		np_error("the %s backend failed to start on every node (%d of %d), so the launch or the software, not a node: rank %d on '%s': %s; nobody is accused: check the job's environment (libraries, devices, the network setup) on any one node",
			 is->ops->name, is->N, is->N, first, w->hosts[first], m);
	return true;
}

/* Every rank starts the backend on the whole job once: a rank that cannot
 * is named (its message) and nothing is measured; when every node has one
 * that cannot, the launch is, in one message. */
static void start_backend(struct iso *is)
{
	struct np_backend be;
	struct np_err err = { 0 };
	int gpus = 0, mine, worst;
	enum np_status st;

#ifdef HAVE_NCCL
	if (is->o->backend == NP_BACKEND_AUTO)
		gpus = np_nccl_gpu_visible();
#endif
	MPI_Allreduce(MPI_IN_PLACE, &gpus, 1, MPI_INT, MPI_MIN, is->w->comm);
	if (np_backend_select((int)is->o->backend, gpus > 0, &is->ops, is->backend_why, sizeof(is->backend_why),
			      &err))
		np_die(np_status_exit(err.status), "%s", err.msg);
	memset(&be, 0, sizeof(be));
	be.ops = is->ops;
	np_backend_args(&be, is->o, is->w);
	np_watchdog_set_backend(&be);
	np_watchdog_arm("%s backend initialization (start-up, every node)", is->ops->name);
	st = is->ops->init(&be);
	np_watchdog_disarm();
	mine = (int)st;
	MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, is->w->comm);
	if (worst && every_node_failed(is, st != NP_OK && !be.err.secondary, be.err.msg)) {
		/* one error, from rank 0: naming every node would accuse them all */
	} else if (st && !be.err.secondary) {
		np_rank_error("cannot start: %s", be.err.msg);
	}
	np_watchdog_set_backend(NULL);
	is->device = be.info.device;
	snprintf(is->device_name, sizeof(is->device_name), "%s", be.info.device_name);
	MPI_Bcast(is->device_name, sizeof(is->device_name), MPI_CHAR, 0, is->w->comm);
	be.ops->finalize(&be);
	if (worst)
		iso_fail(NULL, (enum np_status)worst);
}

int cmd_isolate(int argc, char **argv, int first, bool mpi)
{
	static struct np_opts o;
	static struct np_world w;
	static struct iso isv;
	struct iso *is = &isv;
	struct np_err err = { 0 };
	struct np_outfile of = { 0 };
	bool help, version;
	int *part, *alone, go, extra = 0;
	struct sigaction sa;
	enum np_status st;

	(void)mpi;
	is->t0 = now_s();
	/* parsing is pure: every rank gets the same options or the same error */
	st = np_opts_parse(&o, NP_CMD_ISOLATE, argc, argv, first, &help, &version, &err);
	if (!help && !version) {
		/* the watchdog's handlers replace these (np_watchdog_start) */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		np_watchdog_startup(o.timeout); /* from here on a rank that stops is named */
	}
	if (np_world_init(&w, 0, &err))
		np_abort_err(&err);
	np_world_usage_agree(&w, st, &err); /* rank 0 speaks for all */
	if (help) {
		if (w.rank == 0)
			np_opts_usage(stdout, NP_CMD_ISOLATE);
		return 0;
	}
	if (version) {
		if (w.rank == 0)
			printf("nccl-probe %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (np_opts_check_world(&o, w.size, &err))
		np_die(NP_EXIT_USAGE, "%s", err.msg);
	/* the file checks may differ between hosts: agree before going on */
	np_watchdog_arm("checking the files named");
	st = np_opts_check_files(&o, &err);
	np_watchdog_arrive(w.comm, "the end of checking the files named");
	np_world_usage_agree(&w, st, &err);
	if (o.ranks_per_node) {
		np_watchdog_arrive(w.comm, "setting up virtual nodes");
		np_world_release(&w);
		if (np_world_init(&w, o.ranks_per_node, &err))
			np_abort_err(&err);
	}
	if (!w.ranks_per_node)
		np_die(NP_EXIT_USAGE, "nodes have different numbers of ranks; launch the same number of ranks (GPUs) on every node");
	is->o = &o;
	is->w = &w;
	is->N = w.nnodes;
	is->L = w.ranks_per_node;
	is->floor = is->world_floor = o.min_busbw;
	if (o.min_busbw > 0)
		snprintf(is->floor_src, sizeof(is->floor_src), "--min-busbw");
	if (is->N < 2)
		np_die(NP_EXIT_USAGE, "isolate needs at least 2 nodes (%d found); launch on more nodes, or use --ranks-per-node to try virtual nodes on one host",
		       is->N);
	if (w.rank == 0 && o.output && np_outfile_open(&of, o.output, "--output", &err))
		np_abort(NP_EXIT_RUNTIME, "%s", err.msg);

	start_backend(is);
	is->size = o.size ? o.size : is->device >= 0 ? 64ull << 20 : 1ull << 20;

	is->names = calloc((size_t)is->N, sizeof(*is->names));
	is->state = calloc((size_t)is->N, sizeof(*is->state));
	is->evidence = calloc((size_t)is->N, sizeof(*is->evidence));
	part = calloc((size_t)is->N, sizeof(int));
	alone = calloc((size_t)is->N, sizeof(int));
	is->meas.samples = calloc(NP_MEAS_MAX_SAMPLES, sizeof(double));
	is->meas.sorted = calloc(NP_MEAS_MAX_SAMPLES, sizeof(double));
	if (!is->names || !is->state || !is->evidence || !part || !alone ||
	    !is->meas.samples || !is->meas.sorted)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d nodes", is->N);
	if (w.virtual_nodes) {
		for (int v = 0; v < is->N; v++)
			snprintf(is->names[v], sizeof(is->names[v]), "vnode%d", v);
	} else {
		/* real nodes: the name of each node's first rank, Slurm's
		 * (SLURMD_NODENAME, which scontrol takes) where it runs under
		 * Slurm, else its host name; the JSON shows the host beside */
		int *nodes = calloc((size_t)w.size, sizeof(int));
		char (*slurm)[NP_HOSTLEN] = calloc((size_t)w.size, sizeof(*slurm));
		char mine[NP_HOSTLEN] = "";
		const char *sn = getenv("SLURMD_NODENAME");
		if (!nodes || !slurm)
			np_abort(NP_EXIT_RUNTIME, "out of memory");
		if (sn && strlen(sn) < sizeof(mine))
			snprintf(mine, sizeof(mine), "%s", sn);
		MPI_Allgather(&w.node, 1, MPI_INT, nodes, 1, MPI_INT, w.comm);
		MPI_Allgather(mine, NP_HOSTLEN, MPI_CHAR, slurm, NP_HOSTLEN, MPI_CHAR, w.comm);
		for (int r = w.size - 1; r >= 0; r--)
			snprintf(is->names[nodes[r]], sizeof(is->names[0]), "%s", slurm[r][0] ? slurm[r] : w.hosts[r]);
		free(slurm);
		free(nodes);
	}
	if (o.baseline) {
		char type[160];
		node_type(is, type, sizeof(type));
		if (read_baseline(is, type, &err))
			np_die(NP_EXIT_USAGE, "%s", err.msg);
	}
	is->meas.o = &o;
	is->meas.budget = o.budget;
	is->meas.ci_target = ISO_CI_TARGET;
	is->meas.noise_min = NP_MEAS_MAX_SAMPLES; /* the paired comparison needs every sample the budget buys */
	is->meas.stall_rank = np_test_stall_rank();
	is->meas.quiet_wrong = true;
	is->meas.stop = &g_stop;
	is->meas.fail = iso_fail;
	is->meas.synced = true;
	is->meas.sync = w.comm;

	/* rounds 1 and 2: every node alone (round 1), pairs, every node */
	for (int round = 1; round <= 2; round++) {
		if (round == 1 && is->L > 1) {
			for (int v = 0; v < is->N; v++)
				alone[v] = v;
			run_phase(is, alone, FIG_ALONE, round);
		}
		plan_matching(is->N, round, part);
		run_phase(is, part, FIG_PAIR, round);
		if (round == 2) {
			for (int v = 0; v < is->N; v++)
				part[v] = 0;
			run_phase(is, part, FIG_WORLD, round);
		}
		is->rounds = round;
		progress_round(is, round);
	}
	/* confirmation rounds: suspects again, with new partners */
	for (;;) {
		go = 0;
		if (w.rank == 0 && extra < ISO_MAX_EXTRA && decide(is, false) > 0)
			go = plan_confirm(is, part, alone);
		bcast_plan(is, part, alone, &go);
		if (!go)
			break;
		extra++;
		is->rounds++;
		if (any_part(alone, is->N))
			run_phase(is, alone, FIG_ALONE, is->rounds);
		if (any_part(part, is->N))
			run_phase(is, part, FIG_PAIR, is->rounds);
		progress_round(is, is->rounds);
	}
	np_watchdog_stop();
	if (w.rank == 0) {
		double wall;
		FILE *out = o.output ? of.f : stdout;
		decide(is, true);
		judge_fleet(is);
		wall = now_s() - is->t0;
		if (o.format == NP_FMT_JSON)
			write_json(is, out, wall);
		else
			write_table(is, out, wall);
		if (o.output && np_outfile_commit(&of, &err)) {
			np_error("%s", err.msg);
			go = NP_EXIT_RUNTIME;
		} else {
			go = exit_code(is);
		}
		if (o.output || o.format == NP_FMT_JSON) {
			for (int v = 0; v < is->N; v++)
				if (is->state[v] != NODE_OK)
					np_error("node %s: %s", is->names[v], node_state_why(is->state[v]));
			for (int i = 0; i < is->nlinks; i++)
				np_error("link %s-%s is slow", is->names[is->links[i].a],
					 is->names[is->links[i].b]);
			if (is->fleet[0])
				np_error("%s", is->fleet);
			if (is->scale[0])
				np_error("%s", is->scale);
		}
	}
	MPI_Bcast(&go, 1, MPI_INT, 0, w.comm);
	free(part);
	free(alone);
	free(is->meas.samples);
	free(is->meas.sorted);
	free(is->names);
	free(is->state);
	free(is->evidence);
	for (int i = 0; i < is->nfigs; i++)
		free(is->figs[i].t);
	free(is->figs);
	free(is->links);
	free(is->tbuf);
	np_world_release(&w);
	return go;
}
