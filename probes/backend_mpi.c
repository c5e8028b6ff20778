/* SPDX-License-Identifier: MIT */
/* The MPI host backend: the collectives of the table through MPI on host
 * buffers. It runs every sweep code path on any machine; its numbers are
 * host-memory MPI numbers, not NCCL's. half and bfloat16 reductions use
 * user-defined operations (fp8 too); avg is a sum scaled by 1/n on each rank. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/number.h"
#include "../common/testhooks.h"
#include "backend.h"
#include "pattern.h"

struct mpi_priv {
	void *send, *recv;
	size_t send_cap, recv_cap;
	/* half, bfloat16 and fp8: duplicates of MPI_UINT16_T / MPI_UINT8_T,
	 * told apart in the user operations */
	MPI_Datatype half_t, bf16_t, e4m3_t, e5m2_t;
	MPI_Op user_op[NP_OP_COUNT];  /* their reductions, through float */
	struct np_test_faults faults; /* test-only switches: wrong data, */
	struct np_test_slow slow;     /* a slow rank */
};

static struct mpi_priv *priv_of(struct np_backend *be) { return be->priv; }

/* The small floating types reduce through float; the user operations tell
 * them apart by these handles. Process-wide: an MPI user function gets no
 * argument of its own to find them in, so they are made once, by the first
 * backend that starts, and every MPI backend of the process (tune's arms,
 * side by side) uses them; MPI_Finalize frees them. */
static MPI_Datatype g_half_t = MPI_DATATYPE_NULL, g_bf16_t = MPI_DATATYPE_NULL,
		    g_e4m3_t = MPI_DATATYPE_NULL, g_e5m2_t = MPI_DATATYPE_NULL;

static float small_load(const void *v, int i, MPI_Datatype dt)
{
	if (dt == g_half_t)
		return np_pat_h2f(((const uint16_t *)v)[i]);
	if (dt == g_bf16_t)
		return np_pat_bf2f(((const uint16_t *)v)[i]);
	return np_pat_f82f(((const uint8_t *)v)[i], dt != g_e4m3_t);
}

static void small_store(void *v, int i, MPI_Datatype dt, float f)
{
	if (dt == g_half_t)
		((uint16_t *)v)[i] = np_pat_f2h(f);
	else if (dt == g_bf16_t)
		((uint16_t *)v)[i] = np_pat_f2bf(f);
	else
		((uint8_t *)v)[i] = np_pat_f2f8(f, dt != g_e4m3_t);
}

#define USER_OP(name, expr)                                                              \
	static void name(void *in, void *inout, int *len, MPI_Datatype *dt)              \
	{                                                                                \
		for (int i = 0; i < *len; i++) {                                         \
			float x = small_load(in, i, *dt), y = small_load(inout, i, *dt); \
			small_store(inout, i, *dt, (expr));                              \
		}                                                                        \
	}
USER_OP(op_small_sum, x + y)
USER_OP(op_small_prod, (x * y))
USER_OP(op_small_max, x > y ? x : y)
USER_OP(op_small_min, x < y ? x : y)

static bool is_small_float(enum np_dtype d)
{
	return d == NP_HALF || d == NP_BFLOAT16 || d == NP_FP8E4M3 || d == NP_FP8E5M2;
}

static MPI_Datatype mpi_type(struct mpi_priv *p, enum np_dtype d)
{
	switch (d) {
	case NP_INT8: return MPI_INT8_T;
	case NP_UINT8: return MPI_UINT8_T;
	case NP_INT32: return MPI_INT32_T;
	case NP_UINT32: return MPI_UINT32_T;
	case NP_INT64: return MPI_INT64_T;
	case NP_UINT64: return MPI_UINT64_T;
	case NP_HALF: return p->half_t;
	case NP_FLOAT: return MPI_FLOAT;
	case NP_DOUBLE: return MPI_DOUBLE;
	case NP_BFLOAT16: return p->bf16_t;
	case NP_FP8E4M3: return p->e4m3_t;
	case NP_FP8E5M2: return p->e5m2_t;
	case NP_DTYPE_COUNT: break;
	}
	return MPI_DATATYPE_NULL;
}

