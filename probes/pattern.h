/* SPDX-License-Identifier: MIT */
/* Data patterns for --check whose exact results are known for every
 * collective, data type and reduction, on any rank count up to 65536.
 * Shared by the host backend (C) and the device kernels (CUDA): every
 * function is host+device inline.
 *
 * Every rank's and every element's data differ: values come from a hash of
 * (rank, index), so a block misrouted between any two ranks is counted.
 * Reductions keep a closed-form result without looping over ranks:
 *  - sum, avg: rank i of a chain sends a + e(i) - e(i+1) (the chain closes,
 *    so the e terms cancel): the sum is c*a for a chain of c ranks. 32- and
 *    64-bit integers use every rank and the whole word (wrap-around
 *    arithmetic); floating types and 8-bit integers bound c*(a + max e) by
 *    the largest integer the type holds, so no partial sum in any order
 *    rounds or overflows (some MPI libraries saturate 8-bit sums), and
 *    chains start at a hashed rank when fewer than n ranks fit.
 *  - prod: rank i sends s(i)*s(i+1) with s = +-1 (the signs cancel), and
 *    one rank per element multiplies by 2: the product is 1 or 2.
 *  - max (min): one hashed rank sends m, the others m - u (m + u), u >= 1.
 * Only avg over floating types is compared with a tolerance: libraries
 * scale each input by 1/n before summing. Element j of a send buffer gets
 * np_pat_input(); element k of a result must be np_pat_expect(). */
#ifndef NP_PATTERN_H
#define NP_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "../common/coll.h"

#ifdef __CUDACC__
#define NP_HD __host__ __device__ static inline
#else
#define NP_HD static inline
#endif

#define NP_PAT_MAX_RANKS 65536
/* contributors per element of a floating-point avg (keeps its rounding small) */
#define NP_PAT_AVG_CHAIN 8

/* A bijective 64-bit mixer (the splitmix64 finalizer). */
NP_HD uint64_t np_pat_mix(uint64_t z)
{
	z ^= z >> 30;
	z *= 0xbf58476d1ce4e5b9ull;
	z ^= z >> 27;
	z *= 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z;
}

/* Hash of a pair: for a fixed a, distinct b give distinct values, and the
 * other way round. */
NP_HD uint64_t np_pat_hash(uint64_t a, uint64_t b)
{
	return np_pat_mix(np_pat_mix(a + 0x9e3779b97f4a7c15ull) ^ b);
}

NP_HD int np_pat_is_float(int dtype)
{
	return dtype == NP_HALF || dtype == NP_FLOAT || dtype == NP_DOUBLE ||
	       dtype == NP_BFLOAT16 || dtype == NP_FP8E4M3 || dtype == NP_FP8E5M2;
}

/* Bits of an integer type's word. */
NP_HD int np_pat_bits(int dtype)
{
	switch (dtype) {
	case NP_INT8:
	case NP_UINT8: return 8;
	case NP_INT32:
	case NP_UINT32: return 32;
	default: return 64;
	}
}

/* Sums that must stay small: floating types (they round) and 8-bit
 * integers (they overflow, and some MPI libraries saturate). */
NP_HD int np_pat_bounded(int dtype) { return np_pat_is_float(dtype) || np_pat_bits(dtype) == 8; }

/* Bounded types: every integer in [-P, P] (8-bit: the type's range) is exact. */
NP_HD int64_t np_pat_exact(int dtype)
{
	switch (dtype) {
	case NP_INT8: return 127;
	case NP_UINT8: return 255;
	case NP_FP8E5M2: return 8;
	case NP_FP8E4M3: return 16;
	case NP_BFLOAT16: return 256;
	case NP_HALF: return 2048;
	case NP_FLOAT: return INT64_C(1) << 24;
	default: return INT64_C(1) << 53;
	}
}

/* Range [lo, hi] of the values used for data moves, max and min. */
NP_HD void np_pat_range(int dtype, int64_t *lo, int64_t *hi)
{
	switch (dtype) {
	case NP_INT8:
		*lo = -128;
		*hi = 127;
		return;
	case NP_UINT8:
		*lo = 0;
		*hi = 255;
		return;
	case NP_INT32:
		*lo = -(INT64_C(1) << 31);
		*hi = (INT64_C(1) << 31) - 1;
		return;
	case NP_UINT32:
		*lo = 0;
		*hi = (INT64_C(1) << 32) - 1;
		return;
	case NP_INT64:
		*lo = -(INT64_C(1) << 62);
		*hi = INT64_C(1) << 62;
		return;
	case NP_UINT64:
		*lo = 0;
		*hi = INT64_MAX;
		return;
	default:
		*hi = np_pat_exact(dtype);
		*lo = -*hi;
		return;
	}
}

