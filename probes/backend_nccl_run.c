/* SPDX-License-Identifier: MIT */
/* The NCCL backend's timed batches: each collective enqueued under the
 * lock that abort() takes, at its step of the buffer rotation, between
 * two CUDA events; with --graph the batch is captured once in CUDA graphs
 * and launched. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include "backend_nccl.h"
#include "nccl_kernels.h"

static const ncclDataType_t nccl_types[NP_DTYPE_COUNT] = {
	[NP_INT8] = ncclInt8,          [NP_UINT8] = ncclUint8,        [NP_INT32] = ncclInt32,
	[NP_UINT32] = ncclUint32,      [NP_INT64] = ncclInt64,        [NP_UINT64] = ncclUint64,
	[NP_HALF] = ncclFloat16,       [NP_FLOAT] = ncclFloat32,      [NP_DOUBLE] = ncclFloat64,
	[NP_BFLOAT16] = ncclBfloat16,
#if NCCL_VERSION_CODE >= 22400
	[NP_FP8E4M3] = ncclFloat8e4m3, [NP_FP8E5M2] = ncclFloat8e5m2,
#endif
};

static const ncclRedOp_t nccl_ops[NP_OP_COUNT] = {
	[NP_OP_SUM] = ncclSum, [NP_OP_PROD] = ncclProd, [NP_OP_MAX] = ncclMax,
	[NP_OP_MIN] = ncclMin, [NP_OP_AVG] = ncclAvg,
};

/* Enqueue one collective of b on the stream; lock held. */
static ncclResult_t enqueue(struct nccl_priv *p, const struct np_bench *b, const struct bufs *u)
{
	ncclDataType_t t = nccl_types[b->dtype];
	ncclRedOp_t op = nccl_ops[b->op];
	struct np_call c = { .send = u->send,
			     .recv = u->recv,
			     .count = b->lay.count,
			     .dtype = (int)b->dtype,
			     .op = (int)b->op,
			     .root = b->root,
			     .rank = p->rank,
			     .nranks = p->nranks,
			     .inplace = b->inplace,
			     .lib_dtype = &t,
			     .lib_op = &op,
			     .comm = p->comm,
			     .stream = p->stream,
			     .caps = &p->native };

	return (ncclResult_t)nccl_be_issue[b->coll->id](&c);
}

/* Enqueue iters collectives, each under the lock so that abort() can take
 * the communicator between two of them. */
static enum np_status enqueue_batch(struct np_backend *be, const struct np_bench *b,
				    const struct bufs *u, int iters)
{
	struct nccl_priv *p = be->priv;
	const char *name = b->coll->name;

	struct np_rotation rot;

	np_rotation_of(b, b->inplace ? 0 : p->send_cap, p->recv_cap, &rot);
	for (int i = 0; i < iters; i++) {
		size_t k = (size_t)i % rot.steps;
		struct bufs at = *u;
		ncclResult_t r;
		enum np_status st;

		/* iteration i at step k of the rotation (a graph captures the
		 * offsets as they are here) */
		at.send += k * rot.send_step;
		at.recv += k * rot.recv_step;
		pthread_mutex_lock(&p->lock);
		if (atomic_load(&p->aborted) || !p->comm) {
			pthread_mutex_unlock(&p->lock);
			return nccl_be_fail_aborted(be, name);
		}
		r = enqueue(p, b, &at);
		pthread_mutex_unlock(&p->lock);
		if (r != ncclSuccess && (st = nccl_be_wait_ready(be, r, name)))
			return st;
	}
	return NP_OK;
}

static bool same_bench(const struct np_bench *a, const struct np_bench *b)
{
	return a->coll == b->coll && a->dtype == b->dtype && a->op == b->op && a->root == b->root &&
	       a->inplace == b->inplace && a->lay.count == b->lay.count &&
	       a->lay.send_bytes == b->lay.send_bytes && a->lay.recv_bytes == b->lay.recv_bytes;
}

static void graph_free(struct graph *g)
{
	if (g->chunk)
		cudaGraphExecDestroy(g->chunk);
	if (g->rest)
		cudaGraphExecDestroy(g->rest);
	memset(g, 0, sizeof(*g));
}

void nccl_be_graphs_free(struct nccl_priv *p)
{
	for (int i = 0; i < GRAPH_SLOTS; i++)
		graph_free(&p->graphs[i]);
	p->gbench_valid = false;
	p->warm = false;
}

