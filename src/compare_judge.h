/* SPDX-License-Identifier: MIT */
/* Compare's judging (src/compare_judge.c), pure: the rows two reports
 * share, each row's speed of B over A with its interval and verdict,
 * the bandwidth-bound rows and one summary per group of sizes. The
 * compare command and a sweep's --baseline both judge through it
 * (compare.c); it prints nothing. */
#ifndef NP_COMPARE_JUDGE_H
#define NP_COMPARE_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare_read.h"
#include "stats.h"

#define NP_CMP_ALPHA 0.05    /* 1 - the intervals' confidence, before Bonferroni */
#define NP_CMP_MIN_SAMPLES 3 /* sample times a row needs on each side */

enum np_cmp_verdict { NP_CV_NONE, NP_CV_FASTER, NP_CV_SLOWER, NP_CV_FEW };

const char *np_cmp_verdict_str(enum np_cmp_verdict v);

/* A pair of matching rows and what compare makes of them. */
struct np_cmp_pair {
	const struct np_cmp_row *a, *b;
	bool bw_bound;
	struct np_shift sh;               /* of log(tB) - log(tA) */
	double speed, speed_lo, speed_hi; /* B/A = exp(-shift) */
	enum np_cmp_verdict v;
	bool regression; /* beyond --max-regression */
	bool undecided;  /* with a --max-regression above 0: not a
			  * regression, yet its interval reaches below
			  * 1 - max_regression (the gate cannot pass it) */
};

struct np_cmp_summary {
	const char *coll, *type, *redop;
	long long root;
	bool inplace;
	uint64_t from; /* smallest bandwidth-bound size */
	int nrows, nbelow, below_faster, below_slower, below_few;
	bool have; /* a bandwidth-bound row with samples */
	struct np_shift sh;
	double speed, speed_lo, speed_hi;
	enum np_cmp_verdict v;
};

/* Runs that cannot be compared (world, backend, data type): NULL, or the
 * reason written to BUF. */
const char *np_cmp_incomparable(const struct np_cmp_run *a, const struct np_cmp_run *b, char *buf,
				size_t len);
/* The rows of A and B with the same key, into P (room for A's rows), in
 * key order; returns how many. */
size_t np_cmp_pair_rows(const struct np_cmp_run *a, const struct np_cmp_run *b,
			struct np_cmp_pair *p);
/* Each pair's shift, speed and verdict (faster or slower where the
 * interval excludes 1 and the change is at least MIN_CHANGE; a regression
 * where slower beyond MAX_REGRESSION, fractions; with MAX_REGRESSION above
 * 0, undecided where not a regression but the interval's lower end is
 * below 1 - MAX_REGRESSION), Bonferroni-corrected
 * over the pairs with NP_CMP_MIN_SAMPLES on both sides; returns how many
 * those are. */
int np_cmp_judge_pairs(struct np_cmp_pair *p, size_t np, double min_change, double max_regression);
/* Marks the bandwidth-bound pairs (see compare_judge.c). */
void np_cmp_mark_bw_bound(struct np_cmp_pair *p, size_t np, const struct np_cmp_run *a,
			  const struct np_cmp_run *b);
/* One summary per group of sizes into SUM (room for NP entries): a
 * common shift over its bandwidth-bound pairs, Bonferroni over the
 * groups; returns the number of groups, -1 when out of memory. */
int np_cmp_summarize(struct np_cmp_pair *p, size_t np, struct np_cmp_summary *sum,
		     double min_change);

/* The comparison of A with B that the compare command and a sweep's
 * --baseline both make: the pairs of rows (none when A and B share no
 * key), each judged (min_change, max_regression as in
 * np_cmp_judge_pairs), the bandwidth-bound ones marked, one summary per
 * group of sizes, and what differs between the runs without preventing
 * the comparison (library versions, NCCL_* variables: one line each). */
#define NP_CMP_MAX_DIFF 64
struct np_cmp_result {
	struct np_cmp_pair *p;
	size_t np;
	int ncompared; /* pairs with NP_CMP_MIN_SAMPLES on both sides */
	struct np_cmp_summary *sum;
	int ns;
	char (*diff)[256];
	int ndiff;
};
/* NP_ENOMEM when out of memory; np_cmp_result_release frees C after
 * either outcome. The runs are to be comparable (np_cmp_incomparable). */
enum np_status np_cmp_compare(const struct np_cmp_run *a, const struct np_cmp_run *b,
			      double min_change, double max_regression, struct np_cmp_result *c);
void np_cmp_result_release(struct np_cmp_result *c);

#endif