/* Bounded sums: chain terms are a + e(i) - e(i+1), a in [amin, A], e in
 * [0, E], so |term| <= A + E; integers take a >= E, so no term is
 * negative (an unsigned partial sum never wraps below 0). */
NP_HD void np_pat_sum_terms(int dtype, int64_t *A, int64_t *E)
{
	switch (dtype) {
	case NP_INT8:
	case NP_UINT8:
		*A = 2;
		*E = 1;
		return;
	case NP_FP8E5M2:
	case NP_FP8E4M3:
		*A = 1;
		*E = 1;
		return;
	case NP_BFLOAT16:
		*A = 2;
		*E = 1;
		return;
	case NP_HALF:
		*A = 8;
		*E = 7;
		return;
	case NP_FLOAT:
		*A = 128;
		*E = 127;
		return;
	default:
		*A = INT64_C(1) << 20;
		*E = (INT64_C(1) << 20) - 1;
		return;
	}
}

/* Ranks in the chain of an element of a sum or avg over n ranks. */
NP_HD int np_pat_chain(int op, int dtype, int n)
{
	int64_t A, E, c;

	if (!np_pat_bounded(dtype))
		return n;
	np_pat_sum_terms(dtype, &A, &E);
	c = np_pat_exact(dtype) / (A + E);
	if (op == NP_OP_AVG && np_pat_is_float(dtype) && c > NP_PAT_AVG_CHAIN)
		c = NP_PAT_AVG_CHAIN;
	return (int64_t)n < c ? n : (int)c;
}

/* Per-element hash of a reduction. */
NP_HD uint64_t np_pat_elem(int op, size_t j)
{
	return np_pat_hash((uint64_t)(op + 1) << 32, (uint64_t)j);
}

/* Data of rank r at index j for moves (allgather, alltoall, broadcast,
 * gather, scatter, sendrecv): a hash of (r, j) in the type's range. */
NP_HD int64_t np_pat_data(int dtype, int r, size_t j)
{
	uint64_t h = np_pat_hash((uint64_t)r, (uint64_t)j);
	int64_t lo, hi;

	if (!np_pat_is_float(dtype))
		return (int64_t)h; /* stored truncated: every bit pattern is a value */
	np_pat_range(dtype, &lo, &hi);
	return lo + (int64_t)(h % (uint64_t)(hi - lo + 1));
}

/* A sum's term that every rank of element h shares: for an unbounded
 * type a share of its range; for a bounded one at least amin (0 on
 * floating types, E on integers, which each rank may lower by up to E),
 * *E the spread a rank adds or takes */
NP_HD int64_t np_pat_sum_base(int dtype, int n, uint64_t h, int64_t *E)
{
	int64_t lo, hi, A, amin;

	if (!np_pat_bounded(dtype)) {
		np_pat_range(dtype, &lo, &hi);
		*E = 0;
		return (int64_t)(h % ((uint64_t)hi / (uint64_t)n + 1));
	}
	np_pat_sum_terms(dtype, &A, E);
	amin = np_pat_is_float(dtype) ? 0 : *E;
	return amin + (int64_t)(h % (uint64_t)(A - amin + 1));
}

/* max and min of element h: the range's bottom, half its span (U) and
 * the element's offset m above the bottom */
NP_HD int64_t np_pat_extreme(int dtype, uint64_t h, uint64_t *U, uint64_t *m)
{
	int64_t lo, hi;
	uint64_t span;

	np_pat_range(dtype, &lo, &hi);
	span = (uint64_t)hi - (uint64_t)lo;
	*U = span / 2;
	*m = np_pat_mix(h) % (span - *U + 1);
	return lo;
}