static MPI_Op mpi_op(struct mpi_priv *p, enum np_dtype d, enum np_redop op)
{
	if (is_small_float(d))
		return p->user_op[op == NP_OP_AVG ? NP_OP_SUM : op];
	switch (op) {
	case NP_OP_SUM:
	case NP_OP_AVG: return MPI_SUM;
	case NP_OP_PROD: return MPI_PROD;
	case NP_OP_MAX: return MPI_MAX;
	case NP_OP_MIN: return MPI_MIN;
	case NP_OP_COUNT: break;
	}
	return MPI_OP_NULL;
}

static enum np_status mpi_err(struct np_backend *be, int rc, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(rc, s, &len);
	return np_fail(&be->err, NP_EMPI, "%s failed: %s", what, s);
}

/* Host memory this rank may use: MemAvailable shared by the node's ranks. */
static uint64_t host_mem_avail(const struct np_backend_world *w)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	uint64_t kb = 0;
	int sharing = 1;

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			const char *p = line + 13;
			if (strncmp(line, "MemAvailable:", 13))
				continue;
			p += strspn(p, " ");
			/* kB that fit in bytes below, else unknown (the pages below) */
			if (!np_scan_u64(&p, 10, 0, UINT64_MAX / 1024, &kb) || strcmp(p, " kB\n"))
				kb = 0;
			break;
		}
		fclose(f);
	}
	if (!kb) {
		long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
		if (pages > 0 && psz > 0)
			kb = (unsigned long long)pages * (unsigned long long)psz / 1024;
	}
	/* every rank of the real host shares its memory, virtual nodes or not */
	if (w->node_comm != MPI_COMM_NULL)
		MPI_Comm_size(w->node_comm, &sharing);
	/* leave a quarter for the MPI library and the rest of the machine */
	return (uint64_t)kb * 1024 / 4 * 3 / (uint64_t)(sharing > 0 ? sharing : 1);
}

/* Where this rank stands, for the test-only switches that name job ranks */
static void test_where(const struct np_backend_world *w, struct np_test_where *tw)
{
	tw->rank = w->rank;
	tw->size = w->size;
	tw->nnodes = w->nnodes;
	tw->job_size = w->job_size;
	tw->job_ranks = w->job_ranks;
}

static enum np_status mpi_init(struct np_backend *be)
{
	struct mpi_priv *p = calloc(1, sizeof(*p));
	static void (*const fns[NP_OP_COUNT])(void *, void *, int *, MPI_Datatype *) = {
		[NP_OP_SUM] = op_small_sum,
		[NP_OP_PROD] = op_small_prod,
		[NP_OP_MAX] = op_small_max,
		[NP_OP_MIN] = op_small_min,
	};
	struct np_test_where tw;
	int major = 0, minor = 0;

	if (!p)
		return np_fail(&be->err, NP_ENOMEM, "out of memory");
	be->priv = p;
	p->half_t = p->bf16_t = p->e4m3_t = p->e5m2_t = MPI_DATATYPE_NULL;
	for (int i = 0; i < NP_OP_COUNT; i++)
		p->user_op[i] = MPI_OP_NULL;
	if (g_half_t == MPI_DATATYPE_NULL) {
		MPI_Type_dup(MPI_UINT16_T, &g_half_t);
		MPI_Type_dup(MPI_UINT16_T, &g_bf16_t);
		MPI_Type_dup(MPI_UINT8_T, &g_e4m3_t);
		MPI_Type_dup(MPI_UINT8_T, &g_e5m2_t);
	}
	p->half_t = g_half_t;
	p->bf16_t = g_bf16_t;
	p->e4m3_t = g_e4m3_t;
	p->e5m2_t = g_e5m2_t;
	for (int i = 0; i < NP_OP_COUNT; i++)
		if (fns[i])
			MPI_Op_create(fns[i], 1, &p->user_op[i]);
	test_where(&be->world, &tw);
	if (np_test_fail_parse(be->cfg.test.fail, &tw))
		return np_fail(&be->err, NP_ESYS,
			       "the MPI backend failed to start (planted by the test-only NCCL_PROBE_TEST_FAIL)");
	np_test_faults_parse(be->cfg.test.corrupt, be->cfg.test.misroute, &p->faults);
	np_test_slow_parse(be->cfg.test.slow, &tw, &p->slow);
	MPI_Get_version(&major, &minor);
	snprintf(be->info.library, sizeof(be->info.library), "%.100s (MPI %d.%d)",
		 be->world.mpi_version ? be->world.mpi_version : "MPI", major, minor);
	snprintf(be->info.transport, sizeof(be->info.transport), "MPI");
	be->info.device = -1;
	snprintf(be->info.device_name, sizeof(be->info.device_name), "host memory");
	be->info.mem_avail = host_mem_avail(&be->world);
	be->info.max_count = INT32_MAX; /* MPI counts are int */
	for (int d = 0; d < NP_DTYPE_COUNT; d++) {
		be->info.dtype_ok[d] = true;
		be->info.ops_ok[d] = (1u << NP_OP_COUNT) - 1;
	}
	return NP_OK;
}

