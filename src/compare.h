/* SPDX-License-Identifier: MIT */
/* Two sweep reports compared (src/compare.c): the compare command, and a
 * sweep's --baseline (the regression gate). */
#ifndef NP_COMPARE_H
#define NP_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "opts.h"
#include "run_record.h"
#include "status.h"

/* PATH is a sweep report compare can read; else one error in ERR. */
enum np_status np_compare_check(const char *path, struct np_err *err);

/* Report A against report B (named B_LABEL in what is written, when it is
 * given): B's speed over A's per row (faster or slower where the 95%
 * interval excludes 1 and the change is at least MIN_CHANGE, a fraction), errors and
 * regressions beyond MAX_REGRESSION (a fraction) on stderr. The table
 * goes to TO when it is given; else FORMAT (table or JSON) to OUTPUT
 * ("-" or NULL: standard output), written whole. Returns compare's exit
 * status: 0, 1 (a regression), 64 (not comparable, a bad file), 3. */
int np_compare_files(const char *a_path, const char *b_path, const char *b_label, double max_regression,
		     double min_change, enum np_format format, bool quiet, const char *output, FILE *to,
		     const struct np_run_record *rec);

#endif
