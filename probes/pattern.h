/* SPDX-License-Identifier: MIT */
/* Data patterns for --check whose exact results are known for every
 * collective, data type and reduction. Shared by the host backend (C) and
 * the device kernels (CUDA): every function is host+device inline.
 *
 * Values are small integers, so every partial result is exact in every
 * type (int8 to double, half and bfloat16 included): sums take at most
 * `np_pat_sum_ranks` contributing ranks, products are 1 or 2, max/min are
 * below 61. Only avg over floating types is compared with a tolerance,
 * because libraries may scale before summing. Element j of a send buffer
 * gets np_pat_input(); element k of a result must be np_pat_expect(). */
#ifndef NP_PATTERN_H
#define NP_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "coll.h"

#ifdef __CUDACC__
#define NP_HD __host__ __device__ static inline
#else
#define NP_HD static inline
#endif

#define NP_PAT_MOD 61 /* data pattern period; < 127 so it fits int8 */

/* Largest value that a type holds exactly as an integer. */
NP_HD int64_t np_pat_maxint(int dtype)
{
	switch (dtype) {
	case NP_INT8: return 127;
	case NP_UINT8: return 255;
	case NP_BFLOAT16: return 256;
	case NP_HALF: return 2048;
	case NP_FLOAT: return 1 << 24;
	default: return INT64_C(1) << 40;
	}
}

/* How many ranks contribute nonzero values to a sum (each adds <= 3). */
NP_HD int np_pat_sum_ranks(int dtype, int n)
{
	int64_t cap = np_pat_maxint(dtype) * 2 / 3 - 4; /* sum <= 1.5c + 3 */
	return (int64_t)n < cap ? n : (int)cap;
}

/* Value of element j of the data pattern of rank r (moves, not reductions). */
NP_HD int64_t np_pat_data(int r, size_t j)
{
	return (int64_t)((j + 17 * (size_t)r) % NP_PAT_MOD);
}

NP_HD int64_t np_pat_avg_value(int dtype, int n, size_t j)
{
	int64_t mx = np_pat_maxint(dtype);
	if (3 * (int64_t)n <= mx)
		return (int64_t)(j % 4);
	return (int64_t)n <= mx ? (int64_t)(j % 2) : 0;
}

/* Input of rank r at index j of its send buffer for a reduction op. */
NP_HD int64_t np_pat_red_input(int op, int dtype, int n, int r, size_t j)
{
	switch (op) {
	case NP_OP_SUM:
		return r < np_pat_sum_ranks(dtype, n) ? (int64_t)((j + 3 * (size_t)r) % 4) : 0;
	case NP_OP_PROD:
		return ((size_t)r == j % (size_t)n && (j / (size_t)n) % 2 == 0) ? 2 : 1;
	case NP_OP_MAX:
	case NP_OP_MIN:
		return (int64_t)((j + (size_t)r) % NP_PAT_MOD);
	case NP_OP_AVG:
		return np_pat_avg_value(dtype, n, j);
	}
	return 0;
}

/* Reduction over ranks 0..n-1 of np_pat_red_input(op, dtype, n, r, j). */
NP_HD int64_t np_pat_red_expect(int op, int dtype, int n, size_t j)
{
	int64_t a = (int64_t)(j % NP_PAT_MOD);
	switch (op) {
	case NP_OP_SUM: {
		int c = np_pat_sum_ranks(dtype, n);
		int full = c / 4;
		int64_t s = 6 * (int64_t)full;
		for (int r = 4 * full; r < c; r++)
			s += (int64_t)((j + 3 * (size_t)r) % 4);
		return s;
	}
	case NP_OP_PROD:
		return ((j / (size_t)n) % 2 == 0) ? 2 : 1;
	case NP_OP_MAX:
		if (n >= NP_PAT_MOD || a + n - 1 >= NP_PAT_MOD)
			return NP_PAT_MOD - 1;
		return a + n - 1;
	case NP_OP_MIN:
		if (n >= NP_PAT_MOD || a + n - 1 >= NP_PAT_MOD)
			return 0;
		return a;
	case NP_OP_AVG:
		return np_pat_avg_value(dtype, n, j);
	}
	return 0;
}

