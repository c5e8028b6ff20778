/* SPDX-License-Identifier: MIT */
/* Unit tests: order statistics, JSON escaping, check patterns against a
 * brute-force reduction, half/bfloat16 conversions. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "../../probes/pattern.h"
#include "../../src/json.h"
#include "../../src/stats.h"
#include "tap.h"

static const char *escaped(const char *in, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");
	np_json_escape(f, in);
	fclose(f);
	return buf;
}

/* reduce np_pat_red_input over n ranks by brute force */
static int64_t brute(int op, int dtype, int n, size_t j)
{
	int64_t acc = np_pat_red_input(op, dtype, n, 0, j);
	for (int r = 1; r < n; r++) {
		int64_t v = np_pat_red_input(op, dtype, n, r, j);
		switch (op) {
		case NP_OP_SUM: acc += v; break;
		case NP_OP_PROD: acc *= v; break;
		case NP_OP_MAX: acc = v > acc ? v : acc; break;
		case NP_OP_MIN: acc = v < acc ? v : acc; break;
		case NP_OP_AVG: acc += v; break;
		}
	}
	return op == NP_OP_AVG ? acc / n : acc;
}

int main(void)
{
	double x[] = { 5, 1, 4, 2, 3 }, y[200];
	struct np_stats st;
	char buf[256];
	int bad;

	np_stats_compute(x, 5, &st);
	tap_is_dbl(st.median, 3, 0, "median of 5");
	tap_is_dbl(st.min, 1, 0, "min");
	tap_is_dbl(st.max, 5, 0, "max");
	tap_ok(isinf(st.ci_half_rel), "no confidence interval under 6 samples");
	double e[] = { 4, 1, 3, 2 };
	np_stats_compute(e, 4, &st);
	tap_is_dbl(st.median, 2.5, 0, "median of an even count is the mean of the middle two");
	for (int i = 0; i < 200; i++)
		y[i] = 100 + (i % 2 ? 0.1 : -0.1);
	y[7] = 1e6; /* one outlier does not move the median */
	np_stats_compute(y, 200, &st);
	tap_is_dbl(st.median, 100, 0.11, "median ignores an outlier");
	tap_ok(st.ci_half_rel < 0.01, "tight samples: CI half-width under 1%% (%g)", st.ci_half_rel);
	for (int i = 0; i < 20; i++)
		y[i] = 100 * (1 + (i % 5));
	np_stats_compute(y, 20, &st);
	tap_ok(st.ci_half_rel > 0.1, "spread samples: CI half-width large (%g)", st.ci_half_rel);
	tap_ok(st.ci_lo <= st.median && st.median <= st.ci_hi, "CI holds the median");

	tap_is_str(escaped("plain", buf, sizeof(buf)), "\"plain\"", "plain string");
	tap_is_str(escaped("a\"b\\c", buf, sizeof(buf)), "\"a\\\"b\\\\c\"", "quote and backslash");
	tap_is_str(escaped("t\tn\nr\r", buf, sizeof(buf)), "\"t\\tn\\nr\\r\"", "tab, newline, return");
	tap_is_str(escaped("\x01\x1f", buf, sizeof(buf)), "\"\\u0001\\u001f\"", "control characters");
	tap_is_str(escaped("h\xc3\xa9", buf, sizeof(buf)), "\"h\xc3\xa9\"", "UTF-8 passes through");

	bad = 0;
	for (int d = 0; d < NP_DTYPE_COUNT; d++)
		for (int op = 0; op < NP_OP_COUNT; op++)
			for (int n = 1; n <= 300; n += (n < 20 ? 1 : 37))
				for (size_t j = 0; j < 500; j++) {
					int64_t want = np_pat_red_expect(op, d, n, j);
					int64_t got = brute(op, d, n, j);
					if (op == NP_OP_AVG)
						got = np_pat_avg_value(d, n, j);
					if (want != got || want > np_pat_maxint(d) || want < 0)
						bad++;
				}
	tap_is_int(bad, 0, "closed-form reductions equal brute force and fit every type");

	bad = 0;
	for (int v = -2048; v <= 2048; v++)
		if (np_pat_h2f(np_pat_f2h((float)v)) != (float)v)
			bad++;
	tap_is_int(bad, 0, "half holds every integer in [-2048, 2048]");
	bad = 0;
	for (int v = -256; v <= 256; v++)
		if (np_pat_bf2f(np_pat_f2bf((float)v)) != (float)v)
			bad++;
	tap_is_int(bad, 0, "bfloat16 holds every integer in [-256, 256]");
	tap_is_dbl(np_pat_h2f(np_pat_f2h(0.1f)), 0.0999755859375, 0, "half rounds 0.1 to nearest");
	tap_is_dbl(np_pat_h2f(np_pat_f2h(65504.0f)), 65504, 0, "half max");

	/* data moves: every rank's pattern differs at the same index */
	bad = 0;
	for (int r = 1; r < 61; r++)
		if (np_pat_data(r, 5) == np_pat_data(0, 5))
			bad++;
	tap_is_int(bad, 0, "ranks' data patterns differ (a swap is caught)");
	tap_ok(np_pat_match(NP_FLOAT, NP_OP_AVG, 2.0000001, 2), "avg on float: tolerance");
	tap_ok(!np_pat_match(NP_FLOAT, NP_OP_SUM, 2.0000001, 2), "sum on float: exact");
	tap_ok(!np_pat_match(NP_INT32, NP_OP_AVG, 3, 2), "avg on int: exact");
	return tap_done();
}