static enum np_status mpi_alloc(struct np_backend *be, size_t send_bytes, size_t recv_bytes)
{
	struct mpi_priv *p = priv_of(be);

	free(p->send);
	free(p->recv);
	p->send = malloc(send_bytes ? send_bytes : 1);
	p->recv = malloc(recv_bytes ? recv_bytes : 1);
	if (!p->send || !p->recv)
		return np_fail(&be->err, NP_ENOMEM,
			       "cannot allocate %zu + %zu bytes of host memory; lower the largest size of --sweep",
			       send_bytes, recv_bytes);
	/* touch every page now so the first timed sample does not fault them in */
	memset(p->send, 0, send_bytes);
	memset(p->recv, 0, recv_bytes);
	p->send_cap = send_bytes;
	p->recv_cap = recv_bytes;
	return NP_OK;
}

/* Where this rank's input and result live: out of place the send and
 * recv buffers; in place NCCL's layouts (the row's inplace_at) inside recv. */
struct place {
	char *in, *out;
	size_t in_elems, out_elems;
};

static void place_of(struct mpi_priv *p, const struct np_bench *b, int r, int n, struct place *pl)
{
	const struct np_coll *c = b->coll;
	size_t elt = np_dtypes[b->dtype].size, block = b->lay.count * elt;

	pl->in_elems = b->lay.count * (c->send_n ? (size_t)n : 1);
	pl->out_elems = b->lay.count * (c->recv_n ? (size_t)n : 1);
	pl->in = p->send;
	pl->out = p->recv;
	if (!b->inplace)
		return;
	pl->in = pl->out = p->recv;
	if (c->inplace_at == NP_INPLACE_SEND_AT_RANK)
		pl->in = pl->out + (size_t)r * block;
	else if (c->inplace_at == NP_INPLACE_RECV_AT_RANK)
		pl->out = pl->in + (size_t)r * block;
}

static enum np_status mpi_prepare(struct np_backend *be, const struct np_bench *b)
{
	struct mpi_priv *p = priv_of(be);
	int r = be->world.rank, n = be->world.size;
	int src = np_test_faults_source(&p->faults, r), red = !!(b->coll->flags & NP_COLL_F_REDUCE);
	struct place pl;

	place_of(p, b, r, n, &pl);
	/* poison: 0xa5 bytes are no value of the pattern at the same place */
	memset(p->recv, 0xa5,
	       b->inplace ? (b->lay.send_bytes > b->lay.recv_bytes ? b->lay.send_bytes
								   : b->lay.recv_bytes)
			  : b->lay.recv_bytes);
	for (size_t j = 0; j < pl.in_elems; j++)
		np_pat_store(pl.in, b->dtype, j, np_pat_input(red, b->op, b->dtype, n, src, j));
	if ((p->faults.corrupt_all ||
	     p->faults.corrupt_rank == (be->world.job_ranks ? be->world.job_ranks[r] : r)) &&
	    pl.in_elems) {
		/* test-only: one wrong input element; with every rank's, each at
		 * its own place (wrong elements of two ranks at one place may
		 * cancel in a sum) */
		size_t j =
			(pl.in_elems / 2 + (p->faults.corrupt_all ? (size_t)r : 0)) % pl.in_elems;
		np_pat_store(pl.in, b->dtype, j,
			     np_pat_wrong(np_pat_input(red, b->op, b->dtype, n, src, j)));
	}
	return NP_OK;
}

