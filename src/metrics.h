/* SPDX-License-Identifier: MIT */
/* The metric table: every column of a result row, defined once: its
 * name (JSON key and CSV column), unit, type and getter, and its place in
 * every other format: the --wide table, the default table, nccl-tests'
 * columns (text and -J) and the OpenMetrics family. Every writer walks
 * it; a new column is one row here. */
#ifndef NP_METRICS_H
#define NP_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"

enum np_mtype { NP_MT_STR, NP_MT_UINT, NP_MT_INT, NP_MT_NUM, NP_MT_BOOL };

/* Each row's index in np_metrics[]: what code that needs one metric
 * (compare's keys) names it by. */
enum np_metric_id {
	NP_M_COLL,
	NP_M_SIZE,
	NP_M_COUNT,
	NP_M_TYPE,
	NP_M_REDOP,
	NP_M_ROOT,
	NP_M_INPLACE,
	NP_M_TIME,
	NP_M_TIME_MIN,
	NP_M_TIME_MAX,
	NP_M_TIME_CI,
	NP_M_ALGBW,
	NP_M_BUSBW,
	NP_M_WRONG,
	NP_M_LIMIT,
	NP_M_EFF,
	NP_M_SAMPLES,
	NP_M_ITERS,
	NP_M_STEADY,
	NP_M_CONVERGED,
	NP_M_SLOW_RANK,
	NP_M_SLOW_TIME,
	NP_M_SLOW_EXCESS,
	NP_M_JUDGED,
	NP_M_VERDICT,
	NP_M_STOP,
	NP_M_NUM_METRICS
};

struct np_value {
	bool null;
	const char *s;
	uint64_t u;
	int64_t i;
	double d;
	bool b;
};

/* How a column of a text format writes a value (np_col_format):
 * NP_CF_VALUE  the value as its type writes it; null as the column's null
 *              text, or with null NULL the getter's stand-in ("none", -1)
 * NP_CF_FIXED  value x scale with prec decimals (np_fig_decimals); null or
 *              not finite: the null text
 * NP_CF_NCCL_TIME  nccl-tests' time in the default table: 2 decimals
 *              below 100, 1 below 10000, else none
 * NP_CF_NCCL_FLOAT nccl-tests' getFloatStr: the most decimals (2, 1, 0)
 *              that fit the width
 * NP_CF_NCCL_TYPE  nccl-tests' type names (f8e4m3, f8e5m2)
 * NP_CF_NCCL_OP    the operation of reductions and of sendrecv (which
 *              nccl-tests runs per op), else "none"
 * NP_CF_NCCL_ROOT  nccl-tests' root: "%6i" whatever the width
 * NP_CF_NCCL_WRONG %g; unchecked, N/A one column narrower, as nccl-tests
 * NP_CF_MARK   a verdict: yes, NO; null: the null text */
enum np_cfmt {
	NP_CF_VALUE,
	NP_CF_FIXED,
	NP_CF_NCCL_TIME,
	NP_CF_NCCL_FLOAT,
	NP_CF_NCCL_TYPE,
	NP_CF_NCCL_OP,
	NP_CF_NCCL_ROOT,
	NP_CF_NCCL_WRONG,
	NP_CF_MARK,
};

/* A metric's column in a text format; head NULL: not in that format. */
struct np_col {
	const char *head; /* heading */
	const char *unit; /* second heading line ("(B)", "(us)"); NULL: none */
	int width;
	enum np_cfmt fmt;
	int prec;         /* NP_CF_FIXED: decimals (np_fig_decimals) */
	double scale;     /* the column shows value * scale (0: 1) */
	const char *null; /* what a null value shows */
};

/* A metric's place in --format nccl-tests: its column (as a text column)
 * and its -J key; form: one column per form (out of place, in place),
 * else one per line. */
struct np_nccl_col {
	struct np_col col;
	const char *json;
	bool form;
};

/* A metric's OpenMetrics family: nccl_probe_NAME, the factor to base
 * units (0: a "pass"/"fail" verdict written 1/0), its HELP; order: the
 * family's place in the file (1 first). name NULL: none. */
struct np_om_family {
	const char *name;
	double scale;
	int order;
	const char *help;
};

struct np_metric {
	const char *name; /* JSON key and CSV column */
	const char *head; /* --wide heading */
	const char *unit; /* "s", "B", "GB/s", "" ... (man page) */
	enum np_mtype type;
	int width;    /* --wide width, 0 = not in the wide table */
	int prec;     /* --wide decimals for NP_MT_NUM (np_fig_decimals) */
	double scale; /* --wide shows value * scale (e.g. s -> us) */
	void (*get)(const struct np_result *r, struct np_value *v);
	const char *help;        /* one line for the man page */
	struct np_col table;     /* the default table */
	struct np_nccl_col nccl; /* --format nccl-tests */
	struct np_om_family om;  /* --metrics */
};

extern const struct np_metric np_metrics[];
extern const int np_metrics_count;

/* The row named NAME, or NULL. */
const struct np_metric *np_metric_find(const char *name);

/* The one-decimal rule, for every format that shows figures to people:
 * a figure shown with prec decimals; one written without (prec 0) keeps
 * one decimal when it is not 0 and below 10 in magnitude, so that 0.4%
 * does not read 0%. */
int np_fig_decimals(double x, int prec);

/* Row r's value of metric m in column c, padded to the column's width
 * (right-aligned; width 0: not padded), into buf. */
void np_col_format(const struct np_metric *m, const struct np_col *c, const struct np_result *r,
		   char *buf, size_t len);

#endif
