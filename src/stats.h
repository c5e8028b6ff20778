/* SPDX-License-Identifier: MIT */
/* Order statistics of sample times: median, min, max, the median absolute
 * deviation and a distribution-free 95% confidence interval of the median
 * (binomial order statistics), so noisy samples never drag a mean. */
#ifndef NP_STATS_H
#define NP_STATS_H

#include <stdbool.h>

struct np_stats {
	int n;
	double median, min, max;
	double ci_lo, ci_hi; /* 95% CI of the median; lo = min, hi = max when n < 6 */
	double ci_half_rel;  /* (ci_hi - ci_lo) / 2 / median; infinity when n < 6 */
};

/* Sorts x[0..n) ascending in place; x may be NULL when n is 0. */
void np_sort_doubles(double *x, int n);

/* The median of x[0..n), sorted in place (the mean of the middle two
 * for an even n); NaN when n < 1 (x may then be NULL). */
double np_stats_median(double *x, int n);

/* The median of the deviations |x[i] - center| over x[0..n): with center
 * x's median, the median absolute deviation (MAD; 1.4826 x MAD estimates
 * a normal sigma, and no outlier moves it). x is overwritten with the
 * deviations, sorted; NaN when n < 1. */
double np_stats_mad(double *x, int n, double center);

/* Sorts x[0..n) in place and fills st. n < 1 (x may be NULL): st->n 0,
 * median, min, max and interval NaN, ci_half_rel infinity. */
void np_stats_compute(double *x, int n, struct np_stats *st);

/* Whether n samples, whose median's interval has relative half-width
 * half after elapsed seconds, are noise-bound: the interval of a median
 * narrows as 1/sqrt(n) for samples that scatter independently, so the
 * target needs about n (half/target)^2 samples, each lasting what the
 * past ones did; when those would not fit in budget, more samples are
 * waste (launch jitter that wanders from batch to batch does not average
 * out, its interval stops narrowing, and the projection grows with every
 * sample). False when half is within target or not finite. */
bool np_stats_noise_bound(int n, double half, double target, double elapsed, double budget);

/* The shift between two runs' samples (compare): the Hodges-Lehmann
 * estimate, the median of the differences y_j - x_i over all pairs, with
 * its distribution-free confidence interval from the Mann-Whitney rank
 * statistic: [D(k), D(N+1-k)] of the N sorted differences, k the largest
 * count with P(U < k) <= alpha/2 under no shift. Several strata (rows)
 * pool their pairs, never pairs across strata: one common shift, its
 * interval from the sum of the strata's U statistics. */
struct np_shift_stratum {
	const double *x; /* sorted ascending, m >= 1 */
	int m;
	const double *y; /* sorted ascending, n >= 1 */
	int n;
};

struct np_shift {
	double est;      /* Hodges-Lehmann estimate of y - x */
	double lo, hi;   /* 1 - alpha interval; -inf, +inf when the samples
			  * are too few to reach that level */
	bool exact;      /* U's exact null distribution (one stratum, m n <= 2500),
			  * else its normal approximation with continuity correction */
	long long k;     /* the interval's order statistics are D(k), D(N+1-k) */
	long long pairs; /* N */
};

#define NP_SHIFT_EXACT_MAX 2500

void np_shift_compute(const struct np_shift_stratum *s, int ns, double alpha, struct np_shift *out);
/* The k-th smallest (1-based, 1 <= k <= N) of the strata's differences. */
double np_shift_kth(const struct np_shift_stratum *s, int ns, long long k);
/* z with P(Z > z) = p for a standard normal Z, 0 < p <= 0.5. */
double np_norm_upper_quantile(double p);

#endif
