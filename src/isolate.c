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
#include <unistd.h>

#include "cmds.h"
#include "isolate_internal.h"
#include "isolate_judge.h"
#include "isolate_topology.h"
#include "json_read.h"
#include "json.h"
#include "measure.h"
#include "notes.h"
#include "stats.h"
#include "msg.h"
#include "openmetrics.h"
#include "outfile.h"
#include "version.h"
#include "watchdog.h"

#define ISO_CI_TARGET 0.01

_Static_assert(NP_ISO_NAMELEN == NP_HOSTLEN + 16, "a node's name: its host's and a suffix");

static _Noreturn void iso_fail(void *arg, enum np_status st)
{
	(void)arg;
	np_watchdog_stop();
	np_exit(np_status_exit(st ? st : NP_EMPI));
}

/* The judge's notes join the run's. */
static void iso_note(void *arg, const char *msg)
{
	struct iso *is = arg;

	np_notes_add(&is->notes, "%s", msg);
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
	np_backend_args(&be, is->o, &sw, is->test);
	out->leader = sw.rank == 0;
	np_watchdog_set_backend(&be);
	np_watchdog_arm("%s backend initialization %s", is->ops->name, what);
	st = is->ops->init(&be);
	np_watchdog_disarm();
	if (st != NP_OK) {
		out->status = st;
		snprintf(out->msg, sizeof(out->msg), "%.255s", be.err.msg);
	}
	if ((st = np_status_worst(gc, st)) == NP_OK) {
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
		if ((st = np_status_worst(gc, st)) == NP_OK) {
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
			out->status = st;   /* another rank of the group failed */
		np_measure_idle(&is->meas); /* the other groups measure on */
	}
	np_watchdog_set_backend(NULL);
	be.ops->finalize(&be);
	MPI_Comm_free(&sw.node_comm);
	free(sw.hosts);
	free(jr);
	free(nodes);
}

/* After a phase of pairs (or nodes alone): when no group ran right, on
 * any node (the idle ones included), the cause is common to every node
 * (the launch, the software), not a node's: one error, nobody accused;
 * exit 3 when no group could run, 2 when some computed wrong data.
 * Collective over the job; all is rank 0's (the phase's outcome by rank). */
static void launch_failed(struct iso *is, const struct phase_out *all, enum np_iso_fig_kind kind,
			  int round)
{
	const struct np_world *w = is->w;
	int res[2] = { -1, 0 }; /* the group whose message is shown; wrong data seen */
	int failed = 0, wrong = 0, groups = 0;

	if (kind == NP_FIG_WORLD) /* every node together: judged as the scale */
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
static void run_phase(struct iso *is, const int *part, enum np_iso_fig_kind kind, int round)
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
	if (kind == NP_FIG_WORLD)
		snprintf(what, sizeof(what), "(round %d, every node)", round);
	else
		snprintf(what, sizeof(what), "(round %d, %s group %d)", round,
			 color >= 0 ? np_iso_fig_kind_str(kind) : "idle", mine.color);
	/* virtual nodes share this host's cores (or GPU): at the same time
	 * their groups would measure who got the cores, a different pair each
	 * phase and by up to 40% on a 2-core host; they take turns instead */
	is->meas.turns = 0;
	is->meas.turn = color;
	if (w->virtual_nodes && kind != NP_FIG_WORLD)
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
	MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, 0,
		   w->comm);
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
		MPI_Gatherv(is->meas.samples, cnt, MPI_DOUBLE, is->tbuf, cnts, displs, MPI_DOUBLE,
			    0, w->comm);
		free(cnts);
	}
	launch_failed(is, all, kind, round);
	if (w->rank != 0)
		return;
	for (int r = 0; r < w->size; r++) {
		struct np_iso_fig f;
		if (!all[r].leader || all[r].color >= is->N)
			continue;
		memset(&f, 0, sizeof(f));
		f.round = round;
		f.kind = kind;
		f.a = f.b = -1;
		if (kind != NP_FIG_WORLD)
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
				 np_iso_fig_kind_str(kind),
				 f.a >= 0 ? is->names[f.a] : "every node", f.b >= 0 ? " and " : "",
				 f.b >= 0 ? is->names[f.b] : "", all[r].msg);
			f.busbw = f.lo = f.hi = 0;
			f.wrong = 1;
			f.failed = true;
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
		np_iso_fig_add(&is->j, &f);
	}
	free(all);
	free(is->tdispl);
	is->tdispl = NULL;
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
	np_iso_judge_figs(&is->j);
	for (int i = 0; i < is->j.nfigs; i++)
		if (is->j.figs[i].round == round) {
			n++;
			bad += is->j.figs[i].bad;
		}
	fprintf(stderr, "isolate: round %d: %d group%s measured, %d below the fleet (%.1f s)\n",
		round, n, n == 1 ? "" : "s", bad, np_now_s() - is->t0);
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
			is->j.floor = is->o->min_busbw > v->num ? is->o->min_busbw : v->num;
			snprintf(is->j.floor_src, sizeof(is->j.floor_src), "--baseline '%.100s'",
				 is->o->baseline);
		}
		if ((v = np_jget(b, "world_floor_busbw")) && v->type == NP_J_NUM && v->num > 0)
			is->j.world_floor = is->o->min_busbw > v->num ? is->o->min_busbw : v->num;
	}
	np_jval_free(&root);
	if (is->j.floor > 0)
		return NP_OK;
	return np_fail(err, NP_EUSAGE,
		       "--baseline '%s' has no floor for nodes of type '%s'; give the JSON report of a known-good 'nccl-probe isolate --format json' run on such nodes",
		       is->o->baseline, type);
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
	enum np_status st, worst;

	memset(&be, 0, sizeof(be));
	be.ops = is->ops;
	np_backend_args(&be, is->o, is->w, is->test);
	np_watchdog_set_backend(&be);
	np_watchdog_arm("%s backend initialization (start-up, every node)", is->ops->name);
	st = is->ops->init(&be);
	np_watchdog_disarm();
	worst = np_status_worst(is->w->comm, st);
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

