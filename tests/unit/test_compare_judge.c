/* SPDX-License-Identifier: MIT */
/* Unit tests of compare's judging (src/compare_judge.c) on runs built in
 * memory: which rows pair, each row's verdict against --min-change and
 * --max-regression, too few samples, runs that cannot be compared, the
 * bandwidth-bound rows and the summary of a group. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/compare_judge.h"
#include "tap.h"

#define MAXROWS 8
#define NS 12

/* A run of one collective (allreduce, float, sum), its rows' sizes and
 * each row's NS sample times around t (relative noise +-1%, the same
 * pattern in every row), sorted by key as compare_read sorts them. */
struct run {
	struct np_cmp_run r;
	struct np_cmp_row rows[MAXROWS];
	struct np_cmp_row *sorted[MAXROWS];
	double logt[MAXROWS][NS];
};

static void mkrun(struct run *x, const char *backend, long long ranks, int nrows,
		  const uint64_t *sizes, const double *t, int ns)
{
	memset(x, 0, sizeof(*x));
	x->r.path = "run.json";
	x->r.backend = backend;
	x->r.dtype = "float";
	x->r.ranks = ranks;
	x->r.nodes = 1;
	for (int i = 0; i < nrows; i++) {
		struct np_cmp_row *w = &x->rows[i];
		w->coll = "allreduce";
		w->type = "float";
		w->redop = "sum";
		w->root = -1;
		w->size = sizes[i];
		w->time = t[i];
		w->judged = -1;
		for (int k = 0; k < ns; k++)
			x->logt[i][k] = log(t[i] * (1 + 0.01 * ((k * 7) % NS - NS / 2) / (NS / 2)));
		/* sorted, as the reader stores them */
		for (int k = 1; k < ns; k++)
			for (int m = k; m > 0 && x->logt[i][m] < x->logt[i][m - 1]; m--) {
				double s = x->logt[i][m];
				x->logt[i][m] = x->logt[i][m - 1];
				x->logt[i][m - 1] = s;
			}
		w->logt = x->logt[i];
		w->nsamples = ns;
		x->sorted[i] = w;
	}
	x->r.rows = x->rows;
	x->r.nrows = (size_t)nrows;
	x->r.sorted = x->sorted;
}

/* run A and run B, each section's */
static struct run a, b;

