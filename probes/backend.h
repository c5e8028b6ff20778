/* SPDX-License-Identifier: MIT */
/* Backends: one file and one `static const struct np_backend_ops` each.
 *
 * How to add a backend
 * --------------------
 * 1. Write probes/backend_NAME.c with the ops below, filled with
 *    designated initializers; keep its state in a struct of its own,
 *    hung on be->priv. Never print and never exit: describe failures in
 *    be->err with np_fail() and return the status.
 * 2. Write its issue function for every collective (struct np_call in,
 *    the library's result code out), static in its file, and list them in
 *    its own table indexed by enum np_coll_id, which ops->issue points to.
 * 3. Declare `extern const struct np_backend_ops np_backend_NAME;` below
 *    and add its row to the registry, np_backends[] in probes/backend.c:
 *    its name for --backend, its ops where it is built, the prefix of the
 *    settings its library reads (tune), how auto chooses it and what to do
 *    where it is not built. Nothing else names it: the commands and the
 *    engine ask its capabilities (caps, info).
 * 4. Add the file to Makefile.am (under a conditional if it needs a
 *    library) and a line to the man page's BACKENDS section.
 * A backend receives what it needs (struct np_backend_cfg, struct
 * np_backend_world), never the option struct; the engine asks its
 * capabilities (caps, info), never its name.
 *
 * How to add a collective
 * -----------------------
 * Its row in np_colls[] (common/coll.c: name, byte accounting, busbw
 * factor, limit, expected check result, in-place layout) and its issue
 * function in every backend's table; tests/unit/test_coll checks that no
 * backend built in lacks one.
 *
 * be->world may be a group of the job (nccl-probe isolate measures
 * disjoint groups at the same time): a backend uses only its comm, rank,
 * size, node_comm and hosts, never MPI_COMM_WORLD, and keeps the GPU that
 * world.device names when it is >= 0.
 * The measurement engine (src/measure.c) calls, for every size of every
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

#include <mpi.h>

#include "../common/coll.h"
#include "../common/status.h"
#include "../common/testhooks.h"

#define NP_BE_HOSTLEN 64

/* What a backend needs of the MPI world. */
struct np_backend_world {
	MPI_Comm comm;      /* every rank */
	MPI_Comm node_comm; /* the ranks of this real host (shared memory) */
	int rank, size;
	int node, nnodes;                   /* this rank's node; virtual with virtual_nodes */
	int local_rank, local_size;         /* within that node */
	bool virtual_nodes;                 /* nodes are blocks of --ranks-per-node ranks */
	const char (*hosts)[NP_BE_HOSTLEN]; /* every rank's host name */
	const char *mpi_version;            /* MPI_Get_library_version, first line */
	/* a group of the job (nccl-probe isolate): comm is a sub-communicator
	 * and rank, size, node_comm, hosts are the group's; job_ranks[r] is
	 * the job rank of group rank r, NULL in the job's own world */
	const int *job_ranks;
	int job_size; /* ranks in the whole job */
	int device;   /* GPU this rank uses in the job, -1 = the backend picks */
};

/* What a backend needs of the options. */
struct np_backend_cfg {
	const char *gpu_map;      /* GPU index per local rank ("0,2,4"), or NULL */
	bool graph;               /* capture timed batches in CUDA graphs (NP_CAP_GRAPHS) */
	struct np_test_plan test; /* the test-only switches, read once at start-up */
};

/* The arguments of one collective call, as every backend's issue
 * function receives them: buffers, counts, its communicator and stream. */
struct np_call {
	void *send;   /* input (in place: inside recv, or recv inside send) */
	void *recv;   /* result */
	size_t count; /* elements per rank, or per peer (struct np_layout) */
	int dtype;    /* enum np_dtype */
	int op;       /* enum np_redop */
	int root;
	int rank, nranks;
	bool inplace;
	void *lib_dtype; /* the backend's own data type and op handles */
	void *lib_op;
	void *comm;       /* the backend's communicator (MPI_Comm *, ncclComm_t) */
	void *stream;     /* the backend's stream, or NULL */
	const void *caps; /* backend-private: what the runtime library offers */
};

/* A backend's way to issue one collective: returns the library's result
 * code (MPI_SUCCESS, ncclSuccess = 0). */
typedef int (*np_issue_fn)(const struct np_call *c);

/* One point of the sweep as a backend sees it. */
struct np_bench {
	const struct np_coll *coll;
	enum np_dtype dtype;
	enum np_redop op;
	int root;
	bool inplace;
	struct np_layout lay; /* count, send_bytes, recv_bytes, size */
};

/* Where iteration i of a timed batch reads and writes, as nccl-tests'
 * startColl places it: the buffers' offset moves by one collective's
 * bytes at every iteration, through the buffers allocated for the largest
 * size (steps = how many fit), so that a size that fits in the GPU's L2
 * (or a CPU's cache) is not served from it again and again. Iteration i
 * uses step i % steps: send + k * send_step, recv + k * recv_step (in
 * place one buffer: both move by recv_step). Checks run one iteration,
 * at step 0, where the check pattern is. */
struct np_rotation {
	size_t steps;                /* at least 1 */
	size_t send_step, recv_step; /* bytes */
};
/* send_cap, recv_cap: the bytes allocated (send_cap 0: in place, the
 * recv buffer alone). */
