/* SPDX-License-Identifier: MIT */
/* The sweep's plan: every collective and size laid out, what cannot run
 * skipped with its reason (no in-place form, no element per rank, past
 * the backend's count, buffers larger than the tightest rank's memory),
 * the buffers the largest point needs, and the smallest judged size. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "msg.h"
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

/* Lay out every point; skip what cannot run; returns the points to run. */
struct point *sweep_plan(struct sweep *s, size_t *npoints, size_t *max_send, size_t *max_recv)
{
	const struct np_opts *o = s->o;
	size_t elt = np_dtypes[o->dtype].size, nsizes, np = 0;
	uint64_t *sizes, mem = s->be.info.mem_avail;
	struct point *pts;

	np_watchdog_arrive(s->w->comm, "planning the sweep");
	MPI_Allreduce(MPI_IN_PLACE, &mem, 1, MPI_UINT64_T, MPI_MIN, s->w->comm);
	nsizes = np_opts_sizes(o, NULL, 0);
	sizes = calloc(nsizes, sizeof(*sizes));
	pts = calloc(nsizes * NP_COLL_COUNT + 1, sizeof(*pts));
	if (!sizes || !pts)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %zu sizes", nsizes);
	np_opts_sizes(o, sizes, nsizes);
	*max_send = *max_recv = 0;
	for (int c = 0; c < NP_COLL_COUNT; c++) {
		const struct np_coll *coll = &np_colls[c];
		if (!o->colls[c])
			continue;
		if (o->inplace && !(coll->flags & NP_COLL_F_INPLACE)) {
			sweep_skip(s, coll, 0, "has no in-place form; run it without --inplace");
			continue;
		}
		for (size_t i = 0; i < nsizes; i++) {
			struct np_layout lay;
			uint64_t need;
			np_coll_layout(coll, sizes[i], elt, s->w->size, &lay);
			if (lay.count == 0) {
				sweep_skip(s, coll, sizes[i],
					   "rounds to 0 %s elements per rank on %d ranks; use a larger size",
					   np_dtype_str(o->dtype), s->w->size);
				continue;
			}
			if (s->be.info.max_count && lay.count > s->be.info.max_count) {
				sweep_skip(s, coll, sizes[i],
					   "%zu elements exceed the %s backend's largest count (%llu); use a larger --dtype or a smaller size",
					   lay.count, s->be.ops->name,
					   (unsigned long long)s->be.info.max_count);
				continue;
			}
			need = o->inplace ? (lay.send_bytes > lay.recv_bytes ? lay.send_bytes : lay.recv_bytes)
					  : lay.send_bytes + lay.recv_bytes;
			if (need > mem) {
				char a[32], m[32];
				np_human_size(need, a, sizeof(a));
				np_human_size(mem, m, sizeof(m));
				sweep_skip(s, coll, sizes[i],
					   "needs %s of buffers per rank, %s available on the tightest rank",
					   a, m);
				continue;
			}
			pts[np].coll = coll;
			pts[np].lay = lay;
			np++;
			if (o->inplace) {
				size_t big = lay.send_bytes > lay.recv_bytes ? lay.send_bytes : lay.recv_bytes;
				if (big > *max_recv)
					*max_recv = big;
			} else {
				if (lay.send_bytes > *max_send)
					*max_send = lay.send_bytes;
				if (lay.recv_bytes > *max_recv)
					*max_recv = lay.recv_bytes;
			}
		}
	}
	free(sizes);
	*npoints = np;
	return pts;
}