/* MPI has no avg: scale the sum by 1/n, as a library's avg would. */
static void scale_avg(void *res, enum np_dtype dt, size_t elems, int n)
{
	switch (dt) {
	case NP_FLOAT:
		for (size_t i = 0; i < elems; i++)
			((float *)res)[i] /= (float)n;
		break;
	case NP_DOUBLE:
		for (size_t i = 0; i < elems; i++)
			((double *)res)[i] /= n;
		break;
	case NP_INT8:
		for (size_t i = 0; i < elems; i++)
			((int8_t *)res)[i] = (int8_t)(((int8_t *)res)[i] / n);
		break;
	case NP_UINT8:
		for (size_t i = 0; i < elems; i++)
			((uint8_t *)res)[i] = (uint8_t)(((uint8_t *)res)[i] / n);
		break;
	case NP_INT32:
		for (size_t i = 0; i < elems; i++)
			((int32_t *)res)[i] /= n;
		break;
	case NP_UINT32:
		for (size_t i = 0; i < elems; i++)
			((uint32_t *)res)[i] /= (uint32_t)n;
		break;
	case NP_INT64:
		for (size_t i = 0; i < elems; i++)
			((int64_t *)res)[i] /= n;
		break;
	case NP_UINT64:
		for (size_t i = 0; i < elems; i++)
			((uint64_t *)res)[i] /= (uint64_t)n;
		break;
	case NP_HALF:
	case NP_BFLOAT16:
	case NP_FP8E4M3:
	case NP_FP8E5M2: {
		MPI_Datatype t = dt == NP_HALF       ? g_half_t
				 : dt == NP_BFLOAT16 ? g_bf16_t
				 : dt == NP_FP8E4M3  ? g_e4m3_t
						     : MPI_DATATYPE_NULL;
		for (size_t i = 0; i < elems; i++)
			small_store(res, (int)i, t, small_load(res, (int)i, t) / (float)n);
		break;
	}
	case NP_DTYPE_COUNT: break;
	}
}

/* ---- how this backend issues each collective ---- */

#define MC(c) (*(const MPI_Comm *)(c)->comm)
#define MT(c) (*(const MPI_Datatype *)(c)->lib_dtype)
#define MO(c) (*(const MPI_Op *)(c)->lib_op)
#define MN(c) ((int)(c)->count)

static int mpi_issue_allreduce(const struct np_call *c)
{
	return MPI_Allreduce(c->inplace ? MPI_IN_PLACE : c->send, c->recv, MN(c), MT(c), MO(c),
			     MC(c));
}

static int mpi_issue_allgather(const struct np_call *c)
{
	return MPI_Allgather(c->inplace ? MPI_IN_PLACE : c->send, MN(c), MT(c), c->recv, MN(c),
			     MT(c), MC(c));
}

static int mpi_issue_reducescatter(const struct np_call *c)
{
	int rc, sz = 1;

	if (!c->inplace)
		return MPI_Reduce_scatter_block(c->send, c->recv, MN(c), MT(c), MO(c), MC(c));
	/* MPI leaves an in-place result at the start of the buffer; NCCL at
	 * rank*count, where the check reads it */
	rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, c->send, MN(c), MT(c), MO(c), MC(c));
	MPI_Type_size(MT(c), &sz);
	if (rc == MPI_SUCCESS && c->recv != c->send)
		memmove(c->recv, c->send, c->count * (size_t)sz);
	return rc;
}

static int mpi_issue_alltoall(const struct np_call *c)
{
	return MPI_Alltoall(c->send, MN(c), MT(c), c->recv, MN(c), MT(c), MC(c));
}

static int mpi_issue_broadcast(const struct np_call *c)
{
	/* the root sends from its input; the others receive into recv */
	return MPI_Bcast(c->rank == c->root ? c->send : c->recv, MN(c), MT(c), c->root, MC(c));
}

static int mpi_issue_reduce(const struct np_call *c)
{
	const void *sb = c->inplace && c->rank == c->root ? MPI_IN_PLACE : c->send;

	return MPI_Reduce(sb, c->recv, MN(c), MT(c), MO(c), c->root, MC(c));
}

