/* SPDX-License-Identifier: MIT */
/* Option values: sizes, sweeps, plain numbers, percentages, verdict
 * thresholds and lists (collectives, GPU map), each refused with a usage
 * message that names the value and says what to give instead. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/number.h"
#include "opts.h"
#include "opts_value.h"

enum np_status np_parse_size(const char *s, uint64_t *out, struct np_err *err)
{
	const char *end = s;
	uint64_t v;
	unsigned shift = 0;

	if (!*s || !isdigit((unsigned char)*s))
		return np_fail(err, NP_EUSAGE,
			       "invalid size '%s'; give bytes or a number with K, M, G or T (e.g. 128M)",
			       s);
	if (!np_scan_u64(&end, 10, 0, UINT64_MAX, &v)) /* a digit first: beyond 2^64 - 1 */
		return np_fail(err, NP_EUSAGE, "size '%s' is too large; the largest is %lluT", s,
			       (unsigned long long)(NP_SIZE_MAX >> 40));
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		end++;
		break;
	case 'M':
		shift = 20;
		end++;
		break;
	case 'G':
		shift = 30;
		end++;
		break;
	case 'T':
		shift = 40;
		end++;
		break;
	default: break;
	}
	if (shift && toupper((unsigned char)end[0]) == 'I' && toupper((unsigned char)end[1]) == 'B')
		end += 2;
	else if (toupper((unsigned char)*end) == 'B')
		end++;
	if (*end)
		return np_fail(err, NP_EUSAGE,
			       "invalid size '%s'; give bytes or a number with K, M, G or T (e.g. 128M)",
			       s);
	if (v > (NP_SIZE_MAX >> shift)) /* headroom: send + recv buffers still fit */
		return np_fail(err, NP_EUSAGE, "size '%s' is too large; the largest is %lluT", s,
			       (unsigned long long)(NP_SIZE_MAX >> 40));
	*out = (uint64_t)v << shift;
	return NP_OK;
}

/* A number as people write it: digits, with real numbers one point and an
 * exponent; no sign, space, hexadecimal, inf or nan, which strtod and
 * strtol would take. */