/* pairing and comparability; shifts judged at the same speed, slower, one fast batch, spread */
static void pairs_and_shifts(void)
{
	struct np_cmp_pair p[MAXROWS];
	const uint64_t sz[4] = { 1024, 2048, 4096, 8192 }, szb[4] = { 2048, 4096, 8192, 16384 };
	const double ta[4] = { 1e-5, 2e-5, 4e-5, 8e-5 };
	double tb[4];
	char why[256];
	size_t n;

	/* rows pair by key: A's 1K..8K with B's 2K..16K share 2K, 4K, 8K */
	mkrun(&a, "mpi", 2, 4, sz, ta, NS);
	mkrun(&b, "mpi", 2, 4, szb, ta, NS);
	n = np_cmp_pair_rows(&a.r, &b.r, p);
	tap_is_int((int)n, 3, "A 1K-8K, B 2K-16K: three rows in common");
	tap_ok(n == 3 && p[0].a->size == 2048 && p[0].b->size == 2048 && p[2].a->size == 8192,
	       "  paired by size, in key order");

	/* runs that cannot be compared */
	mkrun(&b, "mpi", 4, 4, sz, ta, NS);
	tap_ok(np_cmp_incomparable(&a.r, &b.r, why, sizeof(why)) &&
		       strstr(why, "2 ranks and B on 4"),
	       "2 ranks against 4: not comparable (%s)", why);
	mkrun(&b, "nccl", 2, 4, sz, ta, NS);
	tap_ok(np_cmp_incomparable(&a.r, &b.r, why, sizeof(why)) &&
		       strstr(why, "mpi backend and B on the nccl"),
	       "mpi against nccl: not comparable (%s)", why);
	mkrun(&b, "mpi", 2, 4, sz, ta, NS);
	tap_ok(!np_cmp_incomparable(&a.r, &b.r, why, sizeof(why)),
	       "the same world and backend: comparable");

	/* the same times: no difference, no regression */
	n = np_cmp_pair_rows(&a.r, &b.r, p);
	tap_is_int(np_cmp_judge_pairs(p, n, 0.02, 0.05), 4, "the same runs: every row compared");
	tap_ok(p[0].v == NP_CV_NONE && p[3].v == NP_CV_NONE && !p[3].regression,
	       "  no significant difference");
	tap_is_dbl(p[3].speed, 1, 1e-9, "  speed 1");

	/* B 20% slower at every size: slower, a regression beyond 5%, not
	 * beyond 50% */
	for (int i = 0; i < 4; i++)
		tb[i] = ta[i] * 1.25;
	mkrun(&b, "mpi", 2, 4, sz, tb, NS);
	n = np_cmp_pair_rows(&a.r, &b.r, p);
	np_cmp_judge_pairs(p, n, 0.02, 0.05);
	tap_ok(p[3].v == NP_CV_SLOWER && p[3].regression,
	       "B 1.25x the time: slower, a regression beyond 5%% (speed %.3f)", p[3].speed);
	tap_is_dbl(p[3].speed, 0.8, 1e-6, "  speed 0.8 (A's time / B's)");
	tap_ok(p[3].speed_lo < 0.8 && p[3].speed_hi > 0.8 && p[3].speed_hi < 1,
	       "  its interval holds 0.8 and excludes 1");
	np_cmp_judge_pairs(p, n, 0.02, 0.5);
	tap_ok(p[3].v == NP_CV_SLOWER && !p[3].regression,
	       "  with --max-regression 50: slower, no regression");
	tap_ok(!p[3].undecided, "  and decided: its interval (%.3f to %.3f) shows it within 50%%",
	       p[3].speed_lo, p[3].speed_hi);

	/* B 1.5x the time in every batch but one, which ran at A's speed:
	 * slower, but within 5% once (a busy host as much as a slow node):
	 * undecided against a margin, never a regression; without a margin
	 * the significance test alone decides */
	for (int i = 0; i < 4; i++)
		tb[i] = ta[i] * 1.5;
	mkrun(&b, "mpi", 2, 4, sz, tb, NS);
	b.logt[3][0] = log(ta[3]); /* the fastest stays first */
	n = np_cmp_pair_rows(&a.r, &b.r, p);
	np_cmp_judge_pairs(p, n, 0.02, 0.05);
	tap_ok(p[3].v == NP_CV_SLOWER && !p[3].regression && p[3].undecided,
	       "B 1.5x the time, one batch at A's: slower, undecided against --max-regression 5, no regression (speed %.3f)",
	       p[3].speed);
	tap_ok(p[2].regression && !p[2].undecided,
	       "  the row beside it, every batch 1.5x: a regression");
	np_cmp_judge_pairs(p, n, 0.02, 0);
	tap_ok(p[3].regression, "  with no margin (--max-regression 0): a regression");

	/* B as fast, but its times spread 0.4x to 1.6x: no significant
	 * difference, yet the interval reaches a slowdown beyond 20%: the
	 * gate with that margin cannot pass it (undecided); without a margin
	 * the significance test alone decides */
	mkrun(&b, "mpi", 2, 4, sz, ta, NS);
	for (int k = 0; k < NS; k++)
		b.logt[3][k] = log(ta[3] * (0.4 + 1.2 * k / (NS - 1)));
	n = np_cmp_pair_rows(&a.r, &b.r, p);
	np_cmp_judge_pairs(p, n, 0.02, 0.2);
	tap_ok(p[3].v == NP_CV_NONE && !p[3].regression && p[3].undecided,
	       "B's times 0.4x to 1.6x A's: not significant, undecided against --max-regression 20 (%.3f to %.3f)",
	       p[3].speed_lo, p[3].speed_hi);
	tap_ok(!p[0].undecided, "  a row of tight times beside it is decided");
	np_cmp_judge_pairs(p, n, 0.02, 0);
	tap_ok(!p[3].undecided && !p[3].regression,
	       "  with no margin (--max-regression 0): not undecided, no regression");
}

