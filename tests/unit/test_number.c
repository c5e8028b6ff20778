/* SPDX-License-Identifier: MIT */
/* The checked integer parser (common/number.c): bases, limits at 2^64 - 1
 * and 2^63, ranges, signs, blanks and trailing characters refused. */
#include "config.h"

#include <stdint.h>

#include "../../common/number.h"
#include "../../src/opts.h"
#include "../../src/outfile.h"
#include "../../topo/model.h"
#include "tap.h"

static bool u(const char *s, int base, uint64_t lo, uint64_t hi, uint64_t want)
{
	uint64_t v = 12345;
	return np_parse_u64(s, base, lo, hi, &v) && v == want;
}

static bool u_bad(const char *s, int base, uint64_t lo, uint64_t hi)
{
	uint64_t v = 12345;
	return !np_parse_u64(s, base, lo, hi, &v) && v == 12345;
}

static bool i(const char *s, int base, int64_t lo, int64_t hi, int64_t want)
{
	int64_t v = 12345;
	return np_parse_i64(s, base, lo, hi, &v) && v == want;
}

static bool i_bad(const char *s, int base, int64_t lo, int64_t hi)
{
	int64_t v = 12345;
	return !np_parse_i64(s, base, lo, hi, &v) && v == 12345;
}

int main(void)
{
	tap_ok(u("0", 10, 0, UINT64_MAX, 0) && u("42", 10, 0, UINT64_MAX, 42), "decimal");
	tap_ok(u("18446744073709551615", 10, 0, UINT64_MAX, UINT64_MAX), "2^64 - 1 is the largest");
	tap_ok(u_bad("18446744073709551616", 10, 0, UINT64_MAX) &&
		       u_bad("99999999999999999999999", 10, 0, UINT64_MAX),
	       "2^64 and beyond refused, not wrapped");
	tap_ok(u_bad("", 10, 0, 9) && u_bad(NULL, 10, 0, 9), "empty and NULL refused");
	tap_ok(u_bad(" 5", 10, 0, 9) && u_bad("5 ", 10, 0, 9) && u_bad("5\n", 10, 0, 9),
	       "blanks before or after refused");
	tap_ok(u_bad("12abc", 10, 0, 100) && u_bad("1.5", 10, 0, 100) && u_bad("1e3", 10, 0, 10000),
	       "trailing characters refused");
	tap_ok(u_bad("-1", 10, 0, UINT64_MAX) && u_bad("+1", 10, 0, UINT64_MAX),
	       "a sign refused for an unsigned number (strtoull read -1 as 2^64 - 1)");
	tap_ok(u("100", 10, 1, 100, 100) && u_bad("101", 10, 1, 100) && u_bad("0", 10, 1, 100),
	       "the range's ends included, beyond refused");
	tap_ok(u_bad("8", 10, 0, 7) && u_bad("f", 16, 0, 7) && u("7", 10, 0, 7, 7) &&
		       i_bad("9", 10, -5, 5),
	       "one digit above a range below the base refused");
	tap_ok(u("ff", 16, 0, 255, 255) && u("3B", 16, 0, 255, 59) && u_bad("0xff", 16, 0, 255),
	       "base 16: digits alone");
	tap_ok(u("0x1f", 0, 0, 100, 31) && u("017", 0, 0, 100, 15) && u("17", 0, 0, 100, 17) &&
		       u("0", 0, 0, 100, 0) && u_bad("0x", 0, 0, 100) && u_bad("08", 0, 0, 100),
	       "base 0: C's 0x and 0 prefixes");
	tap_ok(i("-1", 10, -1, 1, -1) && i("1", 10, -1, 1, 1) && i_bad("-2", 10, -1, 1),
	       "signed in range");
	tap_ok(i("-9223372036854775808", 10, INT64_MIN, INT64_MAX, INT64_MIN) &&
		       i("9223372036854775807", 10, INT64_MIN, INT64_MAX, INT64_MAX),
	       "INT64_MIN and INT64_MAX");
	tap_ok(i_bad("-9223372036854775809", 10, INT64_MIN, INT64_MAX) &&
		       i_bad("9223372036854775808", 10, INT64_MIN, INT64_MAX),
	       "beyond them refused");
	tap_ok(i_bad("-1", 10, 0, 10) && i_bad("--1", 10, -5, 5) && i_bad("-", 10, -5, 5) &&
		       i_bad("- 1", 10, -5, 5),
	       "'-' only where the range holds negatives, and before a digit");
	{
		int32_t v = 7;
		tap_ok(np_parse_i32("2147483647", 10, 0, INT32_MAX, &v) && v == INT32_MAX &&
			       !np_parse_i32("2147483648", 10, 0, INT32_MAX, &v) && v == INT32_MAX,
		       "32-bit: INT32_MAX, not one more");
	}
	{
		const char *s = "0000:3b:00.0", *p = s;
		uint64_t dom = 0, bus = 0;
		tap_ok(np_scan_u64(&p, 16, 0, 0xffff, &dom) && *p == ':' &&
			       (p++, np_scan_u64(&p, 16, 0, 0xff, &bus)) && dom == 0 &&
			       bus == 0x3b && *p == ':',
		       "scan: a PCI address field by field, the caller judging what follows");
		p = "1ff:";
		tap_ok(!np_scan_u64(&p, 16, 0, 0xff, &bus) && !strcmp(p, "1ff:"),
		       "scan: out of range, nothing moved");
		p = "x1";
		tap_ok(!np_scan_u64(&p, 10, 0, 9, &bus) && *p == 'x', "scan: no digit");
		int64_t n;
		p = "-12(x3)";
		tap_ok(np_scan_i64(&p, 10, -100, 100, &n) && n == -12 && *p == '(', "scan: signed");
	}
	/* its callers: what strtoul let through is refused there too */
	{
		char id[32] = "";
		tap_ok(np_busid_norm("0000:3B:00.1", id, sizeof(id)) &&
			       !strcmp(id, "0000:3b:00.1") &&
			       np_busid_norm("19:00.0", id, sizeof(id)) &&
			       !strcmp(id, "0000:19:00.0"),
		       "PCI address: with and without a domain");
		tap_ok(!np_busid_norm("-1:00.0", id, sizeof(id)) &&
			       !np_busid_norm(" 0000:3b:00.0", id, sizeof(id)) &&
			       !np_busid_norm("0x0:3b:00.0", id, sizeof(id)) &&
			       !np_busid_norm("0000:3b:20.0", id, sizeof(id)) &&
			       !np_busid_norm("0000:3b:00.8", id, sizeof(id)) &&
			       !np_busid_norm("100000000:3b:00.0", id, sizeof(id)),
		       "PCI address: a sign, a blank, 0x, a device above 1f, a function above 7, a domain above 32 bits refused");
		tap_ok(np_outfile_is_stream("/dev/fd/3") &&
			       !np_outfile_is_stream("/dev/fd/4294967299") &&
			       !np_outfile_is_stream("/dev/fd/3x"),
		       "/dev/fd/N: a descriptor beyond int (it wrapped to 3) or with trailing characters is a file name");
		uint64_t v;
		struct np_err err = { 0 };
		tap_ok(np_parse_size("18446744073709551616", &v, &err) == NP_EUSAGE &&
			       strstr(err.msg, "too large"),
		       "a size beyond 2^64 - 1 is too large, not wrapped");
	}
	return tap_done();
}