/* Input of rank r at index j of its send buffer for a reduction op. */
NP_HD int64_t np_pat_red_input(int op, int dtype, int n, int r, size_t j)
{
	uint64_t h = np_pat_elem(op, j);

	switch (op) {
	case NP_OP_SUM:
	case NP_OP_AVG: {
		int c = np_pat_chain(op, dtype, n);
		int s = c < n ? (int)((h >> 32) % (uint64_t)n) : 0;
		int i = (r - s + n) % n, i1 = (i + 1) % (c > 0 ? c : 1);
		int64_t E, a;
		if (i >= c)
			return 0;
		a = np_pat_sum_base(dtype, n, h, &E);
		if (!np_pat_bounded(dtype))
			return (int64_t)((uint64_t)a + np_pat_hash(h, (uint64_t)i) -
					 np_pat_hash(h, (uint64_t)i1));
		return a + (int64_t)(np_pat_hash(h, (uint64_t)i) % (uint64_t)(E + 1)) -
		       (int64_t)(np_pat_hash(h, (uint64_t)i1) % (uint64_t)(E + 1));
	}
	case NP_OP_PROD: {
		int t = (int)((h >> 8) % (uint64_t)n), i1 = (r + 1) % n;
		int64_t v = ((np_pat_hash(h, (uint64_t)r) & 1) ? -1 : 1) *
			    ((np_pat_hash(h, (uint64_t)i1) & 1) ? -1 : 1);
		return (h & 1) && r == t ? 2 * v : v;
	}
	case NP_OP_MAX:
	case NP_OP_MIN: {
		int t = (int)((h >> 8) % (uint64_t)n);
		uint64_t U, m, u;
		int64_t lo = np_pat_extreme(dtype, h, &U, &m); /* m: element - lo */
		u = r == t ? 0 : 1 + np_pat_hash(h, (uint64_t)r) % U;
		if (op == NP_OP_MAX)
			return (int64_t)((uint64_t)lo + U + m - u);
		return (int64_t)((uint64_t)lo + m + u);
	}
	}
	return 0;
}

/* Reduction over ranks 0..n-1 of np_pat_red_input(op, dtype, n, r, j);
 * for avg over floating types the sum, which np_pat_ok divides by n. */
NP_HD int64_t np_pat_red_expect(int op, int dtype, int n, size_t j)
{
	uint64_t h = np_pat_elem(op, j);

	switch (op) {
	case NP_OP_SUM:
	case NP_OP_AVG: {
		int c = np_pat_chain(op, dtype, n);
		int64_t E, a = np_pat_sum_base(dtype, n, h, &E), sum;
		if (!np_pat_bounded(dtype))
			return (int64_t)(op == NP_OP_AVG ? (uint64_t)a : (uint64_t)a * (uint64_t)n);
		sum = (int64_t)c * a;
		/* integer avg: the sum divided by n, truncated (NCCL and MPI alike) */
		return op == NP_OP_AVG && !np_pat_is_float(dtype) ? sum / n : sum;
	}
	case NP_OP_PROD: return (h & 1) ? 2 : 1;
	case NP_OP_MAX:
	case NP_OP_MIN: {
		uint64_t U, m;
		int64_t lo = np_pat_extreme(dtype, h, &U, &m);
		return (int64_t)((uint64_t)lo + m + (op == NP_OP_MAX ? U : 0));
	}
	}
	return 0;
}

/* Input at index j of rank r's send buffer; reduce: the collective
 * reduces (NP_COLL_F_REDUCE). */
NP_HD int64_t np_pat_input(int reduce, int op, int dtype, int n, int r, size_t j)
{
	return reduce ? np_pat_red_input(op, dtype, n, r, j) : np_pat_data(dtype, r, j);
}

/* Whether rank r's result is defined (reduce and gather: root only). */
NP_HD int np_pat_defined(struct np_coll_expect e, int r, int root)
{
	return !e.root_only || r == root;
}

/* Expected element k of rank r's result (the library's logical layout:
 * count elements, or count*n where the collective's recv_n says). */
NP_HD int64_t np_pat_expect(struct np_coll_expect e, int op, int dtype, int n, int r, int root,
			    size_t count, size_t k)
{
	size_t off = e.rank_offset ? (size_t)r * count : 0;

	switch (e.src) {
	case NP_SRC_REDUCE: return np_pat_red_expect(op, dtype, n, off + k);
	case NP_SRC_BLOCK: return np_pat_data(dtype, (int)(k / count), off + k % count);
	case NP_SRC_ROOT: return np_pat_data(dtype, root, off + k);
	case NP_SRC_PREV: return np_pat_data(dtype, (r - 1 + n) % n, k);
	}
	return 0;
}

/* ---- conversions: half, bfloat16 and fp8 from and to float ------------- */

union np_pat_f32 {
	float f;
	uint32_t u;
};

