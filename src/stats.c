/* SPDX-License-Identifier: MIT */
/* Median, MAD, range and the 95% confidence interval of the median. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void np_sort_doubles(double *x, int n)
{
	/* none or one: nothing to sort, and x may be NULL (qsort's may not) */
	if (n > 1)
		qsort(x, (size_t)n, sizeof(*x), cmp_double);
}

/* The median of sorted x[0..n), n >= 1. */
static double median_sorted(const double *x, int n)
{
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

double np_stats_median(double *x, int n)
{
	if (n < 1)
		return NAN;
	np_sort_doubles(x, n);
	return median_sorted(x, n);
}

double np_stats_mad(double *x, int n, double center)
{
	for (int i = 0; i < n; i++)
		x[i] = fabs(x[i] - center);
	return np_stats_median(x, n);
}

void np_stats_compute(double *x, int n, struct np_stats *st)
{
	if (n < 1) {
		st->n = 0;
		st->median = st->min = st->max = st->ci_lo = st->ci_hi = NAN;
		st->ci_half_rel = INFINITY;
		return;
	}
	np_sort_doubles(x, n);
	st->n = n;
	st->min = x[0];
	st->max = x[n - 1];
	st->median = median_sorted(x, n);
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

bool np_stats_noise_bound(int n, double half, double target, double elapsed, double budget)
{
	double need;

	if (!isfinite(half) || half <= target || n < 1 || !(target > 0))
		return false;
	need = n * (half / target) * (half / target);
	return elapsed + (need - n) * (elapsed / n) > budget;
}

/* Pairs of the strata with a difference at most d: for sorted x and y the
 * pairs of y_j are a suffix of x, which starts no earlier for the next j
 * (rounding is monotonic, so this holds for the computed differences). */
static long long shift_count(const struct np_shift_stratum *s, int ns, double d)
{
	long long c = 0;

	for (int r = 0; r < ns; r++) {
		int p = 0;
		for (int j = 0; j < s[r].n; j++) {
			while (p < s[r].m && s[r].y[j] - s[r].x[p] > d)
				p++;
			c += s[r].m - p;
		}
	}
	return c;
}

/* Doubles in the order of an unsigned key, for bisection over every
 * representable value. */
static uint64_t dkey(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u >> 63 ? ~u : u | 1ull << 63;
}

static double dval(uint64_t k)
{
	uint64_t u = k >> 63 ? k & ~(1ull << 63) : ~k;
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

double np_shift_kth(const struct np_shift_stratum *s, int ns, long long k)
{
	double lo = INFINITY, hi = -INFINITY;
	uint64_t klo, khi;

	for (int r = 0; r < ns; r++) {
		double a = s[r].y[0] - s[r].x[s[r].m - 1], b = s[r].y[s[r].n - 1] - s[r].x[0];
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	/* count(dval(klo)) < k <= count(dval(khi)); at most 64 halvings */
	klo = dkey(lo) - 1;
	khi = dkey(hi);
	while (khi - klo > 1) {
		uint64_t mid = klo + (khi - klo) / 2;
		if (shift_count(s, ns, dval(mid)) >= k)
			khi = mid;
		else
			klo = mid;
	}
	return dval(khi);
}

double np_norm_upper_quantile(double p)
{
	double lo = 0, hi = 40;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (0.5 * erfc(mid / sqrt(2.0)) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The largest k with P(U < k) <= p under no shift, from U's exact
 * distribution for m and n samples: f_i(u) counts the orderings of i x's
 * and j y's with U = u; the largest of them is an x (which exceeds the j
 * y's) or a y, so f_i^j(u) = f_{i-1}^j(u - j) + f_i^{j-1}(u). */
static long long exact_k(int m, int n, double p)
{
	size_t umax = (size_t)m * (size_t)n, w = umax + 1;
	double *f = calloc((size_t)(m + 1) * w, sizeof(double)), total = 0, cum = 0;
	long long k = 0;

	if (!f)
		return -1;
	for (int i = 0; i <= m; i++)
		f[(size_t)i * w] = 1; /* j = 0: one ordering, U = 0 */
	for (int j = 1; j <= n; j++)
		for (int i = 1; i <= m; i++) /* f_i^{j-1} is in place; f_{i-1}^j done */
			for (size_t u = umax + 1; u-- > (size_t)j;)
				f[(size_t)i * w + u] += f[(size_t)(i - 1) * w + u - (size_t)j];
	for (size_t u = 0; u <= umax; u++)
		total += f[(size_t)m * w + u];
	for (size_t u = 0; u <= umax; u++) {
		cum += f[(size_t)m * w + u];
		if (cum > p * total)
			break;
		k = (long long)u + 1;
	}
	free(f);
	return k;
}

void np_shift_compute(const struct np_shift_stratum *s, int ns, double alpha, struct np_shift *out)
{
	long long N = 0, k = -1;
	double var = 0;

	for (int r = 0; r < ns; r++) {
		double m = s[r].m, n = s[r].n;
		N += (long long)s[r].m * s[r].n;
		var += m * n * (m + n + 1) / 12;
	}
	out->pairs = N;
	out->est = N % 2 ? np_shift_kth(s, ns, (N + 1) / 2)
			 : (np_shift_kth(s, ns, N / 2) + np_shift_kth(s, ns, N / 2 + 1)) / 2;
	out->exact = ns == 1 && N <= NP_SHIFT_EXACT_MAX;
	if (out->exact)
		k = exact_k(s[0].m, s[0].n, alpha / 2);
	if (k < 0) { /* normal approximation (or no memory for the exact one) */
		out->exact = false;
		k = (long long)floor(N / 2.0 - np_norm_upper_quantile(alpha / 2) * sqrt(var) + 0.5);
	}
	out->k = k;
	if (k < 1) {
		out->lo = -INFINITY;
		out->hi = INFINITY;
		return;
	}
	out->lo = np_shift_kth(s, ns, k);
	out->hi = np_shift_kth(s, ns, N + 1 - k);
}