/* The nodes' names: vnodeN, else each node's first rank's Slurm name
 * (SLURMD_NODENAME, which scontrol takes) where it runs under Slurm, else
 * its host name; the JSON shows the host beside */
static void node_names(struct iso *is)
{
	const struct np_world *w = is->w;
	int *nodes;
	char(*slurm)[NP_HOSTLEN], mine[NP_HOSTLEN] = "";
	const char *sn = getenv("SLURMD_NODENAME");

	if (w->virtual_nodes) {
		for (int v = 0; v < is->N; v++)
			snprintf(is->names[v], sizeof(is->names[v]), "vnode%d", v);
		return;
	}
	nodes = calloc((size_t)w->size, sizeof(int));
	slurm = calloc((size_t)w->size, sizeof(*slurm));
	if (!nodes || !slurm)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	if (sn && strlen(sn) < sizeof(mine))
		snprintf(mine, sizeof(mine), "%s", sn);
	MPI_Allgather(&w->node, 1, MPI_INT, nodes, 1, MPI_INT, w->comm);
	MPI_Allgather(mine, NP_HOSTLEN, MPI_CHAR, slurm, NP_HOSTLEN, MPI_CHAR, w->comm);
	for (int r = w->size - 1; r >= 0; r--)
		snprintf(is->names[nodes[r]], sizeof(is->names[0]), "%s",
			 slurm[r][0] ? slurm[r] : w->hosts[r]);
	free(slurm);
	free(nodes);
}

