/* SPDX-License-Identifier: MIT */
/* The NCCL backend's failures, its waits that never block for ever (the
 * communicator is non-blocking; NCCL's asynchronous errors and abort()
 * end them), and abort(), which the watchdog thread may call while the
 * main thread is anywhere in the backend. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include "backend_nccl.h"

/* Spins (sched_yield) before a waiter starts to sleep, and the longest sleep. */
#define WAIT_SPINS 200
#define WAIT_SLEEP_MAX_NS 1000000L
/* How long abort() waits for the main thread to leave an NCCL call, and for
 * ncclCommAbort to return, before it gives up (the process is exiting). */
#define ABORT_LOCK_NS 1000000000L
#define ABORT_LOCK_STEP_NS 1000000L
#define ABORT_WAIT_NS 5000000000L

/* ---- failures ---------------------------------------------------------- */

enum np_status nccl_be_fail_cuda(struct np_backend *be, cudaError_t ce, const char *what)
{
	struct nccl_priv *p = be->priv;

	p->failed = true;
	cudaGetLastError(); /* clear a non-sticky error so that cleanup can run */
	return np_fail(&be->err, ce == cudaErrorMemoryAllocation ? NP_ENOMEM : NP_ECUDA,
		       "GPU %d: %s failed: %s (%s)", p->dev, what, cudaGetErrorString(ce),
		       cudaGetErrorName(ce));
}

enum np_status nccl_be_fail_nccl(struct np_backend *be, ncclResult_t r, const char *what)
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

enum np_status nccl_be_fail_aborted(struct np_backend *be, const char *what)
{
	struct nccl_priv *p = be->priv;

	p->failed = true;
	return np_fail(&be->err, NP_ETIMEOUT, "GPU %d: %s was aborted after the timeout", p->dev,
		       what);
}

enum np_status nccl_be_fail_mpi(struct np_backend *be, int rc, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(rc, s, &len);
	return np_fail(&be->err, NP_EMPI, "%s failed: %s", what, s);
}

/* ---- waiting without blocking forever ---------------------------------- */

static void nap(long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void nccl_be_backoff(unsigned *n, long *ns)
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
enum np_status nccl_be_wait_ready(struct np_backend *be, ncclResult_t r, const char *what)
{
	struct nccl_priv *p = be->priv;
	unsigned n = 0;
	long ns = 0;
	bool gone = false;

	while (r == ncclInProgress) {
		nccl_be_backoff(&n, &ns);
		r = comm_state(p, &gone);
		if (gone)
			return nccl_be_fail_aborted(be, what);
	}
	if (r != ncclSuccess)
		return nccl_be_fail_nccl(be, r, what);
	return NP_OK;
}

/* Wait for ev by polling, with NCCL's asynchronous errors and abort(). */
enum np_status nccl_be_wait_event(struct np_backend *be, cudaEvent_t ev, const char *what)
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
			return atomic_load(&p->aborted) ? nccl_be_fail_aborted(be, what) : NP_OK;
		if (ce != cudaErrorNotReady)
			return nccl_be_fail_cuda(be, ce, what);
		if (atomic_load(&p->aborted))
			return nccl_be_fail_aborted(be, what);
		if (n >= 16) {
			r = comm_state(p, &gone);
			if (gone) {
				if (atomic_load(&p->aborted))
					return nccl_be_fail_aborted(be, what);
			} else if (r != ncclSuccess && r != ncclInProgress) {
				return nccl_be_fail_nccl(be, r, what);
			}
		}
		nccl_be_backoff(&n, &ns);
	}
}

enum np_status nccl_be_sync_stream(struct np_backend *be, const char *what)
{
	struct nccl_priv *p = be->priv;
	cudaError_t ce = cudaEventRecord(p->ev_sync, p->stream);

	if (ce != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaEventRecord");
	return nccl_be_wait_event(be, p->ev_sync, what);
}

/* ---- abort ------------------------------------------------------------- */

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
void nccl_be_abort(struct np_backend *be)
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
