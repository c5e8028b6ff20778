/* SPDX-License-Identifier: MIT */
/* The NCCL backend through its ops, without the sweep engine: every
 * collective, data type and reduction with the device check, in place, in
 * CUDA graphs (one graph and several), out-of-memory allocation, and the
 * watchdog's abort of a stalled stream. Skips without a GPU.
 * Usage: test_nccl [stall]   (stall: only the abort test, as a separate
 * process, since an aborted backend cannot be used again) */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "../../common/testhooks.h"
#include "../../probes/backend.h"
#include "../../src/cmds.h"
#include "../../src/opts.h"
#include "../../src/world.h"
#include "tap.h"

static struct np_world world;

/* What the engine gives a backend of the world (np_backend_args in src/measure.c does the same). */
static void fill_world(struct np_backend_world *bw)
{
	bw->comm = world.comm;
	bw->node_comm = world.node_comm;
	bw->rank = world.rank;
	bw->size = world.size;
	bw->node = world.node;
	bw->nnodes = world.nnodes;
	bw->local_rank = world.local_rank;
	bw->local_size = world.local_size;
	bw->virtual_nodes = world.virtual_nodes;
	bw->hosts = (const char(*)[NP_BE_HOSTLEN])world.hosts;
	bw->mpi_version = world.mpi_version;
	bw->job_ranks = world.job_ranks;
	bw->job_size = world.job_size;
	bw->device = world.device;
}

static void make_opts(struct np_opts *o, bool graph, bool inplace)
{
	char *argv[] = { "nccl-probe", NULL };
	bool help, version;
	struct np_err err = { 0 };

	np_opts_parse(o, &np_cmd_sweep, 1, argv, 1, &help, &version, &err);
	o->graph = graph;
	o->inplace = inplace;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void bench_of(struct np_bench *b, const struct np_coll *c, enum np_dtype dt,
		     enum np_redop op, bool inplace, size_t size)
{
	memset(b, 0, sizeof(*b));
	b->coll = c;
	b->dtype = dt;
	b->op = op;
	/* the last rank is the root: roots other than 0 on several ranks */
	b->root = (c->flags & NP_COLL_F_ROOTED) ? world.size - 1 : 0;
	b->inplace = inplace;
	np_coll_layout(c, size, np_dtypes[dt].size, world.size, &b->lay);
}

/* prepare, one run of iters, check: the number of wrong elements or -1. */
static long long one(struct np_backend *be, const struct np_bench *b, int iters)
{
	double sec = 0;
	uint64_t wrong = 0;

	if (be->ops->prepare(be, b) || be->ops->run(be, b, iters, &sec) ||
	    be->ops->check(be, b, &wrong)) {
		printf("# %s\n", be->err.msg);
		return -1;
	}
	return (long long)wrong;
}

static int open_be(struct np_backend *be, const struct np_opts *o, size_t bytes)
{
	memset(be, 0, sizeof(*be));
	be->ops = &np_backend_nccl;
	be->cfg.graph = o->graph;
	be->cfg.gpu_map = o->gpu_map;
	fill_world(&be->world);
	/* the test switches set by setenv above (the stall, no natives): read
	 * at init, as nccl-probe reads them once at start-up */
	np_test_plan_read(&be->cfg.test);
	if (be->ops->init(be)) {
		printf("# init: %s\n", be->err.msg);
		return -1;
	}
	if (be->ops->alloc(be, o->inplace ? 0 : bytes, bytes)) {
		printf("# alloc: %s\n", be->err.msg);
		return -1;
	}
	return 0;
}

static void test_all(bool graph, bool inplace)
{
	struct np_opts o;
	struct np_backend be;
	/* several ranks on one GPU talk through NCCL's network transport:
	 * smaller sizes there */
	const size_t sizes[] = { 1, 4096 + 24, world.size > 1 ? 256u << 10 : 3u << 20 };

	make_opts(&o, graph, inplace);
	tap_ok(open_be(&be, &o, 4u << 20) == 0, "init and alloc (graph %d, in place %d)", graph,
	       inplace);
	/* the switch reached the backend: its calls say which path runs */
	if (getenv("NCCL_PROBE_TEST_NO_NATIVE"))
		tap_ok(strstr(be.info.calls, "grouped ncclSend/ncclRecv") != NULL,
		       "  NCCL_PROBE_TEST_NO_NATIVE=1: the backend issues grouped send/recv (%s)",
		       be.info.calls);
	for (int c = 0; c < NP_COLL_COUNT; c++) {
		const struct np_coll *coll = &np_colls[c];
		int bad = 0, runs = 0;

		if (inplace && !(coll->flags & NP_COLL_F_INPLACE))
			continue;
		for (int d = 0; d < NP_DTYPE_COUNT; d++) {
			if (!be.info.dtype_ok[d])
				continue;
			int nops = (coll->flags & NP_COLL_F_REDUCE) ? NP_OP_COUNT : 1;
			for (int op = 0; op < nops; op++) {
				if (nops > 1 && !(be.info.ops_ok[d] & (1u << op)))
					continue;
				for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
					struct np_bench b;
					long long w;

					bench_of(&b, coll, (enum np_dtype)d, (enum np_redop)op,
						 inplace, sizes[s]);
					if (!b.lay.count)
						continue;
					w = one(&be, &b, graph ? 3 : 1);
					runs++;
					if (w != 0) {
						bad++;
						printf("# %s %s %s size %zu: %lld wrong\n",
						       coll->name, np_dtypes[d].name,
						       np_redop_str(op), sizes[s], w);
					}
				}
			}
		}
		tap_ok(bad == 0 && runs > 0,
		       "%s: %d checked runs on %d ranks, every dtype%s (graph %d, in place %d; %s)",
		       coll->name, runs, world.size,
		       (coll->flags & NP_COLL_F_REDUCE) ? " and op" : "", graph, inplace,
		       be.info.calls);
	}
	be.ops->finalize(&be);
}

