/* SPDX-License-Identifier: MIT */
/* Checked integers from text (common/number.h): one digit loop that
 * refuses overflow, every other parser of integers is built on it. */
#include "config.h"

#include "number.h"

static int digit(char c, int base)
{
	int d = c >= '0' && c <= '9'   ? c - '0'
		: c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10
				       : 99;
	return d < base ? d : -1;
}

/* The magnitude at *s, at most max, *s moved past it */
static bool magnitude(const char **s, int base, uint64_t max, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	int d;

	if (base == 0) {
		base = 10;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && digit(p[2], 16) >= 0) {
			base = 16;
			p += 2;
		} else if (p[0] == '0' && digit(p[1], 10) >= 0) { /* 08: not octal, refused */
			base = 8;
			p++;
		}
	}
	if (base != 8 && base != 10 && base != 16)
		return false;
	if (digit(*p, base) < 0)
		return false;
	for (; (d = digit(*p, base)) >= 0; p++) {
		if ((uint64_t)d > max || v > (max - (uint64_t)d) / (uint64_t)base)
			return false; /* beyond max, or beyond 2^64 - 1 */
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*s = p;
	*out = v;
	return true;
}

bool np_scan_u64(const char **s, int base, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const char *p = *s;
	uint64_t v;

	if (lo > hi || !magnitude(&p, base, hi, &v) || v < lo)
		return false;
	*s = p;
	*out = v;
	return true;
}

bool np_scan_i64(const char **s, int base, int64_t lo, int64_t hi, int64_t *out)
{
	const char *p = *s;
	bool neg = *p == '-';
	uint64_t m;
	int64_t v;

	if (lo > hi || (neg && lo >= 0) || (!neg && hi < 0))
		return false;
	p += neg;
	/* a negative's magnitude reaches 2^63 (INT64_MIN) */
	if (!magnitude(&p, base, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)hi, &m))
		return false;
	v = !neg ? (int64_t)m : m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
	if (v < lo || v > hi)
		return false;
	*s = p;
	*out = v;
	return true;
}

bool np_parse_u64(const char *s, int base, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v;

	if (!s || !np_scan_u64(&s, base, lo, hi, &v) || *s)
		return false;
	*out = v;
	return true;
}

bool np_parse_i64(const char *s, int base, int64_t lo, int64_t hi, int64_t *out)
{
	int64_t v;

	if (!s || !np_scan_i64(&s, base, lo, hi, &v) || *s)
		return false;
	*out = v;
	return true;
}

bool np_parse_i32(const char *s, int base, int32_t lo, int32_t hi, int32_t *out)
{
	int64_t v;

	if (!np_parse_i64(s, base, lo, hi, &v))
		return false;
	*out = (int32_t)v;
	return true;
}
