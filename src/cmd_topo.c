/* SPDX-License-Identifier: MIT */
/* The topo command: discover (live or --input), analyze, and report as a
 * table, JSON, a GDR check or export lines. Under mpirun, the first rank
 * of each node discovers, checks its node's ranks' CPU binding, and rank 0
 * reports its node and which nodes differ (fleet mode). */
#define _GNU_SOURCE /* sched_getaffinity */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "cmds.h"
#include "../probes/gpu_load.h"
#include "../topo/health.h"
#include "msg.h"
#include "opts.h"
#include "openmetrics.h"
#include "outfile.h"
#include "topo_report.h"
#include "../topo/topo.h"
#include "version.h"
#include "world.h"

/* The calling thread's CPU set as a list ("0-3,8"). */
static void my_cpus(char *buf, size_t len)
{
	cpu_set_t set;
	size_t off = 0;
	int start = -1;

	buf[0] = '\0';
#ifdef HAVE_SCHED_GETAFFINITY
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	for (int c = 0; c <= CPU_SETSIZE && off < len; c++) {
		bool in = c < CPU_SETSIZE && CPU_ISSET(c, &set);
		if (in && start < 0)
			start = c;
		if (!in && start >= 0) {
			int w = c - 1 == start ? snprintf(buf + off, len - off, "%s%d",
							  off ? "," : "", start)
					       : snprintf(buf + off, len - off, "%s%d-%d",
							  off ? "," : "", start, c - 1);
			off += w > 0 ? (size_t)w : 0;
			start = -1;
		}
	}
#else
	(void)set;
	(void)start;
	(void)off;
	(void)len;
#endif
}

struct fleet_state {
	struct np_world w;
	bool up;
	bool leader;
	struct np_topo_fleet fleet;
};

/* Gather every rank's CPU set to its node's leader, which checks each
 * against the NUMA node of the GPU that local rank drives. */
static void binding(struct fleet_state *fs, struct np_topo *t, bool live)
{
	char mine[NP_CPUSET_LEN], *all = NULL;
	int n = fs->w.local_size, *ranks = NULL;

	my_cpus(mine, sizeof(mine));
	if (fs->leader) {
		all = calloc((size_t)n, NP_CPUSET_LEN);
		ranks = calloc((size_t)n, sizeof(int));
		if (!all || !ranks)
			np_abort(NP_EXIT_RUNTIME, "out of memory for %d CPU sets", n);
	}
	MPI_Gather(mine, NP_CPUSET_LEN, MPI_CHAR, all, NP_CPUSET_LEN, MPI_CHAR, 0, fs->w.node_comm);
	MPI_Gather(&fs->w.rank, 1, MPI_INT, ranks, 1, MPI_INT, 0, fs->w.node_comm);
	if (fs->leader && live && t->ngpus) {
		struct np_rank_bind *b = calloc((size_t)n, sizeof(*b));
		if (!b)
			np_abort(NP_EXIT_RUNTIME, "out of memory for %d CPU sets", n);
		for (int i = 0; i < n; i++) {
			b[i].rank = ranks[i];
			b[i].gpu = i %
				   t->ngpus; /* local rank i drives GPU i, as the sweep maps them */
			snprintf(b[i].cpus, sizeof(b[i].cpus), "%s",
				 all + (size_t)i * NP_CPUSET_LEN);
		}
		np_topo_check_binding(t, b, n);
		free(b);
	}
	free(all);
	free(ranks);
}

/* Node summaries to rank 0; marks the majority and adds a finding for
 * each node that differs from it. */
