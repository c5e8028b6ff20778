/* SPDX-License-Identifier: MIT */
/* A minimal TAP producer for the C unit tests. */
#ifndef NP_TAP_H
#define NP_TAP_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define TAP_PRINTF __attribute__((format(printf, 2, 3)))
static void tap_ok(int cond, const char *fmt, ...) TAP_PRINTF;
#include <stdarg.h>
static void tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
}

#define tap_is_int(got, want, ...)                                       \
	do {                                                             \
		long long g_ = (long long)(got), w_ = (long long)(want); \
		tap_ok(g_ == w_, __VA_ARGS__);                           \
		if (g_ != w_)                                            \
			printf("#   got %lld, want %lld\n", g_, w_);     \
	} while (0)

#define tap_is_dbl(got, want, tol, ...)                                \
	do {                                                           \
		double g_ = (got), w_ = (want);                        \
		tap_ok(fabs(g_ - w_) <= (tol), __VA_ARGS__);           \
		if (!(fabs(g_ - w_) <= (tol)))                         \
			printf("#   got %.12g, want %.12g\n", g_, w_); \
	} while (0)

#define tap_is_str(got, want, ...)                                              \
	do {                                                                    \
		const char *g_ = (got), *w_ = (want);                           \
		int eq_ = g_ && w_ && !strcmp(g_, w_);                          \
		tap_ok(eq_, __VA_ARGS__);                                       \
		if (!eq_)                                                       \
			printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", \
			       w_ ? w_ : "(null)");                             \
	} while (0)

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