static int mpi_issue_gather(const struct np_call *c)
{
	const void *sb = c->inplace && c->rank == c->root ? MPI_IN_PLACE : c->send;

	return MPI_Gather(sb, MN(c), MT(c), c->recv, MN(c), MT(c), c->root, MC(c));
}

static int mpi_issue_scatter(const struct np_call *c)
{
	void *rb = c->inplace && c->rank == c->root ? MPI_IN_PLACE : c->recv;

	return MPI_Scatter(c->send, MN(c), MT(c), rb, MN(c), MT(c), c->root, MC(c));
}

static int mpi_issue_sendrecv(const struct np_call *c)
{
	int n = c->nranks, r = c->rank;

	return MPI_Sendrecv(c->send, MN(c), MT(c), (r + 1) % n, 0, c->recv, MN(c), MT(c),
			    (r - 1 + n) % n, 0, MC(c), MPI_STATUS_IGNORE);
}

/* indexed by enum np_coll_id: every collective of common/coll.c */
static const np_issue_fn mpi_issue[NP_COLL_COUNT] = {
	[NP_COLL_ALLREDUCE] = mpi_issue_allreduce,
	[NP_COLL_ALLGATHER] = mpi_issue_allgather,
	[NP_COLL_REDUCESCATTER] = mpi_issue_reducescatter,
	[NP_COLL_ALLTOALL] = mpi_issue_alltoall,
	[NP_COLL_BROADCAST] = mpi_issue_broadcast,
	[NP_COLL_REDUCE] = mpi_issue_reduce,
	[NP_COLL_GATHER] = mpi_issue_gather,
	[NP_COLL_SCATTER] = mpi_issue_scatter,
	[NP_COLL_SENDRECV] = mpi_issue_sendrecv,
};

/* One timed batch's calls: the arguments set once, the buffers moved
 * along the rotation (offsets rotated per iteration, as nccl-tests does)
 * by adding a step, so that the loop holds the collective and nothing
 * that a plain loop of it does not pay. */
struct batch {
	struct np_call c;
	MPI_Datatype t;
	MPI_Op op;
	MPI_Comm comm;
	np_issue_fn issue;
	char *in0, *out0;
	size_t in_step, out_step, steps;
	bool avg; /* scale the sum to the average (MPI has no AVG) */
};

static void batch_init(struct batch *bt, struct mpi_priv *p, const struct np_bench *b,
		       const struct np_backend_world *w)
{
	struct np_rotation rot;
	struct place pl;

	bt->t = mpi_type(p, b->dtype);
	bt->op = mpi_op(p, b->dtype, b->op);
	bt->comm = w->comm;
	bt->c = (struct np_call){ .count = b->lay.count,
				  .dtype = (int)b->dtype,
				  .op = (int)b->op,
				  .root = b->root,
				  .rank = w->rank,
				  .nranks = w->size,
				  .inplace = b->inplace,
				  .lib_dtype = &bt->t,
				  .lib_op = &bt->op,
				  .comm = &bt->comm };
	bt->issue = mpi_issue[b->coll->id];
	np_rotation_of(b, b->inplace ? 0 : p->send_cap, p->recv_cap, &rot);
	place_of(p, b, w->rank, w->size, &pl);
	bt->in0 = pl.in;
	bt->out0 = pl.out;
	bt->in_step = b->inplace ? rot.recv_step : rot.send_step;
	bt->out_step = rot.recv_step;
	bt->steps = rot.steps;
	bt->avg = b->op == NP_OP_AVG && (b->coll->flags & NP_COLL_F_REDUCE) &&
		  np_pat_defined(b->coll->expect, w->rank, b->root);
}

/* Iteration k's buffers, k below bt->steps */
static void batch_at(struct batch *bt, size_t k)
{
	bt->c.send = bt->in0 + k * bt->in_step;
	bt->c.recv = bt->out0 + k * bt->out_step;
}

static int batch_call(struct batch *bt, const struct np_bench *b)
{
	int rc = bt->issue(&bt->c);

	if (rc == MPI_SUCCESS && bt->avg)
		scale_avg(bt->c.recv, b->dtype, b->lay.count, bt->c.nranks);
	return rc;
}

