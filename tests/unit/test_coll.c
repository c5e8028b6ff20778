/* SPDX-License-Identifier: MIT */
/* Unit tests of the collective vocabulary (common/coll.c) and of its
 * wiring into the backends: every row is where its id says, names are
 * unique and found, the busbw factors and byte accounting are DESIGN.md's,
 * and every backend built in has an issue function for every collective. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "../../common/coll.h"
#include "../../probes/backend.h"
#include "tap.h"

/* DESIGN.md "Collectives and bandwidth": busbw = algbw x this, on n ranks */
static double design_factor(enum np_coll_id id, int n)
{
	switch (id) {
	case NP_COLL_ALLREDUCE: return 2.0 * (n - 1) / n;
	case NP_COLL_BROADCAST:
	case NP_COLL_REDUCE:
	case NP_COLL_SENDRECV: return 1.0;
	default: return (double)(n - 1) / n;
	}
}

/* DESIGN.md: which collectives count count*elt*n bytes in size */
static int design_size_n(enum np_coll_id id)
{
	return id == NP_COLL_ALLGATHER || id == NP_COLL_REDUCESCATTER || id == NP_COLL_ALLTOALL ||
	       id == NP_COLL_GATHER || id == NP_COLL_SCATTER;
}

static void test_rows(void)
{
	int ids = 0, unique = 1, found = 0, inplace_ok = 1;

	for (int i = 0; i < NP_COLL_COUNT; i++) {
		const struct np_coll *c = &np_colls[i];
		ids += c->name && c->name[0] && (int)c->id == i;
		for (int j = 0; j < i; j++)
			unique &= strcmp(np_colls[j].name, c->name) != 0;
		found += np_coll_find(c->name) == c && !strcmp(np_coll_str(c->id), c->name);
		/* an in-place layout other than "same buffer" only where the form exists */
		if (c->inplace_at != NP_INPLACE_SAME && !(c->flags & NP_COLL_F_INPLACE))
			inplace_ok = 0;
	}
	tap_is_int(ids, NP_COLL_COUNT, "every row has a name and sits at its id");
	tap_ok(unique, "collective names are unique");
	tap_is_int(found, NP_COLL_COUNT, "np_coll_find and np_coll_str find every row");
	tap_ok(np_coll_find("allreduce ") == NULL && np_coll_find("") == NULL,
	       "an unknown name is not found");
	tap_ok(!strcmp(np_coll_str((enum np_coll_id)NP_COLL_COUNT), "unknown"),
	       "np_coll_str of an id past the table is \"unknown\"");
	tap_ok(inplace_ok, "an in-place layout is given only to collectives with an in-place form");
	tap_ok(!(np_colls[NP_COLL_ALLTOALL].flags & NP_COLL_F_INPLACE) &&
		       !(np_colls[NP_COLL_SENDRECV].flags & NP_COLL_F_INPLACE),
	       "alltoall and sendrecv have no in-place form (as NCCL)");
}

static void test_accounting(void)
{
	int bad_factor = 0, bad_size = 0;

	for (int i = 0; i < NP_COLL_COUNT; i++)
		for (int n = 1; n <= 65536; n = n < 16 ? n + 1 : n * 4) {
			const struct np_coll *c = &np_colls[i];
			struct np_layout l;
			size_t elt = 4, size = 1u << 20;

			if (!(np_busbw(c, n, 10.0) >= 10.0 * design_factor(c->id, n) - 1e-9 &&
			      np_busbw(c, n, 10.0) <= 10.0 * design_factor(c->id, n) + 1e-9))
				bad_factor++;
			np_coll_layout(c, size, elt, n, &l);
			/* size is count*elt, or count*elt*n for those that count every rank's block
			 */
			if (l.size != l.count * elt * (design_size_n(c->id) ? (size_t)n : 1) ||
			    l.size > size ||
			    (l.count &&
			     l.size + elt * (design_size_n(c->id) ? (size_t)n : 1) <= size))
				bad_size++;
		}
	tap_is_int(bad_factor, 0, "busbw factors are DESIGN.md's on 1..65536 ranks");
	tap_is_int(bad_size, 0,
		   "the size column counts count*elt (x n where DESIGN.md says), rounded down");
	tap_is_dbl(np_algbw(1000000000, 2.0), 0.5, 1e-12, "algbw: 1e9 bytes in 2 s is 0.5 GB/s");
	tap_is_dbl(np_algbw(100, 0.0), 0.0, 0, "algbw of no time is 0, not infinite");
}

static void test_backend_issue(void)
{
	int built = 0;

	for (int i = 0; np_backends[i]; i++) {
		const struct np_backend_ops *ops = np_backends[i]->ops;
		int have = 0;

		if (!ops)
			continue;
		built++;
		tap_ok(ops->issue != NULL, "backend %s has an issue table", np_backends[i]->name);
		if (!ops->issue)
			continue;
		for (int c = 0; c < NP_COLL_COUNT; c++)
			have += ops->issue[c] != NULL;
		tap_is_int(have, NP_COLL_COUNT, "backend %s issues every collective of the table",
			   np_backends[i]->name);
	}
	tap_ok(built >= 1, "at least one backend is built in (%d)", built);
}

int main(void)
{
	test_rows();
	test_accounting();
	test_backend_issue();
	return tap_done();
}