/* The judge, the nodes, the backend's device, the baseline and the engine */
static void iso_start(struct iso *is, struct np_run *run)
{
	const struct np_opts *o = is->o;
	struct np_err err = { 0 };

	if (!run->w.ranks_per_node)
		np_die(NP_EXIT_USAGE,
		       "nodes have different numbers of ranks; launch the same number of ranks (GPUs) on every node");
	is->N = run->w.nnodes;
	is->L = run->w.ranks_per_node;
	if (!np_iso_judge_init(&is->j, is->N, is->L, NULL, o->min_effect, o->min_busbw,
			       o->min_busbw))
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d nodes", is->N);
	is->j.note = iso_note;
	is->j.note_arg = is;
	{
		/* the random order of partners: --seed, or drawn on rank 0;
		 * every rank plans with the same one, and the report says it */
		uint64_t seed =
			o->seed >= 0 ? (uint64_t)o->seed
				     : ((uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid()) %
					       2147483647u;
		MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, run->w.comm);
		is->j.seed = seed;
	}
	if (o->min_busbw > 0)
		snprintf(is->j.floor_src, sizeof(is->j.floor_src), "--min-busbw");
	if (is->N < 2)
		np_die(NP_EXIT_USAGE,
		       "isolate needs at least 2 nodes (%d found); launch on more nodes, or use --ranks-per-node to try virtual nodes on one host",
		       is->N);
	/* checked now, its temporary made at the end (iso_report): a kill of
	 * rank 0 during the rounds leaves no file beside it */
	if (run->w.rank == 0 && o->output && np_outfile_check(o->output, "--output", &err))
		np_abort(NP_EXIT_RUNTIME, "%s", err.msg);
	is->ops = run->ops;
	snprintf(is->backend_why, sizeof(is->backend_why), "%s", run->backend_why);
	start_backend(is);
	is->size = o->size ? o->size : is->device >= 0 ? 64ull << 20 : 1ull << 20;
	is->names = calloc((size_t)is->N, sizeof(*is->names));
	is->meas.samples = calloc(NP_MEAS_MAX_SAMPLES, sizeof(double));
	is->meas.sorted = calloc(NP_MEAS_MAX_SAMPLES, sizeof(double));
	if (!is->names || !is->meas.samples || !is->meas.sorted)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d nodes", is->N);
	is->j.names = (const char(*)[NP_ISO_NAMELEN])is->names;
	node_names(is);
	if (o->topology) {
		is->leaf = calloc((size_t)is->N, sizeof(int));
		is->leaf_names = calloc((size_t)is->N, sizeof(*is->leaf_names));
		if (!is->leaf || !is->leaf_names)
			np_abort(NP_EXIT_RUNTIME, "out of memory for %d nodes", is->N);
		if (np_iso_topology_read(o->topology, is->N,
					 (const char(*)[NP_ISO_NAMELEN])is->names, is->leaf,
					 is->leaf_names, &is->j.nleaves, &err))
			np_die(np_status_exit(err.status), "%s", err.msg);
		is->j.leaf = is->leaf;
		is->j.leaf_names = (const char(*)[NP_ISO_NAMELEN])is->leaf_names;
	}
	if (o->baseline) {
		char type[160];
		node_type(is, type, sizeof(type));
		if (read_baseline(is, type, &err))
			np_die(NP_EXIT_USAGE, "%s", err.msg);
	}
	is->meas.o = o;
	is->meas.budget = o->budget;
	is->meas.ci_target = ISO_CI_TARGET;
	is->meas.noise_min =
		NP_MEAS_MAX_SAMPLES; /* the paired comparison needs every sample the budget buys */
	np_meas_test_stall(&is->meas, is->test);
	is->meas.quiet_wrong = true;
	/* no stop flag: the watchdog takes SIGINT and SIGTERM
	 * (np_watchdog_start) and ends the run itself, so the engine is never
	 * asked to stop between batches */
	is->meas.stop = NULL;
	is->meas.fail = iso_fail;
	is->meas.synced = true;
	is->meas.sync = run->w.comm;
}

/* Rounds 1 and 2 (every node alone, pairs, every node), then
 * confirmation rounds: suspects again, with new partners */
static void iso_rounds(struct iso *is, int *part, int *alone)
{
	int go, extra = 0;

	for (int round = 1; round <= 2; round++) {
		if (round == 1 && is->L > 1) {
			for (int v = 0; v < is->N; v++)
				alone[v] = v;
			run_phase(is, alone, NP_FIG_ALONE, round);
		}
		np_iso_plan_matching_seed(is->N, round, is->j.seed, part);
		run_phase(is, part, NP_FIG_PAIR, round);
		if (round == 2) {
			for (int v = 0; v < is->N; v++)
				part[v] = 0;
			run_phase(is, part, NP_FIG_WORLD, round);
		}
		is->j.rounds = round;
		progress_round(is, round);
	}
	for (;;) {
		go = 0;
		if (is->w->rank == 0 && extra < NP_ISO_MAX_CONFIRM &&
		    np_iso_decide(&is->j, false) > 0)
			go = np_iso_plan_confirm(&is->j, part, alone);
		bcast_plan(is, part, alone, &go);
		if (!go)
			break;
		extra++;
		is->j.rounds++;
		if (any_part(alone, is->N))
			run_phase(is, alone, NP_FIG_ALONE, is->j.rounds);
		if (any_part(part, is->N))
			run_phase(is, part, NP_FIG_PAIR, is->j.rounds);
		progress_round(is, is->j.rounds);
	}
}

int cmd_isolate(struct np_run *run)
{
	static struct iso isv;
	struct iso *is = &isv;
	int *part, *alone, code = 0;

	is->t0 = run->t0;
	is->o = &run->o;
	is->w = &run->w;
	is->test = &run->test;
	is->run = &run->rec;
	iso_start(is, run);
	part = calloc((size_t)is->N, sizeof(int));
	alone = calloc((size_t)is->N, sizeof(int));
	if (!part || !alone)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d nodes", is->N);
	iso_rounds(is, part, alone);
	np_watchdog_stop();
	if (run->w.rank == 0)
		code = np_isolate_report(is);
	MPI_Bcast(&code, 1, MPI_INT, 0, run->w.comm);
	free(part);
	free(alone);
	free(is->meas.samples);
	free(is->meas.sorted);
	free(is->names);
	free(is->leaf);
	free(is->leaf_names);
	np_iso_judge_release(&is->j);
	np_notes_release(&is->notes);
	free(is->tbuf);
	return code;
}