/* The check finds wrong data: poison the result by skipping the run. */
static void test_check_catches(void)
{
	struct np_opts o;
	struct np_backend be;
	struct np_bench b;
	uint64_t wrong = 0;
	double sec;

	make_opts(&o, false, false);
	if (open_be(&be, &o, 1u << 20)) {
		tap_ok(0, "init for the wrong-data test");
		return;
	}
	bench_of(&b, &np_colls[NP_COLL_ALLREDUCE], NP_FLOAT, NP_OP_SUM, false, 1u << 20);
	tap_ok(be.ops->prepare(&be, &b) == NP_OK && be.ops->check(&be, &b, &wrong) == NP_OK &&
		       wrong == b.lay.count,
	       "a result never written counts every element wrong (%llu of %zu)",
	       (unsigned long long)wrong, b.lay.count);
	/* a different op than the data were made for */
	be.ops->prepare(&be, &b);
	be.ops->run(&be, &b, 1, &sec);
	b.op = NP_OP_MAX;
	be.ops->check(&be, &b, &wrong);
	tap_ok(wrong > 0, "a sum checked as a max is wrong (%llu elements)",
	       (unsigned long long)wrong);
	be.ops->finalize(&be);
}

static void test_timing_and_graph_chunks(void)
{
	struct np_opts o;
	struct np_backend be;
	struct np_bench b;
	double s1 = 0, s2 = 0;
	uint64_t wrong = 1;
	enum np_status st;

	make_opts(&o, true, false);
	if (open_be(&be, &o, 64u << 20)) {
		tap_ok(0, "init for the graph test");
		return;
	}
	bench_of(&b, &np_colls[NP_COLL_ALLREDUCE], NP_FLOAT, NP_OP_SUM, false, 64u << 20);
	tap_ok(be.ops->prepare(&be, &b) == NP_OK && be.ops->run(&be, &b, 1, &s1) == NP_OK &&
		       be.ops->check(&be, &b, &wrong) == NP_OK && wrong == 0,
	       "graph of 1 iteration, checked");
	st = be.ops->run(&be, &b, 4096 + 1100, &s2);
	tap_ok(st == NP_OK && s2 > 0,
	       "5196 iterations in a graph of 4096 and one of the rest: %.3f ms", s2 * 1e3);
	tap_ok(s2 > 500 * s1 && s2 < 25000 * s1, "the batch time scales with iterations (%.1fx)",
	       s2 / s1);
	be.ops->finalize(&be);
}

