/* SPDX-License-Identifier: MIT */
/* The test-only switches NCCL_PROBE_TEST_*: one parser per variable, and
 * the only getenv() of them, into the plan passed down (common/testhooks.h
 * says what each means). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testhooks.h"

/* The one getenv() of the switches: none where the build leaves them out
 * (configure --disable-test-hooks; NP_TEST_HOOKS_OFF builds the unit test
 * of that) */
#if NP_TEST_HOOKS && !defined(NP_TEST_HOOKS_OFF)
#define HOOKS true
#else
#define HOOKS false
#endif
#define test_env(name) (HOOKS ? getenv(name) : NULL)

bool np_test_hooks_built(void) { return HOOKS; }

/* Every switch and its place in the plan */
static const struct {
	const char *name;
	size_t off;
} switches[] = {
	{ "NCCL_PROBE_TEST_STALL", offsetof(struct np_test_plan, stall) },
	{ "NCCL_PROBE_TEST_CORRUPT", offsetof(struct np_test_plan, corrupt) },
	{ "NCCL_PROBE_TEST_MISROUTE", offsetof(struct np_test_plan, misroute) },
	{ "NCCL_PROBE_TEST_SLOW", offsetof(struct np_test_plan, slow) },
	{ "NCCL_PROBE_TEST_FAIL", offsetof(struct np_test_plan, fail) },
	{ "NCCL_PROBE_TEST_NO_NATIVE", offsetof(struct np_test_plan, no_native) },
	{ "NCCL_PROBE_TEST_TUNE", offsetof(struct np_test_plan, tune) },
};
#define NSWITCHES (sizeof(switches) / sizeof(switches[0]))

static void plan_set(struct np_test_plan *p, size_t k, const char *v)
{
	char *field = (char *)p + switches[k].off;

	if (v && strlen(v) < NP_TEST_VALUE_LEN)
		strcpy(field, v);
	else
		field[0] = '\0';
}

void np_test_plan_read(struct np_test_plan *p)
{
	for (size_t k = 0; k < NSWITCHES; k++)
		plan_set(p, k, test_env(switches[k].name));
}

/* A decimal integer in [0, max] at s, the end in *end; -1 if none. */
static long dec(const char *s, char **end, long max)
{
	long v;

	if (*s < '0' || *s > '9') {
		*end = (char *)s;
		return -1;
	}
	errno = 0;
	v = strtol(s, end, 10);
	return errno || v > max ? -1 : v;
}

void np_test_stall_parse(const char *s, struct np_test_stall *out)
{
	char *end;
	long r, n = 0;

	out->at = NP_STALL_NONE;
	out->rank = -1;
	out->after = 0;
	if (!s || (r = dec(s, &end, INT_MAX)) < 0)
		return;
	if (*end == '@') {
		if ((n = dec(end + 1, &end, LONG_MAX)) < 0 || *end)
			return;
		out->at = NP_STALL_BATCH;
	} else if (!*end) {
		out->at = NP_STALL_BATCH;
	} else if (!strcmp(end, ":start")) {
		out->at = NP_STALL_START;
	} else if (!strcmp(end, ":device")) {
		out->at = NP_STALL_DEVICE;
	} else {
		return;
	}
	out->rank = (int)r;
	out->after = n;
}

int np_test_stall_rank_at(const struct np_test_stall *st, enum np_test_stall_at at)
{
	return st->at == at && at != NP_STALL_NONE ? st->rank : -1;
}

static int env_rank(const char *s, char **end)
{
	long v;

	errno = 0;
	v = strtol(s, end, 10);
	if (*end == s || errno || v < 0 || v >= (1L << 20))
		return -1;
	return (int)v;
}

void np_test_faults_parse(const char *corrupt, const char *misroute, struct np_test_faults *f)
{
	char *end;
	int a, b;

	f->corrupt_rank = f->misroute_from = f->misroute_to = -1;
	f->corrupt_all = false;
	if (corrupt && !strcmp(corrupt, "all")) {
		f->corrupt_all = true;
	} else if (corrupt && *corrupt) {
		a = env_rank(corrupt, &end);
		if (a >= 0 && !*end)
			f->corrupt_rank = a;
	}
	if (misroute && *misroute) {
		a = env_rank(misroute, &end);
		if (a >= 0 && *end == ':') {
			b = env_rank(end + 1, &end);
			if (b >= 0 && !*end) {
				f->misroute_from = a;
				f->misroute_to = b;
			}
		}
	}
}

