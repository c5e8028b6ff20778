/* SPDX-License-Identifier: MIT */
/* NCCL backend: one MPI rank per GPU, one non-blocking communicator, the
 * probe's own stream, CUDA events around each batch (optionally captured in
 * CUDA graphs), --check patterns made and verified on the device, and an
 * abort() that the watchdog thread may call at any time. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include "../common/testhooks.h"
#include "backend.h"
#include "nccl_kernels.h"
#include "nccl_log.h"
#include "pattern.h"

/* Collectives captured in one CUDA graph at most; longer batches launch the
 * graph several times between the events. Each launch leaves a gap of a
 * few microseconds on the GPU: with 512 per graph, batches of 14000 8-byte
 * all-reduces on one H200 took 2% longer per collective than one graph of
 * them all (0.741 against 0.726 us); 4096 cuts the launches eightfold and
 * keeps capture and instantiation short. */
#define GRAPH_CHUNK 4096
#define GRAPH_SLOTS 8
/* Spins (sched_yield) before a waiter starts to sleep, and the longest sleep. */
#define WAIT_SPINS 200
#define WAIT_SLEEP_MAX_NS 1000000L
/* How long abort() waits for the main thread to leave an NCCL call, and for
 * ncclCommAbort to return, before it gives up (the process is exiting). */
#define ABORT_LOCK_NS 1000000000L
#define ABORT_LOCK_STEP_NS 1000000L
#define ABORT_WAIT_NS 5000000000L

struct graph {
	int iters;               /* 0: free slot */
	cudaGraphExec_t chunk;   /* min(iters, GRAPH_CHUNK) collectives */
	cudaGraphExec_t rest;    /* iters % GRAPH_CHUNK collectives, or NULL */
	int reps;                /* launches of chunk */
	unsigned long stamp;     /* last use, for eviction */
};

/* NCCL's own calls for collectives that older NCCL lacks (2.28 added
 * ncclAlltoAll, ncclGather, ncclScatter): looked up at run time, so one
 * binary serves older NCCL too, which gets grouped send/recv. */
struct nccl_native {
	ncclResult_t (*alltoall)(const void *, void *, size_t, ncclDataType_t, ncclComm_t,
				 cudaStream_t);
	ncclResult_t (*gather)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t,
			       cudaStream_t);
	ncclResult_t (*scatter)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t,
				cudaStream_t);
};

struct nccl_priv {
	int rank, nranks;
	struct nccl_native native;
	struct np_test_faults faults; /* test-only switches */
	int dev;                 /* CUDA device index, -1 before it is chosen */
	bool dev_set;
	ncclComm_t comm;         /* guarded by lock once init has begun */
	pthread_mutex_t lock;    /* held around every call that uses comm */
	atomic_int aborted;      /* abort() was called */
	atomic_int abort_done;   /* ncclCommAbort returned (abort's helper thread) */
	bool failed;             /* an error happened: finalize aborts the comm */
	cudaStream_t stream;
	cudaEvent_t ev_start, ev_stop, ev_sync;
	void *sendbuf, *recvbuf; /* recvbuf alone when in place */
	size_t send_cap, recv_cap;
	unsigned long long *d_wrong, *h_wrong; /* check counter, device and pinned host */
	unsigned char h_bad[8];  /* the test switch's wrong element, host */
	int *h_release, *d_release;            /* stall release flag, mapped host memory */
	bool stall;              /* NCCL_PROBE_TEST_STALL=R:device names this rank */
	/* CUDA graphs, for the bench of gbench */
	bool gbench_valid, warm;
	struct np_bench gbench;
	struct graph graphs[GRAPH_SLOTS];
	unsigned long gstamp;
	/* the bench of the last prepare(), while no run() has followed it */
	bool pristine;
	/* NCCL's INIT/NET log, read for the network transport */
	char logpath[256];
};

static const ncclDataType_t nccl_types[NP_DTYPE_COUNT] = {
	[NP_INT8] = ncclInt8,       [NP_UINT8] = ncclUint8,     [NP_INT32] = ncclInt32,
	[NP_UINT32] = ncclUint32,   [NP_INT64] = ncclInt64,     [NP_UINT64] = ncclUint64,
	[NP_HALF] = ncclFloat16,    [NP_FLOAT] = ncclFloat32,   [NP_DOUBLE] = ncclFloat64,
	[NP_BFLOAT16] = ncclBfloat16,
#if NCCL_VERSION_CODE >= 22400
	[NP_FP8E4M3] = ncclFloat8e4m3, [NP_FP8E5M2] = ncclFloat8e5m2,
#endif
};

static const ncclRedOp_t nccl_ops[NP_OP_COUNT] = {
	[NP_OP_SUM] = ncclSum, [NP_OP_PROD] = ncclProd, [NP_OP_MAX] = ncclMax,
	[NP_OP_MIN] = ncclMin, [NP_OP_AVG] = ncclAvg,
};

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

static enum np_status cuda_fail(struct np_backend *be, cudaError_t ce, const char *what)
{
	struct nccl_priv *p = be->priv;

	p->failed = true;
	cudaGetLastError(); /* clear a non-sticky error so that cleanup can run */
	return np_fail(&be->err, ce == cudaErrorMemoryAllocation ? NP_ENOMEM : NP_ECUDA,
		       "GPU %d: %s failed: %s (%s)", p->dev, what, cudaGetErrorString(ce),
		       cudaGetErrorName(ce));
}

