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
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../common/number.h"
#include "../topo/model.h"
#include "json.h"
#include "report.h"
#include "sweep_verdict.h"
#include "version.h"

/* The columns come from the metric table (metrics.h: .nccl): those of
 * the line (size, count, type, redop, root), then one set per form (time,
 * algbw, busbw, #wrong), each preceded by two blanks as in nccl-tests. */

/* nccl-tests' [domain:bus:device] of a PCI bus id ("0000:19:00.0" gives
 * "0000:19:00"); zeros without one (host memory) or when it is not one */
static void device_hex(const char *bus_id, char *buf, size_t len)
{
	unsigned dom = 0, bus = 0, dev = 0, fn;

	if (!np_busid_parse(bus_id, &dom, &bus, &dev, &fn))
		dom = bus = dev = 0;
	snprintf(buf, len, "%04x:%02x:%02x", dom, bus, dev);
}

/* One form's columns; N/A for a form not run */
static void body(FILE *f, const struct np_result *r)
{
	char buf[64];

	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_metric *m = &np_metrics[i];
		if (!m->nccl.col.head || !m->nccl.form)
			continue;
		if (r)
			np_col_format(m, &m->nccl.col, r, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%*s", m->nccl.col.width, "N/A");
		fprintf(f, "  %s", buf);
	}
}

/* A heading line: the line's columns, then each form's ("# " stands in
 * the first column, and a blank ends the line, as in nccl-tests) */
static void heading(FILE *f, bool units)
{
	bool first = true;

	for (int form = 0; form < 3; form++)
		for (int i = 0; i < np_metrics_count; i++) {
			const struct np_col *c = &np_metrics[i].nccl.col;
			const char *text = units ? (c->unit ? c->unit : "") : c->head;
			if (!c->head || np_metrics[i].nccl.form != (form > 0))
				continue;
			if (first)
				fprintf(f, "# %*s", c->width - 2, text);
			else
				fprintf(f, "  %*s", c->width, text);
			first = false;
		}
	fputs(" \n", f);
}

/* The line's own columns of row r */
static void line_head(FILE *f, const struct np_result *r)
{
	char buf[64];
	bool first = true;

	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_metric *m = &np_metrics[i];
		if (!m->nccl.col.head || m->nccl.form)
			continue;
		np_col_format(m, &m->nccl.col, r, buf, sizeof(buf));
		fprintf(f, "%s%s", first ? "" : "  ", buf);
		first = false;
	}
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

	if (r->inplace && prev && !prev->inplace && prev->coll == r->coll &&
	    prev->lay.size == r->lay.size)
		return false;
	*oop = r->inplace ? NULL : r;
	*ip = r->inplace ? r : NULL;
	if (!r->inplace && next && next->inplace && next->coll == r->coll &&
	    next->lay.size == r->lay.size)
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
		fprintf(f, "# %s has no in-place form here: the in-place columns are N/A\n",
			coll->name);
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
		fprintf(f, "# nccl-probe %s in nccl-tests' format (2.19): %s, backend %s\n",
			PACKAGE_VERSION, rep->info.library, rep->backend);
		fprintf(f, "# Collective test starting: %s\n", prog);
		fprintf(f,
			"# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg iters: 1 validation: %d graph: %d unalign: 0\n",
			(unsigned long long)o->min_bytes, (unsigned long long)o->max_bytes,
			o->step_kind == NP_STEP_FACTOR ? (unsigned long long)o->step_factor
						       : (unsigned long long)o->step_bytes,
			o->step_kind == NP_STEP_FACTOR ? "factor" : "bytes", o->warmup, o->iters,
			o->check ? 1 : 0, o->graph ? 1 : 0);
		forms_line(f, o, coll);
		fprintf(f, "#\n# Using devices\n");
		for (int r = 0; r < w->size && rep->ranks; r++) {
			const struct np_rank_info *ri = &rep->ranks[r];
			char hex[32];
			device_hex(ri->bus_id, hex, sizeof(hex));
			fprintf(f, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n",
				ri->rank, 0, ri->pid, ri->host, ri->device, hex, ri->device_name);
		}
		fprintf(f, "#\n");
		fprintf(f,
			"# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n",
			"", "", "", "", "");
		heading(f, false);
		heading(f, true);
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct np_result *r = &rep->rows[i], *oop, *ip;
			if (r->coll != coll || !line_of(rep, i, &oop, &ip))
				continue;
			line_head(f, r);
			body(f, oop);
			body(f, ip);
			fprintf(f, "\n");
			sums_add(&sum, oop, ip);
		}
		if (rep->interrupted) {
			/* no clean end's footer: a reader finds no "OK" and no
			 * "concluded" in a run that did not finish */
			fprintf(f,
				"# interrupted: the rows above are complete, the rest did not run (exit %d)\n",
				rep->exit_code);
			continue;
		}
		mark = np_sweep_avg_mark(rep, coll);
		fprintf(f, "# %-20s : %d %s\n", "Out of bounds values", sum.errors,
			sum.errors ? "FAILED" : "OK");
		fprintf(f, "# %-20s : %g %s\n", "Avg bus bandwidth", sum.n ? sum.bw / sum.n : 0.0,
			mark ? mark : "");
		fprintf(f, "#\n");
		fprintf(f, "# Collective test concluded: %s\n", prog);
	}
}

