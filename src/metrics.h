/* SPDX-License-Identifier: MIT */
/* The metric table: every column of a result row, defined once (name,
 * unit, type, getter). The human table, JSON and CSV writers walk it. */
#ifndef NP_METRICS_H
#define NP_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "results.h"

enum np_mtype { NP_MT_STR, NP_MT_UINT, NP_MT_INT, NP_MT_NUM, NP_MT_BOOL };

struct np_value {
	bool null;
	const char *s;
	uint64_t u;
	int64_t i;
	double d;
	bool b;
};

struct np_metric {
	const char *name;   /* JSON key and CSV column */
	const char *head;   /* human table heading */
	const char *unit;   /* "s", "B", "GB/s", "" ... (man page) */
	enum np_mtype type;
	int width;          /* human table width, 0 = not in the human table */
	int prec;           /* decimals in the human table for NP_MT_NUM */
	double scale;       /* human table shows value * scale (e.g. s -> us) */
	void (*get)(const struct np_result *r, struct np_value *v);
	const char *help;   /* one line for the man page */
};

extern const struct np_metric np_metrics[];
extern const int np_metrics_count;

#endif
