/* SPDX-License-Identifier: MIT */
/* Median, range and the 95% confidence interval of the median. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void np_stats_compute(double *x, int n, struct np_stats *st)
{
	qsort(x, (size_t)n, sizeof(*x), cmp_double);
	st->n = n;
	st->min = x[0];
	st->max = x[n - 1];
	st->median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	st->ci_lo = st->min;
	st->ci_hi = st->max;
	st->ci_half_rel = INFINITY;
	if (n >= 6) {
		/* ranks (1-based) n/2 -+ 1.96 sqrt(n)/2: the normal approximation
		 * of the binomial(n, 1/2) interval for the median */
		double h = 0.98 * sqrt((double)n);
		int j = (int)floor(n / 2.0 - h);
		int k = (int)ceil(n / 2.0 + 1 + h);
		if (j < 1)
			j = 1;
		if (k > n)
			k = n;
		st->ci_lo = x[j - 1];
		st->ci_hi = x[k - 1];
		if (st->median > 0)
			st->ci_half_rel = (st->ci_hi - st->ci_lo) / 2 / st->median;
	}
}
