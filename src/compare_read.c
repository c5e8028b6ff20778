/* SPDX-License-Identifier: MIT */
/* A sweep report as compare reads it (compare_read.h): from its JSON
 * file, every field checked (nothing from a file reaches the terminal
 * unchecked), or from a run in memory as its JSON would give it back;
 * the rows sorted by key, each key once. */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/coll.h"
#include "compare_read.h"
#include "metrics.h"
#include "msg.h"
#include "stats.h"
#include "version.h"

/* A row's key in the report: the metric table's name of the figure, as
 * the JSON writer writes it (report_json.c) */
#define KEY(id) (np_metrics[id].name)

static enum np_status bad_row(const struct np_cmp_run *r, size_t i, const struct np_jval *v,
			      const char *what, struct np_err *err)
{
	return np_fail(err, NP_EUSAGE,
		       "'%s' is not a valid sweep report: results[%zu]: %s at byte %zu; give a file that nccl-probe wrote with --format json",
		       r->path, i, what, v ? (size_t)v->offset : 0);
}

/* Names of collectives, types and operations: short identifiers, so that
 * nothing from a file reaches the terminal unchecked. */
static bool ident(const char *s)
{
	size_t n = 0;

	if (!s || !*s)
		return false;
	for (; s[n]; n++)
		if (n >= 31 ||
		    !((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_'))
			return false;
	return true;
}

static const char *opt_str(const struct np_jval *v)
{
	const char *s = np_jstr(v);
	return s ? s : NULL;
}

static enum np_status read_row(struct np_cmp_run *r, size_t i, const struct np_jval *o,
			       struct np_cmp_row *row, struct np_err *err)
{
	const struct np_jval *v;

	memset(row, 0, sizeof(*row));
	if (o->type != NP_J_OBJ)
		return bad_row(r, i, o, "not an object", err);
	row->coll = np_jstr(np_jget(o, KEY(NP_M_COLL)));
	if (!ident(row->coll) || !np_coll_find(row->coll) ||
	    strcmp(np_coll_find(row->coll)->name, row->coll))
		return bad_row(r, i, o, "'coll' is not a collective name", err);
	row->coll_index = (int)(np_coll_find(row->coll) - np_colls);
	row->coll = np_colls[row->coll_index].name; /* the parsed results are freed */
	row->type = np_jstr(np_jget(o, KEY(NP_M_TYPE)));
	if (!row->type)
		row->type = "float";
	if (!ident(row->type))
		return bad_row(r, i, o, "'type' is not a data type name", err);
	row->type = strcpy(row->type_buf, row->type); /* ident: at most 31 characters */
	v = np_jget(o, KEY(NP_M_REDOP));
	row->redop = v && v->type == NP_J_STR ? v->str : "none";
	if (!ident(row->redop))
		return bad_row(r, i, v, "'redop' is not an operation name", err);
	row->redop = strcpy(row->redop_buf, row->redop);
	v = np_jget(o, KEY(NP_M_ROOT));
	row->root = -1;
	if (v && v->type == NP_J_NUM) {
		if (!(v->num >= 0 && v->num < 1e9 && v->num == floor(v->num)))
			return bad_row(r, i, v, "'root' is not a rank", err);
		row->root = (long long)v->num;
	}
	v = np_jget(o, KEY(NP_M_INPLACE));
	row->inplace = v && v->type == NP_J_BOOL && v->b;
	v = np_jget(o, KEY(NP_M_SIZE));
	if (!v || v->type != NP_J_NUM ||
	    !(v->num >= 1 && v->num <= 9.2e18 && v->num == floor(v->num)))
		return bad_row(r, i, v ? v : o, "'size' is not a positive whole number of bytes",
			       err);
	row->size = (uint64_t)v->num;
	v = np_jget(o, KEY(NP_M_TIME));
	if (!v || v->type != NP_J_NUM || !(v->num > 0))
		return bad_row(r, i, v ? v : o, "'time' is not a positive number of seconds", err);
	row->time = v->num;
	v = np_jget(o, KEY(NP_M_BUSBW));
	row->busbw = v && v->type == NP_J_NUM ? v->num : NAN;
	v = np_jget(o, KEY(NP_M_JUDGED));
	row->judged = v && v->type == NP_J_BOOL ? v->b : -1;
	v = np_jget(o, KEY(NP_M_STOP));
	row->noise = v && np_jstr(v) && !strcmp(np_jstr(v), "noise-bound");
	v = np_jget(o, "sample_times");
	if (v && v->type != NP_J_NULL) {
		if (v->type != NP_J_ARR)
			return bad_row(r, i, v, "'sample_times' is not an array of seconds", err);
		if (v->n > NP_CMP_MAX_SAMPLES) {
			char what[160];
			snprintf(what, sizeof(what),
				 "'sample_times' holds %zu, more than the %d a row of nccl-probe stores",
				 (size_t)v->n, NP_CMP_MAX_SAMPLES);
			return bad_row(r, i, v, what, err);
		}
		if (v->n) {
			row->logt = malloc(v->n * sizeof(double));
			if (!row->logt)
				return np_fail(err, NP_ENOMEM,
					       "out of memory for the samples of '%s'", r->path);
		}
		for (size_t k = 0; k < v->n; k++) {
			const struct np_jval *t = &v->items[k];
			if (t->type != NP_J_NUM || !(t->num > 0))
				return bad_row(r, i, t,
					       "a sample time is not a positive number of seconds",
					       err);
			row->logt[k] = log(t->num);
		}
		row->nsamples = (int)v->n;
		np_sort_doubles(row->logt, row->nsamples);
	}
	return NP_OK;
}

/* Rows in the sweep's order of collectives, then type, operation, root,
 * in place, and size: each group of sizes is contiguous. */
int np_cmp_row_group(const struct np_cmp_row *a, const struct np_cmp_row *b)
{
	int c;

	if (a->coll_index != b->coll_index)
		return a->coll_index < b->coll_index ? -1 : 1;
	if ((c = strcmp(a->type, b->type)) || (c = strcmp(a->redop, b->redop)))
		return c;
	if (a->root != b->root)
		return a->root < b->root ? -1 : 1;
	return (int)a->inplace - (int)b->inplace;
}

int np_cmp_row_key(const struct np_cmp_row *a, const struct np_cmp_row *b)
{
	int c = np_cmp_row_group(a, b);

	return c ? c : (a->size > b->size) - (a->size < b->size);
}

static int cmp_rowp(const void *x, const void *y)
{
	return np_cmp_row_key(*(const struct np_cmp_row *const *)x,
			      *(const struct np_cmp_row *const *)y);
}

/* The rows by key, each key once: a duplicate is a bad row (RES, the
 * report's results, names its offset; NULL for a run in memory). */
static enum np_status sort_rows(struct np_cmp_run *r, const struct np_jval *res, struct np_err *err)
{
	r->sorted = malloc((r->nrows ? r->nrows : 1) * sizeof(*r->sorted));
	if (!r->sorted)
		return np_fail(err, NP_ENOMEM, "out of memory for the rows of '%s'", r->path);
	for (size_t i = 0; i < r->nrows; i++)
		r->sorted[i] = &r->rows[i];
	qsort(r->sorted, r->nrows, sizeof(*r->sorted), cmp_rowp);
	for (size_t i = 1; i < r->nrows; i++)
		if (!np_cmp_row_key(r->sorted[i - 1], r->sorted[i])) {
			size_t k = (size_t)(r->sorted[i] - r->rows) >
						   (size_t)(r->sorted[i - 1] - r->rows)
					   ? (size_t)(r->sorted[i] - r->rows)
					   : (size_t)(r->sorted[i - 1] - r->rows);
			return bad_row(r, k, res ? &res->items[k] : NULL,
				       "the same collective and size as an earlier row", err);
		}
	return NP_OK;
}

/* nccl_env of a report: its members in order */
static enum np_status read_env(struct np_cmp_run *r, struct np_err *err)
{
	const struct np_jval *v = np_jget(&r->doc, "nccl_env");

	if (!v || v->type != NP_J_OBJ || !v->n)
		return NP_OK;
	if (v->n > NP_CMP_MAX_ENV)
		return np_fail(err, NP_EUSAGE,
			       "'%s' has %zu NCCL_* variables in \"nccl_env\" at byte %zu, more than %d; give the JSON of a sweep",
			       r->path, (size_t)v->n, (size_t)v->offset, NP_CMP_MAX_ENV);
	r->env = calloc(v->n, sizeof(*r->env));
	if (!r->env)
		return np_fail(err, NP_ENOMEM, "out of memory for the nccl_env of '%s'", r->path);
	for (size_t i = 0; i < v->n; i++)
		r->env[i] = (struct np_cmp_env){ v->keys[i], np_jstr(&v->items[i]) };
	r->nenv = v->n;
	return NP_OK;
}

/* The value of KEY in a run's nccl_env (the first of duplicates), or NULL */
const char *np_cmp_run_env(const struct np_cmp_run *r, const char *key)
{
	for (size_t i = 0; i < r->nenv; i++)
		if (!strcmp(r->env[i].key, key))
			return r->env[i].val;
	return NULL;
}

static long long num_or(const struct np_jval *v, long long dflt)
{
	return v && v->type == NP_J_NUM && v->num >= 0 && v->num < 1e15 ? (long long)v->num : dflt;
}

/* The strings of the document that compare keeps, copied, and the parsed
 * document freed: the rows hold the rest, before the next report is read
 * (its memory is then one document's, not two). */
static enum np_status keep_strings(struct np_cmp_run *r, struct np_err *err)
{
	const char **str[6] = { &r->backend, &r->library, &r->runtime,
				&r->mpi,     &r->dtype,   &r->version };

	for (int i = 0; i < 6; i++)
		if (*str[i] && !(*str[i] = r->own[i] = strdup(*str[i])))
			return np_fail(err, NP_ENOMEM, "out of memory reading '%s'", r->path);
	if (r->nenv) {
		struct np_cmp_env *copy = calloc(r->nenv, sizeof(*copy));
		bool ok = copy != NULL;
		size_t i = 0;
		for (; ok && i < r->nenv; i++) {
			copy[i].key = strdup(r->env[i].key);
			copy[i].val = r->env[i].val ? strdup(r->env[i].val) : NULL;
			ok = copy[i].key && (!r->env[i].val || copy[i].val);
		}
		if (!ok) {
			for (size_t k = 0; copy && k < i; k++) {
				free((char *)copy[k].key);
				free((char *)copy[k].val);
			}
			free(copy);
			return np_fail(err, NP_ENOMEM, "out of memory reading '%s'", r->path);
		}
		free(r->env);
		r->env = copy;
		r->env_own = true;
	}
	np_jval_free(&r->doc);
	return NP_OK;
}

enum np_status np_cmp_run_read(struct np_cmp_run *r, const char *path, struct np_err *err)
{
	const struct np_jval *res;
	enum np_status st;

	memset(r, 0, sizeof(*r));
	r->path = path;
	if ((st = np_json_parse_file(path, &r->doc, err)))
		return st;
	if (r->doc.type != NP_J_OBJ || !np_jstr(np_jget(&r->doc, "schema")) ||
	    strcmp(np_jstr(np_jget(&r->doc, "schema")), NP_SWEEP_SCHEMA))
		return np_fail(err, NP_EUSAGE,
			       "'%s' is not a sweep report (no \"schema\": \"%s\"); give the JSON of 'nccl-probe --format json' or --json FILE",
			       path, NP_SWEEP_SCHEMA);
	r->backend = opt_str(np_jget2(&r->doc, "backend", "name"));
	r->library = opt_str(np_jget2(&r->doc, "backend", "library"));
	r->runtime = opt_str(np_jget2(&r->doc, "backend", "runtime"));
	r->mpi = opt_str(np_jget2(&r->doc, "backend", "mpi"));
	r->dtype = opt_str(np_jget2(&r->doc, "options", "dtype"));
	r->version = opt_str(np_jget2(&r->doc, "tool", "version"));
	r->ranks = num_or(np_jget2(&r->doc, "world", "ranks"), -1);
	r->nodes = num_or(np_jget2(&r->doc, "world", "nodes"), -1);
	r->judge_from = (uint64_t)num_or(np_jget2(&r->doc, "options", "judge_from"), 0);
	if ((st = read_env(r, err)))
		return st;
	res = np_jget(&r->doc, "results");
	if (!res || res->type != NP_J_ARR)
		return np_fail(err, NP_EUSAGE,
			       "'%s' has no \"results\" array; give the JSON of a sweep", path);
	r->rows = calloc(res->n ? res->n : 1, sizeof(*r->rows));
	if (!r->rows)
		return np_fail(err, NP_ENOMEM, "out of memory for the rows of '%s'", path);
	for (size_t i = 0; i < res->n; i++) {
		r->nrows = i + 1; /* so that free_run frees a failed row's samples */
		if ((st = read_row(r, i, &res->items[i], &r->rows[i], err)))
			return st;
	}
	if ((st = sort_rows(r, res, err)))
		return st;
	return keep_strings(r, err);
}

void np_cmp_run_free(struct np_cmp_run *r)
{
	for (size_t i = 0; i < r->nrows; i++)
		free(r->rows[i].logt);
	free(r->rows);
	free(r->sorted);
	for (size_t i = 0; r->env_own && i < r->nenv; i++) {
		free((char *)r->env[i].key);
		free((char *)r->env[i].val);
	}
	free(r->env);
	free(r->env_keys);
	for (int i = 0; i < 6; i++)
		free(r->own[i]);
	np_jval_free(&r->doc);
}

/* A number as the report's JSON gives it back (ten significant digits,
 * np_json_num): compare on a run in memory then decides exactly as on
 * that run's report. */
static double as_reported(double v)
{
	char buf[40];

	if (!isfinite(v))
		return NAN;
	snprintf(buf, sizeof(buf), "%.10g", v);
	return strtod(buf, NULL);
}

/* Metric ID of a row, as the report's JSON writes it */
static struct np_value metric_of(const struct np_result *res, enum np_metric_id id)
{
	struct np_value v = { 0 };

	np_metrics[id].get(res, &v);
	return v;
}

/* One row of a run in memory, as read_row reads it from the report */
static enum np_status row_from_result(const struct np_cmp_run *r, const struct np_result *res,
				      struct np_cmp_row *row, struct np_err *err)
{
	struct np_value v;

	memset(row, 0, sizeof(*row));
	row->coll = metric_of(res, NP_M_COLL).s;
	row->coll_index = (int)(np_coll_find(row->coll) - np_colls);
	row->type = metric_of(res, NP_M_TYPE).s;
	v = metric_of(res, NP_M_REDOP);
	row->redop = v.null ? "none" : v.s;
	v = metric_of(res, NP_M_ROOT);
	row->root = v.null ? -1 : (long long)v.i;
	row->inplace = metric_of(res, NP_M_INPLACE).b;
	row->size = metric_of(res, NP_M_SIZE).u;
	v = metric_of(res, NP_M_TIME);
	row->time = v.null ? NAN : as_reported(v.d);
	v = metric_of(res, NP_M_BUSBW);
	row->busbw = v.null ? NAN : as_reported(v.d);
	v = metric_of(res, NP_M_JUDGED);
	row->judged = v.null ? -1 : v.b;
	v = metric_of(res, NP_M_STOP);
	row->noise = !v.null && v.s && !strcmp(v.s, "noise-bound");
	if (res->samples <= 0 || !res->sample_times)
		return NP_OK;
	row->logt = malloc((size_t)res->samples * sizeof(double));
	if (!row->logt)
		return np_fail(err, NP_ENOMEM, "out of memory for the samples of %s", r->path);
	for (int k = 0; k < res->samples; k++)
		row->logt[k] = log(as_reported(res->sample_times[k]));
	row->nsamples = res->samples;
	np_sort_doubles(row->logt, row->nsamples);
	return NP_OK;
}

/* The NCCL_* variables of a run in memory ("NAME=value"), named as the
 * report's nccl_env names them */
static enum np_status env_from_report(struct np_cmp_run *r, const struct np_sweep_report *rep,
				      struct np_err *err)
{
	size_t n = 0;

	for (char **e = rep->nccl_env; e && *e; e++)
		n++;
	if (!n)
		return NP_OK;
	r->env = calloc(n, sizeof(*r->env));
	r->env_keys = calloc(n, sizeof(*r->env_keys));
	if (!r->env || !r->env_keys)
		return np_fail(err, NP_ENOMEM, "out of memory for the NCCL_* variables of %s",
			       r->path);
	for (size_t i = 0; i < n; i++) {
		const char *kv = rep->nccl_env[i], *eq = strchr(kv, '=');
		size_t len = eq ? (size_t)(eq - kv) : strlen(kv);
		if (len >= sizeof(r->env_keys[i]))
			len = sizeof(r->env_keys[i]) - 1;
		memcpy(r->env_keys[i], kv, len);
		r->env[i] = (struct np_cmp_env){ r->env_keys[i], eq ? eq + 1 : "" };
	}
	r->nenv = n;
	return NP_OK;
}

/* A run in memory (a sweep's own, for --baseline), named LABEL: what
 * np_cmp_run_read would read from its JSON report */
enum np_status np_cmp_run_from_report(struct np_cmp_run *r, const struct np_sweep_report *rep,
				      const char *label, struct np_err *err)
{
	enum np_status st;

	memset(r, 0, sizeof(*r));
	r->path = label;
	r->backend = rep->backend;
	r->library = rep->info.library;
	r->runtime = rep->info.runtime[0] ? rep->info.runtime : NULL;
	r->mpi = rep->world->mpi_version;
	r->dtype = np_dtype_str(rep->opts->dtype);
	r->version = PACKAGE_VERSION;
	r->ranks = rep->world->size;
	r->nodes = rep->world->nnodes;
	r->judge_from = rep->judge_from;
	if ((st = env_from_report(r, rep, err)))
		return st;
	r->rows = calloc(rep->nrows ? rep->nrows : 1, sizeof(*r->rows));
	if (!r->rows)
		return np_fail(err, NP_ENOMEM, "out of memory for the rows of %s", label);
	for (size_t i = 0; i < rep->nrows; i++) {
		r->nrows = i + 1; /* so that free_run frees a failed row's samples */
		if ((st = row_from_result(r, &rep->rows[i], &r->rows[i], err)))
			return st;
	}
	return sort_rows(r, NULL, err);
}