/* shifts under --min-change, faster, and too few samples */
static void small_shifts(void)
{
	struct np_cmp_pair p[MAXROWS];
	const uint64_t sz[4] = { 1024, 2048, 4096, 8192 };
	const double ta[4] = { 1e-5, 2e-5, 4e-5, 8e-5 };
	double tb[4];
	size_t n;

	/* B 2% slower, significant, but under --min-change 5%: no difference */
	for (int i = 0; i < 4; i++)
		tb[i] = ta[i] * 1.02;
	mkrun(&b, "mpi", 2, 4, sz, tb, NS);
	n = np_cmp_pair_rows(&a.r, &b.r, p);
	np_cmp_judge_pairs(p, n, 0.05, 0.01);
	tap_ok(p[3].v == NP_CV_NONE && !p[3].regression,
	       "B 2%% slower against --min-change 5%%: no difference");
	np_cmp_judge_pairs(p, n, 0.01, 0.5);
	tap_ok(p[3].v == NP_CV_SLOWER, "  against --min-change 1%%: slower");

	/* B 25% faster: faster, never a regression */
	for (int i = 0; i < 4; i++)
		tb[i] = ta[i] * 0.8;
	mkrun(&b, "mpi", 2, 4, sz, tb, NS);
	n = np_cmp_pair_rows(&a.r, &b.r, p);
	np_cmp_judge_pairs(p, n, 0.02, 0.05);
	tap_ok(p[3].v == NP_CV_FASTER && !p[3].regression, "B 0.8x the time: faster (speed %.3f)",
	       p[3].speed);

	/* two sample times a row: too few, not compared */
	mkrun(&b, "mpi", 2, 4, sz, tb, 2);
	n = np_cmp_pair_rows(&a.r, &b.r, p);
	tap_is_int(np_cmp_judge_pairs(p, n, 0.02, 0.05), 0,
		   "B with 2 sample times a row: none compared");
	tap_ok(p[0].v == NP_CV_FEW && !p[0].regression, "  too few samples, no regression");
	tap_ok(p[0].undecided,
	       "  and with a margin (--max-regression 5) undecided: not shown within it");
	np_cmp_judge_pairs(p, n, 0.02, 0);
	tap_ok(!p[0].undecided, "  without a margin, not undecided");
}

/* bandwidth-bound rows and the summary of a group */
static void bw_bound_and_summary(void)
{
	struct np_cmp_pair p[MAXROWS];
	struct np_cmp_summary sum[MAXROWS];
	const uint64_t sz[4] = { 1024, 2048, 4096, 8192 };
	const double ta[4] = { 1e-5, 2e-5, 4e-5, 8e-5 };
	double tb[4];
	size_t n;

	/* bandwidth-bound rows: without "judged" or judge_from, the largest
	 * quarter of the group (1 of 4); with the reports' judged, theirs */
	mkrun(&b, "mpi", 2, 4, sz, ta, NS);
	n = np_cmp_pair_rows(&a.r, &b.r, p);
	np_cmp_judge_pairs(p, n, 0.02, 0.05);
	np_cmp_mark_bw_bound(p, n, &a.r, &b.r);
	tap_ok(!p[0].bw_bound && !p[2].bw_bound && p[3].bw_bound,
	       "no judged sizes: the largest quarter is bandwidth-bound");
	a.r.judge_from = 2048;
	np_cmp_mark_bw_bound(p, n, &a.r, &b.r);
	tap_ok(!p[0].bw_bound && p[1].bw_bound && p[3].bw_bound,
	       "A judged from 2 KiB: 2 KiB up are");
	a.r.judge_from = 0;
	for (int i = 0; i < 4; i++)
		a.rows[i].judged = b.rows[i].judged = i >= 2;
	b.rows[2].judged = 0;
	np_cmp_mark_bw_bound(p, n, &a.r, &b.r);
	tap_ok(!p[2].bw_bound && p[3].bw_bound,
	       "the rows' judged: bandwidth-bound only where both judged it");

	/* the summary: one group; B slower at its bandwidth-bound rows only */
	for (int i = 0; i < 4; i++)
		tb[i] = ta[i] * (i >= 2 ? 1.25 : 1);
	mkrun(&b, "mpi", 2, 4, sz, tb, NS);
	for (int i = 0; i < 4; i++)
		a.rows[i].judged = b.rows[i].judged = -1;
	n = np_cmp_pair_rows(&a.r, &b.r, p);
	np_cmp_judge_pairs(p, n, 0.02, 0.05);
	a.r.judge_from = 4096;
	np_cmp_mark_bw_bound(p, n, &a.r, &b.r);
	tap_is_int(np_cmp_summarize(p, n, sum, 0.02), 1, "one collective, one summary");
	tap_ok(sum[0].have && sum[0].v == NP_CV_SLOWER && sum[0].nrows == 2 && sum[0].nbelow == 2 &&
		       sum[0].from == 4096,
	       "  slower over its 2 bandwidth-bound rows from 4 KiB, 2 rows below");
	tap_is_dbl(sum[0].speed, 0.8, 1e-6, "  the common speed is 0.8");
	tap_is_str(np_cmp_verdict_str(sum[0].v), "slower", "  said 'slower'");
}

int main(void)
{
	pairs_and_shifts();
	small_shifts();
	bw_bound_and_summary();
	return tap_done();
}