/* test-only: a slow rank (NCCL_PROBE_TEST_SLOW), a loop of its own so
 * that the timed loop of every other run pays nothing for it. PCT%
 * slower sleeps PCT% of the shortest call of the batch so far, not of
 * the last one: a call that waited for another slow rank's sleep would
 * otherwise make this rank sleep longer, and two slow ranks of one group
 * would lengthen each other's calls without bound. */
static int slow_loop(struct mpi_priv *p, struct batch *bt, const struct np_bench *b, int iters)
{
	size_t k = 0;
	double shortest = -1;

	for (int i = 0; i < iters; i++) {
		double t1;
		int rc;
		if (p->slow.us)
			usleep(p->slow.us);
		batch_at(bt, k);
		t1 = MPI_Wtime();
		if ((rc = batch_call(bt, b)) != MPI_SUCCESS)
			return rc;
		t1 = MPI_Wtime() - t1;
		if (shortest < 0 || t1 < shortest)
			shortest = t1;
		if (p->slow.frac > 0) /* PCT% slower */
			usleep((useconds_t)(shortest * p->slow.frac * 1e6));
		if (++k == bt->steps)
			k = 0;
	}
	return MPI_SUCCESS;
}

static enum np_status mpi_run(struct np_backend *be, const struct np_bench *b, int iters,
			      double *seconds)
{
	struct mpi_priv *p = priv_of(be);
	struct batch bt;
	double t0;
	size_t k = 0;
	int rc = MPI_SUCCESS;

	batch_init(&bt, p, b, &be->world);
	rc = MPI_Barrier(be->world.comm);
	if (rc != MPI_SUCCESS)
		return mpi_err(be, rc, "MPI_Barrier");
	t0 = MPI_Wtime();
	if (p->slow.on) {
		rc = slow_loop(p, &bt, b, iters);
	} else {
		for (int i = 0; i < iters && rc == MPI_SUCCESS; i++) {
			batch_at(&bt, k);
			rc = batch_call(&bt, b);
			if (++k == bt.steps)
				k = 0;
		}
	}
	*seconds = MPI_Wtime() - t0;
	if (rc != MPI_SUCCESS)
		return mpi_err(be, rc, b->coll->name);
	return NP_OK;
}

static enum np_status mpi_check(struct np_backend *be, const struct np_bench *b, uint64_t *wrong)
{
	struct mpi_priv *p = priv_of(be);
	int r = be->world.rank, n = be->world.size, op;
	struct place pl;
	const char *res;
	uint64_t bad = 0;

	place_of(p, b, r, n, &pl);
	res = pl.out;
	/* out of place, the broadcast root's data stays in its send buffer */
	if (b->coll->expect.src == NP_SRC_ROOT && !b->coll->expect.rank_offset && r == b->root)
		res = pl.in;
	/* the operation matters to reductions only */
	op = (b->coll->flags & NP_COLL_F_REDUCE) ? (int)b->op : NP_OP_SUM;
	if (np_pat_defined(b->coll->expect, r, b->root))
		for (size_t k = 0; k < pl.out_elems; k++) {
			int64_t want = np_pat_expect(b->coll->expect, op, b->dtype, n, r, b->root,
						     b->lay.count, k);
			if (!np_pat_ok(res, b->dtype, op, n, k, want))
				bad++;
		}
	*wrong = bad;
	return NP_OK;
}

static void mpi_finalize(struct np_backend *be)
{
	struct mpi_priv *p = priv_of(be);

	if (!p)
		return;
	free(p->send);
	free(p->recv);
	for (int i = 0; i < NP_OP_COUNT; i++)
		if (p->user_op[i] != MPI_OP_NULL)
			MPI_Op_free(&p->user_op[i]);
	free(p);
	be->priv = NULL;
}

const struct np_backend_ops np_backend_mpi = {
	.name = "mpi",
	.caps = NP_CAP_SETTINGS_MPIT,
	.issue = mpi_issue,
	.device_visible = NULL,
	.init = mpi_init,
	.alloc = mpi_alloc,
	.prepare = mpi_prepare,
	.run = mpi_run,
	.check = mpi_check,
	.abort = NULL,
	.finalize = mpi_finalize,
};
