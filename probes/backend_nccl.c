/* SPDX-License-Identifier: MIT */
/* NCCL backend: one MPI rank per GPU, one non-blocking communicator, the
 * probe's own stream, CUDA events around each batch (optionally captured in
 * CUDA graphs), --check patterns made and verified on the device, and an
 * abort() that the watchdog thread may call at any time. This file holds
 * its ops: start (versions, native calls, data types), buffers, check
 * patterns and teardown; probes/backend_nccl.h lists the others. */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include "backend_nccl.h"
#include "nccl_kernels.h"
#include "nccl_log.h"
#include "pattern.h"

/* ---- messages ---------------------------------------------------------- */

static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= (1ull << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (1ull << 30));
	else if (b >= (1ull << 20))
		snprintf(buf, len, "%.1f MiB", (double)b / (1ull << 20));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)b);
}

/* ---- start ------------------------------------------------------------- */

/* NCCL's log, set up by src/main.c before any thread started
 * (np_nccl_log_setup); read once the communicator is up. */
static bool log_begin(struct nccl_priv *p)
{
	const char *path = np_nccl_log_path();

	if (!path)
		return false;
	snprintf(p->logpath, sizeof(p->logpath), "%s", path);
	return true;
}

/* Fill info->transport from NCCL's log (probes/nccl_log.c). */
static void log_read(struct nccl_priv *p, struct np_backend_info *in)
{
	FILE *f;

	if (!p->logpath[0])
		return;
	f = fopen(p->logpath, "r"); /* src/ removes the file when the process ends */
	p->logpath[0] = '\0';
	if (!f)
		return;
	np_nccl_log_transport(f, in->transport, sizeof(in->transport));
	fclose(f);
}

