/* SPDX-License-Identifier: MIT */
/* Unit tests of the metric table (src/metrics.h): every column that a
 * format writes is a row of the table, found by its name; the headings
 * each writer prints are the table's; and the one-decimal rule is one
 * function, which every table and the summary follow. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/metrics.h"
#include "../../src/openmetrics.h"
#include "../../src/opts.h"
#include "../../src/report.h"
#include "../../src/results.h"
#include "tap.h"

/* Each format's columns, by the metric names a reader of that format
 * knows them by (the man page's names), in the order the format writes
 * them: what the table must hold. */
static const char *const table_cols[] = { "size",  "count", "type",  "redop", "root",    "time",
					  "algbw", "busbw", "wrong", "eff",   "verdict", NULL };
static const char *const nccl_line_cols[] = { "size", "count", "type", "redop", "root", NULL };
static const char *const nccl_form_cols[] = { "time", "algbw", "busbw", "wrong", NULL };
static const char *const om_cols[] = { "busbw", "algbw", "time",  "time_min", "time_max",
				       "limit", "eff",   "wrong", "verdict",  NULL };
/* what compare reads of each row (src/compare_read.c) */
static const char *const compare_cols[] = { "coll", "type",  "redop",  "root", "inplace", "size",
					    "time", "busbw", "judged", "stop", NULL };

static const struct {
	const char *format;
	const char *const *cols;
} formats[] = {
	{ "default table", table_cols },       { "nccl-tests line", nccl_line_cols },
	{ "nccl-tests form", nccl_form_cols }, { "OpenMetrics", om_cols },
	{ "compare", compare_cols },
};

/* Whether metric m is a column of format k */
static bool in_format(int k, const struct np_metric *m)
{
	switch (k) {
	case 0: return m->table.head != NULL;
	case 1: return m->nccl.col.head && !m->nccl.form;
	case 2: return m->nccl.col.head && m->nccl.form;
	case 3: return m->om.name != NULL;
	default: return true;
	}
}

static char *output(void (*write)(FILE *f, void *arg), void *arg)
{
	static char buf[1 << 16];
	FILE *f = tmpfile();
	size_t n = 0;

	buf[0] = '\0';
	if (!f)
		return buf;
	write(f, arg);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static struct np_opts opts;
static struct np_world world;
static struct np_result row;
static struct np_sweep_report rep;

static void init_report(double eff)
{
	memset(&row, 0, sizeof(row));
	memset(&rep, 0, sizeof(rep));
	world.size = 2;
	world.nnodes = 1;
	opts.check = true;
	row.coll = &np_colls[NP_COLL_ALLREDUCE];
	row.lay.size = 1 << 20;
	row.lay.count = row.lay.size / 4;
	row.dtype = NP_FLOAT;
	row.root = -1;
	row.t_med = row.t_min = row.t_max = 1e-4;
	row.algbw = row.busbw = 10.5;
	row.limit = 100;
	row.eff = eff;
	row.checked = true;
	row.samples = 5;
	row.iters = 10;
	row.pass = 1;
	row.slow_rank = -1;
	row.slow_time = row.slow_excess = NAN;
	rep.opts = &opts;
	rep.world = &world;
	rep.backend = "mpi";
	rep.rows = &row;
	rep.nrows = 1;
}

static void write_table(FILE *f, void *wide)
{
	struct np_table t = { .wide = *(bool *)wide };
	np_report_table_columns(f, &t);
	np_report_table_row(f, &t, &row);
}

static void write_footer(FILE *f, void *arg)
{
	(void)arg;
	np_report_table_footer(f, &rep);
}

static void write_nccltests(FILE *f, void *arg)
{
	(void)arg;
	np_report_nccltests(f, &rep);
}

/* The words of the line of S that starts with PREFIX, after it, into
 * words[] (at most cap); returns how many. */
static int words_of(char *s, const char *prefix, char **words, int cap)
{
	char *line = strstr(s, prefix), *end, *w;
	int n = 0;

	if (!line)
		return 0;
	line += strlen(prefix);
	end = strchr(line, '\n');
	if (end)
		*end = '\0';
	for (w = strtok(line, " "); w && n < cap; w = strtok(NULL, " "))
		words[n++] = w;
	return n;
}

/* the table's rows, each format's columns, the OpenMetrics families */
static void table_rows(void)
{
	int fams = 0;

	/* the table: one row per id, each found by its name */
	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_metric *m = &np_metrics[i];
		if (!m->name || np_metric_find(m->name) != m)
			tap_ok(0, "metric %d has a name that finds it (%s)", i,
			       m->name ? m->name : "none");
	}
	tap_is_int(np_metrics_count, NP_M_NUM_METRICS, "one row per enum np_metric_id");
	tap_ok(np_metric_find("no_such_metric") == NULL,
	       "a name that is not in the table finds nothing");

	/* every column a format names is a row, and the format's columns in
	 * the table are those, in that order */
	for (size_t k = 0; k < sizeof(formats) / sizeof(formats[0]); k++) {
		int bad = 0, n = 0, at = 0;
		for (const char *const *c = formats[k].cols; *c; c++, n++) {
			const struct np_metric *m = np_metric_find(*c);
			if (!m || !in_format((int)k, m)) {
				tap_ok(0, "%s names '%s': %s", formats[k].format, *c,
				       m ? "a row that is not in that format"
					 : "no metric of that name");
				bad++;
			}
		}
		if (k == 4)
			for (const char *const *c = formats[k].cols; *c; c++)
				at += np_metric_find(*c) != NULL;
		else if (k == 3) {
			for (int o = 1; formats[k].cols[o - 1]; o++) {
				const struct np_metric *m = np_metric_find(formats[k].cols[o - 1]);
				at += m && m->om.order == o;
			}
		} else {
			for (int i = 0; i < np_metrics_count; i++)
				if (in_format((int)k, &np_metrics[i])) {
					if (at >= 0 && at < n &&
					    !strcmp(np_metrics[i].name, formats[k].cols[at]))
						at++;
					else
						at = -1000;
				}
		}
		tap_ok(!bad && at == n,
		       "%s: its %d columns are rows of the metric table, in its order",
		       formats[k].format, n);
	}

	/* the OpenMetrics families: names unique, places 1..n once each */
	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_metric *m = &np_metrics[i];
		if (!m->om.name)
			continue;
		fams++;
		for (int j = i + 1; j < np_metrics_count; j++)
			if (np_metrics[j].om.name && (!strcmp(np_metrics[j].om.name, m->om.name) ||
						      np_metrics[j].om.order == m->om.order))
				tap_ok(0, "families '%s' and '%s' share a name or a place",
				       m->om.name, np_metrics[j].om.name);
		if (m->om.order < 1 || !m->om.help)
			tap_ok(0, "family '%s' has a place and a HELP", m->om.name);
	}
	tap_is_int(fams, 9, "nine row families");
}

