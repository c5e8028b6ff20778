/* SPDX-License-Identifier: MIT */
/* CSV report: one header line of metric names, one line per result. */
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

void np_report_csv(FILE *f, const struct np_sweep_report *rep)
{
	char buf[64];

	for (int m = 0; m < np_metrics_count; m++) {
		if (m)
			fputc(',', f);
		csv_field(f, np_metrics[m].name);
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
		fputc('\n', f);
	}
}
