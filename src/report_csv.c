/* SPDX-License-Identifier: MIT */
/* CSV report: one header line of metric names, one line per result; the
 * run's columns follow the metrics on every line, so that the rows of
 * concatenated files still say which run, backend and world they are. */
#include "config.h"

#include <string.h>

#include "report.h"

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The run's columns, after the metrics (the same on every line). */
static const char *const run_columns[] = { "run_id", "backend", "ranks", "nodes" };

static void run_fields(FILE *f, const struct np_sweep_report *rep)
{
	fputc(',', f);
	csv_field(f, rep->run.id);
	fputc(',', f);
	csv_field(f, rep->backend ? rep->backend : "");
	fprintf(f, ",%d,%d", rep->world->size, rep->world->nnodes);
}

void np_report_csv(FILE *f, const struct np_sweep_report *rep)
{
	char buf[64];

	for (int m = 0; m < np_metrics_count; m++) {
		if (m)
			fputc(',', f);
		csv_field(f, np_metrics[m].name);
	}
	for (size_t c = 0; c < sizeof(run_columns) / sizeof(run_columns[0]); c++) {
		fputc(',', f);
		csv_field(f, run_columns[c]);
	}
	fputc('\n', f);
	for (size_t i = 0; i < rep->nrows; i++) {
		for (int m = 0; m < np_metrics_count; m++) {
			struct np_value v = { 0 };
			if (m)
				fputc(',', f);
			np_metrics[m].get(&rep->rows[i], &v);
			np_metric_format(&np_metrics[m], &v, false, buf, sizeof(buf));
			csv_field(f, buf);
		}
		run_fields(f, rep);
		fputc('\n', f);
	}
}