void np_rotation_of(const struct np_bench *b, size_t send_cap, size_t recv_cap,
		    struct np_rotation *r);

/* Capabilities (ops->caps). */
#define NP_CAP_GRAPHS 0x1u /* --graph captures batches in CUDA graphs */
#define NP_CAP_DEVICE 0x2u /* buffers in GPU memory */
#define NP_CAP_ABORT 0x4u  /* abort() interrupts in-flight work */
/* virtual nodes by host id: each its own (the registry's vnode_setup), so
 * the library moves data between them with its network transport */
#define NP_CAP_HOSTID_VNODES 0x8u
/* its settings are environment variables read at init and confirmed in its
 * log (np_nccl_log), which names each call's algorithm and protocol */
#define NP_CAP_SETTINGS_LOG 0x10u
/* its settings are MPI_T control variables, set in the process (Open MPI's
 * MCA) */
#define NP_CAP_SETTINGS_MPIT 0x20u

/* What a backend tells about itself and this rank's device. */
struct np_backend_info {
	char library[128];                    /* e.g. "NCCL 2.28.3" or "Open MPI v4.1.4" */
	char transport[128];                  /* network transport in use, "" if unknown */
	char runtime[128];                    /* e.g. "CUDA driver 13.0, runtime 13.0", "" */
	char calls[160];                      /* how it issues collectives that have several ways,
					       * e.g. "alltoall, gather, scatter: native (ncclAlltoAll, ...)" */
	int device;                           /* CUDA device index, -1 for host memory */
	char bus_id[32];                      /* PCI bus id of the device, "" for host */
	char device_name[96];                 /* "NVIDIA H200", or "host memory" */
	uint64_t mem_avail;                   /* bytes this rank may allocate for buffers */
	uint64_t max_count;                   /* largest element count of one call */
	bool dtype_ok[NP_DTYPE_COUNT];        /* data types the library at hand takes */
	unsigned char ops_ok[NP_DTYPE_COUNT]; /* reductions it takes per type, bit 1 << op */
	char dtype_why[128];                  /* why a type is missing, "" when all are there */
	char host_id[64];                     /* the NCCL host id of a virtual node, "" else */
};

struct np_backend;

struct np_backend_ops {
	const char *name; /* its registry row's name */
	unsigned caps;    /* NP_CAP_* */
	/* How it issues each collective: [NP_COLL_COUNT], indexed by
	 * enum np_coll_id, none NULL */
	const np_issue_fn *issue;
	/* Whether this rank sees a device to run on, before init and without
	 * making a context; NULL for a backend on host memory */
	bool (*device_visible)(void);
	/* Set up on this rank: pick the device, create communicators. The
	 * world is up; collective over the world. */
	enum np_status (*init)(struct np_backend *be);
	/* Allocate buffers of at least send/recv bytes (collective-free);
	 * send_bytes 0: in place, the recv buffer alone. */
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
	struct np_backend_cfg cfg;
	struct np_backend_world world;
	struct np_backend_info info;
	struct np_err err;
	void *priv;
};

extern const struct np_backend_ops np_backend_mpi;
#ifdef HAVE_NCCL
extern const struct np_backend_ops np_backend_nccl;
#endif

/* One row of the backend registry: every backend nccl-probe knows,
 * built in or not. */
struct np_backend_def {
	const char *name;                 /* --backend NAME */
	const struct np_backend_ops *ops; /* NULL: not built in */
	const char *not_built;            /* why it is missing and what to do */
	const char *settings_prefix;      /* its library's settings (tune): "NCCL_" */
	const char *settings_of;          /* "an NCCL" (setting), for messages */
	const char *settings_hint;        /* how to try such a setting */
	/* auto: why it was chosen where every rank sees a device; else why
	 * not ("no GPU visible", " on some ranks" added where this one sees
	 * one; "built without NCCL"), then what auto took instead */
	const char *auto_chosen, *auto_no_device, *auto_not_built, *auto_instead;
	/* NP_CAP_HOSTID_VNODES: give this process virtual node `node`'s own
	 * host id, before the library or its threads start (0, or -1 and errno) */
	int (*vnode_setup)(const char *host, int node);
};

/* The registry, NULL-terminated; the fallback of auto (host memory) first. */
extern const struct np_backend_def *const np_backends[];

/* The row named name ("auto" is not a row), or NULL. */
const struct np_backend_def *np_backend_find(const char *name);
/* The row whose library reads setting `name` (by its prefix), or NULL. */
const struct np_backend_def *np_backend_for_setting(const char *name);
/* "mpi or nccl": the names, for messages. */
const char *np_backend_names(void);
/* Whether a built-in backend sees a device on this rank (no context made). */
bool np_backend_device_visible(void);
/* Every row's virtual-node set-up (NP_CAP_HOSTID_VNODES), before any
 * backend is chosen: 0, or -1 and errno. */
int np_backend_vnode_setup(const char *host, int node);

/* Pick the backend for choice ("auto" or a registry name);
 * devices_everywhere: every rank sees a device (the caller agrees on it
 * over the world). *why says why auto chose what it did. Returns
 * NP_ENOTSUP when the asked backend is not built. */
enum np_status np_backend_select(const char *choice, bool devices_everywhere,
				 const struct np_backend_ops **ops, char *why, size_t whylen,
				 struct np_err *err);

#endif
