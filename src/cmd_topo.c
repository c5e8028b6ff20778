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
#include "msg.h"
#include "opts.h"
#include "topo_report.h"
#include "topo.h"
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
			int w = c - 1 == start ? snprintf(buf + off, len - off, "%s%d", off ? "," : "", start)
					       : snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", start, c - 1);
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

/* Write through a temporary file in the target's directory, then rename,
 * so that a failure never leaves half a report. */
struct out {
	FILE *f;
	char tmp[4200];
	const char *path;
};

static int out_open(struct out *o, const char *path)
{
	int fd;

	o->path = path;
	o->f = stdout;
	if (!path)
		return 0;
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd >= 0) { /* mkstemp makes it 0600; a report gets the usual mode */
		mode_t mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask) != 0)
			np_warn("cannot set the mode of --output '%s': %s", path, strerror(errno));
	}
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		np_error("cannot write --output '%s': %s; choose a writable file", path, strerror(errno));
		if (fd >= 0)
			close(fd), unlink(o->tmp);
		return -1;
	}
	return 0;
}

static int out_close(struct out *o)
{
	if (!o->path)
		return 0;
	if (fflush(o->f) != 0 || ferror(o->f) || fclose(o->f) != 0) {
		np_error("cannot write --output '%s': %s", o->path, strerror(errno));
		unlink(o->tmp);
		return -1;
	}
	if (rename(o->tmp, o->path) != 0) {
		np_error("cannot rename to --output '%s': %s", o->path, strerror(errno));
		unlink(o->tmp);
		return -1;
	}
	return 0;
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
			b[i].gpu = i % t->ngpus; /* local rank i drives GPU i, as the sweep maps them */
			snprintf(b[i].cpus, sizeof(b[i].cpus), "%s", all + (size_t)i * NP_CPUSET_LEN);
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
	char (*sums)[1024] = NULL;
	char (*hosts)[64] = NULL;

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
		snprintf(f->message, sizeof(f->message), "node '%s' differs from the %d node(s) like '%s'", hosts[i], best_count,
			 hosts[best]);
		snprintf(f->evidence, sizeof(f->evidence), "%.150s | majority: %.150s", sums[i], sums[best]);
		snprintf(f->remedy, sizeof(f->remedy), "run 'nccl-probe topo' on '%s' and compare; drain it until it matches", hosts[i]);
	}
}

static int exit_code(const struct np_opts *o, const struct np_topo *t)
{
	if (o->check_gdr)
		return np_topo_gdr_all_ok(t) ? NP_EXIT_OK : NP_EXIT_VERDICT;
	if (o->recommend)
		return NP_EXIT_OK;
	for (int i = 0; i < t->nfindings; i++)
		if (t->findings[i].sev == NP_SEV_ERROR)
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

int cmd_topo(int argc, char **argv, int first, bool mpi)
{
	struct np_opts o;
	struct np_err err = { 0 };
	bool help, version;
	struct np_topo *t;
	struct fleet_state fs;
	enum np_status st = NP_OK;
	struct out out;
	int code;

	if (np_opts_parse(&o, NP_CMD_TOPO, argc, argv, first, &help, &version, &err)) {
		np_error("%s", err.msg);
		return NP_EXIT_USAGE;
	}
	if (help) {
		np_opts_usage(stdout, NP_CMD_TOPO);
		return 0;
	}
	if (version) {
		printf("nccl-probe %s (topo schema %s %d)\n", PACKAGE_VERSION, NP_TOPO_SCHEMA, NP_TOPO_SCHEMA_VERSION);
		return 0;
	}
	if (o.format == NP_FMT_CSV) {
		np_error("topo has no CSV output; use --format table or --format json");
		return NP_EXIT_USAGE;
	}
	memset(&fs, 0, sizeof(fs));
	fs.leader = true;
	if (mpi) {
		if (np_world_init(&fs.w, 0, &err)) {
			np_rank_error("%s", err.msg);
			np_abort(NP_EXIT_RUNTIME, "cannot set up the MPI world");
		}
		fs.up = true;
		fs.leader = fs.w.local_rank == 0;
	}
	t = malloc(sizeof(*t));
	if (!t) {
		np_rank_error("out of memory for the topology model");
		return NP_EXIT_RUNTIME;
	}
	np_topo_init(t);
	if (fs.leader) {
		bool keep = o.export_file != NULL;
		st = o.input ? np_topo_discover_file(t, o.input, keep, &err) : np_topo_discover_live(t, keep, &err);
	}
	if (fs.up) { /* every rank learns whether discovery worked anywhere */
		int bad = st != NP_OK, any = 0, usage = st == NP_EUSAGE, anyusage = 0;
		MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, fs.w.comm);
		MPI_Allreduce(&usage, &anyusage, 1, MPI_INT, MPI_MAX, fs.w.comm);
		if (any) {
			if (st)
				np_rank_error("%s", err.msg);
			np_topo_release(t);
			free(t);
			np_world_release(&fs.w);
			return anyusage ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
		}
	} else if (st) {
		np_error("%s", err.msg);
		np_topo_release(t);
		free(t);
		return np_status_exit(st);
	}
	if (fs.leader) {
		np_topo_paths(t);
		np_topo_check(t);
	}
	if (fs.up)
		binding(&fs, t, o.input == NULL);
	if (fs.leader)
		np_topo_recommend(t);
	if (fs.up)
		gather_fleet(&fs, t);
	if (fs.leader && o.export_file) {
		char name[4200];
		export_name(&fs, o.export_file, name, sizeof(name));
		if ((st = np_topo_snapshot(t, name, &err)))
			np_rank_error("%s", err.msg);
	}
	code = st ? np_status_exit(st) : exit_code(&o, t);
	if (fs.up) {
		int worst = code;
		MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, fs.w.comm);
		code = worst;
	}
	if ((!fs.up || fs.w.rank == 0) && !st) {
		if (!o.quiet)
			for (int i = 0; i < t->nnotes; i++)
				np_note("%s", t->notes[i]);
		if (out_open(&out, o.output) != 0) {
			code = NP_EXIT_USAGE;
		} else {
			const struct np_topo_fleet *fl = fs.up ? &fs.fleet : NULL;
			if (o.format == NP_FMT_JSON)
				np_topo_report_json(out.f, t, fl, o.check_gdr);
			else if (o.check_gdr)
				np_topo_report_gdr(out.f, t);
			else if (o.recommend)
				np_topo_report_recommend(out.f, t);
			else
				np_topo_report_table(out.f, t, fl);
			if (out_close(&out) != 0)
				code = NP_EXIT_RUNTIME;
		}
	}
	free(fs.fleet.summaries);
	free(fs.fleet.hosts);
	np_topo_release(t);
	free(t);
	if (fs.up)
		np_world_release(&fs.w);
	return code;
}
