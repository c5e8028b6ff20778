/* SPDX-License-Identifier: MIT */
/* tune's candidates and their paired ratios (src/tune_cand.h). */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../probes/backend.h"
#include "stats.h"
#include "tune_cand.h"

const char *np_tune_setting_library(const char *name)
{
	const struct np_backend_def *d = np_backend_for_setting(name);

	return d ? d->name : NULL;
}

static bool name_ok(const char *s)
{
	if (!isupper((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static bool value_ok(const char *s)
{
	for (; *s; s++)
		if (!isgraph((unsigned char)*s))
			return false;
	return true;
}

/* Settings nccl-probe makes itself: trying them would change what it reads. */
static bool ours(const char *name)
{
	return !strncmp(name, "NCCL_DEBUG", 10) || !strcmp(name, "NCCL_HOSTID") ||
	       !strncmp(name, "NCCL_PROBE_", 11);
}

static enum np_status add_setting(struct np_tune_cand *c, const char *name, size_t nlen,
				  const char *value, const char *where, struct np_err *err)
{
	struct np_tune_setting *s;

	if (c->n >= NP_TUNE_MAX_SETTINGS)
		return np_fail(err, NP_EUSAGE,
			       "%s: more than %d settings in one candidate; split it", where,
			       NP_TUNE_MAX_SETTINGS);
	s = &c->set[c->n];
	if (nlen == 0 || nlen >= sizeof(s->name))
		return np_fail(err, NP_EUSAGE,
			       "%s: give VAR=VALUE with a variable name of 1 to %zu characters",
			       where, sizeof(s->name) - 1);
	memcpy(s->name, name, nlen);
	s->name[nlen] = '\0';
	if (!name_ok(s->name))
		return np_fail(err, NP_EUSAGE,
			       "%s: '%s' is not a variable name; give VAR=VALUE (e.g. NCCL_PROTO=LL)",
			       where, s->name);
	if (!np_tune_setting_library(s->name))
		return np_fail(err, NP_EUSAGE,
			       "%s: '%s' is neither an NCCL variable (NCCL_*) nor an Open MPI one (OMPI_MCA_*); tune tries only those",
			       where, s->name);
	if (ours(s->name))
		return np_fail(err, NP_EUSAGE,
			       "%s: nccl-probe sets %s itself to read NCCL's log; it cannot be tried",
			       where, s->name);
	if (!*value || strlen(value) >= sizeof(s->value) || !value_ok(value))
		return np_fail(err, NP_EUSAGE,
			       "%s: the value of %s must be 1 to %zu printable characters without blanks",
			       where, s->name, sizeof(s->value) - 1);
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->set[i].name, s->name))
			return np_fail(err, NP_EUSAGE,
				       "%s: %s is set twice in one candidate; give it once", where,
				       s->name);
	snprintf(s->value, sizeof(s->value), "%s", value);
	c->n++;
	return NP_OK;
}

static void label(struct np_tune_cand *c)
{
	size_t off = 0;

	c->label[0] = '\0';
	for (int i = 0; i < c->n; i++)
		off += (size_t)snprintf(c->label + off, sizeof(c->label) - off, "%s%s=%s",
					i ? " " : "", c->set[i].name, c->set[i].value);
}

/* Two candidates with the same settings, in any order. */
static bool same(const struct np_tune_cand *a, const struct np_tune_cand *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		bool found = false;
		for (int k = 0; k < b->n; k++)
			found |= !strcmp(a->set[i].name, b->set[k].name) &&
				 !strcmp(a->set[i].value, b->set[k].value);
		if (!found)
			return false;
	}
	return true;
}

static enum np_status push(struct np_tune_cand *c, int cap, int *n, struct np_tune_cand *one,
			   const char *where, struct np_err *err)
{
	label(one);
	for (int i = 0; i < *n; i++)
		if (same(&c[i], one))
			return np_fail(err, NP_EUSAGE,
				       "%s: the candidate '%s' is given twice; give it once", where,
				       one->label);
	if (*n >= cap)
		return np_fail(err, NP_EUSAGE, "more than %d candidates; tune fewer at a time",
			       cap);
	c[(*n)++] = *one;
	return NP_OK;
}

enum np_status np_tune_parse(const char *const *tries, int ntries, const char *file_text,
			     struct np_tune_cand *c, int cap, int *n, struct np_err *err)
{
	char where[96], buf[4096];

	*n = 0;
	for (int t = 0; t < ntries; t++) {
		const char *eq = strchr(tries[t], '=');
		char *tok, *save = NULL;
		snprintf(where, sizeof(where), "invalid --try '%.60s'", tries[t]);
		if (!eq || strlen(eq + 1) >= sizeof(buf))
			return np_fail(err, NP_EUSAGE,
				       "%s: give VAR=V1,V2,... (e.g. NCCL_PROTO=LL,Simple)", where);
		strcpy(buf, eq + 1);
		if (!buf[0] || buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
			return np_fail(err, NP_EUSAGE,
				       "%s: give one or more values separated by single commas",
				       where);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			struct np_tune_cand one = { 0 };
			enum np_status st = add_setting(&one, tries[t], (size_t)(eq - tries[t]),
							tok, where, err);
			if (st || (st = push(c, cap, n, &one, where, err)))
				return st;
		}
	}
	if (file_text) {
		const char *line = file_text;
		for (int lineno = 1; *line; lineno++) {
			const char *end = strchr(line, '\n');
			size_t len = end ? (size_t)(end - line) : strlen(line);
			struct np_tune_cand one = { 0 };
			char *tok, *save = NULL, *hash;
			snprintf(where, sizeof(where), "--try-file line %d", lineno);
			if (len >= sizeof(buf))
				return np_fail(err, NP_EUSAGE, "%s: longer than %zu characters",
					       where, sizeof(buf) - 1);
			memcpy(buf, line, len);
			buf[len] = '\0';
			if ((hash = strchr(buf, '#')))
				*hash = '\0';
			for (tok = strtok_r(buf, " \t\r", &save); tok;
			     tok = strtok_r(NULL, " \t\r", &save)) {
				const char *eq = strchr(tok, '=');
				enum np_status st;
				if (!eq)
					return np_fail(err, NP_EUSAGE,
						       "%s: '%.60s' is not VAR=VALUE; give settings such as NCCL_PROTO=LL",
						       where, tok);
				if ((st = add_setting(&one, tok, (size_t)(eq - tok), eq + 1, where,
						      err)))
					return st;
			}
			if (one.n) {
				enum np_status st = push(c, cap, n, &one, where, err);
				if (st)
					return st;
			}
			line += len + (end ? 1 : 0);
		}
		if (!*n)
			return np_fail(err, NP_EUSAGE,
				       "--try-file names no candidate; give one per line, e.g. NCCL_PROTO=LL");
	}
	if (!*n)
		return np_fail(err, NP_EUSAGE,
			       "no candidate to try; give --try VAR=V1,V2 or --try-file FILE");
	return NP_OK;
}

void np_shell_quote(const char *s, char *buf, size_t len)
{
	static const char safe[] = "_,.:/+=@%^-";
	bool plain = *s != '\0';
	size_t o = 0;

	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(safe, *p))
			plain = false;
	if (plain) {
		if (strlen(s) >= len)
			goto out_too_long;
		strcpy(buf, s);
		return;
	}
	if (o + 1 >= len)
		goto out_too_long;
	buf[o++] = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			if (o + 4 >= len)
				goto out_too_long;
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			if (o + 1 >= len)
				goto out_too_long;
			buf[o++] = *p;
		}
	}
	if (o + 2 > len)
		goto out_too_long;
	buf[o++] = '\'';
	buf[o] = '\0';
	return;
