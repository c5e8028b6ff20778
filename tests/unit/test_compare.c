/* SPDX-License-Identifier: MIT */
/* Unit tests of compare's parts: the JSON reader on good and hostile
 * input, and the Hodges-Lehmann shift with its Mann-Whitney interval
 * against examples worked by hand (below). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/json_read.h"
#include "../../src/stats.h"
#include "tap.h"

/* Parse s (len bytes) and expect a usage error whose message names the
 * file and the byte offset off. */
static void bad(const char *s, size_t len, size_t off, const char *why)
{
	struct np_jval v;
	struct np_err err = { 0 };
	char want[64];
	enum np_status st = np_json_parse(s, len, "x.json", &v, &err);

	snprintf(want, sizeof(want), "at byte %zu;", off);
	tap_ok(st == NP_EUSAGE && strstr(err.msg, "'x.json'") && strstr(err.msg, want),
	       "refused: %s", why);
	if (st != NP_EUSAGE || !strstr(err.msg, want))
		printf("#   status %d, message: %s (wanted '%s')\n", st, err.msg, want);
}

#define BAD(lit, off, why) bad(lit, sizeof(lit) - 1, off, why)

static void json_tests(void)
{
	struct np_jval v;
	struct np_err err = { 0 };
	const char *good =
		"{\"a\": [1, -2.5e3, true, false, null], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\\\"\", "
		"\"o\": {\"k\": 0.000125}, \"a\": 7}";
	const struct np_jval *a, *o;

	tap_is_int(np_json_parse(good, strlen(good), "g.json", &v, &err), NP_OK,
		   "a valid document parses");
	a = np_jget(&v, "a");
	tap_ok(a && a->type == NP_J_ARR && a->n == 5, "an array of 5");
	tap_is_dbl(a ? a->items[1].num : 0, -2500, 0, "a number with an exponent");
	tap_ok(a && a->items[2].type == NP_J_BOOL && a->items[2].b && a->items[4].type == NP_J_NULL,
	       "true and null");
	tap_ok(np_jstr(np_jget(&v, "s")) &&
		       !strcmp(np_jstr(np_jget(&v, "s")), "x\xc3\xa9\xf0\x9f\x98\x80\n\""),
	       "escapes unescape to UTF-8, a surrogate pair to one code point");
	o = np_jget2(&v, "o", "k");
	tap_is_dbl(o ? o->num : 0, 0.000125, 0, "a nested member");
	tap_ok(np_jget(&v, "missing") == NULL && np_jget(a, "a") == NULL,
	       "absent members and non-objects give NULL");
	np_jval_free(&v);

	BAD("", 0, "empty input");
	BAD("{\"a\": [1, 2", 11, "truncated array");
	BAD("{\"a\": \"abc", 6, "unterminated string");
	BAD("{\"a\" 1}", 5, "missing colon");
	BAD("[1, 2,]", 6, "trailing comma");
	BAD("[1e999]", 1, "a number beyond double range");
	BAD("[-1e400]", 1, "a negative number beyond double range");
	BAD("[0x10]", 2, "hex is not JSON");
	BAD("[NaN]", 1, "NaN is not JSON");
	BAD("[01]", 2, "leading zero");
	BAD("[1.]", 3, "no digit after the point");
	BAD("[1e+]", 4, "no digit in the exponent");
	BAD("[\"a\\x\"]", 3, "bad escape");
	BAD("[\"a\\u12G4\"]", 3, "bad \\u digits");
	BAD("[\"\\ud800x\"]", 2, "lone high surrogate");
	BAD("[\"\\udc00\"]", 2, "lone low surrogate");
	BAD("[\"a\\u0000b\"]", 3, "\\u0000");
	BAD("[\"a\0b\"]", 3, "a NUL byte in a string");
	BAD("[1]\0", 3, "a NUL byte after the value");
	BAD("[1] [2]", 4, "data after the value");
	BAD("[tru]", 1, "a misspelled literal");
	BAD("[\"tab\there\"]", 5, "a raw control character");
	{
		/* 100 levels: refused at the 65th opening bracket (offset 64) */
		char deep[201];
		memset(deep, '[', 100);
		memset(deep + 100, ']', 100);
		deep[200] = '\0';
		bad(deep, 200, 64, "nesting deeper than 64");
		/* 64 levels are fine */
		memset(deep, '[', 64);
		memset(deep + 64, ']', 64);
		tap_is_int(np_json_parse(deep, 128, "d.json", &v, &err), NP_OK, "64 levels parse");
		np_jval_free(&v);
	}
	{
		/* a long number is refused, not cut */
		char num[100];
		num[0] = '[';
		memset(num + 1, '1', 80);
		num[81] = ']';
		bad(num, 82, 1, "a number of 80 digits");
	}
	{
		/* a huge flat array: the value count is bounded */
		size_t n = NP_JREAD_MAX_VALUES + 2, len = 2 * n + 1;
		char *big = malloc(len);
		if (big) {
			big[0] = '[';
			for (size_t i = 0; i < n; i++) {
				big[1 + 2 * i] = '0';
				big[2 + 2 * i] = i + 1 < n ? ',' : ']';
			}
			/* the array is value 1; the zero at offset 2 * MAX - 1 is value MAX + 1 */
			bad(big, len, 2 * (size_t)NP_JREAD_MAX_VALUES - 1,
			    "more values than the bound");
			free(big);
		}
	}
	{
		struct np_jval f;
		tap_is_int(np_json_parse_file("/nonexistent/x.json", &f, &err), NP_EUSAGE,
			   "a missing file is a usage error");
		tap_is_int(np_json_parse_file("/", &f, &err), NP_EUSAGE,
			   "a directory is a usage error");
	}
}

