/* SPDX-License-Identifier: MIT */
/* Two sweep reports compared (src/compare.c): the compare command
 * (cmds.h), and a sweep's --baseline (the regression gate). */
#ifndef NP_COMPARE_H
#define NP_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "opts.h"
#include "run_record.h"
#include "../common/status.h"

/* PATH is a sweep report compare can read; else one error in ERR. */
enum np_status np_compare_check(const char *path, struct np_err *err);

struct np_sweep_report;

/* A sweep's --baseline: the report in the file BASELINE (A) against the
 * run REP in memory (B, named LABEL), compared as 'nccl-probe compare'
 * compares BASELINE with REP's JSON report: B's speed over A's per row
 * (faster or slower where the 95% interval excludes 1 and the change is
 * at least MIN_CHANGE, a fraction), errors and regressions beyond
 * MAX_REGRESSION (a fraction) on stderr, the table to TO. Nothing is
 * written to a file. Returns compare's exit status: 0, 1 (a regression),
 * 64 (not comparable, a bad file), 3. */
int np_compare_report(const char *baseline, const struct np_sweep_report *rep, const char *label,
		      double max_regression, double min_change, bool quiet, FILE *to);

#endif
