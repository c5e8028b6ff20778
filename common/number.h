/* SPDX-License-Identifier: MIT */
/* Integers read from text (options, the environment, /proc, sysfs, XML,
 * hostlists), checked the one way: digits in the base, no blank, no '+',
 * a '-' only where the range holds negatives, no overflow, and within the
 * range; what strtol, atoi and sscanf("%d") let through (trailing
 * garbage, a wrapped value, " 5", "-1" as 2^64-1) is refused. */
#ifndef NP_NUMBER_H
#define NP_NUMBER_H

#include <stdbool.h>
#include <stdint.h>

/* base: 10 or 16 (digits alone, no 0x), or 0 for C's forms (0x1f hexadecimal,
 * 017 octal, else decimal). */

/* The whole of s, in [lo, hi] (lo <= hi), into *out; false, *out left
 * alone, for anything else. */
bool np_parse_u64(const char *s, int base, uint64_t lo, uint64_t hi, uint64_t *out);
bool np_parse_i64(const char *s, int base, int64_t lo, int64_t hi, int64_t *out);
bool np_parse_i32(const char *s, int base, int32_t lo, int32_t hi, int32_t *out);

/* The number at the start of *s, in [lo, hi]; *s moved past its digits
 * (the caller judges what follows: a ':' of a PCI address, a suffix);
 * false, *s and *out left alone, without a digit or out of range. */
bool np_scan_u64(const char **s, int base, uint64_t lo, uint64_t hi, uint64_t *out);
bool np_scan_i64(const char **s, int base, int64_t lo, int64_t hi, int64_t *out);

#endif