int np_test_faults_source(const struct np_test_faults *f, int rank)
{
	return rank == f->misroute_to && f->misroute_from >= 0 ? f->misroute_from : rank;
}

static int job_rank(const struct np_test_where *w, int r)
{
	return w->job_ranks ? w->job_ranks[r] : r;
}

/* Whether one SPEC's suffix (":net", ":scale", ":link=S" or "") holds in w;
 * -1 for an unknown suffix */
static int slow_here(const char *sfx, const struct np_test_where *w)
{
	char *end;
	long s;
	int here = 0;

	if (!*sfx)
		return 1;
	if (!strcmp(sfx, ":net"))
		return w->nnodes > 1;
	if (!strcmp(sfx, ":scale"))
		return w->size == w->job_size && w->nnodes > 1;
	if (strncmp(sfx, ":link=", 6))
		return -1;
	s = strtol(sfx + 6, &end, 10);
	if (end != sfx + 6 && !*end)
		for (int i = 0; i < w->size; i++)
			here |= job_rank(w, i) == s;
	return here;
}

void np_test_slow_parse(const char *s, const struct np_test_where *w, struct np_test_slow *out)
{
	char buf[512], *spec, *save = NULL;
	int me = job_rank(w, w->rank);

	memset(out, 0, sizeof(*out));
	if (!s || strlen(s) >= sizeof(buf))
		return;
	strcpy(buf, s);
	for (spec = strtok_r(buf, ",", &save); spec; spec = strtok_r(NULL, ",", &save)) {
		char *end, *end2;
		long r = strtol(spec, &end, 10);
		double v;
		bool pct;

		if (end == spec || *end != ':' || r != me)
			continue;
		v = strtod(end + 1, &end2);
		if (end2 == end + 1 || !(v > 0) || v >= 1e7)
			continue;
		pct = *end2 == '%';
		end2 += pct;
		if (slow_here(end2, w) != 1)
			continue;
		out->on = true;
		if (pct)
			out->frac = v / 100;
		else
			out->us = (unsigned)v;
	}
}

bool np_test_fail_parse(const char *s, const struct np_test_where *w)
{
	char buf[512], *spec, *save = NULL;
	int me = job_rank(w, w->rank);

	if (!s || strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	for (spec = strtok_r(buf, ",", &save); spec; spec = strtok_r(NULL, ",", &save)) {
		char *end = spec;
		bool all = !strncmp(spec, "all", 3);
		long r = all ? -1 : strtol(spec, &end, 10);

		if (all)
			end = spec + 3;
		else if (end == spec || r != me)
			continue;
		if (!strcmp(end, ":groups")) {
			if (w->size < w->job_size)
				return true;
		} else if (!*end) {
			return true;
		}
	}
	return false;
}

bool np_test_no_native_parse(const char *s) { return s && !strcmp(s, "1"); }

int np_test_tune_parse(const char *s, int arm, struct np_test_setting *out, int max)
{
	char buf[512], *spec, *save = NULL;
	int n = 0;

	if (!s || strlen(s) >= sizeof(buf))
		return 0;
	strcpy(buf, s);
	for (spec = strtok_r(buf, ";", &save); spec && n < max; spec = strtok_r(NULL, ";", &save)) {
		char *end, *eq;
		long a = strtol(spec, &end, 10);

		if (end == spec || *end != '/' || a != arm ||
		    strncmp(end + 1, "NCCL_PROBE_TEST_", 16))
			continue;
		if (!(eq = strchr(end + 1, '=')) || (size_t)(eq - (end + 1)) >= sizeof(out[n].name))
			continue;
		*eq = '\0';
		snprintf(out[n].name, sizeof(out[n].name), "%s", end + 1);
		snprintf(out[n].value, sizeof(out[n].value), "%s", eq + 1);
		n++;
	}
	return n;
}

void np_test_plan_arm(struct np_test_plan *p, int arm)
{
	struct np_test_setting set[NP_TEST_TUNE_MAX];
	int n = np_test_tune_parse(p->tune, arm, set, NP_TEST_TUNE_MAX);

	for (int i = 0; i < n; i++)
		for (size_t k = 0; k < NSWITCHES; k++)
			if (!strcmp(set[i].name, switches[k].name) &&
			    strcmp(set[i].name, "NCCL_PROBE_TEST_TUNE"))
				plan_set(p, k, set[i].value);
}