out_too_long:
	if (len)
		buf[0] = '\0';
}

int np_tune_list_allows(const char *value, const char *item)
{
	char buf[NP_TUNE_VALLEN], *tok, *save = NULL;
	const char *v = value;
	bool neg = false, listed = false;

	if (strchr(value, ':') || strlen(value) >= sizeof(buf))
		return -1;
	if (*v == '^') {
		neg = true;
		v++;
	}
	strcpy(buf, v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		listed |= !strcasecmp(tok, item);
	return neg ? !listed : listed;
}

const char *np_tune_verdict_str(enum np_tune_verdict v)
{
	switch (v) {
	case NP_TUNE_NONE: return "no significant difference";
	case NP_TUNE_FASTER: return "faster";
	case NP_TUNE_SLOWER: return "slower";
	case NP_TUNE_UNDECIDED: return "undecided";
	}
	return "unknown";
}

void np_tune_ratio_compute(double *r, int n, double min_change, struct np_tune_ratio *out)
{
	struct np_stats st;

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->median = out->lo = out->hi = NAN;
	out->verdict = NP_TUNE_UNDECIDED;
	if (n < 1)
		return;
	np_stats_compute(r, n, &st);
	out->median = st.median;
	out->lo = st.ci_lo;
	out->hi = st.ci_hi;
	if (n < 6) /* no 95% interval from fewer rounds */
		return;
	if (st.ci_lo > 1 && st.median >= 1 + min_change)
		out->verdict = NP_TUNE_FASTER;
	else if (st.ci_hi < 1 && st.median <= 1 - min_change)
		out->verdict = NP_TUNE_SLOWER;
	else
		out->verdict = NP_TUNE_NONE;
	out->settled = st.ci_lo > 1 || st.ci_hi < 1 ||
		       (st.ci_lo >= 1 - min_change && st.ci_hi <= 1 + min_change) ||
		       (st.ci_hi - st.ci_lo) / 2 <= 0.01 * st.median;
}
