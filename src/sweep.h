/* SPDX-License-Identifier: MIT */
/* The sweep: its rows, its notes and the whole report that the output
 * sinks (table, JSON, CSV) write. */
#ifndef NP_SWEEP_H
#define NP_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../probes/backend.h"
#include "../topo/limits.h"
#include "opts.h"
#include "world.h"

/* One measured row: a collective at one size. */
struct np_result {
	const struct np_coll *coll;
	enum np_dtype dtype;
	enum np_redop op;
	int root;             /* -1 when the collective has none */
	bool inplace;
	struct np_layout lay;
	double t_med, t_min, t_max; /* seconds per iteration, slowest rank */
	double ci_half_rel;   /* 95% CI half-width of the median / median */
	double algbw, busbw;  /* GB/s from t_med */
	bool checked;
	uint64_t wrong;       /* wrong elements summed over ranks */
	double limit;         /* busbw limit GB/s; 0 = unknown */
	double eff;           /* busbw / limit; NaN when unknown */
	int samples, iters;
	bool converged;       /* --iters auto met the 1% target */
};

/* A size or collective that was not run, and why. */
struct np_skip {
	const struct np_coll *coll;
	uint64_t size;  /* 0 = the whole collective */
	char reason[192];
};

/* What one rank reports about itself (gathered to rank 0). */
struct np_rank_info {
	int rank, local_rank, node, pid, device;
	char host[NP_HOSTLEN];
	char bus_id[32];
	char device_name[96];
};

struct np_sweep_report {
	const struct np_opts *opts;
	const struct np_world *world;
	const char *backend;        /* "mpi" or "nccl" */
	char backend_why[192];
	struct np_backend_info info; /* rank 0's */
	struct np_rank_info *ranks;  /* world->size entries (rank 0 only) */
	char **nccl_env;             /* NCCL_* variables in effect, NULL-terminated */
	struct np_result *rows;
	size_t nrows, rows_cap;
	struct np_skip *skips;
	size_t nskips, skips_cap;
	struct np_bw_facts bw;       /* the world's link limits: min over ranks */
	bool bw_known;               /* discovery ran (bw may still hold zeros) */
	int bw_gpu_rank;             /* rank whose GPU link is the slowest */
	char notes[8][256];          /* header notes (e.g. hosts that look alike) */
	int nnotes;
	bool complete;               /* every planned row ran */
	bool interrupted;            /* stopped by a signal */
	int exit_code;               /* verdict */
	char verdict[8][256];        /* reasons for a non-zero verdict */
	int nverdict;
	double wall_seconds;
};

#endif