/* headings, what the writers print, the decimal rule */
static void writers(void)
{
	/* headings fit their columns */
	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_col *c[2] = { &np_metrics[i].table, &np_metrics[i].nccl.col };
		for (int k = 0; k < 2; k++)
			if (c[k]->head && ((int)strlen(c[k]->head) > c[k]->width ||
					   (c[k]->unit && (int)strlen(c[k]->unit) > c[k]->width)))
				tap_ok(0, "'%s' fits its %s column", np_metrics[i].name,
				       k ? "nccl-tests" : "table");
	}

	/* what the writers print: each heading is a row's */
	init_report(0.5);
	{
		bool wide = false;
		char *w[32], *h = strstr(output(write_table, &wide), "\n#");
		int n = h ? words_of(h + 1, "#", w, 32) : 0, ok = n == 11;
		for (int i = 0, k = 0; i < np_metrics_count && ok; i++)
			if (np_metrics[i].table.head)
				ok = !strcmp(w[k++], np_metrics[i].table.head);
		tap_ok(ok, "the default table prints the table's %d headings (%d)", 11, n);
	}
	{
		bool wide = true;
		char *w[32];
		int n = words_of(output(write_table, &wide), "#", w, 32), k = 0, ok = 1;
		for (int i = 0; i < np_metrics_count; i++)
			if (np_metrics[i].width)
				ok &= k < n && !strcmp(w[k++], np_metrics[i].head);
		tap_ok(ok && k == n, "--wide prints the table's headings (%d)", n);
	}
	{
		char *w[32], *s = output(write_nccltests, NULL), *h = strstr(s, "\n#       size ");
		int n = h ? words_of(h + 1, "# ", w, 32) : 0, k = 0, ok = 1;
		for (int form = 0; form < 3; form++)
			for (int i = 0; i < np_metrics_count; i++)
				if (np_metrics[i].nccl.col.head &&
				    np_metrics[i].nccl.form == (form > 0))
					ok &= k < n && !strcmp(w[k++], np_metrics[i].nccl.col.head);
		tap_ok(ok && k == n && n == 13,
		       "--format nccl-tests prints the table's headings (%d)", n);
	}

	/* the one-decimal rule */
	tap_is_int(np_fig_decimals(0.4, 0), 1, "0.4 keeps a decimal");
	tap_is_int(np_fig_decimals(9.99, 0), 1, "9.99 keeps a decimal");
	tap_is_int(np_fig_decimals(-3, 0), 1, "-3 keeps a decimal");
	tap_is_int(np_fig_decimals(0, 0), 0, "0 is 0");
	tap_is_int(np_fig_decimals(10, 0), 0, "10 is whole");
	tap_is_int(np_fig_decimals(0.4, 2), 2, "a column with decimals keeps its own");
	{
		static const double effs[] = { 0.004, 0.0, 0.853, 0.0999, 0.1 };
		for (size_t i = 0; i < sizeof(effs) / sizeof(effs[0]); i++) {
			const struct np_metric *eff = &np_metrics[NP_M_EFF];
			struct np_value v = { .d = effs[i] };
			char want[32], wide[32], table[32], line[64];
			double pct = effs[i] * 100;
			bool wide_ok, table_ok, sum_ok;
			snprintf(want, sizeof(want), "%.*f", np_fig_decimals(pct, 0), pct);
			np_metric_format(eff, &v, true, wide, sizeof(wide));
			init_report(effs[i]);
			np_col_format(eff, &eff->table, &row, table, sizeof(table));
			snprintf(line, sizeof(line), "GB/s at 1 MiB, %s%% of", want);
			wide_ok = !strcmp(wide, want);
			table_ok = !strcmp(table + strspn(table, " "), want);
			sum_ok = strstr(output(write_footer, NULL), line) != NULL;
			tap_ok(wide_ok && table_ok && sum_ok,
			       "eff %g: --wide '%s', table '%s', summary %s: all '%s' (np_fig_decimals)",
			       effs[i], wide, table, sum_ok ? "the same" : "differs", want);
		}
	}
}

int main(void)
{
	table_rows();
	writers();
	return tap_done();
}