static void gather_fleet(struct fleet_state *fs, struct np_topo *t)
{
	char sum[1024] = "", host[64];
	int n = fs->w.size;
	char(*sums)[1024] = NULL;
	char(*hosts)[64] = NULL;

	if (fs->leader)
		np_topo_summary(t, sum, sizeof(sum));
	snprintf(host, sizeof(host), "%s", fs->w.host);
	if (fs->w.rank == 0) {
		sums = calloc((size_t)n, sizeof(*sums));
		hosts = calloc((size_t)n, sizeof(*hosts));
		if (!sums || !hosts)
			np_abort(NP_EXIT_RUNTIME, "out of memory for %d node summaries", n);
	}
	MPI_Gather(sum, 1024, MPI_CHAR, sums, 1024, MPI_CHAR, 0, fs->w.comm);
	MPI_Gather(host, 64, MPI_CHAR, hosts, 64, MPI_CHAR, 0, fs->w.comm);
	if (fs->w.rank != 0)
		return;
	/* keep the leaders' rows only */
	int m = 0, best = 0, best_count = 0;
	for (int i = 0; i < n; i++)
		if (sums[i][0]) {
			memmove(sums[m], sums[i], sizeof(sums[0]));
			memmove(hosts[m], hosts[i], sizeof(hosts[0]));
			m++;
		}
	for (int i = 0; i < m; i++) {
		int c = 0;
		for (int k = 0; k < m; k++)
			c += !strcmp(sums[i], sums[k]);
		if (c > best_count)
			best_count = c, best = i;
	}
	fs->fleet.nnodes = m;
	fs->fleet.summaries = sums;
	fs->fleet.hosts = hosts;
	fs->fleet.majority = best;
	for (int i = 0; i < m; i++) {
		struct np_finding *f;
		if (!strcmp(sums[i], sums[best]))
			continue;
		f = np_topo_finding(t, "fleet-differs", NP_SEV_WARNING, hosts[i]);
		snprintf(f->message, sizeof(f->message),
			 "node '%s' differs from the %d node(s) like '%s'", hosts[i], best_count,
			 hosts[best]);
		snprintf(f->evidence, sizeof(f->evidence), "%.150s | majority: %.150s", sums[i],
			 sums[best]);
		snprintf(f->remedy, sizeof(f->remedy),
			 "run 'nccl-probe topo' on '%s' and compare; drain it until it matches",
			 hosts[i]);
	}
}

/* The busy GPU load of --under-load, as topo's health window takes it. */
static int load_start(void *arg, double seconds)
{
	(void)arg;
	return np_gpu_load_start(seconds);
}

static void load_stop(void *arg)
{
	(void)arg;
	np_gpu_load_stop();
}

/* Health figures of the node (live runs): sampled by its leader and
 * checked. */
static void health(struct fleet_state *fs, struct np_topo *t, const struct np_opts *o)
{
	static const struct np_health_load gpu_load = { load_start, load_stop, NULL };
	struct np_health_opts ho = { 0 };

	ho.window_s = o->under_load > 0 ? o->under_load : o->window > 0 ? o->window : 1.0;
	ho.local_ranks = fs->up ? fs->w.local_size : 0;
	if (fs->leader && !o->input) {
		t->health = calloc(1, sizeof(*t->health));
		if (!t->health)
			np_abort(NP_EXIT_RUNTIME, "out of memory for the health figures");
		if (o->under_load > 0 && getenv("NCCL_PROBE_FSROOT"))
			np_topo_note(t,
				     "--under-load: NCCL_PROBE_FSROOT describes another machine, whose GPUs cannot be loaded; the health figures were sampled idle");
		else if (o->under_load > 0 && np_gpu_load_open() == 0)
			ho.load = &gpu_load;
		else if (o->under_load > 0)
			np_topo_note(t,
				     "--under-load: no GPU could be loaded (no CUDA driver, or no GPU visible); the health figures were sampled idle");
		np_health_live(t, t->health, &ho);
		np_health_check(t, t->health);
		np_gpu_load_close();
	}
}

/* Every node's GPU figures to rank 0, which names the outliers (after the
 * fleet's summaries, which they would otherwise enter). */
static void health_fleet(struct fleet_state *fs, struct np_topo *t)
{
	struct np_health_row *rows = NULL, *all = NULL;
	int n = 0, *counts = NULL, *displs = NULL, total = 0;
	char node[64];

	if (!fs->up || fs->w.nnodes < 2)
		return;
	if (fs->w.virtual_nodes)
		snprintf(node, sizeof(node), "%.40s:node%d", fs->w.host, fs->w.node);
	else
		snprintf(node, sizeof(node), "%s", fs->w.host);
	rows = calloc(NP_MAX_GPUS, sizeof(*rows));
	if (!rows)
		np_abort(NP_EXIT_RUNTIME, "out of memory for the health figures");
	if (t->health)
		n = np_health_rows(t->health, node, rows, NP_MAX_GPUS);
	n *= (int)sizeof(*rows);
	if (fs->w.rank == 0) {
		counts = calloc((size_t)fs->w.size, sizeof(int));
		displs = calloc((size_t)fs->w.size, sizeof(int));
		if (!counts || !displs)
			np_abort(NP_EXIT_RUNTIME, "out of memory for the health figures");
	}
	MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, fs->w.comm);
	if (fs->w.rank == 0) {
		for (int i = 0; i < fs->w.size; i++)
			displs[i] = total, total += counts[i];
		all = malloc(total > 0 ? (size_t)total : 1);
		if (!all)
			np_abort(NP_EXIT_RUNTIME, "out of memory for the health figures");
	}
	MPI_Gatherv(rows, n, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, fs->w.comm);
	if (fs->w.rank == 0) {
		long long median;
		np_health_fleet(t, all, total / (int)sizeof(*rows), &median);
	}
	free(all);
	free(counts);
	free(displs);
	free(rows);
}

