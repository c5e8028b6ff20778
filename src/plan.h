/* SPDX-License-Identifier: MIT */
/* The points a run measures: every collective asked for at every size,
 * laid out for the job's ranks, less those that cannot run, each named
 * with its reason; and the buffers the largest point needs. The sweep
 * and tune share it and say the reasons in their own words. */
#ifndef NP_PLAN_H
#define NP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/coll.h"
#include "opts.h"

struct np_plan_point {
	const struct np_coll *coll;
	struct np_layout lay;
	bool inplace;
};

enum np_plan_skip {
	NP_PLAN_NO_INPLACE, /* --inplace, and the collective has no in-place form */
	NP_PLAN_NO_ELEMENT, /* the size rounds to no element per rank */
	NP_PLAN_COUNT,      /* more elements than the backend's largest count */
	NP_PLAN_MEMORY,     /* buffers larger than the memory each rank can give */
	NP_PLAN_SAME_SIZE,  /* rounds to the size of the collective's point before it */
};

struct np_plan_skipped {
	enum np_plan_skip why;
	const struct np_coll *coll;
	uint64_t size;               /* the size asked for; 0 for NP_PLAN_NO_INPLACE (every size) */
	const struct np_layout *lay; /* NULL for NP_PLAN_NO_INPLACE */
	uint64_t need, mem; /* NP_PLAN_MEMORY: buffer bytes per rank, and the memory given */
	uint64_t max_count; /* NP_PLAN_COUNT: the backend's largest count */
};

struct np_plan_limits {
	int nranks;
	uint64_t mem;       /* bytes of buffers each rank can hold */
	uint64_t max_count; /* largest element count of one call; 0: no limit */
	/* told of each point that cannot run, in the order of the plan */
	void (*skip)(void *ctx, const struct np_plan_skipped *sk);
	void *ctx;
};

/* Buffer bytes per rank of a point: send and receive, or in place the
 * larger of the two. */
uint64_t np_plan_need(const struct np_layout *lay, bool inplace);

/* Whether a run measures both forms of each collective that has an
 * in-place one: --format nccl-tests without --inplace, as nccl-tests
 * measures out of place then in place at every size. */
bool np_plan_both_forms(const struct np_opts *o);

/* The points of o's collectives and sizes under lim, in order
 * (collective, then size; out of place before in place where a run
 * measures both); *n of them, calloc'd (the caller frees).
 * *max_send and *max_recv are the buffers the largest needs. Aborts when
 * out of memory. */
struct np_plan_point *np_plan(const struct np_opts *o, const struct np_plan_limits *lim, size_t *n,
			      size_t *max_send, size_t *max_recv);

#endif
