/* SPDX-License-Identifier: MIT */
/* Unit tests of the --check patterns (probes/pattern.h): for every data
 * type and reduction on 1..1024 and 65536 ranks the closed-form result
 * equals a brute-force reduction in the type's own arithmetic, in two
 * orders; every input is a value the type holds exactly; every rank's
 * data differ from every other's; a block from rank 0 in place of rank
 * 61's is caught; half, bfloat16 and fp8 conversions. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/pattern.h"
#include "tap.h"

static int64_t ival(int d, uint64_t bits)
{
	switch (d) {
	case NP_INT8: return (int8_t)bits;
	case NP_UINT8: return (uint8_t)bits;
	case NP_INT32: return (int32_t)bits;
	case NP_UINT32: return (uint32_t)bits;
	default: return (int64_t)bits;
	}
}

/* x rounded to type d (floating types) */
static double rnd(int d, double x)
{
	unsigned char b[8] = { 0 };

	switch (d) {
	case NP_DOUBLE: return x;
	case NP_FLOAT: return (float)x;
	case NP_HALF: *(uint16_t *)b = np_pat_f2h((float)x); break;
	case NP_BFLOAT16: *(uint16_t *)b = np_pat_f2bf((float)x); break;
	case NP_FP8E4M3: b[0] = np_pat_f2f8((float)x, 0); break;
	case NP_FP8E5M2: b[0] = np_pat_f2f8((float)x, 1); break;
	}
	return np_pat_load(b, d, 0);
}

/* The stored input of rank r (what the library sees). */
static uint64_t in_bits(int op, int d, int n, int r, size_t j)
{
	unsigned char b[8] = { 0 };

	np_pat_store(b, d, 0, np_pat_red_input(op, d, n, r, j));
	return np_pat_load_bits(b, d, 0);
}

static double in_val(int op, int d, int n, int r, size_t j)
{
	unsigned char b[8] = { 0 };

	np_pat_store(b, d, 0, np_pat_red_input(op, d, n, r, j));
	return np_pat_load(b, d, 0);
}

/* Reduce over ranks in order (down: n-1 to 0) in the type's arithmetic;
 * whether the result matches np_pat_red_expect (np_pat_ok). */
static int brute_ok(int op, int d, int n, size_t j, int down)
{
	unsigned char res[8] = { 0 };
	int64_t want = np_pat_red_expect(op, d, n, j);

	if (!np_pat_is_float(d)) {
		uint64_t acc = 0;
		for (int k = 0; k < n; k++) {
			int r = down ? n - 1 - k : k;
			uint64_t v = in_bits(op, d, n, r, j);
			if (k == 0) {
				acc = v;
				continue;
			}
			switch (op) {
			case NP_OP_SUM:
			case NP_OP_AVG: acc += v; break;
			case NP_OP_PROD: acc *= v; break;
			case NP_OP_MAX: acc = ival(d, v) > ival(d, acc) ? v : acc; break;
			case NP_OP_MIN: acc = ival(d, v) < ival(d, acc) ? v : acc; break;
			}
		}
		if (op == NP_OP_AVG) {
			int64_t s = ival(d, acc);
			acc = (uint64_t)(s / n); /* exact: the sum is n*a */
		}
		memcpy(res, &acc, sizeof(acc)); /* little-endian: the low word first */
		return np_pat_ok(res, d, op, n, 0, want);
	}
	{
		double acc = 0, inv = rnd(d, 1.0 / n);
		for (int k = 0; k < n; k++) {
			int r = down ? n - 1 - k : k;
			double v = in_val(op, d, n, r, j);
			if (op == NP_OP_AVG)
				v = rnd(d, v * inv); /* as a library's pre-scaled sum */
			if (k == 0) {
				acc = v;
				continue;
			}
			switch (op) {
			case NP_OP_SUM:
			case NP_OP_AVG: acc = rnd(d, acc + v); break;
			case NP_OP_PROD: acc = rnd(d, acc * v); break;
			case NP_OP_MAX: acc = v > acc ? v : acc; break;
			case NP_OP_MIN: acc = v < acc ? v : acc; break;
			}
		}
		np_pat_store(res, d, 0, 0);
		switch (d) {
		case NP_DOUBLE: memcpy(res, &acc, 8); break;
		case NP_FLOAT: {
			float f = (float)acc;
			memcpy(res, &f, 4);
			break;
		}
		case NP_HALF: *(uint16_t *)res = np_pat_f2h((float)acc); break;
		case NP_BFLOAT16: *(uint16_t *)res = np_pat_f2bf((float)acc); break;
		default: res[0] = np_pat_f2f8((float)acc, d == NP_FP8E5M2); break;
		}
		return np_pat_ok(res, d, op, n, 0, want);
	}
}