_Static_assert(NP_SEV_WARNING == 1 && NP_SEV_ERROR == 2,
	       "--fail-on's values in opts.c are NP_SEV_*");

static int exit_code(const struct np_opts *o, const struct np_topo *t)
{
	if (o->check_gdr) { /* 0 every GPU yes, 1 one no, 5 none no but some unknown */
		enum np_tri all = np_topo_gdr_all(t);
		return all == NP_YES  ? NP_EXIT_OK
		       : all == NP_NO ? NP_EXIT_VERDICT
				      : NP_EXIT_UNKNOWN;
	}
	if (o->recommend)
		return NP_EXIT_OK;
	for (int i = 0; i < t->nfindings; i++) /* --fail-on: -1 never */
		if (o->fail_on >= 0 && (int)t->findings[i].sev >= o->fail_on)
			return NP_EXIT_VERDICT;
	for (int k = 0; k < t->ntrays; k++) /* a multi-node NVLink dump: every tray */
		if (o->fail_on >= 0 &&
		    (o->fail_on == NP_SEV_ERROR ? t->trays[k].errors : t->trays[k].warnings) > 0)
			return NP_EXIT_VERDICT;
	return NP_EXIT_OK;
}

static void export_name(const struct fleet_state *fs, const char *path, char *buf, size_t len)
{
	if (fs->up && fs->w.real_nnodes > 1) /* one file per node */
		snprintf(buf, len, "%s.%s", path, fs->w.host);
	else
		snprintf(buf, len, "%s", path);
}

/* The fleet state takes the world that run_cmd made, and releases it. */
static void fleet_state_init(struct fleet_state *fs, struct np_run *run)
{
	memset(fs, 0, sizeof(*fs));
	fs->leader = true;
	if (run->world_up) {
		fs->w = run->w;
		run->world_up = false;
		fs->up = true;
		fs->leader = fs->w.local_rank == 0;
	}
}

static void fleet_state_release(struct fleet_state *fs, struct np_topo *t)
{
	free(fs->fleet.summaries);
	free(fs->fleet.hosts);
	free(t->health);
	np_topo_release(t);
	free(t);
	if (fs->up)
		np_world_release(&fs->w);
}

/* Each node's leader reads its node (live or --input); every rank learns
 * whether that worked everywhere. 0, or the exit code of the failure. */
static int discover(struct fleet_state *fs, struct np_topo *t, const struct np_opts *o)
{
	struct np_err err = { 0 };
	enum np_status st = NP_OK;

	if (fs->leader) {
		bool keep = o->export_file != NULL;
		/* an MPI rank does not fork: with verbs, its registered pages
		 * are absent in a child (ibv_fork_init) or shared copy-on-write */
		t->import_in_child = !fs->up;
		t->tray_want = o->host_hash;
		st = o->input ? np_topo_discover_file(t, o->input, keep, &err)
			      : np_topo_discover_live(t, keep, &err);
	}
	if (fs->up) {
		int bad = st != NP_OK, any = 0, usage = st == NP_EUSAGE, anyusage = 0;
		MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, fs->w.comm);
		MPI_Allreduce(&usage, &anyusage, 1, MPI_INT, MPI_MAX, fs->w.comm);
		if (!any)
			return NP_EXIT_OK;
		if (st)
			np_rank_error("%s", err.msg);
		return anyusage ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
	}
	if (!st)
		return NP_EXIT_OK;
	np_error("%s", err.msg);
	return np_status_exit(st);
}

/* Paths, checks, CPU binding, health and recommendations on each node,
 * then the fleet's comparisons on rank 0. */
static void analyze(struct fleet_state *fs, struct np_topo *t, const struct np_opts *o)
{
	bool with_health = !o->check_gdr && !o->recommend;

	if (fs->leader) {
		np_topo_paths(t);
		np_topo_check(t);
	}
	if (fs->up && !fs->w.virtual_nodes) /* binding gathers over the real node */
		binding(fs, t, o->input == NULL);
	if (with_health)
		health(fs, t, o);
	if (fs->leader)
		np_topo_recommend(t);
	if (fs->up)
		gather_fleet(fs, t);
	if (with_health)
		health_fleet(fs, t);
}