static void test_oom(void)
{
	struct np_opts o;
	struct np_backend be;

	make_opts(&o, false, false);
	memset(&be, 0, sizeof(be));
	be.ops = &np_backend_nccl;
	be.cfg.graph = o.graph;
	fill_world(&be.world);
	np_test_plan_read(&be.cfg.test);
	if (be.ops->init(&be)) {
		tap_ok(0, "init: %s", be.err.msg);
		return;
	}
	tap_ok(be.info.mem_avail > (1ull << 30), "mem_avail %.1f GiB",
	       (double)be.info.mem_avail / (1ull << 30));
	tap_ok(be.ops->alloc(&be, (size_t)1 << 42, (size_t)1 << 42) == NP_ENOMEM &&
		       strstr(be.err.msg, "cannot allocate"),
	       "4 TiB: NP_ENOMEM, '%s'", be.err.msg);
	tap_ok(be.ops->alloc(&be, 1u << 20, 1u << 20) == NP_OK,
	       "an allocation that fits still works");
	printf("# library: %s\n# runtime: %s\n# transport: %s\n# device %d %s %s\n",
	       be.info.library, be.info.runtime, be.info.transport, be.info.device, be.info.bus_id,
	       be.info.device_name);
	tap_ok(!strncmp(be.info.library, "NCCL ", 5) && be.info.bus_id[0] && be.info.device >= 0,
	       "info: library, bus id, device");
	be.ops->finalize(&be);
}

static void *watchdog(void *arg)
{
	struct np_backend *be = arg;

	sleep(2);
	be->ops->abort(be);
	return NULL;
}

static void test_stall(void)
{
	struct np_opts o;
	struct np_backend be;
	struct np_bench b;
	pthread_t t;
	double sec, t0, el;
	enum np_status st;

	setenv("NCCL_PROBE_TEST_STALL", "0:device", 1);
	make_opts(&o, false, false);
	if (open_be(&be, &o, 1u << 20)) {
		tap_ok(0, "init for the stall test");
		return;
	}
	bench_of(&b, &np_colls[NP_COLL_ALLREDUCE], NP_FLOAT, NP_OP_SUM, false, 1u << 20);
	be.ops->prepare(&be, &b);
	pthread_create(&t, NULL, watchdog, &be);
	t0 = now();
	st = be.ops->run(&be, &b, 1, &sec);
	el = now() - t0;
	pthread_join(t, NULL);
	tap_ok(st == NP_ETIMEOUT, "a stalled stream returns NP_ETIMEOUT after abort: '%s'",
	       be.err.msg);
	tap_ok(el > 1.5 && el < 10, "run returned %.1f s after it began (abort at 2 s)", el);
	be.ops->finalize(&be);
}

int main(int argc, char **argv)
{
	struct np_err err = { 0 };
	int provided, rc;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	/* several ranks on one GPU: NP_TEST_RANKS_PER_NODE=1 makes every rank
	 * its own virtual node (its own NCCL host id) */
	const char *vn = getenv("NP_TEST_RANKS_PER_NODE");
	if (np_world_init(&world, vn && *vn ? (int)strtol(vn, NULL, 10) : 0, &err)) {
		printf("1..0 # SKIP MPI world: %s\n", err.msg);
		MPI_Finalize();
		return 0;
	}
	if (!np_backend_nccl.device_visible()) {
		printf("1..0 # SKIP no GPU\n");
		MPI_Finalize();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "stall")) {
		test_stall();
	} else {
		test_oom();
		test_check_catches();
		test_all(false, false);
		test_all(false, true);
		test_all(true, false);
		/* grouped send/recv in place of the native calls */
		setenv("NCCL_PROBE_TEST_NO_NATIVE", "1", 1);
		test_all(false, false);
		unsetenv("NCCL_PROBE_TEST_NO_NATIVE");
		if (world.size == 1) /* a timing ratio: one GPU's own rank only */
			test_timing_and_graph_chunks();
	}
	rc = tap_done();
	fflush(stdout);
	np_world_release(&world);
	MPI_Finalize();
	return rc;
}
