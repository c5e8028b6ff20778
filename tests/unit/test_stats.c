/* SPDX-License-Identifier: MIT */
/* Unit tests: order statistics, JSON escaping (the check patterns are
 * tests/unit/test_pattern.c). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/json.h"
#include "../../src/report.h"
#include "../../src/stats.h"
#include "tap.h"

static const char *escaped(const char *in, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");
	np_json_escape(f, in);
	fclose(f);
	return buf;
}

int main(void)
{
	double x[] = { 5, 1, 4, 2, 3 }, y[200];
	struct np_stats st;
	char buf[256];

	np_stats_compute(x, 5, &st);
	tap_is_dbl(st.median, 3, 0, "median of 5");
	tap_is_dbl(st.min, 1, 0, "min");
	tap_is_dbl(st.max, 5, 0, "max");
	tap_ok(isinf(st.ci_half_rel), "no confidence interval under 6 samples");
	/* no samples (a report's "sample_times": []): nothing is read or
	 * sorted (qsort(NULL, 0) is tests/t0032's, in a sanitized build) */
	st.n = 99;
	np_stats_compute(NULL, 0, &st);
	tap_is_int(st.n, 0, "no samples: n is 0");
	tap_ok(isnan(st.median) && isnan(st.min) && isnan(st.max) && isnan(st.ci_lo) &&
		       isnan(st.ci_hi),
	       "no samples: median, min, max and interval are NaN, not a number read from nowhere");
	tap_ok(isinf(st.ci_half_rel), "no samples: no confidence interval");
	{
		double one[] = { 7 };
		np_sort_doubles(one, 1);
		np_stats_compute(one, 1, &st);
		tap_ok(st.n == 1 && st.median == 7 && st.min == 7 && st.max == 7,
		       "one sample is its own median");
	}
	double e[] = { 4, 1, 3, 2 };
	np_stats_compute(e, 4, &st);
	tap_is_dbl(st.median, 2.5, 0, "median of an even count is the mean of the middle two");
	for (int i = 0; i < 200; i++)
		y[i] = 100 + (i % 2 ? 0.1 : -0.1);
	y[7] = 1e6; /* one outlier does not move the median */
	np_stats_compute(y, 200, &st);
	tap_is_dbl(st.median, 100, 0.11, "median ignores an outlier");
	tap_ok(st.ci_half_rel < 0.01, "tight samples: CI half-width under 1%% (%g)",
	       st.ci_half_rel);
	for (int i = 0; i < 20; i++)
		y[i] = 100 * (1 + (i % 5));
	np_stats_compute(y, 20, &st);
	tap_ok(st.ci_half_rel > 0.1, "spread samples: CI half-width large (%g)", st.ci_half_rel);
	tap_ok(st.ci_lo <= st.median && st.median <= st.ci_hi, "CI holds the median");

	/* median and MAD, worked by hand: 1 2 3 4 100 has median 3 and
	 * deviations 2 1 0 1 97, whose median is 1 (the outlier moves
	 * neither); an even count takes the mean of the middle two */
	{
		double m[] = { 100, 3, 1, 4, 2 }, d[] = { 100, 3, 1, 4, 2 }, ev[] = { 8, 2, 6, 4 };
		double med = np_stats_median(m, 5);
		tap_is_dbl(med, 3, 0, "np_stats_median of 100 3 1 4 2 is 3");
		tap_ok(m[0] == 1 && m[4] == 100, "np_stats_median sorts in place");
		tap_is_dbl(np_stats_mad(d, 5, med), 1, 0,
			   "MAD of 100 3 1 4 2 is 1: the outlier does not move it");
		tap_ok(d[0] == 0 && d[4] == 97, "np_stats_mad leaves the deviations, sorted");
		tap_is_dbl(np_stats_median(ev, 4), 5, 0, "median of 8 2 6 4 is 5");
		tap_is_dbl(np_stats_mad(ev, 4, 5), 2, 0,
			   "MAD of 2 4 6 8 about 5 is 2 (deviations 3 1 1 3)");
		tap_ok(isnan(np_stats_median(NULL, 0)) && isnan(np_stats_mad(NULL, 0, 1)),
		       "no values: median and MAD are NaN, nothing read");
	}

	/* noise-bound, worked by hand: 6 samples in 12 ms with a 3% interval
	 * need 6 * 3^2 = 54 samples, 48 more of 2 ms = 96 ms more */
	tap_ok(np_stats_noise_bound(6, 0.03, 0.01, 0.012, 0.05),
	       "3%% after 6 samples, 50 ms budget: noise-bound");
	tap_ok(!np_stats_noise_bound(6, 0.03, 0.01, 0.012, 0.5),
	       "3%% after 6 samples, 500 ms budget: sample on");
	tap_ok(np_stats_noise_bound(6, 0.03, 0.01, 0.012, 0.107),
	       "needs 108 ms: noise-bound at a 107 ms budget");
	tap_ok(!np_stats_noise_bound(6, 0.03, 0.01, 0.012, 0.109),
	       "needs 108 ms: not at a 109 ms budget");
	tap_ok(!np_stats_noise_bound(6, 0.009, 0.01, 0.012, 0.013),
	       "within the target: converged, not noise-bound");
	tap_ok(!np_stats_noise_bound(3, INFINITY, 0.01, 0.4, 0.5),
	       "no interval yet: not noise-bound");
	/* an interval that stops narrowing: the projection grows with n */
	tap_ok(!np_stats_noise_bound(10, 0.015, 0.01, 0.02, 0.05) &&
		       np_stats_noise_bound(20, 0.015, 0.01, 0.04, 0.05),
	       "1.5%% that does not narrow: sample on at 10, noise-bound at 20");

	/* the table's eff%: whole percents, a decimal below 10% */
	{
		const struct np_metric *eff = NULL;
		struct np_value v = { 0 };
		for (int i = 0; i < np_metrics_count; i++)
			if (!strcmp(np_metrics[i].name, "eff"))
				eff = &np_metrics[i];
		tap_ok(eff != NULL, "the metric table has eff");
		if (eff) {
			v.d = 0.004;
			np_metric_format(eff, &v, true, buf, sizeof(buf));
			tap_is_str(buf, "0.4", "eff 0.4%% keeps its decimal");
			v.d = 0.0;
			np_metric_format(eff, &v, true, buf, sizeof(buf));
			tap_is_str(buf, "0", "eff 0%% is 0");
			v.d = 0.853;
			np_metric_format(eff, &v, true, buf, sizeof(buf));
			tap_is_str(buf, "85", "eff 85%% is whole");
			v.d = 0.004;
			np_metric_format(eff, &v, false, buf, sizeof(buf));
			tap_is_str(buf, "0.004", "JSON and CSV keep the fraction");
		}
	}

	tap_is_str(escaped("plain", buf, sizeof(buf)), "\"plain\"", "plain string");
	tap_is_str(escaped("a\"b\\c", buf, sizeof(buf)), "\"a\\\"b\\\\c\"", "quote and backslash");
	tap_is_str(escaped("t\tn\nr\r", buf, sizeof(buf)), "\"t\\tn\\nr\\r\"",
		   "tab, newline, return");
	tap_is_str(escaped("\x01\x1f", buf, sizeof(buf)), "\"\\u0001\\u001f\"",
		   "control characters");
	tap_is_str(escaped("h\xc3\xa9", buf, sizeof(buf)), "\"h\xc3\xa9\"", "UTF-8 passes through");

	return tap_done();
}