static void shift_tests(void)
{
	struct np_shift sh;
	double x[10], y[10];
	struct np_shift_stratum s = { x, 5, y, 5 };

	/* m = n = 5, x = 1..5, y = 11..15: the 25 differences y_j - x_i are
	 * 10 + (j - i), j - i from -4 to 4 with counts 1 2 3 4 5 4 3 2 1, so
	 * sorted: 6 7 7 8 8 8 9 9 9 9 10x5 11x4 12x3 13 13 14. The estimate
	 * is D(13) = 10. U's null distribution for 5 and 5 (252 orderings)
	 * has counts 1 1 2 3 5 ... for U = 0 1 2 3 4: P(U < 3) = 4/252 =
	 * 0.016 <= 0.025 < P(U < 4) = 7/252 = 0.028, so k = 3 (the tables'
	 * critical value 2) and the 95% interval is [D(3), D(23)] = [7, 13]. */
	for (int i = 0; i < 5; i++)
		x[i] = 1 + i, y[i] = 11 + i;
	np_shift_compute(&s, 1, 0.05, &sh);
	tap_ok(sh.exact, "5 and 5 samples: exact distribution");
	tap_is_int(sh.k, 3, "5 and 5: k = 3");
	tap_is_dbl(sh.est, 10, 0, "5 and 5: estimate 10");
	tap_is_dbl(sh.lo, 7, 0, "5 and 5: interval from D(3) = 7");
	tap_is_dbl(sh.hi, 13, 0, "5 and 5: to D(23) = 13");

	/* m = n = 3: P(U = 0) = 1/20 = 0.05 > 0.025: no 95% interval */
	s.m = s.n = 3;
	np_shift_compute(&s, 1, 0.05, &sh);
	tap_ok(isinf(sh.lo) && isinf(sh.hi) && sh.k == 0, "3 and 3 samples cannot reach 95%%");

	/* m = n = 10, x = 1..10, y = 21..30: differences 20 + (j - i), j - i
	 * from -9 to 9 with counts 1 2 ... 10 ... 2 1. The normal
	 * approximation: sigma = sqrt(10 10 21 / 12) = 13.229, z(0.975) =
	 * 1.95996, k = floor(50 - 25.928 + 0.5) = 24 (the tables' critical
	 * value for 10 and 10 is 23: the same). Cumulative counts of j - i:
	 * -9: 1, -8: 3, -7: 6, -6: 10, -5: 15, -4: 21, -3: 28, so D(24) =
	 * 20 - 3 = 17, and by symmetry D(77) = 23. */
	for (int i = 0; i < 10; i++)
		x[i] = 1 + i, y[i] = 21 + i;
	s.m = s.n = 10;
	/* exact for 100 pairs (the normal approximation gives the same k);
	 * the normal approximation is tested on two strata below */
	np_shift_compute(&s, 1, 0.05, &sh);
	tap_ok(sh.exact, "10 and 10: exact (100 pairs)");
	tap_is_int(sh.k, 24, "10 and 10 exact: k = 24, the tables' critical value 23 + 1");
	tap_is_dbl(sh.est, 20, 0, "10 and 10: estimate 20");
	tap_is_dbl(sh.lo, 17, 0, "10 and 10: interval from D(24) = 17");
	tap_is_dbl(sh.hi, 23, 0, "10 and 10: to D(77) = 23");

	/* Bonferroni over 8 rows: alpha = 0.05 / 8, so P(U < k) <= 0.003125,
	 * 0.003125 * C(20, 10) = 0.003125 * 184756 = 577.4 orderings. U's
	 * counts for 10 and 10 (the recurrence f(m, n, u) = f(m - 1, n, u - n)
	 * + f(m, n - 1, u)) from U = 0: 1 1 2 3 5 7 11 15 22 30 42 54 73 93
	 * 121 152: their sum up to U = 14 is 480 <= 577.4, up to 15 is 632,
	 * so k = 15; D(15) = 20 - 5 = 15 (j - i = -5 holds D(11..15)), and
	 * D(86) = 25 by symmetry. */
	{
		struct np_shift_stratum two[2] = { { x, 10, y, 10 }, { x, 10, y, 10 } };
		/* two identical strata: 200 pairs, var = 2 * 175 = 350, sigma
		 * 18.708, k = floor(100 - 1.95996 * 18.708 + 0.5) = floor(63.83)
		 * = 63; each difference appears twice, so cumulative counts
		 * double: -4: 42, -3: 56, -2: 72: D(63) = 20 - 2 = 18, D(138) = 22 */
		np_shift_compute(two, 2, 0.05, &sh);
		tap_ok(!sh.exact, "two strata: normal approximation");
		tap_is_int(sh.k, 63, "two strata: k = 63");
		tap_is_dbl(sh.est, 20, 0, "two strata: estimate 20");
		tap_is_dbl(sh.lo, 18, 0, "two strata: interval from D(63) = 18");
		tap_is_dbl(sh.hi, 22, 0, "two strata: to D(138) = 22");
		np_shift_compute(two, 1, 0.05 / 8, &sh);
		tap_is_int(sh.k, 15, "10 and 10 at alpha 0.05/8: k = 15");
		tap_is_dbl(sh.lo, 15, 0, "10 and 10 at alpha 0.05/8: from D(15) = 15");
		tap_is_dbl(sh.hi, 25, 0, "10 and 10 at alpha 0.05/8: to D(86) = 25");
	}
	tap_is_dbl(np_norm_upper_quantile(0.025), 1.959964, 1e-6, "z(0.975) = 1.959964");
	tap_is_dbl(np_norm_upper_quantile(0.003125), 2.734369, 1e-6, "z(1 - 0.05/16) = 2.734369");
	{
		/* the k-th difference is one of the differences, exactly */
		double a[3] = { 0.1, 0.2, 0.7 }, b[2] = { 0.3, 1.1 };
		struct np_shift_stratum t = { a, 3, b, 2 };
		/* differences: 0.2 0.1 -0.4 1.0 0.9 0.4 -> sorted -0.4 0.1 0.2 0.4 0.9 1.0 */
		tap_ok(np_shift_kth(&t, 1, 1) == 0.3 - 0.7 && np_shift_kth(&t, 1, 3) == 0.3 - 0.1 &&
			       np_shift_kth(&t, 1, 6) == 1.1 - 0.1,
		       "k-th differences are the computed differences");
	}
}

int main(void)
{
	json_tests();
	shift_tests();
	return tap_done();
}