static enum np_status nccl_fail(struct np_backend *be, ncclResult_t r, const char *what)
{
	struct nccl_priv *p = be->priv;
	const char *last = ncclGetLastError(NULL); /* the comm argument is unused */

	p->failed = true;
	if (last && *last)
		return np_fail(&be->err, NP_ENCCL, "GPU %d: %s failed: %s (%s)", p->dev, what,
			       ncclGetErrorString(r), last);
	return np_fail(&be->err, NP_ENCCL, "GPU %d: %s failed: %s", p->dev, what,
		       ncclGetErrorString(r));
}

static enum np_status aborted_fail(struct np_backend *be, const char *what)
{
	struct nccl_priv *p = be->priv;

	p->failed = true;
	return np_fail(&be->err, NP_ETIMEOUT, "GPU %d: %s was aborted after the timeout", p->dev,
		       what);
}

static enum np_status mpi_fail(struct np_backend *be, int rc, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(rc, s, &len);
	return np_fail(&be->err, NP_EMPI, "%s failed: %s", what, s);
}

/* Collective over the world: every rank learns whether one failed, so that
 * no rank goes on into NCCL's setup alone. A failing rank keeps its message
 * (the caller prefixes rank and host); the others name the first failing
 * rank, whose message says why. */
static enum np_status agree(struct np_backend *be, enum np_status st)
{
	const struct np_backend_world *w = &be->world;
	int mine[2] = { st == NP_OK ? 1 : 0, w->rank }, first[2];
	int rc, fst = (int)st;

	rc = MPI_Allreduce(mine, first, 1, MPI_2INT, MPI_MINLOC, w->comm);
	if (rc != MPI_SUCCESS)
		return mpi_fail(be, rc, "MPI_Allreduce of the setup status");
	if (first[0] == 1)
		return NP_OK;
	rc = MPI_Bcast(&fst, 1, MPI_INT, first[1], w->comm);
	if (rc != MPI_SUCCESS)
		return mpi_fail(be, rc, "MPI_Bcast of the setup error");
	if (st != NP_OK)
		return st;
	np_fail(&be->err, (enum np_status)fst, "stopped because rank %d on '%s' failed",
		first[1], w->hosts ? w->hosts[first[1]] : "?");
	be->err.secondary = true;
	return be->err.status;
}

/* ---- waiting without blocking forever ---------------------------------- */

