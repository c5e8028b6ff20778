/* SPDX-License-Identifier: MIT */
/* Backends: one file and one `static const struct np_backend_ops` each.
 *
 * How to add a backend
 * --------------------
 * 1. Write probes/backend_NAME.c with the ops below, filled with
 *    designated initializers; keep its state in a struct of its own,
 *    hung on be->priv. Never print and never exit: describe failures in
 *    be->err with np_fail() and return the status.
 * 2. Declare `extern const struct np_backend_ops np_backend_NAME;` below
 *    and add it to np_backend_select() in probes/backend.c.
 * 3. Add the file to Makefile.am (under a conditional if it needs a
 *    library) and a line to the man page's BACKENDS section.
 * The sweep engine (src/sweep.c) calls, for every size of every
 * collective: prepare(), run() once and check() (when --check), then
 * run() for warm-up and for every timed sample; it reduces each sample's
 * time over ranks with MAX itself. alloc() comes once, before the first
 * size, with the largest buffers the sweep needs.
 */
#ifndef NP_BACKEND_H
#define NP_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../src/opts.h"
#include "../src/status.h"
#include "../src/world.h"
#include "coll.h"

/* One point of the sweep as a backend sees it. */
struct np_bench {
	const struct np_coll *coll;
	enum np_dtype dtype;
	enum np_redop op;
	int root;
	bool inplace;
	struct np_layout lay; /* count, send_bytes, recv_bytes, size */
};

/* What a backend tells about itself and this rank's device. */
struct np_backend_info {
	char library[128];    /* e.g. "NCCL 2.28.3" or "Open MPI v4.1.4" */
	char transport[128];  /* network transport in use, "" if unknown */
	char runtime[128];    /* e.g. "CUDA driver 13.0, runtime 13.0", "" */
	int device;           /* CUDA device index, -1 for host memory */
	char bus_id[32];      /* PCI bus id of the device, "" for host */
	char device_name[96]; /* "NVIDIA H200", or "host memory" */
	uint64_t mem_avail;   /* bytes this rank may allocate for buffers */
};

struct np_backend;

struct np_backend_ops {
	const char *name;
	/* Set up on this rank: pick the device, create communicators. The
	 * world is up; collective over the world. */
	enum np_status (*init)(struct np_backend *be);
	/* Allocate buffers of at least send/recv bytes (collective-free). */
	enum np_status (*alloc)(struct np_backend *be, size_t send_bytes, size_t recv_bytes);
	/* Fill the send buffer (and the recv buffer when in place) with the
	 * check pattern of b; clear the result. */
	enum np_status (*prepare)(struct np_backend *be, const struct np_bench *b);
	/* Run iters back-to-back collectives of b; *seconds = this rank's time
	 * of the whole batch (collective over the world). */
	enum np_status (*run)(struct np_backend *be, const struct np_bench *b, int iters,
			      double *seconds);
	/* Count this rank's wrong result elements after one run of b. */
	enum np_status (*check)(struct np_backend *be, const struct np_bench *b, uint64_t *wrong);
	/* Abort in-flight work from another thread (watchdog); may be NULL. */
	void (*abort)(struct np_backend *be);
	/* Free everything; safe after a failed init. */
	void (*finalize)(struct np_backend *be);
};

struct np_backend {
	const struct np_backend_ops *ops;
	const struct np_opts *opts;
	const struct np_world *world;
	struct np_backend_info info;
	struct np_err err;
	void *priv;
};

extern const struct np_backend_ops np_backend_mpi;
#ifdef HAVE_NCCL
extern const struct np_backend_ops np_backend_nccl;
/* Whether a CUDA device is visible on this rank (no context is made). */
bool np_nccl_gpu_visible(void);
#endif

/* Pick the backend for opts->backend; gpus_everywhere: every rank sees a
 * GPU (the caller agrees on it over the world). *why says why auto chose
 * what it did. Returns NP_ENOTSUP when the asked backend is not built. */
enum np_status np_backend_select(const struct np_opts *opts, bool gpus_everywhere,
				 const struct np_backend_ops **ops, char *why, size_t whylen,
				 struct np_err *err);

#endif
