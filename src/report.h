/* SPDX-License-Identifier: MIT */
/* Output sinks of the sweep report: the human table (streamed row by
 * row), JSON and CSV (written whole); files go through src/outfile.h. */
#ifndef NP_REPORT_H
#define NP_REPORT_H

#include <stdio.h>

#include "metrics.h"
#include "msg.h"
#include "outfile.h"
#include "results.h"

/* Per collective: the peak busbw and the busbw at the largest size. */
struct np_summary {
	const struct np_coll *coll;
	double peak_busbw;
	uint64_t peak_size;
	double last_busbw, last_algbw;
	uint64_t last_size;
	double last_eff; /* NaN when unknown */
	double last_limit;
};

/* Fills out[] (one per collective that has rows), returns how many. */
int np_report_summary(const struct np_sweep_report *rep, struct np_summary *out, int cap);

/* Format a metric value for the human table or CSV into buf. */
void np_metric_format(const struct np_metric *m, const struct np_value *v, bool human, char *buf,
		      size_t len);

void np_report_table_header(FILE *f, const struct np_sweep_report *rep);
/* The human table's state: --wide, and the collective of the last row
 * (the default table heads each collective's rows). */
struct np_table {
	bool wide;
	const struct np_coll *coll;
	bool inplace;
};
void np_report_table_columns(FILE *f, struct np_table *t);
void np_report_table_row(FILE *f, struct np_table *t, const struct np_result *r);
void np_report_table_skip(FILE *f, const struct np_skip *s);

/* The sweep's writer of each --format (NP_FORMATS, src/opts.h): the
 * whole report; --format nccl-tests is nccl-tests 2.19's table, one block
 * per collective */
#define NP_REPORT_WRITER(m, name, writer) void writer(FILE *f, const struct np_sweep_report *rep);
NP_FORMATS(NP_REPORT_WRITER)
#undef NP_REPORT_WRITER
/* nccl-tests' -J JSON layout, beside --format nccl-tests */
void np_report_nccltests_json(FILE *f, const struct np_sweep_report *rep);

#endif