/* Capture n collectives of b into an executable graph. */
static enum np_status capture(struct np_backend *be, const struct np_bench *b, const struct bufs *u,
			      int n, cudaGraphExec_t *exec)
{
	struct nccl_priv *p = be->priv;
	cudaGraph_t g = NULL;
	enum np_status st;
	cudaError_t ce;

	*exec = NULL;
	ce = cudaStreamBeginCapture(p->stream, cudaStreamCaptureModeRelaxed);
	if (ce != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaStreamBeginCapture");
	st = enqueue_batch(be, b, u, n);
	ce = cudaStreamEndCapture(p->stream, &g);
	if (st != NP_OK) {
		if (g)
			cudaGraphDestroy(g);
		return st;
	}
	if (ce != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaStreamEndCapture");
	ce = cudaGraphInstantiateWithFlags(exec, g, 0);
	cudaGraphDestroy(g);
	if (ce != cudaSuccess) {
		*exec = NULL;
		return nccl_be_fail_cuda(be, ce, "cudaGraphInstantiate");
	}
	if ((ce = cudaGraphUpload(*exec, p->stream)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaGraphUpload");
	return NP_OK;
}

/* The graphs of iters collectives of b, captured on first use. */
static enum np_status graph_get(struct np_backend *be, const struct np_bench *b,
				const struct bufs *u, int iters, struct graph **out)
{
	struct nccl_priv *p = be->priv;
	struct graph *g = NULL;
	enum np_status st;
	int chunk = iters < GRAPH_CHUNK ? iters : GRAPH_CHUNK;

	if (!p->gbench_valid || !same_bench(&p->gbench, b)) {
		nccl_be_graphs_free(p);
		p->gbench = *b;
		p->gbench_valid = true;
	}
	for (int i = 0; i < GRAPH_SLOTS; i++)
		if (p->graphs[i].iters == iters)
			g = &p->graphs[i];
	if (!g) {
		/* One collective outside the graph first, so that NCCL makes its
		 * connections before the capture; then restore what prepare() made,
		 * so that a check after this run sees one collective's result. */
		if (!p->warm) {
			if ((st = enqueue_batch(be, b, u, 1)) ||
			    (st = nccl_be_sync_stream(be, b->coll->name)))
				return st;
			p->warm = true;
			if (p->pristine &&
			    ((st = nccl_be_fill(be, b)) ||
			     (st = nccl_be_sync_stream(be, "filling the check pattern"))))
				return st;
		}
		g = &p->graphs[0];
		for (int i = 1; i < GRAPH_SLOTS; i++)
			if (p->graphs[i].stamp < g->stamp)
				g = &p->graphs[i];
		graph_free(g);
		if ((st = capture(be, b, u, chunk, &g->chunk)))
			return st;
		if (iters > chunk && iters % chunk &&
		    (st = capture(be, b, u, iters % chunk, &g->rest)))
			return st;
		g->reps = iters / chunk;
		g->iters = iters;
	}
	g->stamp = ++p->gstamp;
	*out = g;
	return NP_OK;
}

static enum np_status launch_graphs(struct np_backend *be, const struct graph *g)
{
	struct nccl_priv *p = be->priv;
	cudaError_t ce = cudaSuccess;

	pthread_mutex_lock(&p->lock);
	if (atomic_load(&p->aborted) || !p->comm) {
		pthread_mutex_unlock(&p->lock);
		return nccl_be_fail_aborted(be, "the graph launch");
	}
	for (int i = 0; i < g->reps && ce == cudaSuccess; i++)
		ce = cudaGraphLaunch(g->chunk, p->stream);
	if (ce == cudaSuccess && g->rest)
		ce = cudaGraphLaunch(g->rest, p->stream);
	pthread_mutex_unlock(&p->lock);
	if (ce != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaGraphLaunch");
	return NP_OK;
}

enum np_status nccl_be_run(struct np_backend *be, const struct np_bench *b, int iters,
			   double *seconds)
{
	struct nccl_priv *p = be->priv;
	struct graph *g = NULL;
	struct bufs u;
	enum np_status st;
	cudaError_t ce;
	float ms = 0;

	*seconds = 0;
	if (iters < 1)
		return np_fail(&be->err, NP_EUSAGE, "run() needs at least one iteration, not %d",
			       iters);
	if ((st = nccl_be_layout(be, b, &u)))
		return st;
	if (be->cfg.graph && (st = graph_get(be, b, &u, iters, &g)))
		return st;
	if (p->stall) {
		/* test-only: this rank's stream never completes */
		p->stall = false;
		if ((ce = np_kern_stall(p->d_release, p->stream)) != cudaSuccess)
			return nccl_be_fail_cuda(be, ce, "the stall kernel launch");
	}
	if ((ce = cudaEventRecord(p->ev_start, p->stream)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaEventRecord");
	st = g ? launch_graphs(be, g) : enqueue_batch(be, b, &u, iters);
	if (st)
		return st;
	if ((ce = cudaEventRecord(p->ev_stop, p->stream)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaEventRecord");
	p->pristine = false;
	if ((st = nccl_be_wait_event(be, p->ev_stop, b->coll->name)))
		return st;
	if ((ce = cudaEventElapsedTime(&ms, p->ev_start, p->ev_stop)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaEventElapsedTime");
	*seconds = (double)ms / 1e3;
	return NP_OK;
}
