/* SPDX-License-Identifier: MIT */
/* The MPI host backend: the collectives of the table through MPI on host
 * buffers. It runs every sweep code path on any machine; its numbers are
 * host-memory MPI numbers, not NCCL's. half and bfloat16 reductions use
 * user-defined operations; avg is a sum scaled by 1/n on each rank. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "pattern.h"

struct mpi_priv {
	void *send, *recv;
	size_t send_cap, recv_cap;
	MPI_Datatype half_t, bf16_t; /* duplicates of MPI_UINT16_T, told apart in user ops */
	MPI_Op user_op[NP_OP_COUNT];  /* half/bfloat16 reductions */
	int corrupt_rank;             /* NCCL_PROBE_TEST_CORRUPT=R, else -1 */
	int slow_rank;                /* NCCL_PROBE_TEST_SLOW=R:US, else -1 */
	unsigned slow_us;
};

static struct mpi_priv *priv_of(struct np_backend *be) { return be->priv; }

/* half and bfloat16: reduce through float */
static MPI_Datatype g_half_t = MPI_DATATYPE_NULL;

#define USER_OP(name, expr)                                                               \
	static void name(void *in, void *inout, int *len, MPI_Datatype *dt)               \
	{                                                                                 \
		uint16_t *a = in, *b = inout;                                             \
		int half = *dt == g_half_t;                                               \
		for (int i = 0; i < *len; i++) {                                          \
			float x = half ? np_pat_h2f(a[i]) : np_pat_bf2f(a[i]);            \
			float y = half ? np_pat_h2f(b[i]) : np_pat_bf2f(b[i]);            \
			float r = (expr);                                                 \
			b[i] = half ? np_pat_f2h(r) : np_pat_f2bf(r);                     \
		}                                                                         \
	}
USER_OP(op16_sum, x + y)
USER_OP(op16_prod, x * y)
USER_OP(op16_max, x > y ? x : y)
USER_OP(op16_min, x < y ? x : y)

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
	case NP_DTYPE_COUNT: break;
	}
	return MPI_DATATYPE_NULL;
}

static MPI_Op mpi_op(struct mpi_priv *p, enum np_dtype d, enum np_redop op)
{
	if (d == NP_HALF || d == NP_BFLOAT16)
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
static uint64_t host_mem_avail(const struct np_world *w)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
				break;
		fclose(f);
	}
	if (!kb) {
		long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
		if (pages > 0 && psz > 0)
			kb = (unsigned long long)pages * (unsigned long long)psz / 1024;
	}
	/* leave a quarter for the MPI library and the rest of the machine */
	return (uint64_t)kb * 1024 / 4 * 3 / (uint64_t)(w->local_size > 0 ? w->local_size : 1);
}

static enum np_status mpi_init(struct np_backend *be)
{
	struct mpi_priv *p = calloc(1, sizeof(*p));
	static void (*const fns[NP_OP_COUNT])(void *, void *, int *, MPI_Datatype *) = {
		[NP_OP_SUM] = op16_sum, [NP_OP_PROD] = op16_prod,
		[NP_OP_MAX] = op16_max, [NP_OP_MIN] = op16_min,
	};
	int major = 0, minor = 0;
	const char *env;

