/* SPDX-License-Identifier: MIT */
/* --format nccl-tests: the table (and with -J, the JSON) laid out as
 * nccl-tests 2.19 prints them, one collective per run as each of its
 * binaries runs one, so that a parser written for nccl-tests' output
 * reads nccl-probe's unchanged. Each line holds both forms as nccl-tests
 * measures them; a form that did not run (out of place with --inplace, in
 * place for a collective without that form) holds N/A. */
#define _DEFAULT_SOURCE /* timegm */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "report.h"
#include "sweep_verdict.h"
#include "version.h"

/* nccl-tests' type names: fp8 types are f8e4m3 and f8e5m2 there */
static const char *type_of(enum np_dtype d)
{
	const char *s = np_dtype_str(d);
	return !strcmp(s, "fp8e4m3") ? "f8e4m3" : !strcmp(s, "fp8e5m2") ? "f8e5m2" : s;
}

/* reductions, and sendrecv (which nccl-tests runs per op), name the op */
static const char *op_of(const struct np_result *r)
{
	if ((r->coll->flags & NP_COLL_F_REDUCE) || !strcmp(r->coll->name, "sendrecv"))
		return np_redop_str(r->op);
	return "none";
}

/* nccl-tests' getFloatStr: the most decimals (2, 1, 0) that fit width */
static void float_str(double v, int width, char *buf, size_t len)
{
	if (snprintf(buf, len, "%*.2f", width, v) <= width)
		return;
	if (snprintf(buf, len, "%*.1f", width, v) <= width)
		return;
	if (snprintf(buf, len, "%*.0f", width, v) <= width)
		return;
	snprintf(buf, len, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

/* One form's time, algbw, busbw and #wrong; N/A for a form not run */
static void body(FILE *f, const struct np_result *r)
{
	char t[32], a[32], b[32];

	if (!r) {
		fprintf(f, "  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
		return;
	}
	float_str(r->t_med * 1e6, 7, t, sizeof(t));
	float_str(r->algbw, 6, a, sizeof(a));
	float_str(r->busbw, 6, b, sizeof(b));
	if (r->checked)
		fprintf(f, "  %7s  %6s  %6s  %6g", t, a, b, (double)r->wrong);
	else
		fprintf(f, "  %7s  %6s  %6s    N/A", t, a, b);
}

static bool coll_has_rows(const struct np_sweep_report *rep, const struct np_coll *c)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (rep->rows[i].coll == c)
			return true;
	return false;
}

/* The two forms of the line of row i: out of place, and the in-place row
 * of its size right after it (the plan measures both in that order);
 * false for an in-place row that the out-of-place row before it already
 * holds. */
static bool line_of(const struct np_sweep_report *rep, size_t i, const struct np_result **oop,
		    const struct np_result **ip)
{
	const struct np_result *r = &rep->rows[i], *prev = i ? &rep->rows[i - 1] : NULL;
	const struct np_result *next = i + 1 < rep->nrows ? &rep->rows[i + 1] : NULL;

	if (r->inplace && prev && !prev->inplace && prev->coll == r->coll && prev->lay.size == r->lay.size)
		return false;
	*oop = r->inplace ? NULL : r;
	*ip = r->inplace ? r : NULL;
	if (!r->inplace && next && next->inplace && next->coll == r->coll && next->lay.size == r->lay.size)
		*ip = next;
	return true;
}

/* The footer's figures: nccl-tests' average counts each form measured at
 * each size; its out-of-bounds count, each form with wrong elements */
struct sums {
	double bw;
	int n, errors;
};

static void sums_add(struct sums *s, const struct np_result *oop, const struct np_result *ip)
{
	for (int k = 0; k < 2; k++) {
		const struct np_result *x = k ? ip : oop;
		if (!x)
			continue;
		s->bw += x->busbw;
		s->n++;
		s->errors += x->checked && x->wrong;
	}
}

/* The forms measured, said where nccl-tests would have figures: a comment
 * line that parsers skip */
static void forms_line(FILE *f, const struct np_opts *o, const struct np_coll *coll)
{
	if (o->inplace)
		fprintf(f, "# in place only (--inplace): the out-of-place columns are N/A\n");
	else if (!(coll->flags & NP_COLL_F_INPLACE))
		fprintf(f, "# %s has no in-place form here: the in-place columns are N/A\n", coll->name);
}

void np_report_nccltests(FILE *f, const struct np_sweep_report *rep)
{
	const struct np_opts *o = rep->opts;
	const struct np_world *w = rep->world;

	for (int c = 0; c < NP_COLL_COUNT; c++) {
		const struct np_coll *coll = &np_colls[c];
		const char *prog = coll->program, *mark;
		struct sums sum = { 0 };

		if (!coll_has_rows(rep, coll))
			continue;
		fprintf(f, "# nccl-probe %s in nccl-tests' format (2.19): %s, backend %s\n", PACKAGE_VERSION,
			rep->info.library, rep->backend);
		fprintf(f, "# Collective test starting: %s\n", prog);
		fprintf(f, "# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg iters: 1 validation: %d graph: %d unalign: 0\n",
			(unsigned long long)o->min_bytes, (unsigned long long)o->max_bytes,
			o->step_kind == NP_STEP_FACTOR ? (unsigned long long)o->step_factor
						       : (unsigned long long)o->step_bytes,
			o->step_kind == NP_STEP_FACTOR ? "factor" : "bytes", o->warmup, o->iters, o->check ? 1 : 0,
			o->graph ? 1 : 0);
		forms_line(f, o, coll);
		fprintf(f, "#\n# Using devices\n");
		for (int r = 0; r < w->size && rep->ranks; r++) {
			const struct np_rank_info *ri = &rep->ranks[r];
			unsigned dom = 0, bus = 0, dev = 0;
			if (ri->bus_id[0])
				sscanf(ri->bus_id, "%x:%x:%x", &dom, &bus, &dev);
			fprintf(f, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n", ri->rank, 0,
				ri->pid, ri->host, ri->device, dom, bus, dev, ri->device_name);
		}
		fprintf(f, "#\n");
		fprintf(f, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n",
			"", "", "", "", "");
		fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size", "count",
			"type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", 0,
			"");
		fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)",
			"(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, "");
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct np_result *r = &rep->rows[i], *oop, *ip;
			char root[16];
			if (r->coll != coll || !line_of(rep, i, &oop, &ip))
				continue;
			snprintf(root, sizeof(root), "%6i", r->root);
			fprintf(f, "%12llu  %12llu  %8s  %6s  %6s", (unsigned long long)r->lay.size,
				(unsigned long long)r->lay.count, type_of(r->dtype), op_of(r), root);
			body(f, oop);
			body(f, ip);
			fprintf(f, "\n");
			sums_add(&sum, oop, ip);
		}
		if (rep->interrupted) {
			/* no clean end's footer: a reader finds no "OK" and no
			 * "concluded" in a run that did not finish */
			fprintf(f, "# interrupted: the rows above are complete, the rest did not run (exit %d)\n",
				rep->exit_code);
			continue;
		}
		mark = np_sweep_avg_mark(rep, coll);
		fprintf(f, "# %-20s : %d %s\n", "Out of bounds values", sum.errors, sum.errors ? "FAILED" : "OK");
		fprintf(f, "# %-20s : %g %s\n", "Avg bus bandwidth", sum.n ? sum.bw / sum.n : 0.0, mark ? mark : "");
		fprintf(f, "#\n");
		fprintf(f, "# Collective test concluded: %s\n", prog);
	}
}