static void fill_versions(struct np_backend_info *in)
{
	int v = 0, d = 0, rt = 0;
	int maj, min, pat;

	if (ncclGetVersion(&v) == ncclSuccess) {
		if (v >= 10000) {
			maj = v / 10000, min = (v % 10000) / 100, pat = v % 100;
		} else {
			maj = v / 1000, min = (v % 1000) / 100, pat = v % 100;
		}
		if (v != NCCL_VERSION_CODE)
			snprintf(in->library, sizeof(in->library),
				 "NCCL %d.%d.%d (built with the headers of %d.%d.%d)", maj, min,
				 pat, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
		else
			snprintf(in->library, sizeof(in->library), "NCCL %d.%d.%d", maj, min, pat);
	} else {
		snprintf(in->library, sizeof(in->library), "NCCL (headers %d.%d.%d)", NCCL_MAJOR,
			 NCCL_MINOR, NCCL_PATCH);
	}
	if (cudaDriverGetVersion(&d) != cudaSuccess)
		d = 0;
	if (cudaRuntimeGetVersion(&rt) != cudaSuccess)
		rt = 0;
	cudaGetLastError();
	snprintf(in->runtime, sizeof(in->runtime), "CUDA driver %d.%d, runtime %d.%d", d / 1000,
		 (d % 1000) / 10, rt / 1000, (rt % 1000) / 10);
}

/* Headroom left to NCCL (connection buffers, made at the first collective
 * of each algorithm), CUDA graphs and the runtime: 1 GiB, plus 1/32 of the
 * GPU's memory, plus 32 MiB per peer up to 64 peers. */
static uint64_t headroom(size_t total, int nranks)
{
	int peers = nranks < 64 ? nranks : 64;

	return (1ull << 30) + (uint64_t)total / 32 + (uint64_t)peers * (32ull << 20);
}

/* Test only: NCCL_PROBE_TEST_STALL=R:device (common/testhooks.h) */
static void parse_stall(struct nccl_priv *p, const struct np_test_plan *t)
{
	struct np_test_stall st;

	np_test_stall_parse(t->stall, &st);
	p->stall = np_test_stall_rank_at(&st, NP_STALL_DEVICE) == p->rank;
}

/* NCCL's native calls, where the runtime library has them; the switch
 * NCCL_PROBE_TEST_NO_NATIVE=1 (tests) forces grouped send/recv. */
static void find_natives(struct nccl_priv *p, struct np_backend_info *in,
			 const struct np_test_plan *t)
{
	bool off = np_test_no_native_parse(t->no_native);
	int v = 0;

	memset(&p->native, 0, sizeof(p->native));
	if (ncclGetVersion(&v) != ncclSuccess)
		v = 0;
	if (!off && v >= 22800) {
		*(void **)&p->native.alltoall = dlsym(RTLD_DEFAULT, "ncclAlltoAll");
		*(void **)&p->native.gather = dlsym(RTLD_DEFAULT, "ncclGather");
		*(void **)&p->native.scatter = dlsym(RTLD_DEFAULT, "ncclScatter");
	}
	if (p->native.alltoall && p->native.gather && p->native.scatter)
		snprintf(in->calls, sizeof(in->calls),
			 "alltoall, gather, scatter: NCCL's native ncclAlltoAll, ncclGather, ncclScatter");
	else if (!p->native.alltoall && !p->native.gather && !p->native.scatter)
		snprintf(in->calls, sizeof(in->calls),
			 "alltoall, gather, scatter: grouped ncclSend/ncclRecv (%s)",
			 off ? "NCCL_PROBE_TEST_NO_NATIVE=1" : "this NCCL has no native call");
	else
		snprintf(in->calls, sizeof(in->calls),
			 "alltoall %s, gather %s, scatter %s (native: NCCL's own call; else grouped send/recv)",
			 p->native.alltoall ? "native" : "send/recv",
			 p->native.gather ? "native" : "send/recv",
			 p->native.scatter ? "native" : "send/recv");
}

/* Data types: fp8 needs NCCL 2.24 and a GPU of compute capability 9.0,
 * and takes no avg. */
static void find_dtypes(struct nccl_priv *p, struct np_backend_info *in)
{
	int v = 0, major = 0;

	for (int d = 0; d < NP_DTYPE_COUNT; d++) {
		in->dtype_ok[d] = true;
		in->ops_ok[d] = (1u << NP_OP_COUNT) - 1;
	}
	/* NCCL 2.28 answers ncclInvalidArgument to avg on fp8 (seen on an H200) */
	in->ops_ok[NP_FP8E4M3] &= (unsigned char)~(1u << NP_OP_AVG);
	in->ops_ok[NP_FP8E5M2] &= (unsigned char)~(1u << NP_OP_AVG);
	if (ncclGetVersion(&v) != ncclSuccess)
		v = 0;
	if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, p->dev) !=
	    cudaSuccess)
		major = 0;
	cudaGetLastError();
	if (NCCL_VERSION_CODE < 22400 || v < 22400 || major < 9) {
		in->dtype_ok[NP_FP8E4M3] = in->dtype_ok[NP_FP8E5M2] = false;
		snprintf(in->dtype_why, sizeof(in->dtype_why),
			 "fp8 needs NCCL 2.24 or later and a GPU of compute capability 9.0 (this: NCCL %d, compute %d.x)",
			 v, major);
	}
}

static enum np_status nccl_init(struct np_backend *be)
{
	struct nccl_priv *p;
	enum np_status st;
	size_t freeb = 0, total = 0;
	cudaError_t ce;
	bool logging;
	uint64_t h;