/* --export: the node's hwloc XML snapshot, one file per real node. */
static enum np_status export_snapshot(const struct fleet_state *fs, struct np_topo *t,
				      const char *path)
{
	struct np_err err = { 0 };
	char name[4200], *xml = NULL;
	size_t len = 0;
	enum np_status st;

	export_name(fs, path, name, sizeof(name));
	if (!(st = np_topo_snapshot(t, &xml, &len, &err)))
		st = np_outfile_write(name, "--export", xml, len, &err);
	free(xml);
	if (st)
		np_rank_error("%s", err.msg);
	return st;
}

/* The worst node's exit code; a "no" (1) outranks an "unknown" (5). */
static int fleet_exit_code(const struct fleet_state *fs, int code)
{
	int known = code == NP_EXIT_UNKNOWN ? 0 : code, unknown = code == NP_EXIT_UNKNOWN,
	    worst = 0, any = 0;

	if (!fs->up)
		return code;
	MPI_Allreduce(&known, &worst, 1, MPI_INT, MPI_MAX, fs->w.comm);
	MPI_Allreduce(&unknown, &any, 1, MPI_INT, MPI_MAX, fs->w.comm);
	return worst ? worst : any ? NP_EXIT_UNKNOWN : NP_EXIT_OK;
}

/* The notes, the report in the format asked (to --output or standard
 * output) and --metrics; returns code, or the exit code of a failed write. */
static int write_report(struct np_run *run, const struct fleet_state *fs, const struct np_topo *t,
			int code)
{
	const struct np_opts *o = &run->o;
	const struct np_topo_fleet *fl = fs->up ? &fs->fleet : NULL;
	struct np_err err = { 0 };
	struct np_outfile out;

	if (!o->quiet)
		for (int i = 0; i < t->nnotes; i++)
			np_note("%s", t->notes[i]);
	if (np_outfile_open(&out, o->output ? o->output : "-", "--output", &err)) {
		np_error("%s", err.msg);
		code = np_status_exit(err.status);
	} else {
		bool ok = true;
		if (o->format == NP_FMT_JSON)
			ok = np_topo_report_json(out.f, t, fl, o->check_gdr, &run->rec);
		else if (o->check_gdr)
			ok = np_topo_report_gdr(out.f, t);
		else if (o->recommend)
			np_topo_report_recommend(out.f, t);
		else
			ok = np_topo_report_table(out.f, t, fl, o->wide);
		if (!ok) {
			np_outfile_discard(&out);
			np_error("out of memory for the report");
			code = NP_EXIT_RUNTIME;
		} else if (np_outfile_commit(&out, &err)) {
			np_error("%s", err.msg);
			code = np_status_exit(err.status);
		}
	}
	if (o->metrics_file && np_openmetrics_topo(o->metrics_file, t, code, &err)) {
		np_error("%s", err.msg);
		code = NP_EXIT_RUNTIME;
	}
	return code;
}

int cmd_topo(struct np_run *run)
{
	struct np_opts o = run->o;
	struct np_topo *t;
	struct fleet_state fs;
	enum np_status st = NP_OK;
	int code;

	if (o.format == NP_FMT_CSV) {
		np_error("topo has no CSV output; use --format table or --format json");
		return NP_EXIT_USAGE;
	}
	if (o.host_hash && !o.input) {
		np_error(
			"--host-hash picks a tray of a multi-node NVLink dump; give the dump with --input");
		return NP_EXIT_USAGE;
	}
	fleet_state_init(&fs, run);
	t = malloc(sizeof(*t));
	if (!t) {
		np_rank_error("out of memory for the topology model");
		return NP_EXIT_RUNTIME;
	}
	np_topo_init(t);
	code = discover(&fs, t, &o);
	if (code != NP_EXIT_OK) {
		fleet_state_release(&fs, t);
		return code;
	}
	analyze(&fs, t, &o);
	if (fs.leader && o.export_file)
		st = export_snapshot(&fs, t, o.export_file);
	code = fleet_exit_code(&fs, st ? np_status_exit(st) : exit_code(&o, t));
	if ((!fs.up || fs.w.rank == 0) && !st)
		code = write_report(run, &fs, t, code);
	fleet_state_release(&fs, t);
	return code;
}