/* Input at index j of rank r's send buffer for a collective. */
NP_HD int64_t np_pat_input(int coll, int op, int dtype, int n, int r, size_t j)
{
	switch (coll) {
	case NP_COLL_ALLREDUCE:
	case NP_COLL_REDUCE:
	case NP_COLL_REDUCESCATTER:
		return np_pat_red_input(op, dtype, n, r, j);
	default:
		return np_pat_data(r, j);
	}
}

/* Whether element k of rank r's result is defined (reduce: root only). */
NP_HD int np_pat_defined(int coll, int r, int root)
{
	return coll != NP_COLL_REDUCE || r == root;
}

/* Expected element k of rank r's result (logical layout of the library:
 * count elements, or count*n for allgather and alltoall). */
NP_HD int64_t np_pat_expect(int coll, int op, int dtype, int n, int r, int root,
			    size_t count, size_t k)
{
	switch (coll) {
	case NP_COLL_ALLREDUCE:
	case NP_COLL_REDUCE:
		return np_pat_red_expect(op, dtype, n, k);
	case NP_COLL_REDUCESCATTER:
		return np_pat_red_expect(op, dtype, n, (size_t)r * count + k);
	case NP_COLL_ALLGATHER:
		return np_pat_data((int)(k / count), k % count);
	case NP_COLL_ALLTOALL:
		return np_pat_data((int)(k / count), (size_t)r * count + k % count);
	case NP_COLL_BROADCAST:
		return np_pat_data(root, k);
	case NP_COLL_SENDRECV:
		return np_pat_data((r - 1 + n) % n, k);
	}
	return 0;
}

/* half and bfloat16 from and to float, exact for the small integers used. */
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

/* Store value v at index i of a buffer of type dtype. */
NP_HD void np_pat_store(void *buf, int dtype, size_t i, int64_t v)
{
	switch (dtype) {
	case NP_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
	case NP_UINT8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
	case NP_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
	case NP_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
	case NP_INT64: ((int64_t *)buf)[i] = v; break;
	case NP_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
	case NP_HALF: ((uint16_t *)buf)[i] = np_pat_f2h((float)v); break;
	case NP_FLOAT: ((float *)buf)[i] = (float)v; break;
	case NP_DOUBLE: ((double *)buf)[i] = (double)v; break;
	case NP_BFLOAT16: ((uint16_t *)buf)[i] = np_pat_f2bf((float)v); break;
	}
}

/* Load index i of a buffer of type dtype as a double. */
NP_HD double np_pat_load(const void *buf, int dtype, size_t i)
{
	switch (dtype) {
	case NP_INT8: return ((const int8_t *)buf)[i];
	case NP_UINT8: return ((const uint8_t *)buf)[i];
	case NP_INT32: return ((const int32_t *)buf)[i];
	case NP_UINT32: return ((const uint32_t *)buf)[i];
	case NP_INT64: return (double)((const int64_t *)buf)[i];
	case NP_UINT64: return (double)((const uint64_t *)buf)[i];
	case NP_HALF: return np_pat_h2f(((const uint16_t *)buf)[i]);
	case NP_FLOAT: return ((const float *)buf)[i];
	case NP_DOUBLE: return ((const double *)buf)[i];
	case NP_BFLOAT16: return np_pat_bf2f(((const uint16_t *)buf)[i]);
	}
	return 0;
}

/* Whether a result element matches: exact, except avg over floating types. */
NP_HD int np_pat_match(int dtype, int op, double got, int64_t want)
{
	double w = (double)want, d = got - w, tol;
	if (d < 0)
		d = -d;
	if (op != NP_OP_AVG || dtype == NP_INT8 || dtype == NP_UINT8 ||
	    dtype == NP_INT32 || dtype == NP_UINT32 || dtype == NP_INT64 ||
	    dtype == NP_UINT64)
		return got == w;
	tol = dtype == NP_DOUBLE ? 1e-12 : dtype == NP_FLOAT ? 1e-5 : 2e-2;
	return d <= tol * (w > 1 ? w : 1);
}

#endif