	be->info.device = -1;
	snprintf(be->info.device_name, sizeof(be->info.device_name), "none");
	p = calloc(1, sizeof(*p));
	if (!p)
		return np_fail(&be->err, NP_ENOMEM, "out of memory");
	pthread_mutex_init(&p->lock, NULL);
	p->dev = -1;
	p->rank = be->world.rank;
	p->nranks = be->world.size;
	be->priv = p;
	parse_stall(p, &be->cfg.test);
	np_test_faults_parse(be->cfg.test.corrupt, be->cfg.test.misroute, &p->faults);
	logging = log_begin(p);
	/* virtual nodes: NCCL takes ranks with different host ids for
	 * different hosts, so ranks of different virtual nodes may share a
	 * GPU and talk through NCCL's network transport. src/world.c set
	 * NCCL_HOSTID as it made them, before CUDA, NCCL or any of their
	 * threads ran; setting it here would race with their getenv */
	if (be->world.virtual_nodes) {
		const char *id = np_nccl_hostid(), *env = getenv("NCCL_HOSTID");
		if (!id || !env || strcmp(id, env)) {
			p->failed = true;
			return np_fail(&be->err, NP_ESYS,
				       "virtual node %d has no NCCL host id of its own (NCCL_HOSTID is %s%s%s); the world's virtual nodes must be made by np_world_init before the backend starts",
				       be->world.node, env ? "'" : "unset", env ? env : "",
				       env ? "'" : "");
		}
		snprintf(be->info.host_id, sizeof(be->info.host_id), "%s", id);
	}
	fill_versions(&be->info);
	st = nccl_be_init_steps(be);
	if (logging)
		log_read(p, &be->info);
	if (st)
		return st;
	if ((ce = cudaMemGetInfo(&freeb, &total)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaMemGetInfo");
	h = headroom(total, p->nranks);
	be->info.mem_avail = freeb > h ? freeb - h : 0;
	be->info.max_count = SIZE_MAX;
	find_natives(p, &be->info, &be->cfg.test);
	find_dtypes(p, &be->info);
	return NP_OK;
}

/* ---- buffers ----------------------------------------------------------- */

static void free_buffers(struct nccl_priv *p)
{
	if (p->sendbuf)
		cudaFree(p->sendbuf);
	if (p->recvbuf)
		cudaFree(p->recvbuf);
	p->sendbuf = p->recvbuf = NULL;
	p->send_cap = p->recv_cap = 0;
}

static enum np_status alloc_one(struct np_backend *be, void **ptr, size_t bytes, const char *what)
{
	struct nccl_priv *p = be->priv;
	size_t freeb = 0, total = 0;
	char want[32], fr[32], tot[32];
	cudaError_t ce;

	ce = cudaMalloc(ptr, bytes ? bytes : 1);
	if (ce == cudaSuccess)
		return NP_OK;
	*ptr = NULL;
	cudaGetLastError();
	if (ce != cudaErrorMemoryAllocation)
		return nccl_be_fail_cuda(be, ce, what);
	cudaMemGetInfo(&freeb, &total);
	cudaGetLastError();
	fmt_bytes(want, sizeof(want), bytes);
	fmt_bytes(fr, sizeof(fr), freeb);
	fmt_bytes(tot, sizeof(tot), total);
	p->failed = true;
	return np_fail(&be->err, NP_ENOMEM,
		       "GPU %d: cannot allocate %s for the %s (%s free of %s); lower --maxbytes or free the GPU",
		       p->dev, want, what, fr, tot);
}

static enum np_status nccl_alloc(struct np_backend *be, size_t send_bytes, size_t recv_bytes)
{
	struct nccl_priv *p = be->priv;
	enum np_status st;

	free_buffers(p);
	if (send_bytes == 0) { /* in place: one buffer */
		size_t b = recv_bytes;
		st = alloc_one(be, &p->recvbuf, b, "in-place buffer");
		if (st == NP_OK)
			p->recv_cap = b;
		return st;
	}
	st = alloc_one(be, &p->sendbuf, send_bytes, "send buffer");
	if (st == NP_OK) {
		p->send_cap = send_bytes;
		st = alloc_one(be, &p->recvbuf, recv_bytes, "receive buffer");
	}
	if (st != NP_OK) {
		free_buffers(p);
		return st;
	}
	p->recv_cap = recv_bytes;
	return NP_OK;
}

enum np_status nccl_be_layout(struct np_backend *be, const struct np_bench *b, struct bufs *o)
{
	struct nccl_priv *p = be->priv;
	const struct np_coll *c = b->coll;
	size_t elt = np_dtypes[b->dtype].size, count = b->lay.count, n = (size_t)p->nranks;
	size_t need;

	o->send_elems = count * (c->send_n ? n : 1);
	o->recv_elems = count * (c->recv_n ? n : 1);
	if (!b->inplace) {
		if (!p->sendbuf || b->lay.send_bytes > p->send_cap ||
		    b->lay.recv_bytes > p->recv_cap)
			return np_fail(&be->err, NP_EUSAGE,
				       "GPU %d: %s of %zu bytes does not fit the buffers allocated",
				       p->dev, c->name, b->lay.size);
		o->send = p->sendbuf;
		o->recv = p->recvbuf;
		return NP_OK;
	}
	if (!(c->flags & NP_COLL_F_INPLACE))
		return np_fail(&be->err, NP_ENOTSUP,
			       "%s has no in-place form; run it without --inplace", c->name);
	need = b->lay.send_bytes > b->lay.recv_bytes ? b->lay.send_bytes : b->lay.recv_bytes;
	if (!p->recvbuf || need > p->recv_cap)
		return np_fail(&be->err, NP_EUSAGE,
			       "GPU %d: %s of %zu bytes does not fit the buffers allocated", p->dev,
			       c->name, b->lay.size);
	o->send = o->recv = p->recvbuf;
	if (c->inplace_at == NP_INPLACE_SEND_AT_RANK)
		o->send = o->recv + (size_t)p->rank * count * elt;
	else if (c->inplace_at == NP_INPLACE_RECV_AT_RANK)
		o->recv = o->send + (size_t)p->rank * count * elt;
	return NP_OK;
}

/* Fill the inputs of b and poison its result; does not wait. */
enum np_status nccl_be_fill(struct np_backend *be, const struct np_bench *b)
{
	struct nccl_priv *p = be->priv;
	const struct np_coll *c = b->coll;
	struct bufs u;
	enum np_status st;
	cudaError_t ce;
	bool poison;

	if ((st = nccl_be_layout(be, b, &u)))
		return st;
	/* 0xff bytes: NaN in floating types, -1 or the maximum in integers, never a
	 * value of the pattern */
	poison = !b->inplace || c->inplace_at == NP_INPLACE_SEND_AT_RANK;
	if (poison && b->lay.recv_bytes &&
	    (ce = cudaMemsetAsync(b->inplace ? p->recvbuf : u.recv, 0xff, b->lay.recv_bytes,
				  p->stream)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaMemsetAsync of the result");
	ce = np_kern_fill(u.send, u.send_elems, (int)b->dtype, !!(c->flags & NP_COLL_F_REDUCE),
			  (int)b->op, p->nranks, np_test_faults_source(&p->faults, p->rank),
			  p->stream);
	if (ce != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "the pattern kernel launch");
	if ((p->faults.corrupt_all || p->faults.corrupt_rank == p->rank) && u.send_elems) {
		/* test-only: one wrong input element; with every rank's, each at
		 * its own place (wrong elements of two ranks at one place may
		 * cancel in a sum) */
		size_t j = (u.send_elems / 2 + (p->faults.corrupt_all ? (size_t)p->rank : 0)) %
			   u.send_elems;
		size_t elt = np_dtypes[b->dtype].size;
		int64_t v = np_pat_wrong(np_pat_input(!!(c->flags & NP_COLL_F_REDUCE), (int)b->op,
						      (int)b->dtype, p->nranks, p->rank, j));
		np_pat_store(p->h_bad, (int)b->dtype, 0, v);
		ce = cudaMemcpyAsync(u.send + j * elt, p->h_bad, elt, cudaMemcpyHostToDevice,
				     p->stream);
		if (ce != cudaSuccess)
			return nccl_be_fail_cuda(be, ce,
						 "cudaMemcpyAsync of the test's wrong element");
	}
	return NP_OK;
}

static enum np_status nccl_prepare(struct np_backend *be, const struct np_bench *b)
{
	struct nccl_priv *p = be->priv;
	enum np_status st;

	if ((st = nccl_be_fill(be, b)) ||
	    (st = nccl_be_sync_stream(be, "filling the check pattern")))
		return st;
	p->pristine = true;
	return NP_OK;
}

static enum np_status nccl_check(struct np_backend *be, const struct np_bench *b, uint64_t *wrong)
{
	struct nccl_priv *p = be->priv;
	const struct np_coll *c = b->coll;
	struct bufs u;
	enum np_status st;
	cudaError_t ce;

	*wrong = 0;
	if (!np_pat_defined(c->expect, p->rank, b->root))
		return NP_OK;
	if ((st = nccl_be_layout(be, b, &u)))
		return st;
	if ((ce = cudaMemsetAsync(p->d_wrong, 0, sizeof(*p->d_wrong), p->stream)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaMemsetAsync of the check counter");
	{
		/* the operation matters to reductions only */
		int op = (c->flags & NP_COLL_F_REDUCE) ? (int)b->op : NP_OP_SUM;
		ce = np_kern_check(u.recv, u.recv_elems, (int)b->dtype, c->expect, op, p->nranks,
				   p->rank, b->root, b->lay.count, p->d_wrong, p->stream);
	}
	if (ce != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "the check kernel launch");
	if ((ce = cudaMemcpyAsync(p->h_wrong, p->d_wrong, sizeof(*p->h_wrong),
				  cudaMemcpyDeviceToHost, p->stream)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaMemcpyAsync of the check counter");
	if ((st = nccl_be_sync_stream(be, "checking the result")))
		return st;
	*wrong = *p->h_wrong;
	return NP_OK;
}

/* ---- teardown ---------------------------------------------------------- */

static void nccl_finalize(struct np_backend *be)
{
	struct nccl_priv *p = be->priv;
	ncclComm_t c;

	if (!p)
		return;
	if (atomic_load(&p->aborted)) {
		/* abort()'s helper may still hold the communicator: leave it all */
		return;
	}
	if (p->dev_set)
		cudaSetDevice(p->dev);
	if (p->h_release)
		*(volatile int *)p->h_release = 1;
	nccl_be_graphs_free(p);
	pthread_mutex_lock(&p->lock);
	c = p->comm;
	p->comm = NULL;
	pthread_mutex_unlock(&p->lock);
	if (c) {
		ncclResult_t r = p->failed ? ncclInternalError : ncclCommFinalize(c), as = r;
		unsigned n = 0;
		long ns = 0;
		struct timespec t0, t1;

		/* finalize waits for the other ranks: bounded, then abort */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (as == ncclInProgress) {
			nccl_be_backoff(&n, &ns);
			if (ncclCommGetAsyncError(c, &as) != ncclSuccess)
				as = ncclInternalError;
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (t1.tv_sec - t0.tv_sec > 30)
				as = ncclInternalError;
		}
		if (as == ncclSuccess)
			ncclCommDestroy(c);
		else
			ncclCommAbort(c);
	}
	free_buffers(p);
	if (p->d_wrong)
		cudaFree(p->d_wrong);
	if (p->h_wrong)
		cudaFreeHost(p->h_wrong);
	if (p->h_release)
		cudaFreeHost(p->h_release);
	if (p->ev_start)
		cudaEventDestroy(p->ev_start);
	if (p->ev_stop)
		cudaEventDestroy(p->ev_stop);
	if (p->ev_sync)
		cudaEventDestroy(p->ev_sync);
	if (p->stream)
		cudaStreamDestroy(p->stream);
	cudaGetLastError();
	pthread_mutex_destroy(&p->lock);
	free(p);
	be->priv = NULL;
}

/* Whether a CUDA device is visible on this rank (no context is made). */
static bool nccl_gpu_visible(void)
{
	int n = 0;
	cudaError_t ce = cudaGetDeviceCount(&n);

	cudaGetLastError();
	return ce == cudaSuccess && n > 0;
}

const struct np_backend_ops np_backend_nccl = {
	.name = "nccl",
	.caps = NP_CAP_GRAPHS | NP_CAP_DEVICE | NP_CAP_ABORT | NP_CAP_HOSTID_VNODES |
		NP_CAP_SETTINGS_LOG,
	.issue = nccl_be_issue,
	.device_visible = nccl_gpu_visible,
	.init = nccl_init,
	.alloc = nccl_alloc,
	.prepare = nccl_prepare,
	.run = nccl_be_run,
	.check = nccl_check,
	.abort = nccl_be_abort,
	.finalize = nccl_finalize,
};
