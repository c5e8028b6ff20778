/* SPDX-License-Identifier: MIT */
/* The NCCL backend's own state and the helpers its files share: the
 * private struct behind be->priv, where a collective reads and writes, and
 * the failures, waits and steps that more than one of its files call.
 * Only probes/backend_nccl*.c include this header. The files:
 *   backend_nccl.c        the ops: start, buffers, check patterns, teardown
 *   backend_nccl_setup.c  device choice and the communicator, agreed over the world
 *   backend_nccl_issue.c  how each collective is issued (native or send/recv)
 *   backend_nccl_run.c    timed batches, in CUDA graphs or not
 *   backend_nccl_wait.c   failures, waits that abort() can end, abort() */
#ifndef NP_BACKEND_NCCL_H
#define NP_BACKEND_NCCL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include "../common/testhooks.h"
#include "backend.h"

/* Collectives captured in one CUDA graph at most; longer batches launch the
 * graph several times between the events. Each launch leaves a gap of a
 * few microseconds on the GPU: with 512 per graph, batches of 14000 8-byte
 * all-reduces on one H200 took 2% longer per collective than one graph of
 * them all (0.741 against 0.726 us); 4096 cuts the launches eightfold and
 * keeps capture and instantiation short. */
#define GRAPH_CHUNK 4096
#define GRAPH_SLOTS 8

struct graph {
	int iters;             /* 0: free slot */
	cudaGraphExec_t chunk; /* min(iters, GRAPH_CHUNK) collectives */
	cudaGraphExec_t rest;  /* iters % GRAPH_CHUNK collectives, or NULL */
	int reps;              /* launches of chunk */
	unsigned long stamp;   /* last use, for eviction */
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
	int dev;                      /* CUDA device index, -1 before it is chosen */
	bool dev_set;
	ncclComm_t comm;       /* guarded by lock once init has begun */
	pthread_mutex_t lock;  /* held around every call that uses comm */
	atomic_int aborted;    /* abort() was called */
	atomic_int abort_done; /* ncclCommAbort returned (abort's helper thread) */
	bool failed;           /* an error happened: finalize aborts the comm */
	cudaStream_t stream;
	cudaEvent_t ev_start, ev_stop, ev_sync;
	void *sendbuf, *recvbuf; /* recvbuf alone when in place */
	size_t send_cap, recv_cap;
	unsigned long long *d_wrong, *h_wrong; /* check counter, device and pinned host */
	unsigned char h_bad[8];                /* the test switch's wrong element, host */
	int *h_release, *d_release;            /* stall release flag, mapped host memory */
	bool stall;                            /* NCCL_PROBE_TEST_STALL=R:device names this rank */
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

/* Where a collective reads and writes; NCCL's in-place layouts. */
struct bufs {
	char *send, *recv;
	size_t send_elems, recv_elems; /* logical elements of each */
};

/* backend_nccl_wait.c: each failure marks the backend failed (finalize
 * then aborts the communicator) and fills be->err; returns its status */
enum np_status nccl_be_fail_cuda(struct np_backend *be, cudaError_t ce, const char *what);
enum np_status nccl_be_fail_nccl(struct np_backend *be, ncclResult_t r, const char *what);
enum np_status nccl_be_fail_aborted(struct np_backend *be, const char *what);
enum np_status nccl_be_fail_mpi(struct np_backend *be, int rc, const char *what);
/* One step of a wait: spin, then sleep longer each time (*n, *ns start at 0) */
void nccl_be_backoff(unsigned *n, long *ns);
/* After a call on the non-blocking communicator returned r: wait while it
 * is in progress, unless abort() takes the communicator */
enum np_status nccl_be_wait_ready(struct np_backend *be, ncclResult_t r, const char *what);
/* Wait for ev, with NCCL's asynchronous errors and abort() */
enum np_status nccl_be_wait_event(struct np_backend *be, cudaEvent_t ev, const char *what);
/* Wait for everything enqueued on the probe's stream so far */
enum np_status nccl_be_sync_stream(struct np_backend *be, const char *what);
/* ops->abort: from the watchdog thread, at any time */
void nccl_be_abort(struct np_backend *be);

/* backend_nccl_setup.c: this rank's GPU, the guards and the communicator,
 * each step agreed over the world */
enum np_status nccl_be_init_steps(struct np_backend *be);

/* backend_nccl_issue.c: indexed by enum np_coll_id */
extern const np_issue_fn nccl_be_issue[NP_COLL_COUNT];

/* backend_nccl_run.c: ops->run, and freeing the captured graphs */
enum np_status nccl_be_run(struct np_backend *be, const struct np_bench *b, int iters,
			   double *seconds);
void nccl_be_graphs_free(struct nccl_priv *p);

/* backend_nccl.c: where b reads and writes in the buffers allocated, and
 * filling its inputs with the check pattern (does not wait) */
enum np_status nccl_be_layout(struct np_backend *be, const struct np_bench *b, struct bufs *o);
enum np_status nccl_be_fill(struct np_backend *be, const struct np_bench *b);

#endif
