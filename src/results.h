/* SPDX-License-Identifier: MIT */
/* The results model: a sweep's rows, what it skipped, its ranks, its
 * verdict and notes; the report that every writer (table, JSON, CSV,
 * nccl-tests, OpenMetrics) and compare read. The sweep fills it. */
#ifndef NP_RESULTS_H
#define NP_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../probes/backend.h"
#include "../topo/bwlimits.h"
#include "../topo/health.h"
#include "measure.h"
#include "notes.h"
#include "opts.h"
#include "run_record.h"
#include "world.h"

/* A size or collective that was not run, and why. */
struct np_skip {
	const struct np_coll *coll;
	uint64_t size; /* 0 = the whole collective */
	char reason[192];
};

/* What one rank reports about itself (gathered to rank 0). */
struct np_rank_info {
	int rank, local_rank, node, pid, device;
	char host[NP_HOSTLEN];
	char bus_id[32];
	char device_name[96];
};

/* One failing row or reason of the verdict, as data. code: "data_errors"
 * (value: wrong elements, threshold 0), "min_busbw" (busbw and the floor,
 * GB/s), "min_eff" (eff and the floor, fractions), "inconclusive_busbw",
 * "inconclusive_eff" (the median's figure below the floor, its interval
 * reaching it: as min_busbw, min_eff), "eff_unknown" (value
 * NaN, the floor), "not_judged" (a collective without a judged row: size 0,
 * value NaN, threshold --judge-from in bytes), "interrupted" (no collective,
 * size 0, value and threshold NaN). NaN and size 0 are written as null. */
struct np_verdict_detail {
	const char *code;
	const struct np_coll *coll; /* NULL for the whole run */
	uint64_t size;
	double value, threshold;
};

struct np_sweep_report {
	const struct np_opts *opts;
	const struct np_world *world;
	struct np_run_record run;
	const char *backend; /* "mpi" or "nccl" */
	char backend_why[192];
	struct np_backend_info info;  /* rank 0's */
	struct np_rank_info *ranks;   /* world->size entries (rank 0 only) */
	struct np_gpu_clocks *clocks; /* world->size entries (rank 0 only): each rank's GPU
				       * over the sweep; NULL when it did not end normally */
	char **nccl_env;              /* NCCL_* variables in effect, NULL-terminated */
	struct np_result *rows;
	size_t nrows, rows_cap;
	struct np_skip *skips;
	size_t nskips, skips_cap;
	struct np_bw_facts bw; /* the world's link limits: min over ranks */
	bool bw_known;         /* discovery ran (bw may still hold zeros) */
	int bw_gpu_rank;       /* rank whose GPU link is the slowest */
	struct np_notes notes; /* header notes (e.g. hosts that look alike) */
	uint64_t judge_from;   /* rows of this size and above are judged */
	bool complete;         /* every planned row ran */
	bool interrupted;      /* stopped by a signal */
	int exit_code;         /* verdict */
	/* what the verdict judged, "from 8 MiB up: allreduce busbw >= 100
	 * GB/s; ..." ("" when no threshold or baseline judged anything: the
	 * verdict is then "not judged", whatever the exit code) */
	char judged[512];
	struct np_notes verdict;           /* reasons for a non-zero verdict */
	struct np_verdict_detail *details; /* each failing row or reason */
	size_t ndetails, details_cap;
	double wall_seconds;
};

#endif