NP_HD uint16_t np_pat_f2h(float f)
{
	union np_pat_f32 v;
	v.f = f;
	uint32_t sign = (v.u >> 16) & 0x8000u;
	int32_t e = (int32_t)((v.u >> 23) & 0xff) - 127 + 15;
	uint32_t m = v.u & 0x7fffffu;
	if ((v.u & 0x7fffffffu) == 0)
		return (uint16_t)sign;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (e <= 0) /* subnormal half */
		return (uint16_t)(sign | ((m | 0x800000u) >> (14 - e)));
	{
		/* round to nearest even; a carry moves into the exponent */
		uint32_t h = sign | ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fffu;
		if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
			h++;
		return (uint16_t)h;
	}
}

NP_HD float np_pat_h2f(uint16_t h)
{
	union np_pat_f32 v;
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ffu;
	if (e == 0) {
		float f = (float)m / 16777216.0f; /* m * 2^-24 */
		return sign ? -f : f;
	}
	if (e == 31)
		v.u = sign | 0x7f800000u | (m << 13);
	else
		v.u = sign | ((e - 15 + 127) << 23) | (m << 13);
	return v.f;
}

NP_HD uint16_t np_pat_f2bf(float f)
{
	union np_pat_f32 v;
	v.f = f;
	return (uint16_t)((v.u + 0x7fffu + ((v.u >> 16) & 1u)) >> 16);
}

NP_HD float np_pat_bf2f(uint16_t b)
{
	union np_pat_f32 v;
	v.u = (uint32_t)b << 16;
	return v.f;
}

/* 2^e as a float, for -126 <= e <= 127 */
NP_HD float np_pat_pow2(int e)
{
	union np_pat_f32 v;
	v.u = (uint32_t)(e + 127) << 23;
	return v.f;
}

/* fp8 (OCP): e4m3 (bias 7, no infinity, max 448) and e5m2 (bias 15, max
 * 57344); round to nearest even, saturate to the largest finite value. */
NP_HD uint8_t np_pat_f2f8(float f, int e5m2)
{
	int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
	float maxv = e5m2 ? 57344.0f : 448.0f;
	uint8_t maxc = e5m2 ? 0x7b : 0x7e;
	union np_pat_f32 v;
	uint8_t sign;
	int e;
	float a, q, m, r;

	v.f = f;
	sign = (uint8_t)((v.u >> 24) & 0x80u);
	v.u &= 0x7fffffffu;
	a = v.f;
	if (a != a)
		return (uint8_t)(sign | 0x7f);
	if (a >= maxv)
		return (uint8_t)(sign | maxc);
	if (a == 0)
		return sign;
	e = (int)((v.u >> 23) & 0xff) - 127;
	if (e < 1 - bias)
		e = 1 - bias;
	q = np_pat_pow2(e - mbits); /* the quantum at this exponent */
	m = a / q;                  /* exact: a power of two */
	r = (float)(int)m;
	if (m - r > 0.5f || (m - r == 0.5f && ((int)r & 1)))
		r += 1.0f;
	/* r * q, exactly, now encoded (r may have carried to 2^(mbits+1)) */
	if (r >= (float)(1 << (mbits + 1))) {
		r /= 2;
		e++;
	}
	if (r < (float)(1 << mbits)) /* subnormal */
		return (uint8_t)(sign | (int)r);
	if (r * q >= maxv)
		return (uint8_t)(sign | maxc);
	return (uint8_t)(sign | ((e + bias) << mbits) | ((int)r - (1 << mbits)));
}

NP_HD float np_pat_f82f(uint8_t b, int e5m2)
{
	int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
	int e = (b & 0x7f) >> mbits, m = b & ((1 << mbits) - 1);
	float f;

	union np_pat_f32 special;

	special.u = ((uint32_t)(b & 0x80) << 24) | 0x7fc00000u; /* NaN */
	if (!e5m2 && (b & 0x7f) == 0x7f)
		return special.f;
	if (e5m2 && e == 31) {
		if (!m)
			special.u &= 0xff800000u; /* infinity */
		return special.f;
	}
	if (e == 0)
		f = (float)m * np_pat_pow2(1 - bias - mbits);
	else
		f = (float)((1 << mbits) + m) * np_pat_pow2(e - bias - mbits);
	return (b & 0x80) ? -f : f;
}

/* ---- buffers ------------------------------------------------------------ */

/* Store value v at index i of a buffer of type dtype (integers truncated to
 * the word, floating values exact: they are integers the type holds). */