/* One form's -J object ({time, alg_bw, bus_bw, nwrong}), null for a form
 * not run */
static void json_body(struct np_json *j, const char *key, const struct np_result *r)
{
	if (!r) {
		np_json_null(j, key);
		return;
	}
	np_json_obj_begin(j, key);
	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_metric *m = &np_metrics[i];
		const struct np_col *c = &m->nccl.col;
		struct np_value v = { 0 };
		if (!c->head || !m->nccl.form)
			continue;
		m->get(r, &v);
		if (v.null)
			np_json_null(j, m->nccl.json);
		else
			np_json_num(j, m->nccl.json,
				    (m->type == NP_MT_UINT ? (double)v.u : v.d) *
					    (c->scale ? c->scale : 1));
	}
	np_json_obj_end(j);
}

/* The line's own -J keys: numbers as numbers, the rest as the text
 * columns write them (root as "%6i", as nccl-tests) */
static void json_head(struct np_json *j, const struct np_result *r)
{
	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_metric *m = &np_metrics[i];
		struct np_col c = m->nccl.col;
		char buf[64];
		struct np_value v = { 0 };
		if (!c.head || m->nccl.form)
			continue;
		m->get(r, &v);
		if (m->type == NP_MT_UINT) {
			np_json_uint(j, m->nccl.json, v.u);
			continue;
		}
		c.width = 0;
		np_col_format(m, &c, r, buf, sizeof(buf));
		np_json_str(j, m->nccl.json, buf);
	}
}

/* nccl-tests' time stamps: "%Y-%m-%d %H:%M:%S", local time */
static void local_stamp(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "1970-01-01 00:00:00");
}

/* "2026-05-04T09:41:07Z" (run_record.h) into tm's fields as written (the
 * year in full, the month from 1); false when iso is not such a stamp */
static bool iso_parse(const char *iso, struct tm *tm)
{
	static const struct {
		int64_t lo, hi;
		char sep;
	} f[6] = { { 0, 9999, '-' }, { 1, 12, '-' }, { 1, 31, 'T' },
		   { 0, 23, ':' },   { 0, 59, ':' }, { 0, 60, 'Z' } };
	int *out[6] = { &tm->tm_year, &tm->tm_mon, &tm->tm_mday,
			&tm->tm_hour, &tm->tm_min, &tm->tm_sec };
	const char *p = iso;
	int64_t v;

	for (int i = 0; i < 6; i++) {
		if (!np_scan_i64(&p, 10, f[i].lo, f[i].hi, &v) || *p++ != f[i].sep)
			return false;
		*out[i] = (int)v;
	}
	return !*p;
}

/* The run's start (its record's ISO 8601 UTC stamp) in nccl-tests' form */
static void start_stamp(const char *iso, char *buf, size_t len)
{
	struct tm tm = { 0 };

	if (iso_parse(iso, &tm)) {
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		local_stamp(timegm(&tm), buf, len);
	} else {
		local_stamp(time(NULL), buf, len);
	}
}

/* nccl-tests' NCCL_VERSION_CODE of "NCCL 2.28.3" (what may follow it after
 * a blank: "(built with the headers of ...)"): 22803; 0 without NCCL or
 * when the version is not three numbers that code holds */
static int nccl_version_code(const char *library)
{
	const char *p = library;
	int64_t a, b, c;

	if (strncmp(p, "NCCL ", 5))
		return 0;
	p += 5;
	if (!np_scan_i64(&p, 10, 0, 9999, &a) || *p++ != '.' || !np_scan_i64(&p, 10, 0, 99, &b) ||
	    *p++ != '.' || !np_scan_i64(&p, 10, 0, 99, &c) || (*p && *p != ' '))
		return 0;
	return (int)(a * 10000 + b * 100 + c);
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
	np_json_int(&j, "nccl_version", nccl_version_code(rep->info.library));
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
			char hex[32];
			device_hex(ri->bus_id, hex, sizeof(hex));
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
		if (!line_of(rep, i, &oop, &ip))
			continue;
		np_json_obj_begin(&j, NULL);
		json_head(&j, r);
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
		np_json_str(&j, "okay",
			    !mark                 ? "unchecked"
			    : !strcmp(mark, "OK") ? "true"
						  : "false");
	}
	np_json_obj_end(&j);
	/* nccl-tests' last NCCL error; here what stopped a run early */
	np_json_arr_begin(&j, "errors");
	if (rep->interrupted) {
		char why[128];
		snprintf(why, sizeof(why),
			 "interrupted: %zu rows finished, the rest did not run (exit %d)",
			 rep->nrows, rep->exit_code);
		np_json_str(&j, NULL, why);
	}
	np_json_arr_end(&j);
	local_stamp(time(NULL), stamp, sizeof(stamp));
	np_json_str(&j, "end_time", stamp);
	np_json_obj_end(&j);
	fputc('\n', f);
}