	if (!p)
		return np_fail(&be->err, NP_ENOMEM, "out of memory");
	be->priv = p;
	p->half_t = p->bf16_t = MPI_DATATYPE_NULL;
	for (int i = 0; i < NP_OP_COUNT; i++)
		p->user_op[i] = MPI_OP_NULL;
	MPI_Type_dup(MPI_UINT16_T, &p->half_t);
	MPI_Type_dup(MPI_UINT16_T, &p->bf16_t);
	g_half_t = p->half_t;
	for (int i = 0; i < NP_OP_COUNT; i++)
		if (fns[i])
			MPI_Op_create(fns[i], 1, &p->user_op[i]);
	p->corrupt_rank = -1;
	if ((env = getenv("NCCL_PROBE_TEST_CORRUPT"))) {
		char *end;
		long v = strtol(env, &end, 10);
		if (*env && !*end && v >= 0)
			p->corrupt_rank = (int)v;
	}
	p->slow_rank = -1;
	if ((env = getenv("NCCL_PROBE_TEST_SLOW"))) {
		char *end, *end2;
		long r = strtol(env, &end, 10), us = *end == ':' ? strtol(end + 1, &end2, 10) : -1;
		if (end != env && us > 0 && us < 10000000 && !*end2 && r >= 0) {
			p->slow_rank = (int)r;
			p->slow_us = (unsigned)us;
		}
	}
	MPI_Get_version(&major, &minor);
	snprintf(be->info.library, sizeof(be->info.library), "%.100s (MPI %d.%d)",
		 be->world->mpi_version, major, minor);
	snprintf(be->info.transport, sizeof(be->info.transport), "MPI");
	be->info.device = -1;
	snprintf(be->info.device_name, sizeof(be->info.device_name), "host memory");
	be->info.mem_avail = host_mem_avail(be->world);
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

/* Where the library reads the input (in place: inside recv) */
static void *input_ptr(struct mpi_priv *p, const struct np_bench *b, int rank)
{
	size_t elt = np_dtypes[b->dtype].size;

	if (!b->inplace)
		return p->send;
	if (b->coll->id == NP_COLL_ALLGATHER)
		return (char *)p->recv + (size_t)rank * b->lay.count * elt;
	return p->recv; /* allreduce, reduce, broadcast; reducescatter input fills recv */
}

static enum np_status mpi_prepare(struct np_backend *be, const struct np_bench *b)
{
	struct mpi_priv *p = priv_of(be);
	int r = be->world->rank, n = be->world->size;
	size_t in_elems = b->lay.send_bytes / np_dtypes[b->dtype].size;
	void *in;