static void json_body(struct np_json *j, const char *key, const struct np_result *r)
{
	if (!r) {
		np_json_null(j, key);
		return;
	}
	np_json_obj_begin(j, key);
	np_json_num(j, "time", r->t_med * 1e6);
	np_json_num(j, "alg_bw", r->algbw);
	np_json_num(j, "bus_bw", r->busbw);
	if (r->checked)
		np_json_num(j, "nwrong", (double)r->wrong);
	else
		np_json_null(j, "nwrong");
	np_json_obj_end(j);
}

/* nccl-tests' time stamps: "%Y-%m-%d %H:%M:%S", local time */
static void local_stamp(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "1970-01-01 00:00:00");
}

/* The run's start (its record's ISO 8601 UTC stamp) in nccl-tests' form */
static void start_stamp(const char *iso, char *buf, size_t len)
{
	struct tm tm = { 0 };

	if (sscanf(iso, "%d-%d-%dT%d:%d:%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec) == 6) {
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		local_stamp(timegm(&tm), buf, len);
	} else {
		local_stamp(time(NULL), buf, len);
	}
}

/* nccl-tests 2.19's -J layout (its JSON file version 3), key for key in
 * its order: version, start_time, args, env, nccl_version, config (with
 * devices), results, out_of_bounds, average_bus_bandwidth, errors,
 * end_time; its booleans are the strings "true" and "false". One
 * collective per run (src/opts_parse.c). env holds the NCCL_* variables
 * alone; nccl_version is 0 without NCCL (the host backend). */
void np_report_nccltests_json(FILE *f, const struct np_sweep_report *rep)
{
	const struct np_opts *o = rep->opts;
	const struct np_world *w = rep->world;
	struct np_json j;
	struct sums sum = { 0 };
	char stamp[64];

	np_json_init(&j, f, true);
	np_json_obj_begin(&j, NULL);
	np_json_int(&j, "version", 3);
	start_stamp(rep->run.start_time, stamp, sizeof(stamp));
	np_json_str(&j, "start_time", stamp);
	np_json_arr_begin(&j, "args");
	for (int i = 0; i < rep->run.argc; i++)
		np_json_str(&j, NULL, rep->run.argv[i]);
	np_json_arr_end(&j);
	np_json_arr_begin(&j, "env");
	for (char **e = rep->nccl_env; e && *e; e++)
		np_json_str(&j, NULL, *e);
	np_json_arr_end(&j);
	{
		/* nccl-tests' NCCL_VERSION_CODE: 22803 for NCCL 2.28.3 */
		int a, b, c;
		if (sscanf(rep->info.library, "NCCL %d.%d.%d", &a, &b, &c) == 3)
			np_json_int(&j, "nccl_version", a * 10000 + b * 100 + c);
		else
			np_json_int(&j, "nccl_version", 0);
	}
	np_json_obj_begin(&j, "config");
	np_json_int(&j, "nthreads", 1);
	np_json_int(&j, "ngpus", 1);
	np_json_uint(&j, "minimum_bytes", o->min_bytes);
	np_json_uint(&j, "maximum_bytes", o->max_bytes);
	if (o->step_kind == NP_STEP_FACTOR && o->step_factor == (double)(uint64_t)o->step_factor)
		np_json_uint(&j, "step_factor", (uint64_t)o->step_factor);
	else if (o->step_kind == NP_STEP_FACTOR)
		np_json_num(&j, "step_factor", o->step_factor); /* -f 1.5: nccl-tests has none */
	else
		np_json_uint(&j, "step_bytes", o->step_bytes);
	np_json_int(&j, "warmup_iters", o->warmup);
	np_json_int(&j, "iterations", o->iters);
	np_json_int(&j, "aggregated_iterations", 1);
	np_json_int(&j, "validation", o->check ? 1 : 0);
	np_json_int(&j, "graph", o->graph ? 1 : 0);
	np_json_str(&j, "blocking_collectives", "false");
	np_json_str(&j, "per_iter_timing", "false");
	np_json_int(&j, "per_iter_skip", 0);
	np_json_str(&j, "parallel_init", "false");
	np_json_arr_begin(&j, "devices");
	for (int r = 0; r < w->size && rep->ranks; r++) {
		const struct np_rank_info *ri = &rep->ranks[r];
		np_json_obj_begin(&j, NULL);
		np_json_int(&j, "rank", ri->rank);
		np_json_int(&j, "group", 0);
		np_json_int(&j, "pid", ri->pid);
		np_json_str(&j, "hostname", ri->host);
		np_json_int(&j, "device", ri->device);
		{
			/* nccl-tests' [domain:bus:device] */
			unsigned dom = 0, bus = 0, dev = 0;
			char hex[32];
			if (ri->bus_id[0])
				sscanf(ri->bus_id, "%x:%x:%x", &dom, &bus, &dev);
			snprintf(hex, sizeof(hex), "%04x:%02x:%02x", dom, bus, dev);
			np_json_str(&j, "device_hex", hex);
		}
		np_json_str(&j, "device_info", ri->device_name);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_obj_end(&j);
	np_json_arr_begin(&j, "results");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct np_result *r = &rep->rows[i], *oop, *ip;
		char root[16];
		if (!line_of(rep, i, &oop, &ip))
			continue;
		snprintf(root, sizeof(root), "%6i", r->root);
		np_json_obj_begin(&j, NULL);
		np_json_uint(&j, "size", r->lay.size);
		np_json_uint(&j, "count", r->lay.count);
		np_json_str(&j, "type", type_of(r->dtype));
		np_json_str(&j, "redop", op_of(r));
		np_json_str(&j, "root", root);
		json_body(&j, "out_of_place", oop);
		json_body(&j, "in_place", ip);
		np_json_int(&j, "actual_iterations", r->iters);
		np_json_str(&j, "experiment_name", "");
		np_json_obj_end(&j);
		sums_add(&sum, oop, ip);
	}
	np_json_arr_end(&j);
	np_json_obj_begin(&j, "out_of_bounds");
	np_json_int(&j, "count", sum.errors);
	np_json_str(&j, "okay", sum.errors == 0 ? "true" : "false");
	np_json_obj_end(&j);
	np_json_obj_begin(&j, "average_bus_bandwidth");
	np_json_num(&j, "bandwidth", sum.n ? sum.bw / sum.n : 0.0);
	{
		/* "unchecked" without a threshold, as nccl-tests */
		const struct np_coll *c = rep->nrows ? rep->rows[0].coll : NULL;
		const char *mark = c ? np_sweep_avg_mark(rep, c) : NULL;
		np_json_str(&j, "okay", !mark ? "unchecked" : !strcmp(mark, "OK") ? "true" : "false");
	}
	np_json_obj_end(&j);
	/* nccl-tests' last NCCL error; here what stopped a run early */
	np_json_arr_begin(&j, "errors");
	if (rep->interrupted) {
		char why[128];
		snprintf(why, sizeof(why), "interrupted: %zu rows finished, the rest did not run (exit %d)", rep->nrows,
			 rep->exit_code);
		np_json_str(&j, NULL, why);
	}
	np_json_arr_end(&j);
	local_stamp(time(NULL), stamp, sizeof(stamp));
	np_json_str(&j, "end_time", stamp);
	np_json_obj_end(&j);
	fputc('\n', f);
}