NP_HD void np_pat_store(void *buf, int dtype, size_t i, int64_t v)
{
	switch (dtype) {
	case NP_INT8:
	case NP_UINT8: ((uint8_t *)buf)[i] = (uint8_t)(uint64_t)v; break;
	case NP_INT32:
	case NP_UINT32: ((uint32_t *)buf)[i] = (uint32_t)(uint64_t)v; break;
	case NP_INT64:
	case NP_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
	case NP_HALF: ((uint16_t *)buf)[i] = np_pat_f2h((float)v); break;
	case NP_FLOAT: ((float *)buf)[i] = (float)v; break;
	case NP_DOUBLE: ((double *)buf)[i] = (double)v; break;
	case NP_BFLOAT16: ((uint16_t *)buf)[i] = np_pat_f2bf((float)v); break;
	case NP_FP8E4M3: ((uint8_t *)buf)[i] = np_pat_f2f8((float)v, 0); break;
	case NP_FP8E5M2: ((uint8_t *)buf)[i] = np_pat_f2f8((float)v, 1); break;
	}
}

/* Integer types: the word at index i, zero-extended. */
NP_HD uint64_t np_pat_load_bits(const void *buf, int dtype, size_t i)
{
	switch (np_pat_bits(dtype)) {
	case 8: return ((const uint8_t *)buf)[i];
	case 32: return ((const uint32_t *)buf)[i];
	default: return ((const uint64_t *)buf)[i];
	}
}

/* Floating types: the value at index i. */
NP_HD double np_pat_load(const void *buf, int dtype, size_t i)
{
	switch (dtype) {
	case NP_HALF: return np_pat_h2f(((const uint16_t *)buf)[i]);
	case NP_FLOAT: return ((const float *)buf)[i];
	case NP_DOUBLE: return ((const double *)buf)[i];
	case NP_BFLOAT16: return np_pat_bf2f(((const uint16_t *)buf)[i]);
	case NP_FP8E4M3: return np_pat_f82f(((const uint8_t *)buf)[i], 0);
	case NP_FP8E5M2: return np_pat_f82f(((const uint8_t *)buf)[i], 1);
	}
	return (double)(int64_t)np_pat_load_bits(buf, dtype, i);
}

/* Relative precision (2 ulp at 1) and smallest step of a floating type. */
NP_HD double np_pat_eps(int dtype)
{
	switch (dtype) {
	case NP_FP8E5M2: return 0.25;
	case NP_FP8E4M3: return 0.125;
	case NP_BFLOAT16: return 1.0 / 128;
	case NP_HALF: return 1.0 / 1024;
	case NP_FLOAT: return 1.0 / (1 << 23);
	default: return 1.0 / 4503599627370496.0; /* 2^-52 */
	}
}

NP_HD double np_pat_tiny(int dtype)
{
	switch (dtype) {
	case NP_FP8E5M2: return 1.0 / 65536;
	case NP_FP8E4M3: return 1.0 / 512;
	case NP_HALF: return 1.0 / 16777216;
	default: return 0;
	}
}

/* The tolerance of avg over a floating type on n ranks: each of c terms
 * (|term| <= A+E) is scaled by a rounded 1/n and rounded, and each of the
 * c-1 additions rounds a partial sum of at most c(A+E)/n. */
NP_HD double np_pat_avg_tol(int dtype, int n, double want)
{
	int64_t A, E;
	int c = np_pat_chain(NP_OP_AVG, dtype, n);
	double s, steps = 2.0 * c + 2;

	np_pat_sum_terms(dtype, &A, &E);
	s = (double)c * (double)(A + E) / n;
	return np_pat_eps(dtype) * (steps * s + (want < 0 ? -want : want)) +
	       steps * np_pat_tiny(dtype);
}

/* Whether result element i of buf matches want (np_pat_expect): exact,
 * except avg over floating types. */
NP_HD int np_pat_ok(const void *buf, int dtype, int op, int n, size_t i, int64_t want)
{
	double got, w, d;
	int bits;

	if (!np_pat_is_float(dtype)) {
		bits = np_pat_bits(dtype);
		uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
		return np_pat_load_bits(buf, dtype, i) == ((uint64_t)want & mask);
	}
	got = np_pat_load(buf, dtype, i);
	if (op != NP_OP_AVG)
		return got == (double)want;
	w = (double)want / n;
	d = got - w;
	if (d < 0)
		d = -d;
	return d <= np_pat_avg_tol(dtype, n, w); /* false for NaN */
}

/* A wrong value for a test switch: differs from v, no larger in size. */
NP_HD int64_t np_pat_wrong(int64_t v) { return v > 0 ? v - 1 : v + 1; }

#endif
