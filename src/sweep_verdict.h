/* SPDX-License-Identifier: MIT */
/* The sweep's verdict (src/sweep_verdict.c): pure functions of the
 * report, its rows and its options (opts, world set). */
#ifndef NP_SWEEP_VERDICT_H
#define NP_SWEEP_VERDICT_H

#include "results.h"

/* A judged row against its collective's thresholds: res->pass 1 or 0,
 * -1 when not judged or no threshold applies. */
void np_sweep_row_verdict(const struct np_sweep_report *r, struct np_result *res);
/* The whole run: r->exit_code, r->verdict[] (the reasons), r->details[]
 * (each failing row or reason) and r->judged (what was judged). */
void np_sweep_verdict(struct np_sweep_report *r);
/* --format nccl-tests' "# Avg bus bandwidth" of collective c: the mean
 * busbw of its rows, every size and form (nccl-tests' average); 0 with
 * none. */
double np_sweep_avg_busbw(const struct np_sweep_report *r, const struct np_coll *c);
/* The mark of that line: NULL unchecked (no NCCL_TESTS_MIN_BW, no
 * --min-busbw for c), else "OK" or "FAILED": the average below 0.9 x
 * NCCL_TESTS_MIN_BW (nccl-tests' check), or a judged row below c's
 * --min-busbw, or none judged, fail; a row only inconclusive against
 * --min-busbw is "INCONCLUSIVE". */
const char *np_sweep_avg_mark(const struct np_sweep_report *r, const struct np_coll *c);
/* One more reason (every one is kept) */
void np_sweep_add_verdict(struct np_sweep_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