/* every input of a floating type is exactly the integer the pattern meant */
static int inputs_exact(int op, int d, int n, size_t j)
{
	for (int r = 0; r < n; r++) {
		int64_t v = np_pat_input(1, op, d, n, r, j);
		if (np_pat_is_float(d) && in_val(op, d, n, r, j) != (double)v)
			return 0;
	}
	return 1;
}

static uint64_t row_sig(int reduce, int op, int d, int n, int r, size_t elems)
{
	uint64_t h = 0;

	for (size_t j = 0; j < elems; j++) {
		unsigned char b[8];
		memset(b, 0, sizeof(b));
		np_pat_store(b, d, 0, np_pat_input(reduce, op, d, n, r, j));
		h = np_pat_hash(h,
				np_pat_load_bits(b,
						 d == NP_HALF || d == NP_BFLOAT16 ? NP_UINT64 : d,
						 0) &
					(np_dtypes[d].size == 8
						 ? ~0ull
						 : (1ull << (8 * np_dtypes[d].size)) - 1));
	}
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* No two ranks send the same first `elems` elements. */
static int rows_distinct(int reduce, int op, int d, int n, size_t elems)
{
	uint64_t *s = malloc((size_t)n * sizeof(*s));
	int dup = 0;

	for (int r = 0; r < n; r++)
		s[r] = row_sig(reduce, op, d, n, r, elems);
	qsort(s, (size_t)n, sizeof(*s), cmp_u64);
	for (int r = 1; r < n; r++)
		dup += s[r] == s[r - 1];
	free(s);
	return !dup;
}

/* Rank `to` sends rank `from`'s input: some element of the first `elems`
 * results differs from the expected one (as the check would see it). */
static int misroute_caught(int op, int d, int n, int from, int to, size_t elems)
{
	for (size_t j = 0; j < elems; j++) {
		double a = in_val(op, d, n, from, j), b = in_val(op, d, n, to, j);
		uint64_t ab = in_bits(op, d, n, from, j), bb = in_bits(op, d, n, to, j);
		if (!np_pat_is_float(d) ? ab == bb : a == b)
			continue;
		/* the two inputs differ at j: does the reduction change? */
		switch (op) {
		case NP_OP_SUM: return 1; /* sums see any difference (exact arithmetic) */
		case NP_OP_AVG:
			if (!np_pat_is_float(d))
				return 1;
			if ((a > b ? a - b : b - a) / n >
			    2 * np_pat_avg_tol(d, n, (double)np_pat_red_expect(op, d, n, j) / n))
				return 1;
			break;
		case NP_OP_PROD: return 1; /* +-1 and +-2: a different factor changes the product */
		case NP_OP_MAX:
		case NP_OP_MIN: {
			/* the result changes when `to` held the extreme value */
			int64_t want = np_pat_red_expect(op, d, n, j);
			int64_t mine = np_pat_red_input(op, d, n, to, j);
			if (np_pat_is_float(d)
				    ? (double)mine == (double)want
				    : (((uint64_t)mine ^ (uint64_t)want) &
				       (np_dtypes[d].size == 8
						? ~0ull
						: (1ull << (8 * np_dtypes[d].size)) - 1)) == 0)
				return 1;
			break;
		}
		}
	}
	return 0;
}

/* The closed forms against brute force (quick: fewer rank counts) */
static void closed_forms(int quick)
{
	static const int big[] = { 65536 };
	int bad;

	/* closed form = brute force, every type and op, 1..1024 ranks */
	for (int d = 0; d < NP_DTYPE_COUNT; d++)
		for (int op = 0; op < NP_OP_COUNT; op++) {
			int bad_n = 0, first = 0, inexact = 0;
			for (int n = 1; n <= 1024; n += quick && n > 16 ? 97 : 1) {
				size_t J = n <= 16 ? 64 : n <= 128 ? 8 : 2;
				for (size_t j = 0; j < J; j++) {
					size_t jj = j * 7919 + (size_t)n;
					if (!brute_ok(op, d, n, jj, 0) ||
					    !brute_ok(op, d, n, jj, 1)) {
						if (!bad_n++)
							first = n;
						break;
					}
					if (j == 0 && !inputs_exact(op, d, n, jj))
						inexact++;
				}
			}
			tap_ok(bad_n == 0 && inexact == 0,
			       "%s %s: exact on 1..1024 ranks, both orders (%d rank counts wrong, first %d; %d inexact inputs)",
			       np_dtypes[d].name, np_redop_str(op), bad_n, first, inexact);
		}
	/* 65536 ranks */
	for (int d = 0; d < NP_DTYPE_COUNT; d++)
		for (int op = 0; op < NP_OP_COUNT; op++) {
			bad = 0;
			for (size_t j = 0; j < (quick ? 1u : 3u); j++)
				bad += !brute_ok(op, d, big[0], j * 104729 + 5, (int)(j & 1));
			tap_is_int(bad, 0, "%s %s: exact on 65536 ranks", np_dtypes[d].name,
				   np_redop_str(op));
		}
}

int main(int argc, char **argv)
{
	int bad, quick = argc > 1 && !strcmp(argv[1], "quick");

	closed_forms(quick);

	/* data moves: every rank's data differ, on 2..1024 and 65536 ranks */
	for (int d = 0; d < NP_DTYPE_COUNT; d++) {
		bad = 0;
		for (int n = 2; n <= 1024; n = n < 64 ? n + 1 : n * 2)
			bad += !rows_distinct(0, 0, d, n, 32);
		bad += !rows_distinct(0, 0, d, 65536, 32);
		tap_is_int(bad, 0,
			   "%s: no two ranks send the same data (32 elements, up to 65536 ranks)",
			   np_dtypes[d].name);
	}
	/* reductions: every rank's input differs too (a chain of c ranks
	 * reaches each rank once every n/c elements) */
	for (int d = 0; d < NP_DTYPE_COUNT; d++)
		for (int op = 0; op < NP_OP_COUNT; op++) {
			static const int ns[] = { 2, 3, 8, 61, 64, 100, 1024 };
			bad = 0;
			for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
				int n = ns[k], c = np_pat_chain(op, d, n);
				bad += !rows_distinct(1, op, d, n, 64 + (size_t)(16 * n / c));
			}
			tap_is_int(bad, 0, "%s %s: no two ranks send the same input",
				   np_dtypes[d].name, np_redop_str(op));
		}

	/* a block from rank 0 in place of rank 61's is seen, on 64 and 65536 ranks */
	for (int d = 0; d < NP_DTYPE_COUNT; d++) {
		int moves = 0;
		bad = 0;
		for (size_t j = 0; j < 64; j++)
			moves += np_pat_data(d, 0, j) != np_pat_data(d, 61, j);
		for (int op = 0; op < NP_OP_COUNT; op++) {
			/* a chain of c ranks, or one extreme rank, meets a given rank
			 * once every n/c or n elements */
			int c = op >= NP_OP_MAX    ? 1
				: op == NP_OP_PROD ? 65536
						   : np_pat_chain(op, d, 65536);
			/* avg over bfloat16 and fp8: the change, 1/n of a small integer,
			 * is inside the tolerance that the rounding of 1/n needs */
			if (op == NP_OP_AVG &&
			    (d == NP_BFLOAT16 || d == NP_FP8E4M3 || d == NP_FP8E5M2))
				continue;
			if (!misroute_caught(op, d, 64, 0, 61, 4096)) {
				bad++;
				printf("# %s %s: not seen on 64 ranks\n", np_dtypes[d].name,
				       np_redop_str(op));
			}
			if (!misroute_caught(op, d, 65536, 0, 61, 4 * (size_t)65536 / (size_t)c)) {
				bad++;
				printf("# %s %s: not seen on 65536 ranks\n", np_dtypes[d].name,
				       np_redop_str(op));
			}
		}
		tap_ok(moves >= 32 && bad == 0,
		       "%s: rank 0's block in place of rank 61's differs (%d of 64 moved elements) and every reduction sees it",
		       np_dtypes[d].name, moves);
	}

	/* conversions */
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
	for (int e5 = 0; e5 < 2; e5++) {
		int lim = e5 ? 8 : 16;
		bad = 0;
		for (int b = 0; b < 256; b++) {
			float f = np_pat_f82f((uint8_t)b, e5);
			if (f == f && !__builtin_isinf(f) && np_pat_f2f8(f, e5) != b)
				bad++;
		}
		for (int v = -lim; v <= lim; v++)
			if (np_pat_f82f(np_pat_f2f8((float)v, e5), e5) != (float)v)
				bad++;
		tap_is_int(bad, 0, "fp8 %s: every code round-trips, integers to %d exact",
			   e5 ? "e5m2" : "e4m3", lim);
	}
	tap_is_dbl(np_pat_f82f(np_pat_f2f8(448.0f, 0), 0), 448, 0, "e4m3 max 448");
	tap_is_dbl(np_pat_f82f(np_pat_f2f8(1000.0f, 0), 0), 448, 0, "e4m3 saturates");
	tap_is_dbl(np_pat_f82f(np_pat_f2f8(57344.0f, 1), 1), 57344, 0, "e5m2 max 57344");
	tap_is_dbl(np_pat_f82f(np_pat_f2f8(0.3f, 0), 0), 0.3125, 0, "e4m3 rounds 0.3 to 0.3125");
	tap_is_dbl(np_pat_f82f(np_pat_f2f8(1.0f / 512, 0), 0), 1.0 / 512, 0,
		   "e4m3 smallest subnormal");
	tap_is_dbl(np_pat_f82f(0x01, 1), 1.0 / 65536, 0, "e5m2 smallest subnormal");
	tap_is_dbl(np_pat_f82f(np_pat_f2f8(9.0f, 1), 1), 8, 0, "e5m2: 9 rounds to even (8)");

	/* matching */
	{
		float f = 2.000001f;
		unsigned char b[8];
		tap_ok(np_pat_ok(&f, NP_FLOAT, NP_OP_AVG, 1, 0, 2), "avg on float: tolerance");
		tap_ok(!np_pat_ok(&f, NP_FLOAT, NP_OP_SUM, 1, 0, 2), "sum on float: exact");
		np_pat_store(b, NP_INT32, 0, 3);
		tap_ok(!np_pat_ok(b, NP_INT32, NP_OP_AVG, 1, 0, 2), "avg on int: exact");
		np_pat_store(b, NP_UINT8, 0, -1);
		tap_ok(np_pat_ok(b, NP_UINT8, NP_OP_PROD, 1, 0, 255),
		       "uint8: -1 is 255 (the word compares)");
		memset(b, 0xff, sizeof(b));
		tap_ok(!np_pat_ok(b, NP_HALF, NP_OP_AVG, 4, 0, 0), "a NaN never matches");
	}
	return tap_done();
}
