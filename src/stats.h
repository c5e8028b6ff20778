/* SPDX-License-Identifier: MIT */
/* Order statistics of sample times: median, min, max and a distribution-
 * free 95% confidence interval of the median (binomial order statistics),
 * so noisy samples never drag a mean. */
#ifndef NP_STATS_H
#define NP_STATS_H

#include <stdbool.h>

struct np_stats {
	int n;
	double median, min, max;
	double ci_lo, ci_hi; /* 95% CI of the median; lo = min, hi = max when n < 6 */
	double ci_half_rel;  /* (ci_hi - ci_lo) / 2 / median; infinity when n < 6 */
};

/* Sorts x[0..n) in place and fills st. n >= 1. */
void np_stats_compute(double *x, int n, struct np_stats *st);

#endif
