/* SPDX-License-Identifier: MIT */
/* The points a run measures (plan.h). */
#include "config.h"

#include <stdlib.h>

#include "../common/status.h"
#include "msg.h"
#include "plan.h"

uint64_t np_plan_need(const struct np_layout *lay, bool inplace)
{
	size_t big = lay->send_bytes > lay->recv_bytes ? lay->send_bytes : lay->recv_bytes;
	return inplace ? big : (uint64_t)lay->send_bytes + lay->recv_bytes;
}

/* Whether one size of one collective can run; if not, lim hears why. */
static bool point_fits(const struct np_plan_limits *lim, bool inplace, const struct np_coll *coll,
		       uint64_t size, const struct np_layout *lay)
{
	struct np_plan_skipped sk = {
		.coll = coll, .size = size, .lay = lay, .mem = lim->mem, .max_count = lim->max_count
	};

	if (lay->count == 0)
		sk.why = NP_PLAN_NO_ELEMENT;
	else if (lim->max_count && lay->count > lim->max_count)
		sk.why = NP_PLAN_COUNT;
	else if ((sk.need = np_plan_need(lay, inplace)) > lim->mem)
		sk.why = NP_PLAN_MEMORY;
	else
		return true;
	if (lim->skip)
		lim->skip(lim->ctx, &sk);
	return false;
}

static void grow_buffers(const struct np_layout *lay, bool inplace, size_t *max_send,
			 size_t *max_recv)
{
	size_t s = inplace ? 0 : lay->send_bytes;
	size_t r = inplace ? (size_t)np_plan_need(lay, true) : lay->recv_bytes;

	if (s > *max_send)
		*max_send = s;
	if (r > *max_recv)
		*max_recv = r;
}

bool np_plan_both_forms(const struct np_opts *o)
{
	return o->format == NP_FMT_NCCLTESTS && !o->inplace;
}

struct np_plan_point *np_plan(const struct np_opts *o, const struct np_plan_limits *lim, size_t *n,
			      size_t *max_send, size_t *max_recv)
{
	size_t elt = np_dtypes[o->dtype].size, nsizes = np_opts_sizes(o, NULL, 0), np = 0;
	uint64_t *sizes = calloc(nsizes ? nsizes : 1, sizeof(*sizes));
	struct np_plan_point *pts = calloc(2 * nsizes * NP_COLL_COUNT + 1, sizeof(*pts));
	bool both = np_plan_both_forms(o);

	if (!sizes || !pts)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %zu sizes", nsizes);
	np_opts_sizes(o, sizes, nsizes);
	*max_send = *max_recv = 0;
	for (int c = 0; c < NP_COLL_COUNT; c++) {
		const struct np_coll *coll = &np_colls[c];
		if (!o->colls[c])
			continue;
		if (o->inplace && !(coll->flags & NP_COLL_F_INPLACE)) {
			struct np_plan_skipped sk = { .why = NP_PLAN_NO_INPLACE, .coll = coll };
			if (lim->skip)
				lim->skip(lim->ctx, &sk);
			continue;
		}
		for (size_t i = 0; i < nsizes; i++) {
			struct np_layout lay;
			np_coll_layout(coll, sizes[i], elt, lim->nranks, &lay);
			size_t last = both && np > 1 && pts[np - 1].inplace ? np - 2 : np - 1;
			if (np > 0 && pts[last].coll == coll && pts[last].lay.size == lay.size) {
				/* a step below the collective's granularity: one point */
				struct np_plan_skipped sk = { .why = NP_PLAN_SAME_SIZE,
							      .coll = coll,
							      .size = sizes[i],
							      .lay = &lay };
				if (lim->skip)
					lim->skip(lim->ctx, &sk);
				continue;
			}
			if (!point_fits(lim, o->inplace, coll, sizes[i], &lay))
				continue;
			pts[np].coll = coll;
			pts[np].lay = lay;
			pts[np].inplace = o->inplace;
			np++;
			grow_buffers(&lay, o->inplace, max_send, max_recv);
			if (both && (coll->flags & NP_COLL_F_INPLACE)) {
				/* out of place needs the larger buffers: it fits */
				pts[np] = pts[np - 1];
				pts[np++].inplace = true;
				grow_buffers(&lay, true, max_send, max_recv);
			}
		}
	}
	free(sizes);
	*n = np;
	return pts;
}