	memset(p->recv, 0xa5, b->lay.recv_bytes); /* poison: no pattern value */
	if (b->inplace && b->coll->id == NP_COLL_REDUCESCATTER)
		memset(p->recv, 0xa5, b->lay.send_bytes);
	in = input_ptr(p, b, r);
	for (size_t j = 0; j < in_elems; j++)
		np_pat_store(in, b->dtype, j,
			     np_pat_input(b->coll->id, b->op, b->dtype, n, r, j));
	if (p->corrupt_rank == r && in_elems)
		np_pat_store(in, b->dtype, in_elems / 2, 99); /* test-only: a wrong input */
	return NP_OK;
}

static void scale_avg(struct mpi_priv *p, const struct np_bench *b, int n)
{
	size_t elems = b->lay.count;
	void *res = p->recv;

	switch (b->dtype) {
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
		for (size_t i = 0; i < elems; i++) {
			uint16_t *h = (uint16_t *)res + i;
			float v = (b->dtype == NP_HALF ? np_pat_h2f(*h) : np_pat_bf2f(*h)) / (float)n;
			*h = b->dtype == NP_HALF ? np_pat_f2h(v) : np_pat_f2bf(v);
		}
		break;
	case NP_DTYPE_COUNT:
		break;
	}
}

static int run_one(struct mpi_priv *p, const struct np_bench *b, const struct np_world *w)
{
	int n = w->size, r = w->rank, cnt = (int)b->lay.count;
	MPI_Datatype t = mpi_type(p, b->dtype);
	MPI_Op op = mpi_op(p, b->dtype, b->op);
	void *sb = b->inplace ? MPI_IN_PLACE : p->send;
	int rc;

	switch (b->coll->id) {
	case NP_COLL_ALLREDUCE:
		rc = MPI_Allreduce(sb, p->recv, cnt, t, op, w->comm);
		break;
	case NP_COLL_ALLGATHER:
		rc = MPI_Allgather(sb, cnt, t, p->recv, cnt, t, w->comm);
		break;
	case NP_COLL_REDUCESCATTER:
		rc = MPI_Reduce_scatter_block(sb, p->recv, cnt, t, op, w->comm);
		break;
	case NP_COLL_ALLTOALL:
		rc = MPI_Alltoall(p->send, cnt, t, p->recv, cnt, t, w->comm);
		break;
	case NP_COLL_BROADCAST:
		/* the root sends from its input; the others receive into recv */
		rc = MPI_Bcast(r == b->root ? (b->inplace ? p->recv : p->send) : p->recv, cnt, t,
			       b->root, w->comm);
		break;
	case NP_COLL_REDUCE:
		if (b->inplace)
			sb = r == b->root ? MPI_IN_PLACE : p->recv;
		rc = MPI_Reduce(sb, p->recv, cnt, t, op, b->root, w->comm);
		break;
	case NP_COLL_SENDRECV:
		rc = MPI_Sendrecv(p->send, cnt, t, (r + 1) % n, 0, p->recv, cnt, t, (r - 1 + n) % n,
				  0, w->comm, MPI_STATUS_IGNORE);
		break;
	default:
		return MPI_ERR_OP;
	}
	if (rc == MPI_SUCCESS && b->op == NP_OP_AVG && (b->coll->flags & NP_COLL_F_REDUCE) &&
	    (b->coll->id != NP_COLL_REDUCE || r == b->root))
		scale_avg(p, b, n); /* MPI has no avg: scale the sum, as a library's avg would */
	return rc;
}


static enum np_status mpi_run(struct np_backend *be, const struct np_bench *b, int iters,
			      double *seconds)
{
	struct mpi_priv *p = priv_of(be);
	double t0;
	int rc;

	rc = MPI_Barrier(be->world->comm);
	if (rc != MPI_SUCCESS)
		return mpi_err(be, rc, "MPI_Barrier");
	t0 = MPI_Wtime();
	for (int i = 0; i < iters; i++) {
		if (p->slow_rank == be->world->rank)
			usleep(p->slow_us); /* test-only: a slow rank */
		rc = run_one(p, b, be->world);
		if (rc != MPI_SUCCESS)
			return mpi_err(be, rc, b->coll->name);
	}
	*seconds = MPI_Wtime() - t0;
	return NP_OK;
}

/* Where the result lives, as the library's in-place forms put it. */
static const void *result_ptr(struct mpi_priv *p, const struct np_bench *b, int rank)
{
	if (b->coll->id == NP_COLL_BROADCAST && rank == b->root)
		return b->inplace ? p->recv : p->send;
	return p->recv;
}

static enum np_status mpi_check(struct np_backend *be, const struct np_bench *b, uint64_t *wrong)
{
	struct mpi_priv *p = priv_of(be);
	int r = be->world->rank, n = be->world->size;
	const void *res = result_ptr(p, b, r);
	size_t elems = b->lay.recv_bytes / np_dtypes[b->dtype].size;
	uint64_t bad = 0;

	if (b->coll->id == NP_COLL_REDUCESCATTER)
		elems = b->lay.count;
	if (np_pat_defined(b->coll->id, r, b->root))
		for (size_t k = 0; k < elems; k++) {
			int64_t want = np_pat_expect(b->coll->id, b->op, b->dtype, n, r, b->root,
						     b->lay.count, k);
			if (!np_pat_match(b->dtype, b->op, np_pat_load(res, b->dtype, k), want))
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
	if (p->half_t != MPI_DATATYPE_NULL)
		MPI_Type_free(&p->half_t);
	if (p->bf16_t != MPI_DATATYPE_NULL)
		MPI_Type_free(&p->bf16_t);
	free(p);
	be->priv = NULL;
}

const struct np_backend_ops np_backend_mpi = {
	.name = "mpi",
	.init = mpi_init,
	.alloc = mpi_alloc,
	.prepare = mpi_prepare,
	.run = mpi_run,
	.check = mpi_check,
	.abort = NULL,
	.finalize = mpi_finalize,
};