bool np_plain_number(const char *s, bool real)
{
	const char *p = s;
	bool digits = false;

	for (; isdigit((unsigned char)*p); p++)
		digits = true;
	if (real && *p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits = true;
	if (!digits)
		return false;
	if (real && (*p == 'e' || *p == 'E')) {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return *p == '\0';
}

enum np_status np_parse_double(const char *name, const char *s, double lo, double hi, double *out,
			       struct np_err *err)
{
	char *end;
	double v;

	errno = 0;
	v = np_plain_number(s, true) ? strtod(s, &end) : NAN;
	if (!isfinite(v) || errno == ERANGE || v < lo || v > hi)
		return np_fail(err, NP_EUSAGE, "invalid --%s '%s'; give a number from %g to %g",
			       name, s, lo, hi);
	*out = v;
	return NP_OK;
}

enum np_status np_parse_int(const char *name, const char *s, long lo, long hi, int *out,
			    struct np_err *err)
{
	int32_t v;

	if (lo < INT32_MIN || hi > INT32_MAX || !np_parse_i32(s, 10, (int32_t)lo, (int32_t)hi, &v))
		return np_fail(err, NP_EUSAGE, "invalid --%s '%s'; give an integer from %ld to %ld",
			       name, s, lo, hi);
	*out = v;
	return NP_OK;
}

/* A step factor: above 1, at most 1024. NP_EUSAGE without a message: the
 * caller names the factor as the user wrote it. */
enum np_status np_parse_factor(const char *s, double *out)
{
	char *end;
	double v = NAN;

	errno = 0;
	if (np_plain_number(s, true))
		v = strtod(s, &end);
	if (!isfinite(v) || errno == ERANGE || v <= 1.0 || v > 1024.0)
		return NP_EUSAGE;
	*out = v;
	return NP_OK;
}

enum np_status np_parse_sweep(const char *s, struct np_opts *o, struct np_err *err)
{
	char buf[256], *parts[3] = { NULL, NULL, NULL }, *p;
	int n = 0;
	uint64_t lo, hi;

	if (strlen(s) >= sizeof(buf))
		return np_fail(err, NP_EUSAGE, "invalid --sweep '%.40s...'; it is too long", s);
	strcpy(buf, s);
	parts[n++] = buf;
	for (p = buf; *p; p++) {
		if (*p == ':') {
			if (n == 3)
				return np_fail(err, NP_EUSAGE,
					       "invalid --sweep '%s'; use MIN:MAX[:xFACTOR|:+STEP]",
					       s);
			*p = '\0';
			parts[n++] = p + 1;
		}
	}
	if (np_parse_size(parts[0], &lo, err))
		return np_fail(err, NP_EUSAGE,
			       "invalid --sweep '%s': bad minimum '%s'; use MIN:MAX[:xFACTOR|:+STEP], e.g. 128M:8G",
			       s, parts[0]);
	hi = lo;
	if (n >= 2 && np_parse_size(parts[1], &hi, err))
		return np_fail(err, NP_EUSAGE,
			       "invalid --sweep '%s': bad maximum '%s'; use MIN:MAX[:xFACTOR|:+STEP], e.g. 128M:8G",
			       s, parts[1]);
	if (lo == 0)
		return np_fail(err, NP_EUSAGE,
			       "invalid --sweep '%s': the minimum must be at least 1 byte", s);
	if (lo > hi)
		return np_fail(err, NP_EUSAGE,
			       "invalid --sweep '%s': minimum is larger than maximum; swap them",
			       s);
	if (n == 3) {
		if (parts[2][0] == 'x' || parts[2][0] == '*') {
			o->step_kind = NP_STEP_FACTOR;
			if (np_parse_factor(parts[2] + 1, &o->step_factor))
				return np_fail(err, NP_EUSAGE,
					       "invalid step factor in '%s'; give a factor above 1 and at most 1024, e.g. x2",
					       s);
		} else if (parts[2][0] == '+') {
			uint64_t st;
			if (np_parse_size(parts[2] + 1, &st, err) || st == 0)
				return np_fail(err, NP_EUSAGE,
					       "invalid step in --sweep '%s'; give +SIZE with SIZE at least 1 byte",
					       s);
			o->step_kind = NP_STEP_ADD;
			o->step_bytes = st;
		} else {
			return np_fail(err, NP_EUSAGE,
				       "invalid step '%s' in --sweep '%s'; use xFACTOR (e.g. x2) or +SIZE (e.g. +1M)",
				       parts[2], s);
		}
	}
	o->min_bytes = lo;
	o->max_bytes = hi;
	return NP_OK;
}

/* A collective by its name, or as nccl-tests spells it: all_reduce,
 * reduce_scatter, all_reduce_perf (the binary's name). */
static const struct np_coll *coll_spelled(const char *tok)
{
	char name[64];
	size_t n = 0, len = strlen(tok);

	if (len > 5 && !strcmp(tok + len - 5, "_perf"))
		len -= 5;
	for (size_t i = 0; i < len && n + 1 < sizeof(name); i++)
		if (tok[i] != '_')
			name[n++] = (char)tolower((unsigned char)tok[i]);
	name[n] = '\0';
	return np_coll_find(name);
}

enum np_status np_parse_colls(const char *s, struct np_opts *o, struct np_err *err)
{
	char buf[512], *tok, *save = NULL;
	bool any = false;

	if (strlen(s) >= sizeof(buf) || !*s)
		return np_fail(err, NP_EUSAGE,
			       "invalid --coll '%s'; give a comma-separated list or 'all'", s);
	if (s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return np_fail(err, NP_EUSAGE,
			       "invalid --coll '%s': a name between commas is empty; give names separated by single commas, e.g. allreduce,alltoall",
			       s);
	strcpy(buf, s);
	memset(o->colls, 0, sizeof(o->colls));
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct np_coll *c;
		if (!strcmp(tok, "all")) {
			for (int i = 0; i < NP_COLL_COUNT; i++)
				o->colls[i] = true;
			any = true;
			continue;
		}
		c = coll_spelled(tok);
		if (!c) {
			char names[256];
			return np_fail(err, NP_EUSAGE,
				       "unknown collective '%s' in --coll; use %s or all", tok,
				       np_names_join(0, ", ", names, sizeof(names)));
		}
		o->colls[c->id] = true;
		any = true;
	}
	if (!any)
		return np_fail(err, NP_EUSAGE,
			       "invalid --coll '%s'; give a comma-separated list or 'all'", s);
	return NP_OK;
}

enum np_status np_check_gpu_map(const char *s, struct np_err *err)
{
	const char *p = s;

	if (!*s)
		return np_fail(err, NP_EUSAGE,
			       "invalid --gpu-map ''; give GPU indices, e.g. 0,1,2,3");
	while (*p) {
		if (!isdigit((unsigned char)*p))
			return np_fail(err, NP_EUSAGE,
				       "invalid --gpu-map '%s'; give comma-separated GPU indices, e.g. 0,1,2,3",
				       s);
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return np_fail(err, NP_EUSAGE,
				       "invalid --gpu-map '%s'; give comma-separated GPU indices, e.g. 0,1,2,3",
				       s);
	}
	return NP_OK;
}

/* A percentage as people write it: a plain number (see np_plain_number: no
 * blank, sign, hexadecimal, inf or nan), with or without one '%' after
 * it (*sign says which). */
static bool percent_number(const char *val, double *out, bool *sign)
{
	char num[64];
	size_t len = strlen(val);
	bool pct = len && val[len - 1] == '%';
	double v;

	if (pct)
		len--;
	if (!len || len >= sizeof(num))
		return false;
	memcpy(num, val, len);
	num[len] = '\0';
	if (!np_plain_number(num, true))
		return false;
	errno = 0;
	v = strtod(num, NULL);
	if (errno == ERANGE || !isfinite(v))
		return false;
	*out = v;
	if (sign)
		*sign = pct;
	return true;
}

/* A percentage from 0 to below 100 for option NAME, as a fraction. */
enum np_status np_parse_pct(const char *name, const char *val, const char *eg, double *out,
			    struct np_err *err)
{
	double pct = NAN;

	if (!percent_number(val, &pct, NULL) || !(pct >= 0 && pct < 100))
		return np_fail(err, NP_EUSAGE,
			       "invalid --%s '%s'; give a percentage from 0 to below 100, e.g. %s",
			       name, val, eg);
	*out = pct / 100.0;
	return NP_OK;
}

enum { TV_OK, TV_BAD, TV_FRACTION };

/* One threshold value: a percentage (div > 1: a plain number or one with
 * '%', where a value between 0 and 1 without '%' is taken for a fraction
 * and refused with its own message) or a rate (a plain number). TV_BAD:
 * not a number in range, the caller says what is expected. */
static int threshold_value(const char *opt, const char *val, const char *v_text, double hi,
			   double div, double *out, struct np_err *err)
{
	bool sign = false;
	double v = NAN;

	if (div > 1 ? !percent_number(v_text, &v, &sign) : !np_plain_number(v_text, true))
		return TV_BAD;
	if (div <= 1) {
		errno = 0;
		v = strtod(v_text, NULL);
		if (errno == ERANGE)
			return TV_BAD;
	}
	if (!isfinite(v) || v < 0 || v > hi)
		return TV_BAD;
	if (div > 1 && !sign && v > 0 && v < 1) {
		np_fail(err, NP_EUSAGE,
			"invalid --%s '%s': the value is a percentage, so %s is %s%%; did you mean %g? give %g (or %g%%), or %s%% for %s percent",
			opt, val, v_text, v_text, v * 100, v * 100, v * 100, v_text, v_text);
		return TV_FRACTION;
	}
	*out = v;
	return TV_OK;
}

/* A verdict threshold: one value for every collective, or COLL=V pairs
 * separated by commas, each collective once; values are scaled by 1/div
 * into the fields. */
enum np_status np_parse_threshold(const char *opt, const char *val, double hi, double div,
				  const char *unit, struct np_opts *o, double *all, double *per,
				  struct np_err *err)
{
	char buf[512], *save = NULL;
	bool seen[NP_COLL_COUNT] = { false };
	double v;
	int tv;

	if (!strchr(val, '=')) {
		if ((tv = threshold_value(opt, val, val, hi, div, &v, err)))
			return tv == TV_FRACTION
				       ? NP_EUSAGE
				       : np_fail(err, NP_EUSAGE,
						 "invalid --%s '%s'; give %s from 0 to %g, e.g. %s or allreduce=%s,alltoall=%s",
						 opt, val, unit, hi, div > 1 ? "80" : "150",
						 div > 1 ? "80" : "150", div > 1 ? "70" : "90");
		*all = v / div;
		for (int c = 0; c < NP_COLL_COUNT; c++)
			per[c] = v / div;
		return NP_OK;
	}
	if (strlen(val) >= sizeof(buf))
		return np_fail(err, NP_EUSAGE, "--%s '%.40s...' is too long", opt, val);
	if (val[0] == ',' || val[strlen(val) - 1] == ',' || strstr(val, ",,"))
		return np_fail(err, NP_EUSAGE,
			       "invalid --%s '%s': a pair between commas is empty; give COLL=VALUE pairs separated by single commas, e.g. allreduce=%s,alltoall=%s",
			       opt, val, div > 1 ? "80" : "150", div > 1 ? "70" : "90");
	strcpy(buf, val);
	*all = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const struct np_coll *c;
		if (!eq)
			return np_fail(err, NP_EUSAGE,
				       "invalid --%s '%s': '%s' has no '='; give COLL=VALUE pairs, e.g. allreduce=%s,alltoall=%s",
				       opt, val, tok, div > 1 ? "80" : "150",
				       div > 1 ? "70" : "90");
		*eq = '\0';
		c = np_coll_find(tok);
		if (!c)
			return np_fail(err, NP_EUSAGE,
				       "invalid --%s '%s': unknown collective '%s' (see --coll)",
				       opt, val, tok);
		if (seen[c->id])
			return np_fail(err, NP_EUSAGE,
				       "invalid --%s '%s': %s is given twice; give each collective once",
				       opt, val, c->name);
		seen[c->id] = true;
		if ((tv = threshold_value(opt, val, eq + 1, hi, div, &v, err)))
			return tv == TV_FRACTION
				       ? NP_EUSAGE
				       : np_fail(err, NP_EUSAGE,
						 "invalid --%s '%s': '%s' is not %s from 0 to %g",
						 opt, val, eq + 1, unit, hi);
		per[c->id] = v / div;
		o->coll_named_by[c->id] = opt;
	}
	return NP_OK;
}