static void nap(long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void backoff(unsigned *n, long *ns)
{
	if (++*n < WAIT_SPINS) {
		sched_yield();
		return;
	}
	*ns = *ns ? *ns * 2 : 10000;
	if (*ns > WAIT_SLEEP_MAX_NS)
		*ns = WAIT_SLEEP_MAX_NS;
	nap(*ns);
}

/* The communicator's asynchronous state, unless abort() took it away. */
static ncclResult_t comm_state(struct nccl_priv *p, bool *gone)
{
	ncclResult_t r = ncclSuccess, as = ncclSuccess;

	pthread_mutex_lock(&p->lock);
	*gone = atomic_load(&p->aborted) || !p->comm;
	if (!*gone) {
		r = ncclCommGetAsyncError(p->comm, &as);
		if (r == ncclSuccess)
			r = as;
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

/* After a call on the non-blocking communicator returned r: wait while it
 * is in progress. */
static enum np_status wait_ready(struct np_backend *be, ncclResult_t r, const char *what)
{
	struct nccl_priv *p = be->priv;
	unsigned n = 0;
	long ns = 0;
	bool gone = false;

	while (r == ncclInProgress) {
		backoff(&n, &ns);
		r = comm_state(p, &gone);
		if (gone)
			return aborted_fail(be, what);
	}
	if (r != ncclSuccess)
		return nccl_fail(be, r, what);
	return NP_OK;
}

/* Wait for ev by polling, with NCCL's asynchronous errors and abort(). */
static enum np_status wait_event(struct np_backend *be, cudaEvent_t ev, const char *what)
{
	struct nccl_priv *p = be->priv;
	unsigned n = 0;
	long ns = 0;

	for (;;) {
		cudaError_t ce = cudaEventQuery(ev);
		ncclResult_t r;
		bool gone = false;

		/* abort() releases the stall kernel, so the stream may complete
		 * after an abort: that is still a timeout, not a sample */
		if (ce == cudaSuccess)
			return atomic_load(&p->aborted) ? aborted_fail(be, what) : NP_OK;
		if (ce != cudaErrorNotReady)
			return cuda_fail(be, ce, what);
		if (atomic_load(&p->aborted))
			return aborted_fail(be, what);
		if (n >= 16) {
			r = comm_state(p, &gone);
			if (gone) {
				if (atomic_load(&p->aborted))
					return aborted_fail(be, what);
			} else if (r != ncclSuccess && r != ncclInProgress) {
				return nccl_fail(be, r, what);
			}
		}
		backoff(&n, &ns);
	}
}

/* ---- device and communicator setup ------------------------------------- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return s ? h : 0;
}

/* Parse a GPU map "0,2,4" (from --gpu-map or NCCL_PROBE_GPU_MAP) and pick
 * entry lrank. */
static enum np_status map_device(struct np_backend *be, const char *map, const char *src,
				 int lrank, int ndev, int *dev)
{
	const char *s = map;
	int i = 0;

	for (;;) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(s, &end, 10);
		if (end == s || errno || v > 1023 || (*end != ',' && *end != '\0') ||
		    (*end == ',' && end[1] == '\0'))
			return np_fail(&be->err, NP_EUSAGE,
				       "invalid %s '%s'; give comma-separated GPU indices, e.g. 0,1,2,3",
				       src, map);
		if (i == lrank) {
			if ((int)v >= ndev)
				return np_fail(&be->err, NP_ENODEV,
					       "%s '%s' gives local rank %d GPU %lu, but %d %s visible; give indices below %d",
					       src, map, lrank, v, ndev, ndev == 1 ? "is" : "are",
					       ndev);
			*dev = (int)v;
			return NP_OK;
		}
		i++;
		if (*end == '\0')
			break;
		s = end + 1;
	}
	return np_fail(&be->err, NP_EUSAGE,
		       "%s '%s' lists %d GPU%s, but this rank is local rank %d; give one GPU index per local rank",
		       src, map, i, i == 1 ? "" : "s", lrank);
}

/* Choose this rank's GPU: collective over the node. Without a map, the GPU is
 * the rank's index among the node's ranks that see the same devices (same
 * CUDA_VISIBLE_DEVICES), so per-rank visibility (one GPU each) works too. */
static enum np_status select_device(struct np_backend *be, int *dev)
{
	const struct np_backend_world *w = &be->world;
	const char *map = be->cfg.gpu_map, *src = "--gpu-map";
	int lrank = 0, lsize = 1, ndev = 0, idx = 0, rc;
	uint64_t mine[2], *all;
	cudaError_t ce;

	if (w->device >= 0) { /* a group of the job: the GPU chosen in the job */
		*dev = w->device;
		return NP_OK;
	}
	rc = MPI_Comm_rank(w->node_comm, &lrank);
	if (rc == MPI_SUCCESS)
		rc = MPI_Comm_size(w->node_comm, &lsize);
	if (rc != MPI_SUCCESS)
		return mpi_fail(be, rc, "MPI_Comm_rank of the node");
	/* on virtual nodes, ranks of different virtual nodes may share a GPU:
	 * the local rank within the virtual node picks it */
	mine[0] = fnv1a(getenv("CUDA_VISIBLE_DEVICES"));
	mine[1] = w->virtual_nodes ? (uint64_t)w->node : 0;
	all = calloc((size_t)lsize * 2, sizeof(*all));
	if (!all)
		return np_fail(&be->err, NP_ENOMEM, "out of memory");
	rc = MPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, w->node_comm);
	if (rc != MPI_SUCCESS) {
		free(all);
		return mpi_fail(be, rc, "MPI_Allgather of CUDA_VISIBLE_DEVICES");
	}
	for (int i = 0; i < lrank; i++)
		idx += all[2 * i] == mine[0] && all[2 * i + 1] == mine[1];
	free(all);
	if (w->virtual_nodes)
		lrank = w->local_rank;

	ce = cudaGetDeviceCount(&ndev);
	if (ce != cudaSuccess || ndev <= 0) {
		cudaGetLastError();
		return np_fail(&be->err, NP_ENODEV,
			       "no CUDA device visible (%s); check the driver with nvidia-smi and CUDA_VISIBLE_DEVICES, or use --backend mpi",
			       ce != cudaSuccess ? cudaGetErrorString(ce) : "0 devices");
	}
	if (!map || !*map) {
		map = getenv("NCCL_PROBE_GPU_MAP");
		src = "NCCL_PROBE_GPU_MAP";
	}
	if (map && *map)
		return map_device(be, map, src, lrank, ndev, dev);
	if (idx >= ndev)
		return np_fail(&be->err, NP_ENODEV,
			       "local rank %d has no GPU (%d visible); launch at most %d rank%s per %snode or set CUDA_VISIBLE_DEVICES",
			       lrank, ndev, ndev, ndev == 1 ? "" : "s",
			       w->virtual_nodes ? "virtual " : "");
	*dev = idx;
	return NP_OK;
}

static enum np_status open_device(struct np_backend *be)
{
	struct nccl_priv *p = be->priv;
	struct np_backend_info *in = &be->info;
	struct cudaDeviceProp prop;
	size_t freeb = 0, total = 0;
	cudaError_t ce;

	if ((ce = cudaSetDevice(p->dev)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaSetDevice");
	p->dev_set = true;
	in->device = p->dev;
	if ((ce = cudaGetDeviceProperties(&prop, p->dev)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaGetDeviceProperties");
	snprintf(in->device_name, sizeof(in->device_name), "%.*s", (int)sizeof(in->device_name) - 1,
		 prop.name);
	/* before any kernel: a GPU this build has no code for fails here,
	 * with its compute capability, not later in the fill kernel */
	ce = np_kern_image();
	if (ce == cudaErrorNoKernelImageForDevice || ce == cudaErrorInvalidDeviceFunction) {
		cudaGetLastError();
		p->failed = true;
		return np_fail(&be->err, NP_ECUDA,
			       "GPU %d ('%s') has compute capability %d.%d, which this build has no code for (built for %s); rebuild with ../configure --with-cuda-arch=%d%d",
			       p->dev, prop.name, prop.major, prop.minor, NP_CUDA_TARGETS, prop.major,
			       prop.minor);
	}
	if (ce != cudaSuccess)
		return cuda_fail(be, ce, "cudaFuncGetAttributes of the check kernels");
	if ((ce = cudaDeviceGetPCIBusId(in->bus_id, (int)sizeof(in->bus_id), p->dev)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaDeviceGetPCIBusId");
	if ((ce = cudaMemGetInfo(&freeb, &total)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaMemGetInfo");
	if ((ce = cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaStreamCreate");
	if ((ce = cudaEventCreate(&p->ev_start)) != cudaSuccess ||
	    (ce = cudaEventCreate(&p->ev_stop)) != cudaSuccess ||
	    (ce = cudaEventCreateWithFlags(&p->ev_sync, cudaEventDisableTiming)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaEventCreate");
	if ((ce = cudaMalloc((void **)&p->d_wrong, sizeof(*p->d_wrong))) != cudaSuccess)
		return cuda_fail(be, ce, "cudaMalloc of the check counter");
	if ((ce = cudaMallocHost((void **)&p->h_wrong, sizeof(*p->h_wrong))) != cudaSuccess)
		return cuda_fail(be, ce, "cudaMallocHost of the check counter");
	if ((ce = cudaHostAlloc((void **)&p->h_release, sizeof(int), cudaHostAllocMapped)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaHostAlloc of the stall flag");
	*(volatile int *)p->h_release = 0;
	if ((ce = cudaHostGetDevicePointer((void **)&p->d_release, p->h_release, 0)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaHostGetDevicePointer of the stall flag");
	return NP_OK;
}

/* Two ranks of a node on one GPU (same PCI bus id): collective over the node. */
static enum np_status check_unique_gpu(struct np_backend *be)
{
	const struct np_backend_world *w = &be->world;
	struct {
		char bus[32];
		int rank, vnode;
	} mine, *all;
	int lsize = 1, rc;
	enum np_status st = NP_OK;

	memset(&mine, 0, sizeof(mine));
	snprintf(mine.bus, sizeof(mine.bus), "%s", be->info.bus_id);
	mine.rank = w->rank;
	mine.vnode = w->virtual_nodes ? w->node : 0;
	MPI_Comm_size(w->node_comm, &lsize);
	all = calloc((size_t)lsize, sizeof(*all));
	if (!all)
		return np_fail(&be->err, NP_ENOMEM, "out of memory");
	rc = MPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE,
			   w->node_comm);
	if (rc != MPI_SUCCESS) {
		free(all);
		return mpi_fail(be, rc, "MPI_Allgather of PCI bus ids");
	}
	for (int i = 0; i < lsize && st == NP_OK; i++) {
		if (all[i].rank == w->rank || all[i].vnode != mine.vnode ||
		    strcasecmp(all[i].bus, mine.bus))
			continue;
		st = np_fail(&be->err, NP_ENODEV,
			     "ranks %d and %d both use the GPU at %s (CUDA device %d)%s; give each rank its own GPU with --gpu-map, NCCL_PROBE_GPU_MAP or CUDA_VISIBLE_DEVICES",
			     all[i].rank < w->rank ? all[i].rank : w->rank,
			     all[i].rank < w->rank ? w->rank : all[i].rank, mine.bus,
			     be->info.device, w->virtual_nodes ? " in one virtual node" : "");
	}
	free(all);
	return st;
}

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

static enum np_status comm_init(struct np_backend *be)
{
	struct nccl_priv *p = be->priv;
	const struct np_backend_world *w = &be->world;
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	struct {
		int r;
		ncclUniqueId id;
	} uid;
	ncclResult_t r;
	enum np_status st;
	int rc;

	memset(&uid, 0, sizeof(uid));
	if (w->rank == 0)
		uid.r = (int)ncclGetUniqueId(&uid.id);
	rc = MPI_Bcast(&uid, (int)sizeof(uid), MPI_BYTE, 0, w->comm);
	if (rc != MPI_SUCCESS)
		return mpi_fail(be, rc, "MPI_Bcast of the NCCL unique id");
	if (uid.r != ncclSuccess) {
		if (w->rank == 0)
			return nccl_fail(be, (ncclResult_t)uid.r, "ncclGetUniqueId");
		p->failed = true;
		return np_fail(&be->err, NP_ENCCL, "rank 0 on '%s' failed: ncclGetUniqueId: %s",
			       w->hosts ? w->hosts[0] : "?", ncclGetErrorString((ncclResult_t)uid.r));
	}
	cfg.blocking = 0; /* so that abort() can interrupt the setup */
	cfg.commName = "nccl-probe";
	pthread_mutex_lock(&p->lock);
	if (atomic_load(&p->aborted)) {
		pthread_mutex_unlock(&p->lock);
		return aborted_fail(be, "ncclCommInitRankConfig");
	}
	r = ncclCommInitRankConfig(&p->comm, w->size, uid.id, w->rank, &cfg);
	pthread_mutex_unlock(&p->lock);
	if (r != ncclSuccess && r != ncclInProgress)
		return nccl_fail(be, r, "ncclCommInitRankConfig");
	st = wait_ready(be, r, "ncclCommInitRankConfig");
	return st;
}

static enum np_status comm_check(struct np_backend *be)
{
	struct nccl_priv *p = be->priv;
	int count = 0, cudev = -1, urank = -1;
	ncclResult_t r;

	pthread_mutex_lock(&p->lock);
	r = ncclCommCount(p->comm, &count);
	if (r == ncclSuccess)
		r = ncclCommCuDevice(p->comm, &cudev);
	if (r == ncclSuccess)
		r = ncclCommUserRank(p->comm, &urank);
	pthread_mutex_unlock(&p->lock);
	if (r != ncclSuccess)
		return nccl_fail(be, r, "ncclCommCount");
	if (count != be->world.size || urank != be->world.rank || cudev != p->dev) {
		p->failed = true;
		return np_fail(&be->err, NP_ENCCL,
			       "GPU %d: the NCCL communicator has %d ranks (rank %d, device %d) but the MPI world has %d (rank %d); check that every rank runs the same nccl-probe and NCCL",
			       p->dev, count, urank, cudev, be->world.size, be->world.rank);
	}
	return NP_OK;
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
				 "NCCL %d.%d.%d (built with the headers of %d.%d.%d)", maj, min, pat,
				 NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
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
static void parse_stall(struct nccl_priv *p)
{
	struct np_test_stall st;

	np_test_stall_read(&st);
	p->stall = np_test_stall_rank_at(&st, NP_STALL_DEVICE) == p->rank;
}

/* Device choice, guards and the communicator, each step agreed over the
 * world so that no rank enters NCCL's setup alone. */
static enum np_status init_steps(struct np_backend *be)
{
	struct nccl_priv *p = be->priv;
	enum np_status st;

	if ((st = agree(be, select_device(be, &p->dev))) || (st = agree(be, open_device(be))) ||
	    (st = agree(be, check_unique_gpu(be))))
		return st;
	st = comm_init(be);
	if (st == NP_OK)
		st = comm_check(be);
	return agree(be, st);
}

/* NCCL's native calls, where the runtime library has them; the switch
 * NCCL_PROBE_TEST_NO_NATIVE=1 (tests) forces grouped send/recv. */
static void find_natives(struct nccl_priv *p, struct np_backend_info *in)
{
	bool off = np_test_no_native_read();
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
			 off ? "NCCL_PROBE_TEST_NO_NATIVE=1"
						  : "this NCCL has no native call");
	else
		snprintf(in->calls, sizeof(in->calls),
			 "alltoall %s, gather %s, scatter %s (native: NCCL's own call; else grouped send/recv)",
			 p->native.alltoall ? "native" : "send/recv", p->native.gather ? "native" : "send/recv",
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
	if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, p->dev) != cudaSuccess)
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
	parse_stall(p);
	np_test_faults_read(&p->faults);
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
				       be->world.node, env ? "'" : "unset", env ? env : "", env ? "'" : "");
		}
		snprintf(be->info.host_id, sizeof(be->info.host_id), "%s", id);
	}
	fill_versions(&be->info);
	st = init_steps(be);
	if (logging)
		log_read(p, &be->info);
	if (st)
		return st;
	if ((ce = cudaMemGetInfo(&freeb, &total)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaMemGetInfo");
	h = headroom(total, p->nranks);
	be->info.mem_avail = freeb > h ? freeb - h : 0;
	be->info.max_count = SIZE_MAX;
	find_natives(p, &be->info);
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
		return cuda_fail(be, ce, what);
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

/* Where a collective reads and writes; NCCL's in-place layouts. */
struct bufs {
	char *send, *recv;
	size_t send_elems, recv_elems; /* logical elements of each */
};

static enum np_status layout(struct np_backend *be, const struct np_bench *b, struct bufs *o)
{
	struct nccl_priv *p = be->priv;
	const struct np_coll *c = b->coll;
	size_t elt = np_dtypes[b->dtype].size, count = b->lay.count, n = (size_t)p->nranks;
	size_t need;

	o->send_elems = count * (c->send_n ? n : 1);
	o->recv_elems = count * (c->recv_n ? n : 1);
	if (!b->inplace) {
		if (!p->sendbuf || b->lay.send_bytes > p->send_cap || b->lay.recv_bytes > p->recv_cap)
			return np_fail(&be->err, NP_EUSAGE,
				       "GPU %d: %s of %zu bytes does not fit the buffers allocated", p->dev,
				       c->name, b->lay.size);
		o->send = p->sendbuf;
		o->recv = p->recvbuf;
		return NP_OK;
	}
	if (!(c->flags & NP_COLL_F_INPLACE))
		return np_fail(&be->err, NP_ENOTSUP, "%s has no in-place form; run it without --inplace",
			       c->name);
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
static enum np_status fill(struct np_backend *be, const struct np_bench *b)
{
	struct nccl_priv *p = be->priv;
	const struct np_coll *c = b->coll;
	struct bufs u;
	enum np_status st;
	cudaError_t ce;
	bool poison;

	if ((st = layout(be, b, &u)))
		return st;
	/* 0xff bytes: NaN in floating types, -1 or the maximum in integers, never a
	 * value of the pattern */
	poison = !b->inplace || c->inplace_at == NP_INPLACE_SEND_AT_RANK;
	if (poison && b->lay.recv_bytes &&
	    (ce = cudaMemsetAsync(b->inplace ? p->recvbuf : u.recv, 0xff, b->lay.recv_bytes,
				  p->stream)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaMemsetAsync of the result");
	ce = np_kern_fill(u.send, u.send_elems, (int)b->dtype, !!(c->flags & NP_COLL_F_REDUCE),
			  (int)b->op, p->nranks, np_test_faults_source(&p->faults, p->rank),
			  p->stream);
	if (ce != cudaSuccess)
		return cuda_fail(be, ce, "the pattern kernel launch");
	if ((p->faults.corrupt_all || p->faults.corrupt_rank == p->rank) && u.send_elems) {
		/* test-only: one wrong input element; with every rank's, each at
		 * its own place (wrong elements of two ranks at one place may
		 * cancel in a sum) */
		size_t j = (u.send_elems / 2 + (p->faults.corrupt_all ? (size_t)p->rank : 0)) % u.send_elems;
		size_t elt = np_dtypes[b->dtype].size;
		int64_t v = np_pat_wrong(np_pat_input(!!(c->flags & NP_COLL_F_REDUCE), (int)b->op,
						      (int)b->dtype, p->nranks, p->rank, j));
		np_pat_store(p->h_bad, (int)b->dtype, 0, v);
		ce = cudaMemcpyAsync(u.send + j * elt, p->h_bad, elt, cudaMemcpyHostToDevice,
				     p->stream);
		if (ce != cudaSuccess)
			return cuda_fail(be, ce, "cudaMemcpyAsync of the test's wrong element");
	}
	return NP_OK;
}

static enum np_status sync_stream(struct np_backend *be, const char *what)
{
	struct nccl_priv *p = be->priv;
	cudaError_t ce = cudaEventRecord(p->ev_sync, p->stream);

	if (ce != cudaSuccess)
		return cuda_fail(be, ce, "cudaEventRecord");
	return wait_event(be, p->ev_sync, what);
}

static enum np_status nccl_prepare(struct np_backend *be, const struct np_bench *b)
{
	struct nccl_priv *p = be->priv;
	enum np_status st;

	if ((st = fill(be, b)) || (st = sync_stream(be, "filling the check pattern")))
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
	if ((st = layout(be, b, &u)))
		return st;
	if ((ce = cudaMemsetAsync(p->d_wrong, 0, sizeof(*p->d_wrong), p->stream)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaMemsetAsync of the check counter");
	{
		/* the operation matters to reductions only */
		int op = (c->flags & NP_COLL_F_REDUCE) ? (int)b->op : NP_OP_SUM;
		ce = np_kern_check(u.recv, u.recv_elems, (int)b->dtype, c->expect, op,
				   p->nranks, p->rank, b->root, b->lay.count, p->d_wrong, p->stream);
	}
	if (ce != cudaSuccess)
		return cuda_fail(be, ce, "the check kernel launch");
	if ((ce = cudaMemcpyAsync(p->h_wrong, p->d_wrong, sizeof(*p->h_wrong),
				  cudaMemcpyDeviceToHost, p->stream)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaMemcpyAsync of the check counter");
	if ((st = sync_stream(be, "checking the result")))
		return st;
	*wrong = *p->h_wrong;
	return NP_OK;
}

/* ---- how this backend issues each collective ---- */

#define NT(c) (*(const ncclDataType_t *)(c)->lib_dtype)
#define NO(c) (*(const ncclRedOp_t *)(c)->lib_op)
#define NC(c) ((ncclComm_t)(c)->comm)
#define NS(c) ((cudaStream_t)(c)->stream)
#define NATIVE(c) ((const struct nccl_native *)(c)->caps)

static size_t elt_of(const struct np_call *c)
{
	return np_dtypes[c->dtype].size;
}

static int group_end(ncclResult_t res)
{
	ncclResult_t end = ncclGroupEnd();

	return res != ncclSuccess && res != ncclInProgress ? (int)res : (int)end;
}

static int nccl_issue_allreduce(const struct np_call *c)
{
	return ncclAllReduce(c->send, c->recv, c->count, NT(c), NO(c), NC(c), NS(c));
}

static int nccl_issue_allgather(const struct np_call *c)
{
	return ncclAllGather(c->send, c->recv, c->count, NT(c), NC(c), NS(c));
}

static int nccl_issue_reducescatter(const struct np_call *c)
{
	return ncclReduceScatter(c->send, c->recv, c->count, NT(c), NO(c), NC(c), NS(c));
}

static int nccl_issue_broadcast(const struct np_call *c)
{
	return ncclBroadcast(c->send, c->recv, c->count, NT(c), c->root, NC(c), NS(c));
}

static int nccl_issue_reduce(const struct np_call *c)
{
	return ncclReduce(c->send, c->recv, c->count, NT(c), NO(c), c->root, NC(c), NS(c));
}

static int nccl_issue_alltoall(const struct np_call *c)
{
	size_t chunk = c->count * elt_of(c);
	ncclResult_t res;

	if (NATIVE(c)->alltoall)
		return NATIVE(c)->alltoall(c->send, c->recv, c->count, NT(c), NC(c), NS(c));
	res = ncclGroupStart();
	for (int peer = 0; peer < c->nranks && res == ncclSuccess; peer++) {
		res = ncclSend((const char *)c->send + (size_t)peer * chunk, c->count, NT(c), peer,
			       NC(c), NS(c));
		if (res == ncclSuccess)
			res = ncclRecv((char *)c->recv + (size_t)peer * chunk, c->count, NT(c), peer,
				       NC(c), NS(c));
	}
	return group_end(res);
}

static int nccl_issue_gather(const struct np_call *c)
{
	size_t chunk = c->count * elt_of(c);
	ncclResult_t res;

	if (NATIVE(c)->gather)
		return NATIVE(c)->gather(c->send, c->recv, c->count, NT(c), c->root, NC(c), NS(c));
	res = ncclGroupStart();
	if (c->rank == c->root)
		for (int peer = 0; peer < c->nranks && res == ncclSuccess; peer++) {
			char *dst = (char *)c->recv + (size_t)peer * chunk;
			if (peer == c->rank) {
				if (dst != c->send &&
				    cudaMemcpyAsync(dst, c->send, chunk, cudaMemcpyDeviceToDevice,
						    NS(c)) != cudaSuccess)
					res = ncclUnhandledCudaError;
				continue;
			}
			res = ncclRecv(dst, c->count, NT(c), peer, NC(c), NS(c));
		}
	else
		res = ncclSend(c->send, c->count, NT(c), c->root, NC(c), NS(c));
	return group_end(res);
}

static int nccl_issue_scatter(const struct np_call *c)
{
	size_t chunk = c->count * elt_of(c);
	ncclResult_t res;

	if (NATIVE(c)->scatter)
		return NATIVE(c)->scatter(c->send, c->recv, c->count, NT(c), c->root, NC(c), NS(c));
	res = ncclGroupStart();
	if (c->rank == c->root)
		for (int peer = 0; peer < c->nranks && res == ncclSuccess; peer++) {
			const char *src = (const char *)c->send + (size_t)peer * chunk;
			if (peer == c->rank) {
				if (src != c->recv &&
				    cudaMemcpyAsync(c->recv, src, chunk, cudaMemcpyDeviceToDevice,
						    NS(c)) != cudaSuccess)
					res = ncclUnhandledCudaError;
				continue;
			}
			res = ncclSend(src, c->count, NT(c), peer, NC(c), NS(c));
		}
	else
		res = ncclRecv(c->recv, c->count, NT(c), c->root, NC(c), NS(c));
	return group_end(res);
}

static int nccl_issue_sendrecv(const struct np_call *c)
{
	int n = c->nranks, r = c->rank;
	ncclResult_t res = ncclGroupStart();

	if (res == ncclSuccess)
		res = ncclSend(c->send, c->count, NT(c), (r + 1) % n, NC(c), NS(c));
	if (res == ncclSuccess)
		res = ncclRecv(c->recv, c->count, NT(c), (r - 1 + n) % n, NC(c), NS(c));
	return group_end(res);
}

/* indexed by enum np_coll_id: every collective of common/coll.c; the
 * native call where the runtime NCCL has one (caps says), else grouped
 * send/recv */
static const np_issue_fn nccl_issue[NP_COLL_COUNT] = {
	[NP_COLL_ALLREDUCE] = nccl_issue_allreduce,
	[NP_COLL_ALLGATHER] = nccl_issue_allgather,
	[NP_COLL_REDUCESCATTER] = nccl_issue_reducescatter,
	[NP_COLL_ALLTOALL] = nccl_issue_alltoall,
	[NP_COLL_BROADCAST] = nccl_issue_broadcast,
	[NP_COLL_REDUCE] = nccl_issue_reduce,
	[NP_COLL_GATHER] = nccl_issue_gather,
	[NP_COLL_SCATTER] = nccl_issue_scatter,
	[NP_COLL_SENDRECV] = nccl_issue_sendrecv,
};

/* Enqueue one collective of b on the stream; lock held. */
static ncclResult_t enqueue(struct nccl_priv *p, const struct np_bench *b, const struct bufs *u)
{
	ncclDataType_t t = nccl_types[b->dtype];
	ncclRedOp_t op = nccl_ops[b->op];
	struct np_call c = { .send = u->send, .recv = u->recv, .count = b->lay.count,
			     .dtype = (int)b->dtype, .op = (int)b->op, .root = b->root,
			     .rank = p->rank, .nranks = p->nranks, .inplace = b->inplace,
			     .lib_dtype = &t, .lib_op = &op, .comm = p->comm, .stream = p->stream,
			     .caps = &p->native };

	return (ncclResult_t)nccl_issue[b->coll->id](&c);
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
			return aborted_fail(be, name);
		}
		r = enqueue(p, b, &at);
		pthread_mutex_unlock(&p->lock);
		if (r != ncclSuccess && (st = wait_ready(be, r, name)))
			return st;
	}
	return NP_OK;
}

static bool same_bench(const struct np_bench *a, const struct np_bench *b)
{
	return a->coll == b->coll && a->dtype == b->dtype && a->op == b->op &&
	       a->root == b->root && a->inplace == b->inplace && a->lay.count == b->lay.count &&
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

static void graphs_free(struct nccl_priv *p)
{
	for (int i = 0; i < GRAPH_SLOTS; i++)
		graph_free(&p->graphs[i]);
	p->gbench_valid = false;
	p->warm = false;
}

/* Capture n collectives of b into an executable graph. */
static enum np_status capture(struct np_backend *be, const struct np_bench *b,
			      const struct bufs *u, int n, cudaGraphExec_t *exec)
{
	struct nccl_priv *p = be->priv;
	cudaGraph_t g = NULL;
	enum np_status st;
	cudaError_t ce;

	*exec = NULL;
	ce = cudaStreamBeginCapture(p->stream, cudaStreamCaptureModeRelaxed);
	if (ce != cudaSuccess)
		return cuda_fail(be, ce, "cudaStreamBeginCapture");
	st = enqueue_batch(be, b, u, n);
	ce = cudaStreamEndCapture(p->stream, &g);
	if (st != NP_OK) {
		if (g)
			cudaGraphDestroy(g);
		return st;
	}
	if (ce != cudaSuccess)
		return cuda_fail(be, ce, "cudaStreamEndCapture");
	ce = cudaGraphInstantiateWithFlags(exec, g, 0);
	cudaGraphDestroy(g);
	if (ce != cudaSuccess) {
		*exec = NULL;
		return cuda_fail(be, ce, "cudaGraphInstantiate");
	}
	if ((ce = cudaGraphUpload(*exec, p->stream)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaGraphUpload");
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
		graphs_free(p);
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
			    (st = sync_stream(be, b->coll->name)))
				return st;
			p->warm = true;
			if (p->pristine && ((st = fill(be, b)) ||
					    (st = sync_stream(be, "filling the check pattern"))))
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
		return aborted_fail(be, "the graph launch");
	}
	for (int i = 0; i < g->reps && ce == cudaSuccess; i++)
		ce = cudaGraphLaunch(g->chunk, p->stream);
	if (ce == cudaSuccess && g->rest)
		ce = cudaGraphLaunch(g->rest, p->stream);
	pthread_mutex_unlock(&p->lock);
	if (ce != cudaSuccess)
		return cuda_fail(be, ce, "cudaGraphLaunch");
	return NP_OK;
}

static enum np_status nccl_run(struct np_backend *be, const struct np_bench *b, int iters,
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
		return np_fail(&be->err, NP_EUSAGE, "run() needs at least one iteration, not %d", iters);
	if ((st = layout(be, b, &u)))
		return st;
	if (be->cfg.graph && (st = graph_get(be, b, &u, iters, &g)))
		return st;
	if (p->stall) {
		/* test-only: this rank's stream never completes */
		p->stall = false;
		if ((ce = np_kern_stall(p->d_release, p->stream)) != cudaSuccess)
			return cuda_fail(be, ce, "the stall kernel launch");
	}
	if ((ce = cudaEventRecord(p->ev_start, p->stream)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaEventRecord");
	st = g ? launch_graphs(be, g) : enqueue_batch(be, b, &u, iters);
	if (st)
		return st;
	if ((ce = cudaEventRecord(p->ev_stop, p->stream)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaEventRecord");
	p->pristine = false;
	if ((st = wait_event(be, p->ev_stop, b->coll->name)))
		return st;
	if ((ce = cudaEventElapsedTime(&ms, p->ev_start, p->ev_stop)) != cudaSuccess)
		return cuda_fail(be, ce, "cudaEventElapsedTime");
	*seconds = (double)ms / 1e3;
	return NP_OK;
}

/* ---- abort and teardown ------------------------------------------------ */

struct abort_job {
	ncclComm_t comm;
	atomic_int *done;
};

static void *abort_main(void *arg)
{
	struct abort_job *j = arg;
	atomic_int *done = j->done;

	ncclCommAbort(j->comm);
	free(j);
	atomic_store(done, 1);
	return NULL;
}

/* Called from the watchdog thread while the main thread may be anywhere in
 * this file. Releases the stall kernel, takes the communicator from the
 * main thread (which then returns NP_ETIMEOUT at its next look) and aborts
 * it in a helper thread, waiting a bounded time: the caller exits next. */
static void nccl_abort(struct np_backend *be)
{
	struct nccl_priv *p = be ? be->priv : NULL;
	struct abort_job *j;
	ncclComm_t c;
	pthread_t t;

	if (!p || atomic_exchange(&p->aborted, 1))
		return;
	if (p->h_release)
		*(volatile int *)p->h_release = 1;
	/* a bounded wait that a step of the wall clock (at boot, when
	 * prologs run) neither cuts short nor stretches, as a deadline of
	 * pthread_mutex_timedlock (CLOCK_REALTIME) would */
	for (long waited = 0; pthread_mutex_trylock(&p->lock) != 0; waited += ABORT_LOCK_STEP_NS) {
		if (waited >= ABORT_LOCK_NS)
			return; /* the main thread is stuck inside NCCL: leave the comm to the exit */
		nap(ABORT_LOCK_STEP_NS);
	}
	c = p->comm;
	p->comm = NULL;
	pthread_mutex_unlock(&p->lock);
	if (!c)
		return;
	j = malloc(sizeof(*j));
	if (!j)
		return;
	j->comm = c;
	j->done = &p->abort_done;
	if (pthread_create(&t, NULL, abort_main, j) != 0) {
		free(j);
		ncclCommAbort(c);
		return;
	}
	pthread_detach(t);
	for (long waited = 0; !atomic_load(&p->abort_done) && waited < ABORT_WAIT_NS;
	     waited += 10000000L)
		nap(10000000L);
}

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
	graphs_free(p);
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
			backoff(&n, &ns);
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
	.caps = NP_CAP_GRAPHS | NP_CAP_DEVICE | NP_CAP_ABORT | NP_CAP_HOSTID_VNODES | NP_CAP_SETTINGS_LOG,
	.issue = nccl_issue,
	.device_visible = nccl_gpu_visible,
	.init = nccl_init,
	.alloc = nccl_alloc,
	.prepare = nccl_prepare,
	.run = nccl_run,
	.check = nccl_check,
	.abort = nccl_abort,
	.finalize = nccl_finalize,
};
