/* SPDX-License-Identifier: MIT */
/* The sweep's plan: every collective and size laid out (plan.c), what
 * cannot run skipped with its reason in the sweep's words (no in-place
 * form, no element per rank, past the backend's count, buffers larger
 * than the tightest rank's memory), and the smallest judged size. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "msg.h"
#include "plan.h"
#include "report.h"
#include "sweep_state.h"
#include "watchdog.h"

/* The smallest judged size: --judge-from, or else the first of the
 * largest quarter of the sweep's sizes (at least one). */
uint64_t sweep_judge_from(const struct np_opts *o)
{
	size_t n = np_opts_sizes(o, NULL, 0), k;
	uint64_t *sizes, v;

	if (o->judge_from)
		return o->judge_from;
	sizes = calloc(n, sizeof(*sizes));
	if (!sizes)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %zu sizes", n);
	np_opts_sizes(o, sizes, n);
	k = (n + 3) / 4;
	v = sizes[n - k];
	free(sizes);
	return v;
}

/* A point that cannot run, in the sweep's words: a table line or a note
 * (sweep_skip) */
static void plan_skip(void *ctx, const struct np_plan_skipped *sk)
{
	struct sweep *s = ctx;
	char a[32], m[32];

	switch (sk->why) {
	case NP_PLAN_NO_INPLACE:
		sweep_skip(s, sk->coll, 0, "has no in-place form; run it without --inplace");
		break;
	case NP_PLAN_NO_ELEMENT:
		sweep_skip(s, sk->coll, sk->size,
			   "rounds to 0 %s elements per rank on %d ranks; use a larger size",
			   np_dtype_str(s->o->dtype), s->w->size);
		break;
	case NP_PLAN_COUNT:
		sweep_skip(s, sk->coll, sk->size,
			   "%zu elements exceed the %s backend's largest count (%llu); use a larger --dtype or a smaller size",
			   sk->lay->count, s->be.ops->name, (unsigned long long)sk->max_count);
		break;
	case NP_PLAN_SAME_SIZE:
		sweep_skip(s, sk->coll, sk->size,
			   "rounds to %zu B, as the size before it, on %d ranks (measured once); use a step of %zu B or more",
			   sk->lay->size, s->w->size, sk->lay->size / sk->lay->count);
		break;
	case NP_PLAN_MEMORY:
		np_human_size(sk->need, a, sizeof(a));
		np_human_size(sk->mem, m, sizeof(m));
		sweep_skip(s, sk->coll, sk->size,
			   "needs %s of buffers per rank, %s available on the tightest rank", a, m);
		break;
	}
}

/* Lay out every point (plan.c) under the tightest rank's memory; skip
 * what cannot run; returns the points to run. */
struct np_plan_point *sweep_plan(struct sweep *s, size_t *npoints, size_t *max_send,
				 size_t *max_recv)
{
	struct np_plan_limits lim = { .nranks = s->w->size,
				      .mem = s->be.info.mem_avail,
				      .max_count = s->be.info.max_count,
				      .skip = plan_skip,
				      .ctx = s };

	np_watchdog_arrive(s->w->comm, "planning the sweep");
	MPI_Allreduce(MPI_IN_PLACE, &lim.mem, 1, MPI_UINT64_T, MPI_MIN, s->w->comm);
	return np_plan(s->o, &lim, npoints, max_send, max_recv);
}
